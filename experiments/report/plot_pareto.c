/* experiments/report/plot_pareto.c — pareto-HOST-MODE: busy CPU against p99
 * overshoot, one point per arm, one panel per trace (plot.h). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "report/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/gnuplot_text.h"
#include "report/plot_arms.h"
#include "report/plot_coincident.h"
#include "report/plot_draw.h"
#include "report/plot_layout.h"
#include "sweep/format.h"
#include "sweep/number_text.h"
#include "sweep/sweep_spec.h"

/* One point type per estimator (colours and dashes: plot_style.h), filled
 * shapes first; `none` and `oracle` get a plus and a cross, which
 * stay visible on top of a filled point. */
static const int estimator_points[] = { 7, 5, 9, 11, 13, 1, 2, 4, 6, 8, 10, 12 };
#define POINTS (sizeof estimator_points / sizeof estimator_points[0])

/* The legend's entries are at least as long as its longest fixed one,
 * "oracle (a bound: off the frontier)": its columns are sized to that. */
#define PARETO_KEY_FIXED_CHARS 34
/* The legend's fixed entries: the frontier, the bars, and the two headers
 * ("colour: plan", "shape: estimator"). */
#define PARETO_KEY_FIXED_ENTRIES 4

typedef struct point {
    double x, y;
} point;

static int by_x_then_y(const void *a, const void *b)
{
    const point *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y > q->y) - (p->y < q->y);
}

/* The points no other point beats on both axes (lower is better on both),
 * ordered by x; written into `out`, their count returned. */
static size_t pareto_frontier(point *pts, size_t n, point *out)
{
    qsort(pts, n, sizeof *pts, by_x_then_y);
    size_t m = 0;
    double best_y = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (pts[i].y < best_y) {
            best_y = pts[i].y;
            out[m++] = pts[i];
        }
    return m;
}

/* Where an arm is drawn: its mean p99 (µs) and busy CPU (%), floored for
 * the log axes. */
static double busy_percent(const gar_arm_summary *a)
{
    return gar_plot_floor_percent(100.0 * a->busy_frac);
}

static double p99_us(const gar_arm_summary *a)
{
    return gar_plot_floor_us(a->p99_ns / 1000.0);
}

/* A panel's axes from the extent of its points and bars: x log with room
 * either side; y log when it spans more than two decades, else linear from
 * 0; never past 100 % by much. */
static gar_plot_axes pareto_axes(double xlo, double xhi, double ylo, double yhi, double panel_w_px,
                                 double panel_h_px)
{
    gar_plot_axes a;
    a.x_lo = xlo / 1.6;
    a.x_hi = xhi * 1.6;
    a.log_y = yhi > 0 && ylo > 0 && yhi / ylo > 100;
    if (a.log_y) {
        a.y_lo = ylo / 2;
        a.y_hi = yhi * 2 > 100 ? 200.0 : yhi * 2;
    } else {
        a.y_lo = 0;
        a.y_hi = yhi * 1.1 > 100 ? 105.0 : yhi * 1.1 + 1;
    }
    a.width_px = panel_w_px - GAR_PARETO_AREA_MARGIN_W_PX;
    a.height_px = panel_h_px - GAR_PARETO_AREA_MARGIN_H_PX;
    return a;
}

/* The complete arms of one panel, where they are drawn. */
typedef struct panel_spots {
    size_t n;
    double *x, *y;
    size_t *arm;   /* index into the arm list */
    size_t *group; /* gar_plot_coincident's groups */
} panel_spots;

/* Writes the arms of group `grp` of a panel to `listing` as one line, arms
 * of one plan together: "block; bands block|32:flag+predict / adl, none". */
static void list_group_arms(FILE *listing, const gar_arm_list *arms, const panel_spots *s,
                            size_t grp, const gar_plot_shown *plans)
{
    const char *last_plan = NULL;
    for (size_t i = 0; i < s->n; i++) {
        if (s->group[i] != grp)
            continue;
        const gar_arm_summary *a = &arms->arm[s->arm[i]];
        bool no_estimator = strcmp(a->estimator, GAR_SWEEP_NO_ESTIMATOR_LABEL) == 0;
        if (last_plan != NULL && strcmp(last_plan, a->plan) == 0) {
            fprintf(listing, ", %s", a->estimator);
        } else {
            fprintf(listing, "%s%s%s%s", last_plan != NULL ? "; " : "",
                    plans->name[gar_plot_shown_find(plans, a->plan)], no_estimator ? "" : " / ",
                    no_estimator ? "" : a->estimator);
            last_plan = a->plan;
        }
    }
}

