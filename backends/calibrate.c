/* backends/calibrate.c — each number of a host profile, measured with the
 * primitives a real wait on this host uses.  What each one is: calibrate.h. */
#define _POSIX_C_SOURCE 200809L

#include "calibrate.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/nearest_rank.h>
#include <gar/splitmix64.h>
#include <gar/wait.h>

#include "cpu_pin.h"
#include "emulated_device.h"

#define US GAR_NS_PER_US
#define MS GAR_NS_PER_MS

/* Spreads of the waits measured, log-uniform between the two ends.  Sleeps
 * and blocks are as long as the GPU steps gar studies (half a millisecond to
 * ten): how late a sleeping thread wakes depends on how long its CPU idled
 * (a longer idle is a deeper one, and on a virtual machine the vCPU itself
 * may be descheduled), and one profile states one distribution, so it is
 * measured where the simulated waits will be.  Parks and polls spin, so
 * their spreads are kept short. */
#define SLEEP_SHORTEST (50 * US)
#define SLEEP_LONGEST (10 * MS)
#define BLOCK_LEAD_SHORTEST (500 * US)
#define BLOCK_LEAD_LONGEST (10 * MS)
#define PARK_LEAD_SHORTEST (20 * US)
#define PARK_LEAD_LONGEST (1 * MS)
#define POLL_BURST_SHORTEST (100 * US)
#define POLL_BURST_LONGEST (5 * MS)
#define POLL_GAP (100 * US) /* the host's own work between two waits */
#define POLL_RUN_NS (2 * GAR_NS_PER_S)
#define POLL_RUN_QUICK_NS (200 * MS)
#define COST_BATCHES 64
#define COST_CALLS 1000
#define DEVICE_HEAD_START (5 * MS) /* from starting a device to its first item */
#define POLL_SAMPLE_EVERY 64         /* poll turns kept: one in this many */
#define POLL_SAMPLES_MAX (1u << 20)  /* and at most this many: a ppm still holds a turn */

/* The levels every distribution lists (the profile format requires them). */
static const uint32_t required_levels[] = { 0, 500000, 900000, 990000, 1000000 };

/* ---- a seeded spread ------------------------------------------------------ */

/* Spread by splitmix64: the schedules only need to be spread, and the same
 * every run. */
static gar_dur_ns log_uniform(uint64_t *state, gar_dur_ns lo, gar_dur_ns hi)
{
    double u = (double)(gar_splitmix64(state) >> 11) * 0x1.0p-53;
    return (gar_dur_ns)((double)lo * exp(u * log((double)hi / (double)lo)));
}

/* ---- quantiles ------------------------------------------------------------ */

gar_dur_ns gar_calibrate_rank(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm)
{
    assert(n >= 1 && level_ppm <= 1000000);
    return gar_nearest_rank(sorted, n, level_ppm);
}

static int compare_ns(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return (x > y) - (x < y);
}

/* ---- fitting a distribution's points ------------------------------------ *
 *
 * The simulator interpolates linearly between the listed points, so where a
 * distribution bends sharply (a body of µs and a tail of ms, as preemption
 * makes) a fixed set of levels smears the tail over a whole band: p90 at
 * 80 µs and p99 at 4 ms would make one draw in ten land uniformly between
 * them.  So the points are chosen greedily, as a polyline is simplified:
 * start from the required levels, then add, up to GAR_CALIBRATE_LEVELS_MAX,
 * the empirical point the fit is furthest from.  The distance is the error
 * in cumulative probability at that point's value (the quantity a KS
 * statistic reads); for the poll period it is measured on the share of time
 * spent in turns up to that level instead, because a poll wait's overshoot is
 * the rest of the turn its completion falls in — turns weigh by their length. */

typedef struct point {
    uint32_t level; /* ppm */
    gar_dur_ns value;
} point;

