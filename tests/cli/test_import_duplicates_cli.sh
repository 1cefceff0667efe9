#!/bin/sh
# tests/cli/test_import_duplicates_cli.sh GAR — a Kineto profile whose launch
# calls repeat a correlation id is imported, not refused (real producers
# write them), and the repeats are counted: on standard error and in a line
# of the trace's header.  The rows are those of the profile without the
# repeat (each op joins the first call to start), in memory and with the
# records spilled to SQLite alike.
set -u
. "$(dirname "$0")/lib.sh"
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
plain="$fixtures/kineto/event_sync.json"

# event_sync.json with a second cudaLaunchKernel of correlation 11, later.
first='    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 1000000000010, "dur": 5, "args": {"cbid": 211, "correlation": 11}},'
repeat='    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": 1000000000016, "dur": 2, "args": {"cbid": 211, "correlation": 11}},'
grep -qxF "$first" "$plain" || { fail "event_sync.json lacks its first launch"; exit 1; }
awk -v first="$first" -v repeat="$repeat" '{ print } $0 == first { print repeat }' "$plain" \
    >"$tmp/dup.json"
[ "$(grep -c '"correlation": 11}' "$tmp/dup.json")" -eq 2 ] || fail "the repeat was not written"

expect 0 "$gar" import kineto "$plain" --out "$tmp/plain.csv"
grep -q '^duplicate_correlation: 0$' "$tmp/err" || fail "a profile without repeats: $(cat "$tmp/err")"
grep -q '^# duplicate correlation ids' "$tmp/plain.csv" && fail "a header notes repeats of none"

for budget in "" 1; do
    expect 0 env ${budget:+GAR_IMPORT_RECORD_BUDGET=$budget} "$gar" import kineto "$tmp/dup.json" \
        --out "$tmp/dup$budget.csv"
    grep -q '^duplicate_correlation: 1$' "$tmp/err" ||
        fail "repeats not counted on stderr (budget '$budget'): $(cat "$tmp/err")"
    grep -qx "# duplicate correlation ids: 1 call repeats an earlier call's id in its rank (kept; each op is joined to the first of them to start)" \
        "$tmp/dup$budget.csv" || fail "repeats not noted in the header (budget '$budget')"
    grep -v '^#' "$tmp/dup$budget.csv" >"$tmp/rows-dup"
    grep -v '^#' "$tmp/plain.csv" >"$tmp/rows-plain"
    cmp -s "$tmp/rows-dup" "$tmp/rows-plain" ||
        fail "the repeat changed the rows (budget '$budget'): $(cat "$tmp/rows-dup")"
done

[ $failures -eq 0 ] || exit 1
echo "all checks passed"
