/* sim/replay.c — a trace's waits, in order, on a simulated device and host.
 *
 * Set-up allocates everything (the per-wait value arrays and the points'
 * estimators, found by key once per row through a hash map built before the
 * first wait); the loop itself allocates nothing. */
#include "replay.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/nearest_rank.h>
#include <gar/wait.h>

#include "key_index.h"
#include "sim_host.h"

void gar_replay_config_init(gar_replay_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->estimator = gar_estimator_spec_default();
    config->mode = GAR_REPLAY_OPEN;
    config->wait_deadline_ns = GAR_REPLAY_DEADLINE_DEFAULT_NS;
    config->fault = GAR_SIM_FAULT_NONE;
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

/* Sorts v[0..n-1] ascending: LSD radix sort by 11-bit digits, through `tmp`
 * (n values).  A digit that is the same in every value (its bits are the
 * same in the values' AND and OR) is skipped, so values below 2^22 (any time
 * under 4 ms, most overshoots) take two passes and below 2^33 three; the
 * histograms of the others are counted in one read.  Eleven bits rather
 * than eight: a third fewer passes, and 2048 counters a digit still sit in
 * the cache.  Linear in n, where a comparison sort of a million waits would
 * cost more than simulating them. */
#define DIGIT_BITS 11u
#define DIGIT_VALUES (1u << DIGIT_BITS)
#define DIGITS ((64u + DIGIT_BITS - 1) / DIGIT_BITS)

static void sort_u64(uint64_t *v, uint64_t *tmp, size_t n)
{
    uint64_t all = UINT64_MAX, any = 0;
    for (size_t i = 0; i < n; i++) {
        all &= v[i];
        any |= v[i];
    }
    unsigned shifts[DIGITS], passes = 0;
    for (unsigned shift = 0; shift < 64; shift += DIGIT_BITS)
        if (((all ^ any) >> shift) & (DIGIT_VALUES - 1))
            shifts[passes++] = shift;
    static_assert(DIGITS * DIGIT_VALUES * sizeof(size_t) <= 192 * 1024,
                  "the histograms live on the stack");
    size_t count[DIGITS][DIGIT_VALUES];
    memset(count, 0, passes * sizeof count[0]);
    for (size_t i = 0; i < n; i++)
        for (unsigned p = 0; p < passes; p++)
            count[p][(v[i] >> shifts[p]) & (DIGIT_VALUES - 1)]++;
    uint64_t *from = v, *to = tmp;
    for (unsigned p = 0; p < passes; p++) {
        size_t at = 0;
        for (unsigned d = 0; d < DIGIT_VALUES; d++) {
            size_t k = count[p][d];
            count[p][d] = at;
            at += k;
        }
        for (size_t i = 0; i < n; i++)
            to[count[p][(from[i] >> shifts[p]) & (DIGIT_VALUES - 1)]++] = from[i];
        uint64_t *swap = from;
        from = to;
        to = swap;
    }
    if (from != v)
        memcpy(v, from, n * sizeof *v);
}

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

static gar_replay_quantiles quantiles_of(uint64_t *v, uint64_t *tmp, size_t n)
{
    sort_u64(v, tmp, n);
    return gar_replay_quantiles_sorted(v, n);
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

/* Everything a run allocates, released together. */
typedef struct run_memory {
    gar_key_index points;
    gar_key_index stream_ids;   /* trace stream id -> device stream */
    uint32_t *stream_of_row;    /* device stream of each row */
    stream_state *streams;
    gar_family_point *estimators;
    uint64_t *overshoot;
    uint64_t *est_error;
    uint64_t *sort_space;
} run_memory;

static void run_memory_free(run_memory *m)
{
    gar_key_index_free(&m->points);
    gar_key_index_free(&m->stream_ids);
    free(m->stream_of_row);
    free(m->streams);
    free(m->estimators);
    free(m->overshoot);
    free(m->est_error);
    free(m->sort_space);
}

/* Numbers the trace's streams 0, 1, ... in the order they first appear and
 * notes each row's.  False when memory runs out. */
static bool number_streams(run_memory *m, const gar_trace *trace)
{
    if (!gar_key_index_init(&m->stream_ids))
        return false;
    m->stream_of_row = malloc(trace->count * sizeof *m->stream_of_row);
    if (m->stream_of_row == NULL)
        return false;
    for (size_t r = 0; r < trace->count; r++) {
        uint32_t s = gar_key_index_add(&m->stream_ids, trace->row[r].stream);
        if (s == GAR_KEY_INDEX_NONE)
            return false;
        m->stream_of_row[r] = s;
    }
    m->streams = calloc(m->stream_ids.count, sizeof *m->streams);
    return m->streams != NULL;
}

/* Fills `out` with each stream's waits, busy time and overshoot quantiles,
 * in the order the trace first names them: the rows' overshoots, grouped by
 * stream (a counting sort), each group sorted through `tmp` (n values of
 * room).  m->overshoot is left as it was.  False when memory runs out. */
static bool per_stream(const run_memory *m, size_t n, const gar_trace *trace, uint64_t *tmp,
                       gar_replay_streams *out)
{
    size_t count = m->stream_ids.count;
    gar_replay_stream *stream = calloc(count, sizeof *stream);
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
        next += m->streams[s].waits;
    }
    for (size_t r = 0; r < n; r++)
        grouped[at[m->stream_of_row[r]]++] = m->overshoot[r];
    for (size_t r = 0; r < n; r++)
        stream[m->stream_of_row[r]].stream = trace->row[r].stream;
    size_t from = 0;
    for (size_t s = 0; s < count; s++) {
        size_t waits = m->streams[s].waits;
        stream[s].waits = waits;
        stream[s].busy_ns = m->streams[s].busy_ns;
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

int gar_replay_run(const gar_replay_config *config, gar_replay_metrics *out, gar_error *err)
{
    int rc = check_config(config, err);
    if (rc < 0)
        return rc;
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "out", "is NULL");
    const gar_trace *trace = config->trace;
    const size_t n = trace->count;
    /* A plan is bands of one band. */
    gar_bands one_band = { .count = 1 };
    if (config->plan != NULL)
        one_band.band[0].plan = *config->plan;
    const gar_bands *bands = config->bands != NULL ? config->bands : &one_band;

    run_memory mem = { 0 };
    bool ok = gar_key_index_of_points(&mem.points, trace) && number_streams(&mem, trace);
    if (ok) {
        mem.estimators = malloc(mem.points.count * sizeof *mem.estimators);
        mem.overshoot = malloc(n * sizeof *mem.overshoot);
        mem.est_error = malloc(n * sizeof *mem.est_error);
        mem.sort_space = malloc(n * sizeof *mem.sort_space);
        ok = mem.estimators != NULL && mem.overshoot != NULL && mem.est_error != NULL &&
             mem.sort_space != NULL;
    }
    if (!ok) {
        run_memory_free(&mem);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay", "exhausted");
    }
    for (size_t p = 0; p < mem.points.count; p++)
        gar_family_point_init(&mem.estimators[p]);

    gar_sim_device dev = { 0 };
    gar_sim_device_options dev_options = {
        .streams = (unsigned)mem.stream_ids.count,
        .store_delay_ns = config->store_delay_ns,
        .late_store_ns = config->late_store_ns,
    };
    gar_sim_host host;
    if ((rc = gar_sim_device_init(&dev, &dev_options, err)) < 0 ||
        (rc = gar_sim_host_init(&host, config->host, config->seed, err)) < 0) {
        gar_sim_device_free(&dev);
        run_memory_free(&mem);
        return rc;
    }
    host.exact_polls = config->exact_polls;

    const gar_estimator_spec *spec = &config->estimator;
    const bool consults = spec->family != GAR_ESTIMATOR_NONE;
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    gar_mono_ns first_start = trace->row[0].start_ns;
    gar_mono_ns last_end = first_start; /* the simulated previous wait's end */
    gar_mono_ns latest_end = first_start;
    size_t predictions = 0;
    gar_family_point *point_of_key = NULL; /* the estimator of the last point looked up */
    uint64_t last_key = 0;

    for (size_t i = 0; i < n; i++) {
        const gar_trace_row *row = &trace->row[i];
        /* One band (a plain plan) needs no choosing, wait after wait. */
        const gar_plan *plan = bands->count == 1 ? &bands->band[0].plan
                                                 : gar_bands_select(bands, row->rows);
        const uint32_t slot = mem.stream_of_row[i];
        stream_state *stream = &mem.streams[slot];
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
        rc = gar_sim_device_enqueue(&dev, slot, submit, duration, fault, &work, err);
        if (rc < 0)
            break;
        gar_dur_ns truth = gar_since(work.done_at, start);

        gar_family_point *point = NULL;
        bool has_sleep = false;
        gar_dur_ns sleep_ns = 0;
        bool predicted = false;
        gar_dur_ns prediction = 0;
        if (consults && plan->predict) {
            /* Runs of one point are the common case: skip the hash then. */
            if (point_of_key == NULL || row->point != last_key) {
                last_key = row->point;
                point_of_key = &mem.estimators[gar_key_index_find(&mem.points, row->point)];
            }
            point = point_of_key;
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
                mem.est_error[predictions++] = p > truth ? p - truth : truth - p;
                has_sleep = gar_deadline_sleep_for(&plan->deadline, p, &sleep_ns) == 1;
            }
        }

        /* Saturated at the clock's last instant: GAR_MONO_NEVER would be
         * "no deadline", and a hung item must still fail. */
        gar_mono_ns deadline = gar_after(start, config->wait_deadline_ns);
        if (deadline == GAR_MONO_NEVER)
            deadline = GAR_MONO_NEVER - 1;
        gar_sim_wait_result res;
        rc = gar_sim_host_wait(&host, &dev, &work, plan, has_sleep, sleep_ns, start, deadline,
                               &res, err);
        if (rc < 0)
            break;
        if (point != NULL && (rc = gar_family_observe(spec, point, &plan->deadline,
                                                      res.report.sample, err)) < 0)
            break;

        gar_mono_ns possible = work.done_at > start ? work.done_at : start;
        mem.overshoot[i] = gar_since(res.end, possible);
        if (config->on_wait != NULL) {
            const gar_replay_wait seen = {
                .index = i,
                .start = start,
                .done = work.done_at,
                .end = res.end,
                .overshoot_ns = mem.overshoot[i],
                .truth_ns = truth,
                .predicted = predicted,
                .prediction_ns = prediction,
                .sleep_ns = has_sleep ? sleep_ns : 0,
            };
            config->on_wait(config->on_wait_context, &seen);
        }
        /* Saturating, so a sum past 2^63 - 1 is caught below, not wrapped. */
        stream->waits++;
        stream->busy_ns = gar_after(stream->busy_ns, res.busy_ns);
        m.busy_ns = gar_after(m.busy_ns, res.busy_ns);
        m.parked_ns = gar_after(m.parked_ns, res.parked_ns);
        m.asleep_ns = gar_after(m.asleep_ns, res.asleep_ns);
        m.sleeps = gar_after(m.sleeps, res.report.sleeps);
        m.parks = gar_after(m.parks, res.report.parks);
        m.queries = gar_after(m.queries, gar_after(res.report.queries, res.report.polls));
        m.polls = gar_after(m.polls, res.report.polls);
        m.backstop_queries = gar_after(m.backstop_queries, res.report.backstop_queries);
        switch (res.report.kind) {
        case GAR_WAIT_KIND_BLOCKED:
            m.blocked++;
            break;
        case GAR_WAIT_KIND_IMMEDIATE:
            m.immediate++;
            break;
        case GAR_WAIT_KIND_LATE:
            m.late++;
            break;
        case GAR_WAIT_KIND_PARKED:
            m.parked++;
            break;
        case GAR_WAIT_KIND_NONE:
            break;
        }
        last_end = res.end;
        if (res.end > latest_end)
            latest_end = res.end;
    }
    gar_sim_device_free(&dev);
    if (rc < 0) {
        run_memory_free(&mem);
        return rc;
    }

    /* Per stream first: the overall quantiles sort the rows' overshoots. */
    gar_replay_streams streams = { NULL, 0 };
    if (config->streams_out != NULL && !per_stream(&mem, n, trace, mem.sort_space, &streams)) {
        run_memory_free(&mem);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay's streams",
                             "exhausted");
    }
    m.waits = n;
    m.wait_ns = gar_after(gar_after(m.busy_ns, m.parked_ns), m.asleep_ns);
    m.busy_frac = m.wait_ns > 0 ? (double)m.busy_ns / (double)m.wait_ns : 0.0;
    m.makespan_ns = latest_end - first_start;
    m.overshoot_ns = quantiles_of(mem.overshoot, mem.sort_space, n);
    m.predictions = predictions;
    m.estimator_error_ns = quantiles_of(mem.est_error, mem.sort_space, predictions);
    run_memory_free(&mem);
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
