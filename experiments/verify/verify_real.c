/* experiments/verify/verify_real.c — the real run of gar verify: a device seam, the
 * emulated device behind it, and the open-loop wait loop on the POSIX host. */
#define _POSIX_C_SOURCE 200809L

#include "verify/verify_real.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gar/emulated.h>
#include <gar/posix.h>
#include <gar/wait_inline.h>

#include "backends/hosts/cpu_pin.h"
#include "sim/trace/key_index.h"
#include "backends/hosts/kind_host.h"
#include "sim/replay_index.h"

/* ---- streams and durations ------------------------------------------------ */

static int too_many_streams(unsigned max, gar_error *err)
{
    char cap[24];
    snprintf(cap, sizeof cap, "%u", max);
    return gar_error_set(err, GAR_E_CAPACITY, 2, "the device's streams", cap);
}

int gar_verify_stream_slots(const gar_trace *trace, unsigned max, uint8_t *slot_of_row,
                            unsigned *streams, gar_error *err)
{
    assert(trace != NULL && slot_of_row != NULL && streams != NULL && max <= UINT8_MAX + 1u);
    uint32_t id[UINT8_MAX + 1];
    unsigned count = 0;
    for (size_t i = 0; i < trace->count; i++) {
        unsigned slot = 0;
        while (slot < count && id[slot] != trace->row[i].stream)
            slot++;
        if (slot == count) {
            if (count == max)
                return too_many_streams(max, err);
            id[count++] = trace->row[i].stream;
        }
        slot_of_row[i] = (uint8_t)slot;
    }
    *streams = count;
    return 0;
}

void gar_verify_work_durations(const gar_trace *trace, const uint8_t *slot_of_row, unsigned max,
                               gar_dur_ns *duration)
{
    assert(trace != NULL && slot_of_row != NULL && duration != NULL && max <= UINT8_MAX + 1u);
    (void)max; /* the slots' bound: only asserted */
    uint64_t previous_done[UINT8_MAX + 1];
    bool seen[UINT8_MAX + 1] = { false };
    for (size_t i = 0; i < trace->count; i++) {
        const gar_trace_row *row = &trace->row[i];
        unsigned s = slot_of_row[i];
        assert(s < max);
        uint64_t begins = row->submit_ns;
        if (seen[s] && previous_done[s] > begins)
            begins = previous_done[s];
        duration[i] = row->done_ns > begins ? row->done_ns - begins : 0;
        previous_done[s] = row->done_ns;
        seen[s] = true;
    }
}

uint64_t gar_verify_trace_base(const gar_trace *trace)
{
    uint64_t base = trace->row[0].submit_ns;
    for (size_t i = 1; i < trace->count; i++)
        if (trace->row[i].submit_ns < base)
            base = trace->row[i].submit_ns;
    return base;
}

/* ---- the emulated device behind the seam ---------------------------------- */

typedef struct emulated_ctx {
    gar_emulated_device *dev;
} emulated_ctx;

static int emulated_open(void **ctx, const gar_trace *trace, gar_mono_ns *at, gar_idle park,
                         int cpu, gar_error *err)
{
    const gar_mono_ns origin = *at; /* kept: starting a thread is quick */
    const size_t n = trace->count;
    const uint64_t base = gar_verify_trace_base(trace);
    emulated_ctx *e = malloc(sizeof *e);
    gar_emulated_item *items = malloc(n * sizeof *items);
    gar_key_index streams; /* the trace's stream ids, numbered densely: any number of them */
    bool ok = gar_key_index_init(&streams) && e != NULL && items != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t stream = gar_key_index_add(&streams, trace->row[i].stream);
        ok = stream != GAR_KEY_INDEX_NONE;
        items[i] = (gar_emulated_item){
            .stream = stream,
            .done_at = gar_after(origin, trace->row[i].done_ns - base),
        };
    }
    gar_key_index_free(&streams);
    int rc = ok ? gar_emulated_device_start(&e->dev, items, n, park, cpu, err)
                : gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the emulated device",
                                "exhausted");
    free(items);
    if (rc < 0) {
        free(e);
        return rc;
    }
    *ctx = e;
    return 0;
}

static int emulated_submit_row(void *ctx, size_t row, gar_port *port, gar_error *err)
{
    /* The device was given every row's work at open: submitting is naming it. */
    emulated_ctx *e = ctx;
    return gar_emulated_device_port(e->dev, row, port, err);
}

static int emulated_close(void *ctx, bool stop, gar_mono_ns *completed_at, gar_error *err)
{
    emulated_ctx *e = ctx;
    if (stop)
        gar_emulated_device_stop(e->dev, NULL);
    int rc = gar_emulated_device_finish(e->dev, completed_at, err);
    free(e);
    return rc;
}

