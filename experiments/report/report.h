/* experiments/report/report.h — a sweep database as one HTML page with its plots.
 *
 * The page opens with the rule it ranks by and how it treats noise, a table
 * of every group's winner and ties, then the plots, then per trace and host
 * the ranked table of every arm (figures with their seeds' spread and 95 %
 * intervals, standing, notes), its CDFs and a prediction plot.  The ranking
 * itself, rules and ties, is report_rank.h's; the notes, report_notes.h's. */
#ifndef GAR_REPORT_H
#define GAR_REPORT_H

#include <stdio.h>

#include <gar/error.h>

#include "report/report_rank.h"
#include "sweep/db.h"

/* Writes DIR/report.html and the plots it shows (every pareto plot, the
 * parameter plots, each trace's CDFs and one prediction plot per trace),
 * ranking by `rule`, then prints "rule: TEXT" and one "winner: ..." line
 * per group on `summary` (NULL for none).  With `autos` (an auto sweep's
 * goals, auto_goals.h; NULL or no cell for none) the page opens with what
 * budget auto meets per trace and host and at what CPU beside the best
 * fixed arm, and its plots by budget.  Returns 0, -GAR_E_IO (gnuplot
 * missing, files, the database) or a re-run's refusal. */
struct gar_auto_goals;
int gar_report_write(gar_db *db, const char *dir, const gar_report_rule *rule,
                     const struct gar_auto_goals *autos, FILE *summary, gar_error *err);

#endif
