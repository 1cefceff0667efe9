#!/bin/sh
# experiments/main-job.sh — gar's main job: the bundled sweep, its database,
# its plots and its report, in one results folder.
#
#   sh experiments/main-job.sh GAR_BINARY [--out DIR] [--jobs N]
#
# Runs data/sweeps/default.sweep and the small ranged data/sweeps/ranges.sweep
# (whose swept margin and what-if host give the report its parameter plots)
# into DIR/sweep.db (DIR: results/ by
# default), draws the plots and writes DIR/report.html, then prints where they
# are and, per trace and host, the winning arm against poll and block.  Then
# data/sweeps/auto.sweep into DIR/auto.db, and how auto:p99_us=B fares
# against the best fixed arm (DIR/auto-goals.html, .txt and auto-HOST-MODE.png,
# `gar auto-goals`); and the same for data/sweeps/real.sweep, the workloads
# shaped like production, into DIR/real.db and DIR/real/.  The
# sweep resumes what a killed run left, so the job is safe to rerun: a second
# run only redraws the plots and the report.
set -eu

usage() {
    echo "usage: sh scripts/main-job [--out DIR] [--jobs N]   (sets gar up first)"
    echo "       sh experiments/main-job.sh GAR_BINARY [--out DIR] [--jobs N]"
    echo "  --out DIR   the results folder (default: results)"
    echo "  --jobs N    the sweep's worker threads (default: the online cores)"
}
refuse() {
    usage >&2
    exit 2
}

