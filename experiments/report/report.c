/* experiments/report/report.c — report.html: the plots and a ranking per
 * trace, put together from its parts (report_parts.h). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "report/report.h"
#include "sweep/auto_goals.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot.h"
#include "report/report_notes.h"
#include "report/report_parts.h"
#include "report/report_terms.h"
#include "report/report_verify.h"
#include "sweep/format.h"
#include "sweep/html_text.h"
#include "sweep/short_names.h"

/* One report while it is written. */
typedef struct report {
    gar_db *db;
    const char *dir;
    const gar_report_rule *rule;
    const gar_auto_goals *autos; /* NULL: no auto section */
    gar_arm_list arms;
    gar_report_notes notes;
    gar_short_names names;
    gar_plot_files *files;
    /* The plots of each section, in files->file: auto [0, auto_end),
     * pareto [auto_end, pareto_end), parameters [pareto_end, param_end),
     * then each trace's CDFs and prediction plot. */
    size_t auto_end, pareto_end, param_end;
    FILE *summary; /* the summary held back until the files are in place; NULL: none */
    char page[4400]; /* report.html's path (in the staging folder) */
} report;

static int no_memory(gar_error *err)
{
    return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
}

/* What can be checked is checked before a file is made: rows, traces,
 * host profiles.  Returns 0 or the refusal. */
static int report_read(report *r, gar_error *err)
{
    int rc = gar_results_check_rows(r->db, err);
    if (rc == 0)
        rc = gar_results_arms(r->db, &r->arms, err);
    if (rc == 0 && r->arms.count == 0)
        rc = gar_error_set(err, GAR_E_EMPTY_DATABASE, 2, "report", gar_db_path(r->db));
    if (rc == 0)
        rc = gar_report_notes_read(r->db, &r->notes, err);
    if (rc == 0)
        rc = gar_short_names_read(r->db, &r->names, err);
    if (rc == 0)
        rc = gar_results_check_sources(r->db, NULL, err);
    return rc;
}

/* Every plot of the page, staged: the auto sweep's first, as its section
 * comes first; then the pareto and parameter plots, then each trace's
 * CDFs and one prediction plot. */
static int report_plots(report *r, gar_error *err)
{
    const char *dir = r->dir;
    gar_plot_files *files = r->files;
    int rc = gar_plot_stage_begin(dir, files, err);
    /* The colours: auto's two series, then the plans, so the auto plots'
     * poll and block take the plans' colours and no plan takes auto's. */
    if (rc == 0 && r->autos != NULL)
        gar_plot_auto_palette(files);
    if (rc == 0)
        gar_plot_palette_seed(files, &r->arms);
    if (rc == 0 && r->autos != NULL)
        rc = gar_plot_auto_budgets(r->autos, dir, files, err);
    r->auto_end = files->count;
    if (rc == 0)
        rc = gar_plot_pareto(&r->arms, dir, files, err);
    r->pareto_end = files->count;
    if (rc == 0)
        rc = gar_plot_params(r->db, dir, files, err);
    r->param_end = files->count;
    const gar_arm_list *arms = &r->arms;
    for (size_t i = 0; rc == 0 && i < arms->count; i++) {
        if (i > 0 && strcmp(arms->arm[i - 1].trace, arms->arm[i].trace) == 0)
            continue;
        rc = gar_plot_cdf(r->db, arms, arms->arm[i].trace, dir, files, err);
        gar_run_key key;
        int found = rc == 0 ? gar_plot_pick_prediction_run(r->db, arms, arms->arm[i].trace,
                                                           &key, err)
                            : 0;
        if (found < 0)
            rc = found;
        else if (found == 1)
            rc = gar_plot_prediction(r->db, &key, dir, files, err);
    }
    return rc;
}

/* The page's head: the database, the terms, what it lacks, the auto
 * section, the rule, noise and the overview. */
static int report_head(report *r, FILE *f, gar_error *err)
{
    char rule_text[96], rule_words[400];
    gar_report_rule_text(r->rule, rule_text, sizeof rule_text);
    gar_report_rule_words(r->rule, rule_words, sizeof rule_words);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<title>gar sweep report</title>\n<style>%s</style></head><body>\n"
               "<h1>gar sweep report</h1>\n",
            gar_report_style);
    int rc = gar_report_meta(r->db, f, r->summary, err);
    if (rc == 0)
        gar_report_terms(f, r->rule, r->autos != NULL);
    if (rc == 0)
        rc = gar_report_lacking(r->db, f, r->files, r->summary, err);
    if (rc == 0 && r->autos != NULL) {
        rc = gar_report_auto(f, r->autos, r->page, err);
        for (size_t p = 0; rc == 0 && p < r->auto_end; p++)
            gar_report_image(f, &r->files->file[p]);
    }
    if (rc < 0)
        return rc;
    fprintf(f,
            "<p><b>Ranking rule</b> <code>--rule %s</code> (choose another with "
            "<code>gar report --rule</code>: " GAR_REPORT_RULE_GRAMMAR "). Per trace, host "
            "and mode, on the means over seeds: %s. The oracle is never ranked: it knows "
            "each residual in advance, so it is shown as a bound. Busy CPU is busy time "
            "over waiting time. The table lists the eligible arms by what the rule ranks "
            "by, then the rest by p99. CPU saved is against <code>poll</code>, ",
            rule_text, rule_words);
    fprintf(f,
            "latency saved against <code>block</code>. An arm with any failed run (a seed "
            "whose replay returned an error) is shown as failed, with its count of failed "
            "seeds, and is not ranked: its mean over the seeds that succeeded would not be "
            "comparable.</p>\n"
            "<p>Overshoot is how much later than possible a wait learnt of its completion "
            "(wait end less the later of completion and wait start). An arm is a plan and "
            "the estimator feeding its predict; <code>-</code> marks a plan without "
            "predict, which consults none. Each plan runs as the host profile resolves it "
            "(see gar/plan.h): on a host without a user-mode word wait, flag runs as poll, keeping "
            "its predict, and the table says so.</p>\n");
    gar_report_noise(f, &r->arms, &r->notes);
    return gar_report_overview(f, &r->arms, r->rule, r->summary, err);
}

