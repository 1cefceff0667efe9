#!/bin/sh
# tests/cli/test_probe_cli.sh GAR — `gar probe`: every key once, each value of
# its shape, and the values agreeing with each other.  What the host offers
# differs from machine to machine, so only the shapes and the agreements are
# checked, never one machine's answers.
set -u
. "$(dirname "$0")/lib.sh"

# value KEY: the value of KEY's line in the probe's output.
value() {
    sed -n "s/^$1: //p" "$tmp/out"
}

# shaped KEY ERE: KEY's line is there once and its value matches ERE.
shaped() {
    n=$(grep -c "^$1: " "$tmp/out")
    [ "$n" -eq 1 ] || { fail "probe: key '$1' appears $n times"; return; }
    value "$1" | grep -Eqx "$2" || fail "probe: $1: '$(value "$1")' is not of the shape $2"
}

"$gar" probe >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 0 ] || fail "probe: exit $status"
[ ! -s "$tmp/err" ] || fail "probe: stderr: $(cat "$tmp/err")"
grep -Evq '^[a-z_]+: .+$' "$tmp/out" && fail "probe: a line is not 'key: value': $(grep -Ev '^[a-z_]+: .+$' "$tmp/out")"

shaped word_wait 'ok \((umwait|mwaitx|wfet|wfe)\)|none \(.+\)'
shaped park 'umwait|mwaitx|wfet|wfe|spin-yield'
shaped io_uring 'ok|none \(.+\)'
shaped clock_resolution_ns '[0-9]+|unknown \(.+\)'
shaped timer_slack_ns '[0-9]+|unknown \(.+\)'
shaped executor_gpu_reactor 'naive|gpu-reactor'
shaped executor_io_uring 'naive|gpu-reactor|io-uring'
grep -q '^cpu: ' "$tmp/out" && shaped cpu '.+'

# The park is the word wait when there is one, and its counter's rate is known.
word_wait=$(value word_wait)
case "$word_wait" in
ok*)
    name=$(echo "$word_wait" | sed 's/^ok (\(.*\))$/\1/')
    [ "$(value park)" = "$name" ] || fail "probe: park '$(value park)' is not the word wait '$name'"
    grep -Eq '^(tsc_hz|counter_hz): [1-9][0-9]* \(.+\)$' "$tmp/out" || fail "probe: a word wait without its counter's rate"
    [ "$(value executor_gpu_reactor)" = gpu-reactor ] || fail "probe: gpu-reactor falls back despite a word wait"
    ;;
none*)
    [ "$(value park)" = spin-yield ] || fail "probe: no word wait, yet park '$(value park)'"
    grep -q '^umwait_max_time: ' "$tmp/out" && fail "probe: umwait_max_time without umwait"
    [ "$(value executor_gpu_reactor)" = naive ] || fail "probe: gpu-reactor runs without a word wait"
    [ "$(value executor_io_uring)" = naive ] || fail "probe: io-uring runs without a word wait"
    ;;
esac
# io-uring runs as asked exactly when both of its needs are met.
if [ "$(value io_uring)" = ok ] && [ "${word_wait%% *}" = ok ]; then
    [ "$(value executor_io_uring)" = io-uring ] || fail "probe: io-uring falls back with everything it needs"
else
    [ "$(value executor_io_uring)" != io-uring ] || fail "probe: io-uring runs without what it needs"
fi

# The plan and executor verbs resolve against the same probe: the reasons
# they quote are the probe's.
if [ "${word_wait%% *}" = none ]; then
    why=$(echo "$word_wait" | sed 's/^none (\(.*\))$/\1/')
    "$gar" plan flag:park_us=100,backstop_us=1000 >"$tmp/plan" 2>&1
    grep -qF "which this host lacks ($why); running 'poll'" "$tmp/plan" ||
        fail "plan: the fallback warning does not quote the probe's reason: $(cat "$tmp/plan")"
fi

# Help on stdout; a bad command line is a coded usage error.
"$gar" probe --help >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q '^usage: gar probe' "$tmp/out" || fail "probe --help"
"$gar" probe --bogus >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -s "$tmp/out" ] || fail "probe --bogus: not refused"
[ "$(cat "$tmp/err")" = "error 11 (Usage): probe: unknown option '--bogus' (see 'gar probe --help')" ] ||
    fail "probe --bogus: stderr: $(cat "$tmp/err")"
"$gar" probe extra >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -s "$tmp/out" ] || fail "probe extra: not refused"

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "all checks passed"
