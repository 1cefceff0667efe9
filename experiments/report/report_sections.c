/* experiments/report/report_sections.c — the sections of report.html
 * around the tables: style, database, lacks, noise, overview, auto, plots. */
#include "report/report_parts.h"
#include "sweep/auto_goals.h"

#include <stdlib.h>
#include <string.h>

#include "report/plan_names.h"
#include "sim/quantile_interval.h"
#include "sweep/format.h"
#include "sweep/html_text.h"
#include "sweep/number_text.h"

/* The plans of the auto section's best fixed arms, to name each among them. */
typedef struct auto_plans {
    const char **plan;
    size_t count;
} auto_plans;

static void auto_arm_name(const gar_arm_summary *arm, void *context, char *out, size_t size)
{
    const auto_plans *p = context;
    gar_arm_name_among(arm->plan, arm->estimator, p->plan, p->count, out, size);
}

/* The auto section, its best fixed arms named by what tells their plans
 * apart (poll+predict margin_us=200 / adl), in full on hover. */
int gar_report_auto(FILE *f, const gar_auto_goals *autos, const char *path, gar_error *err)
{
    auto_plans p = { malloc(autos->cells * sizeof *p.plan), 0 };
    if (p.plan == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
    for (size_t i = 0; i < autos->cells; i++) {
        const gar_arm_summary *best = autos->cell[i].best;
        bool seen = best == NULL;
        for (size_t k = 0; k < p.count && !seen; k++)
            seen = strcmp(p.plan[k], best->plan) == 0;
        if (!seen)
            p.plan[p.count++] = best->plan;
    }
    int rc = gar_auto_goals_html_named(f, autos, auto_arm_name, &p, path, err);
    free(p.plan);
    return rc;
}

void gar_report_image(FILE *f, const gar_plot_file *p)
{
    fprintf(f, "<figure><a href=\"");
    gar_html_text(f, p->png);
    fprintf(f, "\"><img src=\"");
    gar_html_text(f, p->png);
    fprintf(f, "\" alt=\"");
    gar_html_text(f, p->caption);
    fprintf(f, "\"></a><figcaption>");
    gar_html_text(f, p->caption);
    fprintf(f, "</figcaption></figure>\n");
    if (p->listing == NULL)
        return;
    /* The arms a plot draws on one point, one ringed group a line. */
    fprintf(f, "<p class=\"coincident\">Drawn on one point (ringed and tagged in the plot "
               "above, hiding each other):</p>\n<ul class=\"coincident\">\n");
    for (const char *line = p->listing; *line != '\0';) {
        size_t n = strcspn(line, "\n");
        char text[4096];
        gar_format(text, sizeof text, "%.*s", (int)n, line);
        fprintf(f, "<li>");
        gar_html_text(f, text);
        fprintf(f, "</li>\n");
        line += n + (line[n] == '\n');
    }
    fprintf(f, "</ul>\n");
}

const char gar_report_style[] =
    "body{font-family:sans-serif;max-width:1250px;margin:2em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccc}h3{margin-bottom:.3em}"
    "table{border-collapse:collapse;margin:.5em 0 1em}"
    "td,th{border:1px solid #ddd;padding:.2em .45em;text-align:right}"
    "td:nth-child(2),th:nth-child(2){text-align:left}th{background:#f3f3f3}"
    "tr.win td{background:#e6f4ea;font-weight:bold}"
    "img{max-width:100%;border:1px solid #eee}figure{margin:1em 0}"
    "figcaption{font-size:.9em;color:#555}code{background:#f5f5f5;padding:0 .2em}"
    ".winner{background:#f6f8fa;border-left:4px solid #0a7;padding:.4em .8em}"
    ".warn{background:#fff4e5;border-left:4px solid #d55e00;padding:.4em .8em}"
    "tr.failed td{color:#888}tr.tied td{background:#f4f9f5}"
    "td small{color:#666;font-weight:normal}td{white-space:nowrap}"
    "td.notes{white-space:normal}table{font-size:.88em}"
    "p.footnote{font-size:.85em;color:#555;margin-top:-.6em}"
    "p.coincident{font-size:.9em;margin:.2em 0}ul.coincident{font-size:.85em;color:#444;"
    "margin-top:.2em;columns:2 36em}"
    "#auto{overflow-x:auto}#auto td{white-space:nowrap}table.overview td:nth-child(4){white-space:nowrap}"
    "dl.terms{font-size:.9em;columns:2 32em}dl.terms dt{font-weight:bold;break-after:avoid}"
    "dl.terms dd{margin:0 0 .4em 1em;break-inside:avoid}"
    ".note{background:#fff4e5;border-radius:3px;padding:0 .3em;white-space:nowrap}"
    "td.notes{text-align:left;font-size:.85em}"
    "table.overview td,table.overview th{text-align:left;white-space:normal}table.overview td:nth-child(2),"
    "table.overview td:nth-child(5),table.overview td:nth-child(6){text-align:right}"
    "table.overview td:nth-child(5),table.overview td:nth-child(6){white-space:nowrap}";

/* Which database, which gar made it, and which builds of gar made its rows:
 * a resumed sweep or a merge can mix them, and the reader must know. */
int gar_report_meta(gar_db *db, FILE *f, FILE *summary, gar_error *err)
{
    char version[64], commit[64], schema[16];
    int rc = gar_db_meta(db, "gar_version", version, sizeof version, err);
    if (rc == 0)
        rc = gar_db_meta(db, "source_commit", commit, sizeof commit, err);
    if (rc == 0)
        rc = gar_db_meta(db, "schema_version", schema, sizeof schema, err);
    gar_results_build builds[GAR_RESULTS_BUILDS_MAX];
    size_t count = 0;
    bool more = false;
    if (rc == 0)
        rc = gar_results_builds(db, builds, &count, &more, err);
    if (rc < 0)
        return rc;
    fprintf(f, "<p>Database <code>");
    gar_html_text(f, gar_db_path(db));
    fprintf(f, "</code>: schema version %s, created by gar ", schema);
    gar_html_text(f, version);
    fprintf(f, " (source ");
    gar_html_text(f, commit);
    fprintf(f, "). Its runs were made by ");
    for (size_t i = 0; i < count; i++) {
        fprintf(f, "%sgar ", i == 0 ? "" : i + 1 == count && !more ? " and " : ", ");
        gar_html_text(f, builds[i].version);
        fprintf(f, " (source ");
        gar_html_text(f, builds[i].commit);
        fprintf(f, ", %llu run%s)", (unsigned long long)builds[i].runs,
                builds[i].runs == 1 ? "" : "s");
    }
    fprintf(f, "%s.</p>\n", more ? " and other builds" : "");
    if (count > 1) {
        fprintf(f, "<p class=\"warn\"><b>Warning: mixed builds.</b> The runs come from %s%zu "
                   "builds of gar (a sweep resumed by another gar, or a merge of databases "
                   "made by different ones). Numbers from different builds compare only if "
                   "the simulator did not change between them.</p>\n",
                more ? "more than " : "", count);
        if (summary != NULL) {
            fprintf(summary, "warning: mixed builds: the runs come from %s%zu builds of gar:",
                    more ? "more than " : "", count);
            for (size_t i = 0; i < count; i++)
                fprintf(summary, "%s %s (%s) %llu runs", i == 0 ? "" : ";", builds[i].version,
                        builds[i].commit, (unsigned long long)builds[i].runs);
            fputc('\n', summary);
        }
    }
    return 0;
}

/* "; from SOURCE" for the trace or host `hash`: which of two that share a
 * file name this one is. */
void gar_report_origin(FILE *f, const gar_short_names *names, bool host, const char *hash)
{
    const char *source = gar_short_names_source(names, host, hash);
    if (source == NULL || source[0] == '\0')
        return;
    fprintf(f, "; from <code>");
    gar_html_text(f, source);
    fprintf(f, "</code>");
}

/* What an older database cannot give: the columns its schema version
 * predates, and the per-wait figures of runs another build made that this
 * build's replay does not reproduce (plot.h), each named with why.  The
 * stored figures stand as stored.  Returns 0 or -GAR_E_IO. */
int gar_report_lacking(gar_db *db, FILE *f, const gar_plot_files *files, FILE *summary,
                       gar_error *err)
{
    char schema[16];
    int rc = gar_db_meta(db, "schema_version", schema, sizeof schema, err);
    if (rc < 0)
        return rc;
    long version = strtol(schema, NULL, 10);
    bool old = version > 0 && version < GAR_DB_SCHEMA_VERSION;
    if (!old && files->lacking_count == 0)
        return 0;
    fprintf(f, "<h2>What this database lacks</h2>\n");
    if (old) {
        fprintf(f, "<p class=\"warn\">Schema version %ld, made by an older gar (this one writes "
                   "version %d), read as it is: it predates %s. Those are shown as absent.</p>\n",
                version, GAR_DB_SCHEMA_VERSION,
                version < 4 ? "each run's 95 % intervals and notes (version 4) and what an auto "
                              "plan chose (version 5)"
                            : "what an auto plan chose (version 5)");
        if (summary != NULL)
            fprintf(summary, "lacking: schema version %ld lacks %s\n", version,
                    version < 4 ? "intervals, notes and auto choices" : "auto choices");
    }
    if (files->lacking_count == 0)
        return 0;
    fprintf(f, "<p class=\"warn\">Some runs were made by another build of gar whose simulator "
               "gave other figures than this one's. Their stored figures are shown as stored "
               "(the tables, the Pareto and parameter plots); the figures drawn from every "
               "wait, which re-run a run, cannot be had from them and are left out:</p>\n<ul>\n");
    for (size_t i = 0; i < files->lacking_count; i++) {
        fprintf(f, "<li>");
        gar_html_text(f, files->lacking[i]);
        fprintf(f, "</li>\n");
    }
    if (files->lacking_more > 0)
        fprintf(f, "<li>and %zu more</li>\n", files->lacking_more);
    fprintf(f, "</ul>\n");
    if (summary != NULL)
        fprintf(summary, "lacking: %zu per-wait figures (runs made by another build of gar "
                         "that this one's replay does not reproduce; the page names them)\n",
                files->lacking_count + files->lacking_more);
    return 0;
}

/* How the page shows noise: intervals, ties, notes, and what an older
 * database lacks. */
void gar_report_noise(FILE *f, const gar_arm_list *arms, const gar_report_notes *notes)
{
    size_t with_ci = 0;
    for (size_t i = 0; i < arms->count; i++)
        with_ci += arms->arm[i].has_ci;
    bool has_ci = with_ci > 0;
    /* The sweep stores its intervals at the default level, so its bound is that one's. */
    char interval_words[320];
    gar_format(interval_words, sizeof interval_words,
               " and the 95 %% order-statistic interval of the quantile (<i>95 %%</i>: the "
               "least lower and the greatest upper end of the seeds' intervals; a p99 from "
               "fewer than %zu waits has no upper end)",
               gar_quantile_interval_min_waits(990000, GAR_CI_LEVEL_DEFAULT));
    fprintf(f,
            "<p><b>Noise.</b> Each figure is the mean over an arm's seeds; beneath it the "
            "least and the greatest seed's (<i>seeds</i>)%s. Two arms are told apart on a "
            "figure only when their intervals do not overlap: p99's runs from the least to the "
            "greatest seed%s, busy's from the least to the most seed. The arms that cannot be "
            "told apart from the best on the figure the rule ranks by are <i>tied</i> (within "
            "noise); the winner among them is the one with the lower other figure, and is named "
            "a <i>tied winner</i> with that reason. With few seeds these intervals are wide on "
            "purpose: the report would rather call a tie than a winner it cannot stand "
            "behind.</p>\n",
            has_ci ? interval_words : "",
            has_ci ? ", widened to the seeds' 95 % intervals" : "");
    if (!has_ci)
        fprintf(f, "<p class=\"warn\">No run here stored its 95 %% intervals (runs made by a "
                   "gar before sweep database schema version 4 have none): the quantiles are "
                   "shown without intervals, and ties are judged on the seeds' spread "
                   "alone.</p>\n");
    else if (with_ci < arms->count)
        fprintf(f, "<p class=\"warn\">%zu of %zu arms have a run without stored 95 %% "
                   "intervals (made by a gar before sweep database schema version 4): those "
                   "arms are shown without intervals, and their ties are judged on the seeds' "
                   "spread alone; such runs took no notes either, so an empty notes cell "
                   "there says nothing.</p>\n",
                arms->count - with_ci, arms->count);
    fprintf(f, "<p><b>Notes.</b> The <i>notes</i> column flags what is worth knowing about "
               "an arm's runs, with the number of seeds it concerns (hover for the "
               "messages; <code>gar report --notes</code> lists them all)%s.</p>\n",
            notes->stored ? ": predict arms that never or rarely slept, predictions that "
                            "overshot, backstop hits, fallbacks, too few waits, failed seeds"
                          : ". This database stores only failed seeds (run_notes came with "
                            "schema version 4)");
}

/* The overview's row of a group with a winner: the winner, its figures,
 * the verdict and the arms tied with it. */
static void overview_winner(FILE *f, const gar_arm_summary *g, const gar_report_row *rows,
                            size_t n, const gar_report_winner *w, const gar_report_plans *plans,
                            FILE *summary)
{
    char name[GAR_RESULTS_TEXT * 2], p99[32], spread[96], verdict[256];
    gar_report_arm_name(w->winner, plans, name, sizeof name);
    gar_duration_text(w->winner->p99_ns, p99, sizeof p99);
    gar_report_spread_text(w->winner, spread, sizeof spread);
    gar_report_verdict(w, verdict, sizeof verdict);
    fprintf(f, "</td><td title=\"");
    gar_html_text(f, w->winner->plan);
    fprintf(f, "\"><b>");
    gar_html_text(f, name);
    /* The spread without the summary's leading " (" and closing ")". */
    size_t len = strlen(spread);
    char busy[32];
    fprintf(f, "</b></td><td>%s<br><small>%.*s</small></td><td>", p99,
            len > 3 ? (int)(len - 3) : 0, len > 3 ? spread + 2 : "");
    gar_html_text(f, gar_percent_text(100 * w->winner->busy_frac, busy, sizeof busy));
    fprintf(f, "</td><td>%s</td><td>", verdict);
    size_t listed = 0;
    for (size_t k = 0; k < n; k++) {
        if (!rows[k].tied || rows[k].arm == w->winner)
            continue;
        char other[GAR_RESULTS_TEXT * 2];
        gar_report_arm_name(rows[k].arm, plans, other, sizeof other);
        fprintf(f, "%s", listed++ > 0 ? "; " : "");
        gar_html_text(f, other);
    }
    fprintf(f, "%s</td></tr>\n", listed == 0 ? "none: every other arm is told apart" : "");
    if (summary != NULL)
        gar_report_summary_line(summary, g, name, w);
}

/* The overview's row of group g[0 .. n-1].  Returns 0 or -GAR_E_CAPACITY. */
static int overview_row(FILE *f, const gar_arm_summary *g, size_t n, const gar_report_rule *rule,
                        FILE *summary, gar_error *err)
{
    gar_report_plans plans = { NULL, 0 };
    gar_report_row *rows = malloc(n * sizeof *rows);
    int rc = rows == NULL ? gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report",
                                          "exhausted")
                          : gar_report_plans_of(g, n, &plans, err);
    if (rc < 0)
        goto done;
    gar_report_winner w = gar_report_rank(g, n, rule, rows);
    fprintf(f, "<tr><td>");
    gar_html_text(f, g->trace_short);
    fprintf(f, "</td><td>%llu</td><td>", (unsigned long long)g->waits);
    gar_html_text(f, g->host_short);
    if (strcmp(g->mode, "open") != 0)
        fprintf(f, " (%s loop)", g->mode);
    if (w.winner == NULL)
        fprintf(f, "</td><td colspan=\"5\">no complete arm</td></tr>\n");
    else
        overview_winner(f, g, rows, n, &w, &plans, summary);
done:
    gar_report_plans_free(&plans);
    free(rows);
    return rc;
}

int gar_report_overview(FILE *f, const gar_arm_list *arms, const gar_report_rule *rule,
                        FILE *summary, gar_error *err)
{
    fprintf(f, "<h2>Winners and ties</h2>\n<p>Per trace and host: the winner under the rule, "
               "whether it won clearly or among arms that cannot be told apart from it, and "
               "those arms.</p>\n<table class=\"overview\">\n<tr><th>trace</th><th>waits</th>"
               "<th>host</th><th>winner</th><th>p99 overshoot</th><th>busy CPU</th>"
               "<th>verdict</th><th>indistinguishable from the winner</th></tr>\n");
    for (size_t i = 0; i < arms->count;) {
        const gar_arm_summary *g = &arms->arm[i];
        size_t n = 0;
        while (i + n < arms->count && gar_report_same_group(&arms->arm[i + n], g))
            n++;
        int rc = overview_row(f, g, n, rule, summary, err);
        if (rc < 0)
            return rc;
        i += n;
    }
    fprintf(f, "</table>\n");
    return 0;
}
