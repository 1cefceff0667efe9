#!/bin/sh
# tests/cli/test_main_job.sh GAR — the main job end to end: the
# bundled sweep into a results folder with its database, plots and report,
# a summary per trace and host, and a second run that only redraws.
set -u
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)

sh "$src/experiments/main-job.sh" "$gar" --out "$tmp/results" >"$tmp/first" 2>"$tmp/err" \
    || fail "the main job failed: $(tail -n 5 "$tmp/err")"
[ -s "$tmp/results/sweep.db" ] || fail "no database"
[ -s "$tmp/results/report.html" ] || fail "no report"
for host in dev-vm waitpkg; do
    [ -s "$tmp/results/pareto-$host-open.png" ] || fail "no pareto plot for $host"
    for trace in steady jitter bimodal drift decode; do
        [ -s "$tmp/results/cdf-$trace-$host-open.png" ] || fail "no CDF of $trace on $host"
    done
done
# Five bundled traces and the ranged sweep's generated one.
[ "$(ls "$tmp/results"/prediction-*.png | wc -l)" -eq 6 ] || fail "not one prediction plot per trace"
grep -q '^  ran: 720$' "$tmp/first" || fail "the bundled sweep did not run its 720 runs"
grep -q '^  ran: 72$' "$tmp/first" || fail "the ranged sweep did not run its 72 runs"
# The ranged sweep's parameters: the predict margin and the what-if factor.
for name in margin_us sleep_overshoot_ns_scale; do
    [ -s "$tmp/results/param-$name-waitpkg-open.png" ] || fail "no parameter plot of $name"
    grep -q "param-$name-waitpkg-open.png" "$tmp/results/report.html" \
        || fail "the report does not show the parameter plot of $name"
done
[ "$(sqlite3 "$tmp/results/sweep.db" "SELECT count(DISTINCT value) FROM run_params WHERE name = 'margin_us'")" -eq 6 ] \
    || fail "the runs do not store the 6 swept margins"
grep -q 'busy-within:pct=10,us=2' "$tmp/results/report.html" || fail "the report does not state its rule"
grep -q '^  failed: 0$' "$tmp/first" || fail "some bundled runs failed"
# The auto sweep, in its own database, and its goals.
[ -s "$tmp/results/auto.db" ] || fail "no auto database"
grep -q '^  auto ran: 4740$' "$tmp/first" || fail "the auto sweep did not run its 4740 runs"
grep -q '^  auto failed: 0$' "$tmp/first" || fail "some auto runs failed"
for goal in goal_budget_met goal_cpu_within_1.25x goal_beats_single_plan; do
    grep -Eq "^  $goal: (pass|fail) " "$tmp/first" || fail "the job did not print $goal"
done
grep -q '^cells: 80 ' "$tmp/results/auto-goals.txt" || fail "auto-goals.txt lacks its 80 cells"
for host in dev-vm waitpkg dev-vm_word_wait_yes waitpkg_sleep_overshoot_ns_2; do
    [ -s "$tmp/results/auto-$host-open.png" ] || fail "no auto plot for $host"
done
grep -q 'What budget can you meet' "$tmp/results/auto-goals.html" || fail "no auto-goals.html"
# The same goals on the production-like sweep, in a folder of their own.
[ -s "$tmp/results/real.db" ] || fail "no real.sweep database"
grep -q '^  real ran: 9480$' "$tmp/first" || fail "the real sweep did not run its 9480 runs"
grep -q '^  real failed: 0$' "$tmp/first" || fail "some real.sweep runs failed"
[ "$(grep -Ec '^  goal_(budget_met|cpu_within_1.25x|beats_single_plan): (pass|fail) ' "$tmp/first")" -eq 6 ] ||
    fail "the job did not print the goals of both sweeps"
grep -q 'What budget can you meet' "$tmp/results/real/auto-goals.html" || fail "no real/auto-goals.html"
# Judged strictly, auto meets B wherever a fixed arm does (the same sweep).
real_db="$tmp/results/real.db"
. "$(dirname "$0")/auto_strict_real.sh"
# The report opens with it: the section comes before every other heading.
first=$(grep -o '<h2>[^<]*</h2>' "$tmp/results/report.html" | head -1)
[ "$first" = '<h2>What budget can you meet, and at what CPU?</h2>' ] ||
    fail "the report's first section is '$first'"
