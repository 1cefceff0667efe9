/* experiments/report/plot_param.c — param-NAME-HOST-MODE: p99 overshoot and
 * busy CPU against a swept parameter, one line per plan family /
 * estimator family (plot.h). */
#include "report/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/bands.h>

#include "report/gnuplot_text.h"
#include "report/plot_arms.h"
#include "report/plot_draw.h"
#include "report/plot_layout.h"
#include "sweep/format.h"
#include "sweep/sweep_spec.h"

/* One ok run's value of one parameter, with what a parameter plot groups
 * it by. */
typedef struct param_point {
    char name[GAR_SWEEP_PARAM_NAME_BYTES];
    char host[GAR_RESULTS_TEXT]; /* the profile's short name, what-if terms left off */
    char mode[16];
    char line[GAR_RESULTS_TEXT]; /* plan family / estimator family */
    double x, p99_ns, busy;
} param_point;

static int by_param_group(const void *a, const void *b)
{
    const param_point *p = a, *q = b;
    int c = strcmp(p->name, q->name);
    if (c == 0)
        c = strcmp(p->host, q->host);
    if (c == 0)
        c = strcmp(p->mode, q->mode);
    if (c == 0)
        c = strcmp(p->line, q->line);
    if (c == 0 && p->x != q->x)
        c = p->x < q->x ? -1 : 1;
    return c;
}

static bool same_param_plot(const param_point *a, const param_point *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->host, b->host) == 0 &&
           strcmp(a->mode, b->mode) == 0;
}

/* "flag+predict" from a plan label (its parks, without their parameters;
 * bands as "bands block|32:flag+predict"), then " / ewma" from the
 * estimator label "ewma:alpha=0.25" ("-": none). */
static void line_label(const char *plan, const char *estimator, char *out, size_t size)
{
    gar_bands bands;
    size_t n = 0;
    if (gar_bands_parse(plan, &bands, NULL) < 0) {
        n += (size_t)gar_format(out, size, "%s", plan);
    } else {
        if (bands.count > 1)
            n += (size_t)gar_format(out, size, "bands ");
        for (uint32_t b = 0; b < bands.count && n < size; b++) {
            const gar_plan *p = &bands.band[b].plan;
            if (b > 0)
                n += (size_t)gar_format(out + n, size - n, "|%u:",
                                        (unsigned)bands.band[b].first_rows);
            if (n < size)
                n += (size_t)gar_format(out + n, size - n, "%s%s", gar_park_name(p->park),
                                        p->predict ? "+predict" : "");
        }
    }
    if (strcmp(estimator, GAR_SWEEP_NO_ESTIMATOR_LABEL) != 0 && n < size)
        gar_format(out + n, size - n, " / %.*s", (int)strcspn(estimator, ":"), estimator);
}

/* A parameter's name as part of a file name: '*' (a what-if factor) reads
 * "_scale", '@' "_at_", anything else not [A-Za-z0-9_] '_'. */
