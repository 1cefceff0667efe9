/* backends/devices/emulated_device.c — scheduled work completed by a store thread,
 * with a status counter per stream as the port's authority. */
#define _POSIX_C_SOURCE 200809L

#include <gar/emulated.h>

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops_version.h"
#include "cpu_relax.h"

/* One item as its port sees it: the port's context. */
typedef struct item_port {
    gar_emulated_device *dev;
    size_t index;    /* in the schedule, for messages */
    unsigned stream;
    gar_line *line;  /* the stream's line */
    gar_slot slot;   /* the stream's word of it */
    uint64_t seq;    /* the item's number on its stream, from 1: the value its store writes */
} item_port;

struct gar_emulated_device {
    gar_line *lines;             /* one per eight streams, 64-byte aligned */
    _Atomic uint64_t *completed; /* items finished, per stream */
    unsigned streams;
    atomic_bool stopped;
    pthread_mutex_t mutex; /* guards nothing but the wait on `changed` */
    pthread_cond_t changed; /* broadcast after every bump, and on stop */
    gar_idle park;
    gar_store_thread *thread;
    size_t count;
    item_port *items;  /* count, in schedule order */
    size_t *by_time;   /* store i of the thread is item by_time[i] */
    gar_mono_ns *stored_at; /* count, in the thread's order: filled by the join */
};

/* ---- the thread's side ---------------------------------------------------- */

/* Runs on the store thread right after store `index` landed. */
static void item_completed(void *ctx, size_t index, gar_mono_ns stored_at)
{
    (void)stored_at;
    gar_emulated_device *dev = ctx;
    const item_port *item = &dev->items[dev->by_time[index]];
    /* Status first, at once: a poller sees it without waiting on the lock.
     * The broadcast then comes under the mutex, so a blocked waiter that
     * checked the counter before this store is already waiting (it holds the
     * mutex from its check to its wait) and cannot miss it. */
    atomic_store_explicit(&dev->completed[item->stream], item->seq, memory_order_release);
    pthread_mutex_lock(&dev->mutex);
    pthread_cond_broadcast(&dev->changed);
    pthread_mutex_unlock(&dev->mutex);
}

/* ---- the port ------------------------------------------------------------- */

static bool item_done(const item_port *item)
{
    return atomic_load_explicit(&item->dev->completed[item->stream], memory_order_acquire) >=
           item->seq;
}

static int stopped_fault(const item_port *item, gar_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "the emulated device was stopped before item %zu completed",
             item->index);
    return gar_error_set(err, GAR_E_DEVICE_FAULT, 1, what);
}

static int port_query(void *ctx, gar_error *err)
{
    const item_port *item = ctx;
    if (item_done(item))
        return 1;
    /* Look again after seeing the stop: the item may have completed between. */
    if (atomic_load_explicit(&item->dev->stopped, memory_order_acquire) && !item_done(item))
        return stopped_fault(item, err);
    return 0;
}

static int port_block(void *ctx, gar_error *err)
{
    const item_port *item = ctx;
    gar_emulated_device *dev = item->dev;
    if (!item_done(item)) {
        pthread_mutex_lock(&dev->mutex);
        while (!item_done(item) && !atomic_load_explicit(&dev->stopped, memory_order_acquire))
            pthread_cond_wait(&dev->changed, &dev->mutex);
        pthread_mutex_unlock(&dev->mutex);
    }
    int status = port_query(ctx, err);
    assert(status != 0); /* done, or stopped */
    return status < 0 ? status : 0;
}

static int port_poll(void *ctx, gar_error *err)
{
    gar_cpu_relax();
    return port_query(ctx, err);
}

static int port_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    (void)err;
    const item_port *item = ctx;
    *word = (gar_descriptor){ .line = item->line, .slot = item->slot, .target = item->seq };
    return 0;
}

static int port_park(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err)
{
    const item_port *item = ctx;
    const gar_idle park = item->dev->park;
    if (park.ops == NULL || park.ops->park == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_emulated_device park", "park",
                             "was started without a park");
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(word->line, seen);
    if (gar_seq_reached(seen[word->slot.index], word->target))
        return 1;
    int rc = park.ops->park(park.ctx, word->line, seen, until, err);
    if (rc < 0)
        return rc;
    /* Another stream's store also changes the line: only our word says 1. */
    return gar_descriptor_reached(word) ? 1 : 0;
}

static const gar_port_ops emulated_port_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = port_query,
    .block = port_block,
    .poll = port_poll,
    .arm = port_arm,
    .park = port_park,
};