/* Rings the groups of two arms or more of one panel: a block of `marks`
 * (x y "tag×count" per group) and a line each in `listing` ("TRACE TAG
 * (N arms at p99 .., busy ..): arm; arm").  Returns the groups marked. */
static size_t mark_coincident(const gar_arm_list *arms, const panel_spots *s,
                              const gar_plot_axes *axes, const char *trace_name,
                              const gar_plot_shown *plans, FILE *marks, FILE *listing)
{
    size_t groups = gar_plot_coincident(s->x, s->y, s->n, axes, s->group), marked = 0;
    for (size_t grp = 0; grp < groups; grp++) {
        size_t count = 0, at = 0;
        for (size_t i = 0; i < s->n; i++)
            if (s->group[i] == grp && count++ == 0)
                at = i;
        if (count < 2)
            continue;
        char tag[16], p99[32], busy[32];
        gar_plot_tag(marked++, tag, sizeof tag);
        fprintf(marks, "%.6g %.6g \"%s×%zu\"\n", s->x[at], s->y[at], tag, count);
        gar_duration_text(s->x[at] * 1000.0, p99, sizeof p99);
        gar_percent_text(s->y[at], busy, sizeof busy);
        fprintf(listing, "%s %s (%zu arms at p99 %s, busy %s): ", trace_name, tag, count, p99,
                busy);
        list_group_arms(listing, arms, s, grp, plans);
        fprintf(listing, "\n");
    }
    return marked;
}

/* One panel's block of the data file: a line per complete arm of trace
 * `trace` in the group of arms[first].  Fills `pts` with the frontier's
 * candidates (their count returned), `spots` with every arm drawn, and
 * `extent` (x lo, x hi, y lo, y hi: start at INFINITY, 0, INFINITY, 0)
 * with the reach of the points and bars. */
static size_t pareto_trace_arms(const gar_arm_list *arms, size_t first, const char *trace,
                                const gar_plot_shown *plans, FILE *dat, point *pts,
                                panel_spots *spots, double extent[4])
{
    const gar_arm_summary *g = &arms->arm[first];
    size_t n = 0;
    for (size_t i = first; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (!gar_plot_same_host_mode(a, g) || strcmp(a->trace, trace) != 0 ||
            !gar_plot_arm_complete(a))
            continue;
        double x = p99_us(a), y = busy_percent(a);
        double x0 = gar_plot_floor_us(fmin(a->p99_min_ns, a->p99_ns) / 1000.0);
        double x1 = fmax(a->p99_max_ns, a->p99_ns) / 1000.0;
        if (a->has_ci) {
            x0 = gar_plot_floor_us(fmin(x0 * 1000.0, a->p99_lo_ns) / 1000.0);
            x1 = fmax(x1, a->p99_hi_ns / 1000.0);
        }
        double y0 = gar_plot_floor_percent(100.0 * fmin(a->busy_min, a->busy_frac));
        double y1 = gar_plot_floor_percent(100.0 * fmax(a->busy_max, a->busy_frac));
        fprintf(dat, "%.6g %.6g %.6g %.6g %.6g %.6g %ld %d \"%s / %s\"\n", x, y, x0,
                isinf(x1) ? GAR_PLOT_UNBOUNDED_US : x1, y0, y1, gar_plot_shown_find(plans, a->plan),
                estimator_points[a->estimator_rank % POINTS],
                plans->name[gar_plot_shown_find(plans, a->plan)], a->estimator);
        /* The oracle knows each residual in advance: a bound, drawn but
         * kept off the frontier of what a policy can reach. */
        if (strcmp(a->estimator, "oracle") != 0)
            pts[n++] = (point){ x, y };
        spots->x[spots->n] = x;
        spots->y[spots->n] = y;
        spots->arm[spots->n++] = i;
        extent[0] = fmin(extent[0], x0);
        extent[1] = fmax(extent[1], isinf(x1) ? x : x1);
        extent[2] = fmin(extent[2], y0);
        extent[3] = fmax(extent[3], y1);
    }
    return n;
}

