#!/bin/sh
# tests/cli/test_metric_range_cli.sh GAR — one range rule for the metrics:
# a replay whose makespan would pass 2^63 - 1 ns (a trace whose times reach
# it) is refused with error 10 naming the metric, by `gar replay --json` and
# by `gar sweep` alike (stored as failed, its metrics NULL), never printed
# or stored as a wrapped or clamped number.
set -u
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }

cat >"$tmp/max.trace" <<'TRACE'
# gar-trace v1
point,submit_ns,start_ns,done_ns
1,0,0,1000
1,9223372036854775000,9223372036854775000,9223372036854775807
TRACE
cat >"$tmp/h.host" <<'HOST'
gar-host v1
query_ns 1000
clock_ns 20
word_wait yes
sleep_overshoot_ns p0=20000 p50=20000 p90=20000 p99=20000 p100=20000
block_wake_ns p0=30000 p50=30000 p90=30000 p99=30000 p100=30000
park_wake_ns p0=300 p50=300 p90=300 p99=300 p100=300
poll_period_ns p0=1000 p50=1000 p90=1000 p99=1000 p100=1000
HOST

for plan in block poll 'flag:park_us=100,backstop_us=1000'; do
    "$gar" replay "$tmp/max.trace" --host "$tmp/h.host" --plan "$plan" --json \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$plan: exit $rc, not 2 ($(cat "$tmp/out"))"
    [ ! -s "$tmp/out" ] || fail "$plan: printed out-of-range metrics: $(cat "$tmp/out")"
    grep -q "^error 10 (CapacityExceeded): the replay's makespan_ns is full" "$tmp/err" ||
        fail "$plan: not error 10 on makespan_ns: $(cat "$tmp/err")"
done

cat >"$tmp/max.sweep" <<SPEC
gar-sweep v1
trace $tmp/max.trace
plan block poll
estimator adl
host $tmp/h.host
mode open
seed 1
SPEC
"$gar" sweep "$tmp/max.sweep" --db "$tmp/s.db" --quiet >"$tmp/out" 2>"$tmp/err" ||
    fail "the sweep did not finish: $(cat "$tmp/err")"
got=$(sqlite3 "$tmp/s.db" "SELECT status || ' ' || error_code || ' ' || ifnull(makespan_ns, 'NULL')
                              FROM runs ORDER BY plan")
want="failed 10 NULL
failed 10 NULL"
[ "$got" = "$want" ] || fail "the sweep stored '$got', not two failed runs with code 10"

[ "$failures" -eq 0 ] || exit 1
echo "metric range: ok"
