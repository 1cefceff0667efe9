/* sim/dist_draw.h — a host distribution laid out for drawing from.
 *
 * gar_host_dist_sample (core/host_dist.h) divides, once a draw, the draw's
 * place in its segment by the segment's width, in double: exact, but a
 * division's latency sits in the middle of every latency the simulator
 * draws, and each later step of a wait waits for it.  The width is fixed by
 * the profile, so the division can be a multiplication by a reciprocal
 * worked out once per segment: floor(x / d) = floor(x * m / 2^s) for every
 * x < 2^52 with s = 52 + ceil(log2 d) and m = floor(2^s / d) + 1 (then
 * m*d - 2^s lies in (0, 2^(s-52)], so the error term stays under 1/d).  A
 * segment's x is below its width times 2^32, at most 10^6 * 2^32 < 2^52.
 *
 * So gar_dist_draw_sample gives gar_host_dist_sample's value bit for bit
 * (tests/sim/test_dist_draw.c compares them over every bundled profile);
 * where the compiler has no 128-bit integers it calls that sampler.  The
 * simulated host prepares one for each plain distribution it draws per wait
 * (sim_host.h).  Pure: no allocation. */
#ifndef GAR_SIM_DIST_DRAW_H
#define GAR_SIM_DIST_DRAW_H

#include <stdint.h>

#include <gar/host_profile.h>

#include "core/host_dist.h"

typedef struct gar_dist_draw {
    gar_host_dist dist;                      /* the distribution, copied */
    uint64_t magic[GAR_HOST_QUANTILES_MAX];  /* segment i: m for its width d */
    uint8_t shift[GAR_HOST_QUANTILES_MAX];   /* segment i: s - 52, 0 .. 20 */
} gar_dist_draw;

/* Lays out `dist` (a profile's, count >= 2) for drawing. */
void gar_dist_draw_prepare(gar_dist_draw *out, const gar_host_dist *dist);

/* gar_host_dist_sample(&d->dist, draw), the same value. */
static inline gar_dur_ns gar_dist_draw_sample(const gar_dist_draw *d, uint64_t draw)
{
#ifdef __SIZEOF_INT128__
    const gar_host_dist *dist = &d->dist;
    /* The sampler's own steps (core/host_dist.h), but for the division. */
    uint64_t pos = (draw >> 32) * GAR_HOST_LEVEL_ONE;
    uint64_t whole = pos >> 32;
    unsigned i = 0;
    for (unsigned k = 1; k + 1 < dist->count; k++)
        i += whole >= dist->level[k];
    uint64_t x = pos - ((uint64_t)dist->level[i] << 32);
    __extension__ typedef unsigned __int128 wide;
    /* x * m / 2^s as (x * 2^12) * m / 2^64 / 2^(s - 52): the product's
     * high word, then one shift (x < 2^52, so x * 2^12 fits a word). */
    uint64_t frac = (uint64_t)(((wide)(x << 12) * d->magic[i]) >> 64) >> d->shift[i];
    return dist->value[i] + gar_host_mul_frac32(dist->value[i + 1] - dist->value[i], frac);
#else
    return gar_host_dist_sample(&d->dist, draw);
#endif
}

#endif
