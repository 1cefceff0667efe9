/* experiments/report/plot_coincident.c — which points of a panel hide each other. */
#include "report/plot_coincident.h"

#include <math.h>

/* Where a value falls along an axis of `pixels`, log or linear. */
static double along(double v, double lo, double hi, bool log_axis, double pixels)
{
    if (log_axis) {
        if (v <= 0 || lo <= 0 || hi <= lo)
            return 0;
        return log(v / lo) / log(hi / lo) * pixels;
    }
    return hi > lo ? (v - lo) / (hi - lo) * pixels : 0;
}

size_t gar_plot_coincident(const double *x, const double *y, size_t n, const gar_plot_axes *axes,
                           size_t *group)
{
    size_t groups = 0;
    for (size_t i = 0; i < n; i++) {
        double px = along(x[i], axes->x_lo, axes->x_hi, true, axes->width_px);
        double py = along(y[i], axes->y_lo, axes->y_hi, axes->log_y, axes->height_px);
        group[i] = groups;
        /* Groups are numbered as they start, so point j starts one exactly
         * when its group is the count of groups started before it. */
        size_t started = 0;
        for (size_t j = 0; j < i && group[i] == groups; j++) {
            if (group[j] != started)
                continue;
            started++;
            double qx = along(x[j], axes->x_lo, axes->x_hi, true, axes->width_px);
            double qy = along(y[j], axes->y_lo, axes->y_hi, axes->log_y, axes->height_px);
            if (hypot(px - qx, py - qy) <= GAR_PLOT_COINCIDENT_PX)
                group[i] = group[j];
        }
        if (group[i] == groups)
            groups++;
    }
    return groups;
}

void gar_plot_tag(size_t index, char *out, size_t size)
{
    /* Bijective base 26: after "z" comes "aa". */
    char rev[16];
    size_t n = 0;
    for (size_t left = index + 1; left > 0 && n < sizeof rev; left = (left - 1) / 26)
        rev[n++] = (char)('a' + (left - 1) % 26);
    size_t k = 0;
    for (; k < n && k + 1 < size; k++)
        out[k] = rev[n - 1 - k];
    if (size > 0)
        out[k] = '\0';
}
