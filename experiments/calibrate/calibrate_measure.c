/* experiments/calibrate/calibrate_measure.c — fixed costs, sleep
 * overshoot, and wakes after a device's completion, measured with the
 * primitives a real wait on this host uses (calibrate_measure.h). */
#define _POSIX_C_SOURCE 200809L

#include "calibrate/calibrate_measure.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gar/wait.h>
#include <gar/wait_inline.h>

#include "calibrate/calibrate_fit.h"

static gar_dur_ns median_of(gar_dur_ns *v, size_t n)
{
    qsort(v, n, sizeof *v, gar_cal_compare_ns);
    return v[n / 2];
}

/* The cost of one call (ns, the median over batches), each round's median
 * written to round[]. */
gar_dur_ns gar_cal_query_cost(gar_port port, gar_dur_ns round[GAR_CALIBRATE_ROUNDS])
{
    gar_dur_ns per_call[GAR_CALIBRATE_ROUNDS * COST_BATCHES], one[COST_BATCHES];
    for (unsigned b = 0; b < GAR_CALIBRATE_ROUNDS * COST_BATCHES; b++) {
        gar_mono_ns t0 = gar_posix_now();
        int sum = 0;
        for (unsigned i = 0; i < COST_CALLS; i++)
            sum += port.ops->query(port.ctx, NULL);
        gar_mono_ns t1 = gar_posix_now();
        assert(sum == 0); /* the item is pending throughout */
        (void)sum;
        per_call[b] = (t1 - t0 + COST_CALLS / 2) / COST_CALLS;
    }
    for (unsigned r = 0; r < GAR_CALIBRATE_ROUNDS; r++) {
        memcpy(one, per_call + r * COST_BATCHES, sizeof one);
        round[r] = median_of(one, COST_BATCHES);
    }
    return median_of(per_call, GAR_CALIBRATE_ROUNDS * COST_BATCHES);
}

gar_dur_ns gar_cal_clock_cost(gar_dur_ns round[GAR_CALIBRATE_ROUNDS])
{
    gar_dur_ns per_call[GAR_CALIBRATE_ROUNDS * COST_BATCHES], one[COST_BATCHES];
    for (unsigned b = 0; b < GAR_CALIBRATE_ROUNDS * COST_BATCHES; b++) {
        gar_mono_ns t0 = gar_posix_now(), last = t0;
        for (unsigned i = 0; i < COST_CALLS; i++)
            last = gar_posix_now();
        per_call[b] = (last - t0 + COST_CALLS / 2) / COST_CALLS;
    }
    for (unsigned r = 0; r < GAR_CALIBRATE_ROUNDS; r++) {
        memcpy(one, per_call + r * COST_BATCHES, sizeof one);
        round[r] = median_of(one, COST_BATCHES);
    }
    return median_of(per_call, GAR_CALIBRATE_ROUNDS * COST_BATCHES);
}

/* m sleeps into `set`, their lengths taking the lead bands in turn. */
int gar_cal_measure_sleep(gar_idle idle, size_t m, uint64_t *rng, sample_set *set, gar_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < m && rc == 0; i++) {
        gar_dur_ns length = gar_cal_in_lead_band(rng, (unsigned)(set->issued++ % GAR_HOST_LEADS));
        gar_mono_ns now = gar_posix_now(), target = now + length;
        rc = idle.ops->sleep_until(idle.ctx, target, err);
        gar_mono_ns woke = gar_posix_now();
        if (rc == 0)
            gar_cal_set_add(set, gar_since(woke, target), gar_calibrate_lead_of(length));
    }
    return rc;
}

/* A device whose n items (one stream) complete one after another, item j
 * `length(j)` after item j-1: a waiter that starts on item j as soon as item
 * j-1 returned waits about that long before the completion.  Lengths are
 * log-uniform in [shortest, longest], or, with shortest 0, in the band of
 * lead (first + j) mod 5.  `due` (may be NULL) gets the schedule. */
static int start_spread_device_at(gar_idle idle, int device_cpu, size_t n, size_t first,
                                  uint64_t *rng, gar_dur_ns shortest, gar_dur_ns longest,
                                  gar_emulated_device **dev, gar_mono_ns *due, gar_error *err)
{
    gar_emulated_item *items = malloc(n * sizeof *items);
    if (items == NULL)
        return gar_cal_no_memory(err, "allocating a calibration schedule");
    gar_mono_ns at = gar_posix_now() + DEVICE_HEAD_START;
    for (size_t j = 0; j < n; j++) {
        at += shortest == 0 ? gar_cal_in_lead_band(rng, (unsigned)((first + j) % GAR_HOST_LEADS))
                            : gar_cal_log_uniform(rng, shortest, longest);
        items[j] = (gar_emulated_item){ .stream = 0, .done_at = at };
        if (due != NULL)
            due[j] = at;
    }
    int rc = gar_emulated_device_start(dev, items, n, idle, device_cpu, err);
    free(items);
    return rc;
}

