#!/bin/sh
# tests/cli/test_host_stdin_cli.sh GAR — a host profile given as '-' is read
# from standard input: `gar replay --host -` prints what it prints with the
# same profile's file, a sweep spec's `host -` (and a what-if of it) stores
# the same runs as the file would, a fault in it is named "standard input",
# and a command that would read standard input twice is refused before it
# reads either (verify --sweep, whose spec's `host -` reads it as the spec
# loads, before it reads --host -).
set -u
. "$(dirname "$0")/lib.sh"
data=$(cd "$(dirname "$0")/../../data" && pwd)
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }
profile="$data/hosts/waitpkg.host"

expect 0 "$gar" gen jitter --waits 300 --seed 4 --out "$tmp/t.csv"

# --- replay: the same output, but for the line that names the profile ---
expect 0 "$gar" replay "$tmp/t.csv" --plan poll --host "$profile" --seed 3 --json
sed 's/"host":"[^"]*"//' "$tmp/out" >"$tmp/from_file"
expect 0 "$gar" replay "$tmp/t.csv" --plan poll --host - --seed 3 --json <"$profile"
grep -q '"host":"-"' "$tmp/out" || fail "replay --host - does not name its profile '-'"
sed 's/"host":"[^"]*"//' "$tmp/out" >"$tmp/from_stdin"
[ -s "$tmp/from_file" ] || fail "replay --json printed nothing"
cmp -s "$tmp/from_file" "$tmp/from_stdin" ||
    fail "replay with the profile on standard input differs from its file"
# and the default profile is not what ran: a flag plan stays flag on waitpkg
expect 0 "$gar" replay "$tmp/t.csv" --plan 'flag:park_us=100,backstop_us=1000' --host - <"$profile"
grep -q '^warning' "$tmp/out" && fail "replay --host - fell back as if the profile had no word wait"

# --- replay: a bad or empty profile is named "standard input"; nothing runs ---
expect 2 "$gar" replay "$tmp/t.csv" --plan poll --host - </dev/null
grep -q "^error 15 (InvalidHostProfile): standard input:1: " "$tmp/err" ||
    fail "an empty standard input: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "a refused profile printed results: $(head -c 200 "$tmp/out")"
printf 'gar-host v1\nquery_ns x\n' >"$tmp/bad.host"
expect 2 "$gar" replay "$tmp/t.csv" --plan poll --host - <"$tmp/bad.host"
grep -q "^error 15 (InvalidHostProfile): standard input:2: " "$tmp/err" ||
    fail "a bad profile on standard input: $(cat "$tmp/err")"

# --- replay: the trace and the profile cannot both be standard input ---
expect 2 "$gar" replay - --plan poll --host - <"$tmp/t.csv"
grep -q "^error 11 (Usage): replay: TRACE - and --host - would both read standard input" \
    "$tmp/err" || fail "replay - --host -: $(cat "$tmp/err")"

# --- sweep: `host -` and a what-if of it, against the same spec with the file ---
write_spec() { # FILE HOST
    cat >"$1" <<SPEC
gar-sweep v1
trace $tmp/t.csv
plan block poll
estimator none
host $2 $2@block_wake_ns*2
mode open
seed 1 2
SPEC
}
write_spec "$tmp/file.sweep" "$profile"
write_spec "$tmp/stdin.sweep" -
expect 0 "$gar" sweep "$tmp/file.sweep" --db "$tmp/file.db" --quiet
expect 0 "$gar" sweep "$tmp/stdin.sweep" --db "$tmp/stdin.db" --quiet <"$profile"
grep -q '^ran: 8$' "$tmp/out" || fail "sweep with host - did not run 8 runs: $(cat "$tmp/out")"
rows='SELECT trace, plan, host, mode, seed, waits, status, overshoot_p99_ns, busy_ns FROM runs
      ORDER BY trace, plan, host, mode, seed'
[ "$(sqlite3 "$tmp/stdin.db" "$rows")" = "$(sqlite3 "$tmp/file.db" "$rows")" ] ||
    fail "the runs of host - differ from those of its file"
[ "$(sqlite3 "$tmp/stdin.db" "SELECT name || '|' || source FROM hosts ORDER BY name")" = \
  "$(printf '%s\n%s' '-|standard input' '-@block_wake_ns*2|standard input@block_wake_ns*2')" ] ||
    fail "host - recorded as: $(sqlite3 "$tmp/stdin.db" 'SELECT name, source FROM hosts')"
expect 0 "$gar" sweep "$tmp/stdin.sweep" --dry-run <"$profile"
grep -q '^runs: 8$' "$tmp/out" || fail "sweep --dry-run with host -: $(cat "$tmp/out")"

# --- sweep: a spec from standard input cannot name its host '-' ---
expect 2 "$gar" sweep - --db "$tmp/both.db" <"$tmp/stdin.sweep"
grep -q "cannot be standard input when the spec is read from there.*(standard input:5)$" \
    "$tmp/err" || fail "sweep - with host -: $(cat "$tmp/err")"
[ ! -e "$tmp/both.db" ] || fail "a refused spec left a database"
expect 2 "$gar" sweep "$tmp/stdin.sweep" --db "$tmp/empty.db" </dev/null
grep -q "^error 15 (InvalidHostProfile): standard input:1: .*($tmp/stdin.sweep:5)$" "$tmp/err" ||
    fail "sweep with host - and nothing on standard input: $(cat "$tmp/err")"

# --- verify refuses two readers of standard input before running anything ---
expect 2 "$gar" verify - --plan poll --host - <"$tmp/t.csv"
grep -q "^error 11 (Usage): verify: TRACE - and --host - would both read standard input" \
    "$tmp/err" || fail "verify - --host -: $(cat "$tmp/err")"
expect 2 "$gar" verify --sweep - --db "$tmp/v.db" --host - <"$tmp/file.sweep"
grep -q "^error 11 (Usage): verify: --sweep - and --host - would both read standard input" \
    "$tmp/err" || fail "verify --sweep - --host -: $(cat "$tmp/err")"
# A spec's `host -` reads standard input as the spec loads: --host - beside
# it is refused as the second reader, naming the spec's line, not read empty.
expect 2 "$gar" verify --sweep "$tmp/stdin.sweep" --db "$tmp/v.db" --host - <"$profile"
grep -q "^error 11 (Usage): verify: the spec's 'host -' ($tmp/stdin.sweep:5) and --host - would both read standard input" \
    "$tmp/err" || fail "verify --sweep with host - and --host -: $(cat "$tmp/err")"
[ ! -e "$tmp/v.db" ] || fail "a refused verify left a database"

# --- every verb that takes a profile says '-' in its help ---
for verb in replay verify; do
    expect 0 "$gar" "$verb" --help
    grep -q -- "--host PROFILE .*'-' for standard input" "$tmp/out" ||
        fail "gar $verb --help does not say --host - reads standard input"
done
expect 0 "$gar" calibrate --help
grep -q "PROFILE ('-': standard input)" "$tmp/out" || fail "gar calibrate --help: no --check -"

[ "$failures" -eq 0 ]
