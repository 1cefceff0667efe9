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
#   make_v4 FILE        likewise into schema version 4
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

# Drops what version 5 added: the runs' auto columns.
make_v4() {
    for c in auto_block auto_poll auto_flag auto_sleeps auto_late_wakes auto_over_budget_waits; do
        sqlite3 "$1" "ALTER TABLE runs DROP COLUMN $c" || fail "make_v4: cannot drop $c"
    done
    sqlite3 "$1" "UPDATE meta SET value = '4' WHERE key = 'schema_version'" \
        || fail "make_v4: cannot set the version"
}

# Drops what versions 4 and 5 added: the runs' interval and auto columns and
# run_notes, and makes verifications as version 3 did.
make_v3() {
    make_v4 "$1"
    for c in ci_level overshoot_p50_lo_ns overshoot_p50_hi_ns overshoot_p90_lo_ns \
             overshoot_p90_hi_ns overshoot_p99_lo_ns overshoot_p99_hi_ns \
             estimator_error_p50_lo_ns estimator_error_p50_hi_ns estimator_error_p90_lo_ns \
             estimator_error_p90_hi_ns estimator_error_p99_lo_ns estimator_error_p99_hi_ns; do
        sqlite3 "$1" "ALTER TABLE runs DROP COLUMN $c" || fail "make_v3: cannot drop $c"
    done
    sqlite3 "$1" "DROP TABLE run_notes; UPDATE meta SET value = '3' WHERE key = 'schema_version'" \
        || fail "make_v3: cannot drop run_notes"
    # Version 3's verifications, with one row of one real run (trace v3_verified).
    cdf=$(seq 0 200 | tr '\n' ',' | sed 's/,$//')
    sqlite3 "$1" "DROP TABLE verifications;
        CREATE TABLE verifications (id INTEGER PRIMARY KEY, trace TEXT NOT NULL,
          trace_name TEXT NOT NULL, plan TEXT NOT NULL, plan_ran TEXT NOT NULL,
          estimator TEXT NOT NULL, waits INTEGER NOT NULL, device TEXT NOT NULL,
          host_profile TEXT NOT NULL, seed INTEGER NOT NULL, real_p50_ns INTEGER NOT NULL,
          real_p90_ns INTEGER NOT NULL, real_p99_ns INTEGER NOT NULL,
          sim_p50_ns INTEGER NOT NULL, sim_p90_ns INTEGER NOT NULL, sim_p99_ns INTEGER NOT NULL,
          ks_d REAL NOT NULL, busy_real REAL NOT NULL, busy_sim REAL NOT NULL,
          verdict TEXT NOT NULL CHECK (verdict IN ('agree', 'disagree')),
          tolerance TEXT NOT NULL, real_cdf TEXT NOT NULL, sim_cdf TEXT NOT NULL,
          gar_version TEXT NOT NULL, finished_unix INTEGER NOT NULL,
          UNIQUE (trace, plan, estimator, waits, device, host_profile, seed));
        INSERT INTO verifications VALUES (1, 't', 'v3_verified', 'poll', 'poll', 'adl', 100,
          'emulated', 'h', 0, 500, 900, 1200, 510, 950, 1300, 0.08, 1.0, 1.0, 'agree',
          'ks_d=0.15', '$cdf', '$cdf', '0.1.0', 1)" \
        || fail "make_v3: cannot make version 3's verifications"
}

unmount_at_exit() {
    mounted=""
    trap '[ -n "$mounted" ] && umount "$mounted" 2>/dev/null; rm -rf "$tmp"' EXIT
    trap 'exit 1' INT TERM
}