/* ---- set-up and tear-down ------------------------------------------------- */

static int refuse(gar_error *err, const char *argument, const char *what)
{
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_emulated_device_start", argument,
                         what);
}

static int no_memory(gar_error *err)
{
    return gar_error_set(err, GAR_E_BACKEND, 2, "allocating the emulated device",
                         strerror(ENOMEM));
}

static void device_free(gar_emulated_device *dev)
{
    free(dev->lines);
    free(dev->completed);
    free(dev->items);
    free(dev->by_time);
    free(dev->stored_at);
    free(dev);
}

/* Sorts `order` (item indices) by completion time, stably: a stream's items
 * keep their order, so its stores carry increasing numbers.  A bottom-up
 * merge sort through `tmp` (count indices): O(count log count) whatever
 * the interleaving, where an insertion sort took O(count^2) on streams
 * whose times cross.  A run already in order costs one comparison a merge
 * step. */
static void sort_by_time(size_t *order, size_t *tmp, const gar_emulated_item *schedule,
                         size_t count)
{
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    size_t *from = order, *to = tmp;
    for (size_t width = 1; width < count; width *= 2) {
        for (size_t lo = 0; lo < count; lo += 2 * width) {
            size_t mid = lo + width < count ? lo + width : count;
            size_t hi = mid + width < count ? mid + width : count;
            size_t a = lo, b = mid, k = lo;
            /* Ties take the left run first: that is what keeps it stable. */
            while (a < mid && b < hi)
                to[k++] = schedule[from[b]].done_at < schedule[from[a]].done_at ? from[b++]
                                                                                : from[a++];
            while (a < mid)
                to[k++] = from[a++];
            while (b < hi)
                to[k++] = from[b++];
        }
        size_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != order)
        memcpy(order, from, count * sizeof *order);
}

int gar_emulated_device_start(gar_emulated_device **out, const gar_emulated_item *schedule,
                              size_t count, gar_idle park, int cpu, gar_error *err)
{
    if (out == NULL)
        return refuse(err, "out", "is NULL");
    if (schedule == NULL)
        return refuse(err, "schedule", "is NULL");
    if (count == 0)
        return refuse(err, "count", "is 0 (a device needs work)");
    if (park.ops != NULL) {
        int checked = gar__ops_version_check("gar_emulated_device_start", "gar_idle_ops",
                                             park.ops->version, GAR_IDLE_OPS_VERSION, err);
        if (checked < 0)
            return checked;
    }
    /* A bound on the streams that bounds the memory by the schedule. */
    const size_t stream_limit = count > GAR_LINE_WORDS ? count : GAR_LINE_WORDS;
    unsigned streams = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned s = schedule[i].stream;
        if (s >= stream_limit) {
            char what[128];
            snprintf(what, sizeof what,
                     "has item %zu on stream %u (streams are 0..%zu: number them densely)", i,
                     s, stream_limit - 1);
            return refuse(err, "schedule", what);
        }
        streams = s + 1 > streams ? s + 1 : streams;
    }

    gar_emulated_device *dev = calloc(1, sizeof *dev);
    if (dev == NULL)
        return no_memory(err);
    size_t lines = ((size_t)streams + GAR_LINE_WORDS - 1) / GAR_LINE_WORDS;
    dev->lines = aligned_alloc(GAR_LINE_BYTES, lines * sizeof *dev->lines);
    dev->completed = calloc(streams, sizeof *dev->completed);
    dev->streams = streams;
    atomic_init(&dev->stopped, false);
    dev->park = park;
    dev->count = count;
    dev->items = calloc(count, sizeof *dev->items);
    dev->by_time = calloc(count, sizeof *dev->by_time);
    dev->stored_at = calloc(count, sizeof *dev->stored_at);
    gar_store *stores = calloc(count, sizeof *stores);
    /* Per stream, scratch: the latest time seen, then the next number. */
    gar_mono_ns *last = calloc(streams, sizeof *last);
    if (dev->lines == NULL || dev->completed == NULL || dev->items == NULL ||
        dev->by_time == NULL || dev->stored_at == NULL || stores == NULL || last == NULL) {
        free(stores);
        free(last);
        device_free(dev);
        return no_memory(err);
    }
    for (size_t i = 0; i < count; i++) {
        unsigned s = schedule[i].stream;
        if (schedule[i].done_at < last[s]) {
            char what[96];
            snprintf(what, sizeof what,
                     "has item %zu due before the item before it on stream %u", i, s);
            free(stores);
            free(last);
            device_free(dev);
            return refuse(err, "schedule", what);
        }
        last[s] = schedule[i].done_at;
    }
    for (size_t l = 0; l < lines; l++)
        gar_line_init(&dev->lines[l]);
    for (unsigned s = 0; s < streams; s++) {
        atomic_init(&dev->completed[s], 0);
        last[s] = 0;
    }

    for (size_t i = 0; i < count; i++) {
        unsigned s = schedule[i].stream;
        dev->items[i] = (item_port){
            .dev = dev,
            .index = i,
            .stream = s,
            .line = &dev->lines[s / GAR_LINE_WORDS],
            .slot = { .index = (uint8_t)(s % GAR_LINE_WORDS) },
            .seq = ++last[s],
        };
    }
    free(last);
    size_t *scratch = malloc(count * sizeof *scratch);
    if (scratch == NULL) {
        free(stores);
        device_free(dev);
        return no_memory(err);
    }
    sort_by_time(dev->by_time, scratch, schedule, count);
    free(scratch);
    for (size_t k = 0; k < count; k++) {
        const item_port *item = &dev->items[dev->by_time[k]];
        stores[k] = (gar_store){
            .slot = item->slot,
            .value = item->seq,
            .at = schedule[dev->by_time[k]].done_at,
            .line = item->line,
        };
    }

    int rc = pthread_mutex_init(&dev->mutex, NULL);
    if (rc != 0) {
        free(stores);
        device_free(dev);
        return gar_error_set(err, GAR_E_BACKEND, 2, "pthread_mutex_init", strerror(rc));
    }
    rc = pthread_cond_init(&dev->changed, NULL);
    if (rc != 0) {
        pthread_mutex_destroy(&dev->mutex);
        free(stores);
        device_free(dev);
        return gar_error_set(err, GAR_E_BACKEND, 2, "pthread_cond_init", strerror(rc));
    }
    const gar_store_thread_options thread_options = {
        .notify = item_completed,
        .notify_ctx = dev,
        .cpu = cpu,
    };
    rc = gar_store_thread_start_with(&dev->thread, &dev->lines[0], stores, count,
                                     &thread_options, err);
    free(stores); /* the thread keeps its own copy */
    if (rc < 0) {
        pthread_cond_destroy(&dev->changed);
        pthread_mutex_destroy(&dev->mutex);
        device_free(dev);
        return rc;
    }
    *out = dev;
    return 0;
}

