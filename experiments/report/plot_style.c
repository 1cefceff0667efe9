/* experiments/report/plot_style.c — the colours and dashes of the plots. */
#include "report/plot_style.h"

#include <stdlib.h>

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

/* FNV-1a: a label's key in the palette. */
static uint64_t label_key(const char *label)
{
    uint64_t h = 14695981039346656037ull;
    for (; *label != '\0'; label++)
        h = (h ^ (unsigned char)*label) * 1099511628211ull;
    return h;
}

gar_plot_style gar_plot_style_for(gar_plot_palette *palette, const char *label)
{
    uint64_t key = label_key(label);
    if (palette == NULL)
        return gar_plot_style_of((size_t)(key % GAR_PLOT_STYLES));
    for (size_t i = 0; i < palette->count; i++)
        if (palette->key[i] == key)
            return gar_plot_style_of(i);
    if (palette->count == palette->capacity) {
        size_t bigger = palette->capacity == 0 ? 64 : 2 * palette->capacity;
        uint64_t *grown = realloc(palette->key, bigger * sizeof *grown);
        if (grown == NULL) /* no memory: a style still, by the hash */
            return gar_plot_style_of((size_t)(key % GAR_PLOT_STYLES));
        palette->key = grown;
        palette->capacity = bigger;
    }
    palette->key[palette->count] = key;
    return gar_plot_style_of(palette->count++);
}

void gar_plot_palette_free(gar_plot_palette *palette)
{
    if (palette == NULL)
        return;
    free(palette->key);
    palette->key = NULL;
    palette->count = palette->capacity = 0;
}
