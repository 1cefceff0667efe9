/* sim/dist_draw.c — the reciprocals of a distribution's segment widths. */
#include "sim/dist_draw.h"

void gar_dist_draw_prepare(gar_dist_draw *out, const gar_host_dist *dist)
{
    out->dist = *dist;
    for (unsigned i = 0; i < GAR_HOST_QUANTILES_MAX; i++) {
        out->magic[i] = 0;
        out->shift[i] = 0;
    }
#ifdef __SIZEOF_INT128__
    __extension__ typedef unsigned __int128 wide;
    for (unsigned i = 0; i + 1 < dist->count; i++) {
        uint64_t d = dist->level[i + 1] - dist->level[i];
        if (d == 0)
            continue; /* a segment of no width is never drawn in */
        unsigned l = 0; /* ceil(log2 d) */
        while ((UINT64_C(1) << l) < d)
            l++;
        unsigned s = 52 + l;
        out->magic[i] = (uint64_t)(((wide)1 << s) / d) + 1;
        out->shift[i] = (uint8_t)l;
    }
#endif
}
