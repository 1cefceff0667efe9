/* experiments/report/plot_cdf.c — cdf-TRACE-HOST-MODE: the overshoot CDF of
 * each plan on one trace beside its tail (plot.h). */
#include "report/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/gnuplot_text.h"
#include "report/plan_names.h"
#include "report/plot_arms.h"
#include "report/plot_draw.h"
#include "report/plot_layout.h"
#include "report/plot_waits.h"
#include "sweep/format.h"

/* About this many points a curve, the extremes always kept, and every one
 * of the last CDF_TAIL_POINTS: the tail plot reads them. */
#define CDF_POINTS 2000
#define CDF_TAIL_POINTS 2000

/* One CDF plot: the arms it draws (a plan each, under gar_plot_estimator's
 * estimator) in legend order, and what their re-runs gave. */
typedef struct cdf_plot {
    const gar_arm_summary *g; /* the first arm of the trace, host and mode */
    gar_plot_paths pf;
    const gar_arm_summary **drawn; /* `blocks` of them, legend order */
    const char **drawn_plans;      /* their plans, to name each among them */
    size_t blocks;
    /* The blocks written (a run of another build is left out): their
     * plans and their key titles, escaped. */
    const char **written_plans;
    char (*titles)[GAR_RESULTS_TEXT * 2];
    size_t written;
    uint64_t seed;                 /* the seed shown (the last block's) */
    double lo, hi, least_tail;     /* the reach of the curves */
} cdf_plot;

