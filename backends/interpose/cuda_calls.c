/* backends/interpose/cuda_calls.c — the CUDA runtime's synchronising calls as
 * libgar-sync.so defines them (exported unversioned, libgar-sync.map, which
 * binds them to a program linked against libcudart.so.12 or .13): cudaStreamSynchronize, cudaEventSynchronize,
 * cudaDeviceSynchronize and the per-thread default stream variants.
 *
 * Each finds the real call (real_cuda.h), decides whether the wait can be
 * taken over, and in every case ends with the real call, which then returns
 * at once, and returns what it returned (sync_wait.h says why).  Not taken
 * over, and logged with the reason: a stream being captured into a graph (the
 * real call refuses it, and must be the one to), a call made while an error
 * is pending (the real call reports it), a stream of another context
 * (mapped_lines.h).  A stream wait taken over waits on the mapped line the
 * stream writes where the device can write it (mapped_lines.h routes it),
 * else by status query; an event's and the device's waits by status query.
 *
 * Errors: after a taken-over wait the real synchronising call is made once.
 * The work is done by then, so it returns at once, and it is the only call
 * that returns exactly what the program would have seen: a status query
 * could answer "not ready" for work another thread queued since, and the
 * driver's codes are not the runtime's. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mapped_lines.h"
#include "real_cuda.h"
#include "sync_wait.h"

#ifdef GAR_SYNC_HIP
#define gar_sync_vendor_route gar_sync_hip_route
/* HIP's names for the same calls (hip_calls.c). */
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamSynchronize_ptsz hipStreamSynchronize_spt
#define cudaEventSynchronize hipEventSynchronize
#define cudaDeviceSynchronize hipDeviceSynchronize
#else
#define gar_sync_vendor_route gar_sync_cuda_route
#endif

#define CUDA_SUCCESS_CODE 0
#define CUDA_NOT_READY 600
#define CUDA_ERROR_UNKNOWN 999
#define PER_THREAD_HANDLE ((cudaStream_t)(uintptr_t)2) /* cudaStreamPerThread */
#define KNOWN_STREAMS_MAX 64u

/* The calls this library defines in the program's place: the only symbols
 * it exports (the build hides everything else). */
#define EXPORT __attribute__((visibility("default")))
EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream);
EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event);
EXPORT cudaError_t cudaDeviceSynchronize(void);

/* The runtime's answer as a port answers: 1 done, 0 pending, <0 failure. */
static int as_query(cudaError_t rc)
{
    return rc == CUDA_SUCCESS_CODE ? 1 : rc == CUDA_NOT_READY ? 0 : -(int)rc;
}

static int as_block(cudaError_t rc)
{
    return rc == CUDA_SUCCESS_CODE ? 0 : -(int)rc;
}

/* ---- a stream's wait ----------------------------------------------------- */

typedef struct stream_wait {
    const gar_real_cuda *real;
    cudaStream_t stream; /* PER_THREAD_HANDLE for the thread's own default stream */
} stream_wait;

static int stream_query(void *arg)
{
    const stream_wait *w = arg;
    return as_query(w->real->stream_query(w->stream));
}

static int stream_block(void *arg)
{
    const stream_wait *w = arg;
    return as_block(w->real->stream_synchronize(w->stream));
}

static uint64_t stream_stamp(void *arg, bool mark)
{
    const stream_wait *w = arg;
    return mark ? gar_real_cuda_mark(w->real, w->stream) : gar_real_cuda_marked_done(w->real);
}

/* Why the wait on `stream` cannot be taken over, or NULL. */
static const char *stream_refusal(const gar_real_cuda *real, cudaStream_t stream)
{
    if (real->peek_at_last_error() != CUDA_SUCCESS_CODE)
        return "error pending";
    int capturing = 0;
    if (real->stream_is_capturing(stream, &capturing) != CUDA_SUCCESS_CODE || capturing != 0)
        return "graph capture";
    return NULL;
}

/* The current device's ordinal, or -1 when the runtime cannot say. */
static int current_device(const gar_real_cuda *real)
{
    int device = -1;
    return real->get_device && real->get_device(&device) == CUDA_SUCCESS_CODE ? device : -1;
}

