#!/bin/sh
# tests/cli/test_huge_deadlines_cli.sh GAR — `gar replay` on a hung device
# ends every wait with error 16 whatever the deadline's size: no abort when
# start + deadline would pass 2^64, no loop, no hours of stepping.  Each run
# has a minute; every one takes milliseconds.
set -u
. "$(dirname "$0")/lib.sh"

cat >"$tmp/t.trace" <<'TRACE'
# gar-trace v1
point,submit_ns,start_ns,done_ns
1,0,0,1000000
1,2000000,2000000,3000000
1,4000000,4000000,5000000
TRACE
cat >"$tmp/park.host" <<'HOST'
gar-host v1
query_ns 1000
clock_ns 20
word_wait yes
sleep_overshoot_ns p0=20000 p50=20000 p90=20000 p99=20000 p100=20000
block_wake_ns p0=30000 p50=30000 p90=30000 p99=30000 p100=30000
park_wake_ns p0=300 p50=300 p90=300 p99=300 p100=300
poll_period_ns p0=100 p50=200 p90=400 p99=900 p100=5000
HOST

for deadline in 18446744073709551615 1000000000000000000; do
    for plan in block poll 'flag:park_us=100,backstop_us=1000' \
        'flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'; do
        for exact in '' --exact-polls; do
            timeout 60 "$gar" replay "$tmp/t.trace" --host "$tmp/park.host" --plan "$plan" \
                --fault hang@1 --deadline-ns "$deadline" $exact >"$tmp/out" 2>"$tmp/err"
            rc=$?
            what="$plan $exact, deadline $deadline"
            [ "$rc" -eq 2 ] || fail "$what: exit $rc, not 2 (124: it hung; 134: it aborted)"
            grep -q '^error 16 (WaitDeadline)' "$tmp/err" || fail "$what: no error 16: $(cat "$tmp/err")"
            [ ! -s "$tmp/out" ] || fail "$what: printed metrics for a failed replay"
        done
    done
done
# start + 2^64-1 saturates at the clock's last instant, never wraps.
timeout 60 "$gar" replay "$tmp/t.trace" --host "$tmp/park.host" --plan block --fault hang@1 \
    --deadline-ns 18446744073709551615 2>"$tmp/err"
grep -q 'deadline of 18446744073709551614 ns' "$tmp/err" ||
    fail "the saturated deadline is not the clock's last instant: $(cat "$tmp/err")"

[ "$failures" -eq 0 ] || exit 1
echo "huge deadlines: ok"
