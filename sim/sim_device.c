/* sim/sim_device.c — in-order streams, their status, and their stores. */
#include "sim/sim_device.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "sim/trace/alloc.h"

static const char *const fault_names[] = {
    [GAR_SIM_FAULT_NONE] = "none",
    [GAR_SIM_FAULT_ERROR] = "error",
    [GAR_SIM_FAULT_HANG] = "hang",
    [GAR_SIM_FAULT_LOST_STORE] = "lost-store",
    [GAR_SIM_FAULT_LATE_STORE] = "late-store",
};
#define FAULT_COUNT (sizeof fault_names / sizeof fault_names[0])

const char *gar_sim_fault_name(gar_sim_fault fault)
{
    return (unsigned)fault < FAULT_COUNT ? fault_names[fault] : "?";
}

int gar_sim_fault_from_name(const char *name)
{
    for (unsigned i = 0; name != NULL && i < FAULT_COUNT; i++)
        if (strcmp(name, fault_names[i]) == 0)
            return (int)i;
    return -1;
}

/* The one block of a device with `streams` streams: its lines first (the
 * block is aligned to a line by hand, gar_malloc being plain malloc), then
 * the streams, then the heap.  False when the size does not fit a size_t. */
static bool block_layout(unsigned streams, size_t *streams_at, size_t *heap_at, size_t *bytes)
{
    /* Under 128 bytes a stream, all told; in a double, as a 64-bit size_t
     * never overflows here and the compiler would say so. */
    if ((double)streams * 128.0 > (double)SIZE_MAX / 2)
        return false;
    size_t lines = ((size_t)streams + GAR_LINE_WORDS - 1) / GAR_LINE_WORDS;
    *streams_at = lines * sizeof(gar_line);
    *heap_at = *streams_at + (size_t)streams * sizeof(gar_sim_stream);
    *bytes = *heap_at + (size_t)streams * sizeof(uint32_t) + GAR_LINE_BYTES - 1;
    return true;
}

int gar_sim_device_init(gar_sim_device *dev, const gar_sim_device_options *options,
                        gar_error *err)
{
    if (dev == NULL || options == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_init",
                             dev == NULL ? "dev" : "options", "is NULL");
    if (options->streams < 1 || options->streams > GAR_SIM_STREAMS_MAX)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_init", "streams",
                             "is not 1..2^32 - 2");
    size_t streams_at, heap_at, bytes;
    void *block = NULL;
    if (block_layout(options->streams, &streams_at, &heap_at, &bytes))
        block = gar_malloc(bytes);
    if (block == NULL) {
        char what[64];
        snprintf(what, sizeof what, "memory for a simulated device of %u streams",
                 options->streams);
        return gar_error_set(err, GAR_E_CAPACITY, 2, what, "exhausted");
    }
    char *base = (char *)(((uintptr_t)block + GAR_LINE_BYTES - 1) & ~(uintptr_t)(GAR_LINE_BYTES - 1));
    memset(dev, 0, sizeof *dev);
    dev->block = block;
    dev->options = *options;
    dev->lines = (gar_line *)(void *)base;
    dev->streams = (gar_sim_stream *)(void *)(base + streams_at);
    dev->pending = (uint32_t *)(void *)(base + heap_at);
    dev->pending_count = 0;
    dev->due = GAR_MONO_NEVER;
    size_t lines = ((size_t)options->streams + GAR_LINE_WORDS - 1) / GAR_LINE_WORDS;
    for (size_t l = 0; l < lines; l++)
        gar_line_init(&dev->lines[l]);
    for (unsigned s = 0; s < options->streams; s++)
        dev->streams[s] = (gar_sim_stream){
            .last_done = 0,
            .items = 0,
            .next_seq = 1,
            .store_at = GAR_MONO_NEVER,
            .store_value = 0,
            .heap_at = GAR_SIM_NOT_PENDING,
        };
    return 0;
}

void gar_sim_device_free(gar_sim_device *dev)
{
    if (dev == NULL)
        return;
    gar_free(dev->block);
    memset(dev, 0, sizeof *dev);
}

int gar_sim_device_grow(gar_sim_device *dev, unsigned streams, gar_error *err)
{
    if (streams <= dev->options.streams)
        return 0;
    gar_sim_device_options options = dev->options;
    options.streams = streams;
    gar_sim_device bigger;
    int rc = gar_sim_device_init(&bigger, &options, err);
    if (rc < 0)
        return rc;
    for (unsigned s = 0; s < dev->options.streams; s++) {
        gar_slot slot = { (uint8_t)(s % GAR_LINE_WORDS) };
        gar_line_store(&bigger.lines[s / GAR_LINE_WORDS], slot,
                       gar_line_load(&dev->lines[s / GAR_LINE_WORDS], slot));
        bigger.streams[s] = dev->streams[s];
    }
    memcpy(bigger.pending, dev->pending, dev->pending_count * sizeof *dev->pending);
    bigger.pending_count = dev->pending_count;
    bigger.due = dev->due;
    gar_sim_device_free(dev);
    *dev = bigger;
    return 0;
}

/* ---- the heap of pending stores ------------------------------------------ */

