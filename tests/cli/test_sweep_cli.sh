#!/bin/sh
# tests/cli/test_sweep_cli.sh GAR — `gar sweep`, `gar merge`, `gar plot`
# and `gar report` from the shell: rows and keys, refusals before anything
# runs, kill -9 and resume, shards merged against the whole, schema versions,
# and plots with and without gnuplot.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }

q() { sqlite3 "$1" "$2"; }

# Every stored column but those that say when and how fast a run ran.
rows() {
    cols=$(q "$1" "SELECT group_concat(name, ',') FROM pragma_table_info('runs')
                   WHERE name NOT IN ('id', 'run_ns', 'finished_unix')")
    q "$1" "SELECT $cols FROM runs ORDER BY trace, plan, estimator, host, mode, seed"
}

FLAGDL="flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"
cat >"$tmp/small.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=50,seed=1 gen:jitter:waits=60,seed=2
plan block poll $FLAGDL
estimator adl half-min
host $data/hosts/dev-vm.host
mode open closed
seed 1 2
SPEC
# 2 traces x (block, poll, FLAGDL x 2 estimators) x 2 modes x 2 seeds
total=32

# --- a small sweep: its rows, its keys, and a second run that does nothing ---
expect 0 "$gar" sweep "$tmp/small.sweep" --db "$tmp/a.db" --jobs 2 --quiet
grep -q "^ran: $total$" "$tmp/out" || fail "the small sweep did not run $total runs"
grep -q '^status: done$' "$tmp/out" || fail "no 'status: done'"
[ "$(q "$tmp/a.db" 'SELECT count(*) FROM runs')" -eq $total ] || fail "not $total rows"
[ "$(q "$tmp/a.db" "SELECT count(*) FROM (SELECT DISTINCT trace, plan, estimator, host, mode, seed FROM runs)")" -eq $total ] \
    || fail "keys repeat"
[ "$(q "$tmp/a.db" "SELECT count(*) FROM runs WHERE status = 'ok' AND waits IN (50, 60)")" -eq $total ] \
    || fail "rows lack their metrics"
[ "$(q "$tmp/a.db" "SELECT count(*) FROM runs WHERE plan = 'poll' AND estimator = '-'")" -eq 8 ] \
    || fail "poll did not run once per trace, mode and seed"
[ "$(q "$tmp/a.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 5 ] || fail "no schema_version"
# Every run's quantiles carry their interval (50 or 60 waits: a p50 bounded
# on both sides, a p99 from below only), and say the p99 had too few waits.
[ "$(q "$tmp/a.db" "SELECT count(*) FROM runs WHERE ci_level = 0.95
                    AND overshoot_p50_lo_ns <= overshoot_p50_ns AND overshoot_p50_ns <= overshoot_p50_hi_ns
                    AND overshoot_p99_lo_ns <= overshoot_p99_ns AND overshoot_p99_hi_ns IS NULL")" -eq $total ] \
    || fail "runs lack their intervals"
[ "$(q "$tmp/a.db" "SELECT count(*) FROM run_notes WHERE note = 'few_waits' AND worst_ns IS NULL")" -eq $total ] \
    || fail "runs of 50 and 60 waits lack their few_waits note"
grep -q "^notes: $total runs of $tmp/a.db have notes (.*few_waits $total" "$tmp/out" \
    || fail "the summary does not count the notes ($(grep '^notes' "$tmp/out"))"
grep -q "^few_waits: $total runs have too few waits for a p99 to have an upper bound (368 at 95 %)" "$tmp/out" \
    || fail "the summary does not say the p99s lack an upper bound"
[ "$(q "$tmp/a.db" "PRAGMA journal_mode")" = wal ] || fail "not in WAL mode"
[ "$(q "$tmp/a.db" 'SELECT count(*) FROM traces')" -eq 2 ] || fail "traces not recorded"
expect 0 "$gar" sweep "$tmp/small.sweep" --db "$tmp/a.db" --jobs 2 --quiet
grep -q '^ran: 0$' "$tmp/out" || fail "a finished sweep ran again"
grep -q '^status: nothing to do' "$tmp/out" || fail "a finished sweep did not say so"

# --- twins: flag runs as poll on a host without word wait, replayed once ---
cat >"$tmp/twins.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=40,seed=1
plan poll flag:park_us=100,backstop_us=1000
estimator adl
host $data/hosts/dev-vm.host $data/hosts/waitpkg.host
mode open
seed 1 2
SPEC
expect 0 "$gar" sweep "$tmp/twins.sweep" --db "$tmp/t.db" --jobs 2 --quiet
grep -q '^ran: 8$' "$tmp/out" || fail "the twins sweep did not store 8 runs"
grep -q '^copied: 2$' "$tmp/out" || fail "flag on dev-vm was not copied from poll"
[ "$(q "$tmp/t.db" "SELECT plan_ran FROM runs WHERE plan LIKE 'flag%' AND host_name LIKE '%dev-vm%' LIMIT 1")" \
    = "poll (fallback from flag)" ] || fail "plan_ran does not name the fallback"
[ "$(q "$tmp/t.db" "SELECT count(DISTINCT overshoot_p99_ns || ' ' || busy_ns || ' ' || queries) FROM runs
                    WHERE host_name LIKE '%dev-vm%' AND seed = 1")" -eq 1 ] \
    || fail "twins differ in their metrics"
[ "$(q "$tmp/t.db" "SELECT count(*) FROM runs WHERE plan_ran LIKE 'flag%'")" -eq 2 ] \
    || fail "flag did not run as flag on the word-wait host"
# The twin is noted as a fallback; its original, run as asked, is not.
[ "$(q "$tmp/t.db" "SELECT count(*) FROM run_notes WHERE note = 'fallback' AND plan LIKE 'flag%'
                    AND message LIKE 'the host ran poll (fallback from flag)%'")" -eq 2 ] \
    || fail "the fallback twins have no fallback note"
[ "$(q "$tmp/t.db" "SELECT count(*) FROM run_notes WHERE note = 'fallback'")" -eq 2 ] \
    || fail "runs that did not fall back have a fallback note"

# --- a trace of nine streams (past one completion line) runs like any other ---
{
    echo '# gar-trace v1'
    echo 'point,submit_ns,start_ns,done_ns,stream'
    for k in 0 1 2 3 4 5 6 7 8; do echo "1,${k}000,${k}000,${k}500,$k"; done
} >"$tmp/streams.csv"
cat >"$tmp/streams.sweep" <<SPEC
gar-sweep v1
trace streams.csv
plan poll
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/streams.sweep" --db "$tmp/s.db" --quiet
grep -q '^ran: 1$' "$tmp/out" || fail "a replay with 9 streams did not run"
[ "$(q "$tmp/s.db" "SELECT count(*) || ' ' || sum(waits) FROM run_streams")" = "9 9" ] \
    || fail "the 9-stream run's run_streams rows are not one a stream"

# --- a run whose replay fails is stored as failed, and not retried ---
{
    echo '# gar-trace v1'
    echo 'point,submit_ns,start_ns,done_ns'
    echo '1,0,0,1000'
    echo '1,9223372036854775000,9223372036854775000,9223372036854775807'
} >"$tmp/fails.csv"
cat >"$tmp/fails.sweep" <<SPEC
gar-sweep v1
trace fails.csv
plan poll
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/fails.sweep" --db "$tmp/f.db" --quiet
grep -q '^failed: 1$' "$tmp/out" || fail "a replay whose makespan passes 2^63 - 1 did not fail"
[ "$(q "$tmp/f.db" "SELECT status || ' ' || error_code || ' ' || (waits IS NULL) FROM runs")" = "failed 10 1" ] \
    || fail "the failed run is not stored with its code and no metrics"
q "$tmp/f.db" "SELECT error FROM runs" | grep -q 'makespan' || fail "the failed run's message is not stored"
[ "$(q "$tmp/f.db" "SELECT count(*) FROM run_streams")" = "0" ] \
    || fail "a failed run has run_streams rows"
expect 0 "$gar" sweep "$tmp/fails.sweep" --db "$tmp/f.db" --quiet
grep -q '^ran: 0$' "$tmp/out" || fail "a failed run was retried"

# --- refusals come before anything runs or any file is made ---
sed 's/^plan block/plan blok/' "$tmp/small.sweep" >"$tmp/bad.sweep"
expect 2 "$gar" sweep "$tmp/bad.sweep" --db "$tmp/bad.db"
grep -q 'error 1 (InvalidPlan).*blok.*bad.sweep:3' "$tmp/err" || fail "bad plan not refused with file:line ($(cat "$tmp/err"))"
[ ! -e "$tmp/bad.db" ] || fail "a refused spec made a database"
expect 2 "$gar" sweep "$tmp/small.sweep"
grep -q 'error 11 (Usage)' "$tmp/err" || fail "no --db not a usage error"
expect 2 "$gar" sweep "$tmp/small.sweep" --db "$tmp/x.db" --shard 3/3
grep -q 'error 11 (Usage)' "$tmp/err" || fail "--shard 3/3 not refused"

# --- kill -9 mid-sweep, then resume: every row once, equal to a clean run ---
# The sweep kills itself (SIGKILL) right after storing its 3rd run
# (GAR_SWEEP_CRASH_AFTER, experiments/sweep/sweep_run.h): a kill -9 at a
# known point, not a race against a timer.
cat >"$tmp/long.sweep" <<SPEC
gar-sweep v1
trace gen:jitter:waits=4000,seed=3
plan poll
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
seed 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40
SPEC
GAR_SWEEP_CRASH_AFTER=3 "$gar" sweep "$tmp/long.sweep" --db "$tmp/k.db" --jobs 1 --quiet \
    >/dev/null 2>&1
status=$?
[ "$status" -eq 137 ] || fail "the sweep told to crash exited $status, not killed (137)"
left=$(q "$tmp/k.db" 'SELECT count(*) FROM runs')
[ "$left" -eq 3 ] || fail "the killed sweep had stored $left runs, not 3"
[ "$(q "$tmp/k.db" 'PRAGMA integrity_check')" = ok ] || fail "the killed sweep left a damaged database"
expect 0 "$gar" sweep "$tmp/long.sweep" --db "$tmp/k.db" --jobs 2 --quiet
grep -q "^present: $left$" "$tmp/out" || fail "resume did not find the $left stored runs"
grep -q "^ran: $((40 - left))$" "$tmp/out" || fail "resume did not run just the rest"
expect 0 "$gar" sweep "$tmp/long.sweep" --db "$tmp/clean.db" --jobs 2 --quiet
rows "$tmp/k.db" >"$tmp/k.rows"
rows "$tmp/clean.db" >"$tmp/clean.rows"
[ "$(wc -l <"$tmp/k.rows")" -eq 40 ] || fail "the resumed sweep does not hold 40 rows"
cmp -s "$tmp/k.rows" "$tmp/clean.rows" || fail "the resumed sweep's rows differ from a clean run's"

# --- shards merged equal the whole, row for row ---
in_shards=0
for i in 0 1 2; do
    expect 0 "$gar" sweep "$tmp/small.sweep" --db "$tmp/s$i.db" --shard $i/3 --jobs 1 --quiet
    n=$(sed -n 's/^in_shard: //p' "$tmp/out")
    in_shards=$((in_shards + n))
done
[ $in_shards -eq $total ] || fail "the shards hold $in_shards runs, not $total"
expect 0 "$gar" merge "$tmp/m.db" "$tmp/s0.db" "$tmp/s1.db" "$tmp/s2.db"
grep -q "^added: $total$" "$tmp/out" || fail "merge did not add $total runs"
rows "$tmp/m.db" >"$tmp/m.rows"
rows "$tmp/a.db" >"$tmp/a.rows"
cmp -s "$tmp/m.rows" "$tmp/a.rows" || fail "merged shards differ from the single run"
expect 0 "$gar" merge "$tmp/m.db" "$tmp/s1.db"
grep -q '^added: 0$' "$tmp/out" || fail "merging a shard twice added rows"

# --- merge refuses another schema version, naming the file and both ---
cp "$tmp/s0.db" "$tmp/v9.db"
q "$tmp/v9.db" "UPDATE meta SET value = '9' WHERE key = 'schema_version'"
expect 2 "$gar" merge "$tmp/m2.db" "$tmp/v9.db"
grep -q "error 12 (Io): cannot merge '$tmp/v9.db': its schema version is 9; this gar reads schema versions 3 to 5" "$tmp/err" \
    || fail "schema version not refused as wanted ($(cat "$tmp/err"))"

# --- a version 3 file (as an older gar wrote it): merged as it is, and a
# sweep into it converts it in place, keeping its runs and resuming ---
cp "$tmp/a.db" "$tmp/v3.db"
make_v3 "$tmp/v3.db"
expect 0 "$gar" merge "$tmp/m3.db" "$tmp/v3.db"
grep -q "^added: $total$" "$tmp/out" || fail "a version 3 input was not merged whole"
[ "$(q "$tmp/m3.db" "SELECT count(*) FROM runs WHERE ci_level IS NULL")" -eq $total ] \
    || fail "a version 3 input's runs gained intervals they never had"
# Its runs took no notes: --notes says so rather than count 0 as all well.
expect 0 "$gar" report --db "$tmp/m3.db" --notes
grep -q "^notes_stored: not for $total of $total ok runs (made by a gar before schema version 4" "$tmp/out" \
    || fail "report --notes does not say the version 3 runs took no notes: $(tail -2 "$tmp/out")"
# The same runs from a version 4 file, merged after the version 3 one and
# before it: either order holds every run once with its intervals and notes.
expect 0 "$gar" merge "$tmp/m3.db" "$tmp/a.db"
grep -q "^present: $total$" "$tmp/out" \
    || fail "a version 4 file's runs, merged onto the same runs from version 3, were not taken as present ($(cat "$tmp/err"))"
expect 0 "$gar" merge "$tmp/m4.db" "$tmp/a.db" "$tmp/v3.db"
rows "$tmp/m3.db" >"$tmp/m3.rows"
rows "$tmp/m4.db" >"$tmp/m4.rows"
cmp -s "$tmp/m3.rows" "$tmp/m4.rows" || fail "merging version 3 then 4 gives other runs than 4 then 3"
[ "$(q "$tmp/m3.db" "SELECT count(*) FROM runs WHERE ci_level IS NULL")" -eq 0 ] \
    || fail "runs from version 3 did not gain the intervals the version 4 file has for them"
notes="SELECT trace, plan, estimator, host, mode, seed, note, count, worst_ns, message FROM run_notes ORDER BY 1, 2, 3, 4, 5, 6, 7"
[ "$(q "$tmp/m3.db" "$notes")" = "$(q "$tmp/a.db" "$notes")" ] && [ -n "$(q "$tmp/a.db" "$notes")" ] \
    || fail "runs from version 3 did not gain the notes the version 4 file has for them"
expect 0 "$gar" report --db "$tmp/m3.db" --notes
grep -q '^notes_stored:' "$tmp/out" && fail "report --notes says notes are missing after they were merged in"
expect 0 "$gar" sweep "$tmp/small.sweep" --db "$tmp/v3.db" --quiet
grep -q '^status: nothing to do' "$tmp/out" || fail "the converted file's runs were not kept"
[ "$(q "$tmp/v3.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 5 ] \
    || fail "a sweep into a version 3 file did not convert it to version 5"
[ "$(q "$tmp/v3.db" "SELECT count(*) FROM run_notes")" -eq 0 ] || fail "no run_notes after converting"
if command -v gnuplot >/dev/null 2>&1; then
    cp "$tmp/a.db" "$tmp/v3r.db"
    make_v3 "$tmp/v3r.db"
    expect 0 "$gar" report --db "$tmp/v3r.db" --out "$tmp/v3rep"
    [ -s "$tmp/v3rep/report.html" ] || fail "no report of a version 3 file"
    # Some arms' runs made before version 4: the page says their notes are missing too.
    cp "$tmp/a.db" "$tmp/part.db"
    q "$tmp/part.db" "UPDATE runs SET ci_level = NULL WHERE plan = 'block';
        DELETE FROM run_notes WHERE plan = 'block'"
    expect 0 "$gar" report --db "$tmp/part.db" --out "$tmp/partrep"
    grep -q 'without stored 95 % intervals .*took no notes either' "$tmp/partrep/report.html" \
        || fail "the report does not say the older runs took no notes"
fi

# --- plots and the report ---
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "$gar" plot --db "$tmp/a.db" --out "$tmp/plots" --trace gen_jitter_waits_60_seed_2
    for f in pareto-dev-vm-open pareto-dev-vm-closed cdf-gen_jitter_waits_60_seed_2-dev-vm-open; do
        [ -s "$tmp/plots/$f.png" ] || fail "no $f.png"
        [ -s "$tmp/plots/$f.gp" ] || fail "no $f.gp beside $f.png"
        head -c 4 "$tmp/plots/$f.png" | grep -q PNG || fail "$f.png is not a PNG"
    done
    ls "$tmp/plots"/prediction-*.png >/dev/null 2>&1 || fail "no prediction plot"
    expect 0 "$gar" report --db "$tmp/a.db" --out "$tmp/rep"
    grep -q '<img src="pareto-dev-vm-open.png"' "$tmp/rep/report.html" || fail "report lacks the pareto plot"
    grep -q 'Winner: <b>' "$tmp/rep/report.html" || fail "report names no winner"
    [ "$(grep -c '^winner: ' "$tmp/out")" -eq 4 ] || fail "report did not print a winner per trace and mode"
    grep -q 'http' "$tmp/rep/report.html" && fail "report refers to the network"
    # A stored row the replay no longer gives is refused, not drawn.
    id=$(q "$tmp/a.db" "SELECT id FROM runs WHERE plan = 'poll' LIMIT 1")
    q "$tmp/a.db" "UPDATE runs SET overshoot_p99_ns = overshoot_p99_ns + 1 WHERE id = $id"
    expect 2 "$gar" plot --db "$tmp/a.db" --out "$tmp/plots2" --run "$id"
    grep -q 'no longer gives its stored metrics' "$tmp/err" || fail "a changed row was drawn"
else
    echo "no gnuplot: plot output not checked"
fi
# Without gnuplot: a coded error naming it, and nothing written.
expect 2 env PATH=/nonexistent "$gar" plot --db "$tmp/m.db" --out "$tmp/noplot"
grep -q 'error 12 (Io).*gnuplot' "$tmp/err" || fail "a missing gnuplot is not a coded error ($(cat "$tmp/err"))"
[ ! -e "$tmp/noplot" ] || fail "plot without gnuplot wrote files"
expect 2 env PATH=/nonexistent "$gar" report --db "$tmp/m.db" --out "$tmp/noreport"
grep -q 'gnuplot' "$tmp/err" || fail "report without gnuplot is not refused"
[ ! -e "$tmp/noreport" ] || fail "report without gnuplot wrote files"

# --- sweeps started together on a new file: each waits out the others'
# locks (creating the file and switching it to WAL), none refuses ---
sed -e 's/^seed 1 2$/seed 1/' -e 's/^mode open closed$/mode open/' \
    -e 's/^trace .*/trace gen:steady:waits=20,seed=1/' "$tmp/small.sweep" >"$tmp/race.sweep"
trial=1
while [ $trial -le 8 ]; do
    rm -f "$tmp/race.db" "$tmp/race.db-wal" "$tmp/race.db-shm"
    for k in 1 2 3 4; do
        ( "$gar" sweep "$tmp/race.sweep" --db "$tmp/race.db" --jobs 1 --quiet \
              >/dev/null 2>"$tmp/race-err$k"; echo $? >"$tmp/race-rc$k" ) &
    done
    wait
    for k in 1 2 3 4; do
        [ "$(cat "$tmp/race-rc$k")" = 0 ] \
            || fail "sweep $k of 4 started together (trial $trial) refused: $(cat "$tmp/race-err$k")"
    done
    [ "$(q "$tmp/race.db" 'SELECT count(*) FROM runs')" -eq 4 ] \
        || fail "4 sweeps started together did not store their 4 runs once (trial $trial)"
    trial=$((trial + 1))
done

# --- a shard that gets no runs: an empty database, then a clear refusal ---
expect 0 "$gar" sweep "$tmp/small.sweep" --db "$tmp/empty.db" --shard 0/100000 --quiet
grep -q '^in_shard: 0$' "$tmp/out" || fail "shard 0/100000 of $total runs is not empty"
empty_words="the database '$tmp/empty.db' holds no runs; run gar sweep SPEC --db '$tmp/empty.db' first"
for verb in report plot auto-goals; do
    expect 2 "$gar" $verb --db "$tmp/empty.db" --out "$tmp/empty-$verb"
    grep -qxF "error 22 (EmptyDatabase): $verb: $empty_words" "$tmp/err" \
        || fail "$verb of a database without runs not refused as empty ($(cat "$tmp/err"))"
    [ ! -e "$tmp/empty-$verb" ] || fail "$verb of a database without runs wrote files"
done
expect 2 "$gar" report --db "$tmp/a.db" --auto-db "$tmp/empty.db" --out "$tmp/empty-auto"
grep -qxF "error 22 (EmptyDatabase): report: $empty_words" "$tmp/err" \
    || fail "report --auto-db of a database without runs not refused as empty ($(cat "$tmp/err"))"
[ ! -e "$tmp/empty-auto" ] || fail "report --auto-db of a database without runs wrote files"

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
