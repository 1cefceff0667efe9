/* experiments/report/plot_style.h — how the plots tell lines and arms apart.
 *
 * The N-th thing a plot shows (a plan, a line) gets a colour and a dash
 * pattern.  The colours are sixteen that stay apart on a white page (the
 * eight of Okabe and Ito's colour-blind-safe set, yellow swapped for grey,
 * then eight darker ones); after sixteen the colours come round again with
 * the next dash pattern, so the first GAR_PLOT_STYLES things each have
 * their own pair and the colours of neighbours in the legend never repeat.
 * Plots take a thing's style from a palette keyed by its label (below), not
 * from its place in one plot. */
#ifndef GAR_PLOT_STYLE_H
#define GAR_PLOT_STYLE_H

#include <stddef.h>
#include <stdint.h>

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

/* One command's palette: every label (a plan's text, a line's name, "auto")
 * keeps the style it got first in every plot the command draws, so an arm
 * has one colour across a report.  A label's style is style_of(the count of
 * labels met before it).  The palette grows as labels come (no label is
 * ever left without its place); only when memory to grow it runs out is a
 * new label styled by its hash (stable, though it may share a style).
 * Zeroed, it is empty; gar_plot_palette_free frees what it grew.  Labels
 * are kept as 64-bit hashes. */
typedef struct gar_plot_palette {
    size_t count, capacity;
    uint64_t *key;
} gar_plot_palette;

/* The style of `label` in `palette` (added when new); NULL `palette`: the
 * style by the label's hash. */
gar_plot_style gar_plot_style_for(gar_plot_palette *palette, const char *label);

/* Frees the labels `palette` holds and empties it; NULL is a no-op. */
void gar_plot_palette_free(gar_plot_palette *palette);

#endif
