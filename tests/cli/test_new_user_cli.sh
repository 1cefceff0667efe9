#!/bin/sh
# tests/cli/test_new_user_cli.sh GAR SOURCE_ROOT — `gar` as a new user meets
# it from the README: every verb's help, refusals that say what and where,
# inputs never overwritten, outputs that are whole or absent.
set -u
. "$(dirname "$0")/lib.sh"
root=$2
case $gar in /*) ;; *) gar=$(pwd)/$gar ;; esac # some checks run in other folders
unmount_at_exit # a killed test still unmounts its tmpfs

# err_has TEXT WHY: the last command's stderr contains TEXT.
err_has() {
    grep -q -- "$1" "$tmp/err" || fail "$2: stderr lacks '$1': $(head -c 300 "$tmp/err")"
}

# --- every verb answers -h and --help alike, on stdout, exit 0 ---
verbs=$("$gar" --help | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
[ -n "$verbs" ] || fail "gar --help lists no verbs"
for verb in $verbs; do
    expect 0 "$gar" "$verb" --help
    cp "$tmp/out" "$tmp/long"
    grep -q '^usage: gar' "$tmp/long" || fail "gar $verb --help shows no usage line"
    expect 0 "$gar" "$verb" -h
    cmp -s "$tmp/out" "$tmp/long" || fail "gar $verb -h differs from --help"
done

expect 0 "$gar" help help
grep -q '^verbs:' "$tmp/out" || fail "gar help help does not show the verbs"
expect 2 "$gar" help nosuch
err_has "^error 11 (Usage): help: no verb 'nosuch' (the verbs: 'gar --help')" "help of an unknown verb"

# --- -V and --version print one line, the version, alike ---
expect 0 "$gar" --version
grep -qx 'gar [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*' "$tmp/out" ||
    fail "gar --version printed '$(cat "$tmp/out")', not 'gar X.Y.Z'"
cp "$tmp/out" "$tmp/long"
expect 0 "$gar" -V
cmp -s "$tmp/out" "$tmp/long" || fail "gar -V differs from --version: $(cat "$tmp/out")"

# --- a result that cannot be written to standard output is a failure ---
if [ -w /dev/full ]; then
    for cmd in "--help" "probe" "plan poll" "gen steady --waits 3" \
               "replay $root/data/traces/steady.csv --plan poll --host $root/data/hosts/dev-vm.host"; do
        # shellcheck disable=SC2086 # each command is its words
        "$gar" $cmd >/dev/full 2>"$tmp/err"
        rc=$?
        [ "$rc" -eq 2 ] || fail "gar $cmd >/dev/full exited $rc, not 2"
        err_has "^error 12 (Io): cannot write 'standard output': No space left on device" \
            "gar $cmd >/dev/full"
        [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "gar $cmd >/dev/full: $(cat "$tmp/err")"
    done
fi

# --- an empty file name is refused before any work ---
expect 2 "$gar" gen steady --out=
err_has "^error 11 (Usage): gen: option '--out' needs a value, found an empty one" "gen --out="
expect 2 timeout 15 "$gar" calibrate --out ''
err_has "option '--out' needs a value" "calibrate --out ''"
expect 2 timeout 15 "$gar" verify --sweep "$root/data/sweeps/default.sweep" --db ''
err_has "^error 11 (Usage): verify: option '--db' needs a value, found an empty one" "verify --sweep --db ''"

# verify --sweep refuses a database that is not gar's before calibrating on the spot (~16 s)
cp "$root/data/traces/steady.csv" "$tmp/notdb.db"
expect 2 timeout 10 "$gar" verify --sweep "$root/data/sweeps/default.sweep" --db "$tmp/notdb.db"
err_has "^error 12 (Io): cannot open '$tmp/notdb.db': not a gar sweep database" "verify --sweep --db a trace"
cmp -s "$tmp/notdb.db" "$root/data/traces/steady.csv" || fail "verify --sweep changed a foreign --db"

# --- the main job's script answers --help, and names itself as run ---
sh "$root/experiments/main-job.sh" "$gar" --help >"$tmp/out" 2>"$tmp/err" ||
    fail "main-job.sh --help exited $?"
grep -q '^usage: sh scripts/main-job \[--out DIR\] \[--jobs N\]' "$tmp/out" ||
    fail "main-job.sh --help: $(cat "$tmp/out")"
sh "$root/experiments/main-job.sh" "$gar" --bogus >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] || fail "main-job.sh --bogus did not exit 2"
grep -q '^usage:' "$tmp/err" || fail "main-job.sh --bogus printed no usage on stderr"

# --- import never replaces its own input (any spelling, links too) ---
fixtures=$root/tests/fixtures
cp "$fixtures/kineto/float_ts.json.gz" "$tmp/p.json.gz"
cp "$tmp/p.json.gz" "$tmp/p.orig"
expect 2 "$gar" import kineto "$tmp/p.json.gz" --out "$tmp/p.json.gz"
err_has '^error 11 (Usage): import: --out' "import --out its input"
cmp -s "$tmp/p.json.gz" "$tmp/p.orig" || fail "import --out its input changed the input"
expect 2 "$gar" import kineto "$tmp/p.json.gz" --out "$tmp/./p.json.gz"
ln "$tmp/p.json.gz" "$tmp/hard.json.gz"
expect 2 "$gar" import kineto "$tmp/p.json.gz" --out "$tmp/hard.json.gz"
cmp -s "$tmp/p.json.gz" "$tmp/p.orig" || fail "import --out a hard link changed the input"
if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$tmp/r.sqlite" <"$fixtures/nsys/two_streams.sql"
    cp "$tmp/r.sqlite" "$tmp/r.orig"
    expect 2 "$gar" import nsys "$tmp/r.sqlite" --out "$tmp/r.sqlite"
    err_has 'would replace it' "import nsys --out its input"
    cmp -s "$tmp/r.sqlite" "$tmp/r.orig" || fail "import nsys --out its input changed it"
fi
expect 0 "$gar" import kineto "$tmp/p.json.gz" --out "$tmp/p.csv"

expect 2 "$gar" import nsys "$tmp/none.sqlite"
err_has "^error 12 (Io): cannot open '$tmp/none.sqlite': No such file or directory" "nsys missing"
[ -e "$tmp/none.sqlite" ] && fail "import nsys created the missing export"
expect 2 "$gar" import nsys "$tmp"
err_has "^error 12 (Io): cannot read '$tmp': Is a directory" "nsys of a folder"

# --- a profile without waits is refused at the file, saying what it lacks ---
echo '{"traceEvents": []}' >"$tmp/k5.json"
expect 2 "$gar" import kineto "$tmp/k5.json" --out "$tmp/k5.csv"
err_has "^error 13 (InvalidTrace): $tmp/k5.json: no host call waited" "no waits"
err_has "synchronize" "no waits names what is missing"
grep -q -- '-: column -' "$tmp/err" && fail "no waits gives a made-up place: $(cat "$tmp/err")"
[ -e "$tmp/k5.csv" ] && fail "a refused import wrote its --out"
echo '{"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize",
 "ts": 1, "dur": 2, "args": {"correlation": 1}}]}' >"$tmp/k9.json"
expect 2 "$gar" import kineto "$tmp/k9.json"
err_has "$tmp/k9.json: no host call waited for GPU work: none of its 1 synchronizing calls" \
    "syncs without work"
err_has "no gpu op 1" "syncs without work say why"

# --- a folder given as a spec or host profile is named as a folder ---
mkdir "$tmp/folder"
expect 2 "$gar" sweep "$tmp/folder" --db "$tmp/folder.db"
err_has "^error 12 (Io): cannot read '$tmp/folder': Is a directory" "sweep spec folder"
[ -e "$tmp/folder.db" ] && fail "a refused sweep created its database"
expect 2 "$gar" replay "$root/data/traces/steady.csv" --plan poll --host "$tmp/folder"
err_has "'$tmp/folder': Is a directory" "host profile folder"

# --- --out - is standard output (gen, import), never a file named '-' ---
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && "$gar" gen steady --waits 3 --out -) >"$tmp/dash.csv" 2>"$tmp/err" ||
    fail "gen --out - failed: $(cat "$tmp/err")"
expect 0 "$gar" gen steady --waits 3
cmp -s "$tmp/out" "$tmp/dash.csv" || fail "gen --out - is not the trace on standard output"
(cd "$tmp/cwd" && "$gar" import kineto "$root/tests/fixtures/kineto/float_ts.json" --out -) \
    >"$tmp/dash.csv" 2>"$tmp/err" || fail "import --out - failed: $(cat "$tmp/err")"
grep -q '^# gar-trace v1' "$tmp/dash.csv" || fail "import --out - wrote no trace to stdout"
[ -e "$tmp/cwd/-" ] && fail "--out - wrote a file named '-'"

# --- calibrate refuses an --out it cannot write before measuring (~40 s) ---
# Checked first, the refusal is immediate; measured first, it would come only
# after the measurement, long past this generous bound.
expect 2 timeout 15 "$gar" calibrate --out "$tmp/no/such/dir/x.host"
err_has "^error 12 (Io): cannot create a temporary file beside '$tmp/no/such/dir/x.host'" \
    "calibrate into a missing folder"
expect 2 timeout 15 "$gar" calibrate --out "$tmp/folder"
err_has "^error 12 (Io): cannot write '$tmp/folder': Is a directory" "calibrate onto a folder"
[ -z "$(find "$tmp" -name '*.tmp.*')" ] || fail "a refusal left a temporary file"

# --- replay: a missing default host says so; a fault past the last row is refused ---
steady=$root/data/traces/steady.csv
(cd "$tmp/cwd" && "$gar" replay "$steady" --plan poll) >"$tmp/out" 2>"$tmp/err" &&
    fail "replay found a default host in an empty folder"
err_has "cannot open 'data/hosts/dev-vm.host'.*default --host.*give --host PROFILE" \
    "missing default host"
err_has "bundled: .*/data/hosts/dev-vm.host" "missing default host names the bundled one"
rows=$(grep -c '^[0-9]' "$steady")
host=$root/data/hosts/dev-vm.host
expect 2 "$gar" replay "$steady" --plan poll --host "$host" --fault "hang@$rows"
err_has "^error 11 (Usage): replay: --fault row $rows is past the trace's last row" "fault past end"
expect 2 "$gar" replay "$steady" --plan poll --host "$host" --fault "hang@$((rows - 1))"
[ "$(head -c 9 "$tmp/err")" = "error 16 " ] || fail "a hang on the last row is not error 16"

