/* experiments/report/plot_style.h — how the plots tell lines and arms apart.
 *
 * The N-th thing a plot shows (a plan, a line) gets a colour and a dash
 * pattern.  The colours are sixteen that stay apart on a white page (the
 * eight of Okabe and Ito's colour-blind-safe set, yellow swapped for grey,
 * then eight darker ones); after sixteen the colours come round again with
 * the next dash pattern, so the first GAR_PLOT_STYLES things each have
 * their own pair and the colours of neighbours in the legend never repeat. */
#ifndef GAR_PLOT_STYLE_H
#define GAR_PLOT_STYLE_H

#include <stddef.h>

#define GAR_PLOT_COLOURS 16
#define GAR_PLOT_DASHES 5
#define GAR_PLOT_STYLES (GAR_PLOT_COLOURS * GAR_PLOT_DASHES)

typedef struct gar_plot_style {
    const char *colour; /* "#rrggbb", static text */
    int dash;           /* gnuplot's dash type, 1 (solid) .. GAR_PLOT_DASHES */
} gar_plot_style;

/* The style of thing `index` (0-based); distinct for index < GAR_PLOT_STYLES,
 * repeating after. */
gar_plot_style gar_plot_style_of(size_t index);

#endif