/* The empirical points of sorted v[0..n-1]: for each rank r, both ends of
 * the run of levels whose nearest-rank quantile is v[r-1] — the least level
 * above (r-1)/n and the greatest at most r/n — so the fit can follow a jump
 * between two values as a step, not a ramp.  Level 0 (the least value) and
 * level 10^6 (the largest) are among them.  mass[k] (time-weighted fits
 * only) is the time in the samples up to point k: those below its rank, and
 * at a run's upper end the sample itself.  A rank whose run holds no level
 * (more values than ppm) is skipped.  Returns the number of points, at most
 * 2n. */
static size_t empirical_points(const gar_dur_ns *v, size_t n, point *pts, double *mass)
{
    size_t k = 0;
    double below = 0;
    for (size_t r = 1; r <= n; r++) {
        uint64_t first = r == 1 ? 0 : (uint64_t)(r - 1) * 1000000 / n + 1;
        uint64_t last = (uint64_t)r * 1000000 / n;
        double after = below + (double)v[r - 1];
        if (first <= last && (k == 0 || first > pts[k - 1].level)) {
            pts[k] = (point){ (uint32_t)first, v[r - 1] };
            if (mass != NULL)
                mass[k] = below;
            k++;
        }
        if (first < last) {
            pts[k] = (point){ (uint32_t)last, v[r - 1] };
            if (mass != NULL)
                mass[k] = after;
            k++;
        }
        below = after;
    }
    assert(pts[k - 1].level == 1000000); /* the run of rank n ends at 10^6 */
    if (mass != NULL)
        mass[k - 1] = below;
    return k;
}

/* The chosen point at or below `level` (chosen[] sorted, chosen[0].level 0). */
static unsigned segment_of(const point *chosen, unsigned count, uint32_t level)
{
    unsigned i = 0;
    while (i + 1 < count && chosen[i + 1].level <= level)
        i++;
    return i;
}

/* The time mass below `level`: that of the empirical point at or below it. */
static double mass_at(const point *pts, const double *mass, size_t np, uint32_t level)
{
    size_t lo = 0, hi = np; /* the last point with pts[].level <= level */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pts[mid].level <= level)
            lo = mid;
        else
            hi = mid;
    }
    return mass[lo];
}

/* How far the fit through `chosen` is from empirical point k: in cumulative
 * probability (the interpolation's level at the point's value against the
 * point's level), or, time-weighted, in the share of time (the empirical
 * time share against the chord between the segment's ends — where the
 * chord misses, the turns' lengths change, and a point there lets the
 * interpolation follow). */
static double fit_error(const point *chosen, unsigned count, const point *pts,
                        const double *mass, size_t np, double total, size_t k)
{
    unsigned i = segment_of(chosen, count, pts[k].level);
    if (i + 1 == count)
        return 0; /* the last point itself */
    const point a = chosen[i], b = chosen[i + 1];
    const double span = (double)(b.level - a.level);
    if (mass == NULL) {
        if (b.value == a.value)
            return 0;
        double at = (double)a.level + span * ((double)pts[k].value - (double)a.value) /
                                          ((double)b.value - (double)a.value);
        return fabs(at - (double)pts[k].level) / 1e6;
    }
    double ma = mass_at(pts, mass, np, a.level), mb = mass_at(pts, mass, np, b.level);
    double chord = ma + (mb - ma) * ((double)pts[k].level - (double)a.level) / span;
    return fabs(mass[k] - chord) / total;
}

/* Inserts p into chosen[] (sorted by level) unless its level is there. */
static bool choose(point *chosen, unsigned *count, point p)
{
    unsigned i = 0;
    while (i < *count && chosen[i].level < p.level)
        i++;
    if (i < *count && chosen[i].level == p.level)
        return false;
    memmove(&chosen[i + 1], &chosen[i], (*count - i) * sizeof *chosen);
    chosen[i] = p;
    (*count)++;
    return true;
}

/* Fits sorted v[0..n-1] into `out`, time-weighted or not.  Returns false
 * when memory runs out. */
