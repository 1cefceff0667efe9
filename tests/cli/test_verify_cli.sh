#!/bin/sh
# tests/cli/test_verify_cli.sh GAR FIXTURES — `gar verify` runs a tiny trace
# on the emulated device and in the simulator and prints both side by side,
# exiting 0 or 1 by its verdict; a GPU device that is not built, and bad
# input, are refused with a coded error and exit 2.
#
# The verdict itself is not asserted: real timing on a loaded machine varies.
# What is asserted is the shape: every key, both runs with every wait.
set -u
. "$(dirname "$0")/lib.sh"
fixtures=$2
trace=$fixtures/short.csv
waits=40

# A profile of this host, measured quickly.
if ! "$gar" calibrate --quick --out "$tmp/this.host" >"$tmp/cal" 2>"$tmp/err"; then
    fail "calibrate --quick: exit $?"
    cat "$tmp/err"
fi
head -n 1 "$tmp/this.host" | grep -qx 'gar-host v1' || fail "calibrate: no gar-host v1 header"
grep -q '^profile: ' "$tmp/cal" || fail "calibrate --out: no summary"

# shape NAME FILE: the side-by-side keys are there and both runs saw every wait.
shape() {
    name=$1 out=$2
    for key in trace plan estimator device executor host host_noisy seed waits overshoot_p50_ns overshoot_p90_ns \
               overshoot_p99_ns overshoot_max_ns busy_frac cpu_frac kinds sleeps parks \
               queries ks_d ks_d_max ks_critical_5pct tolerance check_ks_d \
               check_overshoot_p50 check_busy_frac overshoot_p90_band_ns verdict; do
        grep -q "^$key: " "$out" || fail "$name: no '$key:' line"
    done
    grep -qx "waits: real=$waits sim=$waits" "$out" || fail "$name: $(grep '^waits:' "$out")"
    grep -Eq '^overshoot_p50_ns: real=[0-9]+ sim=[0-9]+ ratio=' "$out" ||
        fail "$name: overshoot_p50_ns is not real=N sim=N ratio=R"
    # Each quantile's interval, real and simulated, in numbers and words.
    grep -Eqx 'overshoot_p50_ci_ns: level=0.95 real=[0-9]+\.\.[0-9]+ sim=[0-9]+\.\.[0-9]+' "$out" ||
        fail "$name: $(grep '^overshoot_p50_ci_ns' "$out")"
    grep -Eqx 'overshoot_p99_ci_ns: level=0.95 real=([0-9]+|-)\.\.([0-9]+|-) sim=([0-9]+|-)\.\.([0-9]+|-)' "$out" ||
        fail "$name: $(grep '^overshoot_p99_ci_ns' "$out")"
    grep -Eq '^overshoot_p50_real: .* \(95 % interval .* to .*\)$' "$out" ||
        fail "$name: $(grep '^overshoot_p50_real' "$out")"
    grep -q '^overshoot_p99_sim: ' "$out" || fail "$name: no overshoot_p99_sim line"
    grep -Eqx 'verdict: (agree|disagree)' "$out" || fail "$name: no verdict"
}

# verdict_exit NAME STATUS FILE: 0 with agree, 1 with disagree.
verdict_exit() {
    name=$1 status=$2 out=$3
    case "$status:$(sed -n 's/^verdict: //p' "$out")" in
    0:agree | 1:disagree) ;;
    *) fail "$name: exit $status with $(grep '^verdict:' "$out")" ;;
    esac
}

for plan in poll block \
    'poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'; do
    "$gar" verify "$trace" --plan "$plan" --host "$tmp/this.host" >"$tmp/out" 2>"$tmp/err"
    status=$?
    shape "$plan" "$tmp/out"
    verdict_exit "$plan" "$status" "$tmp/out"
    [ -s "$tmp/err" ] && fail "$plan: wrote to stderr: $(cat "$tmp/err")"
done

# A flag plan runs as poll on a host without a word wait, saying so.
"$gar" verify "$trace" --plan 'flag:park_us=100,backstop_us=1000' --host "$tmp/this.host" \
    >"$tmp/out" 2>"$tmp/err"
status=$?
shape flag "$tmp/out"
verdict_exit flag "$status" "$tmp/out"