const gar_verify_device_ops gar_verify_emulated_device = {
    .name = "emulated",
    .open = emulated_open,
    .submit_row = emulated_submit_row,
    .close = emulated_close,
};

/* ---- a clock that remembers a wait's first and last reading --------------- */

typedef struct recording_clock {
    gar_mono_ns first, last;
    bool started;
} recording_clock;

static gar_mono_ns recording_now(void *ctx)
{
    recording_clock *c = ctx;
    gar_mono_ns t = gar_posix_now();
    if (!c->started) {
        c->first = t;
        c->started = true;
    }
    c->last = t;
    return t;
}

/* ---- a port that times its blocking waits and parks ----------------------- */

typedef struct timed_port {
    gar_port inner;
    gar_port_ops ops; /* the inner's ops, NULL where the inner's are */
    gar_dur_ns blocked_ns, parked_ns;
} timed_port;

static int timed_query(void *ctx, gar_error *err)
{
    timed_port *t = ctx;
    return t->inner.ops->query(t->inner.ctx, err);
}

static int timed_poll(void *ctx, gar_error *err)
{
    timed_port *t = ctx;
    return t->inner.ops->poll(t->inner.ctx, err);
}

static int timed_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    timed_port *t = ctx;
    return t->inner.ops->arm(t->inner.ctx, word, err);
}

static int timed_block(void *ctx, gar_error *err)
{
    timed_port *t = ctx;
    gar_mono_ns t0 = gar_posix_now();
    int rc = t->inner.ops->block(t->inner.ctx, err);
    t->blocked_ns += gar_since(gar_posix_now(), t0);
    return rc;
}

static int timed_park(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err)
{
    timed_port *t = ctx;
    gar_mono_ns t0 = gar_posix_now();
    int rc = t->inner.ops->park(t->inner.ctx, word, until, err);
    t->parked_ns += gar_since(gar_posix_now(), t0);
    return rc;
}

/* ---- an Idle port that times its parks (the reactor kinds park through it) -- */

typedef struct timed_idle {
    gar_idle inner;
    gar_dur_ns *parked_ns; /* the current wait's counter */
} timed_idle;

static int timed_idle_sleep_until(void *ctx, gar_mono_ns until, gar_error *err)
{
    timed_idle *t = ctx;
    return t->inner.ops->sleep_until(t->inner.ctx, until, err);
}

static int timed_idle_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                           gar_mono_ns until, gar_error *err)
{
    timed_idle *t = ctx;
    gar_mono_ns t0 = gar_posix_now();
    int rc = t->inner.ops->park(t->inner.ctx, line, seen, until, err);
    *t->parked_ns += gar_since(gar_posix_now(), t0);
    return rc;
}

static const gar_idle_ops timed_idle_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = timed_idle_sleep_until,
    .park = timed_idle_park,
};

static void timed_port_init(timed_port *t, gar_port inner)
{
    const gar_port_ops *in = inner.ops;
    *t = (timed_port){
        .inner = inner,
        .ops = {
            .version = GAR_PORT_OPS_VERSION,
            .query = in->query != NULL ? timed_query : NULL,
            .block = in->block != NULL ? timed_block : NULL,
            .poll = in->poll != NULL ? timed_poll : NULL,
            .arm = in->arm != NULL ? timed_arm : NULL,
            .park = in->park != NULL ? timed_park : NULL,
        },
    };
}

static gar_dur_ns thread_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (gar_dur_ns)ts.tv_sec * GAR_NS_PER_S + (gar_dur_ns)ts.tv_nsec;
}

/* ---- points: each row's estimator, numbered as the replay numbers them ---- */

typedef struct point_table {
    gar_replay_index index;   /* each row's point (sim/replay_index.h) */
    gar_family_point *points; /* one per numbered point */
} point_table;

static bool points_build(point_table *t, const gar_trace *trace)
{
    if (gar_replay_index_build(trace, &t->index, NULL) < 0)
        return false;
    t->points = malloc((t->index.points > 0 ? t->index.points : 1) * sizeof *t->points);
    if (t->points == NULL)
        return false;
    for (size_t i = 0; i < t->index.points; i++)
        gar_family_point_init(&t->points[i]);
    return true;
}

static void points_free(point_table *t)
{
    gar_replay_index_free(&t->index);
    free(t->points);
}

/* ---- the run -------------------------------------------------------------- */

#define HEAD_START_NS (50 * GAR_NS_PER_MS) /* set-up time before the trace's origin */

