#!/bin/sh
# tests/cli/test_verify_cuda_cli.sh GAR FIXTURES STUB — `gar verify --device
# cuda` in a gar built with the CUDA backend, where no GPU is needed: without
# a driver library it is refused naming the library, and with the toolkit's
# stub library (STUB; skipped where the file is absent) the line's creation
# is refused cleanly.  Both exit 2 with the coded Backend error on stderr and
# nothing on stdout.
set -u
. "$(dirname "$0")/lib.sh"
fixtures=$2
stub=$3
trace=$fixtures/short.csv
host=$(dirname "$0")/../../data/hosts/waitpkg.host

# refused NAME LIBRARY NEEDLE: exit 2, nothing on stdout, NEEDLE on stderr.
refused() {
    name=$1 library=$2 needle=$3
    GAR_CUDA_LIBRARY=$library "$gar" verify "$trace" --plan poll --device cuda \
        --host "$host" >"$tmp/out" 2>"$tmp/err"
    status=$?
    [ "$status" -eq 2 ] || fail "$name: exit $status, wanted 2"
    [ -s "$tmp/out" ] && fail "$name: printed on stdout: $(cat "$tmp/out")"
    grep -qF -- "$needle" "$tmp/err" || fail "$name: stderr lacks '$needle': $(cat "$tmp/err")"
}

refused "no driver" "$tmp/no-libcuda.so.1" \
    "error 8 (Backend): dlopen($tmp/no-libcuda.so.1) failed: Unavailable"
if [ -f "$stub" ]; then
    refused "stub driver" "$stub" \
        "error 8 (Backend): cuInit failed: Unavailable: CUDA_ERROR_STUB_LIBRARY"
else
    echo "skipped: no stub library at $stub"
fi

"$gar" verify --help >"$tmp/out" 2>&1 || fail "--help: exit $?"
grep -q 'cuda' "$tmp/out" || fail "--help does not name the cuda device"

[ "$failures" -eq 0 ] || exit 1
echo "ok"