# --executor runs the kind this host resolves, as `gar executor` reports it,
# with warning 3 when it falls back; the default is naive.
grep -qx 'executor: naive' "$tmp/out" || fail "the default executor is not naive"
for kind in naive gpu-reactor io-uring; do
    "$gar" executor "$kind" >"$tmp/resolved"
    running=$(sed -n 's/^running: //p' "$tmp/resolved")
    "$gar" verify "$trace" --plan poll --executor "$kind" --host "$tmp/this.host" \
        >"$tmp/out" 2>"$tmp/err"
    status=$?
    shape "executor $kind" "$tmp/out"
    verdict_exit "executor $kind" "$status" "$tmp/out"
    grep -qx "executor: $running" "$tmp/out" ||
        fail "executor $kind: $(grep '^executor:' "$tmp/out"), wanted $running"
    if grep -q '^warning: 3 ' "$tmp/resolved"; then
        grep -q "^warning: 3 (ExecutorFallback): executor '$kind'" "$tmp/out" ||
            fail "executor $kind: falls back to $running without warning 3"
    elif grep -q '^warning: 3 ' "$tmp/out"; then
        fail "executor $kind: warning 3 although it runs here"
    fi
done

# --runs N: N full runs, each after a `run: K/N` line, then how many agreed
# one by one, each run's KS and the pooled one, how far apart the real runs
# are, the envelope of each quantile with where the simulation falls, and
# the three-way verdict over all; exit 0 only when that is agree.
"$gar" verify "$trace" --plan block --host "$tmp/this.host" --runs 3 >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$(grep -c '^run: [123]/3$' "$tmp/out")" -eq 3 ] || fail "runs: not three 'run: K/3' lines"
[ "$(grep -c '^verdict: ' "$tmp/out")" -eq 3 ] || fail "runs: not three per-run verdicts"
[ "$(grep -c "^waits: real=$waits sim=$waits" "$tmp/out")" -eq 3 ] || fail "runs: a run lost waits"
grep -qx 'runs: 3' "$tmp/out" || fail "runs: no 'runs: 3'"
agreed=$(grep -c '^verdict: agree' "$tmp/out")
grep -qx "runs_agree: $agreed/3" "$tmp/out" || fail "runs: $(grep '^runs_agree' "$tmp/out"), counted $agreed"
grep -Eq '^real_ks_d_max: [01]\.[0-9]{4} \(runs [123] and [123]\)$' "$tmp/out" ||
    fail "runs: $(grep '^real_ks_d_max' "$tmp/out")"
# Three runs: each held out against the other two, K of 3 pass.
grep -Eq '^real_holdout: [0-3]/3 \(each real run held out' "$tmp/out" ||
    fail "runs: $(grep '^real_holdout' "$tmp/out")"
grep -Eqx 'ks_d_runs: [01]\.[0-9]{4} [01]\.[0-9]{4} [01]\.[0-9]{4}' "$tmp/out" ||
    fail "runs: $(grep '^ks_d_runs' "$tmp/out")"
grep -Eqx 'ks_d_pooled: [01]\.[0-9]{4} \(bound 0\.25\)' "$tmp/out" ||
    fail "runs: $(grep '^ks_d_pooled' "$tmp/out")"
# 40 waits a run: p50 is judged (at least 10 waits above it), p90 and p99 not.
grep -Eq "^envelope_p50_ns: real=[0-9]+\.\.[0-9]+ sim=[0-9]+ (inside|above all|below all)" \
    "$tmp/out" || fail "runs: $(grep "^envelope_p50_ns" "$tmp/out")"
for q in p90 p99; do
    grep -Eqx "envelope_${q}_ns: real=[0-9]+\.\.[0-9]+ sim=[0-9]+ not judged" "$tmp/out" ||
        fail "runs: $(grep "^envelope_${q}_ns" "$tmp/out")"
done
verdict_runs=$(sed -n 's/^verdict_runs: \([a-z ]*\) (.*)$/\1/p' "$tmp/out")
case "$status:$verdict_runs" in
0:agree | 1:biased | "1:unjudgeable here") ;;
*) fail "runs: exit $status, $(grep '^verdict_runs' "$tmp/out")" ;;
esac
# A simulation outside the envelope is biased: the verdict names the quantile.
if grep -Eq '^envelope_p50_ns: .* (above|below) all \([-+][0-9.]+ % of the edge\)$' "$tmp/out"; then
    [ "$verdict_runs" = biased ] || fail "runs: outside the envelope and $verdict_runs"