/* What each wait did, kept for the metrics. */
typedef struct wait_record {
    gar_mono_ns start, end;
    gar_wait_report report;
    gar_dur_ns blocked_ns, parked_ns;
    bool predicted;
    gar_dur_ns prediction;
} wait_record;

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static gar_replay_quantiles quantiles_of(gar_dur_ns *v, size_t n)
{
    if (n > 0) /* v may be NULL then, which qsort does not take */
        qsort(v, n, sizeof *v, compare_u64);
    return gar_replay_quantiles_sorted(v, n);
}

static int check_config(const gar_real_config *c, gar_error *err)
{
    const char *fn = "gar_real_run";
    if (c == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "config", "is NULL");
    if (c->trace == NULL || c->bands == NULL || c->device == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn,
                             c->trace == NULL ? "trace" : c->bands == NULL ? "bands" : "device",
                             "is NULL");
    if (c->trace->count == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "trace", "has no rows");
    if (c->bands->count < 1 || c->bands->count > GAR_BANDS_MAX)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "bands", "has no band or too many");
    if (c->estimator.family == GAR_ESTIMATOR_ORACLE)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "estimator",
                             "is oracle, which only a simulator can run");
    if (c->wait_deadline_ns == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait_deadline_ns", "is 0");
    return 0;
}

static bool bands_have_auto(const gar_bands *bands)
{
    for (uint32_t b = 0; b < bands->count; b++)
        if (bands->band[b].plan.park == GAR_PARK_AUTO)
            return true;
    return false;
}

/* Everything the run allocates. */
typedef struct run_memory {
    point_table points;
    gar_auto_policy *policy;    /* an auto plan's rule, with a point per numbered point */
    gar_auto_point *auto_points;
    wait_record *waits;
    gar_port *ports;
    gar_mono_ns *completed;
    gar_dur_ns *scratch;
} run_memory;

static void run_memory_free(run_memory *m)
{
    points_free(&m->points);
    free(m->policy);
    free(m->auto_points);
    free(m->waits);
    free(m->ports);
    free(m->completed);
    free(m->scratch);
}

/* Sleeps on the host until `at`, if it is still to come. */
static int sleep_to(gar_idle idle, gar_mono_ns at, gar_error *err)
{
    if (gar_posix_now() >= at)
        return 0;
    return idle.ops->sleep_until(idle.ctx, at, err);
}

/* The waits, in order.  Returns 0 or the first failure's code. */
static int run_waits(const gar_real_config *c, void *dev, gar_mono_ns origin, uint64_t base,
                     gar_idle idle, run_memory *m, gar_dur_ns *cpu_ns, gar_error *err)
{
    const gar_trace *trace = c->trace;
    const size_t n = trace->count;
    const gar_estimator_spec *spec = &c->estimator;
    const bool consults = spec->family != GAR_ESTIMATOR_NONE;
    size_t submitted = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const gar_trace_row *row = &trace->row[i];
        gar_mono_ns start_at = gar_after(origin, row->start_ns - base);
        /* Submit every row up to this one, and those due before it starts. */
        while (submitted < n &&
               (submitted <= i || trace->row[submitted].submit_ns <= row->start_ns)) {
            gar_mono_ns at = gar_after(origin, trace->row[submitted].submit_ns - base);
            if ((rc = sleep_to(idle, at, err)) < 0 ||
                (rc = c->device->submit_row(dev, submitted, &m->ports[submitted], err)) < 0)
                return rc;
            submitted++;
        }
        if ((rc = sleep_to(idle, start_at, err)) < 0)
            return rc;

        const gar_plan *plan = gar_bands_select(c->bands, row->step_rows);
        wait_record *w = &m->waits[i];
        gar_family_point *point = NULL;
        bool has_sleep = false;
        gar_dur_ns sleep_ns = 0;
        /* An auto plan is a rule: the wait runs the plan and sleep it gives. */
        gar_auto_choice choice;
        gar_auto_point *auto_point = NULL;
        if (plan->park == GAR_PARK_AUTO) {
            auto_point = &m->auto_points[m->points.index.point_of_row[i]];
            if ((rc = gar_auto_decide(m->policy, auto_point, plan->budget_ns, &choice, err)) < 0)
                return rc;
            plan = &choice.plan;
            has_sleep = choice.has_sleep;
            sleep_ns = choice.sleep_ns;
        } else if (consults && plan->predict) {
            point = &m->points.points[m->points.index.point_of_row[i]];
            int have_p = gar_family_prediction(spec, point, &plan->deadline, &w->prediction, err);
            if (have_p < 0)
                return have_p;
            w->predicted = have_p == 1;
            if (w->predicted)
                has_sleep = gar_deadline_sleep_for(&plan->deadline, w->prediction, &sleep_ns) == 1;
        }

        timed_port port;
        timed_port_init(&port, m->ports[i]);
        recording_clock rec = { 0, 0, false };
        gar_clock clock = { .now = recording_now, .ctx = &rec };
        timed_idle waiting_idle = { .inner = idle, .parked_ns = &port.parked_ns };
        gar_dur_ns cpu0 = thread_cpu_now();
        rc = gar_kind_wait(c->executor, plan, has_sleep, sleep_ns,
                           gar_after(gar_posix_now(), c->wait_deadline_ns),
                           (gar_port){ .ops = &port.ops, .ctx = &port }, clock,
                           (gar_idle){ .ops = &timed_idle_ops, .ctx = &waiting_idle },
                           &w->report, NULL, err);
        *cpu_ns += gar_since(thread_cpu_now(), cpu0);
        if (rc < 0)
            return rc;
        if (point != NULL &&
            (rc = gar_family_observe(spec, point, &plan->deadline, w->report.sample, err)) < 0)
            return rc;
        if (auto_point != NULL &&
            (rc = gar_auto_learn(m->policy, auto_point, &choice, &w->report, err)) < 0)
            return rc;
        w->start = rec.first;
        w->end = rec.last;
        w->blocked_ns = port.blocked_ns;
        w->parked_ns = port.parked_ns;
    }
    return 0;
}

