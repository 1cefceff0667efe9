/* experiments/report/plot_coincident.h — which points of a panel hide each
 * other.
 *
 * In a busy-against-p99 panel many arms land on one spot: a plan without
 * predict and the same plan with predict under `none`, two estimators that
 * agree, every band of a plan whose first band blocks.  Drawn in turn, the
 * last hides the others, and a reader never sees that the winner was
 * there.  So the plot finds such groups, rings each with a tag and a count,
 * and lists its arms.  Two points coincide when their centres lie within
 * GAR_PLOT_COINCIDENT_PX of each other on the drawn panel: the axes are
 * known before drawing, so the distance is worked out in pixels of the
 * panel's plotting area, as the reader sees it. */
#ifndef GAR_PLOT_COINCIDENT_H
#define GAR_PLOT_COINCIDENT_H

#include <stdbool.h>
#include <stddef.h>

#include "report/plot_layout.h" /* GAR_PLOT_COINCIDENT_PX */


/* A panel's axes and the size of its plotting area in pixels. */
typedef struct gar_plot_axes {
    double x_lo, x_hi;   /* x is always log */
    double y_lo, y_hi;
    bool log_y;
    double width_px, height_px;
} gar_plot_axes;

/* Groups the points (x[i], y[i]), i < n: group[i] is the group of point i,
 * groups numbered in the order of their first point.  A point joins the
 * first group whose first point lies within GAR_PLOT_COINCIDENT_PX of it.
 * Returns the count of groups (a lone point is a group of one). */
size_t gar_plot_coincident(const double *x, const double *y, size_t n, const gar_plot_axes *axes,
                           size_t *group);

/* A group's tag as the plot prints it: "a" .. "z", then "aa", "ab", ...
 * Writes at most `size` bytes, NUL included. */
void gar_plot_tag(size_t index, char *out, size_t size);

#endif
