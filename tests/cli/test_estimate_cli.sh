#!/bin/sh
# tests/cli/test_estimate_cli.sh GAR — `gar estimate` prints the worked sleeps
# of docs/glossary.md ("Estimator") and refuses bad input with nothing on stdout.
set -u
. "$(dirname "$0")/lib.sh"
plan='poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'

# expect NAME WANT_STATUS WANT_STDOUT_FILE ARGS... : runs gar, compares the
# exit status and stdout exactly.
expect() {
    name=$1 want_status=$2 want=$3
    shift 3
    "$gar" estimate "$@" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq "$want_status" ] || fail "$name: exit $status, wanted $want_status"
    if ! cmp -s "$want" "$tmp/out"; then
        fail "$name: stdout differs"
        diff "$want" "$tmp/out" | sed 's/^/    /'
    fi
}

# The worked sequence: 1.0, 0.9, 1.1 ms, then eight 2.0 ms.
printf 'sleep_ns: %s\n' 850000 750000 750000 \
    750000 750000 750000 750000 750000 750000 950000 1850000 >"$tmp/want"
expect "worked sequence" 0 "$tmp/want" --plan "$plan" \
    exact:1000000 exact:900000 exact:1100000 \
    exact:2000000 exact:2000000 exact:2000000 exact:2000000 \
    exact:2000000 exact:2000000 exact:2000000 exact:2000000

# Fresh points: 160 µs, 100 µs, UINT64_MAX.
printf 'sleep_ns: none\n' >"$tmp/want"
expect "160 us" 0 "$tmp/want" --plan "$plan" exact:160000
expect "100 us" 0 "$tmp/want" --plan "$plan" exact:100000
printf 'sleep_ns: 50000000\n' >"$tmp/want"
expect "u64 max" 0 "$tmp/want" --plan "$plan" exact:18446744073709551615

# The late example, verbose: Late(700 µs) after 900 µs pushes 350 µs.
printf 'prediction_ns: 900000\nsleep_ns: 750000\nprediction_ns: 350000\nsleep_ns: 200000\n' \
    >"$tmp/want"
expect "late example" 0 "$tmp/want" --verbose --plan "$plan" exact:900000 late:700000

# A cold late wake pushes half of it; the flag plan's deadline works alike.
printf 'sleep_ns: 350000\n' >"$tmp/want"
expect "cold late" 0 "$tmp/want" \
    --plan 'flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8' \
    late:1000000

# Refusals: exit 2, nothing on stdout, a coded error naming the fault.
: >"$tmp/empty"
refused() {
    name=$1 needle=$2
    shift 2
    expect "$name" 2 "$tmp/empty" "$@"
    grep -q "^error 11 (Usage)\|^error 1 (InvalidPlan)" "$tmp/err" || fail "$name: no coded error"
    grep -qF -- "$needle" "$tmp/err" || fail "$name: stderr lacks '$needle': $(cat "$tmp/err")"
}
refused "bad sample" "sample 2 'exact:12x'" --plan "$plan" exact:900000 exact:12x late:1
refused "bad kind" "sample 1 'early:5'" --plan "$plan" early:5
refused "no number" "sample 1 'late:'" --plan "$plan" late:
refused "negative" "sample 1 'exact:-1'" --plan "$plan" exact:-1
refused "overflow" "sample 1 'exact:18446744073709551616'" --plan "$plan" \
    exact:18446744073709551616
refused "no predict" "has no +predict" --plan poll exact:1
refused "no plan" "--plan PLAN is required" exact:1
refused "bad plan" "error 1 (InvalidPlan)" --plan pol exact:1
refused "no samples" "at least one SAMPLE" --plan "$plan"
refused "unknown option" "--frobnicate" --frobnicate --plan "$plan" exact:1

# Help: usage on stdout, exit 0.
"$gar" estimate --help >"$tmp/out" 2>&1 || fail "help: nonzero exit"
grep -q '^usage: gar estimate' "$tmp/out" || fail "help: no usage line"
grep -q 'example' "$tmp/out" || fail "help: no example"

[ "$failures" -eq 0 ] || exit 1
echo "estimate: all checks passed"