/* One pareto plot of the arms of one host and mode (those equal to `first`). */
/* One panel of a pareto plot: a trace of its host and mode. */
typedef struct pareto_panel {
    const char *trace; /* content hash */
    const char *name;  /* short name */
    double extent[4];  /* x lo, x hi, y lo, y hi of its points and bars */
    gar_plot_axes axes;
    long marks_at; /* its block of rings in the data file, -1: none */
} pareto_panel;

/* What one pareto plot draws, gathered before a file is written. */
typedef struct pareto_plot {
    const gar_arm_list *arms;
    size_t first;              /* the first arm of the host and mode */
    const gar_arm_summary *g;  /* that arm */
    gar_plot_paths pf;
    pareto_panel *panel;       /* one per trace, in arm order */
    size_t panels, group_arms; /* the count of panels, and of arms in all */
    gar_plot_shown *plans;     /* named among themselves */
    const char **estimator;    /* by estimator rank; NULL: none in the plot */
    unsigned estimators;       /* the greatest estimator rank + 1 */
    size_t cols, rows, width;  /* the grid of panels, the picture's width */
    bool any_ci;        /* the bars hold stored intervals, not only the seeds' spread */
    bool any_unbounded; /* a bar runs off the right edge: say why */
    size_t marks_blocks; /* panels with a ring */
    char *listing;       /* the ringed arms, a line a group (gar_plot_file.listing) */
    size_t listing_len;
} pareto_plot;

static void pareto_plot_free(pareto_plot *p)
{
    free(p->panel);
    free(p->plans);
    free(p->estimator);
    free(p->listing);
}

static int pareto_no_memory(gar_error *err)
{
    return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a pareto plot", "exhausted");
}

/* Starts a panel when arm `a` starts a trace (arms come by trace).
 * Returns 0, or -1 without memory. */
static int pareto_add_panel(pareto_plot *p, const gar_arm_summary *a, size_t *capacity)
{
    if (p->panels > 0 && strcmp(p->panel[p->panels - 1].trace, a->trace) == 0)
        return 0;
    if (p->panels == *capacity) {
        size_t bigger = *capacity == 0 ? 8 : 2 * *capacity;
        pareto_panel *grown = realloc(p->panel, bigger * sizeof *grown);
        if (grown == NULL)
            return -1;
        p->panel = grown;
        *capacity = bigger;
    }
    p->panel[p->panels++] = (pareto_panel){ .trace = a->trace,
                                            .name = a->trace_short,
                                            .extent = { INFINITY, 0, INFINITY, 0 },
                                            .marks_at = -1 };
    return 0;
}

/* The traces of the host and mode (the panels, in arm order), its plans
 * named among themselves and the estimators present (for the legend).
 * Returns 0 or -GAR_E_CAPACITY (more plans than styles, or no memory). */