static cudaError_t synchronize_stream(cudaStream_t stream, bool per_thread_default,
                                      const char *call)
{
    const gar_real_cuda *real = gar_real_cuda_find();
    if (!real)
        return CUDA_ERROR_UNKNOWN;
    if (per_thread_default && stream == NULL)
        stream = PER_THREAD_HANDLE;
    if (!gar_sync_enabled())
        return real->stream_synchronize(stream);
    bool per_thread = stream == PER_THREAD_HANDLE;
    stream_wait w = { real, stream };
    gar_sync_work work = { .call = call,
                           .key = per_thread ? PER_THREAD_HANDLE : stream,
                           .stream_id = gar_sync_stream_id(stream, per_thread),
                           .query = stream_query, .block = stream_block, .arg = &w,
                           .stamp = stream_stamp };
    const char *refusal = stream_refusal(real, stream);
    if (refusal)
        return (cudaError_t)-gar_sync_pass(&work, refusal);
    gar_sync_route route;
    gar_sync_vendor_route(stream, current_device(real), gar_sync_idle(), &route);
    if (route.path == GAR_SYNC_PASS)
        return (cudaError_t)-gar_sync_pass(&work, route.why);
    if (gar_sync_sample_baseline())
        return (cudaError_t)-gar_sync_pass(&work, "baseline");
    if (route.path == GAR_SYNC_MAPPED)
        work.mapped = route.port;
    else
        work.query_why = route.why;
    gar_sync_take(&work);
    return real->stream_synchronize(stream);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return synchronize_stream(stream, false, GAR_RT_NAME("StreamSynchronize"));
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    return synchronize_stream(stream, true, GAR_RT_NAME("StreamSynchronize"));
}

/* ---- an event's wait ------------------------------------------------------ */

typedef struct event_wait {
    const gar_real_cuda *real;
    cudaEvent_t event;
} event_wait;

static int event_query(void *arg)
{
    const event_wait *w = arg;
    return as_query(w->real->event_query(w->event));
}

static int event_block(void *arg)
{
    const event_wait *w = arg;
    return as_block(w->real->event_synchronize(w->event));
}

static uint64_t event_stamp(void *arg, bool mark)
{
    const event_wait *w = arg;
    return mark ? 0 : gar_real_cuda_event_done(w->real, w->event);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    const gar_real_cuda *real = gar_real_cuda_find();
    if (!real)
        return CUDA_ERROR_UNKNOWN;
    if (!gar_sync_enabled())
        return real->event_synchronize(event);
    event_wait w = { real, event };
    gar_sync_work work = { .call = GAR_RT_NAME("EventSynchronize"), .key = event,
                           .query = event_query, .block = event_block, .arg = &w,
                           .stamp = event_stamp };
    if (real->peek_at_last_error() != CUDA_SUCCESS_CODE)
        return (cudaError_t)-gar_sync_pass(&work, "error pending");
    if (gar_sync_sample_baseline())
        return (cudaError_t)-gar_sync_pass(&work, "baseline");
    gar_sync_take(&work);
    return real->event_synchronize(event);
}

/* ---- the device's wait ---------------------------------------------------- */

/* Done when the legacy stream and every stream the process waited on before
 * is: a stream it never named is left to the real call that follows. */
static int device_query(void *arg)
{
    const gar_real_cuda *real = arg;
    const void *known[KNOWN_STREAMS_MAX];
    unsigned n = gar_sync_known_streams(known, KNOWN_STREAMS_MAX);
    int answer = as_query(real->stream_query(NULL));
    for (unsigned i = 0; i < n && answer == 1; i++)
        if (known[i] != NULL && known[i] != PER_THREAD_HANDLE)
            answer = as_query(real->stream_query((cudaStream_t)known[i]));
    return answer;
}

static int device_block(void *arg)
{
    const gar_real_cuda *real = arg;
    return as_block(real->device_synchronize());
}

cudaError_t cudaDeviceSynchronize(void)
{
    const gar_real_cuda *real = gar_real_cuda_find();
    if (!real)
        return CUDA_ERROR_UNKNOWN;
    if (!gar_sync_enabled())
        return real->device_synchronize();
    gar_sync_work work = { .call = GAR_RT_NAME("DeviceSynchronize"), .query = device_query,
                           .block = device_block, .arg = (void *)real };
    if (real->peek_at_last_error() != CUDA_SUCCESS_CODE)
        return (cudaError_t)-gar_sync_pass(&work, "error pending");
    if (gar_sync_sample_baseline())
        return (cudaError_t)-gar_sync_pass(&work, "baseline");
    gar_sync_take(&work);
    return real->device_synchronize();
}
