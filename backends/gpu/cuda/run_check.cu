// backends/gpu/cuda/run_check.cu — a small unmodified CUDA program for
// gpu-check.sh's `gar run` step: kernels that spin on the GPU's clock for a
// given time, each followed by a synchronise (stream, event or device, in
// turn), and after each a check that the kernel's own end mark is in host
// memory: a wait that returned early would find it missing.  Built with
// `nvcc -cudart shared`, so the runtime's calls go through libcudart.so.12,
// where gar run's interposer can take them over.
//
// usage: run_check [WAITS] [MICROSECONDS]   (default 2000 waits of 500 us)
// Exits 0 when every wait found its work done, 1 when one did not, 77 when
// there is no GPU.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void spin_then_mark(long long cycles, volatile unsigned *mark, unsigned value)
{
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
    __threadfence_system();
    *mark = value;
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
    cudaStream_t stream;
    cudaEvent_t event;
    cudaStreamCreate(&stream);
    cudaEventCreate(&event);
    int early = 0, errors = 0;
    for (int i = 1; i <= waits; i++) {
        spin_then_mark<<<1, 1, 0, stream>>>((long long)khz * us / 1000, device_mark, (unsigned)i);
        cudaError_t rc;
        if (i % 8 == 0) {
            cudaEventRecord(event, stream);
            rc = cudaEventSynchronize(event);
        } else if (i % 8 == 1) {
            rc = cudaDeviceSynchronize();
        } else {
            rc = cudaStreamSynchronize(stream);
        }
        errors += rc != cudaSuccess;
        early += *(volatile unsigned *)mark != (unsigned)i;
    }
    printf("run_check: %d waits, %d early, %d errors\n", waits, early, errors);
    return early || errors ? 1 : 0;
}
