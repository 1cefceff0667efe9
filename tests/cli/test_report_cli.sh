#!/bin/sh
# tests/cli/test_report_cli.sh GAR DATA — what `gar report` shows a reader:
# arms named by what tells them apart (never a database-wide number),
# trace names drawn as they are, the seeds' spread and the waits of a run,
# 95 % intervals where the runs stored them (and a word where they did not),
# ties where intervals overlap with the reason a tied winner won, and every
# run's notes flagged beside its arm and listed by --notes; and what the
# plots and page show a reader: arms on one point ringed and listed, one
# colour a plan across plots, the CDF's tail on log-log axes, the budget
# plot a panel per trace, terms defined before use, figures without
# exponents.  Skips (77) without gnuplot or the sqlite3 command.
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

# --- what a reader sees: arms on one point, colours, tails, budgets, numbers ---
# poll+predict under `none` never sleeps: it is poll, drawn on poll's point.
"$gar" gen jitter --waits 80 --seed 5 --out "$tmp/second.csv" >/dev/null || fail "gen"
cat >"$tmp/c.sweep" <<SPEC
gar-sweep v1
trace hta_alexnet.csv second.csv
plan block poll poll+predict:margin_us=50,$PP
estimator adl none
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
cat >"$tmp/auto.sweep" <<SPEC
gar-sweep v1
trace hta_alexnet.csv second.csv
plan auto:p99_us={5,50} block poll poll+predict:margin_us=50,$PP
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/c.sweep" --db "$tmp/c.db" --quiet
expect 0 "$gar" sweep "$tmp/auto.sweep" --db "$tmp/auto.db" --quiet
expect 0 "$gar" report --db "$tmp/c.db" --auto-db "$tmp/auto.db" --out "$tmp/rc"
html="$tmp/rc/report.html"
gp="$tmp/rc/pareto-dev-vm-open.gp"
# Arms on one point are ringed with a tag and their count, and listed.
grep -q 'with labels' "$gp" && grep -q 'pt 6 ps' "$gp" || fail "coincident arms are not ringed in the pareto plot"
grep -q '"a×[0-9]*"' "$tmp/rc/pareto-dev-vm-open.dat" || fail "no tag×count for coincident arms in the pareto data"
grep -q '<li>hta_alexnet a ([0-9]* arms at p99 [^)]*): [^<]*poll; poll+predict / none' "$html" \
    || fail "the arms drawn on poll's point are not listed under the plot: $(grep -o '<li>[^<]*' "$html" | head -3)"
expect 0 "$gar" plot --db "$tmp/c.db" --out "$tmp/pc"
grep -q '^coincident: pareto-dev-vm-open.png | hta_alexnet a ([0-9]* arms at [^)]*): [^|]*poll; poll+predict / none' "$tmp/out" \
    || fail "gar plot does not list the arms drawn on one point: $(grep coincident "$tmp/out" | head -2)"
# A plan keeps its colour across plots: poll in the pareto legend, the CDF and the budget plot.
colour_of() { # colour_of FILE TITLE: the rgb colour of the first curve titled TITLE
    grep -o "lc rgb '#[0-9a-f]*' title '$2'" "$1" | head -1 | sed "s/.*'\\(#[0-9a-f]*\\)'.*/\\1/"
}
c1=$(colour_of "$gp" poll)
c2=$(colour_of "$tmp/rc/cdf-hta_alexnet-dev-vm-open.gp" poll)
c3=$(colour_of "$tmp/rc/auto-dev-vm-open.gp" poll)
[ -n "$c1" ] && [ "$c1" = "$c2" ] && [ "$c1" = "$c3" ] \
    || fail "poll is not one colour across the plots: pareto '$c1', CDF '$c2', budget '$c3'"
# The overshoot CDF shows its tail on log-log axes.
grep -q '^set logscale y' "$tmp/rc/cdf-hta_alexnet-dev-vm-open.gp" \
    || fail "the CDF plot has no log-scaled tail"
# The budget plot: one series per trace, never a mean over traces.
[ "$(grep -c '^# trace ' "$tmp/rc/auto-dev-vm-open.dat")" -eq 2 ] \
    || fail "the budget plot's data is not one block per trace: $(head -5 "$tmp/rc/auto-dev-vm-open.dat")"
grep -q "index 1 using 1:2" "$tmp/rc/auto-dev-vm-open.gp" || fail "the budget plot draws no second trace"
grep -qi 'mean over' "$tmp/rc/auto-dev-vm-open.gp" "$tmp/rc/auto-dev-vm-open.dat" \
    && fail "the budget plot still averages over traces"
# Terms come before their use: adl and the slack are defined in the block at the top.
terms=$(grep -n '<dl class="terms">' "$html" | head -1 | cut -d: -f1)
first_adl=$(grep -n 'adl' "$html" | head -1 | cut -d: -f1)
[ -n "$terms" ] && [ "$terms" -le "$first_adl" ] || fail "adl is used (line $first_adl) before the terms (line $terms)"
grep -q 'id="slack">slack, p99 outside the slack</dt><dd>Under this rule an arm is eligible when its p99 overshoot is within the slack of the best arm.s: the larger of 10 % of the best p99 and 2 µs' "$html" \
    || fail "the slack is not defined with the rule's figures"

# Numbers for people: a 50 ms wait makes block's busy CPU tiny; no cell
# writes it in exponent notation (%g wrote 2.4e-05 %).
"$gar" gen steady --waits 40 --seed 3 --param residual_us=50000 --out "$tmp/long.csv" >/dev/null || fail "gen"
cat >"$tmp/l.sweep" <<SPEC
gar-sweep v1
trace long.csv
plan block poll
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1 2
SPEC
expect 0 "$gar" sweep "$tmp/l.sweep" --db "$tmp/l.db" --quiet
expect 0 "$gar" report --db "$tmp/l.db" --out "$tmp/rl"
grep -oE '(<td[^>]*>|<small>)[^<]*' "$tmp/rl/report.html" | grep -E '[0-9]e[-+][0-9]' \
    && fail "a table cell is in exponent notation: $(grep -oE '(<td[^>]*>|<small>)[^<]*' "$tmp/rl/report.html" | grep -E '[0-9]e[-+][0-9]' | head -2)"
grep -q '<td>&lt;0.001 %<br><small>seeds &lt;0.001–&lt;0.001 %</small></td>' "$tmp/rl/report.html" \
    || fail "block's tiny busy CPU is not '<0.001 %': $(grep -o '<td>[^<]*%' "$tmp/rl/report.html" | head -4)"

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
