/* sim/dist_draw.c — a distribution's segments laid out: the reciprocals of
 * their widths, their values, and the segment each bucket of draws starts
 * in. */
#include "sim/dist_draw.h"

#include <string.h>

void gar_dist_draw_prepare(gar_dist_draw *out, const gar_host_dist *dist)
{
    memset(out, 0, sizeof *out);
    out->dist = *dist;
    if (dist->count < 2)
        return; /* not stated (an optional key): never drawn from */
    unsigned last = dist->count - 1; /* the segments are 0 .. last - 1 */
    for (unsigned i = 0; i < last; i++) {
        out->segment[i].from = (uint64_t)dist->level[i] << 32;
        out->segment[i].to = (uint64_t)dist->level[i + 1] << 32;
    }
#ifdef __SIZEOF_INT128__
    __extension__ typedef unsigned __int128 wide;
    for (unsigned i = 0; i < last; i++) {
        gar_dist_segment *s = &out->segment[i];
        uint64_t d = dist->level[i + 1] - dist->level[i]; /* >= 1: levels increase */
        unsigned l = 0; /* ceil(log2 d) */
        while ((UINT64_C(1) << l) < d)
            l++;
        s->magic = (uint64_t)(((wide)1 << (52 + l)) / d) + 1;
        s->shift = l;
        s->value = dist->value[i];
        gar_dur_ns span = dist->value[i + 1] - dist->value[i];
        s->span_hi = span >> 32;
        s->span_lo = span & UINT32_MAX;
    }
#endif
    /* Bucket b starts at the least draw with top 8 bits b: its position is
     * (b << 24) * 10^6, in the last segment that begins at or before it.
     * (A segment before that one would do too, a step or two slower; a
     * later one would be wrong.) */
    unsigned i = 0;
    for (unsigned b = 0; b < GAR_DIST_DRAW_BUCKETS; b++) {
        uint64_t pos = ((uint64_t)b << 24) * GAR_HOST_LEVEL_ONE;
        while (i + 1 < last && out->segment[i].to <= pos)
            i++;
        out->first_segment[b] = (uint8_t)i;
    }
}