static void cdf_plot_free(cdf_plot *p)
{
    free(p->drawn);
    free(p->drawn_plans);
    free(p->written_plans);
    free(p->titles);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The share of the width the first panel takes. */
static double cdf_panel_share(void)
{
    return (double)GAR_CDF_PANEL_W_PX / (double)(GAR_CDF_PANEL_W_PX * 2 + GAR_CDF_KEY_W_PX);
}

/* The arms drawn: of the trace, host and mode of arms[first], each plan
 * once under its estimator, in legend order (plan order, one family's
 * numbers as numbers).  Returns 0, or -GAR_E_CAPACITY (more plans than
 * styles, or no memory). */
static int cdf_choose(const gar_arm_list *arms, size_t first, cdf_plot *p, gar_error *err)
{
    size_t room = arms->count - first;
    p->drawn = malloc(room * sizeof *p->drawn);
    p->drawn_plans = malloc(room * sizeof *p->drawn_plans);
    p->written_plans = malloc(room * sizeof *p->written_plans);
    p->titles = malloc(room * sizeof *p->titles);
    if (p->drawn == NULL || p->drawn_plans == NULL || p->written_plans == NULL ||
        p->titles == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a CDF plot", "exhausted");
    for (size_t i = first; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (strcmp(a->trace, p->g->trace) != 0 || !gar_plot_same_host_mode(a, p->g) ||
            !gar_plot_arm_usable(a))
            continue;
        const char *est = gar_plot_estimator(arms, a);
        if (est == NULL || strcmp(a->estimator, est) != 0)
            continue;
        if (p->blocks == GAR_PLOT_STYLES)
            return gar_plot_refuse_styles(err, "plans in one CDF plot");
        size_t at = p->blocks++;
        while (at > 0 && gar_plot_shown_before(a->plan, a->plan_rank, p->drawn[at - 1]->plan,
                                               p->drawn[at - 1]->plan_rank)) {
            p->drawn[at] = p->drawn[at - 1];
            at--;
        }
        p->drawn[at] = a;
    }
    for (size_t b = 0; b < p->blocks; b++)
        p->drawn_plans[b] = p->drawn[b]->plan;
    return 0;
}

/* One curve: the sorted overshoots of `log`, as the CDF and the tail. */
static void cdf_curve_data(cdf_plot *p, FILE *dat, gar_plot_waits *log)
{
    qsort(log->overshoot_us, log->count, sizeof *log->overshoot_us, compare_double);
    size_t step = log->count / CDF_POINTS + 1;
    for (size_t k = 0; k < log->count; k++) {
        if (k % step != 0 && log->count - k > CDF_TAIL_POINTS)
            continue;
        double v = gar_plot_floor_us(log->overshoot_us[k]);
        p->lo = fmin(p->lo, v);
        p->hi = fmax(p->hi, v);
        fprintf(dat, "%.6g %.6g %.6g\n", v, (double)(k + 1) / (double)log->count,
                (double)(log->count - k) / (double)log->count);
    }
    p->least_tail = fmin(p->least_tail, 1.0 / (double)log->count);
    fprintf(dat, "\n\n");
}

/* Block `b`: its arm's run with the least seed re-run, its curve written.
 * Returns 0 (written, or left out: no run, or one another build made) or
 * a refusal. */
static int cdf_block(gar_db *db, cdf_plot *p, size_t b, FILE *dat, gar_plot_files *files,
                     gar_error *err)
{
    const gar_arm_summary *a = p->drawn[b];
    gar_run_key key;
    int rc = gar_results_find_run(db, a->trace, a->host, a->mode, a->plan, a->estimator, &key,
                                  err);
    if (rc <= 0)
        return rc;
    gar_plot_waits log;
    char figure[GAR_RESULTS_PLAN_TEXT + 3 * GAR_RESULTS_TEXT];
    gar_format(figure, sizeof figure, "the overshoot CDF of plan %s (estimator %s) on trace "
               "%s, host %s, %s loop", a->plan, a->estimator, a->trace_short,
               a->host_short, a->mode);
    rc = gar_plot_rerun(db, &key, &log, files, figure, err);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    p->seed = key.seed;
    fprintf(dat, "# plan %s, estimator %s, seed %llu\n", a->plan, a->estimator,
            (unsigned long long)key.seed);
    cdf_curve_data(p, dat, &log);
    char label[GAR_RESULTS_TEXT * 2];
    gar_arm_name_among(a->plan, a->estimator, p->drawn_plans, p->blocks, label, sizeof label);
    gar_gnuplot_single(label, p->titles[p->written], sizeof p->titles[p->written]);
    p->written_plans[p->written++] = a->plan;
    gar_plot_waits_free(&log);
    return 0;
}

/* One `plot` of every block's curve, its columns `using`. */
static void cdf_curves(FILE *gp, const cdf_plot *p, const char *using, gar_plot_files *files)
{
    fprintf(gp, "plot ");
    for (size_t b = 0; b < p->written; b++) {
        gar_plot_style st = gar_plot_style_for(gar_plot_palette_of(files), p->written_plans[b]);
        fprintf(gp, "%s'%s' index %zu using %s with steps lw 2 dt %d lc rgb '%s' title '%s'",
                b > 0 ? ", \\\n     " : "", b == 0 ? p->pf.dat : "", b, using, st.dash,
                st.colour, p->titles[b]);
    }
    fprintf(gp, "\n");
}

/* The script: the CDF (log overshoot) left, the tail (log-log) right with
 * the key beside it; taller than a panel only when the key needs it. */
static void cdf_write_script(const cdf_plot *p, FILE *gp, gar_plot_files *files)
{
    const gar_arm_summary *g = p->g;
    size_t key_h = GAR_CDF_TITLE_H_PX + p->written * GAR_CDF_KEY_ROW_PX + GAR_CDF_KEY_PAD_PX;
    size_t height = key_h > GAR_CDF_PANEL_H_PX ? key_h : GAR_CDF_PANEL_H_PX;
    double panel_h = 1.0 - (double)GAR_CDF_TITLE_H_PX / (double)height;
    char trace[GAR_RESULTS_TEXT * 2], host[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(g->trace_short, trace, sizeof trace);
    gar_gnuplot_double(g->host_short, host, sizeof host);
    fprintf(gp,
            "# gar plot: the overshoot CDF of each plan (the run with the least seed;\n"
            "# plans with predict under the estimator named).  Data: %s.\n"
            "# Re-draw: gnuplot %s\n"
            "# Left the CDF (log overshoot), right the tail: the fraction of waits with\n"
            "# at least that overshoot on log-log axes, where the p99 and the worst\n"
            "# waits are read.\n",
            p->pf.dat, p->pf.gp);
    gar_plot_terminal(gp, GAR_CDF_PANEL_W_PX * 2 + GAR_CDF_KEY_W_PX, height, p->pf.png);
    fprintf(gp,
            "set multiplot title \"Overshoot CDF and tail: trace %s\\nhost %s, %s loop, seed %llu\""
            " font ',13'\n"
            "set xlabel 'overshoot: wait end - completion (µs, log)'\n"
            "set logscale x\n"
            "set format x '%%g'\n"
            "set xrange [%.6g:%.6g]\n"
            "set grid xtics mxtics ytics mytics\n"
            "\n# The CDF.\n"
            "set origin 0,0\nset size %.4f,%.4f\n"
            "set title 'CDF'\n"
            "set ylabel 'fraction of waits with at most that overshoot'\n"
            "set yrange [0:1.02]\n"
            "set ytics 0.1\n"
            "unset key\n",
            trace, host, g->mode, (unsigned long long)p->seed, p->lo / 1.5, p->hi * 1.5,
            cdf_panel_share(), panel_h);
    cdf_curves(gp, p, "1:2", files);
    fprintf(gp, "\n# The tail (1 - CDF), log-log.\n"
                "set origin %.4f,0\nset size %.4f,%.4f\n"
                "set title 'tail: fraction of waits with at least that overshoot'\n"
                "set ylabel 'fraction of waits (log)'\n"
                "set logscale y\nset format y '%%g'\nset ytics auto\n"
                "set yrange [%.6g:1.5]\n"
                "set key outside right top Left reverse\n",
            cdf_panel_share(), 1.0 - cdf_panel_share(), panel_h, p->least_tail / 2);
    cdf_curves(gp, p, "1:3", files);
    fprintf(gp, "unset multiplot\n");
}

/* The CDF plot of the trace, host and mode of arms[first].  A plot left
 * with no plan (every run made by another build) is not drawn. */
static int cdf_one(gar_db *db, const gar_arm_list *arms, size_t first, const char *dir,
                   gar_plot_files *files, gar_error *err)
{
    cdf_plot p = { .g = &arms->arm[first], .lo = INFINITY, .hi = 0, .least_tail = 1 };
    const gar_arm_summary *g = p.g;
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "cdf-%.80s-%.60s-%s", g->trace_short, g->host_short, g->mode);
    gar_plot_paths_name(&p.pf, base);
    FILE *dat = NULL, *gp = NULL;
    int rc = cdf_choose(arms, first, &p, err);
    if (rc == 0 && (dat = gar_plot_open_data(dir, &p.pf, err)) == NULL)
        rc = -GAR_E_IO;
    if (rc < 0)
        goto done;
    fprintf(dat, "# gar plot data: overshoot CDF, trace %s, host %s, %s loop.\n"
                 "# One block per plan: overshoot_us fraction_of_waits_at_most_that\n"
                 "# fraction_of_waits_at_least_that (the tail, 1 - CDF before the step).\n",
            g->trace_short, g->host_short, g->mode);
    for (size_t b = 0; rc == 0 && b < p.blocks; b++)
        rc = cdf_block(db, &p, b, dat, files, err);
    int closed = gar_plot_close(dat, p.pf.dat_path, err);
    dat = NULL;
    if (rc == 0)
        rc = closed;
    if (rc < 0)
        goto done;
    if (p.written == 0) {
        remove(p.pf.dat_path); /* no plan to draw: no header-only data file either */
        goto done;
    }
    if ((gp = gar_plot_open(dir, p.pf.gp, p.pf.gp_path, sizeof p.pf.gp_path, err)) == NULL) {
        rc = -GAR_E_IO;
        goto done;
    }
    cdf_write_script(&p, gp, files);
    rc = gar_plot_draw_and_list(dir, gp, &p.pf, files, g->trace, g->host, err,
             "Overshoot CDF per plan on trace %s, host %s (%s loop, seed %llu; plans with predict "
             "under adl or the first estimator): further left and higher is better; on the "
             "right the tail (the share of waits with at least that overshoot, log-log), "
             "where p99 is the height 0.01.",
             g->trace_short, g->host_short, g->mode, (unsigned long long)p.seed);
done:
    if (dat != NULL)
        fclose(dat);
    cdf_plot_free(&p);
    return rc;
}

int gar_plot_cdf(gar_db *db, const gar_arm_list *arms, const char *trace, const char *dir,
                 gar_plot_files *files, gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    gar_plot_palette_seed(files, arms);
    for (size_t i = 0; rc == 0 && i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (strcmp(a->trace, trace) != 0)
            continue;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(strcmp(arms->arm[j].trace, trace) == 0 &&
                      gar_plot_same_host_mode(&arms->arm[j], a));
        if (first)
            rc = cdf_one(db, arms, i, dir, files, err);
    }
    return rc;
}
