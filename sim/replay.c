/* sim/replay.c — a trace's waits, in order, on a simulated device and host.
 *
 * The rows come a block at a time (a trace in memory in slices, a streamed
 * one as its source reads it).  Before each block its rows are numbered
 * (from the index, or by key as they first appear) and the state of any
 * stream or point new in it is set up; the loop over the block then only
 * adds each wait's values to the sketches, which grow up to their budget
 * and then count in histograms (quantile_sketch.h). */
#include "sim/replay.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/wait.h>

#include "core/family_rule.h"
#include "core/nearest_rank.h"
#include "sim/auto_host.h"
#include "sim/trace/key_index.h"
#include "sim/quantile_sketch.h"
#include "sim/stream_sketch.h"
#include "sim/rank_select.h"
#include "sim/sim_host.h"

void gar_replay_config_init(gar_replay_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->estimator = gar_estimator_spec_default();
    config->mode = GAR_REPLAY_OPEN;
    config->wait_deadline_ns = GAR_REPLAY_DEADLINE_DEFAULT_NS;
    config->fault = GAR_SIM_FAULT_NONE;
    config->ci_level = GAR_CI_LEVEL_DEFAULT;
}

const char *gar_replay_mode_name(gar_replay_mode mode)
{
    switch (mode) {
    case GAR_REPLAY_OPEN:
        return "open";
    case GAR_REPLAY_CLOSED:
        return "closed";
    }
    return "?";
}

int gar_replay_mode_from_name(const char *name)
{
    if (name != NULL && strcmp(name, "open") == 0)
        return GAR_REPLAY_OPEN;
    if (name != NULL && strcmp(name, "closed") == 0)
        return GAR_REPLAY_CLOSED;
    return -1;
}

/* ---- quantiles ---------------------------------------------------------- */

gar_replay_quantiles gar_replay_quantiles_sorted(const gar_dur_ns *sorted, size_t n)
{
    gar_replay_quantiles q = { 0, 0, 0, 0 };
    if (n == 0)
        return q;
    q.p50 = gar_nearest_rank(sorted, n, 500000);
    q.p90 = gar_nearest_rank(sorted, n, 900000);
    q.p99 = gar_nearest_rank(sorted, n, 990000);
    q.max = sorted[n - 1];
    return q;
}

gar_replay_intervals gar_replay_intervals_sorted(const gar_dur_ns *sorted, size_t n,
                                                 double level)
{
    return (gar_replay_intervals){
        .p50 = gar_quantile_interval_sorted(sorted, n, 500000, level),
        .p90 = gar_quantile_interval_sorted(sorted, n, 900000, level),
        .p99 = gar_quantile_interval_sorted(sorted, n, 990000, level),
    };
}

/* The quantiles of one stream's overshoots (exact ones reordered through
 * tmp, count values of room). */
static gar_replay_quantiles quantiles_of(gar_stream_sketch *sk, uint64_t *tmp)
{
    gar_replay_quantiles q = { 0, 0, 0, 0 };
    size_t n = (size_t)sk->count;
    if (n == 0)
        return q;
    const size_t ranks[] = { gar_nearest_rank_index(n, 500000), gar_nearest_rank_index(n, 900000),
                             gar_nearest_rank_index(n, 990000), n - 1 };
    gar_sketch_bucket at[4];
    gar_stream_sketch_select(sk, tmp, ranks, 4, at);
    return (gar_replay_quantiles){ .p50 = gar_sketch_bucket_mid(at[0]),
                                   .p90 = gar_sketch_bucket_mid(at[1]),
                                   .p99 = gar_sketch_bucket_mid(at[2]),
                                   .max = sk->max };
}

/* The quantiles of a sketch's values and their intervals at `level`,
 * selected in one pass (exact values reordered through tmp, count values
 * of room): the three quantiles' ranks, their intervals' ends and the max,
 * in ascending order.  From a histogram, a quantile is its bucket's
 * midpoint and an interval runs from the low end's bucket's least value to
 * the high end's bucket's largest: widened by the buckets, so it holds the
 * interval the exact values would give. */