static bool fit_dist(const gar_dur_ns *v, size_t n, bool time_weighted, gar_calibrated_dist *out)
{
    assert(n >= 1);
    point *pts = malloc(2 * n * sizeof *pts);
    double *mass = time_weighted ? malloc(2 * n * sizeof *mass) : NULL;
    if (pts == NULL || (time_weighted && mass == NULL)) {
        free(pts);
        free(mass);
        return false;
    }
    size_t np = empirical_points(v, n, pts, mass);
    double total = 0;
    if (time_weighted)
        for (size_t r = 0; r < n; r++)
            total += (double)v[r];
    if (time_weighted && total <= 0)
        total = 1;

    point chosen[GAR_CALIBRATE_LEVELS_MAX];
    unsigned count = 0;
    for (size_t i = 0; i < sizeof required_levels / sizeof required_levels[0]; i++)
        choose(chosen, &count,
               (point){ required_levels[i], gar_calibrate_rank(v, n, required_levels[i]) });
    while (count < GAR_CALIBRATE_LEVELS_MAX) {
        double worst = 0;
        size_t at = 0;
        for (size_t k = 0; k < np; k++) {
            double e = fit_error(chosen, count, pts, mass, np, total, k);
            if (e > worst) {
                worst = e;
                at = k;
            }
        }
        if (worst < 1e-4 || !choose(chosen, &count, pts[at]))
            break; /* within a hundredth of a percent everywhere: nothing left to gain */
    }
    out->count = count;
    out->samples = n;
    for (unsigned i = 0; i < count; i++) {
        out->level_ppm[i] = chosen[i].level;
        out->value[i] = chosen[i].value;
    }
    free(pts);
    free(mass);
    return true;
}

static int no_memory(gar_error *err, const char *what)
{
    return gar_error_set(err, GAR_E_BACKEND, 2, what, strerror(ENOMEM));
}

/* ---- fixed costs ---------------------------------------------------------- */

static gar_dur_ns median_of(gar_dur_ns *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_ns);
    return v[n / 2];
}

static gar_dur_ns query_cost(gar_port port)
{
    gar_dur_ns per_call[COST_BATCHES];
    for (unsigned b = 0; b < COST_BATCHES; b++) {
        gar_mono_ns t0 = gar_posix_now();
        int sum = 0;
        for (unsigned i = 0; i < COST_CALLS; i++)
            sum += port.ops->query(port.ctx, NULL);
        gar_mono_ns t1 = gar_posix_now();
        assert(sum == 0); /* the item is pending throughout */
        (void)sum;
        per_call[b] = (t1 - t0 + COST_CALLS / 2) / COST_CALLS;
    }
    return median_of(per_call, COST_BATCHES);
}

static gar_dur_ns clock_cost(void)
{
    gar_dur_ns per_call[COST_BATCHES];
    for (unsigned b = 0; b < COST_BATCHES; b++) {
        gar_mono_ns t0 = gar_posix_now(), last = t0;
        for (unsigned i = 0; i < COST_CALLS; i++)
            last = gar_posix_now();
        per_call[b] = (last - t0 + COST_CALLS / 2) / COST_CALLS;
    }
    return median_of(per_call, COST_BATCHES);
}

/* ---- sleep overshoot ------------------------------------------------------ */

static int measure_sleep(gar_idle idle, size_t n, uint64_t *rng, gar_calibrated_dist *out,
                         gar_error *err)
{
    gar_dur_ns *v = malloc(n * sizeof *v);
    if (v == NULL)
        return no_memory(err, "allocating the sleep samples");
    for (size_t i = 0; i < n; i++) {
        gar_mono_ns target = gar_posix_now() + log_uniform(rng, SLEEP_SHORTEST, SLEEP_LONGEST);
        int rc = idle.ops->sleep_until(idle.ctx, target, err);
        gar_mono_ns woke = gar_posix_now();
        if (rc < 0) {
            free(v);
            return rc;
        }
        v[i] = gar_since(woke, target);
    }
    qsort(v, n, sizeof *v, compare_ns);
    bool fitted = fit_dist(v, n, false, out);
    free(v);
    return fitted ? 0 : no_memory(err, "fitting the sleep samples");
}

/* ---- wakes after a device's completion ------------------------------------ */