fi
# The note appears exactly when two real runs are more than twice the plan's
# KS bound apart (block's: ks_d_block, 0.25).
widest=$(sed -n 's/^real_ks_d_max: \([0-9.]*\) .*/\1/p' "$tmp/out")
bound=$(sed -n 's/^ks_d_max: //p' "$tmp/out" | head -n 1)
[ "$bound" = 0.25 ] || fail "runs: block's ks_d_max is $bound"
if awk -v d="$widest" -v b="$bound" 'BEGIN { exit !(d > 2 * b) }'; then
    grep -q '^note: real runs' "$tmp/out" || fail "runs: $widest apart and no note"
else
    grep -q '^note:' "$tmp/out" && fail "runs: a note at $widest apart"
fi

# host_noisy counts the profile's '# noisy:' lines.
{ cat "$tmp/this.host"; echo '# noisy: block_wake_ns p50: made up'; echo '# noisy: x'; } \
    >"$tmp/noisy.host"
"$gar" verify "$trace" --plan poll --host "$tmp/noisy.host" >"$tmp/out" 2>"$tmp/err"
want=$(( $(grep -c '^# noisy:' "$tmp/this.host") + 2 ))
grep -qx "host_noisy: $want" "$tmp/out" || fail "host_noisy: $(grep '^host_noisy' "$tmp/out"), wanted $want"

# JSON: one object with both runs and the verdict.
"$gar" verify "$trace" --plan poll --host "$tmp/this.host" --json >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -le 1 ] || fail "json: exit $status"
grep -q '"real":{"waits":40' "$tmp/out" || fail "json: no real run"
grep -q '"sim":{"waits":40' "$tmp/out" || fail "json: no sim run"
grep -Eq '"verdict":"(agree|disagree)"' "$tmp/out" || fail "json: no verdict"

# The emulated device takes any number of streams: the same waits spread
# over twelve (past one completion line's eight) run and replay whole.
awk -F, 'BEGIN { OFS = "," } /^#/ { print; next }
         /^point/ { print $0 ",stream"; next } { print $0, (n++ % 12) * 3 }' \
    "$trace" >"$tmp/streams.csv"
"$gar" verify "$tmp/streams.csv" --plan block --host "$tmp/this.host" >"$tmp/out" 2>"$tmp/err"
status=$?
shape "twelve streams" "$tmp/out"
verdict_exit "twelve streams" "$status" "$tmp/out"

# Without --host, the host is calibrated on the spot.
"$gar" verify "$trace" --plan poll >"$tmp/out" 2>"$tmp/err"
status=$?
shape "on the spot" "$tmp/out"
grep -qx 'host: calibrated on the spot' "$tmp/out" || fail "on the spot: host line"

# refused NAME NEEDLE ARGS...: exit 2, nothing on stdout, NEEDLE on stderr.
refused() {
    name=$1 needle=$2
    shift 2
    "$gar" verify "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$name: exit $status, wanted 2"
    [ -s "$tmp/out" ] && fail "$name: printed on stdout"
    grep -q -- "$needle" "$tmp/err" || fail "$name: stderr lacks '$needle': $(cat "$tmp/err")"
}
# Without a driver to load, --device cuda is a Backend refusal whether or not
# the CUDA backend is built in (test_verify_cuda_cli.sh tells the two apart).
GAR_CUDA_LIBRARY=/nonexistent
export GAR_CUDA_LIBRARY
refused cuda 'error 8 (Backend)' "$trace" --plan poll --device cuda
unset GAR_CUDA_LIBRARY
refused hip 'error 8 (Backend): opening the HIP device' "$trace" --plan poll --device hip
refused "unknown device" 'error 11 (Usage)' "$trace" --plan poll --device tpu
refused "no plan" 'error 11 (Usage)' "$trace"
refused "bad plan" 'error 1 (InvalidPlan)' "$trace" --plan pol
refused oracle 'error 11 (Usage)' "$trace" --plan poll --estimator oracle
refused "bad tolerance" 'error 11 (Usage)' "$trace" --plan poll --tolerance ks_d=2
refused "no trace" 'error 12 (Io)' "$tmp/missing.csv" --plan poll
refused "bad host" 'error 12 (Io)' "$trace" --plan poll --host "$tmp/missing.host"
refused "no runs" 'error 11 (Usage)' "$trace" --plan poll --runs 0
refused "too many runs" 'error 11 (Usage)' "$trace" --plan poll --runs 21
refused "json of runs" 'error 11 (Usage)' "$trace" --plan poll --runs 2 --json