static void param_file_name(const char *name, char *out, size_t size)
{
    size_t n = 0;
    for (; *name != '\0' && n + 7 < size; name++) {
        char c = *name;
        if (c == '*')
            n += (size_t)gar_format(out + n, size - n, "_scale");
        else if (c == '@')
            n += (size_t)gar_format(out + n, size - n, "_at_");
        else
            out[n++] = (char)(((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                               (c >= '0' && c <= '9') || c == '_')
                                  ? c
                                  : '_');
    }
    out[n] = '\0';
}

/* Reads every numeric parameter of every ok run. */
static int read_param_points(gar_db *db, param_point **out, size_t *count, gar_error *err)
{
    static const char sql[] =
        "SELECT p.name, p.number, r.host_name, r.mode, r.plan, r.estimator,"
        " r.overshoot_p99_ns, r.busy_frac"
        " FROM run_params p JOIN runs r USING (trace, plan, estimator, host, mode, seed)"
        " WHERE r.status = 'ok' AND p.number IS NOT NULL";
    sqlite3 *sqlite = gar_db_sqlite(db);
    sqlite3_stmt *st = NULL;
    *out = NULL;
    *count = 0;
    if (sqlite3_prepare_v2(sqlite, sql, -1, &st, NULL) != SQLITE_OK)
        return gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), "read the parameters of",
                             sqlite3_errmsg(sqlite));
    size_t n = 0, cap = 0;
    param_point *pts = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t bigger = cap == 0 ? 256 : cap * 2;
            param_point *grown = realloc(pts, bigger * sizeof *grown);
            if (grown == NULL) {
                free(pts);
                sqlite3_finalize(st);
                return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the parameter plots",
                                     "exhausted");
            }
            pts = grown;
            cap = bigger;
        }
        param_point *p = &pts[n++];
        const char *host = (const char *)sqlite3_column_text(st, 2);
        char base[GAR_RESULTS_TEXT];
        gar_format(base, sizeof base, "%.*s", (int)strcspn(host != NULL ? host : "", "@"),
                   host != NULL ? host : "");
        gar_format(p->name, sizeof p->name, "%s", (const char *)sqlite3_column_text(st, 0));
        p->x = sqlite3_column_double(st, 1);
        gar_results_short_name(base, p->host, sizeof p->host);
        gar_format(p->mode, sizeof p->mode, "%s", (const char *)sqlite3_column_text(st, 3));
        line_label((const char *)sqlite3_column_text(st, 4),
                   (const char *)sqlite3_column_text(st, 5), p->line, sizeof p->line);
        p->p99_ns = sqlite3_column_double(st, 6);
        p->busy = sqlite3_column_double(st, 7);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(pts);
        return gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), "read the parameters of",
                             sqlite3_errmsg(sqlite));
    }
    if (n > 0) /* no parameters: pts may be NULL, which qsort may not be given */
        qsort(pts, n, sizeof *pts, by_param_group);
    *out = pts;
    *count = n;
    return 0;
}

/* The reach of a plot's points: x, p99 (bars included) and busy. */
typedef struct param_extent {
    double xlo, xhi, ylo, yhi, bhi;
} param_extent;

/* The lines of one plot (pts sorted by line): the first point of each into
 * `first` (room for n).  Returns their count. */
static size_t param_lines(const param_point *pts, size_t n, const param_point **first)
{
    size_t lines = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(pts[i].line, pts[i - 1].line) != 0)
            first[lines++] = &pts[i];
    return lines;
}

/* One line's block: a row per value of x (pts[0 .. n-1], sorted by x), the
 * mean of its runs with the least and the greatest. */
static void param_line_data(FILE *dat, const param_point *pts, size_t n, param_extent *e)
{
    fprintf(dat, "# line %s\n", pts[0].line);
    for (size_t k = 0; k < n;) {
        size_t m = k;
        double p99 = 0, busy = 0, p99_min = INFINITY, p99_max = 0, busy_min = INFINITY,
               busy_max = 0;
        while (m < n && pts[m].x == pts[k].x) {
            p99 += pts[m].p99_ns;
            busy += pts[m].busy;
            p99_min = fmin(p99_min, pts[m].p99_ns);
            p99_max = fmax(p99_max, pts[m].p99_ns);
            busy_min = fmin(busy_min, pts[m].busy);
            busy_max = fmax(busy_max, pts[m].busy);
            m++;
        }
        double runs = (double)(m - k), y = gar_plot_floor_us(p99 / runs / 1000.0),
               b = 100 * busy / runs;
        double y0 = gar_plot_floor_us(p99_min / 1000.0), y1 = gar_plot_floor_us(p99_max / 1000.0);
        fprintf(dat, "%.9g %.6g %.6g %zu %.6g %.6g %.6g %.6g\n", pts[k].x, y, b, m - k, y0, y1,
                100 * busy_min, 100 * busy_max);
        e->xlo = fmin(e->xlo, pts[k].x);
        e->xhi = fmax(e->xhi, pts[k].x);
        e->ylo = fmin(e->ylo, y0);
        e->yhi = fmax(e->yhi, y1);
        e->bhi = fmax(e->bhi, 100 * busy_max);
        k = m;
    }
    fprintf(dat, "\n\n");
}

