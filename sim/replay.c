/* sim/replay.c — a trace's waits, in order, on a simulated device and host.
 *
 * Set-up allocates everything (the per-wait value arrays and the points'
 * estimators, found by key once per row through a hash map built before the
 * first wait); the loop itself allocates nothing. */
#include "sim/replay.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/wait.h>

#include "core/nearest_rank.h"
#include "sim/auto_host.h"
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

/* The quantiles of v[0..n-1], selected (v reordered, tmp n values of room). */
static gar_replay_quantiles quantiles_of(uint64_t *v, uint64_t *tmp, size_t n)
{
    gar_replay_quantiles q = { 0, 0, 0, 0 };
    if (n == 0)
        return q;
    const size_t ranks[] = { gar_nearest_rank_index(n, 500000), gar_nearest_rank_index(n, 900000),
                             gar_nearest_rank_index(n, 990000), n - 1 };
    uint64_t at[4];
    gar_rank_select(v, tmp, n, ranks, 4, at);
    return (gar_replay_quantiles){ .p50 = at[0], .p90 = at[1], .p99 = at[2], .max = at[3] };
}

/* The quantiles of v[0..n-1] and their intervals at `level`, selected in
 * one pass (v reordered, tmp n values of room): the three quantiles' ranks,
 * their intervals' ends and the max, in ascending order. */
static gar_replay_quantiles summary_of(uint64_t *v, uint64_t *tmp, size_t n, double level,
                                       gar_replay_intervals *ci)
{
    memset(ci, 0, sizeof *ci);
    gar_replay_quantiles q = { 0, 0, 0, 0 };
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
    uint64_t at[10];
    gar_rank_select(v, tmp, n, rank, k, at);
    uint64_t value[10] = { 0 };
    for (unsigned i = 0; i < k; i++)
        value[slot[i]] = at[i];
    for (unsigned j = 0; j < 3; j++) {
        ends[j]->lo = ends[j]->has_lo ? value[4 + 2 * j] : 0;
        ends[j]->hi = ends[j]->has_hi ? value[5 + 2 * j] : 0;
    }
    return (gar_replay_quantiles){ .p50 = value[0], .p90 = value[1], .p99 = value[2],
                                   .max = value[3] };
}

/* ---- the run ------------------------------------------------------------ */

static int check_config(const gar_replay_config *c, gar_error *err)
{
    const char *fn = "gar_replay_run";
    if (c == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "config", "is NULL");
    if (c->trace == NULL || c->host == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn,
                             c->trace == NULL ? "trace" : "host", "is NULL");
    if ((c->plan == NULL) == (c->bands == NULL))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan and bands",
                             "are not exactly one given");
    if (c->bands != NULL && (c->bands->count < 1 || c->bands->count > GAR_BANDS_MAX))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "bands", "has no band or too many");
    if (c->trace->count == 0)
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

/* What the run keeps of one stream (device stream s is the s-th stream id
 * the trace names). */
typedef struct stream_state {
    gar_mono_ns recorded_done; /* the trace's done of the stream's latest row */
    uint64_t waits;
    gar_dur_ns busy_ns;
} stream_state;

/* One block of scratch memory and its size in bytes. */
typedef struct block {
    void *at;
    size_t bytes;
} block;

struct gar_replay_scratch {
    block overshoot, est_error, sort_space; /* a u64 per wait each */
    block estimators;                       /* a gar_family_point per point */
    block streams;                          /* a stream_state per stream */
};

gar_replay_scratch *gar_replay_scratch_new(void)
{
    return calloc(1, sizeof(gar_replay_scratch));
}

