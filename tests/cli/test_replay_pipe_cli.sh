#!/bin/sh
# tests/cli/test_replay_pipe_cli.sh GAR — `gar replay` of a trace that can
# be read only once (a pipe named as a path, as `<(...)` gives, or a named
# FIFO) under an `auto:` plan, which learns the trace's median residual
# before its first wait: the pipe is read once, as standard input is, and
# the replay prints what the regular file's does (a trace this short is
# kept whole for the lead).  It was refused as an empty file (a first pass
# had drained the pipe) or waited forever on the FIFO's second open.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
host="$data/hosts/waitpkg.host"

expect 0 "$gar" gen steady --waits 3000 --seed 4 --out "$tmp/t.csv"
for plan in auto:p99_us=20 poll; do
    expect 0 "$gar" replay "$tmp/t.csv" --plan $plan --host "$host"
    sed 1d "$tmp/out" >"$tmp/want" # all but the 'trace:' line

    # A pipe named by a path (/dev/stdin of a pipeline, as <(...) names /dev/fd/N).
    cat "$tmp/t.csv" | "$gar" replay /dev/stdin --plan $plan --host "$host" >"$tmp/out" 2>"$tmp/err" \
        || fail "$plan: a pipe named by a path was refused: $(cat "$tmp/err")"
    sed 1d "$tmp/out" | cmp -s - "$tmp/want" || fail "$plan: the pipe's replay differs from the file's"

    # A named FIFO, its writer started first.
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo"
    cat "$tmp/t.csv" >"$tmp/fifo" &
    writer=$!
    expect 0 timeout 20 "$gar" replay "$tmp/fifo" --plan $plan --host "$host"
    sed 1d "$tmp/out" | cmp -s - "$tmp/want" || fail "$plan: the FIFO's replay differs from the file's"
    kill $writer 2>/dev/null # a writer left waiting on a replay that never opened it
    wait $writer 2>/dev/null
done

exit $((failures > 0))
