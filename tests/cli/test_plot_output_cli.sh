#!/bin/sh
# tests/cli/test_plot_output_cli.sh GAR — `gar plot` and `gar report` write
# all of their files or none: on a full disk (a 600 kB tmpfs, where mounting
# is permitted), under a file size limit (any user), and on a refusal that
# comes late (metrics edited after the sweep, a trace deleted, a host profile
# that no longer parses, an 'ok' row without metrics).  Skips (77) without
# gnuplot or the sqlite3 command.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }
unmount_at_exit # a killed test still unmounts its tmpfs

# untouched DIR: DIR is absent, or holds exactly the one file 'keep' (with
# 'old' in it) that the test put there.
untouched() {
    if [ -d "$1" ]; then
        [ "$(ls -A "$1")" = keep ] && [ "$(cat "$1/keep")" = old ] \
            || fail "$2 changed its output folder: $(ls -A "$1" | tr '\n' ' ')"
    fi
}

# whole_pngs DIR: every PNG in DIR ends with its IEND chunk.
whole_pngs() {
    for f in "$1"/*.png; do
        [ "$(tail -c 12 "$f" | od -An -tx1 | tr -d ' \n')" = 0000000049454e44ae426082 ] \
            || fail "$f is cut short"
    done
}

# A file trace (so that it can be deleted) and a generated one.
"$gar" gen steady --waits 60 --seed 4 --out "$tmp/steady.csv" >/dev/null || fail "gen"
FLAGDL="flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"
cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace steady.csv gen:jitter:waits=60,seed=2
plan block poll $FLAGDL
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1 2
SPEC
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/a.db" --quiet

# The reference: what a complete plot and report write.
expect 0 "$gar" plot --db "$tmp/a.db" --out "$tmp/ref" --trace steady
whole_pngs "$tmp/ref"
expect 0 "$gar" report --db "$tmp/a.db" --out "$tmp/refrep"
whole_pngs "$tmp/refrep"
[ -s "$tmp/refrep/report.html" ] || fail "no report.html"
ls -A "$tmp/ref" "$tmp/refrep" | grep -q 'gar-stage' && fail "a staging folder stayed behind"

# A run killed before its end (kill -9) leaves its staging folder, with
# gar's marker whose lock its run held: the next plot and report into the
# folder remove it.  A concurrent run's (its marker locked, here by this
# shell through util-linux flock, whatever PID its name gives) stays, and
# so does a folder named like one but without the marker (a user's).
host=$(printf %s "$(uname -n)" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-64)
gone=$(sh -c 'echo $$')
marker_text='gar staging folder: its owner holds a lock on this file'
mkdir "$tmp/again"
live="$tmp/again/.gar-stage-$gone-$host-Qq1234"
mkdir "$live"
printf '%s\n' "$marker_text" >"$live/.gar-owner"
held=no
if command -v flock >/dev/null 2>&1; then
    exec 9<"$live/.gar-owner"
    flock -x 9 && held=yes
fi
user="$tmp/again/.gar-stage-$gone-$host-Us3r00"
mkdir "$user"
: >"$user/thesis.tex"
for verb in plot report; do
    killed="$tmp/again/.gar-stage-$gone-$host-Ab3xYz"
    mkdir "$killed"
    printf '%s\n' "$marker_text" >"$killed/.gar-owner"
    : >"$killed/pareto-dev-vm-open.png"
    expect 0 "$gar" $verb --db "$tmp/a.db" --out "$tmp/again"
    [ ! -e "$killed" ] || fail "$verb left a killed run's staging folder"
    [ "$held" = no ] || [ -e "$live/.gar-owner" ] ||
        fail "$verb removed a running run's staging folder"
    [ -e "$user/thesis.tex" ] || fail "$verb emptied a folder gar did not make"
done
exec 9<&-
rm -r "$live" "$user"

# --- a full disk: a 600 kB tmpfs (root only; skipped elsewhere) ---
mkdir "$tmp/full"
if mount -t tmpfs -o size=600k gar-test "$tmp/full" 2>/dev/null; then
    mounted="$tmp/full"
    # Leave FREE kB free, then plot into it.
    for free in 60 4; do
        rm -rf "$tmp/full"/*
        dd if=/dev/zero of="$tmp/full/filler" bs=1k count=$((600 - free)) 2>/dev/null
        mkdir "$tmp/full/out"
        echo old >"$tmp/full/out/keep"
        expect 2 "$gar" plot --db "$tmp/a.db" --out "$tmp/full/out" --trace steady
        grep -q 'error 12 (Io)' "$tmp/err" || fail "a full disk ($free kB free) is not a coded error: $(cat "$tmp/err")"
        untouched "$tmp/full/out" "plot on a full disk ($free kB free)"
        expect 2 "$gar" report --db "$tmp/a.db" --out "$tmp/full/out"
        untouched "$tmp/full/out" "report on a full disk ($free kB free)"
        expect 2 "$gar" plot --db "$tmp/a.db" --out "$tmp/full/new" --trace steady
        [ ! -e "$tmp/full/new" ] || fail "a plot refused on a full disk left its new folder"
    done
else
    echo "tmpfs not mountable here: full-disk case skipped (the size limit below still runs)"
fi

# --- a file size limit: a write beyond it fails (EFBIG, SIGXFSZ ignored) ---
# The limit is 64 blocks of 512 bytes: room for SQLite's 32 kB shared-memory
# index and every script and data file, not for the larger PNGs (gnuplot
# exits 0 with a picture cut short there).
big=0
for f in "$tmp/ref"/*.png; do
    [ "$(wc -c <"$f")" -gt 32768 ] && big=1
done
if [ $big -eq 1 ]; then
    mkdir "$tmp/lim"
    echo old >"$tmp/lim/keep"
    expect 2 sh -c 'trap "" XFSZ; ulimit -f 64; exec "$@"' sh "$gar" plot --db "$tmp/a.db" --out "$tmp/lim" --trace steady
    grep -q 'not a whole PNG\|File too large' "$tmp/err" || fail "a cut PNG was not noticed: $(cat "$tmp/err")"
    untouched "$tmp/lim" "plot under a file size limit"
    expect 2 sh -c 'trap "" XFSZ; ulimit -f 64; exec "$@"' sh "$gar" report --db "$tmp/a.db" --out "$tmp/lim"
    untouched "$tmp/lim" "report under a file size limit"
else
    echo "every PNG fits in 32 kB here: size-limit case skipped"
fi

# --- late refusals: nothing written, an existing folder untouched ---
late() { # late WHAT: plot and report into a fresh and a used folder, both refused
    rm -rf "$tmp/late" "$tmp/used"
    mkdir "$tmp/used"
    echo old >"$tmp/used/keep"
    expect 2 "$gar" plot --db "$tmp/b.db" --out "$tmp/late" --trace steady
    grep -q "$2" "$tmp/err" || fail "$1: plot's refusal does not say '$2': $(cat "$tmp/err")"
    [ ! -e "$tmp/late" ] || fail "$1: a refused plot left $(ls -A "$tmp/late" | tr '\n' ' ')"
    [ ! -s "$tmp/out" ] || fail "$1: a refused plot printed '$(head -1 "$tmp/out")'"
    expect 2 "$gar" plot --db "$tmp/b.db" --out "$tmp/used" --trace steady
    untouched "$tmp/used" "$1: plot"
    expect 2 "$gar" report --db "$tmp/b.db" --out "$tmp/late"
    [ ! -e "$tmp/late" ] || fail "$1: a refused report left $(ls -A "$tmp/late" | tr '\n' ' ')"
    [ ! -s "$tmp/out" ] || fail "$1: a refused report printed '$(head -1 "$tmp/out")'"
    expect 2 "$gar" report --db "$tmp/b.db" --out "$tmp/used"
    untouched "$tmp/used" "$1: report"
}
# Metrics edited after the sweep: the re-run of a drawn run disagrees.
cp "$tmp/a.db" "$tmp/b.db"
sqlite3 "$tmp/b.db" "UPDATE runs SET overshoot_p99_ns = overshoot_p99_ns + 1 WHERE plan = 'poll'"
late "edited metrics" 'no longer gives its stored metrics (the run was made by this build'
# The same, from runs another build made (an older database): no refusal,
# the stored figures drawn, the per-wait figure of those runs left out and
# said, naming both builds.
sqlite3 "$tmp/b.db" "UPDATE runs SET gar_version = '0.0.1', source_commit = 'oldcommit' WHERE plan = 'poll'"
rm -rf "$tmp/older"
expect 0 "$gar" plot --db "$tmp/b.db" --out "$tmp/older" --trace steady
grep -q '^lacking: the overshoot CDF of plan poll (estimator -) on trace steady, .*made by gar 0.0.1, source oldcommit; this is gar ' \
    "$tmp/out" || fail "another build's runs: plot does not say what it lacks: $(cat "$tmp/out")"
[ -s "$tmp/older/cdf-steady-dev-vm-open.png" ] || fail "another build's runs: the other plans' CDF was not drawn"
# A host profile that no longer parses.
cp "$tmp/a.db" "$tmp/b.db"
sqlite3 "$tmp/b.db" "UPDATE hosts SET profile = 'gar-host v1' || char(10) || 'nonsense here'"
late "a bad host profile" 'error 15'
# An 'ok' row without metrics.
cp "$tmp/a.db" "$tmp/b.db"
sqlite3 "$tmp/b.db" "UPDATE runs SET busy_frac = NULL WHERE id = (SELECT max(id) FROM runs)"
late "an ok row without metrics" 'metrics are missing'
# The trace file deleted after the sweep (last: a.db needs it above).
cp "$tmp/a.db" "$tmp/b.db"
rm "$tmp/steady.csv"
late "a deleted trace" 'steady.csv'

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
