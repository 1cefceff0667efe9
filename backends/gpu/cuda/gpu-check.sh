#!/bin/sh
# backends/gpu/cuda/gpu-check.sh [BUILD_DIR] — the first thing to run on a machine
# with an NVIDIA GPU: configures a build that must have the CUDA backend
# (-Dcuda=enabled), builds it, and runs the backends suite verbosely, so
# the real-GPU tests (which skip, exit 77, without a GPU) run for real and
# print what each measured wait did, then gar verify's CUDA device tests,
# and last `gar verify` of the steady trace on the GPU under poll and under
# auto:p99_us=100, printing each real run beside the simulator's (their
# verdicts are reported, not required), and last `gar run` of a small CUDA
# program built here (run_check.cu) with its waits taken over.  The
# script fails when cuda_gpu or verify_cuda_gpu skipped: on a GPU machine
# that means the driver or the device was not found, and the test's output
# above says why.
#
#   GAR_CUDA_LIBRARY=/path/to/libcuda.so.1   use another driver library
#   NVIDIA_TOOLKIT=/usr/local/cuda           where cuda.h and nvcc are
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-"$root/build-gpu"}
toolkit=${NVIDIA_TOOLKIT:-/usr/local/cuda}

if [ -d "$build" ]; then
    meson setup --reconfigure "$build" "$root" -Dcuda=enabled -Dnvidia_toolkit="$toolkit" -Dwerror=true
else
    meson setup "$build" "$root" -Dcuda=enabled -Dnvidia_toolkit="$toolkit" -Dwerror=true
fi
ninja -C "$build"
meson test -C "$build" --suite backends --print-errorlogs -v
log=$build/meson-logs/testlog.json
if grep '"name": "[^"]*cuda_gpu"' "$log" | grep -q '"result": "SKIP"'; then
    echo "gpu-check: cuda_gpu skipped: no GPU was used (see its output above)" >&2
    exit 1
fi
echo "gpu-check: the CUDA backend ran on the GPU"

meson test -C "$build" verify_cuda verify_cuda_cli verify_cuda_gpu --print-errorlogs -v
log=$build/meson-logs/testlog.json
if grep '"name": "[^"]*verify_cuda_gpu"' "$log" | grep -q '"result": "SKIP"'; then
    echo "gpu-check: verify_cuda_gpu skipped: no GPU was used (see its output above)" >&2
    exit 1
fi

echo "gpu-check: gar verify data/traces/steady.csv --plan poll --device cuda"
status=0
"$build/experiments/gar" verify "$root/data/traces/steady.csv" --plan poll --device cuda \
    --host "$root/data/hosts/waitpkg.host" || status=$?
case $status in
0) echo "gpu-check: gar verify on the GPU: the real and simulated runs agree" ;;
1) echo "gpu-check: gar verify on the GPU: the runs disagree (see the checks above)" ;;
*) echo "gpu-check: gar verify on the GPU was refused (exit $status)" >&2; exit 1 ;;
esac

# The auto plan on the GPU: the rule decides every real wait (its choices
# per park are in the kinds line), against the simulator deciding its own.
echo "gpu-check: gar verify data/traces/steady.csv --plan auto:p99_us=100 --device cuda"
status=0
"$build/experiments/gar" verify "$root/data/traces/steady.csv" --plan auto:p99_us=100 \
    --device cuda --host "$root/data/hosts/waitpkg.host" || status=$?
case $status in
0) echo "gpu-check: auto on the GPU: the real and simulated runs agree" ;;
1) echo "gpu-check: auto on the GPU: the runs disagree (see the checks above)" ;;
*) echo "gpu-check: auto on the GPU was refused (exit $status)" >&2; exit 1 ;;
esac

# gar run on the GPU: a small unmodified CUDA program (run_check.cu, built
# here with the runtime linked shared) with its waits taken over by auto,
# checking after every wait that the kernel's end mark is in host memory,
# run first without gar run and then with it, and the wake latency and busy
# CPU the program measured both times printed side by side (gar run's own
# summary says how many waits took the mapped line); then its recording
# replayed and checked against the simulator.  Skipped, saying why, where
# nvcc is missing; a program that finds no GPU (exit 77) skips it too.
nvcc=$(command -v nvcc || echo "$toolkit/bin/nvcc")
if [ ! -x "$nvcc" ]; then
    echo "gpu-check: gar run step skipped: no nvcc (set NVIDIA_TOOLKIT)"
    exit 0
fi
"$nvcc" -O2 -cudart shared -o "$build/run_check" "$here/run_check.cu"
# First plain, under the runtime's own (spinning) synchronise, then under gar
# run: the same program measures its wake latency and busy CPU both times.
status=0
"$build/run_check" 2000 500 >"$build/run_check.plain" || status=$?
cat "$build/run_check.plain"
case $status in
0) ;;
77) echo "gpu-check: gar run step skipped: the program found no GPU"; exit 0 ;;
*) echo "gpu-check: run_check failed on its own (exit $status)" >&2; exit 1 ;;
esac
status=0
"$build/experiments/gar" run --plan auto:p99_us=50 --report --record "$build/run_check.csv" \
    -- "$build/run_check" 2000 500 >"$build/run_check.gar" || status=$?
cat "$build/run_check.gar"
case $status in
0) echo "gpu-check: gar run on the GPU: every wait ended after its work" ;;
77) echo "gpu-check: gar run step skipped: the program found no GPU"; exit 0 ;;
*) echo "gpu-check: gar run on the GPU failed (exit $status)" >&2; exit 1 ;;
esac
echo "gpu-check: run_check side by side (wake latency from the kernel's end; busy CPU of the process):"
printf '  %-28s %s\n' "plain (the runtime's spin)" \
    "$(sed -n 's/^run_check: wake_us //p' "$build/run_check.plain")"
printf '  %-28s %s\n' "gar run auto:p99_us=50" \
    "$(sed -n 's/^run_check: wake_us //p' "$build/run_check.gar")"
status=0
"$build/experiments/gar" verify --trace-of-run "$build/run_check.csv" \
    --host "$root/data/hosts/waitpkg.host" || status=$?
case $status in
0 | 1) echo "gpu-check: gar verify --trace-of-run on the GPU's run: exit $status (1: disagree)" ;;
*) echo "gpu-check: gar verify --trace-of-run was refused (exit $status)" >&2; exit 1 ;;
esac