/* The metrics, the per-wait overshoots and the trace as run. */
static int summarise(const gar_real_config *c, gar_mono_ns origin, uint64_t base, bool word_wait,
                     run_memory *m, gar_real_result *out, gar_error *err)
{
    const gar_trace *trace = c->trace;
    const size_t n = trace->count;
    gar_replay_metrics mt;
    memset(&mt, 0, sizeof mt);
    gar_mono_ns first_start = m->waits[0].start, latest_end = first_start;
    size_t predictions = 0;
    for (size_t i = 0; i < n; i++) {
        const wait_record *w = &m->waits[i];
        const gar_wait_report *r = &w->report;
        gar_mono_ns done = m->completed[i];
        gar_mono_ns possible = done > w->start ? done : w->start;
        out->overshoot[i] = gar_since(w->end, possible);
        gar_dur_ns wait_ns = gar_since(w->end, w->start);
        gar_dur_ns asleep = r->slept_ns + w->blocked_ns;
        if (asleep > wait_ns)
            asleep = wait_ns;
        gar_dur_ns parked = word_wait ? w->parked_ns : 0;
        if (parked > wait_ns - asleep)
            parked = wait_ns - asleep;
        mt.wait_ns += wait_ns;
        mt.asleep_ns += asleep;
        mt.parked_ns += parked;
        mt.busy_ns += wait_ns - asleep - parked;
        mt.sleeps += r->sleeps;
        mt.parks += r->parks;
        mt.queries += r->queries + r->polls;
        mt.polls += r->polls;
        mt.backstop_queries += r->backstop_queries;
        mt.blocked += r->kind == GAR_WAIT_KIND_BLOCKED;
        mt.immediate += r->kind == GAR_WAIT_KIND_IMMEDIATE;
        mt.late += r->kind == GAR_WAIT_KIND_LATE;
        mt.parked += r->kind == GAR_WAIT_KIND_PARKED;
        if (w->predicted) {
            gar_dur_ns truth = gar_since(done, w->start);
            m->scratch[predictions++] =
                w->prediction > truth ? w->prediction - truth : truth - w->prediction;
        }
        if (w->end > latest_end)
            latest_end = w->end;
    }
    mt.waits = n;
    mt.busy_frac = mt.wait_ns > 0 ? (double)mt.busy_ns / (double)mt.wait_ns : 0.0;
    mt.makespan_ns = latest_end - first_start;
    mt.predictions = predictions;
    mt.ci_level = GAR_CI_LEVEL_DEFAULT; /* as a replay's, so the two compare */
    mt.estimator_error_ns = quantiles_of(m->scratch, predictions);
    mt.estimator_error_ci = gar_replay_intervals_sorted(m->scratch, predictions, mt.ci_level);
    memcpy(m->scratch, out->overshoot, n * sizeof *m->scratch);
    mt.overshoot_ns = quantiles_of(m->scratch, n);
    mt.overshoot_ci = gar_replay_intervals_sorted(m->scratch, n, mt.ci_level);
    out->metrics = mt;

    /* How late the device and the host were against the trace. */
    for (size_t i = 0; i < n; i++)
        m->scratch[i] = gar_since(m->completed[i], gar_after(origin, trace->row[i].done_ns - base));
    out->device_late_ns = quantiles_of(m->scratch, n);
    for (size_t i = 0; i < n; i++)
        m->scratch[i] = gar_since(m->waits[i].start, gar_after(origin, trace->row[i].start_ns - base));
    out->start_late_ns = quantiles_of(m->scratch, n);

    /* The trace as run, in the trace's own time frame. */
    gar_trace_init(&out->as_run);
    int rc = gar_trace_reserve(&out->as_run, n, err);
    if (rc < 0)
        return rc;
    out->as_run.columns = trace->columns;
    for (size_t i = 0; i < n; i++) {
        gar_trace_row row = trace->row[i];
        row.start_ns = base + gar_since(m->waits[i].start, origin);
        row.done_ns = base + gar_since(m->completed[i], origin);
        if ((rc = gar_trace_append(&out->as_run, &row, err)) < 0)
            break;
    }
    if (rc == 0)
        rc = gar_trace_check(&out->as_run, "the trace as run", err);
    if (rc < 0)
        gar_trace_free(&out->as_run);
    return rc;
}

