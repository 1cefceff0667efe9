/* experiments/report/report_parts.h — the parts report.html is made of, for
 * report.c, which puts them together (report.h).
 *
 *   report_arms.c      an arm in words: its name among its group's plans,
 *                      durations and spreads, what it saves against poll
 *                      and block, the summary's winner line
 *   report_table.c     the ranked table of one group
 *   report_sections.c  the page's style, the database line, what it lacks,
 *                      how it shows noise, the winners' overview, the auto
 *                      section and a plot with its caption
 *
 * Each writer writes HTML into `f`; a writer that may fail returns 0 or a
 * negated code with `err` set (-GAR_E_IO: the database; -GAR_E_CAPACITY:
 * memory). */
#ifndef GAR_REPORT_PARTS_H
#define GAR_REPORT_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gar/error.h>

#include "report/plot.h"
#include "report/report_notes.h"
#include "report/report_rank.h"
#include "sweep/db.h"
#include "sweep/results.h"
#include "sweep/short_names.h"

/* ---- report_arms.c ---- */

/* The distinct plans of a group of arms, its arms' names are made among. */
typedef struct gar_report_plans {
    const char **plan; /* into the group's arms */
    size_t count;
} gar_report_plans;

/* Gathers the distinct plans of group[0 .. count-1].  Returns 0 or
 * -GAR_E_CAPACITY (no memory); free with gar_report_plans_free. */
int gar_report_plans_of(const gar_arm_summary *group, size_t count, gar_report_plans *out,
                        gar_error *err);
void gar_report_plans_free(gar_report_plans *plans);

/* An arm's name among the plans of its group (plan_names.h): the plan's
 * family and what tells it from the group's other plans of that family. */
void gar_report_arm_name(const gar_arm_summary *a, const gar_report_plans *plans, char *out,
                         size_t size);

/* Whether two arms share trace, host and mode: one ranked group. */
bool gar_report_same_group(const gar_arm_summary *a, const gar_arm_summary *b);

/* "0.56–31.8 µs", "820 µs – 1.2 ms": a range of durations (ns), the unit
 * once when both ends share it; unbounded ends said in words. */
void gar_report_duration_range(double lo, double hi, char *out, size_t size);

/* The seeds an arm's figures are means over. */
uint64_t gar_report_ok_runs(const gar_arm_summary *a);

/* The seed spread of a p99, as the summary prints it: " (seeds 0.56–31.8 µs)". */
void gar_report_spread_text(const gar_arm_summary *a, char *out, size_t size);

/* What the winner saves: CPU against poll, latency against block, each
 * "within noise" when their intervals overlap. */
void gar_report_savings_text(const gar_report_winner *w, char *cpu, size_t cpu_size, char *lat,
                             size_t lat_size);

/* The summary's "winner: TRACE | HOST | ..." line of group `g`. */
void gar_report_summary_line(FILE *out, const gar_arm_summary *g, const char *name,
                             const gar_report_winner *w);

/* ---- report_table.c ---- */

/* The table of one group (group[0 .. count-1]), its rows in
 * gar_report_rank's order.  Returns 0 or -GAR_E_CAPACITY. */
int gar_report_table(FILE *f, const gar_report_row *rows, size_t count,
                     const gar_report_plans *plans, const gar_report_winner *w,
                     const gar_report_notes *notes, gar_error *err);

/* ---- report_sections.c ---- */

/* The page's style sheet. */
extern const char gar_report_style[];

/* Which database, which gar made it, and which builds made its rows (a
 * warning and a summary line when they are mixed). */
int gar_report_meta(gar_db *db, FILE *f, FILE *summary, gar_error *err);

/* "; from SOURCE" for the trace or host `hash`: which of two that share a
 * file name this one is. */
void gar_report_origin(FILE *f, const gar_short_names *names, bool host, const char *hash);

/* What an older database cannot give, and the per-wait figures left out
 * (plot.h), each with why. */
int gar_report_lacking(gar_db *db, FILE *f, const gar_plot_files *files, FILE *summary,
                       gar_error *err);

/* How the page shows noise: intervals, ties, notes. */
void gar_report_noise(FILE *f, const gar_arm_list *arms, const gar_report_notes *notes);

/* Every group's winner, verdict and ties in one table; the summary's
 * winner lines on the way. */
int gar_report_overview(FILE *f, const gar_arm_list *arms, const gar_report_rule *rule,
                        FILE *summary, gar_error *err);

/* The auto section (auto_goals.h), its best fixed arms named among their
 * plans; `path` names the page for its errors. */
struct gar_auto_goals;
int gar_report_auto(FILE *f, const struct gar_auto_goals *autos, const char *path,
                    gar_error *err);

/* A plot with its caption, and the arms it draws on one point. */
void gar_report_image(FILE *f, const gar_plot_file *p);

#endif
