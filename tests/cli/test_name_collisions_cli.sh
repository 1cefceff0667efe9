#!/bin/sh
# tests/cli/test_name_collisions_cli.sh GAR DATA — two traces or two host
# profiles of other content that share a file name (`ta/t.csv` and
# `tb/t.csv`, `ma/gpu.host` and `mb/gpu.host`, two `host -` profiles
# merged) get short names of their own in one database (the name, '-' and 8
# hex digits of the content hash), so plot and report write a file for each
# rather than one over the other, and the page says where each came from.
# Skips (77) without gnuplot or the sqlite3 command.
set -u
. "$(dirname "$0")/lib.sh"
data=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }
q() { sqlite3 "$1" "$2"; }

mkdir "$tmp/ta" "$tmp/tb" "$tmp/ma" "$tmp/mb"
"$gar" gen steady --waits 60 --seed 1 --out "$tmp/ta/t.csv" >/dev/null || fail "gen ta"
"$gar" gen jitter --waits 60 --seed 2 --out "$tmp/tb/t.csv" >/dev/null || fail "gen tb"
cp "$data/hosts/dev-vm.host" "$tmp/ma/gpu.host"
cp "$data/hosts/waitpkg.host" "$tmp/mb/gpu.host"
cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace ta/t.csv tb/t.csv
plan block poll
estimator adl
host ma/gpu.host mb/gpu.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/s.db" --quiet
short() { # short TABLE KEY PATH: the short name the file at PATH must get
    echo "$3-$(q "$tmp/s.db" "SELECT substr($2, 1, 8) FROM $1 WHERE source LIKE '%/$4'")"
}
ha=$(short hosts host gpu ma/gpu.host)
hb=$(short hosts host gpu mb/gpu.host)
ta=$(short traces trace t ta/t.csv)
tb=$(short traces trace t tb/t.csv)
[ "$ha" != "$hb" ] && [ "$ta" != "$tb" ] || fail "the fixtures share a content hash"

expect 0 "$gar" report --db "$tmp/s.db" --out "$tmp/rep"
for h in "$ha" "$hb"; do
    [ -s "$tmp/rep/pareto-$h-open.png" ] || fail "report: no pareto plot of host $h ($(ls "$tmp/rep" | tr '\n' ' '))"
    for t in "$ta" "$tb"; do
        [ -s "$tmp/rep/cdf-$t-$h-open.png" ] || fail "report: no CDF of trace $t on host $h"
    done
done
[ "$(ls "$tmp/rep" | grep -c '\.png$')" -eq 6 ] || fail "report: not 6 plots: $(ls "$tmp/rep" | tr '\n' ' ')"
html="$tmp/rep/report.html"
for where in ma/gpu.host mb/gpu.host ta/t.csv tb/t.csv; do
    grep -q "from <code>[^<]*/$where</code>" "$html" || fail "the page does not say which is $where"
done
expect 0 "$gar" plot --db "$tmp/s.db" --out "$tmp/plots" --trace "$tb"
for h in "$ha" "$hb"; do
    grep -q "^png: $tmp/plots/cdf-$tb-$h-open.png$" "$tmp/out" || fail "plot: no CDF of $tb on $h"
done
expect 0 "$gar" report --db "$tmp/s.db" --notes
grep -q "^note: $tb | $ha | open |" "$tmp/out" || fail "report --notes does not name the hosts apart: $(head -3 "$tmp/out")"

# --- two `host -` profiles, each swept from standard input, merged ---
cat >"$tmp/in.sweep" <<SPEC
gar-sweep v1
trace ta/t.csv
plan poll
estimator adl
host -
mode open
seed 1
SPEC
"$gar" sweep "$tmp/in.sweep" --db "$tmp/i1.db" --quiet <"$data/hosts/dev-vm.host" >/dev/null \
    || fail "sweep from standard input (dev-vm)"
"$gar" sweep "$tmp/in.sweep" --db "$tmp/i2.db" --quiet <"$data/hosts/waitpkg.host" >/dev/null \
    || fail "sweep from standard input (waitpkg)"
expect 0 "$gar" merge "$tmp/m.db" "$tmp/i1.db" "$tmp/i2.db"
expect 0 "$gar" report --db "$tmp/m.db" --out "$tmp/repm"
[ "$(ls "$tmp/repm" | grep -c '^pareto-.*\.png$')" -eq 2 ] \
    || fail "two stdin hosts merged: not two pareto plots: $(ls "$tmp/repm" | tr '\n' ' ')"

[ "$failures" -eq 0 ] || exit 1
echo "name collisions: ok"
