/* experiments/verify/verify_of_run.h — `gar verify --trace-of-run FILE`:
 * what the simulator predicts for a program recorded by `gar run --record
 * FILE`, against what the program did, on the same plan.
 *
 * The recorded trace is replayed open loop under the plan the run ran (read
 * from FILE.outcome, run_record.h) on the given host profile; each wait the
 * plan ran for real (not the sampled or passed-through real calls) is
 * compared with its simulated self: overshoot, end of the wait less
 * max(completion, start), real from the recorded ends, simulated from the
 * replay; busy fraction, real from the waiting threads' CPU time over their
 * waiting time, simulated from the replay's busy account.  The comparison
 * and its tolerances are gar verify's (verify_stats.h).
 *
 * Prints key: value lines on `out`.  Pure apart from reading the files. */
#ifndef GAR_VERIFY_OF_RUN_H
#define GAR_VERIFY_OF_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gar/error.h>

#include "sim/host_profile.h"
#include "verify/verify_stats.h"

/* Runs the comparison.  Returns 0 with *agree set, or a negated code: the
 * files' refusals (-GAR_E_IO, -GAR_E_INVALID_TRACE), the plan's
 * (-GAR_E_INVALID_PLAN), the replay's, -GAR_E_CAPACITY. */
int gar_verify_of_run(const char *trace_path, const gar_host_profile *host,
                      const char *host_name, uint64_t seed, const gar_verify_tolerance *tol,
                      FILE *out, bool *agree, gar_error *err);

#endif