gar_dur_ns gar_calibrate_seen_after(const gar_mono_ns *readings, size_t kept, bool all,
                                    gar_mono_ns done, gar_dur_ns less)
{
    size_t i = kept - 1;
    while (i > 0 && readings[i - 1] >= done) /* back to the first reading at or after done */
        i--;
    /* The wait's first reading is its start, before the completion (else it
     * was not kept); a first reading past it among the kept ones, when older
     * ones were dropped, may not be the first after the completion. */
    gar_mono_ns from = readings[i] >= done && (i > 0 || all) ? readings[i] : done;
    gar_dur_ns d = gar_since(readings[kept - 1], from);
    return d > less ? d - less : 0;
}

/* A poll wait's last clock readings (one after each of its actions), in a
 * ring: about 12 µs of turns, enough to reach back to the first reading
 * after the completion through the store's visibility. */
#define SEEN_READINGS 512
typedef struct seen_readings {
    gar_mono_ns at[SEEN_READINGS];
    uint64_t count; /* readings made; the ring keeps the last SEEN_READINGS */
} seen_readings;

static gar_mono_ns seen_readings_now(void *ctx)
{
    seen_readings *r = ctx;
    gar_mono_ns t = gar_posix_now();
    r->at[r->count++ % SEEN_READINGS] = t;
    return t;
}

/* The ring's readings oldest first into `out`; returns how many. */
static size_t seen_in_order(const seen_readings *r, gar_mono_ns out[SEEN_READINGS])
{
    size_t kept = r->count < SEEN_READINGS ? (size_t)r->count : SEEN_READINGS;
    for (size_t i = 0; i < kept; i++)
        out[i] = r->at[(r->count - kept + i) % SEEN_READINGS];
    return kept;
}

/* Stops a device (NULL: none started) and waits for its thread, keeping
 * nothing of its completions: one a measurement gave up on, or one whose
 * item stays pending. */
void gar_cal_stop_device(gar_emulated_device *dev)
{
    if (dev != NULL) {
        gar_emulated_device_stop(dev, NULL);
        gar_emulated_device_finish(dev, NULL, NULL);
    }
}

/* A device whose one item stays pending for an hour, on `device_cpu`, and
 * the port of that item: the fixed costs and the poll loop are timed on it. */
int gar_cal_start_pending_device(gar_idle idle, int device_cpu, gar_emulated_device **dev,
                                 gar_port *pending, gar_error *err)
{
    const gar_emulated_item forever[1] = { { 0, gar_posix_now() + 3600 * GAR_NS_PER_S } };
    int rc = gar_emulated_device_start(dev, forever, 1, idle, device_cpu, err);
    if (rc == 0)
        gar_emulated_device_port(*dev, 0, pending, NULL);
    return rc;
}

/* Ends a wake measurement on `dev` (stopped and finished here): adds to
 * `set` returned[j] - completion of item j - less (or, with `seen`, from the
 * first of item j's clock readings at or after its completion:
 * gar_calibrate_seen_after) for the items whose wait really waited
 * (returned[j] != GAR_MONO_NEVER), each filed by the lead it waited (its
 * completion less called[j]; called NULL: no leads). */
static int collect_wakes(gar_emulated_device *dev, const gar_mono_ns *returned,
                         const seen_readings *seen, const gar_mono_ns *called, size_t m,
                         gar_dur_ns less, sample_set *set, gar_error *err)
{
    gar_mono_ns *done = malloc(m * sizeof *done);
    if (done == NULL) {
        gar_cal_stop_device(dev);
        return gar_cal_no_memory(err, "allocating the completion times");
    }
    gar_emulated_device_finish(dev, done, NULL);
    for (size_t j = 0; j < m; j++) {
        if (returned[j] == GAR_MONO_NEVER || done[j] == GAR_MONO_NEVER)
            continue;
        gar_dur_ns d = gar_since(returned[j], done[j]);
        if (seen != NULL) {
            gar_mono_ns in_order[SEEN_READINGS];
            size_t readings = seen_in_order(&seen[j], in_order);
            d = gar_calibrate_seen_after(in_order, readings, seen[j].count <= SEEN_READINGS,
                                         done[j], 0);
        }
        unsigned lead = called != NULL ? gar_calibrate_lead_of(gar_since(done[j], called[j])) : 0;
        gar_cal_set_add(set, d > less ? d - less : 0, lead);
    }
    free(done);
    return 0;
}

