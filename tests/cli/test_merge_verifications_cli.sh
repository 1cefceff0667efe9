#!/bin/sh
# tests/cli/test_merge_verifications_cli.sh GAR DATA — `gar merge` brings
# every input's verifications (gar verify --sweep's rows) into the output,
# by the rule of the other tables: one key (arm, waits, device, machine
# profile, seed) held by two files with the same results is kept once, with
# other results refuses the merge and leaves the output as it was; a
# version 3 input's rows come as its conversion makes them (one run, its own
# envelope, nothing judged).  The merged report still has its "Simulation vs
# this machine" section.  Skips (77) without the sqlite3 command.
set -u
. "$(dirname "$0")/lib.sh"
data=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }

# verification FILE TRACE_NAME REAL_P99: one version 4 verification row of
# three real runs, keyed by TRACE_NAME.
verification() {
    cdf=$(seq 0 200 | tr '\n' ',' | sed 's/,$//')
    sqlite3 "$1" "INSERT INTO verifications (trace, trace_name, plan, plan_ran, estimator,
        waits, device, host_profile, seed, real_p50_ns, real_p90_ns, real_p99_ns, sim_p50_ns,
        sim_p90_ns, sim_p99_ns, ks_d, busy_real, busy_sim, verdict, tolerance, real_cdf,
        sim_cdf, gar_version, finished_unix, runs, real_min_p50_ns, real_max_p50_ns,
        real_min_p90_ns, real_max_p90_ns, real_min_p99_ns, real_max_p99_ns, position_p50,
        position_p90, position_p99, real_ks_d_max)
        VALUES ('$2', '$2', 'poll', 'poll', 'adl', 100, 'emulated', 'h', 0, 500, 900, $3, 510,
        950, 1300, 0.08, 1.0, 1.0, 'agree', 'ks_d=0.15', '$cdf', '$cdf', '0.1.0', 1, 3, 480,
        520, 880, 930, 1100, 1400, 'inside', 'inside', 'inside', 0.05)" \
        || fail "cannot add verification $2 to $1"
}

rows() {
    sqlite3 "$1" "SELECT trace_name || ':' || runs || ':' || real_p99_ns || ':' || position_p99
                  FROM verifications ORDER BY trace_name" | tr '\n' ' '
}

cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=40,seed=1
plan block poll
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/a.db" --quiet
cp "$tmp/a.db" "$tmp/b.db"
cp "$tmp/a.db" "$tmp/old.db"
verification "$tmp/a.db" va 1200
verification "$tmp/a.db" shared 1250
verification "$tmp/b.db" vb 1300
verification "$tmp/b.db" shared 1250

# --- two version 4 inputs: each one's rows, the shared one once ---
expect 0 "$gar" merge "$tmp/out.db" "$tmp/a.db" "$tmp/b.db"
[ "$(rows "$tmp/out.db")" = "shared:3:1250:inside va:3:1200:inside vb:3:1300:inside " ] \
    || fail "the merge holds verifications '$(rows "$tmp/out.db")'"
grep -q '^verifications_added: 3$' "$tmp/out" || fail "merge did not count them: $(cat "$tmp/out")"

# --- a version 3 input: its row as the conversion makes it ---
make_v3 "$tmp/old.db"
expect 0 "$gar" merge "$tmp/out3.db" "$tmp/old.db" "$tmp/a.db"
[ "$(rows "$tmp/out3.db")" = "shared:3:1250:inside v3_verified:1:1200:not judged va:3:1200:inside " ] \
    || fail "the merge of a version 3 input holds verifications '$(rows "$tmp/out3.db")'"

# --- one key, other results: refused, the output untouched ---
cp "$tmp/b.db" "$tmp/c.db"
sqlite3 "$tmp/c.db" "UPDATE verifications SET real_p99_ns = 9999 WHERE trace_name = 'shared'"
cp "$tmp/out.db" "$tmp/out-before.db"
expect 2 "$gar" merge "$tmp/out.db" "$tmp/c.db"
grep -q 'error 12 (Io).*c.db.*1 of its verifications are in the output with other results' \
    "$tmp/err" || fail "the conflicting verification was not refused as such: $(cat "$tmp/err")"
cmp -s "$tmp/out.db" "$tmp/out-before.db" || fail "a refused merge changed the output"

# --- the merged report still compares simulation and machine ---
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "$gar" report --db "$tmp/out.db" --out "$tmp/report"
    grep -q 'Simulation vs this machine' "$tmp/report/report.html" \
        || fail "the merged report has no 'Simulation vs this machine'"
    for name in va vb shared; do
        grep -q "$name" "$tmp/report/report.html" || fail "the merged report lacks verification $name"
    done
fi

[ "$failures" -eq 0 ] || exit 1
echo "merge verifications: ok"
