/* experiments/report/report.h — a sweep database as one HTML page with its plots.
 *
 * The ranking rule, per trace, host and mode (the arms' numbers are means
 * over their seeds):
 *   1. best = the lowest p99 overshoot of any arm but the oracle's (the
 *      oracle knows each residual in advance: a bound, not a policy);
 *   2. an arm is *eligible* when its p99 overshoot is within 10 % of best;
 *   3. the winner is the eligible arm (not oracle) with the lowest busy CPU
 *      fraction (ties: lower p99, then plan order).
 * Only *complete* arms take part: an arm with any failed run (a seed whose
 * replay returned an error) is shown as failed, with its count of failed
 * seeds, and is never ranked on the seeds that happened to succeed — its mean
 * would describe another experiment than its neighbours'.
 * The table ranks the eligible arms by busy fraction, then the rest by p99,
 * then the failed arms.  The winner is set against `poll` (the CPU it saves)
 * and `block` (the latency it saves), when the sweep ran those plans and
 * they are complete. */
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
    const gar_arm_summary *winner; /* NULL when no arm is complete */
    const gar_arm_summary *poll;   /* the plan `poll` when complete, or NULL */
    const gar_arm_summary *block;  /* the plan `block` when complete, or NULL */
    double best_p99_ns;
    bool poll_failed;              /* `poll` ran but has a failed run */
    bool block_failed;             /* `block` ran but has a failed run */
} gar_report_winner;

/* Where an arm stands in its group's table, best first. */
typedef enum gar_report_standing {
    GAR_REPORT_ELIGIBLE, /* within the slack of the best p99 (never the oracle) */
    GAR_REPORT_BOUND,    /* the oracle, complete: a bound shown beside the policies */
    GAR_REPORT_OUTSIDE,  /* complete, but its p99 is outside the slack */
    GAR_REPORT_FAILED,   /* at least one run failed: shown, never ranked */
} gar_report_standing;

typedef struct gar_report_row {
    const gar_arm_summary *arm;
    gar_report_standing standing;
} gar_report_row;

/* Whether every run of the arm succeeded (and it has any): the arms the rule
 * ranks. */
bool gar_report_complete(const gar_arm_summary *arm);

/* The ranking, in one place: the winner of one group's arms (`arms`, `count`
 * of them, all of one trace, host and mode, in plan order), and, when `rows`
 * is not NULL, the table's order in rows[0 .. count-1]: the eligible arms
 * by busy fraction, then the oracle, then the complete rest by p99, then
 * the failed arms (ties in plan, then estimator order).  The rows point
 * into `arms`. */
gar_report_winner gar_report_rank(const gar_arm_summary *arms, size_t count,
                                  gar_report_row *rows);

/* The winner alone: gar_report_rank(arms, count, NULL). */
gar_report_winner gar_report_pick(const gar_arm_summary *arms, size_t count);

/* Whether an arm is complete and eligible under the rule against
 * `best_p99_ns`. */
bool gar_report_eligible(const gar_arm_summary *arm, double best_p99_ns);

/* Writes DIR/report.html and the plots it shows (every pareto plot, each
 * trace's CDFs and one prediction plot per trace), then prints one
 * "winner: ..." line per group on `summary` (NULL for none).  Returns 0,
 * -GAR_E_IO (gnuplot missing, files, the database) or a re-run's refusal. */
int gar_report_write(gar_store *store, const char *dir, FILE *summary, gar_error *err);

#endif