void gar_replay_scratch_free(gar_replay_scratch *scratch)
{
    if (scratch == NULL)
        return;
    free(scratch->overshoot.at);
    free(scratch->est_error.at);
    free(scratch->sort_space.at);
    free(scratch->estimators.at);
    free(scratch->streams.at);
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

static bool reserve_all(gar_replay_scratch *s, size_t rows, const gar_replay_index *ix)
{
    return reserve(&s->overshoot, rows, sizeof(uint64_t)) &&
           reserve(&s->est_error, rows, sizeof(uint64_t)) &&
           reserve(&s->sort_space, rows, sizeof(uint64_t)) &&
           reserve(&s->estimators, ix->points, sizeof(gar_family_point)) &&
           reserve(&s->streams, ix->streams, sizeof(stream_state));
}

/* Fills `out` with each stream's waits, busy time and overshoot quantiles,
 * in the order the trace first names them: the rows' overshoots, grouped by
 * stream (a counting sort), each group's selected through `tmp` (n values
 * of room).  A trace of one stream has the run's own quantiles, `whole`:
 * they are not selected again from a copy of every overshoot.  `overshoot`
 * is left as it was.  False when memory runs out. */
static bool per_stream(const gar_replay_index *ix, const stream_state *states,
                       const uint64_t *overshoot, uint64_t *tmp,
                       const gar_replay_quantiles *whole, gar_replay_streams *out)
{
    size_t n = ix->rows, count = ix->streams;
    gar_replay_stream *stream = calloc(count, sizeof *stream);
    if (stream != NULL && count == 1) {
        stream[0] = (gar_replay_stream){ .stream = ix->stream_id[0], .waits = states[0].waits,
                                         .busy_ns = states[0].busy_ns, .overshoot_ns = *whole };
        out->stream = stream;
        out->count = 1;
        return true;
    }
    size_t *at = malloc(count * sizeof *at);
    uint64_t *grouped = malloc(n * sizeof *grouped);
    if (stream == NULL || at == NULL || grouped == NULL) {
        free(stream);
        free(at);
        free(grouped);
        return false;
    }
    size_t next = 0;
    for (size_t s = 0; s < count; s++) {
        at[s] = next;
        next += states[s].waits;
    }
    for (size_t r = 0; r < n; r++)
        grouped[at[ix->stream_of_row[r]]++] = overshoot[r];
    size_t from = 0;
    for (size_t s = 0; s < count; s++) {
        size_t waits = states[s].waits;
        stream[s].stream = ix->stream_id[s];
        stream[s].waits = waits;
        stream[s].busy_ns = states[s].busy_ns;
        stream[s].overshoot_ns = quantiles_of(grouped + from, tmp, waits);
        from += waits;
    }
    free(at);
    free(grouped);
    out->stream = stream;
    out->count = count;
    return true;
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

/* What one run works with: its index and scratch (its own, or the
 * caller's), and the arrays in the scratch. */
typedef struct run_memory {
    const gar_replay_index *index;
    gar_replay_index own_index;
    gar_replay_scratch *scratch;
    bool own_scratch;
    uint64_t *overshoot, *est_error, *sort_space;
    gar_family_point *estimators;
    stream_state *streams;
} run_memory;

static void run_memory_release(run_memory *m)
{
    gar_replay_index_free(&m->own_index);
    if (m->own_scratch)
        gar_replay_scratch_free(m->scratch);
}

/* Finds or makes the run's index and scratch, and readies the arrays
 * (estimators cold, streams empty). */
static int run_memory_get(const gar_replay_config *c, run_memory *m, gar_error *err)
{
    *m = (run_memory){ .index = c->index, .scratch = c->scratch };
    if (m->index == NULL) {
        int rc = gar_replay_index_build(c->trace, &m->own_index, err);
        if (rc < 0)
            return rc;
        m->index = &m->own_index;
    } else if (m->index->rows != c->trace->count) {
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "index",
                             "was built for another trace (its row count differs)");
    }
    if (m->scratch == NULL) {
        m->scratch = gar_replay_scratch_new();
        m->own_scratch = true;
    }
    if (m->scratch == NULL || !reserve_all(m->scratch, c->trace->count, m->index)) {
        run_memory_release(m);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay", "exhausted");
    }
    gar_replay_scratch *s = m->scratch;
    m->overshoot = s->overshoot.at;
    m->est_error = s->est_error.at;
    m->sort_space = s->sort_space.at;
    m->estimators = s->estimators.at;
    m->streams = s->streams.at;
    for (size_t p = 0; p < m->index->points; p++)
        gar_family_point_init(&m->estimators[p]);
    memset(m->streams, 0, m->index->streams * sizeof *m->streams);
    return 0;
}

/* Adds one wait's result to the run's totals, saturating, so that a sum
 * past 2^63 - 1 is caught by check_range, not wrapped. */
static void add_wait(gar_replay_metrics *m, stream_state *stream, const gar_sim_wait_result *res)
{
    stream->waits++;
    stream->busy_ns = gar_after(stream->busy_ns, res->busy_ns);
    m->busy_ns = gar_after(m->busy_ns, res->busy_ns);
    m->parked_ns = gar_after(m->parked_ns, res->parked_ns);
    m->asleep_ns = gar_after(m->asleep_ns, res->asleep_ns);
    m->sleeps = gar_after(m->sleeps, res->report.sleeps);
    m->parks = gar_after(m->parks, res->report.parks);
    m->queries = gar_after(m->queries, gar_after(res->report.queries, res->report.polls));
    m->polls = gar_after(m->polls, res->report.polls);
    m->backstop_queries = gar_after(m->backstop_queries, res->report.backstop_queries);
    switch (res->report.kind) {
    case GAR_WAIT_KIND_BLOCKED:
        m->blocked++;
        break;
    case GAR_WAIT_KIND_IMMEDIATE:
        m->immediate++;
        break;
    case GAR_WAIT_KIND_LATE:
        m->late++;
        break;
    case GAR_WAIT_KIND_PARKED:
        m->parked++;
        break;
    case GAR_WAIT_KIND_NONE:
        break;
    }
}

/* The auto rule's state for a run whose plan (or a band) is auto: one
 * policy for the simulated host, a history per point.  NULL points when no
 * band is auto. */
typedef struct replay_auto {
    gar_auto_policy policy;
    gar_auto_point *points;
} replay_auto;

static bool bands_have_auto(const gar_bands *bands)
{
    for (uint32_t b = 0; b < bands->count; b++)
        if (bands->band[b].plan.park == GAR_PARK_AUTO)
            return true;
    return false;
}

/* Every wait of the trace, in order, on `dev` and `host`: the per-wait
 * values into `mem`'s arrays, the totals into `m` (waits, times, counts,
 * kinds, predictions, makespan).  Returns 0, or the first failure. */
static int replay_waits(const gar_replay_config *config, const gar_bands *bands,
                        const run_memory *mem, replay_auto *autos, gar_sim_device *dev,
                        gar_sim_host *host, gar_replay_metrics *m, gar_error *err)
{
    const gar_trace *trace = config->trace;
    const gar_replay_index *ix = mem->index;
    const size_t n = trace->count;
    const gar_estimator_spec *spec = &config->estimator;
    const bool consults = spec->family != GAR_ESTIMATOR_NONE;
    gar_mono_ns first_start = trace->row[0].start_ns;
    gar_mono_ns last_end = first_start; /* the simulated previous wait's end */
    gar_mono_ns latest_end = first_start;
    size_t predictions = 0;
    /* Kept in locals, not through `m`, so the loop holds them in registers. */
    gar_replay_diagnosis d = { .points = ix->points };
    bool host_changed = false;
    int rc = 0;

    for (size_t i = 0; i < n; i++) {
        const gar_trace_row *row = &trace->row[i];
        /* One band (a plain plan) needs no choosing, wait after wait. */
        const gar_plan *plan = bands->count == 1 ? &bands->band[0].plan
                                                 : gar_bands_select(bands, row->step_rows);
        /* An auto plan is a rule: the wait runs the plan and sleep it gives. */
        gar_auto_choice choice;
        gar_auto_point *auto_point = NULL;
        if (plan->park == GAR_PARK_AUTO) {
            auto_point = &autos->points[ix->point_of_row[i]];
            rc = gar_auto_decide(&autos->policy, auto_point, plan->budget_ns, &choice, err);
            if (rc < 0)
                break;
            plan = &choice.plan;
        }
        const uint32_t slot = ix->stream_of_row[i];
        stream_state *stream = &mem->streams[slot];
        gar_mono_ns stream_free = row->submit_ns > stream->recorded_done ? row->submit_ns
                                                                         : stream->recorded_done;
        gar_dur_ns duration = gar_since(row->done_ns, stream_free);
        stream->recorded_done = row->done_ns;

        gar_mono_ns start = row->start_ns, submit = row->submit_ns;
        if (config->mode == GAR_REPLAY_CLOSED && i > 0) {
            const gar_trace_row *prev = &trace->row[i - 1];
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
        } else if (consults && plan->predict) {
            point = &mem->estimators[ix->point_of_row[i]];
            gar_dur_ns p = 0;
            int have_p;
            if (spec->family == GAR_ESTIMATOR_ORACLE) {
                have_p = work.done_at != GAR_MONO_NEVER;
                p = truth;
            } else {
                have_p = gar_family_prediction(spec, point, &plan->deadline, &p, err);
            }
            if (have_p < 0) {
                rc = have_p;
                break;
            }
            if (have_p) {
                predicted = true;
                prediction = p;
                mem->est_error[predictions++] = p > truth ? p - truth : truth - p;
                has_sleep = gar_deadline_sleep_for(&plan->deadline, p, &sleep_ns) == 1;
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
        if (point != NULL && (rc = gar_family_observe(spec, point, &plan->deadline,
                                                      res.report.sample, err)) < 0)
            break;
        if (auto_point != NULL &&
            (rc = gar_auto_learn(&autos->policy, auto_point, &choice, &res.report, err)) < 0)
            break;

        gar_mono_ns possible = work.done_at > start ? work.done_at : start;
        mem->overshoot[i] = gar_since(res.end, possible);
        if (res.report.kind == GAR_WAIT_KIND_LATE) {
            d.late_wakes++;
            d.late_worst_ns = mem->overshoot[i] > d.late_worst_ns ? mem->overshoot[i]
                                                                  : d.late_worst_ns;
        }
        /* Ended by a backstop query: no query but the first (or the sleep's
         * wake query) was other than a backstop one, so no park's hint was
         * ever confirmed — the word never woke the wait (wait.h, counters). */
        if (res.report.kind == GAR_WAIT_KIND_PARKED && res.report.backstop_queries > 0 &&
            res.report.queries - res.report.backstop_queries <= 1) {
            d.backstop_waits++;
            d.backstop_worst_ns = mem->overshoot[i] > d.backstop_worst_ns
                                      ? mem->overshoot[i]
                                      : d.backstop_worst_ns;
        }
        if (config->on_wait != NULL) {
            const gar_replay_wait seen = {
                .index = i,
                .start = start,
                .done = work.done_at,
                .end = res.end,
                .overshoot_ns = mem->overshoot[i],
                .truth_ns = truth,
                .predicted = predicted,
                .prediction_ns = prediction,
                .sleep_ns = has_sleep ? sleep_ns : 0,
            };
            config->on_wait(config->on_wait_context, &seen);
        }
        add_wait(m, stream, &res);
        last_end = res.end;
        if (res.end > latest_end)
            latest_end = res.end;
    }
    d.slept = d.predict_waits - d.unpredicted - d.short_predictions;
    m->diagnosis = d;
    m->waits = n;
    m->makespan_ns = latest_end - first_start;
    m->predictions = predictions;
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

    run_memory mem;
    if ((rc = run_memory_get(config, &mem, err)) < 0)
        return rc;
    gar_sim_device dev = { 0 };
    gar_sim_device_options dev_options = {
        .streams = (unsigned)mem.index->streams,
        .store_delay_ns = config->store_delay_ns,
        .late_store_ns = config->late_store_ns,
    };
    gar_sim_host host;
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    replay_auto *autos = NULL;
    if (bands_have_auto(bands)) {
        gar_auto_host auto_host;
        /* The scratch's arrays are free until the waits run. */
        gar_dur_ns lead = gar_auto_host_lead_of(config->trace, mem.overshoot, mem.sort_space);
        gar_auto_host_from_profile(config->host, lead, &auto_host);
        autos = malloc(sizeof *autos);
        if (autos != NULL && (autos->points = calloc(mem.index->points, sizeof *autos->points)) == NULL) {
            free(autos);
            autos = NULL;
        }
        if (autos == NULL) {
            run_memory_release(&mem);
            return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the auto rule", "exhausted");
        }
        rc = gar_auto_init(&autos->policy, &auto_host, err);
    }
    if (rc >= 0 && (rc = gar_sim_device_init(&dev, &dev_options, err)) >= 0 &&
        (rc = gar_sim_host_init(&host, config->host, config->seed, err)) >= 0) {
        host.exact_polls = config->exact_polls;
        rc = replay_waits(config, bands, &mem, autos, &dev, &host, &m, err);
    }
    if (autos != NULL) {
        m.auto_counts = gar_auto_counts_of(&autos->policy);
        free(autos->points);
        free(autos);
    }
    gar_sim_device_free(&dev);
    if (rc < 0) {
        run_memory_release(&mem);
        return rc;
    }

    /* Per stream before the overall quantiles, whose selection reorders the
     * rows' overshoots; but a single stream's are the overall ones, taken
     * after them. */
    gar_replay_streams streams = { NULL, 0 };
    bool one_stream = mem.index->streams == 1;
    if (config->streams_out != NULL && !one_stream &&
        !per_stream(mem.index, mem.streams, mem.overshoot, mem.sort_space, NULL, &streams)) {
        run_memory_release(&mem);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay's streams",
                             "exhausted");
    }
    m.wait_ns = gar_after(gar_after(m.busy_ns, m.parked_ns), m.asleep_ns);
    m.busy_frac = m.wait_ns > 0 ? (double)m.busy_ns / (double)m.wait_ns : 0.0;
    m.ci_level = config->ci_level;
    m.overshoot_ns = summary_of(mem.overshoot, mem.sort_space, m.waits, m.ci_level,
                                &m.overshoot_ci);
    if (config->streams_out != NULL && one_stream &&
        !per_stream(mem.index, mem.streams, mem.overshoot, mem.sort_space, &m.overshoot_ns,
                    &streams)) {
        run_memory_release(&mem);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay's streams",
                             "exhausted");
    }
    m.estimator_error_ns = summary_of(mem.est_error, mem.sort_space, m.predictions, m.ci_level,
                                      &m.estimator_error_ci);
    run_memory_release(&mem);
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
