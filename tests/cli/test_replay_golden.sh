#!/bin/sh
# tests/cli/test_replay_golden.sh GAR FIXTURE — `gar replay --json` on every
# bundled trace, under each plan, estimator and host named in FIXTURE, prints
# exactly the bytes it printed when FIXTURE was written (their SHA-256).  It
# holds a refactoring or a speed-up to "no behaviour changes": a change that
# is meant to alter the simulation's output regenerates FIXTURE with
#   sh tests/cli/test_replay_golden.sh GAR FIXTURE --write
# and says why in its commit.
set -u
. "$(dirname "$0")/lib.sh"
case $gar in /*) ;; *) gar=$(pwd)/$gar ;; esac
case $2 in /*) fixture=$2 ;; *) fixture=$(pwd)/$2 ;; esac
write=${3:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1

# One line per run: TRACE PLAN ESTIMATOR HOST SEED SHA256.
runs() {
    for trace in data/traces/*.csv; do
        for host in data/hosts/dev-vm.host data/hosts/waitpkg.host; do
            for plan in block poll flag:park_us=100,backstop_us=1000 \
                poll+predict:margin_us=20,min_sleep_us=10,max_sleep_us=100000,window=8 \
                flag:park_us=50,backstop_us=500+predict:margin_us=0,min_sleep_us=0,max_sleep_us=100000,window=4 \
                auto:p99_us=20 auto:p99_us=1000; do
                echo "$trace $plan adl $host 1"
            done
            echo "$trace poll+predict:margin_us=50,min_sleep_us=10,max_sleep_us=100000,window=8 ewma:alpha=0.25 $host 2"
            echo "$trace poll+predict:margin_us=50,min_sleep_us=10,max_sleep_us=100000,window=8 quantile:q=0.9 $host 3"
        done
    done
}

runs >"$tmp/runs"
: >"$tmp/now"
while read -r trace plan estimator host seed; do
    "$gar" replay "$trace" --plan "$plan" --estimator "$estimator" --host "$host" \
        --seed "$seed" --json >"$tmp/json" 2>"$tmp/err" \
        || fail "gar replay $trace --plan $plan --estimator $estimator --host $host: $(head -c 300 "$tmp/err")"
    sum=$(sha256sum <"$tmp/json" | cut -d' ' -f1)
    echo "$trace $plan $estimator $host $seed $sum" >>"$tmp/now"
done <"$tmp/runs"

if [ "$write" = --write ]; then
    cp "$tmp/now" "$fixture"
    echo "wrote $(wc -l <"$fixture") runs to $fixture"
    exit "$failures"
fi
[ "$(wc -l <"$tmp/now")" -ge 90 ] || fail "only $(wc -l <"$tmp/now") runs"
if ! cmp -s "$tmp/now" "$fixture"; then
    diff "$fixture" "$tmp/now" | grep '^>' | head -20 | sed 's/^> /FAIL: output changed: /' >&2
    failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "ok: $(wc -l <"$tmp/now") replays as recorded"
exit "$failures"
