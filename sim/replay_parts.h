/* sim/replay_parts.h — what the replay's files share (internal to
 * sim/replay*.c).
 *
 * The replay is three rooms: replay.c the run itself (the loop over a
 * block of waits, kept in one translation unit with the helpers it calls
 * each wait, so they inline); replay_setup.c the config's checks, the
 * run's setup (the state of new streams and points too) and teardown;
 * replay_output.c the run's numbers gathered into gar_replay_metrics and
 * the per-stream results.  The files call one way only: replay.c into
 * the other two, never back (the link-cycles test).  This header holds
 * the run's state, which all three read, and the functions one room calls
 * in another. */
#ifndef GAR_SIM_REPLAY_PARTS_H
#define GAR_SIM_REPLAY_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/auto_host.h"
#include "sim/quantile_sketch.h"
#include "sim/replay.h"
#include "sim/sim_host.h"
#include "sim/stream_sketch.h"
#include "sim/trace/key_index.h"

/* A sum of u64 values and the carries out of it.  Its total (wide_total)
 * is the sum saturated at UINT64_MAX, which is what adding each value with
 * gar_after gives (a sum of non-negative values that saturates once stays
 * saturated): an add and an add-with-carry a value, where saturating each
 * time took a compare and a select besides. */
typedef struct wide_sum {
    uint64_t low, carries;
} wide_sum;

static inline void wide_add(wide_sum *s, uint64_t x)
{
    s->low += x;
    s->carries += s->low < x;
}

static inline uint64_t wide_total(wide_sum s)
{
    return s.carries > 0 ? UINT64_MAX : s.low;
}

/* What the run keeps of one stream (device stream s is the s-th stream id
 * the trace names). */
typedef struct stream_state {
    gar_mono_ns recorded_done; /* the trace's done of the stream's latest row */
    uint64_t waits;
    wide_sum busy; /* its busy time (wide_total) */
} stream_state;

/* One block of scratch memory and its size in bytes. */
typedef struct block {
    void *at;
    size_t bytes;
} block;

struct gar_replay_scratch {
    gar_quantile_sketch overshoot, est_error; /* the run's values, bounded */
    block sort_space;                         /* a u64 per value a sketch keeps exactly */
    block estimators;                         /* a gar_family_point per point */
    block streams;                            /* a stream_state per stream */
    block slots, points;                      /* a u32 per row of a block each */
};

/* The run's totals over its waits, as they go into gar_replay_metrics. */
typedef struct totals {
    wide_sum busy, parked, asleep, sleeps, parks, queries, polls, backstop_queries;
    uint64_t kinds[GAR_WAIT_KIND_PARKED + 1]; /* by gar_wait_kind */
} totals;

/* The auto rule's state for a run whose plan (or a band) is auto: one
 * policy for the simulated host, a history per point. */
typedef struct replay_auto {
    gar_auto_policy policy;
    block points; /* a gar_auto_point per point */
} replay_auto;

/* One run: its inputs, the numbers it gives the trace's streams and points
 * as they come, and what it keeps of each. */
typedef struct run {
    const gar_replay_config *config;
    const gar_bands *bands;
    gar_replay_scratch *scratch;
    bool own_scratch;
    size_t limit;                      /* values a sketch keeps exactly */
    const gar_replay_index *index;     /* given: each row's numbers; else the keys */
    gar_key_index stream_keys, point_keys;
    block stream_id;                   /* without an index: each stream's id, a u32 */
    size_t streams, points;            /* numbered so far */
    size_t streams_ready, points_ready; /* their state set up */
    replay_auto *autos;                /* NULL when no band is auto */
    gar_stream_sketch *stream_sketch;  /* streams_out: each stream's overshoots */
    size_t stream_sketch_room;
    bool streams_histogram;            /* the streams' sketches went over together */
    /* streams_out, while the run has seen one stream: that stream's
     * overshoots are the run's, counted once, in the run's sketch; its own
     * sketch gets a copy when a second stream comes. */
    bool stream0_shadowed;
    gar_sim_device dev;
    gar_sim_host host;
} run;

/* Where the waits have got to, carried from one block of rows to the next. */
typedef struct progress {
    uint64_t waits;
    gar_mono_ns first_start;
    gar_mono_ns last_end;   /* the simulated previous wait's end */
    gar_mono_ns latest_end;
    gar_trace_row prev;     /* the previous row */
    uint64_t predictions;
    gar_replay_diagnosis d;
    bool host_changed;
    uint64_t auto_over_budget_waits; /* auto waits whose overshoot exceeded B */
    totals tot;
} progress;

/* ---- replay_setup.c ----------------------------------------------------- */

/* The config's own checks.  Returns 0, or the refusal (invalid argument). */
int gar__replay_check_config(const gar_replay_config *c, gar_error *err);

/* What the config cannot show alone, checked with the run's bands.
 * Returns 0, or the refusal. */
int gar__replay_check_run(const gar_replay_config *config, const gar_bands *bands, gar_error *err);

/* `b` holding at least `count` items of `size` bytes, its contents not
 * kept.  Returns false when memory runs out (`b` unchanged then). */
bool gar__replay_reserve(block *b, size_t count, size_t size);

/* `b` holding at least `count` items of `size` bytes, its contents kept.
 * Returns false when memory runs out (`b` unchanged then). */
bool gar__replay_grow(block *b, size_t count, size_t size);

/* Sets the capacity error for memory run out.  Returns its code (< 0). */
int gar__replay_out_of_memory(gar_error *err);

/* Readies the run: scratch, sketches, auto rule, device and host.
 * Returns 0 or a refusal; release the run either way. */
int gar__replay_run_start(run *r, gar_replay_rows_fn rows, void *context, gar_error *err);

/* Sets up the state of the streams and points numbered since the last
 * block, and room for them on the device.  Returns 0 or a refusal. */
int gar__replay_fit_numbers(run *r, gar_error *err);

/* Frees what the run owns (safe on a run whose start failed).  Returns
 * nothing. */
void gar__replay_run_release(run *r);

/* ---- replay_output.c ---------------------------------------------------- */

/* The quantiles of a sketch's values (exact ones reordered through `tmp`,
 * room for its count), their intervals at `level` into `*ci`.  Returns
 * the quantiles. */
gar_replay_quantiles gar__replay_summary_of(gar_quantile_sketch *sk, uint64_t *tmp, double level,
                                            gar_replay_intervals *ci);

/* The range rule (replay.h).  Returns 0, or the capacity error naming the
 * first metric past 2^63 - 1. */
int gar__replay_check_range(const gar_replay_metrics *m, gar_error *err);

/* Copies the run's totals into `m`.  Returns nothing. */
void gar__replay_totals_to_metrics(const totals *tot, gar_replay_metrics *m);

/* Every stream's results into `out`.  Returns false when memory runs out. */
bool gar__replay_per_stream(run *r, gar_replay_streams *out);

/* Returns the values a sketch keeps exactly, or 0 for a histogram. */
size_t gar__replay_exact_values(const gar_quantile_sketch *sk);

#endif
