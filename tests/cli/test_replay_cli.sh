#!/bin/sh
# tests/cli/test_replay_cli.sh GAR — `gar replay` on a hand-made trace and a
# profile of constants prints exactly the metrics worked out by hand, the
# same bytes for the same seed, and refuses bad input with nothing on stdout.
set -u
. "$(dirname "$0")/lib.sh"

# Three waits 2 ms apart, each done 1 ms after it starts.
cat >"$tmp/t.trace" <<'TRACE'
# gar-trace v1
point,submit_ns,start_ns,done_ns
1,0,0,1000000
1,2000000,2000000,3000000
1,4000000,4000000,5000000
TRACE
# Every cost a constant: a query 1 µs, a blocking wake 30 µs after completion.
cat >"$tmp/exact.host" <<'HOST'
gar-host v1
query_ns 1000
clock_ns 0
word_wait yes
sleep_overshoot_ns p0=20000 p50=20000 p90=20000 p99=20000 p100=20000
block_wake_ns p0=30000 p50=30000 p90=30000 p99=30000 p100=30000
park_wake_ns p0=300 p50=300 p90=300 p99=300 p100=300
poll_period_ns p0=1000 p50=1000 p90=1000 p99=1000 p100=1000
HOST

# block: each wait is 1 µs busy (its query), then asleep to 1 ms + 30 µs.
printf '%s%s%s%s\n' \
    '{"waits":3,"overshoot_ns":{"p50":30000,"p90":30000,"p99":30000,"max":30000},' \
    '"busy_ns":3000,"parked_ns":0,"asleep_ns":3087000,"busy_frac":0.000971,' \
    '"makespan_ns":5030000,"sleeps":0,"parks":0,"queries":0,"backstop_queries":0,' \
    '"kinds":{"blocked":3,"immediate":0,"late":0,"parked":0},' >"$tmp/want"
sed -i '$ s/$/"estimator_error_ns":{"p50":0,"p99":0},"plan":"block","estimator":"adl",/' "$tmp/want"
sed -i "\$ s|\$|\"host\":\"$tmp/exact.host\",\"mode\":\"open\",\"seed\":0,\"trace\":\"$tmp/t.trace\",|" "$tmp/want"
# Then the intervals (three waits bound only a p90's and a p99's lower end:
# the second and third smallest) and the notes (too few waits for a p99).
sed -i '$ s/$/"ci_level":0.95,"overshoot_ci_ns":{"p50":{"lo":null,"hi":null},"p90":{"lo":30000,"hi":null},"p99":{"lo":30000,"hi":null}},/' "$tmp/want"
sed -i '$ s/$/"estimator_error_ci_ns":{"p50":{"lo":null,"hi":null},"p90":{"lo":null,"hi":null},"p99":{"lo":null,"hi":null}},/' "$tmp/want"
sed -i '$ s/$/"notes":[{"note":"few_waits","count":3,"worst_ns":null,"message":"3 waits are too few for a p99 (368 bound it from above at 95 %): the p99 is the largest wait"}],/' "$tmp/want"
# Last, each stream's share: the trace has no stream column, so one stream 0.
sed -i '$ s/$/"streams":[{"stream":0,"waits":3,"overshoot_ns":{"p50":30000,"p90":30000,"p99":30000,"max":30000},"busy_ns":3000}]}/' "$tmp/want"
tr -d '\n' <"$tmp/want" >"$tmp/want1" && echo >>"$tmp/want1"
"$gar" replay "$tmp/t.trace" --plan block --host "$tmp/exact.host" --json >"$tmp/out" 2>"$tmp/err" ||
    fail "block json: exit $? ($(cat "$tmp/err"))"
cmp -s "$tmp/want1" "$tmp/out" || { fail "block json differs"; diff "$tmp/want1" "$tmp/out"; }