static gar_mono_ns due_of(const gar_sim_device *dev, uint32_t place)
{
    return dev->streams[dev->pending[place]].store_at;
}

/* Every change of the heap's top comes through here (or empties it). */
static void heap_put(gar_sim_device *dev, uint32_t place, uint32_t stream)
{
    dev->pending[place] = stream;
    dev->streams[stream].heap_at = place;
    if (place == 0)
        dev->due = dev->streams[stream].store_at;
}

/* Moves the entry at `place` up while it is due before its parent. */
static void sift_up(gar_sim_device *dev, uint32_t place)
{
    uint32_t stream = dev->pending[place];
    gar_mono_ns at = dev->streams[stream].store_at;
    while (place > 0) {
        uint32_t parent = (place - 1) / 2;
        if (due_of(dev, parent) <= at)
            break;
        heap_put(dev, place, dev->pending[parent]);
        place = parent;
    }
    heap_put(dev, place, stream);
}

/* Moves the entry at `place` down while a child is due before it. */
static void sift_down(gar_sim_device *dev, uint32_t place)
{
    uint32_t stream = dev->pending[place];
    gar_mono_ns at = dev->streams[stream].store_at;
    const uint32_t n = dev->pending_count;
    for (;;) {
        uint64_t child = 2 * (uint64_t)place + 1;
        if (child >= n)
            break;
        if (child + 1 < n && due_of(dev, (uint32_t)child + 1) < due_of(dev, (uint32_t)child))
            child++;
        if (at <= due_of(dev, (uint32_t)child))
            break;
        heap_put(dev, place, dev->pending[child]);
        place = (uint32_t)child;
    }
    heap_put(dev, place, stream);
}

/* Takes `stream`'s entry out of the heap. */
static void heap_remove(gar_sim_device *dev, unsigned stream)
{
    gar_sim_stream *s = &dev->streams[stream];
    assert(s->heap_at < dev->pending_count && dev->pending[s->heap_at] == stream);
    uint32_t place = s->heap_at;
    s->heap_at = GAR_SIM_NOT_PENDING;
    uint32_t last = --dev->pending_count;
    if (last == 0)
        dev->due = GAR_MONO_NEVER;
    if (place == last)
        return;
    /* The last entry fills the hole; it may belong above or below it. */
    uint32_t moved = dev->pending[last];
    heap_put(dev, place, moved);
    sift_up(dev, place);
    if (dev->streams[moved].heap_at == place)
        sift_down(dev, place);
}

void gar_sim_device_unpend(gar_sim_device *dev, unsigned stream)
{
    heap_remove(dev, stream);
}

int gar_sim_device_enqueue_refuse(const gar_sim_device *dev, unsigned stream,
                                  gar_sim_fault fault, const gar_sim_work *out, gar_error *err)
{
    if (dev == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_enqueue",
                             dev == NULL ? "dev" : "out", "is NULL");
    if (stream >= dev->options.streams)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_enqueue", "stream",
                             "is past the device's streams");
    if ((unsigned)fault >= FAULT_COUNT)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_device_enqueue", "fault",
                             "is not a gar_sim_fault");
    return 0;
}

int gar_sim_device_fault_status(const gar_sim_work *work, gar_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "stream %u work item %llu failed", work->stream,
             (unsigned long long)work->index);
    return gar_error_set(err, GAR_E_DEVICE_FAULT, 1, what);
}

void gar_sim_device_pend(gar_sim_device *dev, unsigned stream)
{
    heap_put(dev, dev->pending_count++, stream);
    sift_up(dev, dev->streams[stream].heap_at);
}

void gar_sim_device_arm_store(gar_sim_device *dev, gar_sim_work *work, gar_mono_ns now,
                              uint64_t value)
{
    gar_sim_stream *s = &dev->streams[work->stream];
    switch (work->fault) {
    case GAR_SIM_FAULT_ERROR:
    case GAR_SIM_FAULT_HANG:
    case GAR_SIM_FAULT_LOST_STORE:
        return; /* the store never lands */
    case GAR_SIM_FAULT_NONE:
    case GAR_SIM_FAULT_LATE_STORE:
        break;
    }
    gar_mono_ns from = work->done_at > now ? work->done_at : now;
    gar_mono_ns at = gar_after(from, dev->options.store_delay_ns);
    if (work->fault == GAR_SIM_FAULT_LATE_STORE)
        at = gar_after(at, dev->options.late_store_ns);
    bool in_flight = s->store_at != GAR_MONO_NEVER;
    if (in_flight && s->store_at > at)
        at = s->store_at; /* in order behind the store still in flight */
    s->store_at = at;
    s->store_value = value;
    work->store_at = at;
    /* The heap holds exactly the streams whose store_at is not NEVER (a
     * time that saturated to NEVER is a store that never lands). */
    if (in_flight && at == GAR_MONO_NEVER) {
        heap_remove(dev, work->stream);
    } else if (in_flight) {
        sift_down(dev, s->heap_at); /* its time only moved later */
    } else if (at != GAR_MONO_NEVER) {
        gar_sim_device_pend(dev, work->stream);
    }
}
