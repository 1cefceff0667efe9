/* experiments/report/plot_auto.c — auto-HOST-MODE: busy CPU against the p99
 * budget, auto beside the fixed plans, a panel per trace (plot.h). */
#include "report/plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/gnuplot_text.h"
#include "report/plot_arms.h"
#include "report/plot_draw.h"
#include "report/plot_layout.h"
#include "sweep/auto_goals.h"
#include "sweep/format.h"

/* The four series of a panel: the arm of a cell each draws, its title and
 * its palette label (poll and block as the plans they are, so they match
 * the other plots), and how it is drawn. */
#define AUTO_SERIES 4
static const char *const auto_series_title[AUTO_SERIES] = { "auto", "best fixed", "poll",
                                                            "block" };
static const char *const auto_series_label[AUTO_SERIES] = { "auto", "best fixed arm", "poll",
                                                            "block" };
static const char *const auto_series_draw[AUTO_SERIES] = {
    "linespoints lw 2 pt 7 ps 1.2", "linespoints lw 2 pt 5 ps 1.1", "lines lw 1.5",
    "lines lw 1.5"
};

static const gar_arm_summary *auto_series_arm(const gar_auto_cell *c, int k)
{
    const gar_arm_summary *arm[AUTO_SERIES] = { c->autoa, c->best, c->poll, c->block };
    return arm[k];
}

static bool same_auto_plot(const gar_auto_cell *a, const gar_auto_cell *b)
{
    return strcmp(a->any->host, b->any->host) == 0 && strcmp(a->any->mode, b->any->mode) == 0;
}

static int by_budget(const void *a, const void *b)
{
    const gar_auto_cell *const *p = a, *const *q = b;
    return ((*p)->budget_ns > (*q)->budget_ns) - ((*p)->budget_ns < (*q)->budget_ns);
}

/* The cells of the plot of `c0`'s host and mode on trace `trace`, by
 * budget, into `out` (room for g->cells).  Returns their count. */
static size_t auto_panel_cells(const gar_auto_goals *g, const gar_auto_cell *c0,
                               const char *trace, const gar_auto_cell **out)
{
    size_t n = 0;
    for (size_t i = 0; i < g->cells; i++)
        if (same_auto_plot(&g->cell[i], c0) && strcmp(g->cell[i].any->trace, trace) == 0)
            out[n++] = &g->cell[i];
    qsort(out, n, sizeof *out, by_budget);
    return n;
}

/* The data file: one block per trace (its cells by budget), each busy CPU
 * that trace's own; never a mean over traces, which would set unlike
 * workloads' figures against one another.  Returns the traces written
 * (their first cells in `firsts`: room for g->cells). */
static size_t auto_write_data(const gar_auto_goals *g, const gar_auto_cell *c0, FILE *dat,
                              const gar_auto_cell **cells, const gar_auto_cell **firsts)
{
    fprintf(dat, "# gar plot data: auto:p99_us=B against the fixed plans on host %s (%s).\n"
                 "# One block per trace; busy CPU in %% of wait time, that trace's own\n"
                 "# ('?': no arm; below %g %% drawn at that floor on the log axis).\n"
                 "# budget_us auto best_fixed poll block\n",
            c0->any->host, c0->any->mode, GAR_PLOT_LOG_FLOOR_PERCENT);
    size_t traces = 0;
    for (size_t i = 0; i < g->cells; i++) {
        const gar_auto_cell *c = &g->cell[i];
        bool seen = !same_auto_plot(c, c0);
        for (size_t t = 0; t < traces && !seen; t++)
            seen = strcmp(firsts[t]->any->trace, c->any->trace) == 0;
        if (seen)
            continue;
        firsts[traces++] = c;
        size_t n = auto_panel_cells(g, c0, c->any->trace, cells);
        fprintf(dat, "# trace %s\n", c->any->trace_short);
        for (size_t k = 0; k < n; k++) {
            fprintf(dat, "%.3f", (double)cells[k]->budget_ns / 1e3);
            for (int s = 0; s < AUTO_SERIES; s++) {
                const gar_arm_summary *a = auto_series_arm(cells[k], s);
                if (a != NULL)
                    fprintf(dat, " %.9g", gar_plot_floor_percent(100.0 * a->busy_frac));
                else
                    fprintf(dat, " ?");
            }
            fprintf(dat, "\n");
        }
        fprintf(dat, "\n\n");
    }
    return traces;
}