int gar_emulated_device_port(gar_emulated_device *dev, size_t item, gar_port *out,
                             gar_error *err)
{
    if (dev == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_emulated_device_port",
                             dev == NULL ? "dev" : "out", "is NULL");
    if (item >= dev->count) {
        char what[64];
        snprintf(what, sizeof what, "is %zu, past the schedule's %zu items", item, dev->count);
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_emulated_device_port", "item",
                             what);
    }
    *out = (gar_port){ .ops = &emulated_port_ops, .ctx = &dev->items[item] };
    return 0;
}

gar_line *gar_emulated_device_line(gar_emulated_device *dev, unsigned stream)
{
    assert(dev != NULL);
    return stream < dev->streams ? &dev->lines[stream / GAR_LINE_WORDS] : NULL;
}

int gar_emulated_device_stop(gar_emulated_device *dev, gar_error *err)
{
    if (dev == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_emulated_device_stop", "dev",
                             "is NULL");
    int rc = gar_store_thread_stop(dev->thread, err);
    assert(rc == 0);
    (void)rc;
    pthread_mutex_lock(&dev->mutex);
    atomic_store_explicit(&dev->stopped, true, memory_order_release);
    pthread_cond_broadcast(&dev->changed);
    pthread_mutex_unlock(&dev->mutex);
    return 0;
}

int gar_emulated_device_finish(gar_emulated_device *dev, gar_mono_ns *completed_at,
                               gar_error *err)
{
    if (dev == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_emulated_device_finish", "dev",
                             "is NULL");
    int rc = gar_store_thread_join(dev->thread, dev->stored_at, NULL, err);
    assert(rc == 0);
    (void)rc;
    if (completed_at != NULL)
        for (size_t k = 0; k < dev->count; k++)
            completed_at[dev->by_time[k]] = dev->stored_at[k];
    pthread_cond_destroy(&dev->changed);
    pthread_mutex_destroy(&dev->mutex);
    device_free(dev);
    return 0;
}