# --- a sweep's last line says how many runs failed ---
printf '# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n1,0,0,1000\n%s\n' \
    '1,9223372036854775000,9223372036854775000,9223372036854775807' >"$tmp/max.csv"
cat >"$tmp/fails.sweep" <<SPEC
gar-sweep v1
trace $tmp/max.csv $steady
plan block
estimator adl
host $host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/fails.sweep" --db "$tmp/fails.db" --quiet --jobs 1
[ "$(tail -n 1 "$tmp/out")" = "status: done, 1 of 2 runs failed (stored with status 'failed' and their error; 'gar report' lists their arms)" ] ||
    fail "a sweep with a failed run ends '$(tail -n 1 "$tmp/out")'"
expect 0 "$gar" sweep "$tmp/fails.sweep" --db "$tmp/fails.db" --quiet --jobs 1
[ "$(tail -n 1 "$tmp/out")" = "status: nothing to do (all 2 runs of this shard are in $tmp/fails.db, which holds 1 failed runs)" ] ||
    fail "a rerun over a failed run ends '$(tail -n 1 "$tmp/out")'"

# --- plot and report into "DIR/" print paths with one slash ---
cat >"$tmp/small.sweep" <<SPEC
gar-sweep v1
trace $steady
plan block poll
estimator adl
host $host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/small.sweep" --db "$tmp/small.db" --quiet --jobs 1
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "$gar" plot --db "$tmp/small.db" --out "$tmp/plots/"
    grep -q "^png: $tmp/plots/pareto-" "$tmp/out" || fail "plot printed no pareto png: $(cat "$tmp/out")"
    grep -q '//' "$tmp/out" && fail "plot --out DIR/ printed doubled slashes: $(cat "$tmp/out")"
    expect 2 "$gar" plot --db "$tmp/small.db" --out "$tmp/plots" --trace nosuch
    err_has "argument --trace 'nosuch' names no trace of the database (its traces: steady)" \
        "plot of an unknown trace"
    expect 0 "$gar" report --db "$tmp/small.db" --out "$tmp/report//"
    grep -q "^report: $tmp/report/report.html$" "$tmp/out" ||
        fail "report --out DIR// printed '$(tail -n 1 "$tmp/out")'"
