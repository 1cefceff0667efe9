#!/bin/sh
# tests/cli/test_old_databases_cli.sh GAR DATA FIXTURES — a database made by
# an older gar is read, never changed: `auto-goals`, `report` (its --auto-db
# too) and `plot` leave every byte of a schema version 3 or 4 file as it was
# (the older gar can still open it), and a report or plot of one whose runs
# today's replay no longer reproduces (the previous release's version 3
# file, FIXTURES/old_db/v3_previous_release.sql) shows the stored figures
# and says which it lacks, where it used to refuse with error 12.  A run
# this very build made that does not reproduce (an edited row) is still
# refused.  Skips (77) without the sqlite3 command or gnuplot.
set -u
. "$(dirname "$0")/lib.sh"
data=$2
fixtures=$3
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }
q() { sqlite3 "$1" "$2"; }

# unchanged FILE COPY WHAT: FILE is byte for byte COPY, nothing beside it.
unchanged() {
    cmp -s "$1" "$2" || fail "$3 changed the bytes of $1"
    for side in -wal -shm -journal; do
        [ -e "$1$side" ] && fail "$3 left $1$side beside it"
    done
}

# --- the previous release's version 3 file ---
sqlite3 "$tmp/v3.db" <"$fixtures/old_db/v3_previous_release.sql" || fail "cannot load the fixture"
cp "$tmp/v3.db" "$tmp/v3-before.db"
expect 0 "$gar" report --db "$tmp/v3.db" --out "$tmp/rep"
unchanged "$tmp/v3.db" "$tmp/v3-before.db" "report"
[ "$(grep -c '^winner: ' "$tmp/out")" -eq 2 ] || fail "the report ranks no stored figures: $(cat "$tmp/out")"
grep -q '^lacking: schema version 3 lacks intervals, notes and auto choices$' "$tmp/out" \
    || fail "the report does not say what version 3 lacks"
grep -Eq '^lacking: [1-9][0-9]* per-wait figures \(runs made by another build' "$tmp/out" \
    || fail "the report does not count the figures it lacks"
html="$tmp/rep/report.html"
grep -q '<h2>What this database lacks</h2>' "$html" || fail "the page has no 'What this database lacks'"
grep -q '<li>the overshoot CDF of plan poll (estimator -) on trace gen_steady_waits_200_seed_1, host dev-vm, open loop: .*made by gar 0.1.0, source 5dbb781' \
    "$html" || fail "the page does not name a CDF it lacks and why"
[ -s "$tmp/rep/pareto-dev-vm-open.png" ] || fail "the report drew no Pareto plot of the stored figures"
expect 0 "$gar" plot --db "$tmp/v3.db" --out "$tmp/plots"
unchanged "$tmp/v3.db" "$tmp/v3-before.db" "plot"
grep -q "^png: $tmp/plots/pareto-dev-vm-open.png$" "$tmp/out" || fail "plot drew no Pareto plot"
grep -q '^lacking: the prediction plot of run [0-9]* (plan poll+predict' "$tmp/out" \
    || fail "plot does not say it lacks the prediction plot: $(cat "$tmp/out")"
[ "$(q "$tmp/v3.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 3 ] \
    || fail "the version 3 file is no longer version 3"

# --- files of today's gar made older: auto-goals and --auto-db only read ---
cat >"$tmp/a.sweep" <<SPEC
gar-sweep v1
trace gen:jitter:waits=300,seed=3
plan auto:p99_us={5,100} block poll
estimator adl
host $data/hosts/waitpkg.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/a.sweep" --db "$tmp/a.db" --quiet
cp "$tmp/a.db" "$tmp/a4.db"
make_v4 "$tmp/a4.db"
cp "$tmp/a.db" "$tmp/a3.db"
make_v3 "$tmp/a3.db"
for v in 3 4; do
    db="$tmp/a$v.db"
    cp "$db" "$tmp/before.db"
    expect 0 "$gar" auto-goals --db "$db"
    grep -q '^cells: 2 ' "$tmp/out" || fail "auto-goals of a version $v file: $(head -3 "$tmp/out")"
    unchanged "$db" "$tmp/before.db" "auto-goals of a version $v file"
    expect 0 "$gar" report --db "$tmp/v3.db" --auto-db "$db" --out "$tmp/rep$v"
    unchanged "$db" "$tmp/before.db" "report --auto-db of a version $v file"
    [ "$(q "$db" "SELECT value FROM meta WHERE key = 'schema_version'")" = "$v" ] \
        || fail "the version $v file is no longer version $v"
done

# --- a version 4 file from another build whose numbers differ ---
cp "$tmp/a4.db" "$tmp/o4.db"
q "$tmp/o4.db" "UPDATE runs SET gar_version = '0.0.9', source_commit = 'older',
                overshoot_p99_ns = overshoot_p99_ns + 1"
cp "$tmp/o4.db" "$tmp/before.db"
expect 0 "$gar" plot --db "$tmp/o4.db" --out "$tmp/plots4"
unchanged "$tmp/o4.db" "$tmp/before.db" "plot of another build's version 4 file"
grep -q '^lacking: the overshoot CDF of plan block (estimator -) .*made by gar 0.0.9, source older' \
    "$tmp/out" || fail "plot of another build's runs: $(cat "$tmp/out" "$tmp/err")"

# --- this build's own run, edited: still refused ---
cp "$tmp/a.db" "$tmp/edited.db"
q "$tmp/edited.db" "UPDATE runs SET overshoot_p99_ns = overshoot_p99_ns + 1"
expect 2 "$gar" plot --db "$tmp/edited.db" --out "$tmp/plots-edited"
grep -q 'error 12 (Io): .*the replay no longer gives its stored metrics (the run was made by this build of gar' \
    "$tmp/err" || fail "an edited row of this build was not refused: $(cat "$tmp/err")"

[ "$failures" -eq 0 ] || exit 1
echo "old databases: ok"
