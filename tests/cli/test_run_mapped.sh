#!/bin/sh
# tests/cli/test_run_mapped.sh GAR EXAMPLE SCENARIOS DLOPEN_USER LIBCUDART
#                              EXAMPLE_HIP SCENARIOS_HIP —
# gar run's mapped-line path over the fake driver (tests/fake_cudart:
# libcuda.so.1, and the same calls inside the fake libamdhip64): stream waits
# parked on the word the stream writes never end before their work
# (thousands of random launches on several threads and streams, checked by
# the example against the fake's completion record: no real call made after a
# taken-over wait found its work pending); the report names each stream's
# path; a device without stream memory operations takes the status-query
# path and a stream of another context the real call, each counted with its
# reason; fork, blocking sync flags and a runtime closed and opened again by
# the program keep the mapped path.  The sampled real calls are turned off
# (GAR_SYNC_BASELINE_EVERY=0): each would be a real call with work pending.
set -u
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}die_after_fork=0"
export GAR_SYNC_BASELINE_EVERY=0
example=$2
scenarios=$3
dlopen_user=$4
libcudart=$5
example_hip=$6
scenarios_hip=$7
flag=flag:park_us=50,backstop_us=1000

# $1 the program's name in messages; checks "0 early" and the fake's record:
# at least $2 stream writes, and no real call that found its work pending.
check_record() {
    grep -qx "example: [0-9]* waits, 0 early" "$tmp/out" || fail "$1: $(cat "$tmp/out")"
    writes=$(sed -n 's/^example: fake: \([0-9]*\) stream writes.*/\1/p' "$tmp/out")
    [ "${writes:-0}" -ge "$2" ] || fail "$1: ${writes:-no} stream writes, wanted $2 or more"
    grep -q ', 0 syncs found work pending$' "$tmp/out" ||
        fail "$1: a taken-over wait ended before its work: $(tail -1 "$tmp/out")"
}

# Never early, parked on the word: flag plans park on the mapped line.
expect 0 "$gar" run --plan "$flag" --report -- "$example" --waits 3000 --threads 3 --streams 3 \
    --max-us 150 --seed 11
check_record "flag, mapped" 2400
mapped=$(sed -n 's/.*taken over on the mapped line: \([0-9]*\),.*/\1/p' "$tmp/err")
[ "${mapped:-0}" -ge 2400 ] || fail "flag: ${mapped:-no} waits on the mapped line"
grep -Eq '^0:[0-9]+ .* mapped$' "$tmp/err" || fail "--report names no mapped stream: $(cat "$tmp/err")"
grep -q 'note: on the status-query path (.*word-wait' "$tmp/err" ||
    fail "flag's fallback not said to be the status-query path's: $(cat "$tmp/err")"

# The default plan, the thread's default stream and blocking sync flags.
expect 0 "$gar" run -- "$example" --waits 1000 --threads 2 --seed 4 --blocking
check_record "auto, blocking" 0
grep -q 'taken over on the mapped line: [1-9]' "$tmp/err" || fail "auto: $(cat "$tmp/err")"
expect 0 "$gar" run --plan "$flag" -- "$scenarios" flags
grep -qx "flags: ok" "$tmp/out" || fail "flags: $(cat "$tmp/err")"
grep -q 'taken over on the mapped line: 21' "$tmp/err" || fail "flags: $(cat "$tmp/err")"

# No stream memory operations: the status-query path, counted with its reason.
FAKE_GPU_STREAM_MEM_OPS=0 expect 0 "$gar" run --plan "$flag" --report -- "$example" \
    --waits 1000 --threads 2 --seed 5
check_record "no stream memory operations" 0
grep -qx 'example: fake: 0 stream writes, 0 syncs found work pending' "$tmp/out" ||
    fail "no stream memory operations: the stream still wrote: $(tail -1 "$tmp/out")"
grep -Eq 'status query in place of the mapped line: [1-9][0-9]* waits \(no stream memory operations\)' \
    "$tmp/err" || fail "no stream memory operations not counted: $(cat "$tmp/err")"
grep -q 'mapped$' "$tmp/err" && fail "no stream memory operations: a stream still mapped"

# The runtime's codes pass through the mapped path unchanged (a fault ends the
# wait by its query, its code comes from the real call); capture and a
# pending error are counted as passed through.
for s in fault pending capture event; do
    expect 0 "$gar" run --plan "$flag" -- "$scenarios" "$s"
    grep -qx "$s: ok" "$tmp/out" || fail "scenario $s on the mapped path: $(cat "$tmp/err")"
    case $s in
    capture) want='passed to the real call: 1 wait (graph capture)' ;;
    pending) want='passed to the real call: 1 wait (error pending)' ;;
    fault) want='1 taken-over waits met a runtime error' ;;
    *) want='taken over on the mapped line: 0, by status query: 2' ;;
    esac
    grep -q "$want" "$tmp/err" || fail "scenario $s: not '$want': $(cat "$tmp/err")"
done

# Another context's stream: left to the real call, its code passed through.
for s in "$scenarios" "$scenarios_hip"; do
    expect 0 "$gar" run -- "$s" context
    grep -qx "context: ok" "$tmp/out" || fail "context ($s): $(cat "$tmp/err")"
    grep -q 'passed to the real call: 1 wait (other context)' "$tmp/err" ||
        fail "other context not passed through ($s): $(cat "$tmp/err")"
done

# fork: the child makes its own line and waits on it.
expect 0 "$gar" run --plan "$flag" --report -- "$example" --waits 200 --threads 1 --fork
check_record "fork" 150
grep -q '2 processes' "$tmp/err" || fail "fork: $(head -c 300 "$tmp/err")"
grep -Eq '^example: fork child: [1-9][0-9]* stream writes, 0 syncs found work pending$' \
    "$tmp/out" || fail "fork: the child did not wait on a line of its own: $(cat "$tmp/out")"

# A runtime loaded by the program, closed and loaded again: 40 mapped waits.
expect 0 "$gar" run --plan "$flag" -- "$dlopen_user" "$libcudart"
grep -qx 'dlopen_user: ok' "$tmp/out" || fail "dlopen: $(cat "$tmp/err")"
grep -q 'taken over on the mapped line: 40,' "$tmp/err" || fail "dlopen: $(cat "$tmp/err")"

# HIP: the same under HIP's names.
expect 0 "$gar" run --plan "$flag" -- "$example_hip" --waits 1000 --threads 2 --streams 2 --seed 6
check_record "hip" 700
FAKE_GPU_STREAM_MEM_OPS=0 expect 0 "$gar" run -- "$example_hip" --waits 300 --seed 6
check_record "hip, no stream memory operations" 0
grep -q '(no stream memory operations)' "$tmp/err" || fail "hip: no reason: $(cat "$tmp/err")"

exit $((failures > 0))
