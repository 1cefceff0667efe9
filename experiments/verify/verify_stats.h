/* experiments/verify/verify_stats.h — how far apart two runs' overshoots are, and
 * the tolerances gar verify judges them by.
 *
 * The statistics:
 *   quantiles  nearest rank, as the simulator reports them (sim/replay.h):
 *              the pN of n values is the ceil(N/100 * n)-th smallest;
 *   ratio      real / sim of one quantile (sim 0: 1 when real is 0 too,
 *              else +infinity);
 *   KS D       the two-sample Kolmogorov–Smirnov statistic: the largest
 *              vertical distance between the two empirical CDFs,
 *              sup_x |F_real(x) - F_sim(x)|, computed exactly by one merge of
 *              the sorted samples (equal values are stepped over together,
 *              so ties never count as a distance).  gar verify takes it
 *              plain, at every nanosecond: the sub-10 µs regime is where
 *              poll, park and predict differ, so no floor hides it.
 *
 * The tolerances (defaults, and why):
 *   ks_d <= 0.15        for plans that poll or park; <= 0.25 (ks_d_block) for
 *                       a plan with a blocking band.  The simulator is a
 *                       model, so "the same distribution" is the wrong
 *                       question: with 1000 waits any systematic difference
 *                       is significant (the 5 % critical value for 1000 and
 *                       1000 is 0.061, printed beside D).  0.15 asks that no
 *                       overshoot has more than 15 % of the waits on the
 *                       other side of it in one run than in the other; a
 *                       blocking wake is a cross-CPU futex wake of tens of µs
 *                       whose shape moves with the machine's load between
 *                       calibration and run, hence a quarter.
 *   p50, p90            real/sim within [1/1.25, 1.25], or |real - sim| <=
 *                       1 µs: compared value to value.  1 µs is about the
 *                       store-visibility and poll-turn scale the model now
 *                       states; ×1.25 is well inside the gaps between the
 *                       policies compared (a blocking wake is tens of µs, a
 *                       poll sub-µs).
 *   p99                 the same ratio or distance, for some level within the
 *                       pair's sampling band: a p99 estimated from n waits is
 *                       the quantile of a level known only to about
 *                       sqrt(q(1-q)/n), so each run's p99 is compared with
 *                       the other run's quantiles over the levels
 *                       q ± z·sqrt(q(1-q)(1/n_real + 1/n_sim)), z = 2 (about
 *                       95 %).  A quantile is judged only when at least 10
 *                       waits of each run lie above it (p50 from 20 waits,
 *                       p90 from 100, p99 from 1000): a tail quantile resting
 *                       on one or two waits measures luck, not the model.
 *                       The max is printed, never judged.
 *   busy_frac           |real - sim| <= 0.05.
 *   edge = 0.1          with several real runs (verify_runs.h): a simulated
 *                       quantile within 10 % of the real runs' envelope
 *                       counts as inside it — three runs span less than the
 *                       machine does, and 10 % is under the ×1.25 that one
 *                       run against one simulation is allowed.
 * Each may be overridden by `key=value` text (see gar_verify_tolerance_set).
 *
 * Everything here is a pure function of its arguments. */
#ifndef GAR_VERIFY_STATS_H
#define GAR_VERIFY_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/bands.h>
#include <gar/error.h>
#include <gar/time.h>

/* The two-sample KS statistic of a[0..na-1] and b[0..nb-1], both sorted
 * ascending (na, nb >= 1), with every value below `resolution` counted as
 * `resolution` (0: the plain statistic).  Exact: the value is k / (na * nb)
 * for an integer k, returned as the nearest double. */
double gar_ks_statistic(const gar_dur_ns *a, size_t na, const gar_dur_ns *b, size_t nb,
                        gar_dur_ns resolution);

/* The asymptotic critical value of D at significance `alpha` (0 < alpha < 1):
 * sqrt(-ln(alpha / 2) / 2) * sqrt((na + nb) / (na * nb)). */
double gar_ks_critical(size_t na, size_t nb, double alpha);

/* The nearest-rank quantile of sorted v[0..n-1] at `level_ppm` (parts per
 * million; 0 = the least).  0 for n = 0. */
gar_dur_ns gar_verify_quantile(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm);

/* real / sim, as above. */
double gar_verify_ratio(gar_dur_ns real, gar_dur_ns sim);

