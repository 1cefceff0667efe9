/* experiments/report/report_verify.c — simulation against this machine, in the report. */
#define _POSIX_C_SOURCE 200809L
#include "report/report_verify.h"

#include <stdlib.h>
#include <string.h>

#include "sweep/html_text.h"
#include "report/plot.h"
#include "verify/verifications.h"

typedef struct section {
    const char *dir;
    FILE *html;
    gar_plot_files *files;
    unsigned rows, agree;
} section;

static void us(FILE *f, gar_dur_ns ns)
{
    fprintf(f, "<td>%.3g</td>", (double)ns / 1e3);
}

/* One quantile's real cell: the value, or with several runs their envelope
 * and where the simulation fell (its cell follows). */
static void real_cell(FILE *f, const gar_verification *v, int i)
{
    if (v->runs <= 1) {
        us(f, v->real_q[i]);
        return;
    }
    fprintf(f, "<td>%.3g–%.3g<br><small>sim ", (double)v->real_min[i] / 1e3,
            (double)v->real_max[i] / 1e3);
    gar_html_text(f, v->position[i]);
    fprintf(f, "</small></td>");
}

static int add_row(void *ctx, const gar_verification *v, gar_error *err)
{
    section *s = ctx;
    if (s->rows == 0)
        fprintf(s->html,
                "<table>\n<tr><th>#</th><th>trace / plan / estimator</th><th>waits × runs</th>"
                "<th>p50 real / sim (µs)</th><th></th><th>p90 real / sim</th><th></th>"
                "<th>p99 real / sim</th><th></th><th>KS D</th><th>real runs' KS</th>"
                "<th>busy real / sim</th><th></th><th>verdict</th></tr>\n");
    s->rows++;
    s->agree += v->agree;
    fprintf(s->html, "<tr class=\"%s\"><td>%u</td><td>", v->agree ? "win" : "", s->rows);
    gar_html_text(s->html, v->trace_name);
    fprintf(s->html, " / ");
    gar_html_text(s->html, v->plan_ran);
    fprintf(s->html, " / ");
    gar_html_text(s->html, v->estimator);
    fprintf(s->html, "</td><td>%llu × %u</td>", (unsigned long long)v->waits,
            v->runs > 0 ? v->runs : 1);
    for (int i = 0; i < 3; i++) {
        real_cell(s->html, v, i);
        us(s->html, v->sim_q[i]);
    }
    fprintf(s->html, "<td>%.3f</td>", v->ks_d);
    if (v->runs > 1)
        fprintf(s->html, "<td>%.3f</td>", v->real_ks_d_max);
    else
        fprintf(s->html, "<td>–</td>");
    fprintf(s->html, "<td>%.3f</td><td>%.3f</td><td>", v->busy_real, v->busy_sim);
    gar_html_text(s->html, v->verdict);
    fprintf(s->html, "</td></tr>\n");
    return gar_plot_verification(v, s->rows, s->dir, s->files, err);
}

int gar_report_verifications(gar_db *db, const char *dir, gar_plot_files *files,
                             FILE *html, gar_error *err)
{
    const size_t first_plot = files->count;
    /* The table is written into a temporary stream first: the section's
     * heading and its explanation come before it, but only when there are rows. */
    char *table = NULL;
    size_t table_len = 0;
    FILE *t = open_memstream(&table, &table_len);
    if (t == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
    section s = { dir, t, files, 0, 0 };
    int rc = gar_verifications_each(db, add_row, &s, err);
    if (s.rows > 0)
        fprintf(t, "</table>\n");
    fclose(t);
    if (rc == 0 && s.rows > 0) {
        fprintf(html,
                "<h2>Simulation vs this machine</h2>\n"
                "<p>Each arm below ran for real on the machine <code>gar verify --sweep</code> "
                "ran on (the device named) and in the simulator with that machine's host "
                "profile, on the same waits; %u of %u agree.  Overshoot quantiles in µs; KS D "
                "is the plain two-sample Kolmogorov–Smirnov distance of the overshoots; busy "
                "is the fraction of waiting time the CPU was busy.  An arm run several times "
                "(<code>--runs N</code>) shows its real runs' range of each quantile and "
                "whether the simulation lies inside it or above or below every run, KS D of "
                "the runs pooled, and the widest KS D between two real runs; its verdict is "
                "<em>biased</em> when the simulation lies outside the real runs (or they agree "
                "with each other and it does not agree with them), <em>unjudgeable here</em> "
                "when the real runs themselves disagree by more than twice the bound.  Each row "
                "was judged by the tolerances stored with it (the defaults: <code>gar verify "
                "--help</code>).</p>\n",
                s.agree, s.rows);
        fwrite(table, 1, table_len, html);
        for (size_t i = first_plot; i < files->count; i++) {
            fprintf(html, "<figure><a href=\"");
            gar_html_text(html, files->file[i].png);
            fprintf(html, "\"><img src=\"");
            gar_html_text(html, files->file[i].png);
            fprintf(html, "\" alt=\"");
            gar_html_text(html, files->file[i].caption);
            fprintf(html, "\"></a><figcaption>%zu. ", i - first_plot + 1);
            gar_html_text(html, files->file[i].caption);
            fprintf(html, "</figcaption></figure>\n");
        }
    }
    free(table);
    return rc;
}
