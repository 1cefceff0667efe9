#!/bin/sh
# tests/cli/test_db_auto_columns_cli.sh GAR DATA — a sweep stores what each
# auto:p99_us=B run chose (schema version 5's runs.auto_* columns) as `gar
# replay` of the same run prints it on its `auto:` line; a fixed plan's run
# has them NULL; a version 4 file is read as it is by report --notes and
# converted by a sweep into it.  Skips (77) without the sqlite3 command.
set -u
. "$(dirname "$0")/lib.sh"
data=$2
command -v sqlite3 >/dev/null 2>&1 || { echo "no sqlite3 command: skipped"; exit 77; }
q() { sqlite3 "$1" "$2"; }

"$gar" gen jitter --waits 400 --seed 3 --out "$tmp/j.csv" >/dev/null || fail "gen"
cat >"$tmp/s.sweep" <<SPEC
gar-sweep v1
trace $tmp/j.csv
plan auto:p99_us={1,100} poll
estimator adl
host $data/hosts/waitpkg.host
mode open
seed 1
SPEC
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/s.db" --quiet
for budget in 1 100; do
    expect 0 "$gar" replay "$tmp/j.csv" --plan "auto:p99_us=$budget" \
        --host "$data/hosts/waitpkg.host" --seed 1
    want=$(sed -n 's/^auto: block \([0-9]*\) poll \([0-9]*\) flag \([0-9]*\) sleeps \([0-9]*\) late \([0-9]*\) over_budget [0-9]* over_budget_waits \([0-9]*\) held [0-9]*$/\1 \2 \3 \4 \5 \6/p' "$tmp/out")
    [ -n "$want" ] || fail "replay at $budget us printed no auto line: $(cat "$tmp/out")"
    got=$(q "$tmp/s.db" "SELECT auto_block || ' ' || auto_poll || ' ' || auto_flag || ' ' ||
                         auto_sleeps || ' ' || auto_late_wakes || ' ' || auto_over_budget_waits
                         FROM runs WHERE plan = 'auto:p99_us=$budget'")
    [ "$got" = "$want" ] || fail "auto at $budget us stored '$got', replay prints '$want'"
done
[ "$(q "$tmp/s.db" "SELECT auto_over_budget_waits FROM runs WHERE plan = 'auto:p99_us=1'")" -gt 0 ] \
    || fail "no wait over 1 us stored: the check above compares nothing"
[ "$(q "$tmp/s.db" "SELECT count(*) FROM runs WHERE plan = 'poll' AND auto_block IS NULL
                    AND auto_over_budget_waits IS NULL")" -eq 1 ] || fail "a fixed plan's run has auto columns"

# A version 4 file: read as it is, converted by a writer.
cp "$tmp/s.db" "$tmp/v4.db"
make_v4 "$tmp/v4.db"
cp "$tmp/v4.db" "$tmp/v4-before.db"
expect 0 "$gar" report --db "$tmp/v4.db" --notes
cmp -s "$tmp/v4.db" "$tmp/v4-before.db" || fail "report --notes changed a version 4 file"
expect 0 "$gar" sweep "$tmp/s.sweep" --db "$tmp/v4.db" --quiet
grep -q '^status: nothing to do' "$tmp/out" || fail "a version 4 file's runs were not kept"
[ "$(q "$tmp/v4.db" "SELECT value FROM meta WHERE key = 'schema_version'")" = 5 ] \
    || fail "a sweep into a version 4 file did not convert it"
[ "$(q "$tmp/v4.db" "SELECT count(*) FROM runs WHERE auto_block IS NULL")" -eq 3 ] \
    || fail "the converted runs gained auto columns they never had"

[ "$failures" -eq 0 ] || exit 1
echo "db auto columns: ok"
