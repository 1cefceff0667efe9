#!/bin/sh
# tests/cli/test_report_cli.sh GAR DATA — what `gar report` shows a reader:
# arms named by what tells them apart (never a database-wide number),
# trace names drawn as they are, the seeds' spread and the waits of a run,
# 95 % intervals where the runs stored them (and a word where they did not),
# ties where intervals overlap with the reason a tied winner won, and every
# run's notes flagged beside its arm and listed by --notes.  Skips (77)
# without gnuplot or the sqlite3 command.
set -u
. "$(dirname "$0")/lib.sh"
data=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }

"$gar" gen steady --waits 80 --seed 4 --out "$tmp/hta_alexnet.csv" >/dev/null || fail "gen"
PP="min_sleep_us=20,max_sleep_us=50000,window=8"
cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace hta_alexnet.csv gen:jitter:waits=80,seed=2
plan block poll poll+predict:margin_us=50,$PP poll+predict:margin_us=150,$PP
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1 2 3
SPEC
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/a.db" --quiet
db="$tmp/a.db"

# --- runs made without intervals (as a database from before schema 4) ---
sqlite3 "$db" "UPDATE runs SET ci_level = NULL" || fail "sqlite3"
expect 0 "$gar" report --db "$db" --out "$tmp/r1"
html="$tmp/r1/report.html"
grep -q 'No run here stored its 95 % intervals' "$html" || fail "the report does not say the intervals are missing"
grep -q '95 % [0-9]' "$html" && fail "the report shows intervals it does not have"
# Names: the margins tell the two poll+predict plans apart; no numbering.
grep -q 'poll+predict margin_us=50 / adl' "$html" || fail "no 'poll+predict margin_us=50 / adl' in the report"
grep -q "title 'poll+predict margin\\\\_us=150'" "$tmp/r1/pareto-dev-vm-open.gp" \
    || fail "the pareto legend does not name the margin"
