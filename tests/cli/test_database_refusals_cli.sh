#!/bin/sh
# tests/cli/test_database_refusals_cli.sh GAR — databases gar must not
# adopt or change: another program's SQLite file, refused by sweep, plot
# and report byte for byte unchanged (its journal mode included); merges
# refused as a whole before any output exists; a database merged into
# itself, by its name or through a hard link; and each run's gar build kept
# through a resume and a merge, and named by the report.
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }

cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace gen:steady:waits=40,seed=1
plan block poll
estimator adl
host $data/hosts/dev-vm.host
mode open
seed 1 2
SPEC

# --- another program's database: refused by every verb, left as it was ---
sqlite3 "$tmp/other.db" "CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x')"
cp "$tmp/other.db" "$tmp/other.orig"
[ "$(od -An -j19 -N1 -tu1 "$tmp/other.db" | tr -d ' ')" = 1 ] || fail "the plain file is not in rollback mode to begin with"
expect 2 "$gar" sweep "$tmp/s.sweep" --db "$tmp/other.db" --quiet
grep -q "error 12 (Io): cannot open '$tmp/other.db': not a gar sweep database.*songs" "$tmp/err" \
    || fail "sweep on another program's database not refused ($(cat "$tmp/err"))"
expect 2 "$gar" plot --db "$tmp/other.db" --out "$tmp/p"
grep -q 'not a gar sweep database' "$tmp/err" || fail "plot on another program's database not refused"
expect 2 "$gar" report --db "$tmp/other.db" --out "$tmp/r"
grep -q 'not a gar sweep database' "$tmp/err" || fail "report on another program's database not refused"
expect 2 "$gar" merge "$tmp/other.db" "$tmp/other.orig"
cmp -s "$tmp/other.db" "$tmp/other.orig" || fail "a refusal changed another program's database (byte 19: $(od -An -j19 -N1 -tu1 "$tmp/other.db"))"
[ "$(sqlite3 "$tmp/other.db" .tables)" = songs ] || fail "gar added tables to another program's database"
[ ! -e "$tmp/other.db-wal" ] || fail "a refusal left a write-ahead log beside the file"
[ ! -e "$tmp/p" ] && [ ! -e "$tmp/r" ] || fail "a refused plot or report made its folder"

# A file with a gar meta table (even the right schema version) but not
# gar's tables is another program's too: refused before any pragma.
sqlite3 "$tmp/impostor.db" "CREATE TABLE meta (key TEXT, value TEXT);
    INSERT INTO meta VALUES ('schema_version', '3'); CREATE TABLE customer (name TEXT)"
cp "$tmp/impostor.db" "$tmp/impostor.orig"
expect 2 "$gar" sweep "$tmp/s.sweep" --db "$tmp/impostor.db" --quiet
grep -q "error 12 (Io): cannot open '$tmp/impostor.db': not a gar sweep database.*lacks gar's table 'traces'" "$tmp/err" \
    || fail "sweep on a database with gar's meta only not refused ($(cat "$tmp/err"))"
for verb in plot report; do
    expect 2 "$gar" $verb --db "$tmp/impostor.db" --out "$tmp/ip"
    grep -q "not a gar sweep database.*lacks gar's table" "$tmp/err" \
        || fail "$verb on a database with gar's meta only not refused ($(cat "$tmp/err"))"
done
expect 2 "$gar" merge "$tmp/impostor.db" "$tmp/s-never.db"
expect 2 "$gar" merge "$tmp/im-out.db" "$tmp/impostor.db"
grep -q "cannot merge '$tmp/impostor.db': not a gar sweep database" "$tmp/err" \
    || fail "an input with gar's meta only not refused ($(cat "$tmp/err"))"
cmp -s "$tmp/impostor.db" "$tmp/impostor.orig" || fail "a refusal changed a database with gar's meta only"
[ ! -e "$tmp/impostor.db-wal" ] && [ ! -e "$tmp/ip" ] && [ ! -e "$tmp/im-out.db" ] \
    || fail "a refusal of a database with gar's meta only left files"

