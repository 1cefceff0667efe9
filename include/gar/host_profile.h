/* gar/host_profile.h — what waiting costs on one machine, read from its
 * profile: the gar-host v1 text that `gar calibrate` writes (format:
 * data/hosts/README.md).
 *
 *   gar-host v1
 *   query_ns 250
 *   clock_ns 24
 *   word_wait no
 *   sleep_overshoot_ns p0=18000 p50=35000 p90=52000 p99=90000 p100=400000
 *   ...
 *
 * A profile gives two fixed costs (a status query, a clock read), whether
 * parks are hardware parks, and four latency distributions, each as measured
 * quantiles; optionally, how late a status query sees a completion (store
 * visibility) and sleep and blocking wakes by how long the thread slept (the
 * `@LEAD` variants, at the leads gar_host_lead_ns lists).  The simulator
 * charges a wait's actions with one, and an `auto:p99_us=B` plan is seeded
 * with its tails (gar/auto_host.h).
 *
 * The reader is pure: it takes the text, not a file.  A program reads the
 * file as it reads any (examples/auto_wait.c does it in a dozen lines) and
 * hands the bytes over, so the library does no I/O of its own for it.
 *
 * Profiles are plain values: they own nothing and may be copied freely. */
#ifndef GAR_HOST_PROFILE_H
#define GAR_HOST_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/time.h>

#define GAR_HOST_QUANTILES_MAX 16            /* points one distribution may list */
#define GAR_HOST_LEVEL_ONE UINT32_C(1000000) /* probability 1, in parts per million */
#define GAR_HOST_NS_MAX UINT64_C(10000000000) /* 10 s: the largest cost or latency a profile states */
#define GAR_HOST_LEADS 5 /* leads a lead-dependent wake may be stated at (gar_host_lead_ns) */

/* A distribution given by its quantiles: value[i] is the level[i] quantile.
 * Invariants (the parser guarantees them): 2 <= count <= GAR_HOST_QUANTILES_MAX,
 * level[0] = 0, level[count-1] = GAR_HOST_LEVEL_ONE, levels strictly
 * increasing, values non-decreasing; read linearly between two quantiles.
 * count 0: an optional key the profile did not state. */
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
     * the waiting CPU sees the device's completion this long after it.  The
     * `_at` arrays, indexed by lead k: the visibility of a completion the
     * device idled about gar_host_lead_ns(k) before, the sleep overshoot and
     * the blocking wake of a sleep or block that lasted about that long. */
    gar_host_dist store_visible;
    gar_host_dist store_visible_at[GAR_HOST_LEADS]; /* by how long the device idled before */
    gar_host_dist sleep_overshoot_at[GAR_HOST_LEADS];
    gar_host_dist block_wake_at[GAR_HOST_LEADS];
} gar_host_profile;

/* The one table of leads, shared by the reader, the calibration that files
 * its samples under them and the simulator that draws from them: lead k
 * (0 .. GAR_HOST_LEADS - 1) in ns — 100 µs, 300 µs, 1 ms, 3 ms, 10 ms — and
 * its name in a key, "100us" .. "10ms" (the key is e.g.
 * `block_wake_ns@1ms`).  Out of range: 0 and NULL. */
GAR_API gar_dur_ns gar_host_lead_ns(unsigned k);
GAR_API const char *gar_host_lead_name(unsigned k);

/* Parses the `len` bytes at `text` (no NUL needed) as a gar-host v1 profile.
 * `name` (the file's name, or any label; NULL reads as "host profile") is
 * quoted in refusals.  Returns 0, -GAR_E_INVALID_ARGUMENT (`out` NULL, or
 * `text` NULL with len > 0), or -GAR_E_INVALID_HOST_PROFILE with `err`
 * naming the name, the 1-based line and the fault (the key, and the value
 * that broke it).  `out` is written only on success: nothing half-read is
 * ever seen. */
GAR_API int gar_host_profile_parse(const char *text, size_t len, const char *name,
                                   gar_host_profile *out, gar_error *err);

#endif
