/* backends/calibrate.h — measures this host into a host profile.
 *
 * The simulator charges a wait's actions with a host profile (the gar-host v1
 * text format, documented in data/hosts/README.md).  Calibration measures
 * each of its numbers on the running machine with the very primitives a real
 * wait here uses, so that a simulated run and a real one can be compared
 * (gar verify):
 *
 *   query_ns    the emulated device's status query, through its port
 *               (ns per call, the median over batches of calls);
 *   clock_ns    gar_posix_now (likewise);
 *   word_wait   whether the POSIX host's park is a hardware word wait;
 *   sleep_overshoot_ns
 *               the POSIX host's sleep_until (clock_nanosleep to an absolute
 *               CLOCK_MONOTONIC target, timer slack 1 ns) woke this long after
 *               its target, over sleep lengths spread log-uniformly from
 *               50 µs to 10 ms;
 *   block_wake_ns
 *               the emulated device's blocking wait (a condition wait its
 *               store thread broadcasts) returned this long after the item's
 *               completion, the waiter having blocked 0.5 to 10 ms before
 *               (log-uniform) — the cross-thread wake a blocking wait pays;
 *   park_wake_ns
 *               the host's park on the device's line returned this long after
 *               the store, parked 20 µs to 1 ms before;
 *   poll_period_ns
 *               one turn of a poll loop — the wait machine driving the
 *               device's poll op on pending work, as the inline driver does,
 *               in bursts of 0.1 to 5 ms with 100 µs asleep between, as waits
 *               come — less one query and one clock read (which the
 *               simulator charges apart), at least 1 ns; one turn in 64 is
 *               kept (at most 2^20 of them).
 * The spreads are those of the GPU steps gar studies: how late a sleeping
 * thread wakes depends on how long its CPU idled (deeper idle states; on a
 * virtual machine, a descheduled vCPU), and a profile states one
 * distribution, so it is measured where the simulated waits will be.
 * A completion time is the device's clock reading just before its store (see
 * emulated_device.h), so a wake latency counts every nanosecond from there to
 * the waiter's clock reading after its call returned.
 *
 * Distributions are reported as up to 16 exact nearest-rank quantiles of
 * the samples: p0, p50, p90, p99 and p100 always, and the others where the
 * distribution bends (the simulator interpolates linearly between listed
 * points, so a fixed set would smear a tail of ms over a band of µs): each
 * added point is the sample the interpolation is furthest from, in
 * cumulative probability — for the poll period, in the share of time,
 * because a poll wait's overshoot is the rest of the turn its completion
 * falls in, so turns weigh by their length.
 *
 * Runs on the calling thread (which gets a 1 ns timer slack and, where it
 * may run on two CPUs or more, is pinned to the first of them for the run,
 * its own CPU set put back after) plus the emulated devices' store threads it starts, pinned to the
 * last (cpu_pin.h says why).  Memory: the samples of one
 * distribution at a time, allocated for the call. */
#ifndef GAR_CALIBRATE_H
#define GAR_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/time.h>

#include "posix_host.h"

#define GAR_CALIBRATE_LEVELS_MAX 16
#define GAR_CALIBRATE_SAMPLES_DEFAULT 4000u
#define GAR_CALIBRATE_SAMPLES_QUICK 300u
#define GAR_CALIBRATE_SAMPLES_MAX 1000000u

typedef struct gar_calibrate_options {
    size_t samples;  /* per latency distribution; 0: the default (quick: the quick count) */
    bool quick;      /* a few seconds: fewer samples and a shorter poll run */
} gar_calibrate_options;

/* A measured distribution: value[i] is the level_ppm[i] quantile. */
typedef struct gar_calibrated_dist {
    unsigned count;
    uint32_t level_ppm[GAR_CALIBRATE_LEVELS_MAX]; /* 0 .. 1 000 000, strictly increasing */
    gar_dur_ns value[GAR_CALIBRATE_LEVELS_MAX];   /* non-decreasing */
    uint64_t samples;                             /* how many values it summarises */
} gar_calibrated_dist;

typedef struct gar_calibration {
    gar_dur_ns query_ns;
    gar_dur_ns clock_ns;
    bool word_wait;
    const char *park;            /* the host's park, static text ("spin-yield") */
    gar_timer_slack timer_slack; /* of the measuring thread */
    int waiter_cpu, device_cpu;  /* where they ran (cpu_pin.h); -1: unpinned */
    gar_calibrated_dist sleep_overshoot;
    gar_calibrated_dist block_wake;
    gar_calibrated_dist park_wake;
    gar_calibrated_dist poll_period;
    gar_dur_ns elapsed_ns;       /* how long the calibration took */
} gar_calibration;

/* Measures this host.  `options` may be NULL (the defaults).  Returns 0 with
 * `out` filled, -GAR_E_INVALID_ARGUMENT (NULL out, samples above
 * GAR_CALIBRATE_SAMPLES_MAX), or -GAR_E_BACKEND (no memory, a thread or a
 * sleep that failed).  `out` is written only on success. */
int gar_calibrate_run(const gar_calibrate_options *options, gar_calibration *out,
                      gar_error *err);

/* Writes the calibration as a gar-host v1 profile (with comments saying how
 * it was measured).  snprintf semantics: returns the length the full text
 * needs, writing at most `size` bytes, NUL included; 4096 bytes always
 * suffice. */
size_t gar_calibration_format(const gar_calibration *cal, char *buf, size_t size);

/* The nearest-rank quantile of `sorted[0..n-1]` at `level_ppm` (p0 the
 * least): the ceil(level * n)-th smallest.  n >= 1. */
gar_dur_ns gar_calibrate_rank(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm);

#endif
