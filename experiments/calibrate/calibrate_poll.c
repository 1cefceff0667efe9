/* experiments/calibrate/calibrate_poll.c — the poll loop measured as waits
 * run it, and the fits of its turns and of the wakes (calibrate_poll.h). */
#define _POSIX_C_SOURCE 200809L

#include "calibrate/calibrate_poll.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <gar/wait.h>
#include <gar/wait_inline.h>

#include "core/host_dist.h"
#include "calibrate/calibrate_fit.h"
#include "calibrate/calibrate_measure.h"


/* Kept turns go into a buffer allocated and touched before the loop: a
 * reallocation or a first touch of a page inside a turn would be timed as
 * part of it (a copy of megabytes, a page fault of microseconds). */
static void record_turn(turn_record *r, gar_dur_ns d)
{
    if (r->seen++ % POLL_SAMPLE_EVERY != 0 || r->count == r->capacity)
        return;
    r->turns[r->count++] = d;
}

/* The inline driver's clock: every reading after the first of a wait ends
 * one turn of its loop. */
static gar_mono_ns turn_clock_now(void *ctx)
{
    turn_record *r = ctx;
    gar_mono_ns t = gar_posix_now();
    if (r->started)
        record_turn(r, t - r->prev);
    r->prev = t;
    r->started = true;
    return t;
}

/* A record with room for every kept turn, touched before the loop; NULL
 * when memory runs out. */
turn_record *gar_cal_turn_record_new(void)
{
    turn_record *r = calloc(1, sizeof *r);
    if (r != NULL) {
        r->capacity = POLL_SAMPLES_MAX;
        r->turns = malloc(r->capacity * sizeof *r->turns);
        if (r->turns == NULL) {
            free(r);
            return NULL;
        }
        memset(r->turns, 0, r->capacity * sizeof *r->turns);
    }
    return r;
}

void gar_cal_turn_record_free(turn_record *r)
{
    if (r != NULL)
        free(r->turns);
    free(r);
}

/* Poll loops as waits run them, for `run_ns` of spinning, into `r`: the
 * inline driver itself, in waits as long as bursts of GPU work, on an item
 * of a device of its own that stays pending (each wait ends at its
 * deadline), the host sleeping between them.  (A scheduler treats a thread
 * that spins for seconds on end unlike one that spins for a wait and sleeps:
 * the first is preempted far more, and would be charged to every simulated
 * poll.) */
int gar_cal_measure_poll(gar_idle idle, int device_cpu, gar_dur_ns run_ns, uint64_t *rng,
                         turn_record *r, gar_error *err)
{
    gar_emulated_device *dev;
    gar_port pending;
    int rc = gar_cal_start_pending_device(idle, device_cpu, &dev, &pending, err);
    if (rc < 0)
        return rc;
    const gar_plan poll = { .park = GAR_PARK_POLL };
    const gar_clock clock = { .now = turn_clock_now, .ctx = r };
    for (gar_dur_ns spun = 0; spun < run_ns;) {
        gar_dur_ns burst = gar_cal_log_uniform(rng, POLL_BURST_SHORTEST, POLL_BURST_LONGEST);
        gar_mono_ns start = gar_posix_now();
        r->started = false;
        gar_error wait_err;
        rc = gar_wait_inline(&poll, false, 0, start + burst, pending, clock, idle, NULL,
                             &wait_err);
        if (rc != -GAR_E_WAIT_DEADLINE) { /* the work never completes */
            rc = gar_error_set(err, GAR_E_BACKEND, 2, "timing the poll loop",
                               "a poll wait on work that stays pending did not time out");
            break;
        }
        rc = 0;
        spun += gar_since(gar_posix_now(), start);
        if ((rc = idle.ops->sleep_until(idle.ctx, gar_posix_now() + POLL_GAP, err)) < 0)
            break;
    }
    gar_cal_stop_device(dev);
    return rc;
}

/* Fits the recorded turns into cal->poll_period, less what the simulator
 * charges apart (`charged_apart`: a query and a clock read), and their mean. */
int gar_cal_fit_poll(turn_record *r, gar_dur_ns charged_apart, gar_calibration *cal, gar_error *err)
{
    if (r->count == 0)
        return gar_error_set(err, GAR_E_BACKEND, 2, "timing the poll loop", "no turn recorded");
    size_t first = 0, count = r->count;
    gar_dur_ns *copy = malloc(r->count * sizeof *copy);
    if (copy == NULL)
        return gar_cal_no_memory(err, "judging the poll rounds");
    gar_cal_judge_and_keep(r->turns, copy, r->count, r->round_end, "poll turn by time", true, cal,
                           &first, &count);
    free(copy);
    qsort(r->turns + first, count, sizeof *r->turns, gar_cal_compare_ns);
    /* Fitted on whole turns (the time they take); listed less what the
     * simulator charges apart. */
    if (!gar_cal_fit_dist(r->turns + first, count, true, &cal->poll_period))
        return gar_cal_no_memory(err, "fitting the poll turns");
    gar_calibrated_dist *out = &cal->poll_period;
    gar_host_dist *d = &out->dist;
    for (unsigned i = 0; i < d->count; i++)
        d->value[i] = d->value[i] > charged_apart + 1 ? d->value[i] - charged_apart : 1;
    /* The turns the kept rounds saw (one in POLL_SAMPLE_EVERY is kept). */
    out->samples = count == r->count ? r->seen : (uint64_t)count * POLL_SAMPLE_EVERY;
    double sum = 0;
    for (size_t i = first; i < first + count; i++)
        sum += (double)r->turns[i];
    cal->poll_turn_mean_ns = (gar_dur_ns)(sum / (double)count + 0.5);
    return 0;
}

/* Fits a wake measurement's samples into `base` (and, split by lead, `at`;
 * NULL: not split), judging their rounds as `key`.  Refuses a measurement
 * none of whose waits saw its work pending. */
int gar_cal_fit_wakes(sample_set *set, const char *key, gar_calibrated_dist *base,
                      gar_calibrated_dist *at, gar_calibration *cal, gar_error *err)
{
    if (set->count == 0) /* every wait found its work done: the machine is far too loaded */
        return gar_error_set(err, GAR_E_BACKEND, 2, "measuring wake latencies",
                             "no wait saw its work pending");
    if (at != NULL)
        return gar_cal_fit_by_lead(set->v, set->lead, set->count, set->round_end, key, base, at,
                                   cal, err);
    gar_dur_ns *copy = malloc(set->count * sizeof *copy);
    if (copy == NULL)
        return gar_cal_no_memory(err, "judging the rounds");
    size_t first, count;
    gar_cal_judge_and_keep(set->v, copy, set->count, set->round_end, key, false, cal, &first,
                           &count);
    free(copy);
    qsort(set->v + first, count, sizeof *set->v, gar_cal_compare_ns);
    return gar_cal_fit_dist(set->v + first, count, false, base)
               ? 0
               : gar_cal_no_memory(err, "fitting the wakes");
}
