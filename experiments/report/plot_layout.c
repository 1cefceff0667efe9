/* experiments/report/plot_layout.c — the terminal, the grid of panels and
 * the legend strip of a gnuplot script. */
#include "report/plot_layout.h"

size_t gar_plot_grid_columns(size_t panels)
{
    return panels <= 1 ? 1 : panels <= 4 ? 2 : 3;
}

void gar_plot_terminal(FILE *gp, size_t width, size_t height, const char *png)
{
    fprintf(gp, "set terminal pngcairo size %zu,%zu enhanced font 'Sans,11'\nset output '%s'\n",
            width, height, png);
}

void gar_plot_panel_place(FILE *gp, size_t index, size_t cols, double top, double panel_h)
{
    fprintf(gp, "\nset origin %.6f,%.6f\nset size %.6f,%.6f\n",
            (double)(index % cols) / (double)cols, top - (double)(index / cols + 1) * panel_h,
            1.0 / (double)cols, panel_h);
}

void gar_plot_legend_strip(FILE *gp, double share, bool unset_label)
{
    fprintf(gp, "\n# The legend strip.\nset origin 0,0\nset size 1,%.6f\nset title ''\n%s"
                "unset border\nunset tics\nunset grid\nunset xlabel\nunset ylabel\n"
                "unset logscale\nset xrange [0:1]\nset yrange [0:1]\n",
            share, unset_label ? "unset label 1\n" : "");
}
