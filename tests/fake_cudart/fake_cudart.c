/* tests/fake_cudart/fake_cudart.c — a stand-in for libcudart.so.12: the
 * runtime calls gar's interposer takes over or needs, with the real symbol
 * names and version (libcudart.map), over the fake streams of
 * fake_runtime.h.  Kernels are launched with fakecudart_launch (its own
 * version node, FAKECUDART_0: no real runtime has it).  Handles: stream 0 is
 * the legacy default stream, cudaStreamPerThread (2) the calling thread's,
 * and every `_ptsz` entry reads 0 as the calling thread's.  Built with
 * -DFAKE_HIP it is libamdhip64.so.6 (libamdhip64.map): the same calls under
 * HIP's names (fake_cudart_api.h), `_spt` for `_ptsz`. */
#include "fake_runtime.h"
#include "fake_cudart_api.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum {
    SUCCESS = 0,
    INVALID_VALUE = 1,
    NOT_READY = 600,
    CAPTURE_UNSUPPORTED = 900,
    CAPTURE_INVALIDATED = 901,
};

static void set_codes_once(void)
{
    static const fake_codes cuda = { SUCCESS, NOT_READY, INVALID_VALUE, CAPTURE_UNSUPPORTED,
                                     CAPTURE_INVALIDATED };
    fake_set_codes(&cuda);
}

static void set_codes(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, set_codes_once);
}

/* The fake stream a handle names; `per_thread` reads 0 as the thread's. */
static fake_stream *stream_of(cudaStream_t handle, int per_thread)
{
    set_codes();
    uintptr_t h = (uintptr_t)handle;
    if (h == 0)
        return per_thread ? fake_thread_stream() : fake_legacy_stream();
    if (h == 1)
        return fake_legacy_stream();
    if (h == 2)
        return fake_thread_stream();
    return (fake_stream *)handle;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    if (!stream)
        return INVALID_VALUE;
    set_codes();
    *stream = (cudaStream_t)fake_stream_new();
    return SUCCESS;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags)
{
    (void)flags;
    return cudaStreamCreate(stream);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if ((uintptr_t)stream < 3)
        return INVALID_VALUE;
    fake_stream_destroy((fake_stream *)stream);
    return SUCCESS;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return fake_stream_query(stream_of(stream, 0));
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    return fake_stream_query(stream_of(stream, 1));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return fake_stream_synchronize(stream_of(stream, 0));
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return fake_stream_synchronize(stream_of(stream, 1));
}

cudaError_t cudaDeviceSynchronize(void)
{
    set_codes();
    return fake_device_synchronize();
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    if (!event)
        return INVALID_VALUE;
    set_codes();
    *event = (cudaEvent_t)fake_event_new();
    return SUCCESS;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags)
{
    (void)flags;
    return cudaEventCreate(event);
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!event)
        return INVALID_VALUE;
    fake_event_destroy((fake_event *)event);
    return SUCCESS;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (!event)
        return INVALID_VALUE;
    return fake_event_record((fake_event *)event, stream_of(stream, 0));
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    if (!event)
        return INVALID_VALUE;
    return fake_event_record((fake_event *)event, stream_of(stream, 1));
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    set_codes();
    return event ? fake_event_query((fake_event *)event) : INVALID_VALUE;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    set_codes();
    return event ? fake_event_synchronize((fake_event *)event) : INVALID_VALUE;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    set_codes();
    return fake_event_elapsed(ms, (fake_event *)start, (fake_event *)end);
}

cudaError_t cudaSetDeviceFlags(unsigned flags)
{
    set_codes();
    switch (flags & 0x7u) {
    case 0: /* cudaDeviceScheduleAuto: spins, as with a free core */
    case 1: /* cudaDeviceScheduleSpin */
        return fake_set_schedule(FAKE_SPIN);
    case 2: /* cudaDeviceScheduleYield */
        return fake_set_schedule(FAKE_YIELD);
    case 4: /* cudaDeviceScheduleBlockingSync */
        return fake_set_schedule(FAKE_BLOCK);
    }
    return INVALID_VALUE;
}

cudaError_t cudaGetDeviceFlags(unsigned *flags)
{
    if (!flags)
        return INVALID_VALUE;
    static const unsigned of[] = { 1u, 2u, 4u };
    *flags = of[fake_get_schedule()] | 0x8u; /* cudaDeviceMapHost, always on */
    return SUCCESS;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return INVALID_VALUE;
    *device = 0;
    return SUCCESS;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? SUCCESS : 101; /* cudaErrorInvalidDevice */
}

cudaError_t cudaGetLastError(void)
{
    set_codes();
    return fake_last_error(1);
}

cudaError_t cudaPeekAtLastError(void)
{
    set_codes();
    return fake_last_error(0);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, int *status)
{
    if (!status)
        return INVALID_VALUE;
    *status = (int)fake_capture_status(stream_of(stream, 0));
    return SUCCESS;
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, int *status)
{
    if (!status)
        return INVALID_VALUE;
    *status = (int)fake_capture_status(stream_of(stream, 1));
    return SUCCESS;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode)
{
    (void)mode;
    return fake_capture_begin(stream_of(stream, 0));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, void **graph)
{
    if (graph)
        *graph = NULL;
    return fake_capture_end(stream_of(stream, 0));
}

const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
    case SUCCESS: return "cudaSuccess";
    case INVALID_VALUE: return "cudaErrorInvalidValue";
    case NOT_READY: return "cudaErrorNotReady";
    case 700: return "cudaErrorIllegalAddress";
    case CAPTURE_UNSUPPORTED: return "cudaErrorStreamCaptureUnsupported";
    case CAPTURE_INVALIDATED: return "cudaErrorStreamCaptureInvalidated";
    }
    return "cudaErrorUnknown";
}

cudaError_t fakecudart_launch(cudaStream_t stream, uint64_t duration_ns, int fault, int refuse)
{
    return fake_launch(stream_of(stream, 0), duration_ns, fault, refuse);
}

uint64_t fakecudart_pending(cudaStream_t stream)
{
    return fake_stream_pending(stream_of(stream, 0));
}
