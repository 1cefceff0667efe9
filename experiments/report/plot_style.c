/* experiments/report/plot_style.c — the colours and dashes of the plots. */
#include "report/plot_style.h"

static const char *const colours[GAR_PLOT_COLOURS] = {
    "#000000", "#e69f00", "#56b4e9", "#009e73", "#0072b2", "#d55e00", "#cc79a7", "#999999",
    "#332288", "#882255", "#117733", "#999933", "#44aa99", "#aa4499", "#661100", "#6699cc",
};

gar_plot_style gar_plot_style_of(size_t index)
{
    gar_plot_style s = { colours[index % GAR_PLOT_COLOURS],
                         (int)(index / GAR_PLOT_COLOURS % GAR_PLOT_DASHES) + 1 };
    return s;
}