/* The data file: a block per line.  Returns the extent of its points. */
static param_extent param_write_data(FILE *dat, const param_point *pts, size_t n,
                                     const param_point *const *first, size_t lines)
{
    const param_point *g = &pts[0];
    fprintf(dat, "# gar plot data: p99 overshoot and busy CPU against the swept parameter %s,\n"
                 "# host %s (its what-if variants included), %s loop.  One block per line\n"
                 "# (plan family / estimator): x p99_us busy_percent runs p99_min_us\n"
                 "# p99_max_us busy_min_percent busy_max_percent.  Each point is the mean\n"
                 "# over the ok runs with that value (seeds, traces and every other swept\n"
                 "# parameter's values), with the least and the greatest of them.\n",
            g->name, g->host, g->mode);
    param_extent e = { INFINITY, -INFINITY, INFINITY, 0, 0 };
    for (size_t l = 0; l < lines; l++) {
        size_t end = l + 1 < lines ? (size_t)(first[l + 1] - pts) : n;
        param_line_data(dat, first[l], end - (size_t)(first[l] - pts), &e);
    }
    return e;
}

/* The picture's height: the key under the panels takes rows of entries,
 * the first GAR_PARAM_KEY_ROWS_FREE within GAR_PARAM_H_PX, each further one
 * adding its height. */
static size_t param_height(const param_point *const *first, size_t lines)
{
    size_t longest = 1;
    for (size_t l = 0; l < lines; l++)
        longest = strlen(first[l]->line) > longest ? strlen(first[l]->line) : longest;
    /* Each of the two panels has its key under it, half the width. */
    size_t per_row =
        GAR_PARAM_W_PX / 2 / (longest * GAR_PARAM_KEY_CHAR_PX + GAR_PARAM_KEY_SAMPLE_PX);
    per_row = per_row < 1 ? 1 : per_row;
    size_t rows = (lines + per_row - 1) / per_row;
    return GAR_PARAM_H_PX +
           (rows > GAR_PARAM_KEY_ROWS_FREE ? (rows - GAR_PARAM_KEY_ROWS_FREE) * GAR_PARAM_KEY_ROW_PX
                                           : 0);
}

/* One panel's `plot`: every line, its columns `using`. */
static void param_curves(FILE *gp, const gar_plot_paths *pf, const param_point *const *first,
                         size_t lines, const char *using, gar_plot_files *files)
{
    fprintf(gp, "plot");
    for (size_t l = 0; l < lines; l++) {
        char t[GAR_RESULTS_TEXT * 2];
        gar_gnuplot_double(first[l]->line, t, sizeof t);
        gar_plot_style st = gar_plot_style_for(gar_plot_palette_of(files), first[l]->line);
        fprintf(gp, "%s '%s' index %zu using %s with yerrorlines pt 7 ps 1.2 lw 2 dt %d "
                    "lc rgb '%s' title \"%s\"",
                l > 0 ? ", \\\n    " : " ", pf->dat, l, using, st.dash, st.colour, t);
    }
}

