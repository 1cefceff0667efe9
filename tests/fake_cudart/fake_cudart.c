/* tests/fake_cudart/fake_cudart.c — a stand-in for libcudart.so.12: the
 * runtime calls gar's interposer takes over or needs, with the real symbol
 * names and version (libcudart.map), over the fake streams of
 * fake_runtime.h.  Kernels are launched with fakecudart_launch (its own
 * version node, FAKECUDART_0: no real runtime has it).  Handles: stream 0 is
 * the legacy default stream, cudaStreamPerThread (2) the calling thread's,
 * and every `_ptsz` entry reads 0 as the calling thread's.  The streams,
 * devices and contexts are the fake driver's (fake_cuda.c, libcuda.so.1,
 * which this library links against); cudaSetDevice takes device 0 or 1.  Built with
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
    return fake_stream_of((uintptr_t)handle, per_thread);
}

/* The calls on one stream that come in a plain and a per-thread form. */
enum stream_call { QUERY, SYNCHRONIZE, RECORD, IS_CAPTURING };

/* One call on the stream `handle` names (`per_thread`: the `_ptsz` form);
 * `event` for RECORD, `status` for IS_CAPTURING. */
static cudaError_t on_stream(enum stream_call call, cudaStream_t handle, int per_thread,
                             cudaEvent_t event, int *status)
{
    fake_stream *s = stream_of(handle, per_thread);
    switch (call) {
    case QUERY:
        return fake_stream_query(s);
    case SYNCHRONIZE:
        if (fake_stream_pending(s))
            fake_count_found_pending();
        return fake_stream_synchronize(s);
    case RECORD:
        return event ? fake_event_record((fake_event *)event, s) : INVALID_VALUE;
    case IS_CAPTURING:
    default:
        if (!status)
            return INVALID_VALUE;
        *status = (int)fake_capture_status(s);
        return SUCCESS;
    }
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags)
{
    (void)flags;
    if (!stream)
        return INVALID_VALUE;
    set_codes();
    *stream = (cudaStream_t)fake_stream_new(fake_current_ctx());
    return SUCCESS;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    return cudaStreamCreateWithFlags(stream, 0);
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
    return on_stream(QUERY, stream, 0, NULL, NULL);
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    return on_stream(QUERY, stream, 1, NULL, NULL);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return on_stream(SYNCHRONIZE, stream, 0, NULL, NULL);
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return on_stream(SYNCHRONIZE, stream, 1, NULL, NULL);
}

cudaError_t cudaDeviceSynchronize(void)
{
    set_codes();
    return fake_device_synchronize();
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags)
{
    (void)flags;
    if (!event)
        return INVALID_VALUE;
    set_codes();
    *event = (cudaEvent_t)fake_event_new();
    return SUCCESS;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, 0);
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
    return on_stream(RECORD, stream, 0, event, NULL);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return on_stream(RECORD, stream, 1, event, NULL);
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    set_codes();
    return event ? fake_event_query((fake_event *)event) : INVALID_VALUE;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    set_codes();
    if (event && fake_event_pending((fake_event *)event))
        fake_count_found_pending();
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
    *device = fake_get_device();
    return SUCCESS;
}

cudaError_t cudaSetDevice(int device)
{
    return fake_set_device(device) ? SUCCESS : 101; /* cudaErrorInvalidDevice */
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
    return on_stream(IS_CAPTURING, stream, 0, NULL, status);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, int *status)
{
    return on_stream(IS_CAPTURING, stream, 1, NULL, status);
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

void fakecudart_record(uint64_t *stores, uint64_t *syncs_found_pending)
{
    *stores = fake_stores_done();
    *syncs_found_pending = fake_syncs_found_pending();
}
