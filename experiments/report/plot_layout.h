/* experiments/report/plot_layout.h — the sizes of the plots and the parts of
 * a gnuplot script every plot kind shares: the terminal, a grid of panels
 * and a legend strip under them.
 *
 * Every size in pixels a plot uses is named here, with what it makes room
 * for, so that a plot's file holds no bare pixel figure.  Changing one
 * changes the scripts (and the pictures) of every plot of its kind, the
 * main job's included. */
#ifndef GAR_PLOT_LAYOUT_H
#define GAR_PLOT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- Pareto (plot_pareto.c): one panel per trace, the legend under. ---- */
/* A panel: room for a log x axis of about six decades with readable tics. */
#define GAR_PARETO_PANEL_W_PX 560
#define GAR_PARETO_PANEL_H_PX 440
/* The panel less its plotting area (its title, axis labels and tic labels):
 * what plot_coincident.h measures distances in is the area alone. */
#define GAR_PARETO_AREA_MARGIN_W_PX 120
#define GAR_PARETO_AREA_MARGIN_H_PX 110
/* The two-line title above the panels (14 pt, then a smaller line). */
#define GAR_PARETO_TITLE_H_PX 60
#define GAR_PARETO_TITLE_CHAR_PX 9 /* one character of the title's 14 pt font */
#define GAR_PARETO_TITLE_PAD_PX 80 /* both margins beside the title */
/* The legend strip: an entry is its text (11 pt) and its sample with gaps. */
#define GAR_PARETO_KEY_CHAR_PX 8     /* one character of the legend's font */
#define GAR_PARETO_KEY_SAMPLE_PX 110 /* an entry's sample and the gaps around it */
#define GAR_PARETO_KEY_ROW_PX 24     /* one row at spacing 1.2 */
#define GAR_PARETO_KEY_PAD_PX 50     /* the key's box and the strip's margins */

/* Centres closer than this (pixels) are drawn as one point
 * (plot_coincident.h): the markers are about 10 px across, so two within
 * 6 px cover most of each other. */
#define GAR_PLOT_COINCIDENT_PX 6.0

/* ---- CDF (plot_cdf.c): the CDF and its tail side by side, key right. --- */
#define GAR_CDF_PANEL_W_PX 560 /* as a Pareto panel: the same log overshoot axis */
/* Tall: a CDF's steps near 1 and a tail's decades need height to be read. */
#define GAR_CDF_PANEL_H_PX 640
#define GAR_CDF_KEY_W_PX 300   /* an arm's name (plan and estimator) on one line */
#define GAR_CDF_TITLE_H_PX 60  /* the two-line title */
/* One key entry (11 pt) and the key's margins: the height grows past
 * GAR_CDF_PANEL_H_PX only when the entries need more. */
#define GAR_CDF_KEY_ROW_PX 20
#define GAR_CDF_KEY_PAD_PX 100

/* ---- auto budget plot (plot_auto.c): one panel per trace. -------------- */
/* A little smaller than a Pareto panel: four series, no legend inside. */
#define GAR_AUTO_PANEL_W_PX 520
#define GAR_AUTO_PANEL_H_PX 380
#define GAR_AUTO_TITLE_H_PX 70  /* the two-line title (13 pt, then smaller) */
#define GAR_AUTO_LEGEND_H_PX 50 /* the four series' key on one row */

/* ---- one-chart plots: two panels side by side, or one wide chart. ------ */
/* A parameter plot: two panels of 600 px side by side, each with its key
 * in rows under it. */
#define GAR_PARAM_W_PX 1200
#define GAR_PARAM_H_PX 520
/* Its key rows: the first two fit the height above; each further row of
 * entries (GAR_PARAM_KEY_CHAR_PX a character of the 10 pt key font,
 * GAR_PARAM_KEY_SAMPLE_PX the sample and gaps, as the Pareto legend's)
 * adds GAR_PARAM_KEY_ROW_PX. */
#define GAR_PARAM_KEY_ROWS_FREE 2
#define GAR_PARAM_KEY_CHAR_PX 8
#define GAR_PARAM_KEY_SAMPLE_PX 110
#define GAR_PARAM_KEY_ROW_PX 20
/* A prediction plot: a trace's waits along x, as wide as a report page. */
#define GAR_PREDICTION_W_PX 1200
#define GAR_PREDICTION_H_PX 560
/* A verification plot: one chart of two CDFs, half a page. */
#define GAR_VERIFY_W_PX 900
#define GAR_VERIFY_H_PX 520

/* The columns of a grid of `panels` panels: one, two up to four, then
 * three, so a page shows the panels large enough to read. */
size_t gar_plot_grid_columns(size_t panels);

/* Writes the pngcairo terminal of a `width` x `height` picture and its
 * output file `png`. */
void gar_plot_terminal(FILE *gp, size_t width, size_t height, const char *png);

/* Writes "\nset origin ..\nset size ..\n" placing panel `index` of a grid
 * of `cols` columns whose panels are `panel_h` tall (a share of the
 * picture), their top row starting at `top`. */
void gar_plot_panel_place(FILE *gp, size_t index, size_t cols, double top, double panel_h);

/* Starts the legend strip at the bottom, `share` of the picture tall:
 * every axis, border and grid unset, a plot of nothing to hang the key on;
 * `unset_label` unsets the panels' label 1 too.  The caller writes its key
 * settings and then "plot NaN notitle" and its keyentries. */
void gar_plot_legend_strip(FILE *gp, double share, bool unset_label);

#endif