# A whole sweep: every arm of a tiny spec, 20 waits each, into a database;
# the oracle is skipped; a second run replaces the rows (one per arm).
cat >"$tmp/tiny.sweep" <<EOF
gar-sweep v1
trace $trace
plan poll block
plan poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8
estimator adl oracle
host $tmp/this.host
mode open
seed 1
EOF
for round in 1 2; do
    "$gar" verify --sweep "$tmp/tiny.sweep" --db "$tmp/v.db" --limit 20 --host "$tmp/this.host" \
        >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -le 1 ] || fail "sweep $round: exit $status: $(cat "$tmp/err")"
    [ "$(grep -c '^verified: .* waits=20 .*verdict=\(agree\|disagree\)$' "$tmp/out")" -eq 3 ] ||
        fail "sweep $round: not three verified arms: $(cat "$tmp/out")"
    grep -q '^skipped: .*estimator=oracle' "$tmp/out" || fail "sweep $round: oracle not skipped"
    grep -qx 'verifications: 3' "$tmp/out" || fail "sweep $round: count"
    agree=$(sed -n 's/^agree: //p' "$tmp/out")
    case "$status:$agree" in
    0:3 | 1:[012]) ;;
    *) fail "sweep $round: exit $status with $agree of 3 agreeing" ;;
    esac
done
# With --runs 3 each arm's row holds its runs: the envelope printed, the
# three-way verdict, still one row an arm.
"$gar" verify --sweep "$tmp/tiny.sweep" --db "$tmp/v.db" --limit 20 --host "$tmp/this.host" \
    --runs 3 >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -le 1 ] || fail "sweep runs: exit $status: $(cat "$tmp/err")"
[ "$(grep -Ec '^verified: .* runs=3 real_ks_d_max=[0-9.]+ p50_envelope_ns=[0-9]+\.\.[0-9]+\((inside|above all|below all)\) .* verdict=(agree|biased|unjudgeable here)$' "$tmp/out")" -eq 3 ] ||
    fail "sweep runs: not three verified arms of three runs: $(cat "$tmp/out")"
grep -qx 'verifications: 3' "$tmp/out" || fail "sweep runs: count"
# The report shows them: a table row and a chart per arm (rows replaced, not added).
if command -v gnuplot >/dev/null 2>&1; then
    "$gar" sweep "$tmp/tiny.sweep" --db "$tmp/v.db" >/dev/null 2>&1 || fail "sweep into v.db"
    "$gar" report --db "$tmp/v.db" --out "$tmp/report" >/dev/null 2>"$tmp/err" ||
        fail "report: $(cat "$tmp/err")"
    grep -q '<h2>Simulation vs this machine</h2>' "$tmp/report/report.html" ||
        fail "report: no simulation-vs-machine section"
    # The rows of three runs show their envelope and the three-way verdict.
    [ "$(grep -Ec '<td>20 × 3</td>' "$tmp/report/report.html")" -eq 3 ] ||
        fail "report: not three rows of 20 waits × 3 runs"
    grep -Eq '<small>sim (inside|above all|below all)</small>' "$tmp/report/report.html" ||
        fail "report: no envelope position"
    grep -Eq '<td>(agree|biased|unjudgeable here)</td></tr>' "$tmp/report/report.html" ||
        fail "report: no three-way verdict"
    [ "$(grep -o 'src="verify-[0-9]*.png"' "$tmp/report/report.html" | sort -u | wc -l)" -eq 3 ] ||
        fail "report: not three verification charts"
    [ -s "$tmp/report/verify-3.png" ] || fail "report: verify-3.png missing"
fi
refused "sweep with a trace" 'error 11 (Usage)' "$trace" --sweep "$tmp/tiny.sweep" --db "$tmp/v.db"
refused "sweep without db" 'error 11 (Usage)' --sweep "$tmp/tiny.sweep"
refused "db without sweep" 'error 11 (Usage)' "$trace" --plan poll --db "$tmp/v.db"
refused "limit 0" 'error 11 (Usage)' --sweep "$tmp/tiny.sweep" --db "$tmp/v.db" --limit 0
refused "sweep with a plan" 'error 11 (Usage)' --sweep "$tmp/tiny.sweep" --db "$tmp/v.db" --plan poll
refused "sweep with 21 runs" 'error 11 (Usage)' --sweep "$tmp/tiny.sweep" --db "$tmp/v.db" --runs 21
refused "missing spec" 'error 12 (Io)' --sweep "$tmp/none.sweep" --db "$tmp/v.db"
refused "bad executor" 'error 5 (InvalidExecutor)' "$trace" --plan poll --executor fast
refused "repeated executor" 'error 11 (Usage)' "$trace" --plan poll --executor naive \
    --executor naive