[ $# -ge 1 ] || refuse
case $1 in -h | --help) usage; exit 0 ;; esac
gar=$1
shift
out=results
jobs=""
while [ $# -gt 0 ]; do
    case $1 in
    --out) [ $# -ge 2 ] || refuse; out=$2; shift 2 ;;
    --jobs) [ $# -ge 2 ] || refuse; jobs="--jobs $2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) refuse ;;
    esac
done
[ -x "$gar" ] || { echo "main-job: no gar binary at $gar (build it first)" >&2; exit 2; }

here=$(cd "$(dirname "$0")/.." && pwd)
spec="$here/data/sweeps/default.sweep"
ranges="$here/data/sweeps/ranges.sweep"
auto="$here/data/sweeps/auto.sweep"
real="$here/data/sweeps/real.sweep"
mkdir -p "$out"
db="$out/sweep.db"

started=$(date +%s)
echo "main-job: sweep $spec into $db"
# The results folder is the main job's own: a database that a gar of another
# schema left there is set aside (never deleted) and the sweep starts anew.
# Progress and errors still reach the terminal; the errors are kept to be read.
sweep() {
    # shellcheck disable=SC2086 # $jobs is an option and its value, or nothing
    ( "$gar" sweep "${1:-$spec}" --db "${2:-$db}" $jobs 2>&1 >"$out/sweep.txt"; echo $? >"$out/sweep.rc" ) |
        tee "$out/sweep.err" >&2
    rc=$(cat "$out/sweep.rc")
    rm -f "$out/sweep.rc"
    [ "$rc" -eq 0 ]
}
if ! sweep; then
    if [ -f "$db" ] && grep -q 'schema version' "$out/sweep.err"; then
        aside="$db.old-$(date +%Y%m%d%H%M%S)"
        mv "$db" "$aside"
        echo "main-job: $db is of another gar's schema; set aside as $aside"
        sweep || exit 2
    else
        exit 2
    fi
fi
rm -f "$out/sweep.err"
grep -E '^(runs|present|ran|failed|wall_s|storage_share|status):' "$out/sweep.txt" | sed 's/^/  /'
echo "main-job: sweep $ranges into $db"
sweep "$ranges" || exit 2
rm -f "$out/sweep.err"
grep -E '^(runs|present|ran|failed|wall_s|status):' "$out/sweep.txt" | sed 's/^/  /'
# Runs already in the database are kept, whichever gar made them: say so, or
# an upgraded gar would report an older one's runs (without what it added,
# such as intervals and notes) as if they were its own.
if grep -q '^other_builds:' "$out/sweep.txt"; then
    grep '^other_builds:' "$out/sweep.txt" | sed 's/^/  /'
    echo "main-job: those runs were kept, not run again: to run every one with this gar, move"
    echo "  $db aside and run the job again"
fi

# auto:p99_us=B beside every fixed plan, in a database of its own (its grid
# of fixed arms would crowd the report's), and the goals it is held to.
auto_db="$out/auto.db"
echo "main-job: sweep $auto into $auto_db"
sweep "$auto" "$auto_db" || exit 2
rm -f "$out/sweep.err"
grep -E '^(runs|present|ran|failed|wall_s|status):' "$out/sweep.txt" | sed 's/^/  auto /'
"$gar" auto-goals --db "$auto_db" --out "$out" >"$out/auto-goals.txt"

# The same goals on workloads shaped like production (kernel-mode queues,
# mixes, the long profiler imports: data/sweeps/real.sweep), in a folder of
# their own: auto-goals names its page and plots the same in each.
real_db="$out/real.db"
mkdir -p "$out/real"
echo "main-job: sweep $real into $real_db"
sweep "$real" "$real_db" || exit 2
rm -f "$out/sweep.err"
grep -E '^(runs|present|ran|failed|wall_s|status):' "$out/sweep.txt" | sed 's/^/  real /'
"$gar" auto-goals --db "$real_db" --out "$out/real" >"$out/real/auto-goals.txt"

echo "main-job: plots and report into $out"
"$gar" report --db "$db" --auto-db "$auto_db" --out "$out" > "$out/report.txt"
finished=$(date +%s)

echo
echo "results (in $(( finished - started )) s):"
echo "  database  $db"
echo "  report    $out/report.html"
echo "  plots     $out/*.png (each beside its gnuplot script, NAME.gp)"
echo
echo "winner per trace and host by the rule '$(sed -n 's/^rule: //p' "$out/report.txt")'"
echo "(lowest busy CPU among the arms within max(10 %, 2 us) of the best p99"
echo "overshoot; arms whose seeds' spread overlaps the winner's are tied, and"
echo "a tied winner is named with what broke the tie; see the report for every arm):"
sed -n 's/^winner: //p' "$out/report.txt" | LC_ALL=C awk -F ' [|] ' '
    # Columns as wide as their longest entry: traces and what-if hosts have long names.
    # Widths count characters, not bytes: a UTF-8 continuation byte (µ, the
    # en dash) takes no column of its own, or every row after it would shift.
    function width(v,  t) { t = v; gsub(/[\200-\277]/, "", t); return length(t) }
    function pad(v, c) { return v sprintf("%" (w[c] - width(v) + 2) "s", "") }
    function keep(c, v) { cell[n, c] = v; if (width(v) > w[c]) w[c] = width(v) }
    { n++; keep(1, $1); keep(2, $2); keep(3, substr($9, 7)); keep(4, $4)
      keep(5, substr($5, 5)); keep(6, substr($6, 6)); keep(7, $10)
      keep(8, substr($7, 7)); keep(9, substr($8, 8)) }
    END {
      split("trace host waits winner p99 busy verdict poll block", head, " ")
      for (c = 1; c <= 9; c++) if (length(head[c]) > w[c]) w[c] = length(head[c])
      line = "  "; for (c = 1; c <= 9; c++) line = line pad(head[c], c)
      sub(/ +$/, "", line); print line
      for (i = 1; i <= n; i++) {
        line = "  "; for (c = 1; c <= 9; c++) line = line pad(cell[i, c], c)
        sub(/ +$/, "", line); print line
      }
    }'

echo
echo "auto:p99_us=B against the ex-post best fixed arm ($out/auto-goals.html says what"
echo "budget auto meets per trace and host, at what CPU; $out/auto-goals.txt has every"
echo "trace x host x budget; gar auto-goals --help says how it is judged):"
grep '^goal' "$out/auto-goals.txt" | sed 's/^/  /'
echo
echo "the same on workloads shaped like production ($out/real/auto-goals.html;"
echo "data/sweeps/real.sweep: kernel-mode queues, mixes and the long profiler imports):"
grep '^goal' "$out/real/auto-goals.txt" | sed 's/^/  /'
