#!/bin/sh
# tests/cli/test_verify_cuda_gpu.sh GAR FIXTURES — `gar verify --device cuda`
# on a real GPU: the short trace runs on device 0 and in the simulator, and
# both runs saw every wait.  Skips (77) where the driver cannot be loaded or
# finds no device (the refusal it printed says which).  The verdict is not
# asserted: it is what the run is for, and prints.
set -u
gar=$1
fixtures=$2
trace=$fixtures/short.csv
waits=40
host=$(dirname "$0")/../../data/hosts/waitpkg.host
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$gar" verify "$trace" --plan poll --device cuda --host "$host" >"$tmp/out" 2>"$tmp/err"
status=$?
cat "$tmp/out" "$tmp/err"
if [ "$status" -eq 2 ] && grep -Eq 'Unavailable|NoDomain' "$tmp/err"; then
    echo "skipped: no CUDA driver or device"
    exit 77
fi
[ "$status" -le 1 ] || { echo "FAIL: exit $status"; exit 1; }
grep -qx 'device: cuda' "$tmp/out" || { echo "FAIL: no 'device: cuda' line"; exit 1; }
grep -qx "waits: real=$waits sim=$waits" "$tmp/out" || { echo "FAIL: not every wait ran"; exit 1; }
echo "ok"
