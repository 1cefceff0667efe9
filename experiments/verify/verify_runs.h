/* experiments/verify/verify_runs.h — several real runs of one trace against the
 * simulation: the model's bias told apart from the machine's noise.
 *
 * One real run against one simulated run cannot say whose fault a distance
 * is: the machine moves between runs seconds apart.  With N real runs
 * (gar verify --runs N), the real runs themselves show how far the machine
 * moves, and the simulation is judged against that:
 *
 *   envelope   for each of p50, p90, p99 (each judged only where every run
 *              has tail_waits waits above it: verify_stats.h), the least
 *              and the greatest of the real runs' values; the simulation
 *              (its runs pooled) is `inside` it, `above all` or `below all`.
 *              A value within `edge` (a fraction, default 0.1) of the
 *              nearest end counts as inside for the verdict: the real runs
 *              are few, so their envelope is narrower than the machine's.
 *   pooled KS  the plain KS distance of the simulation (pooled) against the
 *              real runs pooled, beside each run's own.
 *   real KS    the largest plain KS distance between two real runs.
 *
 * The verdict, in this order:
 *   biased            a judged quantile of the simulation lies outside the
 *                     envelope (beyond `edge`): it is above or below every
 *                     real run, which the machine's noise does not explain;
 *   unjudgeable here  the real runs are more than twice the plan's KS bound
 *                     apart (no distribution is within the bound of both:
 *                     KS distance obeys the triangle inequality) and the
 *                     simulation lies inside their envelope;
 *   biased            the real runs agree with each other (within twice the
 *                     bound) but the pooled KS is over the bound;
 *   agree             else.
 *
 * Everything here is a pure function of its arguments. */
#ifndef GAR_VERIFY_RUNS_H
#define GAR_VERIFY_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/time.h>

#include "verify/verify_stats.h"

#define GAR_VERIFY_RUNS_LEVELS 3 /* p50, p90, p99 */

typedef enum gar_verify_position {
    GAR_POSITION_INSIDE,
    GAR_POSITION_ABOVE,      /* above every real run */
    GAR_POSITION_BELOW,      /* below every real run */
    GAR_POSITION_NOT_JUDGED, /* too few waits above the level */
} gar_verify_position;

/* "inside", "above all", "below all", "not judged". */
const char *gar_verify_position_name(gar_verify_position position);

typedef enum gar_verify_runs_verdict {
    GAR_RUNS_AGREE,
    GAR_RUNS_BIASED,
    GAR_RUNS_UNJUDGEABLE,
} gar_verify_runs_verdict;

/* "agree", "biased", "unjudgeable here". */
const char *gar_verify_runs_verdict_name(gar_verify_runs_verdict verdict);

typedef struct gar_verify_envelope {
    const char *key;             /* "p50", "p90", "p99" */
    uint32_t level_ppm;
    gar_dur_ns real_min, real_max, sim;
    gar_verify_position position;
    double beyond;               /* how far outside, as a fraction of the nearest end (0 inside) */
    bool outside;                /* beyond the edge tolerance: counts towards `biased` */
} gar_verify_envelope;

typedef struct gar_verify_runs_judgement {
    gar_verify_envelope q[GAR_VERIFY_RUNS_LEVELS];
    double pooled_ks_d;          /* the simulation against the real runs pooled */
    double ks_bound;             /* the plan's: ks_d, or ks_d_block with a blocking band */
    double real_ks_d_max;        /* the widest pair of real runs (0 with one run) */
    unsigned widest[2];          /* its runs, 0-based */
    gar_verify_runs_verdict verdict;
    const char *why;             /* static text: the rule that decided */
} gar_verify_runs_judgement;

/* Judges `runs` >= 1 real runs of n >= 1 waits each (real[r], each sorted
 * ascending) and their pooled copy `real_pooled` (runs * n, sorted), against
 * the simulation's `sim_pooled` (n_sim >= 1 values, sorted), under `tol`
 * (`blocks`: the plan has a blocking band).  Fills `out`. */
void gar_verify_judge_runs(const gar_verify_tolerance *tol, bool blocks,
                           const gar_dur_ns *const *real, size_t runs, size_t n,
                           const gar_dur_ns *real_pooled, const gar_dur_ns *sim_pooled,
                           size_t n_sim, gar_verify_runs_judgement *out);

/* The machine's own ceiling under the fidelity criterion: of `runs` >= 3
 * real runs (real[r], n values each, sorted), how many, each held out in
 * turn and judged as the simulation is (gar_verify_judge_runs: its p50 and
 * p90 against the envelope of the others, its KS against the others
 * pooled), pass — p50 and p90 each within the edge of the envelope, KS
 * within the plan's bound.  A model that were this machine exactly would
 * score about as much (a held-out run is one run, not several pooled, so
 * its KS carries a little more sampling noise: about 1.36 * sqrt(1/n +
 * 1/((runs-1) n)) at 95 %, 0.05 for five runs of 1 000).  `others` has room
 * for runs - 1 pointers and `scratch` for (runs - 1) * n values. */
unsigned gar_verify_holdout_passes(const gar_verify_tolerance *tol, bool blocks,
                                   const gar_dur_ns *const *real, size_t runs, size_t n,
                                   const gar_dur_ns **others, gar_dur_ns *scratch);

/* Copies count arrays of n values each (parts[i]) into out (count * n) and
 * sorts it ascending. */
void gar_verify_pool(const gar_dur_ns *const *parts, size_t count, size_t n, gar_dur_ns *out);

#endif
