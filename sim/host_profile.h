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
 * hardware parks, and four latency distributions, each as measured quantiles.
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
} gar_host_profile;

/* Parses the `len` bytes at `text` (no NUL needed) as a gar-host v1 profile.
 * `name` (the file's name, or any label; NULL reads as "host profile") is
 * quoted in refusals.  Returns 0, or -GAR_E_INVALID_HOST_PROFILE with `err`
 * naming the name, the 1-based line and the fault.  `out` is written only on
 * success: nothing half-loaded is ever seen. */
int gar_host_profile_parse(const char *text, size_t len, const char *name, gar_host_profile *out,
                           gar_error *err);

/* Reads and parses the file at `path`.  Returns 0, -GAR_E_IO when the file
 * cannot be read, or the parse refusal.  `out` is written only on success. */
int gar_host_profile_load(const char *path, gar_host_profile *out, gar_error *err);

/* The value at cumulative probability `draw / 2^64`, interpolating linearly
 * between the two quantiles around it (only the draw's top 32 bits count).
 * Integer arithmetic throughout, so every platform gets the same value.
 * A distribution whose quantiles are all equal always gives that value. */
gar_dur_ns gar_host_dist_sample(const gar_host_dist *dist, uint64_t draw);

/* The median (level 500 000 ppm), for reports and estimates. */
gar_dur_ns gar_host_dist_median(const gar_host_dist *dist);

#endif
