/* backends/interpose/real_cuda.c — finding the real CUDA runtime, and the
 * completion times of waits; see real_cuda.h. */
#define _GNU_SOURCE
#include "real_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include <gar/posix.h>

#include "mapped_lines.h"

#define NON_BLOCKING_STREAM 1u
#define ANCHOR_RENEW_NS 1000000000u /* a float of ms keeps ~0.1 µs within a second */

/* The resolved table is published whole through an atomic pointer: a
 * thread that read it keeps a table no other thread writes.  A table
 * replaced after a dlclose is not freed (a thread may still hold it); it
 * is a hundred bytes per unload, kept on a list so it stays reachable. */
typedef struct kept_table {
    gar_real_cuda table; /* first: a table's address is its record's */
    struct kept_table *older;
} kept_table;
static kept_table *kept; /* with real_mu */
static pthread_mutex_t real_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(const gar_real_cuda *) published;
static unsigned long long real_generation = ~0ull;

static void *find(void *lib, const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn && lib)
        fn = dlsym(lib, name);
    return fn;
}

#define FIND(field, name) (*(void **)&real->field = find(lib, name))

/* A new table of what the loaded libraries hold, or NULL when they lack
 * a call the waits need (or memory ran out). */
static const gar_real_cuda *resolve(void)
{
    kept_table *record = calloc(1, sizeof *record);
    if (!record)
        return NULL;
    gar_real_cuda *real = &record->table;
#ifdef GAR_SYNC_HIP
    static const char *const libraries[] = { "libamdhip64.so.6", "libamdhip64.so.7",
                                             "libamdhip64.so" };
#else
    static const char *const libraries[] = { "libcudart.so.12", "libcudart.so.13" };
#endif
    void *lib = NULL;
    for (size_t i = 0; !lib && i < sizeof libraries / sizeof *libraries; i++)
        lib = dlopen(libraries[i], RTLD_LAZY | RTLD_NOLOAD);
    FIND(stream_synchronize, GAR_RT_NAME("StreamSynchronize"));
    FIND(stream_query, GAR_RT_NAME("StreamQuery"));
    FIND(event_synchronize, GAR_RT_NAME("EventSynchronize"));
    FIND(event_query, GAR_RT_NAME("EventQuery"));
    FIND(device_synchronize, GAR_RT_NAME("DeviceSynchronize"));
    FIND(peek_at_last_error, GAR_RT_NAME("PeekAtLastError"));
    FIND(stream_is_capturing, GAR_RT_NAME("StreamIsCapturing"));
    FIND(event_create_with_flags, GAR_RT_NAME("EventCreateWithFlags"));
    FIND(event_record, GAR_RT_NAME("EventRecord"));
    FIND(event_elapsed_time, GAR_RT_NAME("EventElapsedTime"));
    FIND(stream_create_with_flags, GAR_RT_NAME("StreamCreateWithFlags"));
    FIND(get_device, GAR_RT_NAME("GetDevice"));
    if (lib)
        dlclose(lib); /* drops only the reference NOLOAD took */
    if (real->stream_synchronize && real->stream_query && real->event_synchronize &&
        real->event_query && real->device_synchronize && real->peek_at_last_error &&
        real->stream_is_capturing) {
        record->older = kept;
        kept = record;
        return real;
    }
    free(record);
    return NULL;
}

/* Locks held across fork, so the child never inherits one held by a thread
 * that does not exist there. */
static pthread_mutex_t anchor_mu = PTHREAD_MUTEX_INITIALIZER;

static void lock_all(void)
{
    pthread_mutex_lock(&real_mu);
    pthread_mutex_lock(&anchor_mu);
}

static void unlock_all(void)
{
    pthread_mutex_unlock(&anchor_mu);
    pthread_mutex_unlock(&real_mu);
}

static void install_fork_hooks(void)
{
    pthread_atfork(lock_all, unlock_all, unlock_all);
}

const gar_real_cuda *gar_real_cuda_find(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_fork_hooks);
    unsigned long long generation = gar_sync_dl_generation();
    pthread_mutex_lock(&real_mu);
    if (generation != real_generation) {
        atomic_store(&published, resolve());
        real_generation = generation;
    }
    pthread_mutex_unlock(&real_mu);
    return atomic_load(&published);
}

/* ---- completion times ----------------------------------------------------- */

static struct {
    bool ok;
    pid_t pid;   /* events of a parent's runtime mean nothing in a child */
    int device;
    cudaEvent_t event;
    cudaStream_t stream;
    uint64_t host_ns; /* the anchor's completion on the host clock */
} anchor;

static _Thread_local struct {
    cudaEvent_t event;
    pid_t pid;
    bool marked;
} timing;

static bool has_timing_calls(const gar_real_cuda *r)
{
    return r->event_create_with_flags && r->event_record && r->event_elapsed_time &&
           r->stream_create_with_flags && r->get_device;
}

/* Renews the anchor when missing or a second old; with anchor_mu held. */
static bool renew_anchor(const gar_real_cuda *r, int device)
{
    uint64_t now = gar_posix_now();
    if (anchor.ok && anchor.pid == getpid() && anchor.device == device &&
        now - anchor.host_ns < ANCHOR_RENEW_NS)
        return true;
    if (anchor.pid != getpid()) {
        anchor.event = NULL;
        anchor.stream = NULL;
    }
    anchor.ok = false;
    anchor.pid = getpid();
    if (!anchor.event && r->event_create_with_flags(&anchor.event, 0) != 0)
        return false;
    if (!anchor.stream && r->stream_create_with_flags(&anchor.stream, NON_BLOCKING_STREAM) != 0)
        return false;
    uint64_t before = gar_posix_now();
    if (r->event_record(anchor.event, anchor.stream) != 0 ||
        r->event_synchronize(anchor.event) != 0)
        return false;
    uint64_t after = gar_posix_now();
    anchor.host_ns = before + (after - before) / 2;
    anchor.device = device;
    anchor.ok = true;
    return true;
}

/* The host time of `event`'s completion, or 0. */
static uint64_t done_of(const gar_real_cuda *r, cudaEvent_t event)
{
    int device = 0;
    if (!has_timing_calls(r) || r->get_device(&device) != 0)
        return 0;
    pthread_mutex_lock(&anchor_mu);
    uint64_t done = 0;
    float ms = 0;
    if (renew_anchor(r, device) && r->event_elapsed_time(&ms, anchor.event, event) == 0) {
        double ns = (double)anchor.host_ns + (double)ms * 1e6;
        done = ns > 0 ? (uint64_t)ns : 0;
    }
    pthread_mutex_unlock(&anchor_mu);
    return done;
}

uint64_t gar_real_cuda_mark(const gar_real_cuda *r, cudaStream_t stream)
{
    timing.marked = false;
    if (!has_timing_calls(r))
        return 0;
    if (timing.pid != getpid()) {
        timing.event = NULL;
        timing.pid = getpid();
    }
    if (!timing.event && r->event_create_with_flags(&timing.event, 0) != 0) {
        timing.event = NULL;
        return 0;
    }
    timing.marked = r->event_record(timing.event, stream) == 0;
    return 0;
}

uint64_t gar_real_cuda_marked_done(const gar_real_cuda *r)
{
    return timing.marked ? done_of(r, timing.event) : 0;
}

uint64_t gar_real_cuda_event_done(const gar_real_cuda *r, cudaEvent_t event)
{
    return done_of(r, event);
}
