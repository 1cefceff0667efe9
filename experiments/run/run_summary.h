/* experiments/run/run_summary.h — what `gar run` prints when the program has
 * exited: per stream and overall, the waits, their overshoot quantiles with
 * 95 % intervals, the busy CPU of the waiting threads against what the
 * program's own synchronising calls cost, the path the waits taken over
 * took (the mapped line, status query), the status-query waits that wanted
 * the mapped line with their reasons, and the waits not taken over with
 * theirs.
 *
 * Definitions (the simulator's, sim/replay.h):
 *   overshoot  end of the wait less max(completion, start), over the waits
 *              taken over whose completion time is known;
 *   busy CPU   the waiting thread's CPU time over the wait
 *              (CLOCK_THREAD_CPUTIME_ID), summed;
 *   real-call cost  what the runtime's own call would have cost for the same
 *              waits: their wall time times the CPU share measured on the
 *              sampled waits left to the real call (baseline), under the
 *              program's own schedule (spin by default).  Measured, not
 *              assumed; absent when no wait was sampled.
 * Pure over the logs; prints to `out`. */
#ifndef GAR_RUN_SUMMARY_H
#define GAR_RUN_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "run/run_logs.h"

typedef struct gar_run_totals {
    uint64_t waits, taken, immediate, failed, baseline, fallback, with_done;
    uint64_t busy_ns, wall_ns;                    /* of the waits taken over */
    uint64_t baseline_cpu_ns, baseline_wall_ns;   /* of the sampled real calls */
    double real_share;      /* baseline cpu / wall; < 0 when nothing was sampled */
    double real_cost_ns;    /* wall_ns * real_share; < 0 when unknown */
    uint64_t overshoot_p50, overshoot_p90, overshoot_p99, overshoot_max;
} gar_run_totals;

/* The totals over the waits of `logs` that `keep` accepts (NULL: all). */
void gar_run_totals_of(const gar_run_logs *logs, bool (*keep)(const gar_run_wait *, const void *),
                       const void *arg, gar_run_totals *out);

/* Prints the summary: one overall block, and with `per_stream` a table of
 * every stream.  Returns 0, or -1 when memory ran out. */
int gar_run_summary_print(const gar_run_logs *logs, bool per_stream, FILE *out);

#endif
