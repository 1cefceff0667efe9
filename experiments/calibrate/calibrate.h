/* experiments/calibrate/calibrate.h — measures this host into a host profile.
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
 *   store_visible_ns, store_visible_ns@LEAD
 *               how long after the device's completion (its clock reading
 *               before the store) a poll loop on another CPU sees it: poll
 *               waits run by the inline driver on items as far apart as the
 *               five lead bands (half the samples of a distribution), each
 *               from 300 µs before its completion (the poller sleeps up to
 *               there: a spin of milliseconds is preempted far more than a
 *               wait's, and a preempted poller is the poll turn's tail), from
 *               the first query that starts after the completion (the clock
 *               reading before it) to the wait's last clock reading, less
 *               the clock read (clock_ns): the rest
 *               of the turn the completion fell in is the simulator's own
 *               draw from the poll turns, so a poller preempted across the
 *               completion is not counted here as well; split by lead,
 *               how long the device idled before the store (since its
 *               previous completion): a device thread woken from a longer
 *               idle takes longer to store;
 *   word_wait   whether the POSIX host's park is a hardware word wait;
 *   sleep_overshoot_ns
 *               the POSIX host's sleep_until (clock_nanosleep to an absolute
 *               CLOCK_MONOTONIC target, timer slack 1 ns) woke this long after
 *               its target, over sleep lengths spread log-uniformly over the
 *               five lead bands (56 µs to 17.8 ms);
 *   block_wake_ns
 *               the emulated device's blocking wait (a condition wait its
 *               store thread broadcasts) returned this long after the item's
 *               completion, the waiter having blocked 56 µs to 17.8 ms before
 *               (log-uniform over the five lead bands) — the cross-thread
 *               wake a blocking wait pays;
 *   sleep_overshoot_ns@LEAD, block_wake_ns@LEAD
 *               the same samples split by how long the thread slept or
 *               blocked (measured, not planned): each into the lead of
 *               100 µs, 300 µs, 1 ms, 3 ms or 10 ms (gar_host_lead_ns) nearest
 *               it in ratio (the bands meet at the geometric midpoints), as
 *               a profile's reader picks them (core/host_dist.h);
 *   park_wake_ns
 *               the host's park on the device's line returned this long after
 *               the store, parked 20 µs to 1 ms before;
 *   poll_period_ns
 *               one turn of a poll loop — the inline driver itself
 *               (gar_wait_inline) running a poll wait on pending work, the
 *               clock it reads after every answer timing the turns,
 *               in bursts of 0.1 to 5 ms with 100 µs asleep between, as waits
 *               come — less one query and one clock read (which the
 *               simulator charges apart), at least 1 ns; one turn in 64 is
 *               kept (at most 2^20 of them).
 * The spreads are those of the GPU steps gar studies: how late a sleeping
 * thread wakes depends on how long its CPU idled (deeper idle states; on a
 * virtual machine, a descheduled vCPU), so the @LEAD keys state it by
 * length, and the plain keys pool the bands.
 * A completion time is the device's clock reading just before its store (see
 * gar/emulated.h), so a wake latency counts every nanosecond from there to
 * the waiter's clock reading after its call returned.
 *
 * Slices and rounds.  The run is twelve slices, one after the other, and
 * each slice takes its share of every measurement in turn (poll loop,
 * visibility, sleeps, blocks, parks): so each distribution's samples come
 * from the whole run, not from one stretch of it (on a virtual machine
 * these costs move from second to second with where the vCPUs run).  A
 * measurement's GAR_CALIBRATE_ROUNDS rounds are its samples from the first,
 * second and last third of the slices (each a third of the samples, over
 * every lead), and its samples are pooled.  The rounds' p50 and p90 (for the fixed costs, their
 * medians) are kept as its spread: where the highest exceeds the lowest by
 * more than GAR_CALIBRATE_NOISE_REL of the lowest and by more than
 * GAR_CALIBRATE_NOISE_ABS_NS, the rounds disagree — something else ran
 * meanwhile — and the calibration says so (a `# noisy` line in the profile,
 * a warning from gar calibrate) instead of passing for exact.  With
 * `keep_quietest`, a distribution whose rounds disagree is then fitted from
 * its quietest round alone (the least p90, then the least p50;
 * gar_calibrate_kept_round), and the profile says which (`# kept:`):
 * interference only ever adds latency, so pooling a disturbed round with
 * quiet ones states a tail the machine has only while something else runs.
 * That suits a machine disturbed for a moment; on one loaded throughout, the
 * quietest round is quieter than the runs it should predict (measured:
 * sim/README.md), so pooling stays the default.  The fixed costs, medians
 * already, always pool their rounds.
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
 * its own CPU set put back after) plus the emulated devices' store threads
 * it starts, pinned to the last (cpu_pin.h says why).  Memory: the samples of one
 * distribution at a time, allocated for the call. */
#ifndef GAR_CALIBRATE_H
#define GAR_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/host_profile.h>
#include <gar/posix.h>
#include <gar/time.h>

#define GAR_CALIBRATE_SAMPLES_DEFAULT 4000u
#define GAR_CALIBRATE_SAMPLES_QUICK 300u
#define GAR_CALIBRATE_SAMPLES_MAX 1000000u

#define GAR_CALIBRATE_ROUNDS 3
#define GAR_CALIBRATE_NOISE_REL 0.25    /* rounds disagree above this relative spread ... */
#define GAR_CALIBRATE_NOISE_ABS_NS 50u  /* ... and this absolute one */
#define GAR_CALIBRATE_SPREADS_MAX 16
#define GAR_CALIBRATION_TEXT_BYTES 16384 /* a formatted calibration always fits */