static gar_replay_quantiles summary_of(gar_quantile_sketch *sk, uint64_t *tmp, double level,
                                       gar_replay_intervals *ci)
{
    memset(ci, 0, sizeof *ci);
    gar_replay_quantiles q = { 0, 0, 0, 0 };
    size_t n = (size_t)sk->count;
    if (n == 0)
        return q;
    static const uint32_t levels[3] = { 500000, 900000, 990000 };
    gar_quantile_interval *ends[3] = { &ci->p50, &ci->p90, &ci->p99 };
    /* Each wanted rank with where its value goes: 0..3 the quantiles and
     * max, 4 + 2j and 5 + 2j interval j's low and high end. */
    size_t rank[10];
    unsigned slot[10], k = 0;
    for (unsigned j = 0; j < 3; j++) {
        rank[k] = gar_nearest_rank_index(n, levels[j]);
        slot[k++] = j;
        gar_interval_ranks r = gar_quantile_interval_ranks(n, levels[j], level);
        ends[j]->has_lo = r.has_lo;
        ends[j]->has_hi = r.has_hi;
        if (r.has_lo) {
            rank[k] = r.lo;
            slot[k++] = 4 + 2 * j;
        }
        if (r.has_hi) {
            rank[k] = r.hi;
            slot[k++] = 5 + 2 * j;
        }
    }
    rank[k] = n - 1;
    slot[k++] = 3;
    for (unsigned i = 1; i < k; i++) /* insertion sort: ten at most */
        for (unsigned j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
            size_t r = rank[j];
            rank[j] = rank[j - 1];
            rank[j - 1] = r;
            unsigned s = slot[j];
            slot[j] = slot[j - 1];
            slot[j - 1] = s;
        }
    gar_sketch_bucket at[10];
    gar_quantile_sketch_select(sk, tmp, rank, k, at);
    gar_sketch_bucket value[10];
    memset(value, 0, sizeof value);
    for (unsigned i = 0; i < k; i++)
        value[slot[i]] = at[i];
    for (unsigned j = 0; j < 3; j++) {
        ends[j]->lo = ends[j]->has_lo ? value[4 + 2 * j].lo : 0;
        ends[j]->hi = ends[j]->has_hi ? value[5 + 2 * j].hi : 0;
    }
    return (gar_replay_quantiles){ .p50 = gar_sketch_bucket_mid(value[0]),
                                   .p90 = gar_sketch_bucket_mid(value[1]),
                                   .p99 = gar_sketch_bucket_mid(value[2]),
                                   .max = sk->max };
}

/* ---- the run ------------------------------------------------------------ */

static int check_config(const gar_replay_config *c, gar_error *err)
{
    const char *fn = "gar_replay_run";
    if (c == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "config", "is NULL");
    if (c->host == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "host", "is NULL");
    if ((c->trace == NULL) == (c->rows == NULL))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "trace and rows",
                             "are not exactly one given");
    if ((c->plan == NULL) == (c->bands == NULL))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan and bands",
                             "are not exactly one given");
    if (c->bands != NULL && (c->bands->count < 1 || c->bands->count > GAR_BANDS_MAX))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "bands", "has no band or too many");
    if (c->trace != NULL && c->trace->count == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "trace", "has no rows");
    if (c->wait_deadline_ns == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait_deadline_ns", "is 0");
    if (c->mode != GAR_REPLAY_OPEN && c->mode != GAR_REPLAY_CLOSED)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "mode", "is neither open nor closed");
    if (!(c->ci_level > 0.0 && c->ci_level < 1.0))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "ci_level",
                             "is not between 0 and 1 (exclusive)");
    if (strcmp(gar_sim_fault_name(c->fault), "?") == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "fault", "is not a gar_sim_fault");
    char label[GAR_ESTIMATOR_LABEL_BYTES];
    gar_estimator_spec_label(&c->estimator, label, sizeof label);
    if (strcmp(label, "?") == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "estimator", "is of no family");
    return 0;
}

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

gar_replay_scratch *gar_replay_scratch_new(void)
{
    gar_replay_scratch *s = calloc(1, sizeof(gar_replay_scratch));
    if (s != NULL) {
        gar_quantile_sketch_init(&s->overshoot, 0);
        gar_quantile_sketch_init(&s->est_error, 0);
    }
    return s;
}

void gar_replay_scratch_free(gar_replay_scratch *scratch)
{
    if (scratch == NULL)
        return;
    gar_quantile_sketch_free(&scratch->overshoot);
    gar_quantile_sketch_free(&scratch->est_error);
    free(scratch->sort_space.at);
    free(scratch->estimators.at);
    free(scratch->streams.at);
    free(scratch->slots.at);
    free(scratch->points.at);
    free(scratch);
}

/* `b` holding at least `count` items of `size` bytes (its contents not
 * kept).  False when memory runs out (or the size overflows); `b` is
 * unchanged then. */
static bool reserve(block *b, size_t count, size_t size)
{
    if (count > SIZE_MAX / size)
        return false;
    size_t bytes = count * size;
    if (bytes <= b->bytes && b->at != NULL)
        return true;
    void *at = malloc(bytes > 0 ? bytes : 1);
    if (at == NULL)
        return false;
    free(b->at);
    *b = (block){ at, bytes };
    return true;
}

/* `b` holding at least `count` items of `size` bytes, its first bytes kept
 * (room doubles, so a run that learns its points one by one copies little).
 * False when memory runs out; `b` is unchanged then. */
static bool grow(block *b, size_t count, size_t size)
{
    if (count > SIZE_MAX / 2 / size)
        return false;
    if (count * size <= b->bytes && b->at != NULL)
        return true;
    size_t bytes = count * size > 2 * b->bytes ? count * size : 2 * b->bytes;
    void *at = realloc(b->at, bytes > 0 ? bytes : 1);
    if (at == NULL)
        return false;
    *b = (block){ at, bytes };
    return true;
}

