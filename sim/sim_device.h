/* sim/sim_device.h — a simulated device: in-order streams, a completion line per eight.
 *
 * Each stream executes its work items in the order they were enqueued: an
 * item submitted at `submit` that takes `duration` completes at
 * max(submit, the stream's previous completion) + duration.  Its status turns
 * done at that instant.  Arming an item enqueues, behind it, the store of
 * the stream's next sequence number into the stream's word (below); the
 * store lands store_delay_ns after the later of the completion and
 * the arm (a store cannot land before it was enqueued).  The simulator's
 * host reads the lines only through gar_line_load, as a real host would.
 *
 * Faults are chosen per item when it is enqueued:
 *   ERROR       from its completion on, the status query answers
 *               GAR_E_DEVICE_FAULT and the store never lands;
 *   HANG        the item never completes (nor does anything after it on its
 *               stream): status pending forever, no store;
 *   LOST_STORE  status turns done on time but the store never lands (the
 *               sequence number is still used up, as a store into the void);
 *   LATE_STORE  the store lands late_store_ns after it otherwise would.
 *
 * Time is the caller's: every call takes the virtual `now`, and the device
 * changes only when told (a store lands in its line on the first call whose
 * `now` is at or past it).  One pending store per stream is kept: arming an
 * item while its stream's earlier store is still in flight keeps stores in
 * order (the new one lands no earlier than the old) and the old value is
 * never seen, which only a waiter on the old target — already done — could
 * notice.
 *
 * Any number of streams.  Stream s owns word s % 8 of line s / 8: the device
 * holds one completion line per eight streams, so a stream's word is never
 * shared and a waiter's park sees the stores of at most seven neighbours.
 * The pending stores sit in a min-heap by landing time (one entry per
 * stream with a store in flight), so advancing the device costs O(log n)
 * per store that lands and O(1) when none is due, however many streams
 * there are; the status of one item touches only its own stream.
 *
 * Ownership: the device is a caller-owned value whose init allocates one
 * block (the lines, the per-stream state and the heap: about 60 bytes a
 * stream, through the allocation hook, alloc.h); gar_sim_device_free
 * releases it.  Not thread-safe: one simulated host drives it. */
#ifndef GAR_SIM_DEVICE_H
#define GAR_SIM_DEVICE_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/line.h>
#include <gar/time.h>

/* The most streams a device takes: its heap positions are 32-bit. */
#define GAR_SIM_STREAMS_MAX (UINT32_MAX - 1u)
#define GAR_SIM_NOT_PENDING UINT32_MAX /* a stream with no store in the heap */

typedef enum gar_sim_fault {
    GAR_SIM_FAULT_NONE,
    GAR_SIM_FAULT_ERROR,
    GAR_SIM_FAULT_HANG,
    GAR_SIM_FAULT_LOST_STORE,
    GAR_SIM_FAULT_LATE_STORE,
} gar_sim_fault;

typedef struct gar_sim_device_options {
    unsigned streams;          /* 1 .. GAR_SIM_STREAMS_MAX (memory permitting) */
    gar_dur_ns store_delay_ns; /* completion (or arm, if later) to the store landing */
    gar_dur_ns late_store_ns;  /* the extra delay of a LATE_STORE item's store */
} gar_sim_device_options;

typedef struct gar_sim_stream {
    gar_mono_ns last_done; /* completion of the latest item; 0 before any; NEVER once one hung */
    uint64_t items;        /* items enqueued so far */
    uint64_t next_seq;     /* the value the next arm stores; the word starts at 0 */
    gar_mono_ns store_at;  /* the pending store lands then; GAR_MONO_NEVER when none */
    uint64_t store_value;
    uint32_t heap_at;      /* its place in the pending heap; GAR_SIM_NOT_PENDING when none */
} gar_sim_stream;

typedef struct gar_sim_device {
    gar_line *lines;          /* ceil(streams / 8) lines, 64-byte aligned; in `block` */
    gar_sim_stream *streams;  /* one per stream; in `block` */
    uint32_t *pending;        /* min-heap of streams by store_at; in `block` */
    uint32_t pending_count;
    gar_mono_ns due;          /* the heap top's store_at; GAR_MONO_NEVER when empty */
    gar_sim_device_options options;
    void *block;              /* the one allocation, owned */
} gar_sim_device;

/* One item of pending work: what one wait awaits.  Filled by enqueue and
 * arm; the caller keeps it for the wait and never edits it. */
typedef struct gar_sim_work {
    unsigned stream;
    uint64_t index;        /* the item's number on its stream, from 0 */
    gar_mono_ns done_at;   /* completion (or failure); GAR_MONO_NEVER for a hung item */
    gar_sim_fault fault;
    bool armed;
    gar_descriptor word;   /* once armed: the slot reaching the store's value */
    gar_mono_ns store_at;  /* once armed: when the word moves; GAR_MONO_NEVER if never */
} gar_sim_work;

