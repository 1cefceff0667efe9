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
 * The segment itself is looked up by the draw's top bits, not searched
 * among the levels, and all a segment's constants sit side by side.
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

/* Buckets of the draw's top bits that say where to start looking for its
 * segment: the draw's top 8 bits. */
#define GAR_DIST_DRAW_BUCKETS 256

/* One segment of the distribution, all a draw in it reads, in one place:
 * a cache line of its own. */
typedef struct gar_dist_segment {
    uint64_t from;     /* level << 32: the positions from here on are in it ... */
    uint64_t to;       /* ... up to the next level's, which are past it */
    uint64_t magic;    /* m for its width d */
    gar_dur_ns value;  /* the value at its start */
    uint64_t span_hi;  /* the value's rise over it, in halves: its top 32 bits */
    uint64_t span_lo;  /* ... and its low 32 bits */
    uint64_t shift;    /* s - 52, 0 .. 20 */
    uint64_t unused;   /* (to 64 bytes) */
} gar_dist_segment;

typedef struct gar_dist_draw {
    gar_host_dist dist; /* the distribution, copied */
    /* Bucket b: the segment of the least draw whose top 8 bits are b.  A
     * draw's segment is that one or, across a level inside its bucket, a
     * later one: found by a step or two past it (a branch almost never
     * taken), where counting the levels below the draw took a compare for
     * each of them.  The last segment ends at 10^6 << 32, above every
     * position: no step goes past it. */
    uint8_t first_segment[GAR_DIST_DRAW_BUCKETS];
    gar_dist_segment segment[GAR_HOST_QUANTILES_MAX - 1];
} gar_dist_draw;

/* Lays out `dist` (a profile's) for drawing; one of fewer than two points
 * (an optional key not stated) is copied, and must not be drawn from. */
void gar_dist_draw_prepare(gar_dist_draw *out, const gar_host_dist *dist);

/* gar_host_dist_sample(&d->dist, draw), the same value. */
static inline gar_dur_ns gar_dist_draw_sample(const gar_dist_draw *d, uint64_t draw)
{
#ifdef __SIZEOF_INT128__
    /* The sampler's own steps (core/host_dist.h), but for the search and
     * the division.  The position compares with a segment's `from` as the
     * sampler's whole (pos >> 32) with its level. */
    uint64_t top = draw >> 32;
    uint64_t pos = top * GAR_HOST_LEVEL_ONE;
    const gar_dist_segment *s = &d->segment[d->first_segment[top >> 24]];
    while (pos >= s->to)
        s++;
    uint64_t x = pos - s->from;
    __extension__ typedef unsigned __int128 wide;
    /* x * m / 2^s as (x * 2^12) * m / 2^64 / 2^(s - 52): the product's
     * high word, then one shift (x < 2^52, so x * 2^12 fits a word). */
    uint64_t frac = (uint64_t)(((wide)(x << 12) * s->magic) >> 64) >> s->shift;
    /* gar_host_mul_frac32 of the rise, its halves laid out. */
    return s->value + s->span_hi * frac + ((s->span_lo * frac) >> 32);
#else
    return gar_host_dist_sample(&d->dist, draw);
#endif
}

#endif
