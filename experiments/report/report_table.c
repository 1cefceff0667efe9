/* experiments/report/report_table.c — the ranked table of one group: a row
 * per arm, its figures with their spread and intervals, its standing and
 * its notes. */
#include "report/report_parts.h"

#include <stdlib.h>
#include <string.h>

#include "sweep/format.h"
#include "sweep/html_text.h"
#include "sweep/number_text.h"

/* The mark beside an arm whose flag ran as poll, and what it says. */
#define FALLBACK_MARK "†"
#define FALLBACK_WORDS "flag ran as poll: no user-mode word wait on this host"
/* The note messages a notes cell's tooltip shows: enough to see what they
 * say; `gar report --notes` lists them all. */
#define NOTES_TOOLTIP_MAX 8

/* A quantile's cell: the mean over seeds, then the seeds' spread and the
 * 95 % interval where there is more than one seed or an interval, then
 * `flag` (words beside the figure; NULL: none). */
static void quantile_cell(FILE *f, const gar_arm_summary *a, double mean, double lo_seed,
                          double hi_seed, double ci_lo, double ci_hi, const char *flag)
{
    char text[32], range[96];
    gar_duration_text(mean, text, sizeof text);
    fprintf(f, "<td>%s", text);
    if (gar_report_ok_runs(a) > 1) {
        gar_report_duration_range(lo_seed, hi_seed, range, sizeof range);
        fprintf(f, "<br><small>seeds %s</small>", range);
    }
    if (a->has_ci) {
        gar_report_duration_range(ci_lo, ci_hi, range, sizeof range);
        fprintf(f, "<br><small>95 %% %s</small>", range);
    }
    if (flag != NULL)
        fprintf(f, "<br><b>%s</b>", flag);
    fprintf(f, "</td>");
}

/* The notes of arm `a`: each name once, with the seeds that have it; the
 * first messages as the cell's tooltip.  Returns 0 or -GAR_E_CAPACITY. */
static int notes_cell(FILE *f, const gar_arm_summary *a, const gar_report_notes *notes,
                      gar_error *err)
{
    size_t mine = 0, n = 0;
    for (size_t i = 0; i < notes->count; i++)
        mine += gar_report_note_of(&notes->note[i], a);
    const char **names = malloc((mine > 0 ? mine : 1) * sizeof *names);
    unsigned *seeds = malloc((mine > 0 ? mine : 1) * sizeof *seeds);
    if (names == NULL || seeds == NULL) {
        free(names);
        free(seeds);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
    }
    for (size_t i = 0; i < notes->count; i++) {
        const gar_report_note *x = &notes->note[i];
        if (!gar_report_note_of(x, a))
            continue;
        size_t k = 0;
        while (k < n && strcmp(names[k], x->note) != 0)
            k++;
        if (k == n) {
            names[n] = x->note;
            seeds[n++] = 0;
        }
        seeds[k]++;
    }
    fprintf(f, "<td class=\"notes\"");
    if (n > 0) {
        fprintf(f, " title=\"");
        size_t shown = 0;
        for (size_t i = 0; i < notes->count && shown < NOTES_TOOLTIP_MAX; i++)
            if (gar_report_note_of(&notes->note[i], a)) {
                fprintf(f, "%sseed %llu: ", shown > 0 ? "&#10;" : "",
                        (unsigned long long)notes->note[i].seed);
                gar_html_text(f, notes->note[i].message);
                shown++;
            }
        fprintf(f, "\"");
    }
    fprintf(f, ">");
    for (size_t k = 0; k < n; k++) {
        fprintf(f, "%s<span class=\"note\">", k > 0 ? " " : "");
        gar_html_text(f, names[k]);
        fprintf(f, "</span>&nbsp;×%u", seeds[k]);
    }
    fprintf(f, "</td>");
    free(names);
    free(seeds);
    return 0;
}

/* A row's standing in words. */
static void standing_text(const gar_report_row *row, const gar_report_winner *w, char *out,
                          size_t size)
{
    const gar_arm_summary *a = row->arm;
    if (a == w->winner && w->tied > 1)
        gar_format(out, size, "tied winner (%s)", w->tie_break);
    else if (a == w->winner)
        gar_format(out, size, "winner");
    else if (row->standing == GAR_REPORT_FAILED)
        gar_format(out, size, "failed: not ranked");
    else if (row->standing == GAR_REPORT_BOUND)
        gar_format(out, size, "bound (oracle)");
    else if (row->tied)
        gar_format(out, size, "tied (within noise)");
    else if (row->standing == GAR_REPORT_ELIGIBLE)
        gar_format(out, size, "eligible, told apart");
    else
        gar_format(out, size, "p99 outside the slack");
}