/* Sets up an idle device with new lines (all words 0).  Returns 0, or
 * (device untouched, nothing to free) -GAR_E_INVALID_ARGUMENT for NULL
 * pointers or a stream count outside 1..GAR_SIM_STREAMS_MAX, or
 * -GAR_E_CAPACITY when its memory cannot be had. */
int gar_sim_device_init(gar_sim_device *dev, const gar_sim_device_options *options,
                        gar_error *err);

/* Makes room for `streams` streams (more than it has; fewer or as many is
 * a no-op), keeping every stream's state, word and pending store: for a run
 * that learns its streams as the trace names them.  The lines move, so no
 * work may be armed or awaited across the call.  Returns 0, or (device
 * unchanged) -GAR_E_INVALID_ARGUMENT for a count past GAR_SIM_STREAMS_MAX or
 * -GAR_E_CAPACITY. */
int gar_sim_device_grow(gar_sim_device *dev, unsigned streams, gar_error *err);

/* Releases what init allocated; the device must be initialised again before
 * any other use.  Accepts NULL and a device already freed. */
void gar_sim_device_free(gar_sim_device *dev);

/* The line that holds `stream`'s word (word stream % 8 of it). */
static inline gar_line *gar_sim_device_line(gar_sim_device *dev, unsigned stream)
{
    assert(stream < dev->options.streams);
    return &dev->lines[stream / GAR_LINE_WORDS];
}

/* Enqueues one item on `stream` and describes it in `out`.  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT for a stream out of range or an unknown fault.
 * The completion saturates at GAR_MONO_NEVER - 1 (a huge duration is late,
 * not hung: only HANG never completes).  Inline (below): once a wait; its
 * refusals are out of line. */
static inline int gar_sim_device_enqueue(gar_sim_device *dev, unsigned stream,
                                         gar_mono_ns submit, gar_dur_ns duration,
                                         gar_sim_fault fault, gar_sim_work *out, gar_error *err);

/* The refusal gar_sim_device_enqueue gives for its arguments (out of line:
 * it writes text), or 0 when it has none. */
int gar_sim_device_enqueue_refuse(const gar_sim_device *dev, unsigned stream,
                                  gar_sim_fault fault, const gar_sim_work *out, gar_error *err);

/* The status query at `now`: 1 done, 0 pending, or -GAR_E_DEVICE_FAULT with
 * `err` naming the stream and item, for an ERROR item from its completion
 * on.  Lands the stores due by `now` first.  Inline, with advance below: the
 * simulated host asks several times a wait, millions of waits a second. */
static inline int gar_sim_device_status(gar_sim_device *dev, const gar_sim_work *work,
                                        gar_mono_ns now, gar_error *err);

/* Arms `work` at `now`: enqueues the store of its stream's next sequence
 * number behind it, and fills work->word and work->store_at.  Arming twice
 * enqueues a second store, as a port would.  Inline (below): a flag wait
 * arms once; the rare cases go to gar_sim_device_arm_store. */
static inline void gar_sim_device_arm(gar_sim_device *dev, gar_sim_work *work, gar_mono_ns now);

/* The store of an arm past its word (the fault's rule, behind a store still
 * in flight, one that never lands), `value` its sequence number: any arm's
 * way, out of line. */
void gar_sim_device_arm_store(gar_sim_device *dev, gar_sim_work *work, gar_mono_ns now,
                              uint64_t value);

/* Puts `stream`'s store (its store_at set) into the heap of pending ones. */
void gar_sim_device_pend(gar_sim_device *dev, unsigned stream);

/* Lets the device reach `now`: every store due by then lands in its line. */
static inline void gar_sim_device_advance(gar_sim_device *dev, gar_mono_ns now);

/* The fault's name ("none", "error", "hang", "lost-store", "late-store"),
 * or "?" out of range; and its inverse, returning -1 for an unknown name. */
const char *gar_sim_fault_name(gar_sim_fault fault);
int gar_sim_fault_from_name(const char *name);

/* ---- the inline calls' bodies -------------------------------------------- */

/* The status of an ERROR item once it completed: the coded refusal.  Out of
 * line: it writes text, and runs at most once a replay. */
int gar_sim_device_fault_status(const gar_sim_work *work, gar_error *err);

/* Takes `stream`'s entry out of the heap of pending stores, the heap
 * reordered around the hole (out of line: a busy heap's case). */
void gar_sim_device_unpend(gar_sim_device *dev, unsigned stream);

/* Lands the pending store of `stream` into its word and takes it out of
 * the heap; nothing when it has none.  Inline: once a store, and with one
 * stream in flight (a wait's own) the heap's last entry, which leaves
 * nothing to reorder. */