# The same run as key: value lines, every line in its place: the metrics
# (a group's members on one line, estimator error's with the count it is
# over), the intervals by group and in words, then the notes.
"$gar" replay "$tmp/t.trace" --plan block --host "$tmp/exact.host" >"$tmp/out" 2>"$tmp/err" ||
    fail "block table: exit $? ($(cat "$tmp/err"))"
cat >"$tmp/want" <<WANT
trace: $tmp/t.trace
plan: block
estimator: adl
host: $tmp/exact.host
mode: open
seed: 0
waits: 3
overshoot_ns: p50 30000 p90 30000 p99 30000 max 30000
busy_ns: 3000
parked_ns: 0
asleep_ns: 3087000
busy_frac: 0.000971
makespan_ns: 5030000
sleeps: 0
parks: 0
queries: 0
backstop_queries: 0
kinds: blocked 3 immediate 0 late 0 parked 0
estimator_error_ns: p50 0 p99 0 (over 0 predictions)
quantiles: exact
overshoot_ci_ns: level 0.95 p50 - - p90 30000 - p99 30000 -
estimator_error_ci_ns: level 0.95 p50 - - p90 - - p99 - -
overshoot_p50: 30.0 µs (too few waits for a p50)
overshoot_p90: 30.0 µs (the largest of 3 waits; too few waits for a p90)
overshoot_p99: 30.0 µs (the largest of 3 waits; too few waits for a p99)
estimator_error_p50: none (no predictions)
estimator_error_p90: none (no predictions)
estimator_error_p99: none (no predictions)
note: 3 waits are too few for a p99 (368 bound it from above at 95 %): the p99 is the largest wait
WANT
cmp -s "$tmp/want" "$tmp/out" || { fail "block table differs"; diff "$tmp/want" "$tmp/out"; }

# The table: key: value lines; closed loop carries each 30 µs late wake on.
"$gar" replay "$tmp/t.trace" --plan block --host "$tmp/exact.host" --mode closed >"$tmp/out" ||
    fail "closed table: exit $?"
grep -qx 'makespan_ns: 5090000' "$tmp/out" || fail "closed makespan: $(grep makespan "$tmp/out")"
grep -qx 'kinds: blocked 3 immediate 0 late 0 parked 0' "$tmp/out" || fail "closed kinds"

# Same seed, same bytes; on a random profile another seed differs.
cat >"$tmp/random.host" <<'HOST'
gar-host v1
query_ns 1000
clock_ns 20
word_wait yes
sleep_overshoot_ns p0=1000 p50=20000 p90=40000 p99=80000 p100=90000
block_wake_ns p0=3000 p50=30000 p90=50000 p99=70000 p100=90000
park_wake_ns p0=100 p50=300 p90=500 p99=900 p100=1000
poll_period_ns p0=10 p50=50 p90=100 p99=200 p100=300
HOST
flagdl='flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'
run() { "$gar" replay "$tmp/t.trace" --plan "$flagdl" --host "$tmp/random.host" --json "$@"; }
run --seed 5 >"$tmp/a" && run --seed 5 >"$tmp/b" && run --seed 6 >"$tmp/c" || fail "seeded runs"
cmp -s "$tmp/a" "$tmp/b" || fail "same seed, different output"
cmp -s "$tmp/a" "$tmp/c" && fail "another seed, same output"

# A host without word wait runs flag as poll, with warning 2 on stdout.
sed 's/^word_wait yes/word_wait no/' "$tmp/random.host" >"$tmp/noww.host"
"$gar" replay "$tmp/t.trace" --plan "$flagdl" --host "$tmp/noww.host" >"$tmp/out" ||
    fail "fallback: exit $?"
grep -q '^warning: 2 (ParkFallback)' "$tmp/out" || fail "fallback: no warning"
grep -q '^plan: poll+predict:.*(fallback from flag)$' "$tmp/out" || fail "fallback: plan line"
"$gar" replay "$tmp/t.trace" --plan "$flagdl" --host "$tmp/noww.host" --as-given >"$tmp/out" ||
    fail "as given: exit $?"
