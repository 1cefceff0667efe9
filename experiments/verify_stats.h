/* experiments/verify_stats.h — how far apart two runs' overshoots are, and
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
 *              so ties never count as a distance).  gar verify takes it at
 *              the resolution abs_us below: every overshoot under it counts
 *              as it, so D is the sup over x >= abs_us only.  The reason is
 *              the quantiles' own: under 20 µs a difference changes no
 *              decision, and the emulation itself is not faithful there (a
 *              store reaches a spinning poller in 0.1-1 µs across CPUs,
 *              which the simulator's poll loop, a few tens of ns a turn,
 *              does not model).  Without it, two polls that both see their
 *              completions within a microsecond would be "different" (D near
 *              1) on a scale no policy can act on.  The plain D is printed
 *              beside it.
 *
 * The tolerances (defaults, and why):
 *   ks_d <= 0.25        (at the resolution abs_us) the simulator is a model, so "the same distribution"
 *                       is the wrong question: with a few hundred waits any
 *                       systematic difference is significant (the 5 % critical
 *                       value for 300 and 300 waits is 0.11, printed beside
 *                       D).  0.25 asks instead that no overshoot has more than
 *                       a quarter of the waits on the other side of it in one
 *                       run than in the other.
 *   quantile pN         real/sim within [1/2, 2], or |real - sim| <= 20 µs,
 *                       for some level within the pair's sampling band.
 *                       A factor of 2 is far smaller than the gaps between the
 *                       policies being compared (a blocking wake is tens of
 *                       µs, a poll sub-µs), and 20 µs is below one
 *                       cross-thread wake on the hosts gar targets (25–50 µs
 *                       on a small VM, data/hosts/dev-vm.host), under which a
 *                       difference changes no decision.  The band: a pN estimated from n waits is
 *                       the quantile of a level known only to about
 *                       sqrt(q(1-q)/n), so each run's pN is compared with the
 *                       other run's quantiles over the levels
 *                       q ± z·sqrt(q(1-q)(1/n_real + 1/n_sim)), z = 2 (about
 *                       95 %); the pair agrees when either run's value agrees
 *                       with some value of the other's band.  Without it a
 *                       quantile at a knee (waits that either saw their
 *                       completion at once or were preempted for ms) jumps
 *                       thirtyfold on a shift of one wait in a hundred, far
 *                       below what n waits can tell apart.  A quantile is
 *                       judged only when at least 10 waits of each run lie
 *                       above it (p50 from 20 waits, p90 from 100, p99 from
 *                       1000): a tail quantile resting on one or two waits
 *                       measures luck, not the model.
 *   busy_frac           |real - sim| <= 0.15 (a policy's CPU cost told apart at
 *                       the scale the comparisons care about: spin ≈ 1, sleep
 *                       then spin ≈ margin / residual, block ≈ 0).
 * Each may be overridden by `key=value` text (see gar_verify_tolerance_set).
 *
 * Everything here is a pure function of its arguments. */
#ifndef GAR_VERIFY_STATS_H
#define GAR_VERIFY_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
    double ks_d_max;          /* default 0.25 */
    double ratio_min;         /* default 0.5 */
    double ratio_max;         /* default 2 */
    gar_dur_ns abs_ns;        /* default 20 000: a quantile within this passes */
    uint64_t tail_waits_min;  /* default 10: waits above a quantile for it to be judged */
    double band_z;            /* default 2: the sampling band's half-width in standard errors
                               * (0: compare the two quantiles' values alone) */
    double busy_diff_max;     /* default 0.15 */
} gar_verify_tolerance;

/* The defaults above. */
gar_verify_tolerance gar_verify_tolerance_default(void);

/* Sets one tolerance from "key=value": ks_d (0..1), ratio_min (> 0),
 * ratio_max (>= 1), abs_us (µs, whole), tail_waits (whole, >= 1), band_z
 * (0..10), busy_diff (0..1).  Returns 0, or -GAR_E_USAGE naming `verb` and the fault. */
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

#endif
