#!/bin/sh
# tests/cli/test_sparse_trace_cli.sh GAR — a sweep refuses a sparse trace
# (a valid head, then a GB hole) from the file's layout, before it hashes
# the text for its cache: error 13 naming the hole, no cache and no database
# made.  Skips (77) where the file system makes no hole.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)

head -c 2000 "$data/traces/steady.csv" >"$tmp/big.csv"
truncate -s 1G "$tmp/big.csv" || { echo "no truncate: skipped"; exit 77; }
[ "$(du -k "$tmp/big.csv" | cut -f1)" -lt 1024 ] || { echo "no sparse files here: skipped"; exit 77; }
cat >"$tmp/b.sweep" <<SPEC
gar-sweep v1
trace big.csv
plan poll
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
expect 2 "$gar" sweep "$tmp/b.sweep" --db "$tmp/b.db"
grep -q "^error 13 (InvalidTrace): .*big.csv: bytes [0-9]* to 1073741824 are a hole (a sparse file, read as NUL bytes): a line longer than 8192 bytes ($tmp/b.sweep:2)$" \
    "$tmp/err" || fail "a sparse trace: $(cat "$tmp/err")"
[ ! -e "$tmp/b.db" ] || fail "a refused sweep left a database"
[ ! -e "$tmp/.big.csv.gar-cache" ] || fail "a refused sweep left a trace cache"
# verify --sweep loads the same spec: the same refusal.
expect 2 "$gar" verify --sweep "$tmp/b.sweep" --db "$tmp/v.db" --host "$data/hosts/dev-vm.host"
grep -q "^error 13 (InvalidTrace): .*are a hole" "$tmp/err" || fail "verify --sweep: $(cat "$tmp/err")"

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
