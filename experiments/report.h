/* experiments/report.h — a sweep database as one HTML page with its plots.
 *
 * The ranking rule, per trace, host and mode (the arms' numbers are means
 * over their seeds):
 *   1. best = the lowest p99 overshoot of any arm but the oracle's (the
 *      oracle knows each residual in advance: a bound, not a policy);
 *   2. an arm is *eligible* when its p99 overshoot is within 10 % of best;
 *   3. the winner is the eligible arm (not oracle) with the lowest busy CPU
 *      fraction (ties: lower p99, then plan order).
 * The table ranks the eligible arms by busy fraction, then the rest by p99.
 * The winner is set against `poll` (the CPU it saves) and `block` (the
 * latency it saves), when the sweep ran those plans. */
#ifndef GAR_REPORT_H
#define GAR_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <gar/error.h>

#include "results.h"
#include "store.h"

#define GAR_REPORT_SLACK 0.10 /* eligible: p99 within this fraction of the best */

/* The winner of one (trace, host, mode) and its two references. */
typedef struct gar_report_winner {
    const gar_arm_summary *winner; /* NULL when no arm succeeded */
    const gar_arm_summary *poll;   /* the plan `poll`, or NULL */
    const gar_arm_summary *block;  /* the plan `block`, or NULL */
    double best_p99_ns;
} gar_report_winner;

/* The winner among arms[first .. first+count-1] (one group). */
gar_report_winner gar_report_pick(const gar_arm_summary *arms, size_t count);

/* Whether an arm is eligible under the rule against `best_p99_ns`. */
bool gar_report_eligible(const gar_arm_summary *arm, double best_p99_ns);

/* Writes DIR/report.html and the plots it shows (every pareto plot, each
 * trace's CDFs and one prediction plot per trace), then prints one
 * "winner: ..." line per group on `summary` (NULL for none).  Returns 0,
 * -GAR_E_IO (gnuplot missing, files, the database) or a re-run's refusal. */
int gar_report_write(gar_store *store, const char *dir, FILE *summary, gar_error *err);

#endif
