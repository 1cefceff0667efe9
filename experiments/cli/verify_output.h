/* experiments/cli/verify_output.h — what `gar verify` prints
 * (verify_output.c): each run's metrics real beside simulated, the distance
 * and the verdict, as `key: real=X sim=Y` lines or one JSON object; the
 * summary over --runs N; and, for --sweep, a line per arm as it ends.
 * All of it on standard output. */
#ifndef GAR_CLI_VERIFY_OUTPUT_H
#define GAR_CLI_VERIFY_OUTPUT_H

#include <stdint.h>

#include <gar/bands.h>
#include <gar/estimator_family.h>

#include "sim/replay.h"
#include "verify/verifications.h"
#include "verify/verify_arm.h"
#include "verify/verify_real.h"
#include "verify/verify_runs.h"
#include "verify/verify_stats.h"

/* One run of a trace as the command prints it. */
typedef struct gar_cli_verify_run {
    const char *trace_path;
    char plan_label[GAR_BANDS_LABEL_BYTES];
    char estimator_label[GAR_ESTIMATOR_LABEL_BYTES];
    const char *device;
    const char *executor; /* the kind that ran the real waits */
    const char *host; /* the profile's path, or NULL: calibrated on the spot */
    unsigned host_noisy; /* its calibration's measurements whose rounds disagreed */
    uint64_t seed;
    const gar_verify_tolerance *tol;
    const gar_real_result *real;
    const gar_replay_metrics *sim;
    const gar_verify_comparison *cmp;
} gar_cli_verify_run;

/* One run: text, or one JSON object. */
void gar_cli_verify_print_text(const gar_cli_verify_run *v);
void gar_cli_verify_print_json(const gar_cli_verify_run *v);

/* After --runs N (`count` runs, `agreed` of them one by one, judged into
 * `j`, `holdout` as gar_verify_holdout_of): each run's KS and the pooled
 * one, how far apart the real runs are, each quantile's envelope with where
 * the simulation falls, and the verdict over all. */
void gar_cli_verify_print_runs(const gar_verify_arm_run *runs, unsigned count, unsigned agreed,
                               const gar_verify_runs_judgement *j, int holdout);

/* --sweep's line for an arm skipped (the oracle) and for one verified
 * (gar_verify_sweep's callbacks; `context` unused). */
void gar_cli_verify_print_skipped(void *context, const char *trace_name, const char *plan,
                                  const char *estimator);
void gar_cli_verify_print_verified(void *context, const gar_verification *v);

#endif
