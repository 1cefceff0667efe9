#!/bin/sh
# tests/cli/test_fill_demo.sh GAR — `gar fill-demo` exits 0 and prints its
# lines in their shapes, under each executor kind as this host resolves it
# (`gar executor` says which kind runs: the test expects that one, never a
# guess).  Timing values differ from run to run and machine to machine, so
# only shapes and the verdict are checked, never the numbers.
set -eu
gar=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fail() {
    echo "FAIL: $*" >&2
    echo "--- output:" >&2
    cat "$out" >&2
    exit 1
}

"$gar" fill-demo --help >"$out" || fail "--help exited $?"
grep -q '^usage: gar fill-demo' "$out" || fail "--help has no usage line"
grep -q -- '--work-per-slice N' "$out" || fail "--help does not list --work-per-slice"
grep -q -- '--executor KIND' "$out" || fail "--help does not list --executor"

status=0
"$gar" fill-demo --executor fast >"$out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--executor fast exited $status, not 2"
grep -q "^error 5 (InvalidExecutor): .*'fast'" "$out" ||
    fail "--executor fast is not an InvalidExecutor error naming the text"

status=0
"$gar" fill-demo --executor naive --executor naive >"$out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "a repeated --executor exited $status, not 2"
grep -q "^error 11 (Usage): fill-demo: " "$out" || fail "a repeated --executor is not a Usage error"

status=0
"$gar" fill-demo --bogus >"$out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "an unknown option exited $status, not 2"
grep -q "^error 11 (Usage): fill-demo: unknown option '--bogus'" "$out" ||
    fail "an unknown option is not a Usage error naming it"

status=0
"$gar" fill-demo --work-per-slice 0 >"$out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--work-per-slice 0 exited $status, not 2"
grep -q "^error 11 (Usage): fill-demo: --work-per-slice must be a whole number from 1 to 4294967295, found '0'" "$out" ||
    fail "--work-per-slice 0 is not a Usage error naming the text"

# One run per kind (and the default, gpu-reactor).
for kind in default naive gpu-reactor io-uring; do
    if [ "$kind" = default ]; then
        args=""
        asked=gpu-reactor
    else
        args="--executor $kind"
        asked=$kind
    fi
    "$gar" executor "$asked" >"$out"
    running=$(sed -n 's/^running: //p' "$out")
    warned=no
    if grep -q '^warning: 3 (ExecutorFallback)' "$out"; then warned=yes; fi

    status=0
    # shellcheck disable=SC2086 # $args is one option and its value, or nothing
    "$gar" fill-demo $args >"$out" 2>&1 || status=$?
    [ "$status" -eq 0 ] || fail "fill-demo $args exited $status"
    grep -qx "executor: $running" "$out" || fail "$kind: no 'executor: $running' line"
    if [ "$warned" = yes ]; then
        grep -q "^warning: 3 (ExecutorFallback): executor '$asked' cannot run here" "$out" ||
            fail "$kind: falls back to $running without warning 3"
    elif grep -q '^warning: 3' "$out"; then
        fail "$kind: warning 3 although $asked runs here"
    fi
    grep -Eq '^plan: (flag:park_us=100,backstop_us=1000|poll \(fallback from flag\))$' "$out" ||
        fail "$kind: no 'plan: PLAN' line"

    for slot in 0 1 2; do
        grep -Eq "^slot $slot done after [0-9]+\.[0-9]{2} ms\$" "$out" ||
            fail "$kind: no 'slot $slot done after X.XX ms' line"
        grep -Eq "^slot $slot stored after [0-9]+\.[0-9]{2} ms\$" "$out" ||
            fail "$kind: no 'slot $slot stored after X.XX ms' line"
    done
    grep -Eq "^slices_before_last_completion: [0-9]+\$" "$out" ||
        fail "$kind: no 'slices_before_last_completion: N' line"
    grep -Eq '^park: [a-z-]+$' "$out" || fail "$kind: no 'park: NAME' line"
    grep -Eq '^timer_slack_ns: ([0-9]+|unknown .*)$' "$out" ||
        fail "$kind: no 'timer_slack_ns: N' line"
    grep -q '^verdict: ok$' "$out" || fail "$kind: no 'verdict: ok' line"
    if grep -q '^failed:' "$out"; then fail "$kind: a 'failed:' line"; fi

    slices=$(sed -n 's/^slices_before_last_completion: //p' "$out")
    if [ "$running" = naive ]; then
        # Inline waits hold the thread: no work runs, and there is no executor.
        [ "$slices" -eq 0 ] || fail "naive ran $slices slices while waiting"
        if grep -q '^polls:' "$out"; then fail "naive printed executor statistics"; fi
    else
        for key in polls woke slept parked idle_ns; do
            grep -Eq "^$key: [0-9]+\$" "$out" || fail "$kind: no '$key: N' line"
        done
        # At least one slice ran before the first completion (more depends on
        # how punctual the device thread was on this machine).
        [ "$slices" -ge 1 ] || fail "$kind: slices_before_last_completion is $slices, below 1"
    fi
    if [ "$running" = io-uring ]; then
        grep -Eq '^uring_timeouts: [0-9]+$' "$out" || fail "no 'uring_timeouts: N' line"
        grep -Eq '^uring_fallbacks: [0-9]+$' "$out" || fail "no 'uring_fallbacks: N' line"
    fi
done
echo "ok"
