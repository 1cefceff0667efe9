/* sim/host_profile.h — what a host's waiting costs, as the simulator charges it.
 *
 * A host profile is a small text file (format: data/hosts/README.md):
 *
 *   gar-host v1
 *   query_ns 250
 *   clock_ns 24
 *   word_wait no
 *   sleep_overshoot_ns p0=18000 p50=35000 p90=52000 p99=90000 p100=400000
 *   ...
 *
 * It gives two fixed costs (a status query, a clock read), whether parks are
 * hardware parks, and four latency distributions, each as measured quantiles;
 * optionally, how late a status query sees a completion (store visibility)
 * and sleep and blocking wakes by how long the thread slept.
 * A distribution is sampled by piecewise-linear interpolation of its inverse
 * CDF from one uniform 64-bit draw: the caller owns the random source, so one
 * seeded generator per run makes every sample reproducible.
 *
 * Profiles are plain values: they own nothing and may be copied freely. */
#ifndef GAR_SIM_HOST_PROFILE_H
#define GAR_SIM_HOST_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/time.h>

#define GAR_HOST_QUANTILES_MAX 16         /* points one distribution may list */
#define GAR_HOST_LEVEL_ONE UINT32_C(1000000) /* probability 1, in parts per million */
#define GAR_HOST_NS_MAX UINT64_C(10000000000) /* 10 s: the largest cost or latency a profile states */
#define GAR_HOST_LEADS 5 /* leads a lead-dependent wake may be stated at (gar_host_lead_ns) */

/* A distribution given by its quantiles: value[i] is the level[i] quantile.
 * Invariants (the parser guarantees them): 2 <= count <= GAR_HOST_QUANTILES_MAX,
 * level[0] = 0, level[count-1] = GAR_HOST_LEVEL_ONE, levels strictly
 * increasing, values non-decreasing. */
typedef struct gar_host_dist {
    unsigned count;
    uint32_t level[GAR_HOST_QUANTILES_MAX]; /* cumulative probability, parts per million */
    gar_dur_ns value[GAR_HOST_QUANTILES_MAX];
} gar_host_dist;

typedef struct gar_host_profile {
    gar_dur_ns query_ns;  /* one status query (also charged for an arm: both are one driver call) */
    gar_dur_ns clock_ns;  /* one clock read */
    bool word_wait;       /* parks are hardware parks (core idle); else busy spins */
    gar_host_dist sleep_overshoot; /* a timed sleep wakes this long after its target */
    gar_host_dist block_wake;      /* a blocking wait returns this long after completion */
    gar_host_dist park_wake;       /* a park returns this long after the store that ends it */
    gar_host_dist poll_period;     /* one poll-loop turn between two status queries; never 0 */
    /* Optional keys (count 0: not stated).  store_visible: a status query on
     * the waiting CPU sees the device's completion this long after it (0 when
     * not stated).  The `_at` arrays: the visibility of a completion the
     * device idled about gar_host_lead_ns(k) before, the sleep overshoot and
     * the blocking wake of a sleep or block that lasted about that long; a
     * sleep, block or store draws from the stated ones around its length,
     * mixed, else from the plain distribution (gar_host_lead_sample). */
    gar_host_dist store_visible;
    gar_host_dist store_visible_at[GAR_HOST_LEADS]; /* by how long the device idled before */
    gar_host_dist sleep_overshoot_at[GAR_HOST_LEADS];
    gar_host_dist block_wake_at[GAR_HOST_LEADS];
} gar_host_profile;

/* Lead k (0 .. GAR_HOST_LEADS - 1) in ns: 100 µs, 300 µs, 1 ms, 3 ms, 10 ms;
 * and its name in a key, "100us" .. "10ms" (the key is e.g.
 * `block_wake_ns@1ms`).  Out of range: 0 and NULL. */
gar_dur_ns gar_host_lead_ns(unsigned k);
const char *gar_host_lead_name(unsigned k);

/* The stated variant at[k] (count > 0) whose lead is nearest `lead` in ratio
 * (lead^2 against the product of two neighbours' leads, in integers: the
 * same choice on every platform; a tie goes to the longer lead); `base`
 * when none is stated.  The calibration files each sample under its
 * nearest lead by this rule; the simulator draws from the two leads around
 * a length, mixed (gar_host_lead_sample). */
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

/* Parses the `len` bytes at `text` (no NUL needed) as a gar-host v1 profile.
 * `name` (the file's name, or any label; NULL reads as "host profile") is
 * quoted in refusals.  Returns 0, or -GAR_E_INVALID_HOST_PROFILE with `err`
 * naming the name, the 1-based line and the fault.  `out` is written only on
 * success: nothing half-loaded is ever seen. */
int gar_host_profile_parse(const char *text, size_t len, const char *name, gar_host_profile *out,
                           gar_error *err);

/* Reads the profile file at `path` whole, without parsing it; "-" reads
 * standard input to its end (named "standard input" in refusals).  Returns 0
 * with a malloc'd NUL-terminated copy in `*text` (the caller frees it) and
 * its length, NUL not counted, in `*len`; or -GAR_E_IO when the file cannot
 * be read, or -GAR_E_INVALID_HOST_PROFILE for a file over 1 MiB (`*text`
 * then untouched).  For a caller that wants the text besides the profile. */
int gar_host_profile_read_text(const char *path, char **text, size_t *len, gar_error *err);

/* Reads (as gar_host_profile_read_text, so "-" is standard input) and
 * parses the profile at `path`.  Returns 0, -GAR_E_IO when the file cannot
 * be read, or the parse refusal.  `out` is written only on success. */
int gar_host_profile_load(const char *path, gar_host_profile *out, gar_error *err);

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