static int pareto_gather(pareto_plot *p, gar_error *err)
{
    p->plans = calloc(1, sizeof *p->plans);
    if (p->plans == NULL)
        return pareto_no_memory(err);
    size_t capacity = 0;
    for (size_t i = p->first; i < p->arms->count; i++) {
        const gar_arm_summary *a = &p->arms->arm[i];
        if (!gar_plot_same_host_mode(a, p->g))
            continue;
        p->group_arms++;
        if (pareto_add_panel(p, a, &capacity) < 0)
            return pareto_no_memory(err);
        if (gar_plot_shown_add(p->plans, a->plan, a->plan_rank) < 0)
            return gar_plot_refuse_styles(err, "plans in one pareto plot");
        if (a->estimator_rank + 1 > p->estimators)
            p->estimators = a->estimator_rank + 1;
        p->any_ci |= a->has_ci;
        p->any_unbounded |= a->has_ci && gar_plot_arm_complete(a) && isinf(a->p99_hi_ns);
    }
    p->estimator = calloc(p->estimators, sizeof *p->estimator);
    if (p->estimator == NULL)
        return pareto_no_memory(err);
    for (size_t i = p->first; i < p->arms->count; i++)
        if (gar_plot_same_host_mode(&p->arms->arm[i], p->g))
            p->estimator[p->arms->arm[i].estimator_rank] = p->arms->arm[i].estimator;
    gar_plot_shown_name(p->plans);
    /* The panels in a grid (their size first: it says which points hide
     * each other).  The title is on two lines, the first as wide as the
     * host's name makes it: a what-if host's long name ran off both edges
     * of a one-panel image. */
    p->cols = gar_plot_grid_columns(p->panels);
    p->rows = (p->panels + p->cols - 1) / p->cols;
    p->width = GAR_PARETO_PANEL_W_PX * (p->cols < 2 ? 2 : p->cols);
    size_t title_px = (strlen("Busy CPU against p99 overshoot: host , open loop") +
                       strlen(p->g->host_short)) * GAR_PARETO_TITLE_CHAR_PX +
                      GAR_PARETO_TITLE_PAD_PX;
    p->width = title_px > p->width ? title_px : p->width;
    return 0;
}

static void pareto_data_header(FILE *dat, const gar_arm_summary *g)
{
    fprintf(dat, "# gar plot data: busy CPU against p99 overshoot, host %s, %s loop.\n"
                 "# Per trace two blocks: the arms (p99_us busy_percent p99_lo_us p99_hi_us"
                 " busy_lo_percent busy_hi_percent plan estimator_point \"plan / estimator\"),"
                 " then the Pareto frontier (p99_us busy_percent).\n"
                 "# Means over seeds, with the interval the report ranks by: p99 from the least"
                 " to the greatest seed, widened to the seeds' 95 %% intervals where stored,"
                 " busy from the least to the most seed; an interval without an upper end is"
                 " written %g.\n"
                 "# Values below %g µs or %g %% are drawn at that floor (log axes).\n"
                 "# Arms with a failed run are left out.\n",
            g->host_short, g->mode, GAR_PLOT_UNBOUNDED_US, GAR_PLOT_LOG_FLOOR_US,
            GAR_PLOT_LOG_FLOOR_PERCENT);
}

/* Panel `t`'s two blocks (its arms, its frontier), its axes, and its rings:
 * a block in `marks`, their arms in `listing`.  `pts` and `front` have room
 * for every arm of the plot, and so has `spots`. */
static void pareto_panel_data(pareto_plot *p, size_t t, FILE *dat, point *pts, point *front,
                              panel_spots *spots, FILE *marks, FILE *listing)
{
    pareto_panel *pn = &p->panel[t];
    spots->n = 0;
    fprintf(dat, "# trace %s\n", pn->name);
    size_t n = pareto_trace_arms(p->arms, p->first, pn->trace, p->plans, dat, pts, spots,
                                 pn->extent);
    fprintf(dat, "\n\n# frontier %s\n", pn->name);
    size_t m = pareto_frontier(pts, n, front);
    for (size_t k = 0; k < m; k++)
        fprintf(dat, "%.6g %.6g\n", front[k].x, front[k].y);
    fprintf(dat, "\n\n");
    pn->axes = pareto_axes(pn->extent[0], pn->extent[1], pn->extent[2], pn->extent[3],
                           (double)p->width / (double)p->cols, (double)GAR_PARETO_PANEL_H_PX);
    if (mark_coincident(p->arms, spots, &pn->axes, pn->name, p->plans, marks, listing) > 0) {
        pn->marks_at = (long)(2 * p->panels + p->marks_blocks++);
        fprintf(marks, "\n\n");
    }
}

/* The data file: every panel's two blocks, then the rings' blocks (x y
 * "tag×count"); the ringed arms into p->listing.  Returns 0 or
 * -GAR_E_CAPACITY (no memory). */