"$gar" verify --help >"$tmp/out" 2>&1 || fail "--help: exit $?"
grep -q 'ks_d=0.15' "$tmp/out" || fail "--help: the KS tolerance is not stated"
grep -q 'busy_diff=0.05' "$tmp/out" || fail "--help: the busy tolerance is not stated"
grep -q -- '--sweep SPEC' "$tmp/out" || fail "--help: no --sweep"
grep -q -- '--executor K ' "$tmp/out" || fail "--help: no --executor"
grep -q '^usage: gar verify' "$tmp/out" || fail "--help: no usage line"
"$gar" calibrate --help >"$tmp/out" 2>&1 || fail "calibrate --help: exit $?"
"$gar" calibrate --samples 0 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "calibrate --samples 0: not refused"

# calibrate --check: a profile against this machine now, plan by plan; exit
# 0 when every simulated p50 and p90 moved by less than 15 %, 1 when not.
# A profile whose blocking wake is ten times this machine's has moved; with
# --out the profile measured now is written as well.
awk '/^block_wake_ns/ { printf "%s", $1; for (i = 2; i <= NF; i++) { split($i, kv, "=");
         printf " %s=%d", kv[1], kv[2] * 10 } print ""; next } { print }' \
    "$tmp/this.host" >"$tmp/slow.host"
"$gar" calibrate --quick --check "$tmp/slow.host" --out "$tmp/now.host" >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 1 ] || fail "check: exit $status against a tenfold block wake: $(cat "$tmp/out" "$tmp/err")"
for plan in poll 'poll\+predict' block; do
    grep -Eq "^check_$plan: p50=[0-9]+/[0-9]+ \([-+][0-9.]+ %\) p90=[0-9]+/[0-9]+ \([-+][0-9.]+ %\) (holds|moved)$" \
        "$tmp/out" || fail "check: no check_$plan line: $(cat "$tmp/out")"
done
grep -q '^check_block: .* moved$' "$tmp/out" || fail "check: block did not move: $(cat "$tmp/out")"
grep -q '^holds: no ' "$tmp/out" || fail "check: $(grep '^holds' "$tmp/out")"
head -n 1 "$tmp/now.host" | grep -qx 'gar-host v1' || fail "check --out: no profile written"
"$gar" calibrate --quick --check "$tmp/now.host" >"$tmp/out" 2>"$tmp/err"
status=$?
case "$status:$(sed -n 's/^holds: \([a-z]*\) .*/\1/p' "$tmp/out")" in
0:yes | 1:no) ;;
*) fail "check: exit $status with $(grep '^holds' "$tmp/out")" ;;
esac
# --rounds quietest: every '# kept:' line names a measurement that has a
# '# noisy:' line; anything but pooled or quietest is refused.
"$gar" calibrate --quick --rounds quietest --out "$tmp/quiet.host" >"$tmp/out" 2>"$tmp/err" ||
    fail "calibrate --rounds quietest: exit $?"
sed -n 's/^# kept: \([^:]*\): .*/\1/p' "$tmp/quiet.host" >"$tmp/kept"
while read -r key; do
    grep -q "^# noisy: $key p[59]0:" "$tmp/quiet.host" || fail "kept a round of $key, not noisy"
done <"$tmp/kept"
"$gar" calibrate --quick --rounds all >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "calibrate --rounds all: not refused"
"$gar" calibrate --quick --check "$tmp/missing.host" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "check of a missing profile: not refused"
grep -q 'error 12 (Io)' "$tmp/err" || fail "check of a missing profile: $(cat "$tmp/err")"
printf 'gar-host v1\nquery_ns x\n' >"$tmp/bad.host"
"$gar" calibrate --quick --check "$tmp/bad.host" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "check of a malformed profile: not refused"
[ -s "$tmp/out" ] && fail "check of a malformed profile: measured anyway"

[ "$failures" -eq 0 ] || exit 1
echo "ok"
