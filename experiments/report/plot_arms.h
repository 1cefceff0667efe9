/* experiments/report/plot_arms.h — what the plot kinds share about arms:
 * which arms a plot draws, the floors of its log axes, and the plans it
 * shows, named among themselves and in legend order.
 *
 * A plot tells its plans apart by style (plot_style.h), and only the first
 * GAR_PLOT_STYLES styles are distinct: so every plot kind draws at most
 * GAR_PLOT_STYLES plans (or lines) and refuses more with GAR_E_CAPACITY
 * (gar_plot_refuse_styles), never leaving one out.  Everything else a plot
 * holds (its arms, traces, estimators, points) grows with the database. */
#ifndef GAR_PLOT_ARMS_H
#define GAR_PLOT_ARMS_H

#include <stdbool.h>
#include <stddef.h>

#include <gar/error.h>

#include "report/plot_style.h"
#include "sweep/results.h"

/* Values drawn on a log axis are at least this (a 0 has no place there). */
#define GAR_PLOT_LOG_FLOOR_US 0.001
#define GAR_PLOT_LOG_FLOOR_PERCENT 0.0001
/* An interval without an upper end is drawn to this (µs): off every plot's
 * right edge, where gnuplot cuts the bar. */
#define GAR_PLOT_UNBOUNDED_US 1e12

static inline double gar_plot_floor_us(double us)
{
    return us < GAR_PLOT_LOG_FLOOR_US ? GAR_PLOT_LOG_FLOOR_US : us;
}

static inline double gar_plot_floor_percent(double percent)
{
    return percent < GAR_PLOT_LOG_FLOOR_PERCENT ? GAR_PLOT_LOG_FLOOR_PERCENT : percent;
}

/* Whether two arms share host and mode: one Pareto plot, one CDF group. */
bool gar_plot_same_host_mode(const gar_arm_summary *a, const gar_arm_summary *b);

/* An arm with an ok run to re-run (CDFs and predictions show one run). */
bool gar_plot_arm_usable(const gar_arm_summary *a);

/* An arm every run of which succeeded: only those are means over the same
 * seeds, so only those are drawn against each other (as the report ranks). */
bool gar_plot_arm_complete(const gar_arm_summary *a);

/* Sets `err` to GAR_E_CAPACITY: `what` (e.g. "plans in one CDF plot") is
 * full at GAR_PLOT_STYLES.  Returns -GAR_E_CAPACITY. */
int gar_plot_refuse_styles(gar_error *err, const char *what);

/* The distinct plans of the arms a plot shows, in plan order, each with
 * its name among them.  Zeroed (calloc: it is large), it is empty. */
typedef struct gar_plot_shown {
    size_t count;
    const char *plan[GAR_PLOT_STYLES];
    unsigned rank[GAR_PLOT_STYLES]; /* the plan's place in the database's plan order */
    char name[GAR_PLOT_STYLES][GAR_RESULTS_TEXT];
} gar_plot_shown;

/* Adds `plan` when new; returns its place, or -1 when the plot is full. */
long gar_plot_shown_add(gar_plot_shown *s, const char *plan, unsigned rank);

/* Legend order: plan order (block, poll, flag, each without then with
 * predict, bands), and within one family by the numbers of its parameters,
 * so a legend of six margins reads 50, 100, ... 300. */
bool gar_plot_shown_before(const char *a, unsigned rank_a, const char *b, unsigned rank_b);

/* Puts the shown plans in legend order, then names each among them. */
void gar_plot_shown_name(gar_plot_shown *s);

/* The place of `plan`, or -1 when it is not shown. */
long gar_plot_shown_find(const gar_plot_shown *s, const char *plan);

#endif
