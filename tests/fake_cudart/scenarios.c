/* tests/fake_cudart/scenarios.c — the runtime's answers an interposer must
 * leave exactly as they are, over the fake libcudart.so.12: run it plain and
 * under libgar-sync.so, and each scenario must give the same codes.
 *
 * usage: scenarios NAME, NAME one of
 *   fault     a kernel faults: the synchronise that waits for it returns the
 *             sticky cudaErrorIllegalAddress, as does the next one
 *   pending   a launch is refused (a pending error): the next synchronise
 *             still returns success and cudaGetLastError the refusal, then
 *             success
 *   capture   a synchronise of a stream being captured returns
 *             cudaErrorStreamCaptureUnsupported and invalidates the capture
 *             (its end returns cudaErrorStreamCaptureInvalidated)
 *   event     a synchronise of an event never recorded returns at once with
 *             success; of a recorded one, after its work
 *   flags     cudaSetDeviceFlags(BlockingSync) before the first wait: waits
 *             still end after their work
 *   context   a stream of another context than the current one (CUDA: made
 *             in a context of the driver's, cuCtxCreate_v2, popped again;
 *             HIP: made while device 1 was current): its synchronise returns
 *             success after its work
 * Prints "NAME: ok" and exits 0, or says what differed and exits 1. */
#include <stdio.h>
#include <string.h>

#include "fake_cudart_api.h"

#ifndef FAKE_HIP
/* The fake driver's calls (libcuda.so.1), as cuda.h declares them. */
typedef struct CUctx_st *CUcontext;
int cuCtxCreate_v2(CUcontext *ctx, unsigned flags, int device);
int cuCtxPopCurrent_v2(CUcontext *ctx);
int cuStreamCreate(cudaStream_t *stream, unsigned flags);
#endif

static int failures;

static void expect(cudaError_t got, cudaError_t want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "scenarios: %s returned %s (%d), expected %s (%d)\n", what,
                cudaGetErrorName(got), got, cudaGetErrorName(want), want);
        failures++;
    }
}

static void expect_done(cudaStream_t s, const char *what)
{
    if (fakecudart_pending(s) != 0) {
        fprintf(stderr, "scenarios: %s returned before its work was done\n", what);
        failures++;
    }
}