/* The pareto plots, then the parameter plots with what they show. */
static void report_plot_sections(const report *r, FILE *f)
{
    fprintf(f, "<h2>Busy CPU against p99 overshoot</h2>\n");
    for (size_t p = r->auto_end; p < r->pareto_end; p++)
        gar_report_image(f, &r->files->file[p]);
    if (r->param_end > r->pareto_end)
        fprintf(f, "<h2>Against the swept parameters</h2>\n<p>For each parameter a "
                   "spec swept with a range or list (<code>{lo..hi..step}</code>, "
                   "<code>{a,b}</code>; data/sweeps/README.md): p99 overshoot and busy "
                   "CPU against its value, one line per plan family / estimator, each "
                   "point the mean over the runs with that value (seeds, traces and the "
                   "other swept values). A what-if host's factor is named "
                   "<code>KEY*</code>.</p>\n");
    for (size_t p = r->pareto_end; p < r->param_end; p++)
        gar_report_image(f, &r->files->file[p]);
}

/* A group's winner in words: what it saves, whether it won among ties, and
 * its verdict where it is over its budget or ranked below p99. */
static void report_winner(FILE *f, const gar_report_winner *w, const gar_report_plans *plans,
                          const gar_report_rule *rule)
{
    char name[GAR_RESULTS_TEXT * 2], cpu[256], lat[256];
    gar_report_arm_name(w->winner, plans, name, sizeof name);
    gar_report_savings_text(w, cpu, sizeof cpu, lat, sizeof lat);
    fprintf(f, "<p class=\"winner\">Winner: <b>");
    gar_html_text(f, name);
    if (w->tied > 1)
        fprintf(f, "</b> (tied winner, %s) — %s; %s.", w->tie_break, cpu, lat);
    else
        fprintf(f, "</b> — %s; %s.", cpu, lat);
    if (w->tied > 1)
        fprintf(f, " %zu arms cannot be told apart on %s (their intervals overlap); "
                   "among them it has the %s.",
                w->tied, rule->kind != GAR_RULE_P99 ? "busy CPU"
                         : w->quantile == 99        ? "p99 overshoot"
                         : w->quantile == 90        ? "p90 overshoot"
                                                    : "p50 overshoot",
                w->tie_break);
    if (w->over_budget_ns > 0 || w->quantile != 99) {
        char verdict[256];
        gar_report_verdict(w, verdict, sizeof verdict);
        fprintf(f, " Verdict: ");
        gar_html_text(f, verdict);
        fprintf(f, ".");
    }
    fprintf(f, "</p>\n");
}

/* The plots of `kind` ("cdf-", "prediction-") of trace `g`: with `mode`,
 * only those of g's host and that mode. */
static void report_trace_images(const report *r, FILE *f, const gar_arm_summary *g,
                                const char *kind, bool mode)
{
    for (size_t p = r->param_end; p < r->files->count; p++) {
        const gar_plot_file *file = &r->files->file[p];
        if (strcmp(file->trace, g->trace) == 0 && strncmp(file->png, kind, strlen(kind)) == 0 &&
            (!mode || (strcmp(file->host, g->host) == 0 && strstr(file->png, g->mode) != NULL)))
            gar_report_image(f, file);
    }
}

/* The section of group g[0 .. n-1]: its trace's heading when it starts
 * one, the host, the winner, the table and its CDFs.  Returns 0 or
 * -GAR_E_CAPACITY. */
