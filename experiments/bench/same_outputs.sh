#!/bin/sh
# experiments/bench/same_outputs.sh GAR_BEFORE GAR_AFTER [KEEP_DIR] — do two
# builds of gar give the main job the same answers?  The check behind a
# change that promises no change in behaviour (a split, a move, a rename).
#
# Runs the main job (experiments/main-job.sh, this checkout's sweeps) once
# with each binary, on one worker thread so that run ids follow the spec's
# order, then compares:
#   - every text file it writes (report.txt, report.html, auto-goals.*,
#     the plots' gnuplot scripts and data), after replacing each results
#     folder's path by OUT and each build's source commit by SRC;
#   - a dump of each database (sweep.db, auto.db, real.db) after blanking
#     what says when and by which build a row was made: runs.run_ns,
#     runs.finished_unix, runs.source_commit, and the meta rows
#     source_commit and created_unix.
# Images are not compared: gnuplot draws them from the scripts and data
# compared above, nor sweep.txt, the last sweep's timings.  Prints `same: FILE` or `differs: FILE` per file, then
# `verdict: same` (exit 0) or `verdict: differs` (exit 1).  Exit 2 when a
# binary is missing or a main job fails.  KEEP_DIR, if given, keeps both
# results folders (before/ and after/) there; otherwise they are removed.
set -eu
[ $# -ge 2 ] || { echo "usage: same_outputs.sh GAR_BEFORE GAR_AFTER [KEEP_DIR]" >&2; exit 2; }
for gar in "$1" "$2"; do
    [ -x "$gar" ] || { echo "same_outputs: no gar binary at $gar" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -ge 3 ]; then
    work=$3
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
rm -rf "$work/before" "$work/after"

for side in before after; do
    if [ "$side" = before ]; then gar=$1; else gar=$2; fi
    echo "same_outputs: main job with $gar into $work/$side" >&2
    sh "$here/experiments/main-job.sh" "$gar" --out "$work/$side" --jobs 1 \
        >"$work/$side.log" 2>&1 || {
        echo "same_outputs: the main job failed with $gar; see $work/$side.log" >&2
        exit 2
    }
done

# The source commit that made SIDE's databases, as their meta table says.
source_of() {
    sqlite3 "$work/$1/sweep.db" "SELECT value FROM meta WHERE key = 'source_commit'"
}
src_before=$(source_of before)
src_after=$(source_of after)
# FILE SIDE: the file's text with what names its folder and build replaced.
normal_text() {
    if [ "$2" = before ]; then src=$src_before; else src=$src_after; fi
    sed -e "s#$work/$2#OUT#g" ${src:+-e "s#$src#SRC#g"} "$work/$2/$1"
}
# DB SIDE: a dump of the database with the rows' provenance blanked.
normal_dump() {
    copy="$work/$2.normal.db"
    cp "$work/$2/$1" "$copy"
    sqlite3 "$copy" "UPDATE runs SET run_ns = 0, finished_unix = 0, source_commit = '';
                     DELETE FROM meta WHERE key IN ('source_commit', 'created_unix');"
    sqlite3 "$copy" .dump
    rm -f "$copy"
}

verdict=same
# sweep.txt is the last sweep's own output: its timings, read by no one after.
listing() {
    (cd "$work/$1" && find . -type f ! -name '*.png' ! -name sweep.txt | sort)
}
files=$(listing after)
if [ "$files" != "$(listing before)" ]; then
    echo "differs: the two results folders hold different files"
    verdict=differs
fi
for f in $files; do
    [ -f "$work/before/$f" ] || continue
    case $f in
    *.db) normal_dump "$f" before >"$work/b.txt"; normal_dump "$f" after >"$work/a.txt" ;;
    *) normal_text "$f" before >"$work/b.txt"; normal_text "$f" after >"$work/a.txt" ;;
    esac
    if cmp -s "$work/b.txt" "$work/a.txt"; then
        echo "same: ${f#./}"
    else
        echo "differs: ${f#./}"
        verdict=differs
    fi
done
rm -f "$work/b.txt" "$work/a.txt"
echo "verdict: $verdict"
[ "$verdict" = same ]
