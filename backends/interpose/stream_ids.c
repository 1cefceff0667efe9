/* backends/interpose/stream_ids.c — the process's numbers for the streams its
 * waits name (sync_wait.h: gar_sync_stream_id). */
#include "sync_wait.h"

#include <pthread.h>
#include <stddef.h>

#define STREAMS_MAX 256u /* numbered streams; later ones share the last number */

typedef struct stream_entry {
    const void *handle;
    uint32_t thread; /* 0, or the owning thread's mark for a per-thread stream */
} stream_entry;

static pthread_mutex_t ids_mu = PTHREAD_MUTEX_INITIALIZER;
static stream_entry entries[STREAMS_MAX];
static unsigned entry_count;
static _Thread_local char thread_mark; /* its address tells threads apart */

static void lock_ids(void)
{
    pthread_mutex_lock(&ids_mu);
}

static void unlock_ids(void)
{
    pthread_mutex_unlock(&ids_mu);
}

/* The table's lock is held across fork, so a child never inherits it held. */
static void install_fork_hooks(void)
{
    pthread_atfork(lock_ids, unlock_ids, unlock_ids);
}

uint32_t gar_sync_stream_id(const void *handle, bool per_thread)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_fork_hooks);
    /* A per-thread stream is one per thread behind one handle: its entry is
     * keyed by the thread's mark instead. */
    const void *key = per_thread ? (const void *)&thread_mark : handle;
    pthread_mutex_lock(&ids_mu);
    uint32_t id = 0;
    for (unsigned i = 0; i < entry_count && !id; i++)
        if (entries[i].handle == key && entries[i].thread == (per_thread ? 1u : 0u))
            id = i + 1;
    if (!id) {
        if (entry_count < STREAMS_MAX)
            entries[entry_count++] = (stream_entry){ key, per_thread ? 1u : 0u };
        id = entry_count;
    }
    pthread_mutex_unlock(&ids_mu);
    return id;
}

unsigned gar_sync_known_streams(const void **out, unsigned max)
{
    unsigned n = 0;
    pthread_mutex_lock(&ids_mu);
    for (unsigned i = 0; i < entry_count && n < max; i++)
        if (!entries[i].thread)
            out[n++] = entries[i].handle;
    pthread_mutex_unlock(&ids_mu);
    return n;
}