int gar_real_run(const gar_real_config *config, gar_real_result *out, gar_error *err)
{
    int rc = check_config(config, err);
    if (rc < 0)
        return rc;
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_real_run", "out", "is NULL");
    const gar_trace *trace = config->trace;
    const size_t n = trace->count;

    run_memory m = { 0 };
    gar_real_result result = { 0 };
    bool ok = points_build(&m.points, trace);
    if (ok) {
        m.waits = calloc(n, sizeof *m.waits);
        m.ports = calloc(n, sizeof *m.ports);
        m.completed = calloc(n, sizeof *m.completed);
        m.scratch = calloc(n, sizeof *m.scratch);
        result.overshoot = calloc(n, sizeof *result.overshoot);
        ok = m.waits && m.ports && m.completed && m.scratch && result.overshoot;
    }
    if (ok && bands_have_auto(config->bands)) {
        m.policy = malloc(sizeof *m.policy);
        m.auto_points = calloc(m.points.index.points > 0 ? m.points.index.points : 1,
                               sizeof *m.auto_points);
        ok = m.policy != NULL && m.auto_points != NULL;
        gar_auto_host host;
        if (config->auto_host != NULL)
            host = *config->auto_host;
        else
            gar_auto_host_default(false, &host);
        int bad = ok ? gar_auto_init(m.policy, &host, err) : 0;
        if (bad < 0) {
            run_memory_free(&m);
            free(result.overshoot);
            return bad;
        }
    }
    if (!ok) {
        run_memory_free(&m);
        free(result.overshoot);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the real run", "exhausted");
    }

    /* This thread waits, on a CPU of its own for the run (its own set is
     * put back after): the host tightens its slack. */
    gar_cpu_saved affinity;
    gar_cpu_save(&affinity);
    int waiter_cpu, device_cpu;
    if (gar_cpu_split(&waiter_cpu, &device_cpu) && gar_cpu_pin_self(waiter_cpu, NULL) < 0)
        device_cpu = -1;
    gar_kind_host host;
    if ((rc = gar_kind_host_open(&host, config->executor, err)) < 0) {
        gar_cpu_restore(&affinity);
        run_memory_free(&m);
        free(result.overshoot);
        return rc;
    }
    gar_idle idle = gar_kind_host_idle(&host);
    gar_caps caps;
    gar_posix_host_caps(&host.posix, &caps);

    const uint64_t base = gar_verify_trace_base(trace);
    gar_mono_ns origin = gar_posix_now() + HEAD_START_NS;
    void *dev = NULL;
    if ((rc = config->device->open(&dev, trace, &origin, idle, device_cpu, err)) < 0) {
        gar_kind_host_close(&host);
        gar_cpu_restore(&affinity);
        run_memory_free(&m);
        free(result.overshoot);
        return rc;
    }
    rc = run_waits(config, dev, origin, base, idle, &m, &result.cpu_ns, err);
    int closed = config->device->close(dev, rc < 0, m.completed, rc < 0 ? NULL : err);
    gar_kind_host_close(&host);
    gar_cpu_restore(&affinity);
    if (rc == 0)
        rc = closed;
    if (rc == 0)
        rc = summarise(config, origin, base, caps.word_wait, &m, &result, err);
    run_memory_free(&m);
    if (rc < 0) {
        free(result.overshoot);
        return rc;
    }
    *out = result;
    return 0;
}

void gar_real_result_free(gar_real_result *result)
{
    if (result == NULL)
        return;
    free(result->overshoot);
    result->overshoot = NULL;
    gar_trace_free(&result->as_run);
}