grep -q '^warning' "$tmp/out" && fail "as given: warned"
grep -qx 'kinds: blocked 0 immediate 0 late 0 parked 3' "$tmp/out" || fail "as given: kinds"

# Bands pick the plan by the rows column.
cat >"$tmp/rows.trace" <<'TRACE'
# gar-trace v1
point,submit_ns,start_ns,done_ns,rows
1,0,0,1000000,4
1,2000000,2000000,3000000,64
TRACE
"$gar" replay "$tmp/rows.trace" --bands 'block;rows>=32:poll' --host "$tmp/exact.host" \
    >"$tmp/out" || fail "bands: exit $?"
grep -qx 'kinds: blocked 1 immediate 0 late 0 parked 1' "$tmp/out" || fail "bands: kinds"

# Faults: a lost store is caught by the backstop; an error or a hung device
# ends the run with its code and nothing on stdout.
"$gar" replay "$tmp/t.trace" --plan 'flag:park_us=100,backstop_us=1000' --host "$tmp/exact.host" \
    --fault lost-store@1 >"$tmp/out" || fail "lost store: exit $?"
grep -qx 'backstop_queries: 1' "$tmp/out" || fail "lost store: $(grep backstop "$tmp/out")"

# Poll runs: with constant costs the fast-forward is exact, so --exact-polls
# prints the same bytes; with random ones it draws every turn, which shows.
for host in exact random; do
    "$gar" replay "$tmp/t.trace" --plan poll --host "$tmp/$host.host" >"$tmp/fast" &&
        "$gar" replay "$tmp/t.trace" --plan poll --host "$tmp/$host.host" --exact-polls \
            >"$tmp/exact" || fail "exact polls on $host: exit $?"
    if [ "$host" = exact ]; then
        cmp -s "$tmp/fast" "$tmp/exact" || fail "exact polls differ on constant costs"
    else
        cmp -s "$tmp/fast" "$tmp/exact" && fail "exact polls drew the same as blocks"
    fi
done

# Refusals: exit 2, nothing on stdout, the coded error.
refused() {
    name=$1 code=$2
    shift 2
    "$gar" replay "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$name: exit $status, wanted 2"
    [ -s "$tmp/out" ] && fail "$name: wrote to stdout"
    grep -q "^error $code " "$tmp/err" || fail "$name: not error $code: $(cat "$tmp/err")"
}
h="--host $tmp/exact.host"
refused "bad plan" 1 "$tmp/t.trace" --plan pol $h
refused "bad estimator" 14 "$tmp/t.trace" --plan poll --estimator ewma:alpha=2 $h
printf 'gar-host v2\n' >"$tmp/bad.host"
refused "bad host" 15 "$tmp/t.trace" --plan poll --host "$tmp/bad.host"
refused "missing host" 12 "$tmp/t.trace" --plan poll --host "$tmp/none.host"
refused "missing trace" 12 "$tmp/none.trace" --plan poll $h
refused "both plans" 11 "$tmp/t.trace" --plan poll --bands poll $h
refused "no plan" 11 "$tmp/t.trace" $h
refused "bad mode" 11 "$tmp/t.trace" --plan poll --mode half $h
refused "bad seed" 11 "$tmp/t.trace" --plan poll --seed x $h
refused "no trace" 11 --plan poll $h
refused "device error" 17 "$tmp/t.trace" --plan poll --fault error@2 $h
refused "hung device" 16 "$tmp/t.trace" --plan block --fault hang@0 --deadline-ns 5000000 $h
refused "bad fault" 11 "$tmp/t.trace" --plan poll --fault stuck@0 $h
refused "fault without row" 11 "$tmp/t.trace" --plan poll --fault hang $h
refused "zero deadline" 11 "$tmp/t.trace" --plan poll --deadline-ns 0 $h
refused "unknown option" 11 "$tmp/t.trace" --plan poll --frobnicate $h

