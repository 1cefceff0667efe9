#!/bin/sh
# tests/cli/test_trace_cache_disk_cli.sh GAR — a long trace's binary cache
# (`.NAME.gar-cache`) that cannot be written beside the trace, because the
# disk there is full (a tmpfs, where mounting is permitted) or every write
# past a file size limit fails, costs nothing but the cache: `sweep` and
# `report` with their database and output elsewhere succeed, store what a
# sweep with the cache stores, and leave nothing beside the trace.  A FIFO
# standing where the cache goes, or named as a sweep's trace, is refused at
# once, naming it (an open of it would wait for a writer forever).  Skips
# (77) without sqlite3.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }
unmount_at_exit # a killed test still unmounts its tmpfs

# 120 000 waits: over the 4 MiB of text from which a sweep caches.
expect 0 "$gar" gen steady --waits 120000 --out "$tmp/long.csv"
spec() { # spec FOLDER: a sweep of FOLDER/long.csv into FOLDER/long.sweep
    cat >"$1/long.sweep" <<SPEC
gar-sweep v1
trace long.csv
plan poll
plan block
estimator adl
host $data/hosts/waitpkg.host
mode open
seed 1
SPEC
}
results() { sqlite3 "$1" 'SELECT plan, seed, waits, overshoot_p99_ns, busy_ns FROM runs ORDER BY plan'; }
spec "$tmp"
expect 0 "$gar" sweep "$tmp/long.sweep" --db "$tmp/ref.db" --quiet
[ -f "$tmp/.long.csv.gar-cache" ] || fail "no cache beside the trace in a writable folder"
reference=$(results "$tmp/ref.db") # (expect sets $want and $got)
mkdir "$tmp/priv"
TMPDIR="$tmp/priv" # where a private cache goes
export TMPDIR

# only_trace FOLDER WHAT: FOLDER holds the trace and spec and nothing else.
only_trace() {
    [ "$(ls -A "$1" | grep -v '^filler$' | tr '\n' ' ')" = "long.csv long.sweep " ] \
        || fail "$2 left beside the trace: $(ls -A "$1" | tr '\n' ' ')"
}

# --- a full disk beside the trace: the cache is built privately (TMPDIR) ---
mkdir "$tmp/full"
size=$(( $(wc -c <"$tmp/long.csv") / 1024 + 200 ))
if mount -t tmpfs -o size=${size}k gar-test "$tmp/full" 2>/dev/null; then
    mounted="$tmp/full"
    cp "$tmp/long.csv" "$tmp/full/" || fail "the trace does not fit the tmpfs"
    spec "$tmp/full"
    for free in 100 4; do # room for part of the cache, or for nothing
        rm -f "$tmp/full/filler"
        have=$(df -k "$tmp/full" | awk 'NR == 2 { print $4 }')
        dd if=/dev/zero of="$tmp/full/filler" bs=1k count=$((have - free)) 2>/dev/null
        rm -f "$tmp/full.db"
        expect 0 "$gar" sweep "$tmp/full/long.sweep" --db "$tmp/full.db" --quiet
        [ "$(results "$tmp/full.db")" = "$reference" ] \
            || fail "$free kB free: the sweep stored other results: $(results "$tmp/full.db")"
        only_trace "$tmp/full" "a sweep on a full disk ($free kB free)"
        [ -z "$(ls -A "$tmp/priv")" ] || fail "the private cache was left: $(ls -A "$tmp/priv")"
        rm -rf "$tmp/rep"
        expect 0 "$gar" report --db "$tmp/full.db" --out "$tmp/rep"
        [ -s "$tmp/rep/report.html" ] || fail "$free kB free: the report wrote no page"
        only_trace "$tmp/full" "a report on a full disk ($free kB free)"
    done
else
    echo "tmpfs not mountable here: full-disk case skipped (the size limit below still runs)"
fi

# --- a file size limit (EFBIG, SIGXFSZ ignored): no cache anywhere; the ---
# --- trace is read as text.  2048 blocks of 512 bytes: room for the     ---
# --- database, not for the cache of 120 000 rows (5.8 MB).              ---
mkdir "$tmp/lim"
cp "$tmp/long.csv" "$tmp/lim/"
spec "$tmp/lim"
limited() { sh -c 'trap "" XFSZ; ulimit -f 2048; exec "$@"' sh "$@"; }
expect 0 limited "$gar" sweep "$tmp/lim/long.sweep" --db "$tmp/lim.db" --quiet
[ "$(results "$tmp/lim.db")" = "$reference" ] \
    || fail "under a size limit the sweep stored other results: $(results "$tmp/lim.db")"
only_trace "$tmp/lim" "a sweep under a file size limit"
[ -z "$(ls -A "$tmp/priv")" ] || fail "a private cache was left: $(ls -A "$tmp/priv")"

# --- a FIFO where the cache goes: refused at once, named, kept: by ---
# --- sweep, and by report and plot, which read the trace again      ---
mkdir "$tmp/fifo"
cp "$tmp/long.csv" "$tmp/fifo/"
spec "$tmp/fifo"
expect 0 "$gar" sweep "$tmp/fifo/long.sweep" --db "$tmp/fifo.db" --quiet
rm "$tmp/fifo/.long.csv.gar-cache"
mkfifo "$tmp/fifo/.long.csv.gar-cache"
refused() { # refused WHAT: the last command refused the FIFO by name, and kept it
    grep -q "error 12 (Io).*\.long\.csv\.gar-cache.*FIFO" "$tmp/err" \
        || fail "$1: a FIFO as the cache is not refused by name: $(cat "$tmp/err")"
    [ -p "$tmp/fifo/.long.csv.gar-cache" ] || fail "$1: the FIFO was replaced"
}
expect 2 timeout 20 "$gar" sweep "$tmp/fifo/long.sweep" --db "$tmp/fifo2.db" --quiet
refused sweep
expect 2 timeout 20 "$gar" report --db "$tmp/fifo.db" --out "$tmp/fifo-rep"
refused report
if command -v gnuplot >/dev/null 2>&1; then
    expect 2 timeout 20 "$gar" plot --db "$tmp/fifo.db" --out "$tmp/fifo-plot" --trace long
    refused plot
fi

# --- a FIFO as a sweep's trace: refused at once, named (its results ---
# --- read the trace again later; a read would wait for a writer)   ---
mkfifo "$tmp/fifo/pipe.csv"
sed 's/^trace long.csv$/trace pipe.csv/' "$tmp/fifo/long.sweep" >"$tmp/fifo/pipe.sweep"
expect 2 timeout 20 "$gar" sweep "$tmp/fifo/pipe.sweep" --db "$tmp/pipe.db" --quiet
grep -q "error 12 (Io).*pipe\.csv.*not a regular file" "$tmp/err" \
    || fail "a FIFO as a sweep's trace is not refused by name: $(cat "$tmp/err")"
[ ! -e "$tmp/pipe.db" ] || fail "a refused sweep left a database"

exit $((failures > 0))
