/* experiments/report/report.c — report.html: the plots and a ranking per trace. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "report/report.h"
#include "sweep/auto_goals.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/format.h"
#include "sweep/html_text.h"
#include "sweep/number_text.h"
#include "report/plot.h"
#include "sim/quantile_interval.h"
#include "report/plan_names.h"
#include "report/report_notes.h"
#include "report/report_terms.h"
#include "report/report_verify.h"
#include "sweep/short_names.h"
#include "sweep/sweep_spec.h"

/* ---- HTML --------------------------------------------------------------- */


/* An arm's name among the plans of its group (plan_names.h): the plan's
 * family and what tells it from the group's other plans of that family. */
static void arm_name(const gar_arm_summary *a, const gar_arm_summary *group, size_t count,
                     char *out, size_t size)
{
    const char *plans[256];
    size_t n = 0;
    for (size_t i = 0; i < count && n < 256; i++) {
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = strcmp(plans[j], group[i].plan) == 0;
        if (!seen)
            plans[n++] = group[i].plan;
    }
    gar_arm_name_among(a->plan, a->estimator, plans, n, out, size);
}

/* "1.3 µs", "140 µs", "2.1 ms": durations as people read them. */
static void duration_text(double ns, char *out, size_t size)
{
    gar_duration_text(ns, out, size);
}

/* "0.56–31.8 µs", "820 µs – 1.2 ms": a range of durations, the unit once
 * when both ends share it; an unbounded upper end said in words, and an
 * interval with neither end (too few waits for either) said as that. */
static void duration_range(double lo, double hi, char *out, size_t size)
{
    char a[32], b[32];
    if (lo <= 0 && isinf(hi)) {
        gar_format(out, size, "no bound (too few waits)");
        return;
    }
    duration_text(lo, a, sizeof a);
    if (isinf(hi)) {
        gar_format(out, size, "%s – no upper bound", a);
        return;
    }
    duration_text(hi, b, sizeof b);
    if ((lo >= 1e6) == (hi >= 1e6))
        gar_format(out, size, "%.*s–%s", (int)strcspn(a, " "), a, b);
    else
        gar_format(out, size, "%s – %s", a, b);
}

/* The seeds an arm's figures are means over. */
static uint64_t ok_runs(const gar_arm_summary *a)
{
    return a->runs - a->failed;
}

/* The seed spread of a p99, as the summary prints it: " (seeds 0.56–31.8 µs)". */
static void spread_text(const gar_arm_summary *a, char *out, size_t size)
{
    char range[80];
    if (ok_runs(a) < 2) {
        gar_format(out, size, " (one seed)");
        return;
    }
    duration_range(a->p99_min_ns, a->p99_max_ns, range, sizeof range);
    gar_format(out, size, " (seeds %s)", range);
}

/* What a saving against poll or block is worth: nothing to say when the
 * winner is that arm, and "within noise" when their intervals overlap, so
 * the page never states a difference its own intervals cannot tell apart. */
static const char *saving_caveat(const gar_arm_summary *win, const gar_arm_summary *ref,
                                 gar_report_interval (*interval)(const gar_arm_summary *))
{
    return gar_report_apart(interval(win), interval(ref)) ? ""
                                                          : " (within noise: their intervals "
                                                            "overlap)";
}

