/* experiments/sweep/auto_goals.h — "auto:p99_us=B" against every fixed plan
 * of a sweep (data/sweeps/auto.sweep), from its arms (results.h: each arm's
 * busy CPU and p99 overshoot, the means over its seeds).
 *
 * A cell is one trace × host (open or closed loop alike: the mode is part
 * of the host's side) × budget B, for each B that an auto arm of the
 * database names.  One rule judges every arm, auto and fixed alike: an
 * arm *meets* B when every seed's run succeeded and the mean of its p99 over
 * the seeds is at most B.  An arm with a failed seed meets no budget and is
 * never the best: the cells show it as failed.  Auto's p99 95 % interval
 * (the widest over its seeds, results.h) is shown beside its p99, and says
 * where auto *could* meet B (over it, but B at or above the interval's lower
 * end: the two cannot be told apart), which no goal counts.  In a cell:
 *   - a fixed arm is any plan that is not auto, under any estimator but
 *     oracle (which reads the future, and so is no plan a host can run);
 *   - the ex-post best fixed arm is the one of least busy CPU among those
 *     that meet B: what a user who had swept this very trace and host would
 *     pick, which no one can know in advance;
 *   - auto's busy CPU is set beside the best's.
 * The goals:
 *   1. auto meets B in every cell where some fixed arm meets it;
 *   2. auto meets B with a busy CPU within 1.25 × the ex-post best's in at
 *      least 80 % of the cells where some fixed arm meets B (a best of 0
 *      busy: within when auto's is 0 too);
 *   3. auto beats the best single fixed arm — the one arm a user would run
 *      everywhere: the one that meets B in the most cells (ties: the least
 *      total busy over them; none when no fixed arm meets any B) — on the sum
 *      of busy CPU over the cells where both meet B.
 * The cells also carry poll's and block's busy CPU and p99 (the fixed
 * plain arms, when the sweep has them and none of their seeds failed) for
 * the plot against budget. */
#ifndef GAR_AUTO_GOALS_H
#define GAR_AUTO_GOALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gar/error.h>

#include "sweep/results.h"

#define GAR_AUTO_GOALS_WITHIN 1.25 /* goal 2's factor */
#define GAR_AUTO_GOALS_SHARE 0.80  /* goal 2's share of cells */

typedef struct gar_auto_cell {
    const gar_arm_summary *any;   /* an arm of the cell's trace and host, for their names */
    uint64_t budget_ns;
    const gar_arm_summary *autoa; /* the auto arm of this budget */
    const gar_arm_summary *best;  /* the ex-post best fixed arm; NULL when none meets B */
    const gar_arm_summary *poll, *block; /* the plain arms, when swept (else NULL) */
    bool auto_meets;              /* every seed succeeded, and its mean p99 is at most B */
    bool auto_failed;             /* a seed of it failed: it meets nothing */
    bool auto_could_meet;         /* over B, but B at or above its p99's 95 % interval's
                                   * lower end (shown, never counted as met) */
} gar_auto_cell;

typedef struct gar_auto_goals {
    gar_auto_cell *cell;          /* by trace, host, mode, then budget */
    size_t cells;
    size_t meetable;              /* cells where some fixed arm meets B */
    size_t auto_met;              /* of those, where auto meets B too (goal 1) */
    size_t auto_could;            /* of those, where auto is over B but could meet it */
    size_t within;                /* of those, auto meets B within 1.25 x the best's busy (goal 2) */
    const gar_arm_summary *single; /* the best single fixed arm (by plan and estimator); NULL: none */
    size_t single_meets;          /* cells where it meets B */
    size_t both_meet;             /* cells where it and auto both meet B */
    double single_busy, auto_busy; /* their busy CPU summed over those cells (goal 3) */
    bool goal_budget, goal_within, goal_single;
} gar_auto_goals;

/* Works out the cells and the goals from `arms` (kept: the cells point into
 * it).  Returns 0 (free with gar_auto_goals_free; no cell when the arms hold
 * no auto arm), or -GAR_E_CAPACITY when memory runs out. */
int gar_auto_goals_compute(const gar_arm_list *arms, gar_auto_goals *out, gar_error *err);

void gar_auto_goals_free(gar_auto_goals *goals);

/* The budget of an auto plan's label ("auto:p99_us=20" -> 20 000 ns), or 0
 * for a label that is not auto. */
uint64_t gar_auto_goals_budget_of(const char *plan);

/* The rule by which an arm meets a budget, in words (static text). */
const char *gar_auto_goals_rule(void);

/* Prints the rule (`rule: ...`), the cells as a table (auto's p99 95 %
 * interval and whether it could meet B in columns of their own) and each
 * goal as `goal_...: pass|fail` lines with their figures. */
void gar_auto_goals_print(FILE *out, const gar_auto_goals *goals);

/* Writes an HTML section (a <section> with a heading, one paragraph per
 * trace and host, a table of every budget, the goals) that answers, for
 * each workload and host: what budget auto meets, at what busy CPU, and
 * how that compares with the best fixed arm.  Text is escaped for HTML.
 * Returns 0, or -GAR_E_IO when a write fails (`path` names the file). */
int gar_auto_goals_html(FILE *out, const gar_auto_goals *goals, const char *path, gar_error *err);

/* The same, each best fixed arm named by `namer` (its short name written
 * into `out`, `size` bytes), the full plan and estimator its tooltip: the
 * full texts made the tables wider than the page. */
typedef void (*gar_auto_arm_namer)(const gar_arm_summary *arm, void *context, char *out,
                                   size_t size);
int gar_auto_goals_html_named(FILE *out, const gar_auto_goals *goals, gar_auto_arm_namer namer,
                              void *context, const char *path, gar_error *err);

#endif
