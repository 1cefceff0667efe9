#!/bin/sh
# tests/cli/test_plan_cli.sh GAR — `gar plan` and `gar executor`: exact stdout,
# stderr and exit status.  Fallbacks are forced with --without, so the
# expectations hold on any host, whatever its probe finds.
set -u
gar=$1
failures=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

FLAGDL='flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'
POLLDL='poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8'

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# expect STATUS EXPECTED_STDOUT EXPECTED_STDERR -- ARGS...: runs gar ARGS.
expect() {
    want_status=$1 want_out=$2 want_err=$3
    shift 4
    "$gar" "$@" >"$out" 2>"$err"
    status=$?
    [ "$status" -eq "$want_status" ] || fail "gar $*: exit $status, expected $want_status"
    [ "$(cat "$out")" = "$want_out" ] || fail "gar $*: stdout
$(cat "$out")
expected
$want_out"
    [ "$(cat "$err")" = "$want_err" ] || fail "gar $*: stderr
$(cat "$err")
expected
$want_err"
}

# The five fixed plans (README, "Wait plans") run as asked where they need nothing of the host.
for arm in block poll "$POLLDL"; do
    expect 0 "requested: $arm
running: $arm" "" -- plan "$arm"
done

# flag without word-wait runs as poll, keeping its predict.
expect 0 "requested: flag:park_us=100,backstop_us=1000
running: poll (fallback from flag)
warning: 2 (ParkFallback): plan 'flag:park_us=100,backstop_us=1000' needs word-wait, which this host lacks (withdrawn by --without); running 'poll'" "" \
    -- plan --without word-wait flag:park_us=100,backstop_us=1000
expect 0 "requested: $FLAGDL
running: $POLLDL (fallback from flag)
warning: 2 (ParkFallback): plan '$FLAGDL' needs word-wait, which this host lacks (withdrawn by --without); running '$POLLDL'" "" \
    -- plan --without word-wait "$FLAGDL"

# --rows selects the running plan of its band: edges inclusive.
for rows in 0 1 31; do
    expect 0 "requested: block;rows>=32:$FLAGDL
running: block;rows>=32:$POLLDL (fallback from flag)
warning: 2 (ParkFallback): plan 'block;rows>=32:$FLAGDL' needs word-wait, which this host lacks (withdrawn by --without); running 'block;rows>=32:$POLLDL'
selected: block" "" -- plan --without word-wait --rows "$rows" "block;rows>=32:$FLAGDL"
done
for rows in 32 4294967295; do
    expect 0 "requested: block;rows>=32:$FLAGDL
running: block;rows>=32:$POLLDL (fallback from flag)
warning: 2 (ParkFallback): plan 'block;rows>=32:$FLAGDL' needs word-wait, which this host lacks (withdrawn by --without); running 'block;rows>=32:$POLLDL'
selected: $POLLDL (fallback from flag)" "" -- plan --rows "$rows" --without word-wait "block;rows>=32:$FLAGDL"
done
expect 0 "requested: block;rows>=2:poll;rows>=5:block
running: block;rows>=2:poll;rows>=5:block
selected: poll" "" -- plan --rows 4 "block;rows>=2:poll;rows>=5:block"

# Bad text: the coded error on stderr, nothing on stdout, exit 2.
expect 2 "" "error 1 (InvalidPlan): invalid plan 'flag:park_us=100,backstop=1000': at byte 17: expected key 'backstop_us', found 'backstop'" \
    -- plan flag:park_us=100,backstop=1000
expect 2 "" "error 1 (InvalidPlan): invalid plan 'block+predict:margin_us=1,min_sleep_us=1,max_sleep_us=1,window=1': at byte 5: 'block' takes no '+predict' (there is nothing to sleep in front of)" \
    -- plan block+predict:margin_us=1,min_sleep_us=1,max_sleep_us=1,window=1
expect 2 "" "error 1 (InvalidPlan): invalid plan '': at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found the end" \
    -- plan ""
expect 2 "" "error 1 (InvalidPlan): invalid band 2 plan 'flag:park_us=0,backstop_us=1000': at byte 13: park_us must be 1..10000, found 0" \
    -- plan "block;rows>=32:flag:park_us=0,backstop_us=1000"
expect 2 "" "error 1 (InvalidPlan): invalid bands 'block;rows>=8:poll;rows>=8:block': at byte 25: band 3 edge must be at least 9 (edges strictly increase), found 8" \
    -- plan "block;rows>=8:poll;rows>=8:block"

# Bad command lines are usage errors.
expect 2 "" "error 11 (Usage): plan: --without takes word-wait or io-uring (see 'gar plan --help')" \
    -- plan --without spin poll
expect 2 "" "error 11 (Usage): plan: --rows takes a row count, 0..4294967295 (see 'gar plan --help')" \
    -- plan --rows 4294967296 poll
expect 2 "" "error 11 (Usage): plan: expected one plan or bands text (see 'gar plan --help')" \
    -- plan
expect 2 "" "error 11 (Usage): plan: unknown option '--bogus' (see 'gar plan --help')" \
    -- plan --bogus poll

# Executors: as asked, one step down, two steps down, strict, unknown.
expect 0 "requested: naive
running: naive" "" -- executor --without io-uring --without word-wait naive
expect 0 "requested: io-uring
running: naive
warning: 3 (ExecutorFallback): executor 'io-uring' cannot run here (no io-uring: withdrawn by --without; no word-wait: withdrawn by --without); running 'naive'" "" \
    -- executor --without io-uring --without word-wait io-uring
expect 0 "requested: gpu-reactor
running: naive
warning: 3 (ExecutorFallback): executor 'gpu-reactor' cannot run here (no word-wait: withdrawn by --without); running 'naive'" "" \
    -- executor --without word-wait gpu-reactor
expect 2 "" "error 4 (ExecutorRefused): executor 'gpu-reactor' cannot run here (no word-wait: withdrawn by --without) and the setting is strict" \
    -- executor --strict --without word-wait gpu-reactor
expect 2 "" "error 4 (ExecutorRefused): executor 'io-uring' cannot run here (no io-uring: withdrawn by --without; no word-wait: withdrawn by --without) and the setting is strict" \
    -- executor --strict --without word-wait --without io-uring io-uring
expect 2 "" "error 5 (InvalidExecutor): unknown executor 'reactor' (accepted: naive, gpu-reactor, io-uring)" \
    -- executor reactor
expect 2 "" "error 11 (Usage): executor: --without takes word-wait or io-uring (see 'gar executor --help')" \
    -- executor --without spin naive
expect 2 "" "error 11 (Usage): executor: expected one executor name (see 'gar executor --help')" \
    -- executor naive gpu-reactor

# Help is on stdout, and exits 0.
for verb in plan executor; do
    "$gar" "$verb" --help >"$out" 2>"$err"
    [ $? -eq 0 ] && [ -s "$out" ] && [ ! -s "$err" ] || fail "gar $verb --help"
    grep -q "^usage: gar $verb" "$out" || fail "gar $verb --help: no usage line"
done

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed" >&2
    exit 1
fi
echo "all checks passed"