static void savings_text(const gar_report_winner *w, char *cpu, size_t cpu_size, char *lat,
                         size_t lat_size)
{
    const gar_arm_summary *win = w->winner;
    if (w->poll == win) {
        gar_format(cpu, cpu_size, "busy %.3g %% (it is poll)", 100 * win->busy_frac);
    } else if (w->poll != NULL) {
        double saved = w->poll->busy_frac - win->busy_frac;
        gar_format(cpu, cpu_size, "busy %.3g %% against poll's %.3g %%: %.3g points less%s",
                   100 * win->busy_frac, 100 * w->poll->busy_frac, 100 * saved,
                   saving_caveat(win, w->poll, gar_report_busy_interval));
    } else {
        gar_format(cpu, cpu_size, "busy %.3g %% (%s)", 100 * win->busy_frac,
                   w->poll_failed ? "poll had a failed run" : "the sweep ran no poll");
    }
    /* Latency on the quantile the group was ranked by (p99, or the highest
     * its waits bound), so the saving is one its intervals can tell. */
    unsigned q = w->quantile;
    double mine = gar_report_quantile(win, q);
    if (w->block == win) {
        char a[32];
        duration_text(mine, a, sizeof a);
        gar_format(lat, lat_size, "p%u %s (it is block)", q, a);
    } else if (w->block != NULL) {
        char a[32], b[32], d[32];
        double theirs = gar_report_quantile(w->block, q);
        duration_text(mine, a, sizeof a);
        duration_text(theirs, b, sizeof b);
        double less = theirs - mine;
        duration_text(less < 0 ? -less : less, d, sizeof d);
        bool apart = gar_report_apart(gar_report_quantile_interval(win, q),
                                      gar_report_quantile_interval(w->block, q));
        gar_format(lat, lat_size, "p%u %s against block's %s: %s %s%s", q, a, b, d,
                   less >= 0 ? "less" : "more",
                   apart ? "" : " (within noise: their intervals overlap)");
    } else {
        char a[32];
        duration_text(mine, a, sizeof a);
        gar_format(lat, lat_size, "p%u %s (%s)", q, a,
                   w->block_failed ? "block had a failed run" : "the sweep ran no block");
    }
}

/* "winner: TRACE | HOST | MODE | ARM | p99 .. (seeds ..) | busy .. | poll .. | block ..
 * | waits N | clear": fields split by '|' so a script can lay them out as a table. */
static void summary_line(FILE *out, const gar_arm_summary *g, const char *name,
                         const gar_report_winner *w)
{
    char p99[32], spread[96], verdict[256];
    duration_text(w->winner->p99_ns, p99, sizeof p99);
    spread_text(w->winner, spread, sizeof spread);
    gar_report_verdict(w, verdict, sizeof verdict);
    fprintf(out, "winner: %s | %s | %s | %s | p99 %s%s | busy %.3g %%", g->trace_short,
            g->host_short, g->mode, name, p99, spread, 100 * w->winner->busy_frac);
    const gar_arm_summary *refs[2] = { w->poll, w->block };
    const char *ref_names[2] = { "poll", "block" };
    const bool ref_failed[2] = { w->poll_failed, w->block_failed };
    for (int r = 0; r < 2; r++) {
        if (refs[r] == NULL) {
            fprintf(out, " | %s: %s", ref_names[r], ref_failed[r] ? "failed" : "not run");
            continue;
        }
        duration_text(refs[r]->p99_ns, p99, sizeof p99);
        fprintf(out, " | %s: p99 %s, busy %.3g %%", ref_names[r], p99, 100 * refs[r]->busy_frac);
    }
    fprintf(out, " | waits %llu | %s\n", (unsigned long long)w->winner->waits, verdict);
}

/* A quantile's cell: the mean over seeds, then the seeds' spread and the
 * 95 % interval where there is more than one seed or an interval, then
 * `flag` (words beside the figure; NULL: none). */
static void quantile_cell(FILE *f, const gar_arm_summary *a, double mean, double lo_seed,
                          double hi_seed, double ci_lo, double ci_hi, const char *flag)
{
    char text[32], range[96];
    duration_text(mean, text, sizeof text);
    fprintf(f, "<td>%s", text);
    if (ok_runs(a) > 1) {
        duration_range(lo_seed, hi_seed, range, sizeof range);
        fprintf(f, "<br><small>seeds %s</small>", range);
    }
    if (a->has_ci) {
        duration_range(ci_lo, ci_hi, range, sizeof range);
        fprintf(f, "<br><small>95 %% %s</small>", range);
    }
    if (flag != NULL)
        fprintf(f, "<br><b>%s</b>", flag);
    fprintf(f, "</td>");
}

