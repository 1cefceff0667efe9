/* experiments/verify/verify_arm.h — one arm of gar verify (verify_arm.c):
 * a trace run for real under a plan, then replayed as it really ran in the
 * simulator with a host profile, and the two compared (verify_stats.h); N
 * such runs pooled and judged by their envelope (verify_runs.h).  Used by
 * `gar verify TRACE` and by each arm of `gar verify --sweep`
 * (verify_sweep.h).  Prints nothing. */
#ifndef GAR_VERIFY_ARM_H
#define GAR_VERIFY_ARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/bands.h>
#include <gar/error.h>
#include <gar/estimator_family.h>
#include <gar/executor_kind.h>

#include "sim/host_profile.h"
#include "sim/replay.h"
#include "sim/trace/trace.h"
#include "verify/verify_real.h"
#include "verify/verify_runs.h"
#include "verify/verify_stats.h"

#define GAR_VERIFY_SPAN_MAX_S 60 /* real time: a longer trace is refused, not run */

/* Both runs of one trace, and how far apart they are. */
typedef struct gar_verify_arm_run {
    gar_real_result real;
    gar_replay_metrics sim;
    gar_dur_ns *sim_overshoot; /* one per wait, row order until compared, then sorted */
    gar_verify_comparison cmp;
} gar_verify_arm_run;

/* Returns 0 when `trace` spans at most GAR_VERIFY_SPAN_MAX_S of real time,
 * else -GAR_E_USAGE naming it as `name`. */
int gar_verify_check_span(const gar_trace *trace, const char *name, gar_error *err);

/* Runs `trace` for real under the resolved `bands`, then replays it as it
 * ran in the simulator with `profile`, and compares (sorting both runs'
 * overshoots).  Returns 0 with `out` filled (gar_verify_arm_run_free it),
 * or the refusal (-GAR_E_CAPACITY, the real run's or the replay's). */
int gar_verify_run_arm(const gar_trace *trace, const gar_bands *bands,
                       gar_estimator_spec estimator, const gar_verify_device_ops *device,
                       gar_executor_kind executor, const gar_host_profile *profile,
                       uint64_t seed, const gar_verify_tolerance *tol, gar_verify_arm_run *out,
                       gar_error *err);

void gar_verify_arm_run_free(gar_verify_arm_run *r);

/* The `count` runs of one arm (n waits each) pooled and judged by their
 * envelope into `j`: each run's overshoots are sorted by its comparison.
 * *real_pool and *sim_pool get the pooled samples (count * n each; free
 * them).  Returns 0 or -GAR_E_CAPACITY (both pools NULL). */
int gar_verify_judge_arm_runs(const gar_verify_arm_run *runs, unsigned count, size_t n,
                              const gar_verify_tolerance *tol, bool blocks,
                              gar_dur_ns **real_pool, gar_dur_ns **sim_pool,
                              gar_verify_runs_judgement *j, gar_error *err);

/* How many of the real runs, each held out and judged as the simulation
 * against the others, pass (gar_verify_holdout_passes); -1 with fewer than
 * three runs, or no memory for it (then it goes unsaid). */
int gar_verify_holdout_of(const gar_verify_arm_run *runs, unsigned count, size_t n,
                          const gar_verify_tolerance *tol, bool blocks);

#endif
