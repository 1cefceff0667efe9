#!/bin/sh
# tests/cli/test_fill_demo.sh GAR — `gar fill-demo` exits 0 and prints its
# lines in their shapes.  Timing values differ from run to run and machine to
# machine, so only shapes and the verdict are checked, never the numbers.
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

status=0
"$gar" fill-demo --bogus >"$out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "an unknown option exited $status, not 2"
grep -q "^error 11 (Usage): fill-demo: unknown option '--bogus'" "$out" ||
    fail "an unknown option is not a Usage error naming it"

status=0
"$gar" fill-demo --work-per-slice 0 >"$out" 2>&1 || status=$?
[ "$status" -eq 2 ] || fail "--work-per-slice 0 exited $status, not 2"
grep -q "^error 11 (Usage): fill-demo: --work-per-slice '0' is not" "$out" ||
    fail "--work-per-slice 0 is not a Usage error naming the text"

status=0
"$gar" fill-demo >"$out" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "fill-demo exited $status"

for slot in 0 1 2; do
    grep -Eq "^slot $slot done after [0-9]+\.[0-9]{2} ms\$" "$out" ||
        fail "no 'slot $slot done after X.XX ms' line"
    grep -Eq "^slot $slot stored after [0-9]+\.[0-9]{2} ms\$" "$out" ||
        fail "no 'slot $slot stored after X.XX ms' line"
done
for key in slices_before_last_completion polls woke slept parked idle_ns; do
    grep -Eq "^$key: [0-9]+\$" "$out" || fail "no '$key: N' line"
done
grep -Eq '^park: [a-z-]+$' "$out" || fail "no 'park: NAME' line"
grep -Eq '^timer_slack_ns: ([0-9]+|unknown .*)$' "$out" || fail "no 'timer_slack_ns: N' line"
grep -q '^verdict: ok$' "$out" || fail "no 'verdict: ok' line"
if grep -q '^failed:' "$out"; then fail "a 'failed:' line"; fi
# At least one slice ran before the first completion (more depends on how
# punctual the device thread was on this machine).
slices=$(sed -n 's/^slices_before_last_completion: //p' "$out")
[ "$slices" -ge 1 ] || fail "slices_before_last_completion is $slices, below 1"
echo "ok"