typedef struct gar_calibrate_options {
    size_t samples;  /* per latency distribution; 0: the default (quick: the quick count) */
    bool quick;      /* a few seconds: fewer samples and a shorter poll run */
    bool keep_quietest; /* rounds that disagree: fit the quietest alone (default: pool them) */
} gar_calibrate_options;

/* A measured distribution: the profile's (up to GAR_HOST_QUANTILES_MAX
 * quantiles, p0 .. p100), and how many samples it summarises. */
typedef struct gar_calibrated_dist {
    gar_host_dist dist;
    uint64_t samples;
} gar_calibrated_dist;

/* One measured quantity's rounds: `round[r]` is its value in round r. */
typedef struct gar_calibrate_spread {
    char what[40];                        /* "sleep_overshoot_ns p50" */
    gar_dur_ns round[GAR_CALIBRATE_ROUNDS];
    bool noisy;                           /* the rounds disagree beyond the bound */
    unsigned kept;                        /* the round the fit kept, or GAR_CALIBRATE_ROUNDS:
                                           * all of them pooled */
} gar_calibrate_spread;

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
    gar_calibrated_dist store_visible;
    gar_dur_ns poll_turn_mean_ns; /* a whole poll turn, query and clock read included */
    /* By lead, gar_host_lead_ns(k) (samples = 0: too few samples fell in
     * that lead's band to state it). */
    gar_calibrated_dist store_visible_at[GAR_HOST_LEADS]; /* by the device's idle before */
    gar_calibrated_dist sleep_overshoot_at[GAR_HOST_LEADS];
    gar_calibrated_dist block_wake_at[GAR_HOST_LEADS];
    gar_calibrate_spread spread[GAR_CALIBRATE_SPREADS_MAX];
    unsigned spreads;
    bool noisy;                  /* some spread is */
    bool keep_quietest;          /* as the options asked: noisy rounds fitted from the quietest */
    gar_dur_ns elapsed_ns;       /* how long the calibration took */
} gar_calibration;

/* Measures this host.  `options` may be NULL (the defaults).  Returns 0 with
 * `out` filled, -GAR_E_INVALID_ARGUMENT (NULL out, samples above
 * GAR_CALIBRATE_SAMPLES_MAX), or -GAR_E_BACKEND (no memory, a thread or a
 * sleep that failed).  `out` is written only on success. */
int gar_calibrate_run(const gar_calibrate_options *options, gar_calibration *out,
                      gar_error *err);

/* Writes the calibration as a gar-host v1 profile (with comments saying how
 * it was measured, each measurement's rounds, and a `# noisy:` line for
 * each that disagreed).  snprintf semantics: returns the length the full
 * text needs, writing at most `size` bytes, NUL included;
 * GAR_CALIBRATION_TEXT_BYTES always suffice. */
size_t gar_calibration_format(const gar_calibration *cal, char *buf, size_t size);

/* The nearest-rank quantile of `sorted[0..n-1]` at `level_ppm` (p0 the
 * least): the ceil(level * n)-th smallest.  n >= 1. */
gar_dur_ns gar_calibrate_rank(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm);

/* Whether `rounds` values of one quantity disagree: the highest exceeds the
 * lowest by more than GAR_CALIBRATE_NOISE_REL of the lowest and by more than
 * GAR_CALIBRATE_NOISE_ABS_NS.  rounds >= 1; one round always agrees. */
bool gar_calibrate_rounds_disagree(const gar_dur_ns *round, unsigned rounds);

/* Judges the rounds of one distribution's samples: samples[0..n-1] in
 * GAR_CALIBRATE_ROUNDS consecutive runs, round r ending before round_end[r]
 * (non-decreasing, the last n; an empty round counts as 0).  Writes the
 * rounds' p50 into out[0] and p90 into out[1] (what: "KEY p50", "KEY p90"),
 * each judged by gar_calibrate_rounds_disagree.  `time_weighted`: the
 * quantiles of the share of time (the least value whose samples up to it
 * hold that share of the total), as a poll wait's overshoot sees its turns —
 * a round preempted for 1 % of its time shows there.  Reorders the samples
 * within each round.  Returns whether either disagrees. */
bool gar_calibrate_judge_rounds(gar_dur_ns *samples, const size_t *round_end, const char *key,
                                bool time_weighted, gar_calibrate_spread out[2]);

/* The round a distribution is fitted from, given its two spreads (p50, p90,
 * as gar_calibrate_judge_rounds wrote them) and its rounds' ends: where
 * either spread is noisy, the non-empty round with the least p90 (a tie:
 * the least p50, then the earliest); else GAR_CALIBRATE_ROUNDS (all pooled).
 * round_end as gar_calibrate_judge_rounds takes it. */
unsigned gar_calibrate_kept_round(const gar_calibrate_spread spread[2],
                                  const size_t round_end[GAR_CALIBRATE_ROUNDS]);

/* The lead (0 .. GAR_HOST_LEADS - 1) nearest `ns` in ratio, by the rule a
 * profile's reader picks a stated lead with (gar_host_lead_nearest, every
 * lead stated; a tie goes to the longer): a sample is filed under it, and
 * the simulator mixes the filed leads around a length (core/host_dist.h). */
unsigned gar_calibrate_lead_of(gar_dur_ns ns);

/* One visibility sample of a poll wait (store_visible_ns above), from its
 * last `kept` clock readings oldest first (`readings[kept - 1]` its end;
 * `all`: these are every reading it made): from the first reading at or
 * after the device's clock reading before its store (`done`) — the start of
 * the first query that could see the store — to the end, less `less` (the
 * clock read); from `done` itself when that first reading was not kept; 0
 * where the result is negative. */
gar_dur_ns gar_calibrate_seen_after(const gar_mono_ns *readings, size_t kept, bool all,
                                    gar_mono_ns done, gar_dur_ns less);

#endif