/* A ranked arm's figures: its three quantiles, max and busy CPU. */
static void figure_cells(FILE *f, const gar_arm_summary *a)
{
    /* An auto arm over its own budget says so beside its p99. */
    char over[96], max[32];
    double budget = gar_report_over_budget(a);
    gar_format(over, sizeof over, "over its budget of %.3g µs", budget / 1e3);
    quantile_cell(f, a, a->p99_ns, a->p99_min_ns, a->p99_max_ns, a->p99_lo_ns, a->p99_hi_ns,
                  budget > 0 ? over : NULL);
    quantile_cell(f, a, a->p90_ns, a->p90_min_ns, a->p90_max_ns, a->p90_lo_ns, a->p90_hi_ns,
                  NULL);
    quantile_cell(f, a, a->p50_ns, a->p50_min_ns, a->p50_max_ns, a->p50_lo_ns, a->p50_hi_ns,
                  NULL);
    char busy[32], lo[32], hi[32];
    gar_duration_text(a->max_ns, max, sizeof max);
    fprintf(f, "<td>%s</td><td>", max);
    gar_html_text(f, gar_percent_text(100 * a->busy_frac, busy, sizeof busy));
    if (gar_report_ok_runs(a) > 1) { /* "52.6–54.1 %": the unit once */
        gar_percent_text(100 * a->busy_min, lo, sizeof lo);
        lo[strlen(lo) - 2] = '\0';
        fprintf(f, "<br><small>seeds ");
        gar_html_text(f, lo);
        fprintf(f, "–");
        gar_html_text(f, gar_percent_text(100 * a->busy_max, hi, sizeof hi));
        fprintf(f, "</small>");
    }
    fprintf(f, "</td>");
}

/* One row; `place` counts the ranked rows so far.  Returns whether the
 * arm's flag fell back to poll (marked), or -GAR_E_CAPACITY. */
static int table_row(FILE *f, const gar_report_row *row, size_t *place,
                     const gar_report_plans *plans, const gar_report_winner *w,
                     const gar_report_notes *notes, gar_error *err)
{
    const gar_arm_summary *a = row->arm;
    bool failed = row->standing == GAR_REPORT_FAILED, fell_back = false;
    char name[GAR_RESULTS_TEXT * 2], standing[160];
    gar_report_arm_name(a, plans, name, sizeof name);
    standing_text(row, w, standing, sizeof standing);
    /* A failed arm has no place in the ranking, so no number. */
    char rank[24] = "";
    if (!failed)
        gar_format(rank, sizeof rank, "%zu", ++*place);
    fprintf(f, "<tr class=\"%s\"><td>%s</td><td title=\"",
            a == w->winner ? "win" : failed ? "failed" : row->tied ? "tied" : "", rank);
    gar_html_text(f, a->plan);
    fprintf(f, "\">");
    gar_html_text(f, name);
    /* A mark, said in full once under the table: the note kept the
     * name's cell on one line only when it was short. */
    if (strcmp(a->plan_ran, a->plan) != 0 && strstr(a->plan_ran, "(fallback from") != NULL) {
        fprintf(f, " <sup title=\"" FALLBACK_WORDS "\">" FALLBACK_MARK "</sup>");
        fell_back = true;
    }
    if (failed) {
        fprintf(f, "</td><td colspan=\"5\">failed on %llu of %llu seeds</td>",
                (unsigned long long)a->failed, (unsigned long long)a->runs);
    } else {
        fprintf(f, "</td>");
        figure_cells(f, a);
    }
    fprintf(f, "<td>%llu</td><td>%s</td>", (unsigned long long)a->runs, standing);
    int rc = notes_cell(f, a, notes, err);
    fprintf(f, "</tr>\n");
    return rc < 0 ? rc : fell_back;
}

int gar_report_table(FILE *f, const gar_report_row *rows, size_t count,
                     const gar_report_plans *plans, const gar_report_winner *w,
                     const gar_report_notes *notes, gar_error *err)
{
    fprintf(f, "<table>\n<tr><th>#</th><th>plan / estimator</th><th>p99 overshoot</th>"
               "<th>p90</th><th>p50</th><th>max</th><th>busy CPU</th><th>seeds</th>"
               "<th>standing</th><th>notes</th></tr>\n");
    size_t place = 0, fell_back = 0;
    for (size_t i = 0; i < count; i++) {
        int rc = table_row(f, &rows[i], &place, plans, w, notes, err);
        if (rc < 0)
            return rc;
        fell_back += (size_t)rc;
    }
    fprintf(f, "</table>\n");
    if (fell_back > 0)
        fprintf(f, "<p class=\"footnote\">" FALLBACK_MARK " " FALLBACK_WORDS ".</p>\n");
    return 0;
}
