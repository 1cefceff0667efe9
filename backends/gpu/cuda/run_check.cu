// backends/gpu/cuda/run_check.cu — a small unmodified CUDA program for
// gpu-check.sh's `gar run` step: kernels that spin on the GPU's clock for a
// given time, each followed by a synchronise (stream, event or device, in
// turn), and after each a check that the kernel's own end mark is in host
// memory: a wait that returned early would find it missing.  Built with
// `nvcc -cudart shared`, so the runtime's calls go through libcudart.so.12,
// where gar run's interposer can take them over.
//
// It also measures, the same way with and without gar run, what a wait cost:
//   wake latency  from the kernel's end (the GPU's %globaltimer, written
//                 beside the mark) to the synchronise's return, on the host
//                 clock; the two clocks' offset is the least (host sees the
//                 mark) - (GPU wrote it) over a few dozen spins on a mark, so
//                 latencies are high by at most that visibility (~1 us);
//   busy CPU      the process's CPU time over the loop, against its wall time.
//
// usage: run_check [WAITS] [MICROSECONDS]   (default 2000 waits of 500 us)
// Prints "run_check: W waits, E early, X errors" and "run_check: wake_us
// p50 A p99 B max C, busy_cpu_ms D of wall_ms E".  Exits 0 when every wait
// found its work done, 1 when one did not, 77 when there is no GPU.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include <cuda_runtime.h>

static __device__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin_then_mark(long long cycles, volatile unsigned *mark, unsigned value,
                               volatile unsigned long long *end_ns)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    *end_ns = global_ns();
    __threadfence_system();
    *mark = value;
}

static long long clock_ns(clockid_t id)
{
    timespec ts;
    clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// The least (host time the mark is seen) - (GPU time it was written): the
// host clock of a GPU time is that time plus this offset.
static long long clock_offset(unsigned *mark, unsigned *device_mark,
                              unsigned long long *end_ns, unsigned long long *device_end)
{
    long long best = 0;
    for (unsigned round = 1; round <= 50; round++) {
        *(volatile unsigned *)mark = 0;
        spin_then_mark<<<1, 1>>>(0, device_mark, 0x80000000u + round, device_end);
        while (*(volatile unsigned *)mark != 0x80000000u + round) {
        }
        long long seen = clock_ns(CLOCK_MONOTONIC);
        long long offset = seen - (long long)*(volatile unsigned long long *)end_ns;
        if (round == 1 || offset < best)
            best = offset;
        cudaDeviceSynchronize();
    }
    return best;
}

int main(int argc, char **argv)
{
    int waits = argc > 1 ? atoi(argv[1]) : 2000;
    int us = argc > 2 ? atoi(argv[2]) : 500;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "run_check: no CUDA device\n");
        return 77;
    }
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    unsigned *mark = nullptr;
    if (cudaHostAlloc((void **)&mark, sizeof *mark, cudaHostAllocMapped) != cudaSuccess)
        return 1;
    unsigned *device_mark = nullptr;
    cudaHostGetDevicePointer((void **)&device_mark, mark, 0);
    unsigned long long *end_ns = nullptr, *device_end = nullptr;
    if (cudaHostAlloc((void **)&end_ns, sizeof *end_ns, cudaHostAllocMapped) != cudaSuccess)
        return 1;
    cudaHostGetDevicePointer((void **)&device_end, end_ns, 0);
    long long offset = clock_offset(mark, device_mark, end_ns, device_end);
    std::vector<long long> wake;
    long long cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), wall0 = clock_ns(CLOCK_MONOTONIC);
    cudaStream_t stream;
    cudaEvent_t event;
    cudaStreamCreate(&stream);
    cudaEventCreate(&event);
    int early = 0, errors = 0;
    for (int i = 1; i <= waits; i++) {
        spin_then_mark<<<1, 1, 0, stream>>>((long long)khz * us / 1000, device_mark, (unsigned)i,
                                             device_end);
        cudaError_t rc;
        if (i % 8 == 0) {
            cudaEventRecord(event, stream);
            rc = cudaEventSynchronize(event);
        } else if (i % 8 == 1) {
            rc = cudaDeviceSynchronize();
        } else {
            rc = cudaStreamSynchronize(stream);
        }
        long long woke = clock_ns(CLOCK_MONOTONIC);
        errors += rc != cudaSuccess;
        early += *(volatile unsigned *)mark != (unsigned)i;
        wake.push_back(woke - ((long long)*(volatile unsigned long long *)end_ns + offset));
    }
    long long cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0, wall = clock_ns(CLOCK_MONOTONIC) - wall0;
    printf("run_check: %d waits, %d early, %d errors\n", waits, early, errors);
    std::sort(wake.begin(), wake.end());
    size_t n = wake.size();
    if (n > 0)
        printf("run_check: wake_us p50 %.1f p99 %.1f max %.1f, busy_cpu_ms %.1f of wall_ms %.1f\n",
               wake[(n - 1) / 2] / 1e3, wake[(n * 99 + 99) / 100 - 1] / 1e3, wake[n - 1] / 1e3,
               cpu / 1e6, wall / 1e6);
    return early || errors ? 1 : 0;
}