"$gar" replay --help >"$tmp/out" 2>&1 || fail "help: nonzero exit"
grep -q '^usage: gar replay' "$tmp/out" || fail "help: no usage line"
grep -q 'example' "$tmp/out" || fail "help: no example"
grep -q -- '--exact-polls' "$tmp/out" || fail "help: no --exact-polls"

# Streams: each its own share, past one line's eight; the text table lists
# the ten with the most waits, most first.
{
    echo '# gar-trace v1'
    echo 'point,submit_ns,start_ns,done_ns,stream'
    i=0
    for s in 70000 1 2 3 4 5 6 7 8 9 10 11 70000 5 5 5; do
        echo "1,${i}000000,${i}000000,${i}500000,$s"
        i=$((i + 1))
    done
} >"$tmp/streams.trace"
"$gar" replay "$tmp/streams.trace" --plan block --host "$tmp/exact.host" >"$tmp/out" ||
    fail "streams table: exit $?"
grep -qx 'streams: 12 (the 10 with the most waits)' "$tmp/out" || fail "streams: no heading"
[ "$(sed -n '/^streams:/,$p' "$tmp/out" | awk 'NR > 2 { print $1 ":" $2 }' | tr '\n' ' ')" = \
    "5:4 70000:2 1:1 2:1 3:1 4:1 6:1 7:1 8:1 9:1 " ] ||
    fail "streams table order: $(sed -n '/^streams:/,$p' "$tmp/out")"
"$gar" replay "$tmp/streams.trace" --plan block --host "$tmp/exact.host" --json >"$tmp/out" ||
    fail "streams json: exit $?"
grep -q '"streams":\[{"stream":70000,"waits":2,"overshoot_ns":{"p50":30000,' "$tmp/out" ||
    fail "streams json: the first stream named is not first ($(cat "$tmp/out"))"
[ "$(grep -o '"stream":' "$tmp/out" | wc -l)" -eq 12 ] || fail "streams json: not 12 streams"

# --- 21 waits: each quantile with its interval, and the words for a p99
# that only the largest wait stands for ---
"$gar" gen steady --waits 21 --seed 1 --out "$tmp/w21.trace" >/dev/null || fail "gen 21 waits"
"$gar" replay "$tmp/w21.trace" --plan poll --host "$tmp/exact.host" >"$tmp/out" 2>"$tmp/err" ||
    fail "21 waits: exit $? ($(cat "$tmp/err"))"
grep -q '^overshoot_p99: .* (the largest of 21 waits; too few waits for a p99)$' "$tmp/out" ||
    fail "21 waits: p99 not said to be the largest wait ($(grep p99 "$tmp/out"))"
grep -q '^overshoot_ci_ns: level 0.95 p50 [0-9]* [0-9]* p90 [0-9]* - p99 [0-9]* -$' "$tmp/out" ||
    fail "21 waits: interval ends not as wanted ($(grep _ci_ns "$tmp/out"))"
grep -q '^overshoot_p50: .* (95 % interval .* to .*)$' "$tmp/out" ||
    fail "21 waits: p50 without its interval"
grep -q '^note: 21 waits are too few for a p99' "$tmp/out" || fail "21 waits: no few_waits note"
grep -q 'wait-on kernel' "$tmp/out" && fail "21 generated waits: a hint for an imported trace"
# The same rows as `gar import` in sync mode writes them: the note says the
# kernels would give more waits; imported with --wait-on kernel, it does not.
sed '1a # imported by: gar import kineto trace.json.gz' "$tmp/w21.trace" >"$tmp/w21-sync.trace"
"$gar" replay "$tmp/w21-sync.trace" --plan poll --host "$tmp/exact.host" >"$tmp/out" ||
    fail "21 imported waits: exit $?"
