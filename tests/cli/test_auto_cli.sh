#!/bin/sh
# tests/cli/test_auto_cli.sh GAR — auto:p99_us=B from the command line:
# `gar replay` says what the rule chose and warns (code 19) where no park
# can meet the budget; `gar verify` runs its choices for real; `gar auto-goals` sets auto beside the fixed arms of a
# small sweep, prints the goals, and refuses a database without auto.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)

"$gar" gen jitter --waits 600 --seed 3 --out "$tmp/j.csv" >/dev/null || fail "gen"

# On the bare-metal profile a flag park's tail meets 20 µs: flag, sleeping.
expect 0 "$gar" replay "$tmp/j.csv" --plan auto:p99_us=20 --host "$data/hosts/waitpkg.host"
grep -q '^plan: auto:p99_us=20$' "$tmp/out" || fail "replay: the plan's label"
grep -Eq '^auto: block 0 poll 0 flag 600 sleeps [1-9][0-9]* late [0-9]+ over_budget 0 over_budget_waits [0-9]+ held [0-9]+$' "$tmp/out" ||
    fail "replay at 20 us: $(grep '^auto' "$tmp/out")"
grep -q '^warning' "$tmp/out" && fail "replay at 20 us warned: $(grep '^warning' "$tmp/out")"
# 1 µs is beyond every park there: the warning, and the waits counted.
expect 0 "$gar" replay "$tmp/j.csv" --plan auto:p99_us=1 --host "$data/hosts/waitpkg.host"
grep -q '^warning: 19 (AutoOverBudget): .auto:p99_us=1. is beyond this host: .* (600 of 600 waits)' \
    "$tmp/out" || fail "replay at 1 us: no warning 19 ($(head -2 "$tmp/out"))"
grep -Eq '^auto: .* over_budget 600 over_budget_waits [1-9][0-9]* held 0$' "$tmp/out" || fail "replay at 1 us: $(grep '^auto' "$tmp/out")"
# Its p99 came out above the budget: warning 21, how sure, beside 19.
grep -q '^warning: 21 (AutoMissedBudget): .auto:p99_us=1. missed its budget: the run.s p99 overshoot, .* is above 1.00 µs (.*)$' \
    "$tmp/out" || fail "replay at 1 us: no warning 21 ($(grep '^warning' "$tmp/out"))"
# --json carries the same counts.
expect 0 "$gar" replay "$tmp/j.csv" --plan auto:p99_us=20 --host "$data/hosts/waitpkg.host" --json
grep -q '"auto":{"block":0,"poll":0,"flag":600,' "$tmp/out" || fail "replay --json: no auto counts"
grep -Eq '"over_budget_waits":[0-9]+,"held":[0-9]+}' "$tmp/out" || fail "replay --json: no over_budget_waits"
# A band may be auto: the large steps run the rule, the small ones block.
"$gar" gen decode --waits 400 --seed 2 --out "$tmp/d.csv" >/dev/null || fail "gen decode"
expect 0 "$gar" replay "$tmp/d.csv" --bands 'block;rows>=32:auto:p99_us=20' \
    --host "$data/hosts/waitpkg.host"
blocked=$(sed -n 's/^kinds: blocked \([0-9]*\) .*/\1/p' "$tmp/out")
chosen=$(sed -n 's/^auto: block 0 poll 0 flag \([0-9]*\) .*/\1/p' "$tmp/out")
[ -n "$blocked" ] && [ -n "$chosen" ] && [ "$blocked" -gt 0 ] && [ "$chosen" -gt 0 ] &&
    [ $((blocked + chosen)) -eq 400 ] || fail "bands with auto: blocked $blocked, auto $chosen"

# A bad budget is a plan refused with code 1, nothing on stdout.
expect 2 "$gar" replay "$tmp/j.csv" --plan auto:p99_us=0
grep -q '^error 1 (InvalidPlan): .*p99_us must be 1..1000000, found 0' "$tmp/err" ||
    fail "p99_us=0: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "p99_us=0 printed on stdout"

# For real (the emulated device): at 1 ms on the development VM's profile the
# blocking wake fits, and a block is the cheapest wait, so every wait blocks,
# in the real run and in the simulation of it.
"$gar" gen steady --waits 100 --seed 1 --param residual_us=500 --out "$tmp/s.csv" >/dev/null ||
    fail "gen steady"
# (Exit 0 when the two agree, 1 when not: that verdict is this machine's.)
"$gar" verify "$tmp/s.csv" --plan auto:p99_us=1000 --host "$data/hosts/dev-vm.host" \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -le 1 ] || fail "verify at 1 ms: exit $rc ($(cat "$tmp/err"))"
grep -q '^kinds: real=blocked:100,immediate:0,late:0,parked:0 sim=blocked:100,' "$tmp/out" ||
    fail "verify at 1 ms: $(grep '^kinds' "$tmp/out")"
grep -Eq '^verdict: (agree|disagree)$' "$tmp/out" || fail "verify at 1 ms: no verdict"