grep -q 'src="auto-waitpkg-open.png"' "$tmp/results/report.html" || fail "the report lacks the auto plots"
grep -q 'report    .*report.html' "$tmp/first" || fail "the job did not say where the report is"
# The summary table: a header and one row per trace and host, each with the
# waits of a run, the p99's seed spread and the verdict.
[ "$(grep -cE '^  (steady|jitter|bimodal|drift|decode) +(dev-vm|waitpkg) ' "$tmp/first")" -eq 10 ] \
    || fail "the summary lacks a row per trace and host"
grep -qE '^  trace +host +waits +winner +p99 +busy +verdict +poll +block$' "$tmp/first" \
    || fail "the summary's header lacks waits or verdict: $(grep '^  trace' "$tmp/first")"
[ "$(grep -E '^  (steady|jitter|bimodal|drift|decode) +(dev-vm|waitpkg) +[0-9]+ ' "$tmp/first" |
    grep -cE '\(seeds [0-9.]+–[0-9.]+ µs\) .*  (clear|tied: [0-9]+ within noise, (lower busy|lower p99|earlier plan))  ')" -eq 10 ] \
    || fail "a summary row lacks its spread or verdict"
grep -q 'predict#' "$tmp/first" "$tmp/results/report.html" && fail "a plan is named by a number"
# Columns line up on a terminal: each row's verdict starts in the column of
# the header's, counted in characters (µ and the en dash are two and three
# bytes in UTF-8).
chars() { printf '%s' "$1" | LC_ALL=C tr -d '\200-\277' | wc -c; }
head_line=$(grep '^  trace ' "$tmp/first")
verdict_at=$(chars "${head_line%%verdict*}")
grep -E '^  (steady|jitter|bimodal|drift|decode) +(dev-vm|waitpkg) ' "$tmp/first" | while IFS= read -r row; do
    before=$(printf '%s' "$row" | sed -E 's/  (clear|tied: ).*//')
    [ "$(chars "$before  ")" -eq "$verdict_at" ] || echo "$row"
done >"$tmp/misaligned"
[ -s "$tmp/misaligned" ] && fail "summary rows whose verdict is not under its header: $(head -2 "$tmp/misaligned")"

sh "$src/experiments/main-job.sh" "$gar" --out "$tmp/results" >"$tmp/second" 2>"$tmp/err" \
    || fail "the second main job failed: $(tail -n 5 "$tmp/err")"
[ "$(grep -c '^  ran: 0$' "$tmp/second")" -eq 2 ] || fail "the second main job ran runs again"
grep -q '^  auto ran: 0$' "$tmp/second" || fail "the second main job ran auto runs again"
grep -q '^  real ran: 0$' "$tmp/second" || fail "the second main job ran real.sweep runs again"
grep -q 'nothing to do' "$tmp/second" || fail "the second main job did not say it had nothing to do"

grep -q 'other_builds' "$tmp/second" && fail "the second main job counts its own runs as another build's"

# Runs another build made are kept, and the job says so and how to redo them.
sqlite3 "$tmp/results/sweep.db" "UPDATE runs SET source_commit = 'older'" || fail "sqlite3"
sh "$src/experiments/main-job.sh" "$gar" --out "$tmp/results" >"$tmp/kept" 2>"$tmp/err" \
    || fail "the main job over another build's runs failed: $(tail -n 5 "$tmp/err")"
grep -q '^  other_builds: 792 ' "$tmp/kept" && grep -q 'sweep.db aside and run the job again' "$tmp/kept" \
    || fail "the main job does not say it kept another build's runs: $(grep -A2 'wall_s' "$tmp/kept" | tail -3)"

# A database an older gar left in the results folder is set aside, not lost,
# and the job runs anew beside it.
mkdir "$tmp/older"
sqlite3 "$tmp/older/sweep.db" "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    INSERT INTO meta VALUES ('schema_version', '1');" || fail "could not make an older database"
sh "$src/experiments/main-job.sh" "$gar" --out "$tmp/older" >"$tmp/third" 2>"$tmp/err" \
    || fail "the main job on an older database failed: $(tail -n 5 "$tmp/err")"
grep -q 'set aside as' "$tmp/third" || fail "the job did not say it set the older database aside"
[ "$(sqlite3 "$tmp/older"/sweep.db.old-* "SELECT value FROM meta")" = 1 ] \
    || fail "the older database was not kept as it was"
grep -q '^  ran: 720$' "$tmp/third" || fail "the job did not run anew beside the older database"

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
