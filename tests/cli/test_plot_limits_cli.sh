#!/bin/sh
# tests/cli/test_plot_limits_cli.sh GAR DATA — a plot shows every arm of a
# large database or refuses it whole: 65 traces of 17 plans (1105 arms)
# draw 65 pareto panels of 17 arms each and a CDF of all 17 plans (a
# pareto plot once refused its 65th trace, and a CDF silently drew its
# first 16 plans); 81 plans in one plot, more than the styles that tell
# them apart, are refused with a coded error and no file.  Skips (77)
# without gnuplot.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$2" && pwd)
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }

cat >"$tmp/many.sweep" <<SPEC
gar-sweep v1
trace gen:jitter:waits=30,seed={1..65}
plan poll+predict:margin_us={10..170..10},min_sleep_us=20,max_sleep_us=50000,window=8
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/many.sweep" --db "$tmp/many.db" --quiet
expect 0 "$gar" plot --db "$tmp/many.db" --out "$tmp/many"
pareto="$tmp/many/pareto-dev-vm-open.dat"
if [ -f "$pareto" ]; then
    panels=$(grep -c '^# trace ' "$pareto")
    [ "$panels" -eq 65 ] || fail "the pareto plot has $panels panels, not one per trace (65)"
    # An arm's row ends with its quoted "plan / estimator".
    arms=$(grep -c ' "poll+predict margin_us=[0-9]* / adl"$' "$pareto")
    [ "$arms" -eq 1105 ] || fail "the pareto plot draws $arms arms of 1105"
    grep -q "index 128 " "$tmp/many/pareto-dev-vm-open.gp" \
        || fail "the pareto script draws no 65th panel (index 128)"
else
    fail "no pareto plot of 65 traces"
fi
cdf=$(ls "$tmp/many"/cdf-*-dev-vm-open.dat 2>/dev/null | head -1)
if [ -n "$cdf" ]; then
    plans=$(grep -c '^# plan ' "$cdf")
    [ "$plans" -eq 17 ] || fail "the CDF draws $plans plans of 17"
    # The key's names are escaped for gnuplot (gnuplot_text.h): margin\_us.
    grep -qF 'margin\_us=170 / adl' "${cdf%.dat}.gp" || fail "the CDF's key lacks the 17th plan"
else
    fail "no CDF plot"
fi

# One trace of 17 plans: its CDF draws all 17.
sed -e 's/seed={1..65}/seed=1/' "$tmp/many.sweep" >"$tmp/one.sweep"
expect 0 "$gar" sweep "$tmp/one.sweep" --db "$tmp/one.db" --quiet
expect 0 "$gar" plot --db "$tmp/one.db" --out "$tmp/one"
plans=$(cat "$tmp/one"/cdf-*-dev-vm-open.dat 2>/dev/null | grep -c '^# plan ')
[ "$plans" -eq 17 ] || fail "the CDF of one trace draws $plans plans of 17"

# 81 plans on one trace: more than the 80 styles a plot tells apart.
sed -e 's/seed={1..65}/seed=1/' -e 's/{10..170..10}/{10..810..10}/' "$tmp/many.sweep" \
    >"$tmp/wide.sweep"
expect 0 "$gar" sweep "$tmp/wide.sweep" --db "$tmp/wide.db" --quiet
expect 2 "$gar" plot --db "$tmp/wide.db" --out "$tmp/wide"
grep -q '^error 10 (CapacityExceeded): plans in one pareto plot is full (capacity 80)' "$tmp/err" \
    || fail "81 plans were not refused as too many: $(cat "$tmp/err")"
[ ! -e "$tmp/wide" ] || fail "a refused plot left its folder: $(ls -A "$tmp/wide")"

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