/* m blocking waits into `set`, on items as far apart as the lead bands. */
int gar_cal_measure_block(gar_idle idle, int device_cpu, size_t m, uint64_t *rng, sample_set *set,
                          gar_error *err)
{
    if (m == 0)
        return 0;
    gar_mono_ns *returned = malloc(m * sizeof *returned);
    gar_mono_ns *called = malloc(m * sizeof *called);
    if (returned == NULL || called == NULL) {
        free(returned);
        free(called);
        return gar_cal_no_memory(err, "allocating the block samples");
    }
    gar_emulated_device *dev = NULL;
    int rc = start_spread_device_at(idle, device_cpu, m, set->issued, rng, 0, 0, &dev, NULL, err);
    set->issued += m;
    for (size_t j = 0; j < m && rc == 0; j++) {
        gar_port port;
        gar_emulated_device_port(dev, j, &port, NULL);
        returned[j] = GAR_MONO_NEVER;
        if (port.ops->query(port.ctx, NULL) == 1) /* already done: no wake to time */
            continue;
        called[j] = gar_posix_now();
        rc = port.ops->block(port.ctx, err);
        returned[j] = gar_posix_now();
    }
    if (rc < 0)
        gar_cal_stop_device(dev);
    else
        rc = collect_wakes(dev, returned, NULL, called, m, 0, set, err);
    free(returned);
    free(called);
    return rc;
}

/* m parks (as a flag wait issues them) or, with `poll`, m poll waits run by
 * the inline driver, into `set`; each wake less `less`. */
int gar_cal_measure_seen(gar_idle idle, int device_cpu, size_t m, uint64_t *rng, bool poll,
                         gar_dur_ns less, sample_set *set, gar_error *err)
{
    if (m == 0)
        return 0;
    gar_mono_ns *returned = malloc(m * sizeof *returned);
    gar_mono_ns *due = malloc(m * sizeof *due);
    gar_mono_ns *before = malloc(m * sizeof *before); /* the completion before each */
    seen_readings *seen = poll ? malloc(m * sizeof *seen) : NULL; /* each wait's last readings */
    if (returned == NULL || due == NULL || before == NULL || (poll && seen == NULL)) {
        free(returned);
        free(due);
        free(before);
        free(seen);
        return gar_cal_no_memory(err, "allocating the park samples");
    }
    gar_emulated_device *dev = NULL;
    gar_mono_ns started = gar_posix_now();
    /* Polls: the device idles as long as the lead bands between stores (a
     * device thread woken from a longer idle takes longer from its clock
     * reading to the store), while the poller sleeps to POLL_LEAD before each
     * completion and polls from there: a poll of milliseconds would be
     * preempted far more often than a wait's, and a preempted poller is the
     * poll turn's tail, not the store's visibility.  Parks: 20 µs to 1 ms. */
    int rc = poll ? start_spread_device_at(idle, device_cpu, m, set->issued, rng, 0, 0, &dev,
                                           due, err)
                  : start_spread_device_at(idle, device_cpu, m, set->issued, rng,
                                           PARK_LEAD_SHORTEST, PARK_LEAD_LONGEST, &dev, NULL, err);
    set->issued += m;
    const gar_plan poll_plan = { .park = GAR_PARK_POLL };
    /* Before its first item, the device idled from its start. */
    for (size_t j = 0; poll && rc >= 0 && j < m; j++)
        before[j] = j > 0 ? due[j - 1] : started;
    for (size_t j = 0; j < m && rc >= 0; j++) {
        gar_port port;
        gar_emulated_device_port(dev, j, &port, NULL);
        returned[j] = GAR_MONO_NEVER;
        if (poll) {
            if (gar_posix_now() + POLL_LEAD < due[j] &&
                (rc = idle.ops->sleep_until(idle.ctx, due[j] - POLL_LEAD, err)) < 0)
                break;
            seen_readings *readings = &seen[j];
            readings->count = 0;
            gar_wait_report report;
            const gar_clock clock = { .now = seen_readings_now, .ctx = readings };
            rc = gar_wait_inline(&poll_plan, false, 0, GAR_MONO_NEVER, port, clock, idle, &report,
                                 err);
            if (rc == 0 && report.kind == GAR_WAIT_KIND_PARKED) /* it saw the work pending */
                returned[j] = readings->at[(readings->count - 1) % SEEN_READINGS];
        } else {
            gar_descriptor word;
            port.ops->arm(port.ctx, &word, NULL);
            if (gar_descriptor_reached(&word))
                continue;
            do /* bounded parks, as a flag wait issues them, until the word moves */
                rc = port.ops->park(port.ctx, &word, gar_posix_now() + PARK_LEAD_LONGEST, err);
            while (rc == 0);
            if (rc > 0)
                returned[j] = gar_posix_now();
        }
    }
    if (rc < 0)
        gar_cal_stop_device(dev);
    else
        rc = collect_wakes(dev, returned, poll ? seen : NULL, poll ? before : NULL, m, less, set,
                           err);
    free(returned);
    free(due);
    free(before);
    free(seen);
    return rc;
}