/* The notes of arm `a`: each name once, with the seeds that have it; the
 * messages as the cell's tooltip. */
static void notes_cell(FILE *f, const gar_arm_summary *a, const gar_report_notes *notes)
{
    const char *names[16];
    unsigned seeds[16];
    size_t n = 0;
    for (size_t i = 0; i < notes->count; i++) {
        const gar_report_note *x = &notes->note[i];
        if (!gar_report_note_of(x, a))
            continue;
        size_t k = 0;
        while (k < n && strcmp(names[k], x->note) != 0)
            k++;
        if (k == n && n < 16) {
            names[n] = x->note;
            seeds[n++] = 0;
        }
        if (k < n)
            seeds[k]++;
    }
    fprintf(f, "<td class=\"notes\"");
    if (n > 0) {
        fprintf(f, " title=\"");
        size_t shown = 0;
        for (size_t i = 0; i < notes->count && shown < 8; i++)
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
}

/* The mark beside an arm whose flag ran as poll, and what it says. */
#define FALLBACK_MARK "†"
#define FALLBACK_WORDS "flag ran as poll: no user-mode word wait on this host"

/* The table of one group, its rows in gar_report_rank's order. */
static void write_table(FILE *f, const gar_report_row *rows, size_t count,
                        const gar_arm_summary *group, const gar_report_winner *w,
                        const gar_report_notes *notes)
{
    fprintf(f, "<table>\n<tr><th>#</th><th>plan / estimator</th><th>p99 overshoot</th>"
               "<th>p90</th><th>p50</th><th>max</th><th>busy CPU</th><th>seeds</th>"
               "<th>standing</th><th>notes</th></tr>\n");
    size_t place = 0, fell_back = 0;
    for (size_t i = 0; i < count; i++) {
        const gar_arm_summary *a = rows[i].arm;
        bool failed = rows[i].standing == GAR_REPORT_FAILED;
        char name[GAR_RESULTS_TEXT * 2], max[32], standing[160];
        arm_name(a, group, count, name, sizeof name);
        duration_text(a->max_ns, max, sizeof max);
        if (a == w->winner && w->tied > 1)
            gar_format(standing, sizeof standing, "tied winner (%s)", w->tie_break);
        else if (a == w->winner)
            gar_format(standing, sizeof standing, "winner");
        else if (failed)
            gar_format(standing, sizeof standing, "failed: not ranked");
        else if (rows[i].standing == GAR_REPORT_BOUND)
            gar_format(standing, sizeof standing, "bound (oracle)");
        else if (rows[i].tied)
            gar_format(standing, sizeof standing, "tied (within noise)");
        else if (rows[i].standing == GAR_REPORT_ELIGIBLE)
            gar_format(standing, sizeof standing, "eligible, told apart");
        else
            gar_format(standing, sizeof standing, "p99 outside the slack");
        /* A failed arm has no place in the ranking, so no number. */
        char rank[24] = "";
        if (!failed)
            gar_format(rank, sizeof rank, "%zu", ++place);
        fprintf(f, "<tr class=\"%s\"><td>%s</td><td title=\"",
                a == w->winner ? "win" : failed ? "failed" : rows[i].tied ? "tied" : "", rank);
        gar_html_text(f, a->plan);
        fprintf(f, "\">");
        gar_html_text(f, name);
        /* A mark, said in full once under the table: the note kept the
         * name's cell on one line only when it was short. */
        if (strcmp(a->plan_ran, a->plan) != 0 && strstr(a->plan_ran, "(fallback from") != NULL) {
            fprintf(f, " <sup title=\"" FALLBACK_WORDS "\">" FALLBACK_MARK "</sup>");
            fell_back++;
        }
        if (failed) {
            fprintf(f, "</td><td colspan=\"5\">failed on %llu of %llu seeds</td>",
                    (unsigned long long)a->failed, (unsigned long long)a->runs);
        } else {
            fprintf(f, "</td>");
            /* An auto arm over its own budget says so beside its p99. */
            char over[96];
            double budget = gar_report_over_budget(a);
            gar_format(over, sizeof over, "over its budget of %.3g µs", budget / 1e3);
            quantile_cell(f, a, a->p99_ns, a->p99_min_ns, a->p99_max_ns, a->p99_lo_ns,
                          a->p99_hi_ns, budget > 0 ? over : NULL);
            quantile_cell(f, a, a->p90_ns, a->p90_min_ns, a->p90_max_ns, a->p90_lo_ns,
                          a->p90_hi_ns, NULL);
            quantile_cell(f, a, a->p50_ns, a->p50_min_ns, a->p50_max_ns, a->p50_lo_ns,
                          a->p50_hi_ns, NULL);
            char busy[32], lo[32], hi[32];
            fprintf(f, "<td>%s</td><td>", max);
            gar_html_text(f, gar_percent_text(100 * a->busy_frac, busy, sizeof busy));
            if (ok_runs(a) > 1) { /* "52.6–54.1 %": the unit once */
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
        fprintf(f, "<td>%llu</td><td>%s</td>", (unsigned long long)a->runs, standing);
        notes_cell(f, a, notes);
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
    if (fell_back > 0)
        fprintf(f, "<p class=\"footnote\">" FALLBACK_MARK " " FALLBACK_WORDS ".</p>\n");
}

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
static int auto_section(FILE *f, const gar_auto_goals *autos, const char *path, gar_error *err)
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

static void write_image(FILE *f, const gar_plot_file *p)
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

static const char style[] =
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

static bool same_group(const gar_arm_summary *a, const gar_arm_summary *b)
{
    return strcmp(a->trace, b->trace) == 0 && strcmp(a->host, b->host) == 0 &&
           strcmp(a->mode, b->mode) == 0;
}

/* Which database, which gar made it, and which builds of gar made its rows:
 * a resumed sweep or a merge can mix them, and the reader must know. */
static int meta_line(gar_db *db, FILE *f, FILE *summary, gar_error *err)
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
static void origin(FILE *f, const gar_short_names *names, bool host, const char *hash)
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
static int lacking_text(gar_db *db, FILE *f, const gar_plot_files *files, FILE *summary,
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
static void noise_text(FILE *f, const gar_arm_list *arms, const gar_report_notes *notes)
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

/* Every group's winner, verdict and ties, in one table at the top; the
 * summary's winner lines on the way. */
static int overview(FILE *f, const gar_arm_list *arms, const gar_report_rule *rule,
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
        while (i + n < arms->count && same_group(&arms->arm[i + n], g))
            n++;
        gar_report_row *rows = malloc(n * sizeof *rows);
        if (rows == NULL)
            return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
        gar_report_winner w = gar_report_rank(g, n, rule, rows);
        fprintf(f, "<tr><td>");
        gar_html_text(f, g->trace_short);
        fprintf(f, "</td><td>%llu</td><td>", (unsigned long long)g->waits);
        gar_html_text(f, g->host_short);
        if (strcmp(g->mode, "open") != 0)
            fprintf(f, " (%s loop)", g->mode);
        if (w.winner == NULL) {
            fprintf(f, "</td><td colspan=\"5\">no complete arm</td></tr>\n");
            free(rows);
            i += n;
            continue;
        }
        char name[GAR_RESULTS_TEXT * 2], p99[32], spread[96], verdict[256];
        arm_name(w.winner, g, n, name, sizeof name);
        duration_text(w.winner->p99_ns, p99, sizeof p99);
        spread_text(w.winner, spread, sizeof spread);
        gar_report_verdict(&w, verdict, sizeof verdict);
        fprintf(f, "</td><td title=\"");
        gar_html_text(f, w.winner->plan);
        fprintf(f, "\"><b>");
        gar_html_text(f, name);
        /* The spread without the summary's leading " (" and closing ")". */
        size_t len = strlen(spread);
        char busy[32];
        fprintf(f, "</b></td><td>%s<br><small>%.*s</small></td><td>", p99,
                len > 3 ? (int)(len - 3) : 0, len > 3 ? spread + 2 : "");
        gar_html_text(f, gar_percent_text(100 * w.winner->busy_frac, busy, sizeof busy));
        fprintf(f, "</td><td>%s</td><td>", verdict);
        size_t listed = 0;
        for (size_t k = 0; k < n; k++) {
            if (!rows[k].tied || rows[k].arm == w.winner)
                continue;
            char other[GAR_RESULTS_TEXT * 2];
            arm_name(rows[k].arm, g, n, other, sizeof other);
            fprintf(f, "%s", listed++ > 0 ? "; " : "");
            gar_html_text(f, other);
        }
        fprintf(f, "%s</td></tr>\n", listed == 0 ? "none: every other arm is told apart" : "");
        if (summary != NULL)
            summary_line(summary, g, name, &w);
        free(rows);
        i += n;
    }
    fprintf(f, "</table>\n");
    return 0;
}

int gar_report_write(gar_db *db, const char *dir, const gar_report_rule *rule,
                     const gar_auto_goals *autos, FILE *summary_out, gar_error *err)
{
    char rule_text[96], rule_words[400];
    gar_report_rule_text(rule, rule_text, sizeof rule_text);
    gar_report_rule_words(rule, rule_words, sizeof rule_words);
    int rc = gar_plot_check_gnuplot(err);
    if (rc < 0)
        return rc;
    /* The summary is held back until the files are in place: a refused
     * report prints no winner. */
    char *held = NULL;
    size_t held_len = 0;
    FILE *summary = NULL;
    if (summary_out != NULL && (summary = open_memstream(&held, &held_len)) == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
    if (summary != NULL)
        fprintf(summary, "rule: %s\n", rule_text);
    gar_arm_list arms = { NULL, 0 };
    gar_plot_files *files = calloc(1, sizeof *files);
    if (files == NULL) {
        if (summary != NULL)
            fclose(summary);
        free(held);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
    }
    /* What can be checked is checked before a file is made: rows, traces,
     * host profiles.  Then everything is staged and appears together. */
    rc = gar_results_check_rows(db, err);
    if (rc == 0)
        rc = gar_results_arms(db, &arms, err);
    if (rc == 0 && arms.count == 0)
        rc = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "report", gar_db_path(db),
                           "holds no runs to report");
    gar_report_notes notes = { NULL, 0, false };
    if (rc == 0)
        rc = gar_report_notes_read(db, &notes, err);
    gar_short_names names = { NULL, 0 };
    if (rc == 0)
        rc = gar_short_names_read(db, &names, err);
    if (rc == 0)
        rc = gar_results_check_sources(db, NULL, err);
    if (rc == 0)
        rc = gar_plot_stage_begin(dir, files, err);
    /* The auto sweep's plots come first, as its section does. */
    bool with_auto = autos != NULL && autos->cells > 0;
    /* The colours: auto's two series, then the plans, so the auto plots'
     * poll and block take the plans' colours and no plan takes auto's. */
    if (rc == 0 && with_auto)
        gar_plot_auto_palette(files);
    if (rc == 0)
        gar_plot_palette_seed(files, &arms);
    if (rc == 0 && with_auto)
        rc = gar_plot_auto_budgets(autos, dir, files, err);
    size_t auto_count = files->count;
    if (rc == 0)
        rc = gar_plot_pareto(&arms, dir, files, err);
    size_t pareto_count = files->count;
    if (rc == 0)
        rc = gar_plot_params(db, dir, files, err);
    size_t param_end = files->count;
    /* Each trace's CDFs and one prediction plot. */
    for (size_t i = 0; rc == 0 && i < arms.count; i++) {
        if (i > 0 && strcmp(arms.arm[i - 1].trace, arms.arm[i].trace) == 0)
            continue;
        rc = gar_plot_cdf(db, &arms, arms.arm[i].trace, dir, files, err);
        gar_run_key key;
        int found = rc == 0 ? gar_plot_pick_prediction_run(db, &arms, arms.arm[i].trace, &key,
                                                           err)
                            : 0;
        if (found < 0)
            rc = found;
        else if (found == 1)
            rc = gar_plot_prediction(db, &key, dir, files, err);
    }

    char tmp[4400];
    gar_format(tmp, sizeof tmp, "%s/report.html", gar_plot_out_dir(files, dir));
    FILE *f = NULL;
    if (rc == 0 && (f = fopen(tmp, "w")) == NULL)
        rc = gar_error_set(err, GAR_E_IO, 3, tmp, "write", strerror(errno));
    if (rc == 0) {
        fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                   "<title>gar sweep report</title>\n<style>%s</style></head><body>\n"
                   "<h1>gar sweep report</h1>\n",
                style);
        rc = meta_line(db, f, summary, err);
        if (rc == 0)
            gar_report_terms(f, rule, with_auto);
    }
    if (rc == 0)
        rc = lacking_text(db, f, files, summary, err);
    if (rc == 0 && with_auto) {
        rc = auto_section(f, autos, tmp, err);
        for (size_t p = 0; rc == 0 && p < auto_count; p++)
            write_image(f, &files->file[p]);
    }
    if (rc == 0) {
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
        noise_text(f, &arms, &notes);
        rc = overview(f, &arms, rule, summary, err);
    }
    if (rc == 0) {
        fprintf(f, "<h2>Busy CPU against p99 overshoot</h2>\n");
        for (size_t p = auto_count; p < pareto_count; p++)
            write_image(f, &files->file[p]);
        if (param_end > pareto_count)
            fprintf(f, "<h2>Against the swept parameters</h2>\n<p>For each parameter a "
                       "spec swept with a range or list (<code>{lo..hi..step}</code>, "
                       "<code>{a,b}</code>; data/sweeps/README.md): p99 overshoot and busy "
                       "CPU against its value, one line per plan family / estimator, each "
                       "point the mean over the runs with that value (seeds, traces and the "
                       "other swept values). A what-if host's factor is named "
                       "<code>KEY*</code>.</p>\n");
        for (size_t p = pareto_count; p < param_end; p++)
            write_image(f, &files->file[p]);
    }
    for (size_t i = 0; rc == 0 && i < arms.count;) {
        const gar_arm_summary *g = &arms.arm[i];
        bool new_trace = i == 0 || strcmp(arms.arm[i - 1].trace, g->trace) != 0;
        size_t n = 0;
        while (i + n < arms.count && same_group(&arms.arm[i + n], g))
            n++;
        if (new_trace) {
            fprintf(f, "<h2>Trace ");
            gar_html_text(f, g->trace_short);
            fprintf(f, "</h2>\n<p>%llu waits a run; content hash <code>%s</code>",
                    (unsigned long long)g->waits, g->trace);
            origin(f, &names, false, g->trace);
            fprintf(f, ".</p>\n");
        }
        gar_report_row *rows = malloc(n * sizeof *rows);
        if (rows == NULL) {
            rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
            break;
        }
        gar_report_winner w = gar_report_rank(g, n, rule, rows);
        fprintf(f, "<h3>Host ");
        gar_html_text(f, g->host_short);
        fprintf(f, ", %s loop</h3>\n<p>Host profile: content hash <code>%s</code>", g->mode,
                g->host);
        origin(f, &names, true, g->host);
        fprintf(f, ".</p>\n");
        if (w.winner != NULL) {
            char name[GAR_RESULTS_TEXT * 2], cpu[256], lat[256];
            arm_name(w.winner, g, n, name, sizeof name);
            savings_text(&w, cpu, sizeof cpu, lat, sizeof lat);
            fprintf(f, "<p class=\"winner\">Winner: <b>");
            gar_html_text(f, name);
            if (w.tied > 1)
                fprintf(f, "</b> (tied winner, %s) — %s; %s.", w.tie_break, cpu, lat);
            else
                fprintf(f, "</b> — %s; %s.", cpu, lat);
            if (w.tied > 1)
                fprintf(f, " %zu arms cannot be told apart on %s (their intervals overlap); "
                           "among them it has the %s.",
                        w.tied, rule->kind != GAR_RULE_P99 ? "busy CPU"
                                : w.quantile == 99         ? "p99 overshoot"
                                : w.quantile == 90         ? "p90 overshoot"
                                                           : "p50 overshoot",
                        w.tie_break);
            /* Over its own budget, or ranked below p99: the verdict says so. */
            if (w.over_budget_ns > 0 || w.quantile != 99) {
                char verdict[256];
                gar_report_verdict(&w, verdict, sizeof verdict);
                fprintf(f, " Verdict: ");
                gar_html_text(f, verdict);
                fprintf(f, ".");
            }
            fprintf(f, "</p>\n");
        } else {
            fprintf(f, "<p>No complete arm here: every arm has a failed run.</p>\n");
        }
        size_t failed_arms = 0;
        for (size_t k = 0; k < n; k++)
            failed_arms += rows[k].standing == GAR_REPORT_FAILED;
        if (failed_arms > 0)
            fprintf(f, "<p>%zu arm%s had a failed run: shown last with the count of failed "
                       "seeds, not ranked.</p>\n",
                    failed_arms, failed_arms == 1 ? "" : "s");
        write_table(f, rows, n, g, &w, &notes);
        free(rows);
        for (size_t p = param_end; p < files->count; p++)
            if (strcmp(files->file[p].trace, g->trace) == 0 &&
                strcmp(files->file[p].host, g->host) == 0 &&
                strncmp(files->file[p].png, "cdf-", 4) == 0 &&
                strstr(files->file[p].png, g->mode) != NULL)
                write_image(f, &files->file[p]);
        i += n;
        bool last_of_trace = i == arms.count || strcmp(arms.arm[i].trace, g->trace) != 0;
        if (last_of_trace)
            for (size_t p = param_end; p < files->count; p++)
                if (strcmp(files->file[p].trace, g->trace) == 0 &&
                    strncmp(files->file[p].png, "prediction-", 11) == 0)
                    write_image(f, &files->file[p]);
    }
    if (rc == 0)
        rc = gar_report_verifications(db, dir, files, f, err);
    if (f != NULL) {
        fprintf(f, "</body></html>\n");
        errno = 0;
        bool bad = fflush(f) != 0 || ferror(f) != 0;
        int saved = errno;
        if (fclose(f) != 0 && !bad) {
            bad = true;
            saved = errno;
        }
        if (bad && rc == 0)
            rc = gar_error_set(err, GAR_E_IO, 3, tmp, "write",
                               saved != 0 ? strerror(saved) : "write error");
    }
    /* The page and every plot appear together, or nothing does. */
    if (rc == 0)
        rc = gar_plot_stage_commit(files, err);
    else
        gar_plot_stage_abort(files);
    if (summary != NULL) {
        bool lost = fclose(summary) != 0;
        if (rc == 0 && lost)
            rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
        if (rc == 0)
            fwrite(held, 1, held_len, summary_out);
        free(held);
    }
    gar_report_notes_free(&notes);
    gar_short_names_free(&names);
    gar_arm_list_free(&arms);
    gar_plot_files_free(files);
    return rc;
}
