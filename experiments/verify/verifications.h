/* experiments/verify/verifications.h — the `verifications` table of a sweep's
 * database: gar verify --sweep's answer to "is the simulator right about
 * this machine?", one row per arm of a spec (trace × plan × estimator) run
 * for real on this machine and in the simulator with its host profile.
 *
 * A row holds the arm's key (trace content hash, plan, estimator, waits run,
 * device, the simulator's host profile hash and seed), the two runs'
 * overshoot p50/p90/p99, the plain KS distance, the busy fractions, the
 * verdict, the tolerances it was judged by, and both overshoot CDFs as 201
 * nearest-rank quantiles (levels 0, 0.5, ..., 100 %) so a report can draw
 * them without the samples.  An arm run N > 1 times (gar verify --sweep
 * --runs N) stores its runs pooled (quantiles, KS, CDFs, mean busy
 * fractions), the real runs' envelope (min and max of each quantile) with
 * where the simulation falls, the widest KS between two real runs, and the
 * three-way verdict (verify_runs.h); one run's envelope is its own values.  A verification of a key already stored
 * replaces it: it is a measurement of the machine as it is now.
 * Schema: sweep/db_schema.c (the schema text), data/sweeps/README.md. */
#ifndef GAR_VERIFICATIONS_H
#define GAR_VERIFICATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/time.h>

#include "sweep/db.h"

#define GAR_VERIFY_CDF_LEVELS 201 /* levels 0, 0.5, ..., 100 % */
#define GAR_VERIFY_TEXT 1024      /* bytes of a text field read back (a bands label fits) */

typedef struct gar_verification {
    char trace[GAR_VERIFY_TEXT], trace_name[GAR_VERIFY_TEXT];
    char plan[GAR_VERIFY_TEXT], plan_ran[GAR_VERIFY_TEXT], estimator[GAR_VERIFY_TEXT];
    char device[64], host_profile[64], tolerance[GAR_VERIFY_TEXT], gar_version[64];
    uint64_t waits, seed;
    gar_dur_ns real_q[3], sim_q[3]; /* overshoot p50, p90, p99 (runs pooled) */
    double ks_d, busy_real, busy_sim;
    bool agree;                     /* verdict is "agree" */
    char verdict[24];               /* agree, disagree (one run), biased, unjudgeable here */
    unsigned runs;                  /* real runs of the arm (at least 1) */
    gar_dur_ns real_min[3], real_max[3]; /* the real runs' envelope of p50, p90, p99 */
    char position[3][16];           /* the simulation's: inside, above all, below all,
                                     * not judged */
    double real_ks_d_max;           /* the widest pair of real runs (0 with one) */
    gar_dur_ns real_cdf[GAR_VERIFY_CDF_LEVELS], sim_cdf[GAR_VERIFY_CDF_LEVELS];
} gar_verification;

/* The 201 nearest-rank quantiles of sorted v[0..n-1] (n >= 1): out[k] at
 * level k / 200. */
void gar_verification_cdf(const gar_dur_ns *sorted, size_t n,
                          gar_dur_ns out[GAR_VERIFY_CDF_LEVELS]);

/* Stores `v` (gar_version is filled here) as one transaction, replacing a
 * row of the same key.  Returns 0 or -GAR_E_IO naming the file. */
int gar_verification_put(gar_db *db, const gar_verification *v, gar_error *err);

/* Calls fn for every stored row, ordered by trace name, plan and estimator;
 * `v` is valid during the call.  A database without the table has no rows.
 * Stops at fn's first negative return and returns it; else 0, or -GAR_E_IO
 * (a row that does not read back: its CDF text malformed). */
int gar_verifications_each(gar_db *db,
                           int (*fn)(void *ctx, const gar_verification *v, gar_error *err),
                           void *ctx, gar_error *err);

#endif
