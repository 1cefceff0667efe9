#!/bin/sh
# backends/cuda/gpu-check.sh [BUILD_DIR] — the first thing to run on a machine
# with an NVIDIA GPU: configures a build that must have the CUDA backend
# (-Dcuda=enabled), builds it, and runs the backends suite verbosely, so
# the real-GPU tests (which skip, exit 77, without a GPU) run for real and
# print what each measured wait did.  The script fails when cuda_gpu
# skipped: on a GPU machine that means the driver or the device was not
# found, and the test's output above says why.
#
#   GAR_CUDA_LIBRARY=/path/to/libcuda.so.1   use another driver library
#   NVIDIA_TOOLKIT=/usr/local/cuda           where cuda.h and nvcc are
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-"$root/build-gpu"}
toolkit=${NVIDIA_TOOLKIT:-/usr/local/cuda}

if [ -d "$build" ]; then
    meson setup --reconfigure "$build" "$root" -Dcuda=enabled -Dnvidia_toolkit="$toolkit" -Dwerror=true
else
    meson setup "$build" "$root" -Dcuda=enabled -Dnvidia_toolkit="$toolkit" -Dwerror=true
fi
ninja -C "$build"
meson test -C "$build" --suite backends --print-errorlogs -v

if grep '"name": "[^"]*cuda_gpu"' "$build/meson-logs/testlog.json" | grep -q '"result": "SKIP"'; then
    echo "gpu-check: cuda_gpu skipped: no GPU was used (see its output above)" >&2
    exit 1
fi
echo "gpu-check: the CUDA backend ran on the GPU"