static void fault(void)
{
    cudaStream_t s;
    expect(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
    /* 200 ms first, so the sync starts before the fault on a loaded host. */
    expect(fakecudart_launch(s, 200000000, 0, 0), cudaSuccess, "launch");
    expect(fakecudart_launch(s, 1000000, cudaErrorIllegalAddress, 0), cudaSuccess, "launch");
    expect(cudaStreamSynchronize(s), cudaErrorIllegalAddress, "cudaStreamSynchronize (fault)");
    expect_done(s, "cudaStreamSynchronize (fault)");
    expect(cudaStreamSynchronize(s), cudaErrorIllegalAddress, "cudaStreamSynchronize (after)");
    expect(cudaDeviceSynchronize(), cudaErrorIllegalAddress, "cudaDeviceSynchronize (after)");
}

static void pending(void)
{
    cudaStream_t s;
    expect(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
    expect(fakecudart_launch(s, 2000000, 0, 0), cudaSuccess, "launch");
    expect(fakecudart_launch(s, 1000, 0, cudaErrorInvalidConfiguration),
           cudaErrorInvalidConfiguration, "refused launch");
    expect(cudaStreamSynchronize(s), cudaSuccess, "cudaStreamSynchronize (pending)");
    expect_done(s, "cudaStreamSynchronize (pending)");
    expect(cudaGetLastError(), cudaErrorInvalidConfiguration, "cudaGetLastError");
    expect(cudaGetLastError(), cudaSuccess, "cudaGetLastError (again)");
}

static void capture(void)
{
    cudaStream_t s;
    expect(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
    expect(cudaStreamBeginCapture(s, 0), cudaSuccess, "cudaStreamBeginCapture");
    expect(fakecudart_launch(s, 1000000, 0, 0), cudaSuccess, "launch (captured)");
    expect(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported,
           "cudaStreamSynchronize (capturing)");
    void *graph;
    expect(cudaStreamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated,
           "cudaStreamEndCapture");
    expect(fakecudart_launch(s, 1000000, 0, 0), cudaSuccess, "launch");
    expect(cudaStreamSynchronize(s), cudaSuccess, "cudaStreamSynchronize (after capture)");
    expect_done(s, "cudaStreamSynchronize (after capture)");
}

static void event(void)
{
    cudaEvent_t e;
    cudaStream_t s;
    expect(cudaEventCreate(&e), cudaSuccess, "cudaEventCreate");
    expect(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
    expect(cudaEventSynchronize(e), cudaSuccess, "cudaEventSynchronize (unrecorded)");
    expect(fakecudart_launch(s, 3000000, 0, 0), cudaSuccess, "launch");
    expect(cudaEventRecord(e, s), cudaSuccess, "cudaEventRecord");
    expect(cudaEventSynchronize(e), cudaSuccess, "cudaEventSynchronize");
    expect_done(s, "cudaEventSynchronize");
    expect(cudaEventQuery(e), cudaSuccess, "cudaEventQuery");
}

static void flags(void)
{
    expect(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), cudaSuccess, "cudaSetDeviceFlags");
    cudaStream_t s;
    expect(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
    for (int i = 0; i < 20; i++) {
        expect(fakecudart_launch(s, 500000, 0, 0), cudaSuccess, "launch");
        expect(cudaStreamSynchronize(s), cudaSuccess, "cudaStreamSynchronize (blocking)");
        expect_done(s, "cudaStreamSynchronize (blocking)");
    }
    expect(fakecudart_launch(cudaStreamPerThread, 500000, 0, 0), cudaSuccess, "launch");
    expect(cudaStreamSynchronize_ptsz(NULL), cudaSuccess, "cudaStreamSynchronize_ptsz");
    expect_done(cudaStreamPerThread, "cudaStreamSynchronize_ptsz");
}

/* A stream of another context than the current one. */
static cudaStream_t foreign_stream(void)
{
    cudaStream_t s = NULL;
#ifdef FAKE_HIP
    expect(cudaSetDevice(1), cudaSuccess, "hipSetDevice(1)");
    expect(cudaStreamCreate(&s), cudaSuccess, "hipStreamCreate (device 1)");
    expect(cudaSetDevice(0), cudaSuccess, "hipSetDevice(0)");
#else
    CUcontext ctx;
    expect(cuCtxCreate_v2(&ctx, 0, 0), cudaSuccess, "cuCtxCreate_v2");
    expect(cuStreamCreate(&s, 0), cudaSuccess, "cuStreamCreate (own context)");
    expect(cuCtxPopCurrent_v2(NULL), cudaSuccess, "cuCtxPopCurrent_v2");
#endif
    return s;
}

static void context(void)
{
    cudaStream_t s = foreign_stream();
    expect(fakecudart_launch(s, 2000000, 0, 0), cudaSuccess, "launch");
    expect(cudaStreamSynchronize(s), cudaSuccess, "cudaStreamSynchronize (other context)");
    expect_done(s, "cudaStreamSynchronize (other context)");
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } all[] = { { "fault", fault }, { "pending", pending }, { "capture", capture },
                { "event", event }, { "flags", flags }, { "context", context } };
    for (size_t i = 0; argc == 2 && i < sizeof all / sizeof *all; i++)
        if (strcmp(argv[1], all[i].name) == 0) {
            all[i].run();
            if (failures)
                return 1;
            printf("%s: ok\n", all[i].name);
            return 0;
        }
    fprintf(stderr, "usage: scenarios fault|pending|capture|event|flags|context\n");
    return 2;
}
