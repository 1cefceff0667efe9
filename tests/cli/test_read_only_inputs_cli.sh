#!/bin/sh
# tests/cli/test_read_only_inputs_cli.sh GAR DATA — `gar merge` and
# `gar auto-goals` read a database in a read-only folder, as report and plot
# do: merge's inputs are only read (its output folder is writable), and
# neither leaves a byte changed or a file beside them.  The read-only folder
# is a tmpfs remounted read-only when run as root (who writes through file
# modes), else a folder and file without write permission.
set -u
. "$(dirname "$0")/lib.sh"
data=$2
unmount_at_exit # a killed test still unmounts its tmpfs

cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=60,seed=1
plan poll auto:p99_us=20
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/in.db" --quiet

mkdir "$tmp/ro"
if [ "$(id -u)" -eq 0 ]; then
    if mount -t tmpfs -o size=4m gar-test "$tmp/ro" 2>/dev/null; then
        mounted="$tmp/ro"
        cp "$tmp/in.db" "$tmp/ro/"
        mount -o remount,ro "$tmp/ro" || fail "cannot remount the tmpfs read-only"
    else
        echo "tmpfs not mountable here: skipped"
        exit 77
    fi
else
    cp "$tmp/in.db" "$tmp/ro/"
    chmod 0444 "$tmp/ro/in.db"
    chmod 0555 "$tmp/ro"
fi

expect 0 "$gar" auto-goals --db "$tmp/ro/in.db"
grep -q '^cells: 1 ' "$tmp/out" || fail "auto-goals on a read-only folder: $(cat "$tmp/out")"

expect 0 "$gar" merge "$tmp/out.db" "$tmp/ro/in.db"
grep -q '^added: 2$' "$tmp/out" || fail "merge from a read-only folder: $(cat "$tmp/out")"
# Again: the runs are there already, the input read a second time.
expect 0 "$gar" merge "$tmp/out.db" "$tmp/ro/in.db"
grep -q '^present: 2$' "$tmp/out" || fail "second merge from a read-only folder: $(cat "$tmp/out")"

cmp -s "$tmp/in.db" "$tmp/ro/in.db" || fail "a read changed the bytes of the read-only database"
[ "$(ls "$tmp/ro" | tr '\n' ' ')" = "in.db " ] || fail "the read-only folder holds $(ls "$tmp/ro")"
if [ -n "${mounted:-}" ]; then
    umount "$tmp/ro" && mounted=""
else
    chmod 0755 "$tmp/ro"
fi

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
