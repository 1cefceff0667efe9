#!/bin/sh
# tests/cli/test_run_cli.sh GAR EXAMPLE SCENARIOS HOST_PROFILE DLOPEN_USER LIBCUDART
#                           EXAMPLE_HIP SCENARIOS_HIP —
# gar run over the
# fake CUDA runtime (tests/fake_cudart): waits taken over never end before
# their work (thousands of random launches on several threads and streams,
# the example checking the fake's ground truth after each); the runtime's
# codes pass through unchanged (a fault, a pending error, graph capture,
# events, blocking sync flags); fork; the summary; --record, gar replay and
# gar verify --trace-of-run on the recording; a runtime loaded with dlopen
# after the first call; the same program and scenarios over the fake HIP
# runtime; refusals.
set -u
. "$(dirname "$0")/lib.sh"
# In a sanitizer's build libgar-sync.so carries its runtime, preloaded into
# programs that were not built with it: the address sanitizer must not
# insist on coming first, and the thread sanitizer must let a forked child
# start threads (the fork scenario).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}die_after_fork=0"
example=$2
scenarios=$3
host=$4
dlopen_user=$5
libcudart=$6
example_hip=$7
scenarios_hip=$8

# Never early: every wait checked against the fake's own count of pending
# kernels (the example exits 1 on any early wait).
expect 0 "$gar" run -- "$example" --waits 3000 --threads 3 --streams 3 --max-us 150 --seed 7
grep -qx 'example: 3000 waits, 0 early' "$tmp/out" || fail "never early: $(cat "$tmp/out")"
taken=$(sed -n 's/.*waits (\([0-9]*\) taken over.*/\1/p' "$tmp/err")
[ "${taken:-0}" -gt 2500 ] || fail "never early: only ${taken:-no} waits taken over ($(head -c 300 "$tmp/err"))"

# Fixed plans too, and the thread's default stream (the example's _ptsz calls).
for plan in block poll "flag:park_us=50,backstop_us=1000" \
            "poll+predict:margin_us=20,min_sleep_us=10,max_sleep_us=5000,window=4"; do
    expect 0 "$gar" run --plan "$plan" -- "$example" --waits 400 --threads 2 --seed 3
    grep -qx 'example: 400 waits, 0 early' "$tmp/out" || fail "plan $plan: $(cat "$tmp/out")"
    grep -q "plan $plan," "$tmp/err" || fail "plan $plan not named: $(head -c 300 "$tmp/err")"
done
grep -q 'note: .*flag' "$tmp/err" && fail "a poll plan noted a flag fallback"
expect 0 "$gar" run --plan flag:park_us=50,backstop_us=1000 -- "$example" --waits 50
grep -q 'note: .*word-wait' "$tmp/err" || fail "flag's fallback to poll not said: $(cat "$tmp/err")"

# The runtime's codes pass through: the same under gar run as plain.
for s in fault pending capture event flags; do
    expect 0 "$scenarios" "$s"
    expect 0 "$gar" run --report -- "$scenarios" "$s"
    grep -qx "$s: ok" "$tmp/out" || fail "scenario $s under gar run: $(cat "$tmp/err")"
done
expect 0 "$gar" run -- "$scenarios" capture
grep -q 'passed to the real call: 1 wait (graph capture)' "$tmp/err" ||
    fail "capture not passed through: $(cat "$tmp/err")"
expect 0 "$gar" run -- "$scenarios" pending
grep -q 'passed to the real call: 1 wait (error pending)' "$tmp/err" ||
    fail "a pending error not passed through: $(cat "$tmp/err")"
expect 0 "$gar" run -- "$scenarios" fault
grep -q '1 taken-over waits met a runtime error' "$tmp/err" ||
    fail "the fault's wait not counted: $(cat "$tmp/err")"

# fork: the child's waits are its own process's.
expect 0 "$gar" run -- "$example" --waits 200 --threads 1 --fork
grep -qx 'example: 200 waits, 0 early' "$tmp/out" || fail "fork: $(cat "$tmp/out")"
grep -q 'plan auto:p99_us=20, 2 processes' "$tmp/err" || fail "fork: $(head -c 300 "$tmp/err")"

# The program's exit status and signals come back as its own.
expect 3 "$gar" run -- sh -c 'exit 3'
grep -q ' 0 waits' "$tmp/err" || fail "no waits: $(cat "$tmp/err")"
expect 137 "$gar" run -- sh -c 'kill -9 $$'
expect 127 "$gar" run -- "$tmp/no-such-program"