/* A device whose n items (one stream) complete `lead` apart, each lead drawn
 * from [shortest, longest]: a waiter that starts on item j as soon as item
 * j-1 returned waits about that lead before the completion. */
static int start_spread_device(gar_idle idle, int device_cpu, size_t n, uint64_t *rng,
                               gar_dur_ns shortest, gar_dur_ns longest, gar_emulated_device **dev,
                               gar_error *err)
{
    gar_emulated_item *items = malloc(n * sizeof *items);
    if (items == NULL)
        return no_memory(err, "allocating a calibration schedule");
    gar_mono_ns at = gar_posix_now() + DEVICE_HEAD_START;
    for (size_t j = 0; j < n; j++) {
        at += log_uniform(rng, shortest, longest);
        items[j] = (gar_emulated_item){ .stream = 0, .done_at = at };
    }
    int rc = gar_emulated_device_start(dev, items, n, idle, device_cpu, err);
    free(items);
    return rc;
}

/* Ends a wake measurement: v[j] = returned[j] - completion of item j, over
 * the items whose wait really waited (returned[j] != GAR_MONO_NEVER). */
static int finish_wakes(gar_emulated_device *dev, gar_mono_ns *returned, size_t n,
                        gar_calibrated_dist *out, gar_error *err)
{
    gar_mono_ns *done = malloc(n * sizeof *done);
    if (done == NULL) {
        gar_emulated_device_stop(dev, NULL);
        gar_emulated_device_finish(dev, NULL, NULL);
        return no_memory(err, "allocating the completion times");
    }
    gar_emulated_device_finish(dev, done, NULL);
    size_t kept = 0;
    for (size_t j = 0; j < n; j++)
        if (returned[j] != GAR_MONO_NEVER && done[j] != GAR_MONO_NEVER)
            returned[kept++] = gar_since(returned[j], done[j]);
    free(done);
    if (kept == 0) /* every wait found its work done: the machine is far too loaded */
        return gar_error_set(err, GAR_E_BACKEND, 2, "measuring wake latencies",
                             "no wait saw its work pending");
    qsort(returned, kept, sizeof *returned, compare_ns);
    return fit_dist(returned, kept, false, out) ? 0 : no_memory(err, "fitting the wakes");
}

static int measure_block(gar_idle idle, int device_cpu, size_t n, uint64_t *rng, gar_calibrated_dist *out,
                         gar_error *err)
{
    gar_mono_ns *returned = malloc(n * sizeof *returned);
    if (returned == NULL)
        return no_memory(err, "allocating the block samples");
    gar_emulated_device *dev;
    int rc = start_spread_device(idle, device_cpu, n, rng, BLOCK_LEAD_SHORTEST, BLOCK_LEAD_LONGEST, &dev, err);
    if (rc < 0) {
        free(returned);
        return rc;
    }
    for (size_t j = 0; j < n; j++) {
        gar_port port;
        gar_emulated_device_port(dev, j, &port, NULL);
        returned[j] = GAR_MONO_NEVER;
        if (port.ops->query(port.ctx, NULL) == 1) /* already done: no wake to time */
            continue;
        rc = port.ops->block(port.ctx, err);
        gar_mono_ns t = gar_posix_now();
        if (rc < 0)
            break;
        returned[j] = t;
    }
    if (rc < 0) {
        gar_emulated_device_stop(dev, NULL);
        gar_emulated_device_finish(dev, NULL, NULL);
        free(returned);
        return rc;
    }
    rc = finish_wakes(dev, returned, n, out, err);
    free(returned);
    return rc;
}

