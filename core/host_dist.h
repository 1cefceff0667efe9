/* core/host_dist.h — reading a host profile's distributions (gar/host_profile.h):
 * a quantile-stated distribution sampled from a uniform draw, its moments,
 * and the @LEAD variant a length of wait takes.
 *
 * A distribution is sampled by piecewise-linear interpolation of its inverse
 * CDF from one uniform 64-bit draw: the caller owns the random source, so
 * one seeded generator per run makes every sample reproducible.  The
 * simulator draws each latency it charges this way, and the auto rule's
 * seed (gar/auto_host.h) reads a profile's quantiles by the same sampler, so
 * the two agree on what a profile says.
 *
 * The testbed's own, like gar/nearest_rank.h: built into libgar (the auto
 * seed uses it) but neither installed nor exported.  Pure: no I/O, no
 * allocation. */
#ifndef GAR_HOST_DIST_H
#define GAR_HOST_DIST_H

#include <stdint.h>

#include <gar/host_profile.h>
#include <gar/time.h>

/* The lead (0 .. GAR_HOST_LEADS - 1) nearest `ns` in ratio among those
 * `stated` marks (bit k: lead k), or -1 when none is: between two stated
 * leads a < b, b when ns^2 >= a*b (in integers, so the same choice on every
 * platform; a tie goes to the longer lead).  The calibration files each
 * sample under its nearest lead by this rule (all stated); a profile's
 * reader picks the stated variant nearest a length by it. */
int gar_host_lead_nearest(gar_dur_ns ns, unsigned stated);

/* The stated variant at[k] (count > 0) whose lead is nearest `lead` in ratio
 * (gar_host_lead_nearest); `base` when none is stated.  The auto seed reads
 * the store visibility so; the simulator draws from the two leads around a
 * length, mixed (gar_host_lead_sample). */
const gar_host_dist *gar_host_dist_for_lead(const gar_host_dist *base,
                                            const gar_host_dist at[GAR_HOST_LEADS],
                                            gar_dur_ns lead);

/* The value a sleep, block or store of length `lead` takes from one uniform
 * `draw`, where @LEAD variants are stated: between two stated leads a < b
 * (a <= lead < b), both are sampled at the same draw and mixed linearly in
 * the length, x_a + (x_b - x_a) * (lead - a) / (b - a) — so every quantile
 * moves from a's to b's as the length does, instead of stepping at one
 * point (the calibration states sparse leads, and a machine's wake does not
 * step between them); at or below the shortest stated lead, that lead's
 * sample; at or above the longest, that one's; with none stated, `base`'s.
 * Integer arithmetic: the same value on every platform. */
gar_dur_ns gar_host_lead_sample(const gar_host_dist *base, const gar_host_dist at[GAR_HOST_LEADS],
                                gar_dur_ns lead, uint64_t draw);

/* x_a + (x_b - x_a) * w / 2^32 (w < 2^32), rounded towards x_a: the mix
 * gar_host_lead_sample takes between two leads' samples. */
static inline gar_dur_ns gar_host_lead_mix(gar_dur_ns xa, gar_dur_ns xb, uint64_t w);

/* The value at cumulative probability `draw / 2^64`, interpolating linearly
 * between the two quantiles around it (only the draw's top 32 bits count).
 * Integer arithmetic throughout, so every platform gets the same value.
 * A distribution whose quantiles are all equal always gives that value.
 * Inline (below): the simulator draws a latency or two for every wait. */
static inline gar_dur_ns gar_host_dist_sample(const gar_host_dist *dist, uint64_t draw);

/* The same value, searching the segments from `first` up: for a caller who
 * knows the draw is at or above level[first] (first < count - 1), such as
 * one drawing from a distribution's tail. */
static inline gar_dur_ns gar_host_dist_sample_from(const gar_host_dist *dist, uint64_t draw,
                                                   unsigned first);

/* The mean and variance of the values gar_host_dist_sample gives: between
 * two listed quantiles a and b (a < b), at probability their levels' gap,
 * the sampler's values are uniform on the integers a .. b - 1 (it rounds
 * down), so that segment has mean a + (b - a - 1) / 2 and variance
 * ((b - a)^2 - 1) / 12; a segment with a = b is the constant a.  Exact up to
 * the sampler's 2^-32 resolution in probability.  A constant distribution
 * has variance 0. */
void gar_host_dist_moments(const gar_host_dist *dist, double *mean, double *variance);

/* The same over the segments [0, to) alone (1 <= to < count): the mean and
 * variance of a draw given that it fell below value[to]. */
void gar_host_dist_moments_below(const gar_host_dist *dist, unsigned to, double *mean,
                                 double *variance);

/* The median (level 500 000 ppm), for reports and estimates. */
gar_dur_ns gar_host_dist_median(const gar_host_dist *dist);

/* ---- the sampler's body -------------------------------------------------- */


/* floor(a * f / 2^32) for f < 2^32, without overflow. */
static inline uint64_t gar_host_mul_frac32(uint64_t a, uint64_t f)
{
    return (a >> 32) * f + (((a & UINT32_MAX) * f) >> 32);
}

static inline gar_dur_ns gar_host_lead_mix(gar_dur_ns xa, gar_dur_ns xb, uint64_t w)
{
    return xb >= xa ? xa + gar_host_mul_frac32(xb - xa, w) : xa - gar_host_mul_frac32(xa - xb, w);
}

static inline gar_dur_ns gar_host_dist_sample(const gar_host_dist *dist, uint64_t draw)
{
    return gar_host_dist_sample_from(dist, draw, 0);
}

static inline gar_dur_ns gar_host_dist_sample_from(const gar_host_dist *dist, uint64_t draw,
                                                   unsigned first)
{
    /* The draw as a position in ppm scaled by 2^32: u/2^32 * 10^6 * 2^32. */
    uint64_t pos = (draw >> 32) * GAR_HOST_LEVEL_ONE;
    /* pos >= level << 32 exactly when its top half is >= level (the shifted
     * level's low half is 0): the segment search compares 32-bit levels. */
    uint64_t whole = pos >> 32;
    /* The segment is `first` plus the inner levels at or below the draw:
     * levels increase, so those are the ones before it.  Counted rather
     * than searched: a search's exit depends on the draw and mispredicts
     * about once a sample; the count's branch depends on the count alone. */
    unsigned i = first;
    for (unsigned k = first + 1; k + 1 < dist->count; k++)
        i += whole >= dist->level[k];
    uint64_t lo = (uint64_t)dist->level[i] << 32;
    uint64_t width = dist->level[i + 1] - dist->level[i];
    /* frac = floor(x / width) in 2^-32 units of the segment (< 2^32), divided
     * in double: a fraction of a 64-bit divide's latency (this runs for every
     * latency the simulator draws), and exact.  x < width * 2^32 <= 10^6 *
     * 2^32 < 2^53 and width are doubles exactly; the true quotient q + r/width
     * is at least 1/width >= 10^-6 below q + 1, while half an ulp at q + 1
     * (q < 2^32) is at most 2^-21 < 10^-6, so it never rounds up to q + 1
     * and truncation gives q.  Both operands and q are below 2^63, so they
     * go through int64_t: one conversion instruction each way, where an
     * unsigned one takes a branch and several (the values are the same). */
    uint64_t x = pos - lo;
    uint64_t frac = (uint64_t)(int64_t)((double)(int64_t)x / (double)(int64_t)width);
    return dist->value[i] + gar_host_mul_frac32(dist->value[i + 1] - dist->value[i], frac);
}

#endif