/* A sketch readied for a run exact up to `limit` values. */
static void sketch_ready(gar_quantile_sketch *sk, size_t limit)
{
    if (sk->capacity > limit || sk->limit != limit) {
        gar_quantile_sketch_free(sk);
        gar_quantile_sketch_init(sk, limit);
    }
    gar_quantile_sketch_reset(sk);
}

/* The range rule (replay.h): every count and duration fits a signed 64-bit
 * integer, or the run is refused naming the first that does not. */
static int check_range(const gar_replay_metrics *m, gar_error *err)
{
    const struct {
        const char *name;
        uint64_t value;
    } metric[] = {
        { "overshoot_ns", m->overshoot_ns.max }, { "wait_ns", m->wait_ns },
        { "busy_ns", m->busy_ns },               { "parked_ns", m->parked_ns },
        { "asleep_ns", m->asleep_ns },           { "makespan_ns", m->makespan_ns },
        { "sleeps", m->sleeps },                 { "parks", m->parks },
        { "queries", m->queries },               { "polls", m->polls },
        { "backstop_queries", m->backstop_queries },
        { "estimator_error_ns", m->estimator_error_ns.max },
    };
    for (size_t k = 0; k < sizeof metric / sizeof metric[0]; k++)
        if (metric[k].value > GAR_REPLAY_METRIC_MAX) {
            char what[64];
            snprintf(what, sizeof what, "the replay's %s", metric[k].name);
            return gar_error_set(err, GAR_E_CAPACITY, 2, what, "2^63 - 1");
        }
    return 0;
}

static int out_of_memory(gar_error *err)
{
    return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay", "exhausted");
}

/* The run's totals over its waits, as they go into gar_replay_metrics. */
typedef struct totals {
    wide_sum busy, parked, asleep, sleeps, parks, queries, polls, backstop_queries;
    uint64_t kinds[GAR_WAIT_KIND_PARKED + 1]; /* by gar_wait_kind */
} totals;

/* Adds one wait's result to the run's totals, saturating (wide_sum), so
 * that a sum past 2^63 - 1 is caught by check_range, not wrapped. */
static void add_wait(totals *tot, stream_state *stream, const gar_sim_wait_result *res)
{
    stream->waits++;
    wide_add(&stream->busy, res->busy_ns);
    wide_add(&tot->busy, res->busy_ns);
    wide_add(&tot->parked, res->parked_ns);
    wide_add(&tot->asleep, res->asleep_ns);
    wide_add(&tot->sleeps, res->report.sleeps);
    wide_add(&tot->parks, res->report.parks);
    /* A poll is a query: the two are counted together, saturating, as
     * the metrics have always counted them. */
    wide_add(&tot->queries, gar_after(res->report.queries, res->report.polls));
    wide_add(&tot->polls, res->report.polls);
    wide_add(&tot->backstop_queries, res->report.backstop_queries);
    tot->kinds[(unsigned)res->report.kind <= GAR_WAIT_KIND_PARKED ? res->report.kind
                                                                  : GAR_WAIT_KIND_NONE]++;
}

/* The totals into `m`. */
static void totals_to_metrics(const totals *tot, gar_replay_metrics *m)
{
    m->busy_ns = wide_total(tot->busy);
    m->parked_ns = wide_total(tot->parked);
    m->asleep_ns = wide_total(tot->asleep);
    m->sleeps = wide_total(tot->sleeps);
    m->parks = wide_total(tot->parks);
    m->queries = wide_total(tot->queries);
    m->polls = wide_total(tot->polls);
    m->backstop_queries = wide_total(tot->backstop_queries);
    m->blocked = tot->kinds[GAR_WAIT_KIND_BLOCKED];
    m->immediate = tot->kinds[GAR_WAIT_KIND_IMMEDIATE];
    m->late = tot->kinds[GAR_WAIT_KIND_LATE];
    m->parked = tot->kinds[GAR_WAIT_KIND_PARKED];
}

/* The auto rule's state for a run whose plan (or a band) is auto: one
 * policy for the simulated host, a history per point. */
typedef struct replay_auto {
    gar_auto_policy policy;
    block points; /* a gar_auto_point per point */
} replay_auto;

static bool bands_have_auto(const gar_bands *bands)
{
    for (uint32_t b = 0; b < bands->count; b++)
        if (bands->band[b].plan.park == GAR_PARK_AUTO)
            return true;
    return false;
}

int gar_replay_lead_of(gar_replay_rows_fn rows, void *context, gar_dur_ns *out, gar_error *err)
{
    if (rows == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_lead_of",
                             rows == NULL ? "rows" : "out", "is NULL");
    gar_quantile_sketch residuals;
    gar_quantile_sketch_init(&residuals, 0);
    const gar_trace_row *row;
    size_t count;
    int rc;
    while ((rc = rows(context, &row, &count, err)) > 0)
        for (size_t i = 0; i < count && rc > 0; i++)
            if (!gar_quantile_sketch_add(&residuals, gar_since(row[i].done_ns, row[i].start_ns)))
                rc = out_of_memory(err);
    *out = 0;
    if (rc == 0 && residuals.count > 0) {
        uint64_t *tmp = residuals.histogram ? NULL : malloc((size_t)residuals.count * 8);
        if (!residuals.histogram && tmp == NULL) {
            rc = out_of_memory(err);
        } else {
            const size_t rank[] = { gar_nearest_rank_index((size_t)residuals.count, 500000) };
            gar_sketch_bucket median;
            gar_quantile_sketch_select(&residuals, tmp, rank, 1, &median);
            *out = gar_sketch_bucket_mid(median);
        }
        free(tmp);
    }
    gar_quantile_sketch_free(&residuals);
    return rc;
}

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