# A file that is not SQLite at all, and an empty one (a new database).
printf 'a text file, not a database at all, long enough for a header\n' >"$tmp/text.db"
cp "$tmp/text.db" "$tmp/text.orig"
expect 2 "$gar" sweep "$tmp/s.sweep" --db "$tmp/text.db" --quiet
cmp -s "$tmp/text.db" "$tmp/text.orig" || fail "a refused sweep changed a text file"
: >"$tmp/empty.db"
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/empty.db" --quiet

# --- merges: every input checked first, nothing written on a refusal ---
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/a.db" --quiet
expect 2 "$gar" merge "$tmp/out.db" "$tmp/a.db" "$tmp/missing.db"
grep -q "cannot merge '$tmp/missing.db'" "$tmp/err" || fail "a missing input is not named ($(cat "$tmp/err"))"
[ ! -s "$tmp/out" ] || fail "a refused merge printed '$(head -1 "$tmp/out")'"
ls "$tmp" | grep -q '^out\.db' && fail "a refused merge left $(ls "$tmp" | grep '^out\.db')"
expect 2 "$gar" merge "$tmp/out.db" "$tmp/a.db" "$tmp/other.db"
ls "$tmp" | grep -q '^out\.db' && fail "a merge refused for a foreign input left output"

# An existing output, then an input whose key has other results: the
# output keeps every byte, and no temporary file stays.
expect 0 "$gar" merge "$tmp/out.db" "$tmp/a.db"
grep -q '^added: 4$' "$tmp/out" || fail "the merge did not add 4 runs"
cp "$tmp/a.db" "$tmp/b.db"
sqlite3 "$tmp/b.db" "UPDATE runs SET overshoot_p99_ns = overshoot_p99_ns + 1 WHERE plan = 'poll';
                     UPDATE runs SET seed = seed + 10 WHERE plan = 'block'"
cp "$tmp/out.db" "$tmp/out.orig"
expect 2 "$gar" merge "$tmp/out.db" "$tmp/b.db"
grep -q 'other results' "$tmp/err" || fail "a conflicting input was not refused ($(cat "$tmp/err"))"
cmp -s "$tmp/out.db" "$tmp/out.orig" || fail "a refused merge changed its existing output"
[ "$(ls "$tmp" | grep -c 'merge-')" -eq 0 ] || fail "a refused merge left its temporary file"
[ "$(sqlite3 "$tmp/out.db" 'SELECT count(*) FROM runs')" -eq 4 ] || fail "the output lost or gained rows"

# A run whose runs row agrees but whose streams differ: refused too,
# naming the table, the output unchanged.
cp "$tmp/a.db" "$tmp/streams.db"
sqlite3 "$tmp/streams.db" "UPDATE run_streams SET busy_ns = busy_ns + 1 WHERE plan = 'poll'"
expect 2 "$gar" merge "$tmp/out.db" "$tmp/streams.db"
grep -q "other results in table 'run_streams'" "$tmp/err" \
    || fail "a run whose streams differ was merged ($(cat "$tmp/err"))"
cmp -s "$tmp/out.db" "$tmp/out.orig" || fail "a merge refused for its streams changed the output"
[ "$(ls "$tmp" | grep -c 'merge-')" -eq 0 ] || fail "a refused merge left its temporary file"

# --- leftovers of a merge killed before its end (kill -9): the next merge
# into the same output removes those whose lock no one holds (named for
# this machine), with SQLite's files beside them; one whose lock is held
# (here by this shell, through util-linux flock) stays whatever PID its
# name gives, and so does another machine's ---
host=$(printf %s "$(uname -n)" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-64)
gone=$(sh -c 'echo $$')
for side in "" -wal -shm; do
    printf 'x' >"$tmp/out.db.merge-$gone-$host-Ab3xYz$side"
done
live="$tmp/out.db.merge-$gone-$host-Qq1234"
printf 'x' >"$live"
held=no
if command -v flock >/dev/null 2>&1; then
    exec 9<"$live"
    flock -x 9 && held=yes
