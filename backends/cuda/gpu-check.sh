#!/bin/sh
# backends/cuda/gpu-check.sh [BUILD_DIR] — the first thing to run on a machine
# with an NVIDIA GPU: configures a build that must have the CUDA backend
# (-Dcuda=enabled), builds it, and runs the backends suite verbosely, so
# the real-GPU tests (which skip, exit 77, without a GPU) run for real and
# print what each measured wait did.  Any skip of cuda_gpu here means the
# driver or the device was not found: its output says why.
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
