#!/bin/sh
# tests/cli/test_spec_stdin_cli.sh GAR — a sweep spec given as '-' is read
# from standard input: `gar sweep -` sizes and runs it as it does the same
# spec from a file (relative paths then taken from the working directory),
# a fault in it is named "standard input:LINE", and `gar verify --sweep -`
# reads it too.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
case $gar in /*) ;; *) gar=$(pwd)/$gar ;; esac # it runs in another folder
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }

# A spec whose host path is relative: to its folder when read from a file,
# to the working directory when read from standard input.
mkdir "$tmp/specs" "$tmp/work"
cp "$data/hosts/dev-vm.host" "$tmp/specs/near.host"
cp "$data/hosts/dev-vm.host" "$tmp/work/near.host"
cat >"$tmp/specs/small.sweep" <<'SPEC'
gar-sweep v1
trace gen:steady:waits=40,seed=1 gen:jitter:waits=30,seed=2
plan block poll
estimator none
host near.host
mode open
seed {1..3..1}
SPEC

# --- the dry run: the same sizes from the file and from standard input ---
expect 0 "$gar" sweep "$tmp/specs/small.sweep" --dry-run
grep -v '^spec:' "$tmp/out" >"$tmp/from_file"
grep -q '^runs: 12$' "$tmp/from_file" || fail "the file's dry run: $(cat "$tmp/from_file")"
cd "$tmp/work" || exit 1
expect 0 "$gar" sweep - --dry-run <"$tmp/specs/small.sweep"
grep -q '^spec: -$' "$tmp/out" || fail "gar sweep - does not name its spec '-': $(head -n 1 "$tmp/out")"
grep -v '^spec:' "$tmp/out" >"$tmp/from_stdin"
cmp -s "$tmp/from_file" "$tmp/from_stdin" || fail "the dry run of - differs: $(cat "$tmp/from_stdin")"

# --- the sweep itself: the same rows ---
expect 0 "$gar" sweep - --db "$tmp/stdin.db" --quiet <"$tmp/specs/small.sweep"
grep -q '^ran: 12$' "$tmp/out" || fail "gar sweep - did not run 12 runs: $(cat "$tmp/out")"
expect 0 "$gar" sweep "$tmp/specs/small.sweep" --db "$tmp/file.db" --quiet
rows='SELECT trace, plan, host, mode, seed, waits, status FROM runs ORDER BY trace, plan, mode, seed'
[ "$(sqlite3 "$tmp/stdin.db" "$rows")" = "$(sqlite3 "$tmp/file.db" "$rows")" ] ||
    fail "the runs of the spec from standard input differ from those from its file"

# --- its relative paths are the working directory's ---
rm "$tmp/work/near.host"
expect 2 "$gar" sweep - --dry-run <"$tmp/specs/small.sweep"
grep -q "^error 12 (Io): cannot open './near.host': .*(standard input:5)$" "$tmp/err" ||
    fail "a missing host from standard input: $(cat "$tmp/err")"
cd "$tmp" || exit 1

# --- a fault is named by line, as in a file; nothing is written ---
printf 'gar-sweep v1\ntrace gen:steady:waits=40,seed=1\nplan poll bogus\nhost %s\nmode open\nseed 1\nestimator none\n' \
    "$data/hosts/dev-vm.host" >"$tmp/bad.sweep"
expect 2 "$gar" sweep - --db "$tmp/bad.db" <"$tmp/bad.sweep"
grep -q "^error 1 (InvalidPlan): invalid plan 'bogus': .*(standard input:3)$" "$tmp/err" ||
    fail "a bad plan from standard input: $(cat "$tmp/err")"
[ ! -e "$tmp/bad.db" ] || fail "a refused spec from standard input left a database"
expect 2 "$gar" sweep - --dry-run </dev/null
grep -q "standard input" "$tmp/err" || fail "an empty standard input: $(cat "$tmp/err")"

# --- gar verify --sweep reads its spec from standard input too (the spec is
# checked before anything runs on this machine) ---
expect 2 "$gar" verify --sweep - --db "$tmp/verify.db" <"$tmp/bad.sweep"
grep -q "^error 1 (InvalidPlan): invalid plan 'bogus': .*(standard input:3)$" "$tmp/err" ||
    fail "verify --sweep - with a bad plan: $(cat "$tmp/err")"

[ "$failures" -eq 0 ]