static int pareto_write_data(pareto_plot *p, FILE *dat, gar_error *err)
{
    size_t n = p->group_arms;
    int rc = 0;
    bool lost = false;
    char *marks_text = NULL;
    size_t marks_len = 0;
    point *pts = malloc(2 * n * sizeof *pts);
    double *xy = malloc(2 * n * sizeof *xy);
    size_t *at = malloc(2 * n * sizeof *at);
    FILE *marks = open_memstream(&marks_text, &marks_len);
    FILE *listing = open_memstream(&p->listing, &p->listing_len);
    if (pts == NULL || xy == NULL || at == NULL || marks == NULL || listing == NULL) {
        rc = pareto_no_memory(err);
        goto done;
    }
    pareto_data_header(dat, p->g);
    panel_spots spots = { 0, xy, xy + n, at, at + n };
    for (size_t t = 0; t < p->panels; t++)
        pareto_panel_data(p, t, dat, pts, pts + n, &spots, marks, listing);
done:
    if (marks != NULL)
        lost |= fclose(marks) != 0;
    if (listing != NULL)
        lost |= fclose(listing) != 0;
    if (rc == 0 && lost)
        rc = pareto_no_memory(err);
    if (rc == 0 && marks_len > 0)
        fprintf(dat, "# coincident arms: per panel with any, x y \"tag×count\" of each group\n%s",
                marks_text);
    free(marks_text);
    free(pts);
    free(xy);
    free(at);
    return rc;
}