/* The script: the panels in their grid, a legend strip under them. */
static void auto_write_script(FILE *gp, const gar_plot_paths *pf, const gar_auto_cell *c0,
                              const gar_auto_cell *const *firsts, size_t traces,
                              gar_plot_files *files)
{
    size_t cols = gar_plot_grid_columns(traces), rows = (traces + cols - 1) / cols;
    size_t width = GAR_AUTO_PANEL_W_PX * cols,
           height = GAR_AUTO_TITLE_H_PX + GAR_AUTO_PANEL_H_PX * rows + GAR_AUTO_LEGEND_H_PX;
    double top = 1.0 - (double)GAR_AUTO_TITLE_H_PX / (double)height;
    double legend = (double)GAR_AUTO_LEGEND_H_PX / (double)height;
    double panel_h = (top - legend) / (double)rows;
    char host[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(c0->any->host_short, host, sizeof host);
    fprintf(gp,
            "# gar plot: busy CPU against the p99 budget, auto beside the fixed plans,\n"
            "# one panel per trace.  Data: %s.  Re-draw: gnuplot %s\n",
            pf->dat, pf->gp);
    gar_plot_terminal(gp, width, height, pf->png);
    fprintf(gp,
            "set multiplot title \"auto against the fixed plans by p99 budget, host %s (%s)\\n"
            "{/*0.8 busy CPU on each trace; the best fixed arm is the ex-post cheapest "
            "within B}\" font ',13'\n"
            "set xlabel 'budget B (µs, p99 overshoot, log)'\n"
            "set ylabel 'busy CPU (%% of wait time, log)'\n"
            "set logscale xy\nset format x '%%g'\nset format y '%%g'\n"
            "set yrange [*:200]\nset datafile missing '?'\nset grid\nunset key\n",
            host, c0->any->mode);
    for (size_t t = 0; t < traces; t++) {
        char title[GAR_RESULTS_TEXT * 2];
        gar_gnuplot_single(firsts[t]->any->trace_short, title, sizeof title);
        gar_plot_panel_place(gp, t, cols, top, panel_h);
        fprintf(gp, "set title '%s'\nplot ", title);
        for (int k = 0; k < AUTO_SERIES; k++) {
            gar_plot_style st = gar_plot_style_for(gar_plot_palette_of(files),
                                                   auto_series_label[k]);
            fprintf(gp, "%s'%s' index %zu using 1:%d with %s dt %d lc rgb '%s' title '%s'",
                    k > 0 ? ", \\\n     " : "", pf->dat, t, k + 2, auto_series_draw[k], st.dash,
                    st.colour, auto_series_title[k]);
        }
        fprintf(gp, "\n");
    }
    gar_plot_legend_strip(gp, legend, false);
    fprintf(gp, "set key center center horizontal box\nplot NaN notitle");
    for (int k = 0; k < AUTO_SERIES; k++) {
        gar_plot_style st = gar_plot_style_for(gar_plot_palette_of(files), auto_series_label[k]);
        fprintf(gp, ", \\\n     keyentry with %s dt %d lc rgb '%s' title '%s'",
                auto_series_draw[k], st.dash, st.colour, auto_series_title[k]);
    }
    fprintf(gp, "\nunset multiplot\n");
}

/* One auto-HOST-MODE plot: a panel per trace, the legend in a strip. */
static int auto_plot_one(const gar_auto_goals *g, const gar_auto_cell *c0, const char *dir,
                         gar_plot_files *files, gar_error *err)
{
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "auto-%s-%s", c0->any->host_short, c0->any->mode);
    gar_plot_paths pf;
    gar_plot_paths_name(&pf, base);
    int rc = 0;
    FILE *dat = NULL, *gp = NULL;
    const gar_auto_cell **cells = malloc(2 * g->cells * sizeof *cells);
    if (cells == NULL) {
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for an auto plot", "exhausted");
        goto done;
    }
    const gar_auto_cell **firsts = cells + g->cells;
    if ((dat = gar_plot_open_data(dir, &pf, err)) == NULL) {
        rc = -GAR_E_IO;
        goto done;
    }
    size_t traces = auto_write_data(g, c0, dat, cells, firsts);
    if ((gp = gar_plot_script_after_data(dir, dat, &pf, err)) == NULL) { /* closes dat */
        rc = -GAR_E_IO;
        goto done;
    }
    auto_write_script(gp, &pf, c0, firsts, traces, files);
    rc = gar_plot_draw_and_list(dir, gp, &pf, files, "", c0->any->host, err,
                                "Host %s (%s): busy CPU against the p99 budget on each of its %zu "
                                "traces, for auto:p99_us=B, the ex-post best fixed arm within each "
                                "budget, poll and block.",
                                c0->any->host_short, c0->any->mode, traces);
done:
    free(cells);
    return rc;
}

void gar_plot_auto_palette(gar_plot_files *files)
{
    gar_plot_style_for(gar_plot_palette_of(files), auto_series_label[0]);
    gar_plot_style_for(gar_plot_palette_of(files), auto_series_label[1]);
}

int gar_plot_auto_budgets(const gar_auto_goals *g, const char *dir, gar_plot_files *files,
                          gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    gar_plot_auto_palette(files);
    for (size_t first = 0; first < g->cells && rc == 0; first++) {
        bool seen = false; /* the host and mode drawn already */
        for (size_t j = 0; j < first && !seen; j++)
            seen = same_auto_plot(&g->cell[j], &g->cell[first]);
        if (!seen)
            rc = auto_plot_one(g, &g->cell[first], dir, files, err);
    }
    return rc;
}