fi

# --- a database whose every run failed still plots and reports ---
if command -v gnuplot >/dev/null 2>&1; then
    sed "s|^trace .*|trace $tmp/max.csv|" "$tmp/fails.sweep" >"$tmp/allfail.sweep"
    expect 0 "$gar" sweep "$tmp/allfail.sweep" --db "$tmp/allfail.db" --quiet --jobs 1
    grep -q '^status: done, 1 of 1 runs failed' "$tmp/out" || fail "all-failed sweep: $(tail -n 1 "$tmp/out")"
    expect 0 "$gar" plot --db "$tmp/allfail.db" --out "$tmp/allfail-plots"
    [ -s "$tmp/err" ] && fail "plot of failed runs wrote to stderr: $(head -c 300 "$tmp/err")"
    expect 0 "$gar" report --db "$tmp/allfail.db" --out "$tmp/allfail-report"
    grep -q 'failed' "$tmp/allfail-report/report.html" || fail "the report does not show the failed arm"
fi

# --- a read-only folder (a tmpfs remounted read-only; root only) ---
# The database's folder is checked before the sweep (or verify's calibration
# on the spot) starts, and the refusal says why instead of SQLite's bare
# "unable to open database file"; a report only reads, so it runs.
mkdir "$tmp/ro"
if mount -t tmpfs -o size=1m gar-test "$tmp/ro" 2>/dev/null; then
    mounted="$tmp/ro"
    cp "$tmp/small.db" "$tmp/ro/old.db"
    mount -o remount,ro "$tmp/ro" || fail "cannot remount the tmpfs read-only"
    expect 2 "$gar" sweep "$tmp/small.sweep" --db "$tmp/ro/new.db" --quiet
    err_has "^error 12 (Io): .*'$tmp/ro/new.db': Read-only file system" "sweep into a read-only folder"
    expect 2 "$gar" sweep "$tmp/small.sweep" --db "$tmp/ro/old.db" --quiet
    err_has "Read-only file system" "sweep onto a database in a read-only folder"
    expect 2 timeout 15 "$gar" verify --sweep "$tmp/small.sweep" --db "$tmp/ro/new.db" --limit 10
    err_has "Read-only file system" "verify --sweep into a read-only folder"
    expect 2 "$gar" gen steady --waits 3 --out "$tmp/ro/x.csv"
    err_has "Read-only file system" "gen into a read-only folder"
    # Reading needs no writable folder (test_read_only_db_cli.sh has the rest).
    expect 0 "$gar" report --db "$tmp/ro/old.db" --out "$tmp/ro-report"
    [ "$(ls "$tmp/ro")" = "old.db" ] || fail "the read-only folder holds $(ls "$tmp/ro")"
    umount "$tmp/ro" && mounted=""
else
    echo "tmpfs not mountable here: read-only folder case skipped"
fi

# --- a profile given where a trace goes is told apart from a cut trace ---
# A gzip file is read as the text inside it (traces may be .csv.gz), so a
# compressed profile is refused as its JSON is.
expect 2 "$gar" replay "$fixtures/kineto/float_ts.json.gz" --plan poll --host "$host"
err_has "float_ts.json.gz:1: column 1: the first line must be '# gar-trace v1' (a profiler's trace is converted by 'gar import')" \
    "replay of a .gz"
grep -q "cut short" "$tmp/err" && fail "a .gz profile is called a cut trace: $(cat "$tmp/err")"
expect 2 "$gar" replay "$fixtures/kineto/float_ts.json" --plan poll --host "$host"
err_has "the first line must be '# gar-trace v1' (a profiler's trace is converted by 'gar import')" \
    "replay of a JSON profile"

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "ok"