grep -q '^note: 21 waits are too few for a p99 .*; this trace holds a profile.s synchronizing calls: `gar import ... --wait-on kernel` makes a row of every kernel$' \
    "$tmp/out" || fail "21 imported waits: no hint ($(grep '^note' "$tmp/out"))"
gzip -c "$tmp/w21-sync.trace" >"$tmp/w21-sync.trace.gz"
"$gar" replay "$tmp/w21-sync.trace.gz" --plan poll --host "$tmp/exact.host" >"$tmp/out" ||
    fail "21 imported waits, gzip: exit $?"
grep -q '^note: 21 waits .*--wait-on kernel' "$tmp/out" || fail "21 imported waits, gzip: no hint"
sed '1a # imported by: gar import kineto trace.json.gz --wait-on kernel' "$tmp/w21.trace" \
    >"$tmp/w21-kernel.trace"
"$gar" replay "$tmp/w21-kernel.trace" --plan poll --host "$tmp/exact.host" >"$tmp/out" ||
    fail "21 kernel waits: exit $?"
grep -q 'wait-on kernel' "$tmp/out" && fail "21 kernel waits: hinted at kernels ($(grep '^note' "$tmp/out"))"
# The old lines are still there, as they were.
grep -q '^overshoot_ns: p50 [0-9]* p90 [0-9]* p99 [0-9]* max [0-9]*$' "$tmp/out" ||
    fail "21 waits: the overshoot_ns line changed"
# A lower confidence narrows the interval; a confidence outside (0, 1) is refused.
"$gar" replay "$tmp/w21.trace" --plan poll --host "$tmp/exact.host" --ci-level 0.5 >"$tmp/out50" ||
    fail "--ci-level 0.5: exit $?"
grep -q '^overshoot_ci_ns: level 0.5 ' "$tmp/out50" || fail "--ci-level 0.5 not used"
"$gar" replay "$tmp/w21.trace" --plan poll --host "$tmp/exact.host" --ci-level 1 >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q 'ci-level' "$tmp/err" ||
    fail "--ci-level 1 not refused ($(cat "$tmp/err"))"
# A level is printed as asked: one that would print as "level 1" (certainty)
# or in another spelling than given is refused; six decimals print whole.
for level in 0.9999999999 1e-300 0x0.8 " 0.9" 0.0000001 0.000000; do
    "$gar" replay "$tmp/w21.trace" --plan poll --host "$tmp/exact.host" --ci-level "$level" \
        >"$tmp/out" 2>"$tmp/err"
    [ $? -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q 'at most six digits' "$tmp/err" ||
        fail "--ci-level '$level' not refused ($(head -3 "$tmp/out") $(cat "$tmp/err"))"
done
"$gar" replay "$tmp/w21.trace" --plan poll --host "$tmp/exact.host" --ci-level 0.999999 >"$tmp/out" ||
    fail "--ci-level 0.999999: exit $?"
grep -q '^overshoot_ci_ns: level 0.999999 ' "$tmp/out" && grep -q 'at 99.9999 %' "$tmp/out" ||
    fail "--ci-level 0.999999 not printed as given: $(grep -E 'level|%' "$tmp/out" | head -3)"

# --- predict that never slept says so, and why ---
"$gar" replay "$tmp/w21.trace" --host "$tmp/exact.host" \
    --plan 'poll+predict:margin_us=5000,min_sleep_us=20,max_sleep_us=50000,window=8' >"$tmp/out" ||
    fail "never slept: exit $?"
grep -q '^note: predict never slept on its 21 waits: 1 had no prediction yet.*20 predictions were below margin + min_sleep (5.02 ms); so it ran as the plan without predict$' "$tmp/out" ||
    fail "never slept: no note saying why ($(grep note "$tmp/out"))"

[ "$failures" -eq 0 ] || exit 1
echo "replay: all checks passed"
