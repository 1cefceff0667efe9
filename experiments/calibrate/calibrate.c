/* experiments/calibrate/calibrate.c — each number of a host profile,
 * measured with the primitives a real wait on this host uses: the whole
 * run, slice by slice (gar_calibrate_run).  What each number is:
 * calibrate.h; the measurements: calibrate_measure.c and calibrate_poll.c;
 * their fits: calibrate_fit.c and calibrate_rounds.c; the profile's text:
 * calibrate_format.c. */
#define _POSIX_C_SOURCE 200809L

#include "calibrate/calibrate.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/emulated.h>

#include "core/splitmix64.h"
#include "backends/hosts/cpu_pin.h"
#include "calibrate/calibrate_fit.h"
#include "calibrate/calibrate_measure.h"
#include "calibrate/calibrate_poll.h"
#include "calibrate/calibrate_rounds.h"

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
    gar_calibration *cal = calloc(1, sizeof *cal);
    int rc = cal == NULL ? gar_cal_no_memory(err, "allocating the calibration")
                         : measure_all(options, n, waiter_cpu, device_cpu, began, cal, err);
    gar_cpu_restore(&affinity);
    if (rc == 0)
        *out = *cal;
    free(cal);
    return rc;
}

/* The fixed costs: a status query (on a device's item that stays
 * pending) and a clock read, each the median of its batches. */
static int measure_costs(gar_idle idle, gar_calibration *cal, gar_error *err)
{
    gar_emulated_device *dev;
    gar_port pending;
    int rc = gar_cal_start_pending_device(idle, cal->device_cpu, &dev, &pending, err);
    if (rc < 0)
        return rc;
    gar_calibrate_spread *costs = gar_cal_next_spreads(cal, 2);
    snprintf(costs[0].what, sizeof costs[0].what, "clock_ns");
    snprintf(costs[1].what, sizeof costs[1].what, "query_ns");
    cal->clock_ns = gar_cal_clock_cost(costs[0].round);
    cal->query_ns = gar_cal_query_cost(pending, costs[1].round);
    for (unsigned k = 0; k < 2; k++) {
        costs[k].noisy = gar_calibrate_rounds_disagree(costs[k].round, GAR_CALIBRATE_ROUNDS);
        costs[k].kept = GAR_CALIBRATE_ROUNDS; /* a median of every batch: pooled */
        cal->noisy |= costs[k].noisy;
    }
    gar_cal_stop_device(dev);
    return 0;
}

/* The wake measurements' samples, filled slice by slice. */
typedef struct wake_sets {
    sample_set visible, sleep, block, park;
} wake_sets;

/* Slice s of the measurements (slices: calibrate_rounds.h): the poll loop,
 * then the store's visibility, the sleeps, the blocks and the parks, each
 * its share of its count. */
static int measure_slice(gar_idle idle, int device_cpu, unsigned s, size_t n,
                         gar_dur_ns poll_run_ns, gar_dur_ns clock_ns, uint64_t *rng,
                         turn_record *turns, wake_sets *w, gar_error *err)
{
    int rc =
        gar_cal_measure_poll(idle, device_cpu, poll_run_ns / CALIBRATION_SLICES, rng, turns, err);
    turns->round_end[gar_cal_round_of_slice(s)] = turns->count;
    /* A poll wait's end is the completion, the rest of the turn it fell in,
     * the visibility paid from the first query after it, and the clock read
     * after.  The simulator draws the turn itself (from the poll turns, a
     * long one as often as the completion falls into one), so visibility
     * is measured from the first query that starts after the completion: a
     * poller preempted across the completion is the turn's tail, and
     * counting it here too would count it twice. */
    if (rc == 0)
        rc = gar_cal_measure_seen(idle, device_cpu, gar_cal_slice_share((n + 1) / 2, s), rng, true,
                                  clock_ns, &w->visible, err);
    if (rc == 0)
        rc = gar_cal_measure_sleep(idle, gar_cal_slice_share(n, s), rng, &w->sleep, err);
    if (rc == 0)
        rc =
            gar_cal_measure_block(idle, device_cpu, gar_cal_slice_share(n, s), rng, &w->block, err);
    if (rc == 0)
        rc = gar_cal_measure_seen(idle, device_cpu, gar_cal_slice_share(n, s), rng, false, 0,
                                  &w->park, err);
    gar_cal_set_end_slice(&w->visible, s);
    gar_cal_set_end_slice(&w->sleep, s);
    gar_cal_set_end_slice(&w->block, s);
    gar_cal_set_end_slice(&w->park, s);
    return rc;
}

/* The measurements, on the thread as placed, into `cal` (zeroed). */
static int measure_all(const gar_calibrate_options *options, size_t n, int waiter_cpu,
                       int device_cpu, gar_mono_ns began, gar_calibration *cal, gar_error *err)
{
    gar_posix_host host;
    int rc = gar_posix_host_init(&host, NULL, err);
    if (rc < 0)
        return rc;
    gar_idle idle = gar_posix_host_idle(&host);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);

    cal->keep_quietest = options->keep_quietest;
    cal->word_wait = caps.word_wait;
    cal->park = host.report.park;
    cal->timer_slack = host.report.timer_slack;
    cal->waiter_cpu = waiter_cpu;
    cal->device_cpu = device_cpu;
    uint64_t rng = UINT64_C(0x6761722063616c69); /* any fixed seed: "gar cali" */
    if ((rc = measure_costs(idle, cal, err)) < 0)
        return rc;

    turn_record *turns = gar_cal_turn_record_new();
    wake_sets w;
    bool have = gar_cal_set_init(&w.visible, (n + 1) / 2, true);
    have = gar_cal_set_init(&w.sleep, n, true) && have;
    have = gar_cal_set_init(&w.block, n, true) && have;
    have = gar_cal_set_init(&w.park, n, false) && have;
    if (turns == NULL || !have)
        rc = gar_cal_no_memory(err, "allocating the samples");
    gar_dur_ns poll_run = options->quick ? POLL_RUN_QUICK_NS : POLL_RUN_NS;
    for (unsigned s = 0; s < CALIBRATION_SLICES && rc == 0; s++)
        rc = measure_slice(idle, cal->device_cpu, s, n, poll_run, cal->clock_ns, &rng, turns, &w,
                           err);
    /* Fitted in the order the profile lists their rounds. */
    if (rc == 0)
        rc = gar_cal_fit_poll(turns, cal->query_ns + cal->clock_ns, cal, err);
    if (rc == 0)
        rc = gar_cal_fit_wakes(&w.visible, "store_visible_ns", &cal->store_visible,
                               cal->store_visible_at, cal, err);
    if (rc == 0)
        rc = gar_cal_fit_wakes(&w.sleep, "sleep_overshoot_ns", &cal->sleep_overshoot,
                               cal->sleep_overshoot_at, cal, err);
    if (rc == 0)
        rc = gar_cal_fit_wakes(&w.block, "block_wake_ns", &cal->block_wake, cal->block_wake_at, cal,
                               err);
    if (rc == 0)
        rc = gar_cal_fit_wakes(&w.park, "park_wake_ns", &cal->park_wake, NULL, cal, err);
    gar_cal_turn_record_free(turns);
    gar_cal_set_free(&w.visible);
    gar_cal_set_free(&w.sleep);
    gar_cal_set_free(&w.block);
    gar_cal_set_free(&w.park);
    cal->elapsed_ns = gar_since(gar_posix_now(), began);
    return rc;
}