static int measure_park(gar_idle idle, int device_cpu, size_t n, uint64_t *rng, gar_calibrated_dist *out,
                        gar_error *err)
{
    gar_mono_ns *returned = malloc(n * sizeof *returned);
    if (returned == NULL)
        return no_memory(err, "allocating the park samples");
    gar_emulated_device *dev;
    int rc = start_spread_device(idle, device_cpu, n, rng, PARK_LEAD_SHORTEST, PARK_LEAD_LONGEST, &dev, err);
    if (rc < 0) {
        free(returned);
        return rc;
    }
    for (size_t j = 0; j < n && rc >= 0; j++) {
        gar_port port;
        gar_emulated_device_port(dev, j, &port, NULL);
        gar_descriptor word;
        port.ops->arm(port.ctx, &word, NULL);
        returned[j] = GAR_MONO_NEVER;
        if (gar_descriptor_reached(&word))
            continue;
        do /* bounded parks, as a flag wait issues them, until the word moves */
            rc = port.ops->park(port.ctx, &word, gar_posix_now() + PARK_LEAD_LONGEST, err);
        while (rc == 0);
        if (rc > 0)
            returned[j] = gar_posix_now();
    }
    if (rc < 0) {
        gar_emulated_device_stop(dev, NULL);
        gar_emulated_device_finish(dev, NULL, NULL);
        free(returned);
        return rc;
    }
    rc = finish_wakes(dev, returned, n, out, err);
    free(returned);
    return rc;
}

/* ---- the poll loop -------------------------------------------------------- */

/* Poll turns, one in POLL_SAMPLE_EVERY: uniform in expectation, and few
 * enough that one part per million of them (the finest level a profile
 * states) is about one turn, so the top segment between the two largest is
 * not smeared over thousands of turns. */
typedef struct turn_record {
    gar_dur_ns *turns;
    size_t count, capacity;
    uint64_t seen;
} turn_record;

static bool record_turn(turn_record *r, gar_dur_ns d)
{
    if (r->seen++ % POLL_SAMPLE_EVERY != 0 || r->count == POLL_SAMPLES_MAX)
        return true;
    if (r->count == r->capacity) {
        size_t capacity = r->capacity ? 2 * r->capacity : 65536;
        gar_dur_ns *grown = realloc(r->turns, capacity * sizeof *grown);
        if (grown == NULL)
            return false;
        r->turns = grown;
        r->capacity = capacity;
    }
    r->turns[r->count++] = d;
    return true;
}

static int measure_poll(gar_idle idle, gar_port pending, gar_dur_ns run_ns,
                        gar_dur_ns charged_apart, uint64_t *rng, gar_calibrated_dist *out,
                        gar_error *err)
{
    turn_record *r = calloc(1, sizeof *r);
    if (r == NULL)
        return no_memory(err, "allocating the poll record");
    const gar_plan poll = { .park = GAR_PARK_POLL };
    bool ok = true;
    int rc = 0;
    /* Poll loops as waits run them: bursts as long as waits, the host
     * sleeping between them.  (A scheduler treats a thread that spins for
     * seconds on end unlike one that spins for a wait and sleeps: the first
     * is preempted far more, and would be charged to every simulated poll.) */
    for (gar_dur_ns spun = 0; ok && spun < run_ns;) {
        gar_dur_ns burst = log_uniform(rng, POLL_BURST_SHORTEST, POLL_BURST_LONGEST);
        gar_wait w;
        gar_mono_ns start = gar_posix_now();
        rc = gar_wait_init(&w, &poll, false, 0, start, GAR_MONO_NEVER, err);
        assert(rc == 0);
        gar_mono_ns prev = start;
        /* The inline driver's loop: the machine names the action, the port
         * answers, the clock is read, the answer is fed. */
        while (ok && prev - start < burst) {
            gar_wait_action a = gar_wait_next(&w);
            assert(a.op == GAR_WAIT_OP_QUERY || a.op == GAR_WAIT_OP_POLL);
            int answer = a.op == GAR_WAIT_OP_QUERY ? pending.ops->query(pending.ctx, NULL)
                                                   : pending.ops->poll(pending.ctx, NULL);
            gar_mono_ns t = gar_posix_now();
            gar_wait_feed(&w, answer, t, NULL);
            ok = record_turn(r, t - prev);
            prev = t;
        }
        spun += prev - start;
        if (ok && (rc = idle.ops->sleep_until(idle.ctx, gar_posix_now() + POLL_GAP, err)) < 0)
            break;
    }
    if (rc == 0 && !ok)
        rc = no_memory(err, "recording the poll turns");
    if (rc == 0) {
        qsort(r->turns, r->count, sizeof *r->turns, compare_ns);
        /* Fitted on whole turns (the time they take); listed less what the
         * simulator charges apart. */
        if (!fit_dist(r->turns, r->count, true, out))
            rc = no_memory(err, "fitting the poll turns");
    }
    if (rc == 0) {
        for (unsigned i = 0; i < out->count; i++)
            out->value[i] = out->value[i] > charged_apart + 1 ? out->value[i] - charged_apart : 1;
        out->samples = r->seen;
    }
    free(r->turns);
    free(r);
    return rc;
}