/* The script: p99 (log) and busy CPU panels side by side, the key under. */
static void param_write_script(FILE *gp, const gar_plot_paths *pf, const param_point *g,
                               const param_point *const *first, size_t lines,
                               const param_extent *e, gar_plot_files *files)
{
    char name[GAR_SWEEP_PARAM_NAME_BYTES * 3], host[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(g->name, name, sizeof name);
    gar_gnuplot_double(g->host, host, sizeof host);
    bool log_x = e->xlo > 0 && e->xhi / e->xlo >= 20;
    fprintf(gp,
            "# gar plot: p99 overshoot and busy CPU against %s, one line per plan family /\n"
            "# estimator (the mean over seeds, traces and the other swept values; bars:\n"
            "# the least and the greatest of those runs).\n"
            "# Host %s, %s loop.  Data: %s.  Re-draw: gnuplot %s\n",
            g->name, g->host, g->mode, pf->dat, pf->gp);
    gar_plot_terminal(gp, GAR_PARAM_W_PX, param_height(first, lines), pf->png);
    fprintf(gp,
            "set multiplot layout 1,2 title \"Against %s: host %s, %s loop\" font ',14'\n"
            "set grid\nset xlabel \"%s\"\nset format x '%%g'\nset format y '%%g'\n"
            "set key outside bottom center horizontal font ',10'\n%s"
            "set xrange [%.9g:%.9g]\n",
            name, host, g->mode, name, log_x ? "set logscale x\n" : "",
            log_x ? e->xlo / 1.2 : e->xlo - (e->xhi - e->xlo) * 0.05 - 1e-9,
            log_x ? e->xhi * 1.2 : e->xhi + (e->xhi - e->xlo) * 0.05 + 1e-9);
    /* At least 1.5 decades, so a flat line still has a labelled tick. */
    double lo = e->ylo / 1.6, hi = e->yhi * 1.6;
    if (hi / lo < 30) {
        double widen = sqrt(30 / (hi / lo));
        lo /= widen;
        hi *= widen;
    }
    fprintf(gp, "\nset title 'p99 overshoot'\nset ylabel 'p99 overshoot (µs, log)'\n"
                "set logscale y\nset yrange [%.6g:%.6g]\n",
            lo, hi);
    param_curves(gp, pf, first, lines, "1:2:5:6", files);
    fprintf(gp, "\n\nset title 'busy CPU'\nset ylabel 'busy CPU (%% of wait time)'\n"
                "unset logscale y\nset yrange [0:%.6g]\n",
            e->bhi * 1.1 > 100 ? 105.0 : e->bhi * 1.1 + 0.01);
    param_curves(gp, pf, first, lines, "1:3:7:8", files);
    fprintf(gp, "\nunset multiplot\n");
}

/* One param-NAME-HOST-MODE plot from pts[0 .. n-1] (one name, host, mode;
 * sorted by line, then x).  Refuses more lines than styles. */
static int param_one(const param_point *pts, size_t n, const char *dir, gar_plot_files *files,
                     gar_error *err)
{
    const param_point *g = &pts[0];
    char file_name[GAR_SWEEP_PARAM_NAME_BYTES * 3], base[GAR_PLOT_NAME_BYTES - 16];
    param_file_name(g->name, file_name, sizeof file_name);
    gar_format(base, sizeof base, "param-%s-%s-%s", file_name, g->host, g->mode);
    gar_plot_paths pf;
    gar_plot_paths_name(&pf, base);
    FILE *dat = NULL, *gp = NULL;
    int rc = 0;
    const param_point **first = malloc(n * sizeof *first);
    if (first == NULL) {
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the parameter plots", "exhausted");
        goto done;
    }
    size_t lines = param_lines(pts, n, first);
    if (lines > GAR_PLOT_STYLES) {
        rc = gar_plot_refuse_styles(err, "lines in one parameter plot");
        goto done;
    }
    if ((dat = gar_plot_open_data(dir, &pf, err)) == NULL) {
        rc = -GAR_E_IO;
        goto done;
    }
    param_extent e = param_write_data(dat, pts, n, first, lines);
    gp = gar_plot_script_after_data(dir, dat, &pf, err); /* closes dat */
    dat = NULL;
    if (gp == NULL) {
        rc = -GAR_E_IO;
        goto done;
    }
    param_write_script(gp, &pf, g, first, lines, &e, files);
    rc = gar_plot_draw_and_list(dir, gp, &pf, files, "", "", err,
               "p99 overshoot and busy CPU against the swept parameter %s on host %s (%s loop, "
               "what-if variants included): one line per plan family / estimator, each point "
               "the mean over the runs with that value (seeds, traces, other swept values), its "
               "bar from the least to the greatest of them.",
               g->name, g->host, g->mode);
done:
    free(first);
    return rc;
}

int gar_plot_params(gar_db *db, const char *dir, gar_plot_files *files, gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    param_point *pts = NULL;
    size_t n = 0;
    if (rc == 0)
        rc = read_param_points(db, &pts, &n, err);
    for (size_t i = 0; rc == 0 && i < n;) {
        size_t j = i;
        bool varies = false;
        while (j < n && same_param_plot(&pts[j], &pts[i])) {
            varies |= pts[j].x != pts[i].x;
            j++;
        }
        /* A parameter with one value here has nothing to draw against. */
        if (varies)
            rc = param_one(&pts[i], j - i, dir, files, err);
        i = j;
    }
    free(pts);
    return rc;
}