fi
printf 'x' >"$tmp/out.db.merge-$gone-elsewhere.example-Ab3xYz"
expect 0 "$gar" merge "$tmp/out.db" "$tmp/a.db"
[ "$(ls "$tmp" | grep -c "^out\.db\.merge-$gone-$host-Ab3xYz")" -eq 0 ] \
    || fail "a dead merge's leftovers stayed: $(ls "$tmp" | grep merge-)"
[ "$held" = no ] || [ -e "$live" ] || fail "a running merge's temporary file was removed"
[ -e "$tmp/out.db.merge-$gone-elsewhere.example-Ab3xYz" ] || fail "another machine's merge file was removed"
exec 9<&-
rm -f "$live" "$tmp/out.db.merge-$gone-elsewhere.example-Ab3xYz"

# --- a database merged into itself ---
expect 2 "$gar" merge "$tmp/a.db" "$tmp/a.db"
grep -q 'is the output database itself' "$tmp/err" || fail "merging a file into itself: $(cat "$tmp/err")"
ln "$tmp/a.db" "$tmp/hard.db"
expect 2 "$gar" merge "$tmp/a.db" "$tmp/hard.db"
grep -q 'is the output database itself' "$tmp/err" || fail "merging through a hard link: $(cat "$tmp/err")"
mkdir "$tmp/sub"
expect 2 "$gar" merge "$tmp/sub/../a.db" "$tmp/a.db"
grep -q 'is the output database itself' "$tmp/err" || fail "merging through another path: $(cat "$tmp/err")"

# --- provenance: every run names the gar that made it ---
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/v.db" --quiet
version=$(sqlite3 "$tmp/v.db" "SELECT value FROM meta WHERE key = 'gar_version'")
commit=$(sqlite3 "$tmp/v.db" "SELECT value FROM meta WHERE key = 'source_commit'")
[ "$(sqlite3 "$tmp/v.db" "SELECT count(*) FROM runs WHERE gar_version = '$version' AND source_commit = '$commit'")" -eq 4 ] \
    || fail "runs do not record the gar that made them"
grep -q '^other_builds:' "$tmp/out" && fail "a fresh sweep reported other builds"
# As if another gar had made the seed-1 runs, then a resume adds seed 3.
sqlite3 "$tmp/v.db" "UPDATE runs SET gar_version = '0.0.1', source_commit = 'oldcommit' WHERE seed = 1"
sed 's/^seed 1 2$/seed 1 2 3/' "$tmp/s.sweep" >"$tmp/s3.sweep"
expect 0 "$gar" sweep "$tmp/s3.sweep" --db "$tmp/v.db" --quiet
grep -q '^other_builds: 2 ' "$tmp/out" || fail "a resume into another build's rows did not say so: $(cat "$tmp/out")"
[ "$(sqlite3 "$tmp/v.db" "SELECT count(*) FROM runs WHERE seed = 3 AND gar_version = '$version'")" -eq 2 ] \
    || fail "the resumed runs do not carry this gar's version"
# A merge keeps each run's own build.
expect 0 "$gar" merge "$tmp/vm.db" "$tmp/v.db"
[ "$(sqlite3 "$tmp/vm.db" "SELECT count(*) FROM runs WHERE source_commit = 'oldcommit'")" -eq 2 ] \
    || fail "a merge lost the build of the runs it copied"
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "$gar" report --db "$tmp/vm.db" --out "$tmp/vrep"
    grep -q 'mixed builds' "$tmp/vrep/report.html" || fail "the report does not warn of mixed builds"
    grep -q 'gar 0.0.1 (source oldcommit, 2 runs)' "$tmp/vrep/report.html" \
        || fail "the report does not name the other build"
    grep -q "gar $version (source $commit, 4 runs)" "$tmp/vrep/report.html" \
        || fail "the report does not name this build"
    grep -q '^warning: mixed builds' "$tmp/out" || fail "report printed no mixed-builds warning"
fi

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