static void run_release(run *r)
{
    gar_key_index_free(&r->stream_keys);
    gar_key_index_free(&r->point_keys);
    free(r->stream_id.at);
    if (r->autos != NULL) {
        free(r->autos->points.at);
        free(r->autos);
    }
    for (size_t s = 0; s < r->streams_ready && r->stream_sketch != NULL; s++)
        gar_stream_sketch_free(&r->stream_sketch[s]);
    free(r->stream_sketch);
    gar_sim_device_free(&r->dev);
    if (r->own_scratch)
        gar_replay_scratch_free(r->scratch);
}

/* Numbers the block's rows (from the index, or by first appearance) into
 * the scratch's slots and points, the first being row `first` of the trace. */
static bool number_block(run *r, const gar_trace_row *rows, size_t count, uint64_t first)
{
    gar_replay_scratch *s = r->scratch;
    if (!reserve(&s->slots, count, sizeof(uint32_t)) || !reserve(&s->points, count, sizeof(uint32_t)))
        return false;
    uint32_t *slot = s->slots.at, *point = s->points.at;
    if (r->index != NULL) {
        memcpy(slot, r->index->stream_of_row + first, count * sizeof *slot);
        memcpy(point, r->index->point_of_row + first, count * sizeof *point);
        return true;
    }
    /* Rows come in runs of one stream and one point: a key equal to the
     * previous row's has its number (the index gives a key one number), and
     * only a new key is looked up, checked and, for a stream, recorded. */
    uint64_t stream_key = 0, point_key = 0;
    uint32_t stream_no = GAR_KEY_INDEX_NONE, point_no = GAR_KEY_INDEX_NONE;
    for (size_t j = 0; j < count; j++) {
        if (j == 0 || rows[j].stream != stream_key) {
            stream_key = rows[j].stream;
            stream_no = gar_key_index_add(&r->stream_keys, stream_key);
            if (stream_no == GAR_KEY_INDEX_NONE)
                return false;
            if (stream_no == r->streams) { /* a stream named for the first time */
                if (!grow(&r->stream_id, r->streams + 1, sizeof(uint32_t)))
                    return false;
                ((uint32_t *)r->stream_id.at)[r->streams++] = rows[j].stream;
            }
        }
        if (j == 0 || rows[j].point != point_key) {
            point_key = rows[j].point;
            point_no = gar_key_index_add(&r->point_keys, point_key);
            if (point_no == GAR_KEY_INDEX_NONE)
                return false;
        }
        slot[j] = stream_no;
        point[j] = point_no;
    }
    r->points = r->point_keys.count;
    return true;
}

/* Sets up the state of streams and points numbered since the last block:
 * cold estimators and auto histories, empty streams and their sketches,
 * and room on the device.  Returns 0 or a refusal. */