/* ---- the whole run -------------------------------------------------------- */

static int measure_all(const gar_calibrate_options *options, size_t n, int waiter_cpu,
                       int device_cpu, gar_mono_ns began, gar_calibration *out, gar_error *err);

int gar_calibrate_run(const gar_calibrate_options *options, gar_calibration *out,
                      gar_error *err)
{
    static const gar_calibrate_options defaults = { 0 };
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_calibrate_run", "out",
                             "is NULL");
    if (options == NULL)
        options = &defaults;
    if (options->samples > GAR_CALIBRATE_SAMPLES_MAX) {
        char what[64];
        snprintf(what, sizeof what, "is above %u", GAR_CALIBRATE_SAMPLES_MAX);
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_calibrate_run",
                             "options->samples", what);
    }
    size_t n = options->samples != 0 ? options->samples
               : options->quick      ? GAR_CALIBRATE_SAMPLES_QUICK
                                     : GAR_CALIBRATE_SAMPLES_DEFAULT;
    const gar_mono_ns began = gar_posix_now();

    /* The waiter (this thread) and the devices on CPUs of their own, for the
     * run; the thread's own set is put back after. */
    gar_cpu_saved affinity;
    gar_cpu_save(&affinity);
    int waiter_cpu, device_cpu;
    if (gar_cpu_split(&waiter_cpu, &device_cpu) && gar_cpu_pin_self(waiter_cpu, NULL) < 0)
        waiter_cpu = device_cpu = -1;
    int rc = measure_all(options, n, waiter_cpu, device_cpu, began, out, err);
    gar_cpu_restore(&affinity);
    return rc;
}

/* The measurements, on the thread as placed. */
static int measure_all(const gar_calibrate_options *options, size_t n, int waiter_cpu,
                       int device_cpu, gar_mono_ns began, gar_calibration *out, gar_error *err)
{
    gar_posix_host host;
    int rc = gar_posix_host_init(&host, NULL, err);
    if (rc < 0)
        return rc;
    gar_idle idle = gar_posix_host_idle(&host);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);

    gar_calibration cal = {
        .word_wait = caps.word_wait,
        .park = host.report.park,
        .timer_slack = host.report.timer_slack,
        .waiter_cpu = waiter_cpu,
        .device_cpu = device_cpu,
    };
    uint64_t rng = UINT64_C(0x6761722063616c69); /* any fixed seed: "gar cali" */

    /* Fixed costs and the poll loop, on work that stays pending. */
    const gar_emulated_item forever[1] = { { 0, gar_posix_now() + 3600 * GAR_NS_PER_S } };
    gar_emulated_device *dev;
    if ((rc = gar_emulated_device_start(&dev, forever, 1, idle, cal.device_cpu, err)) < 0)
        return rc;
    gar_port pending;
    gar_emulated_device_port(dev, 0, &pending, NULL);
    cal.clock_ns = clock_cost();
    cal.query_ns = query_cost(pending);
    rc = measure_poll(idle, pending, options->quick ? POLL_RUN_QUICK_NS : POLL_RUN_NS,
                      cal.query_ns + cal.clock_ns, &rng, &cal.poll_period, err);
    gar_emulated_device_stop(dev, NULL);
    gar_emulated_device_finish(dev, NULL, NULL);
    if (rc < 0)
        return rc;

    if ((rc = measure_sleep(idle, n, &rng, &cal.sleep_overshoot, err)) < 0 ||
        (rc = measure_block(idle, cal.device_cpu, n, &rng, &cal.block_wake, err)) < 0 ||
        (rc = measure_park(idle, cal.device_cpu, n, &rng, &cal.park_wake, err)) < 0)
        return rc;
    cal.elapsed_ns = gar_since(gar_posix_now(), began);
    *out = cal;
    return 0;
}