static int report_group(report *r, FILE *f, const gar_arm_summary *g, size_t n, bool new_trace,
                        gar_error *err)
{
    if (new_trace) {
        fprintf(f, "<h2>Trace ");
        gar_html_text(f, g->trace_short);
        fprintf(f, "</h2>\n<p>%llu waits a run; content hash <code>%s</code>",
                (unsigned long long)g->waits, g->trace);
        gar_report_origin(f, &r->names, false, g->trace);
        fprintf(f, ".</p>\n");
    }
    gar_report_plans plans = { NULL, 0 };
    gar_report_row *rows = malloc(n * sizeof *rows);
    int rc = rows == NULL ? no_memory(err) : gar_report_plans_of(g, n, &plans, err);
    if (rc < 0)
        goto done;
    gar_report_winner w = gar_report_rank(g, n, r->rule, rows);
    fprintf(f, "<h3>Host ");
    gar_html_text(f, g->host_short);
    fprintf(f, ", %s loop</h3>\n<p>Host profile: content hash <code>%s</code>", g->mode,
            g->host);
    gar_report_origin(f, &r->names, true, g->host);
    fprintf(f, ".</p>\n");
    if (w.winner != NULL)
        report_winner(f, &w, &plans, r->rule);
    else
        fprintf(f, "<p>No complete arm here: every arm has a failed run.</p>\n");
    size_t failed_arms = 0;
    for (size_t k = 0; k < n; k++)
        failed_arms += rows[k].standing == GAR_REPORT_FAILED;
    if (failed_arms > 0)
        fprintf(f, "<p>%zu arm%s had a failed run: shown last with the count of failed "
                   "seeds, not ranked.</p>\n",
                failed_arms, failed_arms == 1 ? "" : "s");
    rc = gar_report_table(f, rows, n, &plans, &w, &r->notes, err);
    if (rc == 0)
        report_trace_images(r, f, g, "cdf-", true);
done:
    gar_report_plans_free(&plans);
    free(rows);
    return rc;
}

/* Closes the page, reporting a write that failed on the way. */
static int report_close(report *r, FILE *f, int rc, gar_error *err)
{
    fprintf(f, "</body></html>\n");
    errno = 0;
    bool bad = fflush(f) != 0 || ferror(f) != 0;
    int saved = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        saved = errno;
    }
    if (bad && rc == 0)
        rc = gar_error_set(err, GAR_E_IO, 3, r->page, "write",
                           saved != 0 ? strerror(saved) : "write error");
    return rc;
}

/* report.html: the head, the plots, a section per group (each trace's
 * prediction plot after its last), the verifications. */
static int report_page(report *r, gar_error *err)
{
    gar_format(r->page, sizeof r->page, "%s/report.html", gar_plot_out_dir(r->files, r->dir));
    FILE *f = fopen(r->page, "w");
    if (f == NULL)
        return gar_error_set(err, GAR_E_IO, 3, r->page, "write", strerror(errno));
    int rc = report_head(r, f, err);
    if (rc == 0)
        report_plot_sections(r, f);
    const gar_arm_list *arms = &r->arms;
    for (size_t i = 0; rc == 0 && i < arms->count;) {
        const gar_arm_summary *g = &arms->arm[i];
        bool new_trace = i == 0 || strcmp(arms->arm[i - 1].trace, g->trace) != 0;
        size_t n = 0;
        while (i + n < arms->count && gar_report_same_group(&arms->arm[i + n], g))
            n++;
        rc = report_group(r, f, g, n, new_trace, err);
        i += n;
        if (rc == 0 && (i == arms->count || strcmp(arms->arm[i].trace, g->trace) != 0))
            report_trace_images(r, f, g, "prediction-", false);
    }
    if (rc == 0)
        rc = gar_report_verifications(r->db, r->dir, r->files, f, err);
    return report_close(r, f, rc, err);
}

int gar_report_write(gar_db *db, const char *dir, const gar_report_rule *rule,
                     const gar_auto_goals *autos, FILE *summary_out, gar_error *err)
{
    int rc = gar_plot_check_gnuplot(err);
    if (rc < 0)
        return rc;
    report r = { .db = db, .dir = dir, .rule = rule,
                 .autos = autos != NULL && autos->cells > 0 ? autos : NULL,
                 .arms = { NULL, 0 }, .notes = { NULL, 0, false }, .names = { NULL, 0 } };
    /* The summary is held back until the files are in place: a refused
     * report prints no winner. */
    char *held = NULL;
    size_t held_len = 0;
    if (summary_out != NULL && (r.summary = open_memstream(&held, &held_len)) == NULL) {
        rc = no_memory(err);
        goto done;
    }
    if (r.summary != NULL) {
        char rule_text[96];
        gar_report_rule_text(rule, rule_text, sizeof rule_text);
        fprintf(r.summary, "rule: %s\n", rule_text);
    }
    if ((r.files = calloc(1, sizeof *r.files)) == NULL) {
        rc = no_memory(err);
        goto done;
    }
    rc = report_read(&r, err);
    if (rc == 0)
        rc = report_plots(&r, err);
    if (rc == 0)
        rc = report_page(&r, err);
    /* The page and every plot appear together, or nothing does. */
    if (rc == 0)
        rc = gar_plot_stage_commit(r.files, err);
    else
        gar_plot_stage_abort(r.files);
done:
    if (r.summary != NULL) {
        bool lost = fclose(r.summary) != 0;
        if (rc == 0 && lost)
            rc = no_memory(err);
        if (rc == 0)
            fwrite(held, 1, held_len, summary_out);
    }
    free(held);
    gar_report_notes_free(&r.notes);
    gar_short_names_free(&r.names);
    gar_arm_list_free(&r.arms);
    gar_plot_files_free(r.files);
    return rc;
}
