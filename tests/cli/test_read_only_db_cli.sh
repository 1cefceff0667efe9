#!/bin/sh
# tests/cli/test_read_only_db_cli.sh GAR DATA — `gar plot` and `gar report`
# only read a sweep database: no byte of it changes (a schema version 3 file
# is not converted), nothing is made beside it, and a read-only file or
# folder plots and reports like any other.  The read-only folder is a tmpfs
# remounted read-only when run as root (who writes through file modes), else
# a folder and file without write permission.  Skips (77) without gnuplot or
# the sqlite3 command.
set -u
. "$(dirname "$0")/lib.sh"
data=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }
unmount_at_exit # a killed test still unmounts its tmpfs

cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=40,seed=1
plan block poll poll+predict:margin_us=50,min_sleep_us=20,max_sleep_us=50000,window=8
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1 2
SPEC
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/v4.db" --quiet
cp "$tmp/v4.db" "$tmp/v3.db"
make_v3 "$tmp/v3.db"

# reads DB: plot, report and report --notes on it, each leaving it byte for
# byte as it was with nothing beside it.
reads() {
    db=$1
    cp "$db" "$tmp/before.db"
    expect 0 "$gar" plot --db "$db" --out "$tmp/plots-$2"
    expect 0 "$gar" report --db "$db" --out "$tmp/report-$2"
    [ -s "$tmp/report-$2/report.html" ] || fail "no report of $db"
    expect 0 "$gar" report --db "$db" --notes
    cp "$tmp/out" "$tmp/notes-$2"
    cmp -s "$db" "$tmp/before.db" || fail "plot or report changed the bytes of $db"
    for side in -wal -shm -journal; do
        [ -e "$db$side" ] && fail "plot or report left $db$side beside it"
    done
}

# --- today's database, and a version 3 one, in a writable folder ---
reads "$tmp/v4.db" v4
reads "$tmp/v3.db" v3
[ "$(sqlite3 "$tmp/v3.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 3 ] \
    || fail "reading a version 3 file converted it"
grep -q 'No run here stored its 95 % intervals' "$tmp/report-v3/report.html" \
    || fail "the report of a version 3 file does not say its intervals are absent"
grep -q 'v3_verified' "$tmp/report-v3/report.html" \
    || fail "the report of a version 3 file does not show its verification"
# A version 3 file holds no notes: its count of 0 must not read as "all well".
grep -q '^notes_stored: no (a schema version 3 database' "$tmp/notes-v3" \
    || fail "report --notes on a version 3 file does not say it holds no notes: $(cat "$tmp/notes-v3")"
grep -q '^notes_stored:' "$tmp/notes-v4" && fail "report --notes on a version 4 file says notes_stored"

# --- read-only: the folder, and the file ---
# live.db with a writer's non-empty log beside it, copied while the writer
# holds it open (no checkpoint): read through the log, which needs the -shm.
mkdir "$tmp/ro" "$tmp/live"
cp "$tmp/v4.db" "$tmp/live/live.db"
(cd "$tmp/live" && sqlite3 live.db "PRAGMA wal_autocheckpoint = 0;
    INSERT INTO meta VALUES ('test_key', 'x');" ".shell cp live.db live.db-wal ..") >/dev/null \
    || fail "cannot make a database with a live log"
[ -s "$tmp/live.db-wal" ] || fail "the live log was not kept"
if [ "$(id -u)" -eq 0 ]; then
    if mount -t tmpfs -o size=4m gar-test "$tmp/ro" 2>/dev/null; then
        mounted="$tmp/ro"
        cp "$tmp/v3.db" "$tmp/v4.db" "$tmp/live.db" "$tmp/live.db-wal" "$tmp/ro/"
        mount -o remount,ro "$tmp/ro" || fail "cannot remount the tmpfs read-only"
    else
        echo "tmpfs not mountable here: read-only folder case skipped"
        exit 0
    fi
else
    cp "$tmp/v3.db" "$tmp/v4.db" "$tmp/live.db" "$tmp/live.db-wal" "$tmp/ro/"
    chmod 0444 "$tmp/ro/v3.db" "$tmp/ro/v4.db" "$tmp/ro/live.db" "$tmp/ro/live.db-wal"
    chmod 0555 "$tmp/ro"
fi
reads "$tmp/ro/v3.db" ro-v3
reads "$tmp/ro/v4.db" ro-v4
# Without the -shm that cannot be made, the refusal says what to do.
expect 2 "$gar" report --db "$tmp/ro/live.db" --out "$tmp/report-live"
grep -q "^error 12 (Io): cannot open '$tmp/ro/live.db': its folder is not writable .*copy both to a writable folder" "$tmp/err" \
    || fail "a live log in a read-only folder is not refused as wanted: $(cat "$tmp/err")"
[ "$(ls "$tmp/ro" | tr '\n' ' ')" = "live.db live.db-wal v3.db v4.db " ] || fail "the read-only folder holds $(ls "$tmp/ro")"
grep -q 'No run here stored its 95 % intervals' "$tmp/report-ro-v3/report.html" \
    || fail "the report of a read-only version 3 file does not say its intervals are absent"
if [ -n "$mounted" ]; then
    umount "$tmp/ro" && mounted=""
else
    chmod 0755 "$tmp/ro"
fi

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