grep -q 'predict#' "$html" "$tmp/r1"/*.gp "$tmp/out" && fail "a plan is still named by a number"
# The trace name is escaped for the single quotes it sits in, once.
grep -q "set title 'hta\\\\_alexnet'" "$tmp/r1/pareto-dev-vm-open.gp" \
    || fail "the panel title of hta_alexnet is not escaped for single quotes: $(grep 'set title' "$tmp/r1/pareto-dev-vm-open.gp" | head -2)"
grep -q 'hta\\\\_alexnet' "$tmp/r1/cdf-hta_alexnet-dev-vm-open.gp" \
    || fail "the CDF title of hta_alexnet is not escaped for double quotes"
# Spread, waits, the overview of ties, error bars.
grep -q '80 waits a run' "$html" || fail "the trace's waits are not shown"
grep -q 'Winners and ties' "$html" || fail "no table of winners and ties"
grep -q '<small>seeds [0-9.]*–[0-9.]* µs</small>' "$html" || fail "no seed spread beside the figures"
grep -q 'xyerrorbars' "$tmp/r1/pareto-dev-vm-open.gp" || fail "the pareto points have no error bars"
# Every winner line ends with the waits and a verdict.
[ "$(grep -c '^winner: ' "$tmp/out")" -eq 2 ] || fail "not one winner line per trace"
grep '^winner: ' "$tmp/out" | grep -vqE '\| waits 80 \| (clear|tied: [0-9]+ within noise, (lower busy|lower p99|earlier plan))$' \
    && fail "a winner line lacks its waits or verdict: $(grep '^winner: ' "$tmp/out")"

# --- intervals stored: shown, and where no upper end exists, every arm ties ---
sqlite3 "$db" "UPDATE runs SET ci_level = 0.95,
    overshoot_p50_lo_ns = overshoot_p50_ns / 2, overshoot_p50_hi_ns = overshoot_p50_ns * 2,
    overshoot_p90_lo_ns = overshoot_p90_ns / 2, overshoot_p90_hi_ns = overshoot_p90_ns * 2,
    overshoot_p99_lo_ns = 0, overshoot_p99_hi_ns = NULL WHERE status = 'ok'" || fail "sqlite3"
expect 0 "$gar" report --db "$db" --out "$tmp/r2" --rule p99
html="$tmp/r2/report.html"
grep -q 'stored its 95 % intervals\|without stored 95 % intervals' "$html" && fail "the report says intervals are missing"
grep -q '<small>95 % [0-9.]*–[0-9.]* µs</small>' "$html" || fail "no 95 % interval beside p50"
grep -q '95 % no bound (too few waits)' "$html" || fail "an interval with neither end is not said"
grep -q '95 % 0 µs – no upper bound' "$html" && fail "an interval with neither end reads as 0 µs to infinity"
grep -q 'A bar that runs off the right edge has no upper end' "$html" \
    || fail "the pareto caption does not say why a bar runs off the plot"
grep -q 'runs off the right edge' "$tmp/r1/report.html" \
    && fail "the pareto caption speaks of unbounded bars where no run stored an interval"
# 80 waits give no p99 upper bound, so no arm could be told apart on it: the
# rule ranks by the p90 they do bound (from 36 waits), and says so.
[ "$(grep -c '; ranked by p90: no p99 is bounded from 80 waits (a p99 needs 368)$' "$tmp/out")" -eq 2 ] \
    || fail "unbounded p99s: not ranked by p90: $(grep '^winner' "$tmp/out")"
grep -q '| tied: 4 within noise' "$tmp/out" \
    && fail "unbounded p99s still tie every policy: $(grep '^winner' "$tmp/out")"
grep -q 'Winner: <b>[^<]*</b> (tied winner, lower busy)' "$html" || fail "the report does not name a tied winner"
grep -q '<td>tied (within noise)</td>' "$html" || fail "the table does not mark the tied arms"
# What the page says of the intervals is what the replay says: a p99 needs 368 waits.
grep -q 'a p99 from fewer than 368 waits has no upper end' "$html" \
    || fail "the page's bound on a p99's waits is not the replay's 368"
# Under the default rule the latency against block is the p90 the group was
# ranked by, which its intervals tell apart, and the verdict says why.
expect 0 "$gar" report --db "$db" --out "$tmp/r2b"
grep -q "Winner: <b>[^<]*</b> [^;]*; p90 [^<;]* against block's [^<;]* less\\. .*Verdict: [^<]*; ranked by p90: no p99 is bounded from 80 waits (a p99 needs 368)\\." "$tmp/r2b/report.html" \
    || fail "the winner's savings are not on the ranked p90: $(grep -o 'Winner:.*' "$tmp/r2b/report.html" | head -1)"

# --- notes: flagged beside the arm and listed by --notes ---
sqlite3 "$db" "INSERT INTO run_notes SELECT trace, plan, estimator, host, mode, seed,
    'rarely_slept', 70, NULL, 'predict slept before 10 of 80 waits: the prediction was too short'
    FROM runs WHERE plan LIKE 'poll+predict:margin_us=50,%' AND status = 'ok'" || fail "sqlite3"
expect 0 "$gar" report --db "$db" --out "$tmp/r3"
grep -q 'rarely_slept</span>&nbsp;×3' "$tmp/r3/report.html" || fail "the note is not flagged beside its arm"
grep -q 'seed 2: predict slept before 10 of 80 waits' "$tmp/r3/report.html" \
    || fail "the note's message is not on the page"
expect 0 "$gar" report --db "$db" --notes
[ "$(grep -c '^note: .* | poll+predict margin_us=50 / adl | seed [123] | rarely_slept | 70 waits | predict slept' "$tmp/out")" -eq 6 ] \
    || fail "--notes does not list the six notes: $(head -3 "$tmp/out")"
[ "$(sed -n 's/^notes: //p' "$tmp/out")" -eq "$(grep -c '^note: ' "$tmp/out")" ] \
    || fail "--notes does not count what it lists"
grep -q '^winner:' "$tmp/out" && fail "--notes without --out printed a report"
# A failed seed is a note too.
sqlite3 "$db" "UPDATE runs SET status = 'failed', error_code = 7, error = 'scripted failure',
    busy_frac = NULL WHERE plan = 'block' AND seed = 2" || fail "sqlite3"
expect 0 "$gar" report --db "$db" --notes
grep -q '^note: .* | block | seed 2 | failed | 1 wait | the run failed: error 7: scripted failure$' "$tmp/out" \
    || fail "a failed seed is not listed: $(grep failed "$tmp/out")"

# --- a run whose estimator never predicted: its prediction plot says so ---
# Each wait at a point of its own (as a short profiler trace gives): adl
# never has a sample, so no wait is predicted.
printf '# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n1,0,0,20000\n2,0,30000,50000\n3,110000,130000,156000\n4,160000,170000,222000\n' \
    >"$tmp/unique.csv"
cat >"$tmp/u.sweep" <<SPEC
gar-sweep v1
trace unique.csv
plan poll poll+predict:margin_us=5,$PP
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/u.sweep" --db "$tmp/u.db" --quiet
expect 0 "$gar" report --db "$tmp/u.db" --out "$tmp/ru"
grep -q '<figcaption>Run [0-9]* .*None of its 4 waits had a prediction' "$tmp/ru/report.html" \
    || fail "an empty prediction plot is not said to be empty: $(grep -o '<figcaption>Run [^<]*' "$tmp/ru/report.html")"
grep -q 'None of its' "$tmp/r3/report.html" && fail "a prediction plot with predictions is said to have none"

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