# A small sweep: auto at two budgets beside block, poll and a predict arm.
cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace $tmp/j.csv
plan auto:p99_us={5,100} block poll
plan poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8
estimator adl
host $data/hosts/waitpkg.host $data/hosts/dev-vm.host
mode open
seed 1 2
SPEC
"$gar" sweep "$tmp/s.sweep" --db "$tmp/s.db" >/dev/null 2>&1 || fail "sweep"
expect 0 "$gar" auto-goals --db "$tmp/s.db"
grep -q '^cells: 4 (trace x host x budget)' "$tmp/out" || fail "auto-goals: $(sed -n 2p "$tmp/out")"
for goal in goal_budget_met goal_cpu_within_1.25x goal_beats_single_plan; do
    grep -Eq "^$goal: (pass|fail) \\(" "$tmp/out" || fail "auto-goals: no $goal line"
done
# On the bare-metal host at 5 µs, poll meets the budget and auto does too.
grep -Eq '^  j +waitpkg +5 ' "$tmp/out" || fail "auto-goals: no waitpkg 5 us cell"

# The plots: one per host, each a PNG beside its script and data.
expect 0 "$gar" auto-goals --db "$tmp/s.db" --out "$tmp/plots"
for host in waitpkg dev-vm; do
    [ -s "$tmp/plots/auto-$host-open.png" ] || fail "auto-goals --out: no plot for $host"
    grep -q "^png: $tmp/plots/auto-$host-open.png$" "$tmp/out" || fail "auto-goals --out: not listed"
done
[ "$(grep -c '^5' "$tmp/plots/auto-waitpkg-open.dat")" -eq 1 ] || fail "the plot's data lacks 5 us"
grep -q '<h2>What budget can you meet, and at what CPU?</h2>' "$tmp/plots/auto-goals.html" ||
    fail "auto-goals --out: no page"
grep -q '<b>j</b> on <b>waitpkg</b>: auto meets a p99 of 5 µs' "$tmp/plots/auto-goals.html" ||
    fail "auto-goals --out: the page does not say what budget auto meets on waitpkg"
grep -q 'src="auto-dev-vm-open.png"' "$tmp/plots/auto-goals.html" || fail "the page lacks its plots"

# A database with no auto arm is refused.
sed -e '/^plan auto/d' -e 's/^plan poll+predict/plan block poll poll+predict/' "$tmp/s.sweep" \
    >"$tmp/n.sweep"
"$gar" sweep "$tmp/n.sweep" --db "$tmp/n.db" >/dev/null 2>&1 || fail "sweep without auto"
expect 2 "$gar" auto-goals --db "$tmp/n.db"
grep -q 'holds no auto:p99_us=B arm' "$tmp/err" || fail "auto-goals without auto: $(cat "$tmp/err")"
# The report opens with auto's section when given the auto sweep's database,
# and refuses one without auto arms, writing nothing.
expect 0 "$gar" report --db "$tmp/n.db" --auto-db "$tmp/s.db" --out "$tmp/rep"
first=$(grep -o '<h2>[^<]*</h2>' "$tmp/rep/report.html" | head -1)
[ "$first" = '<h2>What budget can you meet, and at what CPU?</h2>' ] ||
    fail "report --auto-db: the first section is '$first'"
[ -s "$tmp/rep/auto-waitpkg-open.png" ] || fail "report --auto-db: no auto plot"
# Ranked beside the fixed arms, auto at 5 µs on the dev-vm host (beyond it)
# is flagged over its budget beside its p99.
expect 0 "$gar" report --db "$tmp/s.db" --out "$tmp/rep-auto"
grep -q '<b>over its budget of 5 µs</b>' "$tmp/rep-auto/report.html" ||
    fail "report: auto over its budget is not flagged beside its p99"
expect 2 "$gar" report --db "$tmp/n.db" --auto-db "$tmp/n.db" --out "$tmp/rep2"
grep -q 'holds no auto:p99_us=B arm' "$tmp/err" || fail "report --auto-db without auto: $(cat "$tmp/err")"
[ -e "$tmp/rep2/report.html" ] && fail "a refused report wrote its page"

expect 2 "$gar" auto-goals
grep -q '^error 11 (Usage): auto-goals: --db FILE is required' "$tmp/err" ||
    fail "auto-goals without --db: $(cat "$tmp/err")"

# A kernel-mode queue whose host stalls drain it 4 % of the launches: a
# kernel's residual is then its own length, far below the queued ones its
# point usually sees, and the window only ever sees those short ones as
# late wakes.  Before rule 5 auto kept sleeping into them (3 % of its
# sleeps late, p99 106 µs against 100); rule 5 shortens the sleeps.
"$gar" gen queue --waits 5000 --seed 2 --param kernels=2 --param names=2 --param short_p=0.5 \
    --param stall_p=0.04 --param stall_us=20000 --param long_us=2000 --param burst_p=0 \
    --out "$tmp/stall.csv" >/dev/null || fail "gen queue"
expect 0 "$gar" replay "$tmp/stall.csv" --plan auto:p99_us=100 --host "$data/hosts/dev-vm.host"
p99=$(sed -n 's/^overshoot_ns: p50 [0-9]* p90 [0-9]* p99 \([0-9]*\) .*/\1/p' "$tmp/out")
[ -n "$p99" ] && [ "$p99" -le 100000 ] || fail "a drained queue: auto's p99 $p99 ns is over 100 us"
grep -Eq '^auto: .* held [1-9][0-9]*$' "$tmp/out" ||
    fail "a drained queue: rule 5 shortened no sleep: $(grep '^auto' "$tmp/out")"

[ "$failures" -eq 0 ] || exit 1
echo "auto: all checks passed"