/* The script's head: what it draws, the picture, the title. */
static void pareto_script_head(const pareto_plot *p, FILE *gp, size_t height)
{
    const gar_arm_summary *g = p->g;
    char host[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(g->host_short, host, sizeof host);
    fprintf(gp,
            "# gar plot: busy CPU against p99 overshoot, one panel per trace.\n"
            "# Host %s, %s loop; each point is an arm (plan / estimator), the mean over\n"
            "# its seeds, its bars the intervals the report ranks by; the dashed staircase\n"
            "# is the Pareto frontier (nothing is better on both axes; the oracle, a bound,\n"
            "# is left off it).  Data: %s.  Re-draw: gnuplot %s\n",
            g->host_short, g->mode, p->pf.dat, p->pf.gp);
    gar_plot_terminal(gp, p->width, height, p->pf.png);
    fprintf(gp,
            "set multiplot title \"Busy CPU against p99 overshoot: host %s, %s loop"
            "\\n{/*0.8 mean over seeds, bars: %s}\" font ',14'\n"
            "set grid\n"
            "unset key\n"
            "set xlabel 'p99 overshoot (µs, log)'\n"
            "set ylabel 'busy CPU (%% of wait time)'\n"
            "set format x '%%g'\n"
            "set format y '%%g'\n",
            host, g->mode, p->any_ci ? "spread and 95 % intervals" : "seeds' spread");
}

/* Panel `t`: its axes, the frontier, each plan's bars and points, and its
 * rings (a ring round arms on one point, its tag with their count). */
static void pareto_panel_script(const pareto_plot *p, size_t t, FILE *gp, double top,
                                double panel_h, gar_plot_files *files)
{
    const pareto_panel *pn = &p->panel[t];
    const gar_plot_axes *ax = &pn->axes;
    char title[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_single(pn->name, title, sizeof title);
    gar_plot_panel_place(gp, t, p->cols, top, panel_h);
    fprintf(gp, "set title '%s'\nset logscale x\nunset label 1\n", title);
    bool empty = !(pn->extent[1] > 0 && pn->extent[0] > 0); /* every arm of the trace failed */
    if (!empty)
        fprintf(gp, "set xrange [%.6g:%.6g]\n", ax->x_lo, ax->x_hi);
    fprintf(gp, "%s\nset ylabel 'busy CPU (%% of wait time%s)'\nset yrange [%.6g:%.6g]\n",
            ax->log_y ? "set logscale y" : "unset logscale y", ax->log_y ? ", log" : "",
            ax->y_lo, ax->y_hi);
    if (empty) { /* nothing to draw, and gnuplot cannot autoscale an empty log axis */
        fprintf(gp, "set xrange [1:10]\nset label 1 'every arm has a failed run'"
                    " at graph 0.5, graph 0.5 center\nplot NaN notitle\n");
        return;
    }
    fprintf(gp, "plot '%s' index %zu using 1:2 with steps dt 2 lw 1.5 lc rgb '#555555'",
            p->pf.dat, 2 * t + 1);
    for (size_t k = 0; k < p->plans->count; k++) {
        gar_plot_style st = gar_plot_style_for(gar_plot_palette_of(files), p->plans->plan[k]);
        fprintf(gp,
                ", \\\n     '' index %zu using ($7 == %zu ? $1 : NaN):2:3:4:5:6"
                " with xyerrorbars ps 0 lw 1 dt %d lc rgb '%s'"
                ", \\\n     '' index %zu using ($7 == %zu ? $1 : NaN):2:8 with points"
                " pt variable ps 1.7 lw 1.5 lc rgb '%s'",
                2 * t, k, st.dash, st.colour, 2 * t, k, st.colour);
    }
    if (pn->marks_at >= 0)
        fprintf(gp, ", \\\n     '' index %ld using 1:2 with points pt 6 ps 3.4 lw 1.5"
                    " lc rgb '#000000'"
                    ", \\\n     '' index %ld using 1:2:3 with labels left offset 1.6,1.1"
                    " font ',10' tc rgb '#000000'",
                pn->marks_at, pn->marks_at);
    fprintf(gp, "\n");
}

/* The legend's rows: its entries in as many columns as the width holds. */
static size_t pareto_key_rows(const pareto_plot *p)
{
    size_t longest = PARETO_KEY_FIXED_CHARS;
    size_t entries = PARETO_KEY_FIXED_ENTRIES + p->plans->count;
    for (size_t k = 0; k < p->plans->count; k++)
        longest = strlen(p->plans->name[k]) > longest ? strlen(p->plans->name[k]) : longest;
    for (unsigned e = 0; e < p->estimators; e++)
        if (p->estimator[e] != NULL) {
            entries++;
            longest = strlen(p->estimator[e]) > longest ? strlen(p->estimator[e]) : longest;
        }
    size_t key_cols = p->width / (longest * GAR_PARETO_KEY_CHAR_PX + GAR_PARETO_KEY_SAMPLE_PX);
    key_cols = key_cols < 1 ? 1 : key_cols;
    return (entries + (p->marks_blocks > 0) + key_cols - 1) / key_cols;
}

/* The legend strip: colours (and after sixteen plans, dashes) are plans,
 * point shapes are estimators. */
static void pareto_legend_script(const pareto_plot *p, FILE *gp, double share, size_t key_rows,
                                 gar_plot_files *files)
{
    gar_plot_legend_strip(gp, share, true);
    fprintf(gp, "set key center center vertical Left reverse box spacing 1.2 font ',11'"
                " maxrows %zu\nplot NaN notitle", key_rows);
    fprintf(gp, ", \\\n     keyentry with lines dt 2 lw 1.5 lc rgb '#555555' title 'Pareto frontier'");
    fprintf(gp, ", \\\n     keyentry with lines lw 1 lc rgb '#333333' title 'bars: %s'",
            p->any_ci ? "seeds'' spread, 95 % intervals" : "seeds'' spread");
    if (p->marks_blocks > 0)
        fprintf(gp, ", \\\n     keyentry with points pt 6 ps 1.7 lw 1.5 lc rgb '#000000'"
                    " title 'tag×N: N arms on one point'");
    fprintf(gp, ", \\\n     keyentry with points pt -1 lc rgb 'white' title '{/:Bold colour: plan}'");
    for (size_t k = 0; k < p->plans->count; k++) {
        char t[GAR_RESULTS_TEXT * 2];
        gar_gnuplot_single(p->plans->name[k], t, sizeof t);
        gar_plot_style st = gar_plot_style_for(gar_plot_palette_of(files), p->plans->plan[k]);
        fprintf(gp, ", \\\n     keyentry with linespoints pt 7 ps 1.7 dt %d lc rgb '%s' title '%s'",
                st.dash, st.colour, t);
    }
    fprintf(gp, ", \\\n     keyentry with points pt -1 lc rgb 'white' title '{/:Bold shape: estimator}'");
    for (unsigned e = 0; e < p->estimators; e++) {
        if (p->estimator[e] == NULL)
            continue;
        char t[GAR_RESULTS_TEXT * 2];
        bool none = strcmp(p->estimator[e], GAR_SWEEP_NO_ESTIMATOR_LABEL) == 0;
        bool oracle = strcmp(p->estimator[e], "oracle") == 0;
        gar_gnuplot_single(none     ? "- (plan without predict)"
                           : oracle ? "oracle (a bound: off the frontier)"
                                    : p->estimator[e],
                           t, sizeof t);
        fprintf(gp, ", \\\n     keyentry with points pt %d ps 1.7 lw 1.5 lc rgb '#333333' title '%s'",
                estimator_points[e % POINTS], t);
    }
    fprintf(gp, "\nunset multiplot\n");
}

/* The script: the panels in their grid over the legend strip, the title
 * above; the picture as tall as the legend's rows need. */
static void pareto_write_script(const pareto_plot *p, FILE *gp, gar_plot_files *files)
{
    size_t key_rows = pareto_key_rows(p);
    size_t legend_h = key_rows * GAR_PARETO_KEY_ROW_PX + GAR_PARETO_KEY_PAD_PX;
    size_t height = GAR_PARETO_PANEL_H_PX * p->rows + legend_h + GAR_PARETO_TITLE_H_PX;
    double top = 1.0 - (double)GAR_PARETO_TITLE_H_PX / (double)height,
           legend = (double)legend_h / (double)height;
    pareto_script_head(p, gp, height);
    for (size_t t = 0; t < p->panels; t++)
        pareto_panel_script(p, t, gp, top, (top - legend) / (double)p->rows, files);
    pareto_legend_script(p, gp, legend, key_rows, files);
}

/* One pareto plot of the arms of one host and mode (those equal to `first`). */
static int pareto_one(const gar_arm_list *arms, size_t first, const char *dir,
                      gar_plot_files *files, gar_error *err)
{
    pareto_plot p = { .arms = arms, .first = first, .g = &arms->arm[first] };
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "pareto-%s-%s", p.g->host_short, p.g->mode);
    gar_plot_paths_name(&p.pf, base);
    FILE *dat = NULL, *gp = NULL;
    int rc = pareto_gather(&p, err);
    if (rc == 0 && (dat = gar_plot_open_data(dir, &p.pf, err)) == NULL)
        rc = -GAR_E_IO;
    if (rc == 0)
        rc = pareto_write_data(&p, dat, err);
    if (rc == 0) {
        gp = gar_plot_script_after_data(dir, dat, &p.pf, err); /* closes dat */
        dat = NULL;
        if (gp == NULL)
            rc = -GAR_E_IO;
    }
    if (rc < 0)
        goto done;
    pareto_write_script(&p, gp, files);
    rc = gar_plot_draw_and_list(dir, gp, &p.pf, files, "", p.g->host, err,
             "Busy CPU against p99 overshoot on host %s (%s loop): one point per arm, the mean "
             "over its seeds, its bars the %s (the report's ties are where they overlap); the "
             "dashed staircase is the Pareto frontier.%s%s",
             p.g->host_short, p.g->mode,
             p.any_ci ? "seeds' spread widened to their 95 % intervals" : "seeds' spread",
             p.any_unbounded ? " A bar that runs off the right edge has no upper end: its runs "
                               "had too few waits to bound a p99 from above."
                             : "",
             p.marks_blocks > 0 ? " A ring tagged a×N marks N arms drawn on one point, hiding "
                                  "each other: they are listed below."
                                : "");
    if (rc == 0 && p.listing_len > 0) { /* the plot's list now owns it */
        files->file[files->count - 1].listing = p.listing;
        p.listing = NULL;
    }
done:
    if (dat != NULL)
        fclose(dat);
    pareto_plot_free(&p);
    return rc;
}

int gar_plot_pareto(const gar_arm_list *arms, const char *dir, gar_plot_files *files,
                    gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    gar_plot_palette_seed(files, arms);
    for (size_t i = 0; rc == 0 && i < arms->count; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !gar_plot_same_host_mode(&arms->arm[j], &arms->arm[i]);
        if (first)
            rc = pareto_one(arms, i, dir, files, err);
    }
    return rc;
}