/* ---- the profile text ----------------------------------------------------- */

/* "p50", "p99.9", "p99.9999": the level in its shortest form. */
static int level_text(uint32_t ppm, char *buf, size_t size)
{
    unsigned whole = ppm / 10000, frac = ppm % 10000, digits = 4;
    if (frac == 0)
        return snprintf(buf, size, "p%u", whole);
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    return snprintf(buf, size, "p%u.%0*u", whole, (int)digits, frac);
}

typedef struct cursor {
    char *buf;
    size_t size, len;
} cursor;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(cursor *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = c->len < c->size ? c->size - c->len : 0;
    int n = vsnprintf(room > 0 ? c->buf + c->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        c->len += (size_t)n;
}

static void put_dist(cursor *c, const char *key, const gar_calibrated_dist *d)
{
    put(c, "%s", key);
    for (unsigned i = 0; i < d->count; i++) {
        char level[16];
        level_text(d->level_ppm[i], level, sizeof level);
        put(c, " %s=%llu", level, (unsigned long long)d->value[i]);
    }
    put(c, "\n");
}

size_t gar_calibration_format(const gar_calibration *cal, char *buf, size_t size)
{
    assert(cal != NULL && (buf != NULL || size == 0));
    cursor c = { buf, size, 0 };
    if (size > 0)
        buf[0] = '\0';
    put(&c, "gar-host v1\n");
    put(&c, "# Measured by gar calibrate in %.1f s.  All values in ns.\n",
        (double)cal->elapsed_ns / 1e9);
    if (cal->timer_slack.known)
        put(&c, "# Timer slack of the measuring thread: %llu ns.\n",
            (unsigned long long)cal->timer_slack.ns);
    else
        put(&c, "# Timer slack: unknown (%s).\n",
            cal->timer_slack.why != NULL ? cal->timer_slack.why : "not read");
    if (cal->waiter_cpu >= 0)
        put(&c, "# The waiter ran on CPU %d, the emulated device on CPU %d.\n", cal->waiter_cpu,
            cal->device_cpu);
    else
        put(&c, "# The waiter and the emulated device ran unpinned.\n");
    put(&c, "\n# The emulated device's status query, and gar_posix_now: medians of %u\n"
            "# batches of %u calls.\n", COST_BATCHES, COST_CALLS);
    put(&c, "query_ns %llu\nclock_ns %llu\n", (unsigned long long)cal->query_ns,
        (unsigned long long)cal->clock_ns);
    put(&c, "\n# The host's park: %s.\n", cal->park != NULL ? cal->park : "?");
    put(&c, "word_wait %s\n", cal->word_wait ? "yes" : "no");
    put(&c, "\n# clock_nanosleep to an absolute target, sleeps of 50 us to 10 ms: %llu sleeps.\n",
        (unsigned long long)cal->sleep_overshoot.samples);
    put_dist(&c, "sleep_overshoot_ns", &cal->sleep_overshoot);
    put(&c, "\n# The emulated device's blocking wait, from the store to the return, blocked\n"
            "# 0.5 to 10 ms before: %llu wakes.\n",
        (unsigned long long)cal->block_wake.samples);
    put_dist(&c, "block_wake_ns", &cal->block_wake);
    put(&c, "\n# The host's park on the line, from the store to the return: %llu wakes.\n",
        (unsigned long long)cal->park_wake.samples);
    put_dist(&c, "park_wake_ns", &cal->park_wake);
    put(&c, "\n# One poll-loop turn less a query and a clock read: %llu turns.\n",
        (unsigned long long)cal->poll_period.samples);
    put_dist(&c, "poll_period_ns", &cal->poll_period);
    return c.len;
}