static inline void gar_sim_device_land(gar_sim_device *dev, unsigned stream)
{
    gar_sim_stream *s = &dev->streams[stream];
    if (s->heap_at == GAR_SIM_NOT_PENDING)
        return; /* nothing in flight (asked at `now` = GAR_MONO_NEVER) */
    gar_slot slot = { (uint8_t)(stream % GAR_LINE_WORDS) };
    gar_line_store(&dev->lines[stream / GAR_LINE_WORDS], slot, s->store_value);
    s->store_at = GAR_MONO_NEVER;
    if (s->heap_at + 1 == dev->pending_count) {
        if (s->heap_at == 0)
            dev->due = GAR_MONO_NEVER; /* the last store in flight */
        s->heap_at = GAR_SIM_NOT_PENDING;
        dev->pending_count--;
    } else {
        gar_sim_device_unpend(dev, stream);
    }
}

/* Lands the stream's pending store when it is due by `now`. */
static inline void gar_sim_device_land_due(gar_sim_device *dev, unsigned stream, gar_mono_ns now)
{
    if (dev->streams[stream].store_at <= now)
        gar_sim_device_land(dev, stream);
}

static inline void gar_sim_device_advance(gar_sim_device *dev, gar_mono_ns now)
{
    /* The heap's top is the earliest store in flight: nothing is due when
     * it is not.  Its time is kept beside the heap, one load, not three in
     * a chain (the top's stream, then its store), each query a wait.  The
     * count is asked too: `now` may be GAR_MONO_NEVER, an empty heap's due. */
    while (dev->due <= now && dev->pending_count > 0)
        gar_sim_device_land(dev, dev->pending[0]);
}

static inline int gar_sim_device_enqueue(gar_sim_device *dev, unsigned stream,
                                         gar_mono_ns submit, gar_dur_ns duration,
                                         gar_sim_fault fault, gar_sim_work *out, gar_error *err)
{
    if (dev == NULL || out == NULL || stream >= dev->options.streams ||
        (unsigned)fault > (unsigned)GAR_SIM_FAULT_LATE_STORE)
        return gar_sim_device_enqueue_refuse(dev, stream, fault, out, err);
    gar_sim_stream *s = &dev->streams[stream];
    gar_mono_ns done = GAR_MONO_NEVER;
    if (fault != GAR_SIM_FAULT_HANG && s->last_done != GAR_MONO_NEVER) {
        gar_mono_ns begin = submit > s->last_done ? submit : s->last_done;
        done = gar_after(begin, duration);
        if (done == GAR_MONO_NEVER)
            done = GAR_MONO_NEVER - 1;
    }
    s->last_done = done;
    *out = (gar_sim_work){
        .stream = stream,
        .index = s->items++,
        .done_at = done,
        .fault = fault,
        .armed = false,
        .store_at = GAR_MONO_NEVER,
    };
    return 0;
}

static inline void gar_sim_device_arm(gar_sim_device *dev, gar_sim_work *work, gar_mono_ns now)
{
    assert(work->stream < dev->options.streams);
    gar_sim_stream *s = &dev->streams[work->stream];
    gar_sim_device_land_due(dev, work->stream, now);
    uint64_t value = s->next_seq++;
    work->armed = true;
    work->word = (gar_descriptor){ gar_sim_device_line(dev, work->stream),
                                   { (uint8_t)(work->stream % GAR_LINE_WORDS) }, value };
    work->store_at = GAR_MONO_NEVER;
    /* The usual arm: a good item on a stream with no store in flight, its
     * store landing store_delay after the completion (or the arm). */
    gar_mono_ns from = work->done_at > now ? work->done_at : now;
    gar_mono_ns at = gar_after(from, dev->options.store_delay_ns);
    if (work->fault != GAR_SIM_FAULT_NONE || s->store_at != GAR_MONO_NEVER ||
        at == GAR_MONO_NEVER) {
        gar_sim_device_arm_store(dev, work, now, value);
        return;
    }
    s->store_at = at;
    s->store_value = value;
    work->store_at = at;
    if (dev->pending_count == 0) { /* the heap's only entry: nothing to sift */
        dev->pending[0] = work->stream;
        s->heap_at = 0;
        dev->pending_count = 1;
        dev->due = at;
    } else {
        gar_sim_device_pend(dev, work->stream);
    }
}

static inline int gar_sim_device_status(gar_sim_device *dev, const gar_sim_work *work,
                                        gar_mono_ns now, gar_error *err)
{
    assert(work->stream < dev->options.streams);
    gar_sim_device_land_due(dev, work->stream, now);
    if (work->done_at == GAR_MONO_NEVER || now < work->done_at)
        return 0;
    if (work->fault == GAR_SIM_FAULT_ERROR)
        return gar_sim_device_fault_status(work, err);
    return 1;
}

#endif
