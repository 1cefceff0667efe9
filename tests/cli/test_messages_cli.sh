#!/bin/sh
# tests/cli/test_messages_cli.sh GAR — refusals say what is really there and
# where: a NUL inside a field is shown, not taken for the field's end; a word
# with bytes outside ASCII is quoted whole from its start; bytes that are not
# text reach the terminal escaped as \xNN, never raw; a spec over the size
# limit says it is too large.
set -u
. "$(dirname "$0")/lib.sh"

# expect_err TEXT ARGS...: exit 2 and stderr holds TEXT (fixed string).
expect_err() {
    text=$1
    shift
    "$gar" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$*: exit $rc, not 2"
    grep -qF -- "$text" "$tmp/err" || fail "$*: wanted '$text' in: $(cat "$tmp/err")"
    if LC_ALL=C grep -q "$(printf '[\001-\010\016-\037\177-\377]')" "$tmp/err"; then
        # Well-formed UTF-8 is allowed through; only the cases below have none.
        [ "${utf8_ok:-no}" = yes ] || fail "$*: raw bytes reached the terminal: $(od -c "$tmp/err" | head -3)"
    fi
}

cat >"$tmp/h.host" <<'HOST'
gar-host v1
query_ns 1000
clock_ns 20
word_wait yes
sleep_overshoot_ns p0=20000 p50=20000 p90=20000 p99=20000 p100=20000
block_wake_ns p0=30000 p50=30000 p90=30000 p99=30000 p100=30000
park_wake_ns p0=300 p50=300 p90=300 p99=300 p100=300
poll_period_ns p0=1000 p50=1000 p90=1000 p99=1000 p100=1000
HOST

printf '# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n1,0,10\000,1000\n' >"$tmp/nul.csv"
expect_err "column 3: start_ns '10\\x00' is not a decimal number (its byte 2 is '\\x00')" \
    replay "$tmp/nul.csv" --plan poll --host "$tmp/h.host"

printf '# gar-trace v1\npoint,submit_ns,st\377rt_ns,done_ns\n' >"$tmp/head.csv"
expect_err "unknown column 'st\\xffrt_ns'" replay "$tmp/head.csv" --plan poll --host "$tmp/h.host"

expect_err "invalid plan 'fl\\xffg\\x1b[31m': at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found 'fl\\xffg'" \
    plan "$(printf 'fl\377g\033[31m')"
utf8_ok=yes expect_err "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found 'fl$(printf '\303\251')g'" \
    plan "$(printf 'fl\303\251g')"
expect_err "found byte 0xff" plan "$(printf 'poll\377')"

{
    echo 'gar-sweep v1'
    head -c 1048577 /dev/zero | tr '\0' '#'
} >"$tmp/big.sweep"
expect_err "big.sweep: argument file is larger than 1048576 bytes" \
    sweep "$tmp/big.sweep" --db "$tmp/s.db"
[ ! -e "$tmp/s.db" ] || fail "a refused spec left a database"

[ "$failures" -eq 0 ] || exit 1
echo "messages: ok"
