#!/bin/sh
# tests/cli/test_sweep_cache_cli.sh GAR — a sweep over a long trace file maps
# it from a binary cache built beside it once (`.NAME.gar-cache`), reused by
# the next sweep and rebuilt when the text changes; what its runs store is
# what `gar replay` of the text prints.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }

# 120 000 waits: over the 4 MiB of text from which a sweep caches.
expect 0 "$gar" gen steady --waits 120000 --out "$tmp/long.csv"
[ "$(wc -c <"$tmp/long.csv")" -ge 4194304 ] || fail "the trace is under 4 MiB: no cache would be made"
cat >"$tmp/long.sweep" <<SPEC
gar-sweep v1
trace long.csv
plan poll
plan flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8
estimator adl
host $data/hosts/waitpkg.host
mode open
seed 1 2
SPEC
cache="$tmp/.long.csv.gar-cache"

expect 0 "$gar" sweep "$tmp/long.sweep" --db "$tmp/a.db" --jobs 2 --quiet
[ -f "$cache" ] || fail "no cache beside the trace after the sweep"
first=$(ls -i "$cache" | cut -d' ' -f1)

# Each run stored what a replay of the text gives.
for seed in 1 2; do
    expect 0 "$gar" replay "$tmp/long.csv" --plan poll --host "$data/hosts/waitpkg.host" \
        --seed $seed --json
    want=$(sed 's/.*"overshoot_ns":{"p50":\([0-9]*\),"p90":\([0-9]*\),"p99":\([0-9]*\).*"busy_ns":\([0-9]*\).*/\1 \2 \3 \4/' "$tmp/out")
    got=$(sqlite3 -separator ' ' "$tmp/a.db" "SELECT overshoot_p50_ns, overshoot_p90_ns,
        overshoot_p99_ns, busy_ns FROM runs WHERE plan = 'poll' AND seed = $seed")
    [ -n "$got" ] && [ "$got" = "$want" ] \
        || fail "seed $seed: the sweep stored '$got', the replay printed '$want'"
done

# The next sweep reuses the cache as it is.
expect 0 "$gar" sweep "$tmp/long.sweep" --db "$tmp/b.db" --jobs 2 --quiet
[ "$(ls -i "$cache" | cut -d' ' -f1)" = "$first" ] || fail "the cache was written again"
[ "$(sqlite3 "$tmp/a.db" 'SELECT plan, seed, overshoot_p99_ns, busy_ns FROM runs ORDER BY plan, seed')" = \
  "$(sqlite3 "$tmp/b.db" 'SELECT plan, seed, overshoot_p99_ns, busy_ns FROM runs ORDER BY plan, seed')" ] \
    || fail "the sweep from the reused cache stored other results"

# A changed text (its last line dropped) makes the cache stale: rebuilt.
sed '$d' "$tmp/long.csv" >"$tmp/shorter" && mv "$tmp/shorter" "$tmp/long.csv"
expect 0 "$gar" sweep "$tmp/long.sweep" --db "$tmp/c.db" --jobs 2 --quiet
[ "$(ls -i "$cache" | cut -d' ' -f1)" != "$first" ] || fail "the stale cache was kept"
[ "$(sqlite3 "$tmp/c.db" 'SELECT DISTINCT waits FROM runs')" = 119999 ] \
    || fail "the sweep of the changed text did not replay its 119 999 waits"

exit $((failures > 0))