static int fit_numbers(run *r, gar_error *err)
{
    gar_replay_scratch *s = r->scratch;
    if (r->points > r->points_ready) {
        if (!grow(&s->estimators, r->points, sizeof(gar_family_point)) ||
            (r->autos != NULL && !grow(&r->autos->points, r->points, sizeof(gar_auto_point))))
            return out_of_memory(err);
        gar_family_point *estimators = s->estimators.at;
        for (size_t p = r->points_ready; p < r->points; p++)
            gar_family_point_init(&estimators[p]);
        if (r->autos != NULL)
            memset((gar_auto_point *)r->autos->points.at + r->points_ready, 0,
                   (r->points - r->points_ready) * sizeof(gar_auto_point));
        r->points_ready = r->points;
    }
    if (r->streams > r->streams_ready) {
        if (!grow(&s->streams, r->streams, sizeof(stream_state)))
            return out_of_memory(err);
        memset((stream_state *)s->streams.at + r->streams_ready, 0,
               (r->streams - r->streams_ready) * sizeof(stream_state));
        if (r->config->streams_out != NULL) {
            if (r->streams > r->stream_sketch_room) {
                size_t room = r->streams > 2 * r->stream_sketch_room ? r->streams
                                                                     : 2 * r->stream_sketch_room;
                gar_stream_sketch *more = realloc(r->stream_sketch, room * sizeof *more);
                if (more == NULL)
                    return out_of_memory(err);
                r->stream_sketch = more;
                r->stream_sketch_room = room;
            }
            for (size_t k = r->streams_ready; k < r->streams; k++) {
                gar_stream_sketch_init(&r->stream_sketch[k], r->limit);
                r->stream_sketch[k].histogram = r->streams_histogram;
            }
            if (r->stream0_shadowed && r->streams > 1) {
                /* Every wait so far was on the first stream. */
                gar_stream_sketch *first = &r->stream_sketch[0];
                if (!gar_stream_sketch_from(first, &s->overshoot) ||
                    (r->streams_histogram && !gar_stream_sketch_to_histogram(first)))
                    return out_of_memory(err);
                r->stream0_shadowed = false;
            }
        }
        r->streams_ready = r->streams;
        if (r->streams > r->dev.options.streams) {
            if (r->streams > GAR_SIM_STREAMS_MAX)
                return gar_error_set(err, GAR_E_CAPACITY, 2, "the replay's streams",
                                     "more than a simulated device takes");
            size_t room = 2 * (size_t)r->dev.options.streams;
            if (room < r->streams)
                room = r->streams;
            if (room > GAR_SIM_STREAMS_MAX)
                room = GAR_SIM_STREAMS_MAX;
            int rc = gar_sim_device_grow(&r->dev, (unsigned)room, err);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* The streams' sketches share one budget: once the run's waits pass it,
 * every stream's values go into its histogram. */
static bool streams_over_budget(run *r, uint64_t waits)
{
    if (r->stream_sketch == NULL || r->streams_histogram || waits <= r->limit)
        return true;
    for (size_t k = 0; k < r->streams_ready; k++)
        if (!gar_stream_sketch_to_histogram(&r->stream_sketch[k]))
            return false;
    r->streams_histogram = true;
    return true;
}

/* The waits of one block of rows, in order, on the run's device and host:
 * the per-wait values into the sketches, the totals into `pg`.
 * Returns 0, or the first failure. */
static int replay_block(run *r, const gar_trace_row *rows, size_t n, progress *pg,
                        gar_error *err)
{
    const gar_replay_config *config = r->config;
    const gar_bands *bands = r->bands;
    replay_auto *autos = r->autos;
    gar_sim_device *dev = &r->dev;
    gar_sim_host *host = &r->host;
    gar_replay_scratch *s = r->scratch;
    const uint32_t *slots = s->slots.at, *points = s->points.at;
    gar_family_point *estimators = s->estimators.at;
    stream_state *streams = s->streams.at;
    gar_stream_sketch *stream_sketch = r->stream0_shadowed ? NULL : r->stream_sketch;
    const gar_estimator_spec *spec = &config->estimator;
    const bool consults = spec->family != GAR_ESTIMATOR_NONE;
    gar_mono_ns last_end = pg->last_end;
    gar_mono_ns latest_end = pg->latest_end;
    uint64_t predictions = pg->predictions;
    /* Kept in locals, not through `pg`, so the loop holds them in registers. */
    gar_replay_diagnosis d = pg->d;
    bool host_changed = pg->host_changed;
    int rc = 0;
    size_t j = 0;

    for (; j < n; j++) {
        const uint64_t i = pg->waits + j;
        const gar_trace_row *row = &rows[j];
        /* One band (a plain plan) needs no choosing, wait after wait. */
        const gar_plan *plan = bands->count == 1 ? &bands->band[0].plan
                                                 : gar_bands_select(bands, row->step_rows);
        /* An auto plan is a rule: the wait runs the plan and sleep it gives. */
        gar_auto_choice choice;
        gar_auto_point *auto_point = NULL;
        gar_dur_ns budget = 0; /* an auto plan's B */
        if (plan->park == GAR_PARK_AUTO) {
            budget = plan->budget_ns;
            auto_point = (gar_auto_point *)autos->points.at + points[j];
            rc = gar_auto_decide(&autos->policy, auto_point, plan->budget_ns, &choice, err);
            if (rc < 0)
                break;
            plan = &choice.plan;
        }
        const uint32_t slot = slots[j];
        stream_state *stream = &streams[slot];
        gar_mono_ns stream_free = row->submit_ns > stream->recorded_done ? row->submit_ns
                                                                         : stream->recorded_done;
        gar_dur_ns duration = gar_since(row->done_ns, stream_free);
        stream->recorded_done = row->done_ns;

        gar_mono_ns start = row->start_ns, submit = row->submit_ns;
        if (config->mode == GAR_REPLAY_CLOSED && i > 0) {
            const gar_trace_row *prev = j > 0 ? &rows[j - 1] : &pg->prev;
            gar_mono_ns prev_end = prev->start_ns > prev->done_ns ? prev->start_ns : prev->done_ns;
            start = gar_after(last_end, gar_since(row->start_ns, prev_end));
            submit = gar_since(start, gar_since(row->start_ns, row->submit_ns));
        }
        gar_sim_fault fault = i == config->fault_wait ? config->fault : GAR_SIM_FAULT_NONE;
        gar_sim_work work;
        rc = gar_sim_device_enqueue(dev, slot, submit, duration, fault, &work, err);
        if (rc < 0)
            break;
        gar_dur_ns truth = gar_since(work.done_at, start);

        gar_family_point *point = NULL;
        bool has_sleep = false;
        gar_dur_ns sleep_ns = 0;
        bool predicted = false;
        gar_dur_ns prediction = 0;
        if (auto_point != NULL) {
            has_sleep = choice.has_sleep;
            sleep_ns = choice.sleep_ns;
            /* The rule's sleep stands for a prediction, so the diagnosis
             * counts its sleeps as slept.  No estimator error: the rule
             * sleeps short of the residual on purpose (its miss chance
             * within the budget), so |sleep - truth| is that margin, not
             * an error of the estimate. */
            predicted = has_sleep;
            prediction = sleep_ns;
        } else if (consults && plan->predict) {
            point = &estimators[points[j]];
            gar_dur_ns p = 0;
            bool have_p;
            if (spec->family == GAR_ESTIMATOR_ORACLE) {
                have_p = work.done_at != GAR_MONO_NEVER;
                p = truth;
            } else {
                have_p = gar__family_prediction(spec, point, plan->deadline.window, &p) == 1;
            }
            if (have_p) {
                predicted = true;
                prediction = p;
                predictions++;
                if (!gar_quantile_sketch_add(&s->est_error, p > truth ? p - truth : truth - p)) {
                    rc = out_of_memory(err);
                    break;
                }
                has_sleep = gar__deadline_sleep_for(&plan->deadline, p, &sleep_ns) == 1;
            }
        }
        if (plan->predict) {
            d.predict_waits++;
            if (!predicted)
                d.unpredicted++;
            else if (!has_sleep)
                d.short_predictions++;
        }

        /* Saturated at the clock's last instant: GAR_MONO_NEVER would be
         * "no deadline", and a hung item must still fail. */
        gar_mono_ns deadline = gar_after(start, config->wait_deadline_ns);
        if (deadline == GAR_MONO_NEVER)
            deadline = GAR_MONO_NEVER - 1;
        if (config->host_after != NULL && !host_changed && start >= config->host_change_ns) {
            host_changed = true;
            if ((rc = gar_sim_host_init(host, config->host_after,
                                        config->seed ^ config->host_change_ns, err)) < 0)
                break;
            host->exact_polls = config->exact_polls;
        }
        gar_sim_wait_result res;
        rc = gar_sim_host_wait(host, dev, &work, plan, has_sleep, sleep_ns, start, deadline, &res,
                               err);
        if (rc < 0)
            break;
        /* The sample rebuilt from its fields: passed whole, its kind (a
         * 4-byte store) would be loaded with its padding in one word. */
        const gar_sample sample = { .kind = res.report.sample.kind, .ns = res.report.sample.ns };
        if (point != NULL)
            gar__family_observe(spec, point, plan->deadline.window, sample);
        if (auto_point != NULL &&
            (rc = gar_auto_learn(&autos->policy, auto_point, &choice, &res.report, err)) < 0)
            break;

        gar_mono_ns possible = work.done_at > start ? work.done_at : start;
        const gar_dur_ns overshoot = gar_since(res.end, possible);
        if (!gar_quantile_sketch_add(&s->overshoot, overshoot) ||
            (stream_sketch != NULL && !gar_stream_sketch_add(&stream_sketch[slot], overshoot))) {
            rc = out_of_memory(err);
            break;
        }
        if (auto_point != NULL && overshoot > budget)
            pg->auto_over_budget_waits++;
        if (res.report.kind == GAR_WAIT_KIND_LATE) {
            d.late_wakes++;
            d.late_worst_ns = overshoot > d.late_worst_ns ? overshoot : d.late_worst_ns;
        }
        /* Ended by a backstop query: no query but the first (or the sleep's
         * wake query) was other than a backstop one, so no park's hint was
         * ever confirmed — the word never woke the wait (wait.h, counters). */
        if (res.report.kind == GAR_WAIT_KIND_PARKED && res.report.backstop_queries > 0 &&
            res.report.queries - res.report.backstop_queries <= 1) {
            d.backstop_waits++;
            d.backstop_worst_ns = overshoot > d.backstop_worst_ns ? overshoot
                                                                  : d.backstop_worst_ns;
        }
        if (config->on_wait != NULL) {
            /* Zeroed whole, padding too: an observer may keep and compare
             * the bytes of what it saw. */
            gar_replay_wait seen;
            memset(&seen, 0, sizeof seen);
            seen.index = i;
            seen.start = start;
            seen.done = work.done_at;
            seen.end = res.end;
            seen.overshoot_ns = overshoot;
            seen.truth_ns = truth;
            seen.predicted = predicted;
            seen.prediction_ns = prediction;
            seen.sleep_ns = has_sleep ? sleep_ns : 0;
            config->on_wait(config->on_wait_context, &seen);
        }
        add_wait(&pg->tot, stream, &res);
        last_end = res.end;
        if (res.end > latest_end)
            latest_end = res.end;
    }
    if (n > 0)
        pg->prev = rows[n - 1];
    pg->waits += j;
    pg->last_end = last_end;
    pg->latest_end = latest_end;
    pg->predictions = predictions;
    pg->d = d;
    pg->host_changed = host_changed;
    return rc;
}

/* Finds or makes the run's scratch, readies its sketches, and sets up the
 * auto rule, the device and the host.  Returns 0 or a refusal; release the
 * run either way. */
static int run_start(run *r, gar_replay_rows_fn rows, void *context, gar_error *err)
{
    const gar_replay_config *c = r->config;
    r->limit = c->exact_max > 0 ? c->exact_max : GAR_SKETCH_EXACT_MAX;
    r->scratch = c->scratch;
    if (r->scratch == NULL) {
        r->scratch = gar_replay_scratch_new();
        r->own_scratch = true;
        if (r->scratch == NULL)
            return out_of_memory(err);
    }
    sketch_ready(&r->scratch->overshoot, r->limit);
    sketch_ready(&r->scratch->est_error, r->limit);
    /* Room for the default budget's values in two steps, the second in
     * huge pages (gar_quantile_sketch_expect): a long run would otherwise
     * copy them at each doubling and fault every 4 KiB page of them in (a
     * run that stays short touches only what it fills).  Without the
     * memory, they grow as they fill. */
    gar_quantile_sketch_expect(&r->scratch->overshoot, GAR_SKETCH_EXACT_MAX);
    gar_quantile_sketch_expect(&r->scratch->est_error, GAR_SKETCH_EXACT_MAX);
    bool keys_ready = gar_key_index_init(&r->stream_keys); /* both made: both freed */
    keys_ready = gar_key_index_init(&r->point_keys) && keys_ready;
    if (!keys_ready)
        return out_of_memory(err);
    if (r->index != NULL) {
        r->streams = r->index->streams;
        r->points = r->index->points;
    }
    int rc;
    if (bands_have_auto(r->bands)) {
        gar_dur_ns lead = c->lead_ns;
        if (!c->has_lead && (rc = gar_replay_lead_of(rows, context, &lead, err)) < 0)
            return rc;
        gar_auto_host auto_host;
        gar_auto_host_from_profile(c->host, lead, &auto_host);
        r->autos = calloc(1, sizeof *r->autos);
        if (r->autos == NULL)
            return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the auto rule", "exhausted");
        if ((rc = gar_auto_init(&r->autos->policy, &auto_host, err)) < 0)
            return rc;
    }
    gar_sim_device_options dev_options = {
        .streams = r->streams > 0 ? (unsigned)r->streams : 8,
        .store_delay_ns = c->store_delay_ns,
        .late_store_ns = c->late_store_ns,
    };
    if ((rc = gar_sim_device_init(&r->dev, &dev_options, err)) < 0)
        return rc;
    r->stream0_shadowed = c->streams_out != NULL;
    if ((rc = fit_numbers(r, err)) < 0)
        return rc;
    if ((rc = gar_sim_host_init(&r->host, c->host, c->seed, err)) < 0)
        return rc;
    r->host.exact_polls = c->exact_polls;
    return 0;
}

/* Every stream's waits, busy time and overshoot quantiles, in the order the
 * trace first names them.  False when memory runs out. */
static bool per_stream(run *r, gar_replay_streams *out)
{
    size_t count = r->streams;
    gar_replay_stream *stream = calloc(count > 0 ? count : 1, sizeof *stream);
    if (stream == NULL)
        return false;
    const stream_state *states = r->scratch->streams.at;
    const uint32_t *ids = r->index != NULL ? r->index->stream_id : r->stream_id.at;
    for (size_t s = 0; s < count; s++) {
        stream[s].stream = ids[s];
        stream[s].waits = states[s].waits;
        stream[s].busy_ns = wide_total(states[s].busy);
        /* A shadowed first stream, the only one, takes the run's quantiles
         * (gar_replay_run, below). */
        if (!r->stream0_shadowed)
            stream[s].overshoot_ns = quantiles_of(&r->stream_sketch[s],
                                                         r->scratch->sort_space.at);
    }
    out->stream = stream;
    out->count = count;
    return true;
}

/* Values a sketch keeps exactly, or 0 for a histogram. */
static size_t exact_values(const gar_quantile_sketch *sk)
{
    return sk->histogram ? 0 : (size_t)sk->count;
}

/* What check_config cannot see alone, checked with the run's bands: each
 * predicting plan's deadline against the estimator (the waits run the
 * estimator's rule unchecked, core/family_rule.h), an auto plan's lead
 * over streamed rows, and the index against the trace.  Returns 0 or the
 * refusal. */
static int check_run(const gar_replay_config *config, const gar_bands *bands, gar_error *err)
{
    int rc;
    for (size_t k = 0; config->estimator.family != GAR_ESTIMATOR_NONE && k < bands->count; k++)
        if (bands->band[k].plan.predict &&
            (rc = gar__family_check(&config->estimator, &bands->band[k].plan.deadline,
                                    "gar_replay_run", err)) < 0)
            return rc;
    if (config->trace == NULL && bands_have_auto(bands) && !config->has_lead)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "lead_ns",
                             "is not given for an auto plan over streamed rows (gar_replay_lead_of"
                             " reads it from a first pass)");
    if (config->index != NULL && (config->trace == NULL || config->index->rows != config->trace->count))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "index",
                             "was built for another trace (its row count differs)");
    return 0;
}

/* Every block of rows the source hands out, numbered and replayed in
 * order.  Returns 0 at the rows' end, or the first failure. */
static int replay_rows(run *r, gar_replay_rows_fn rows, void *context, progress *pg,
                       gar_error *err)
{
    int rc = 0;
    const gar_trace_row *some;
    size_t count;
    while (rc >= 0 && (rc = rows(context, &some, &count, err)) > 0) {
        if (pg->waits == 0)
            pg->first_start = pg->last_end = pg->latest_end = some[0].start_ns;
        if (!number_block(r, some, count, pg->waits) ||
            !streams_over_budget(r, pg->waits + count))
            rc = out_of_memory(err);
        else if ((rc = fit_numbers(r, err)) >= 0)
            rc = replay_block(r, some, count, pg, err);
    }
    return rc;
}

int gar_replay_run(const gar_replay_config *config, gar_replay_metrics *out, gar_error *err)
{
    int rc = check_config(config, err);
    if (rc < 0)
        return rc;
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "out", "is NULL");
    /* A plan is bands of one band. */
    gar_bands one_band = { .count = 1 };
    if (config->plan != NULL)
        one_band.band[0].plan = *config->plan;
    const gar_bands *bands = config->bands != NULL ? config->bands : &one_band;
    if ((rc = check_run(config, bands, err)) < 0)
        return rc;

    /* An in-memory trace is read as a stream of slices. */
    gar_trace_cursor slices = { config->trace, 0 };
    gar_replay_rows_fn rows = config->trace != NULL ? gar_trace_cursor_source : config->rows;
    void *context = config->trace != NULL ? (void *)&slices : config->rows_context;

    run r;
    memset(&r, 0, sizeof r);
    r.config = config;
    r.bands = bands;
    r.index = config->index;
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    progress pg;
    memset(&pg, 0, sizeof pg);
    rc = run_start(&r, rows, context, err);
    slices.next = 0; /* a first pass for auto's lead may have read them */
    if (rc >= 0)
        rc = replay_rows(&r, rows, context, &pg, err);
    if (r.autos != NULL)
        m.auto_counts = gar_auto_counts_of(&r.autos->policy);
    m.auto_over_budget_waits = pg.auto_over_budget_waits;
    if (rc >= 0 && pg.waits == 0)
        rc = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "rows", "are none");
    gar_replay_scratch *s = r.scratch;
    size_t room = 0;
    if (rc >= 0) {
        room = exact_values(&s->overshoot) > exact_values(&s->est_error)
                   ? exact_values(&s->overshoot)
                   : exact_values(&s->est_error);
        if (!reserve(&s->sort_space, room, sizeof(uint64_t)))
            rc = out_of_memory(err);
    }
    if (rc < 0) {
        run_release(&r);
        return rc;
    }
    pg.d.slept = pg.d.predict_waits - pg.d.unpredicted - pg.d.short_predictions;
    pg.d.points = r.points;
    m.diagnosis = pg.d;
    totals_to_metrics(&pg.tot, &m);
    m.waits = pg.waits;
    m.makespan_ns = pg.latest_end - pg.first_start;
    m.predictions = pg.predictions;

    gar_replay_streams streams = { NULL, 0 };
    if (config->streams_out != NULL && !per_stream(&r, &streams)) {
        run_release(&r);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay's streams",
                             "exhausted");
    }
    m.wait_ns = gar_after(gar_after(m.busy_ns, m.parked_ns), m.asleep_ns);
    m.busy_frac = m.wait_ns > 0 ? (double)m.busy_ns / (double)m.wait_ns : 0.0;
    m.ci_level = config->ci_level;
    m.quantiles_histogram = s->overshoot.histogram || s->est_error.histogram ||
                            r.streams_histogram;
    m.overshoot_ns = summary_of(&s->overshoot, s->sort_space.at, m.ci_level, &m.overshoot_ci);
    m.estimator_error_ns = summary_of(&s->est_error, s->sort_space.at, m.ci_level,
                                      &m.estimator_error_ci);
    /* The one stream's overshoots are the run's; its sketch would have gone
     * over to a histogram exactly when the run's did (both past the same
     * budget), and its quantiles are read at the same ranks. */
    if (streams.count == 1 && r.stream0_shadowed)
        streams.stream[0].overshoot_ns = m.overshoot_ns;
    run_release(&r);
    if ((rc = check_range(&m, err)) < 0) {
        gar_replay_streams_free(&streams);
        return rc;
    }
    *out = m;
    if (config->streams_out != NULL)
        *config->streams_out = streams;
    return 0;
}

void gar_replay_streams_free(gar_replay_streams *streams)
{
    if (streams == NULL)
        return;
    free(streams->stream);
    streams->stream = NULL;
    streams->count = 0;
}