typedef struct gar_verify_tolerance {
    double ks_d_max;          /* default 0.15: plans that poll or park */
    double ks_d_block_max;    /* default 0.25: plans with a blocking band */
    double ratio_min;         /* default 0.8 (1 / 1.25) */
    double ratio_max;         /* default 1.25 */
    gar_dur_ns abs_ns;        /* default 1 000: a quantile within this passes */
    uint64_t tail_waits_min;  /* default 10: waits above a quantile for it to be judged */
    double band_z;            /* default 2: p99's sampling band's half-width in standard
                               * errors (0: compare its two values alone) */
    double busy_diff_max;     /* default 0.05 */
    double edge_rel;          /* default 0.1: with several real runs, a simulated quantile
                               * this close to their envelope (a fraction of its nearest
                               * end) counts as inside it (verify_runs.h) */
} gar_verify_tolerance;

/* The defaults above. */
gar_verify_tolerance gar_verify_tolerance_default(void);

/* Sets one tolerance from "key=value": ks_d (0..1), ks_d_block (0..1), ratio_min (> 0),
 * ratio_max (>= 1), abs_us (µs, whole), tail_waits (whole, >= 1), band_z
 * (0..10), busy_diff (0..1), edge (0..1).  Returns 0, or -GAR_E_USAGE naming `verb` and the fault. */
int gar_verify_tolerance_set(gar_verify_tolerance *tol, const char *text, const char *verb,
                             gar_error *err);

/* Whether quantile `level_ppm` of n waits may be judged: at least
 * tail_waits_min of them lie above it, i.e. n * (1 - level) >= tail_waits_min. */
bool gar_verify_quantile_judged(const gar_verify_tolerance *tol, size_t n, uint32_t level_ppm);

/* Whether two values of one quantile agree: the ratio in [ratio_min,
 * ratio_max] or the difference within abs_ns. */
bool gar_verify_quantile_agrees(const gar_verify_tolerance *tol, gar_dur_ns real,
                                gar_dur_ns sim);

/* The sampling band of level `level_ppm` for quantiles of runs of na and nb
 * waits: the levels q ± band_z·sqrt(q(1-q)(1/na + 1/nb)), clamped to
 * 0..10^6, written to *lo and *hi (both the level itself when band_z is 0). */
void gar_verify_level_band(const gar_verify_tolerance *tol, size_t na, size_t nb,
                           uint32_t level_ppm, uint32_t *lo, uint32_t *hi);

/* Whether `value` agrees (as gar_verify_quantile_agrees) with some value in
 * [band_lo, band_hi] (band_lo <= band_hi). */
bool gar_verify_agrees_with_band(const gar_verify_tolerance *tol, gar_dur_ns value,
                                 gar_dur_ns band_lo, gar_dur_ns band_hi);

/* ---- one comparison of two runs ------------------------------------------ */

typedef enum gar_verify_check { GAR_CHECK_PASS, GAR_CHECK_FAIL, GAR_CHECK_NOT_JUDGED } gar_verify_check;

/* "pass", "fail", "not judged". */
const char *gar_verify_check_name(gar_verify_check check);

typedef struct gar_verify_quantile_row {
    const char *key;                      /* "overshoot_p50_ns" ... "overshoot_max_ns" */
    uint32_t level_ppm;                   /* 1 000 000: the max */
    gar_dur_ns real, sim;
    gar_dur_ns real_band[2], sim_band[2]; /* each run's values over the band (p99), else the value */
    gar_verify_check check;
} gar_verify_quantile_row;

typedef struct gar_verify_comparison {
    gar_verify_quantile_row q[4]; /* p50, p90, p99, max */
    double ks_d, ks_d_max, ks_critical;
    gar_verify_check ks_check;
    double busy_real, busy_sim, busy_diff;
    gar_verify_check busy_check;
    bool agree;
} gar_verify_comparison;

/* Compares n >= 1 real and n simulated overshoots (sorted ascending in
 * place) and the two busy fractions under `tol`; `blocks` says the plan has
 * a blocking band (its KS bound is ks_d_block_max).  Fills `out`. */
void gar_verify_compare(const gar_verify_tolerance *tol, bool blocks, gar_dur_ns *real,
                        gar_dur_ns *sim, size_t n, double busy_real, double busy_sim,
                        gar_verify_comparison *out);

/* Whether any band of `bands` blocks (its KS bound is then ks_d_block_max). */
bool gar_verify_bands_block(const gar_bands *bands);

/* Whether an arm is judged as a blocking one (ks_d_block_max): a band of it
 * blocks, or it is an auto plan whose simulated run chose the blocking wait
 * for at least half of its `waits` (`blocked` of them).  Auto picks its park
 * per wait, so what it is judged by is what it ran: an auto arm that blocks
 * meets the same wide OS wake as a block arm, and one that polls is held to
 * the poll's bound. */
bool gar_verify_arm_blocks(const gar_bands *bands, uint64_t blocked, uint64_t waits);

/* The tolerances as one line of text (for --help, the verify output and the
 * report), into buf (snprintf semantics). */
int gar_verify_tolerance_text(const gar_verify_tolerance *tol, char *buf, size_t size);

#endif