# --report: a line per stream and the overall line, with intervals.
expect 0 "$gar" run --report -- "$example" --waits 400 --threads 2 --streams 2
grep -q '^stream .*overshoot_p50_us' "$tmp/err" || fail "--report: no table header"
grep -q '^0:1 ' "$tmp/err" || fail "--report: no row of stream 1"
grep -Eq '^overall +402 ' "$tmp/err" || fail "--report: overall not 402 waits (400 and 2 device syncs): $(cat "$tmp/err")"
grep -q 'the real call: .* measured on [0-9]* sampled waits' "$tmp/err" ||
    fail "--report: the real call's cost not measured"

# --record: a trace gar replay reads, its outcomes, and verify --trace-of-run.
expect 0 "$gar" run --record "$tmp/run.csv" -- "$example" --waits 500 --threads 2
head -1 "$tmp/run.csv" | grep -qx '# gar-trace v1' || fail "--record: not a trace"
rows=$(grep -c '^[0-9]' "$tmp/run.csv")
[ "$rows" -eq 502 ] || fail "--record: $rows rows, expected 502 (500 waits and 2 device syncs)"
[ "$(grep -c '^[0-9]' "$tmp/run.csv.outcome")" -eq "$rows" ] || fail "--record: outcome rows"
grep -qx '# plan: auto:p99_us=20' "$tmp/run.csv.outcome" || fail "--record: the plan"
expect 0 "$gar" replay "$tmp/run.csv" --plan auto:p99_us=20 --host "$host"
grep -qx 'waits: 502' "$tmp/out" || fail "replay of the recording: $(head -c 300 "$tmp/out")"
"$gar" verify --trace-of-run "$tmp/run.csv" --host "$host" >"$tmp/out" 2>"$tmp/err"
code=$?
[ "$code" -eq 0 ] || [ "$code" -eq 1 ] || fail "verify --trace-of-run exited $code: $(cat "$tmp/err")"
grep -qx 'compared: [0-9]* (the waits the plan ran)' "$tmp/out" || fail "verify: $(cat "$tmp/out")"
grep -Eq '^verdict: (agree|disagree)$' "$tmp/out" || fail "verify: no verdict"
# The machine's own ceiling beside the verdict: the run's halves, one against the other.
grep -Eq '^real_holdout: [01]/1 \(the run.s even-numbered waits judged against its odd-numbered' \
    "$tmp/out" || fail "verify: no real_holdout beside the verdict: $(cat "$tmp/out")"

# The runtime loaded by the program itself, after a first call found none.
expect 0 "$gar" run -- "$dlopen_user" "$libcudart"
grep -qx 'dlopen_user: ok' "$tmp/out" || fail "dlopen: $(cat "$tmp/err")"

# HIP: the same program and scenarios under HIP's names.
expect 0 "$gar" run -- "$example_hip" --waits 1000 --threads 2 --streams 2 --seed 5
grep -qx 'example: 1000 waits, 0 early' "$tmp/out" || fail "hip: $(cat "$tmp/out")"
taken=$(sed -n 's/.*waits (\([0-9]*\) taken over.*/\1/p' "$tmp/err")
[ "${taken:-0}" -gt 800 ] || fail "hip: only ${taken:-no} waits taken over"
for s in fault pending capture event flags; do
    expect 0 "$gar" run -- "$scenarios_hip" "$s"
    grep -qx "$s: ok" "$tmp/out" || fail "hip scenario $s: $(cat "$tmp/err")"
done
grep -q '20 taken over' "$tmp/err" || fail "hip flags: waits not taken over: $(cat "$tmp/err")"

# Refusals: nothing is run.
expect 2 "$gar" run "$example"
grep -q 'error 11 (Usage)' "$tmp/err" || fail "no --: $(cat "$tmp/err")"
expect 2 "$gar" run --plan bogus -- "$example"
grep -q 'error 1 (InvalidPlan)' "$tmp/err" || fail "bad plan: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "bad plan: the program ran"
expect 2 "$gar" run --record - -- "$example"
expect 2 "$gar" run --record "$tmp/no/such/dir/run.csv" -- "$example"
[ ! -s "$tmp/out" ] || fail "unwritable --record: the program ran"
expect 2 "$gar" run --record "$tmp/empty.csv" -- true
[ ! -e "$tmp/empty.csv" ] || fail "a run without waits left a recording"
expect 2 "$gar" verify --trace-of-run "$tmp/run.csv" --plan poll
cp "$tmp/run.csv" "$tmp/lone.csv"
expect 2 "$gar" verify --trace-of-run "$tmp/lone.csv" --host "$host"
grep -q 'error 12 (Io).*lone.csv.outcome' "$tmp/err" || fail "no outcome file: $(cat "$tmp/err")"
head -5 "$tmp/run.csv.outcome" >"$tmp/lone.csv.outcome"
expect 2 "$gar" verify --trace-of-run "$tmp/lone.csv" --host "$host"
grep -q 'error 13 (InvalidTrace).*fewer rows than the trace has' "$tmp/err" ||
    fail "a short outcome file: $(cat "$tmp/err")"

exit $((failures > 0))
