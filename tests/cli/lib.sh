# tests/cli/lib.sh — what the shell tests of the `gar` command share.
# A test sources it right after `set -u`, with the gar command as its first
# argument:  . "$(dirname "$0")/lib.sh"
#
# It sets:
#   gar        the command under test ($1)
#   tmp        a fresh folder, removed when the test exits
#   failures   0; fail adds one each time
# and defines:
#   fail MESSAGE...     counts a failure and says it on stderr
#   expect CODE CMD...  runs CMD with stdout to $tmp/out and stderr to
#                       $tmp/err; a failure unless it exits with CODE
#   make_v3 FILE        turns a sweep database into schema version 3, as an
#                       older gar wrote it (needs the sqlite3 command)
#   unmount_at_exit     for a test that mounts a tmpfs (a full disk) and
#                       names it in $mounted: the exit unmounts it before
#                       removing $tmp, and a killed test still exits so
gar=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

expect() {
    want=$1
    shift
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" -eq "$want" ] || fail "exit $got, wanted $want: $* ($(head -c 300 "$tmp/err"))"
}

# Drops what version 4 added: the runs' interval columns and run_notes.
make_v3() {
    for c in ci_level overshoot_p50_lo_ns overshoot_p50_hi_ns overshoot_p90_lo_ns \
             overshoot_p90_hi_ns overshoot_p99_lo_ns overshoot_p99_hi_ns \
             estimator_error_p50_lo_ns estimator_error_p50_hi_ns estimator_error_p90_lo_ns \
             estimator_error_p90_hi_ns estimator_error_p99_lo_ns estimator_error_p99_hi_ns; do
        sqlite3 "$1" "ALTER TABLE runs DROP COLUMN $c" || fail "make_v3: cannot drop $c"
    done
    sqlite3 "$1" "DROP TABLE run_notes; UPDATE meta SET value = '3' WHERE key = 'schema_version'" \
        || fail "make_v3: cannot drop run_notes"
}

unmount_at_exit() {
    mounted=""
    trap '[ -n "$mounted" ] && umount "$mounted" 2>/dev/null; rm -rf "$tmp"' EXIT
    trap 'exit 1' INT TERM
}
