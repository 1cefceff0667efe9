/* gar/time.h — monotonic time, durations and the Clock port.
 *
 * The core reads time only through a gar_clock, so a wait decided under a
 * virtual clock decides exactly as it would under the host's.  Times are
 * nanoseconds from a host-chosen origin; arithmetic saturates, never wraps. */
#ifndef GAR_TIME_H
#define GAR_TIME_H

#include <stdint.h>

typedef uint64_t gar_mono_ns; /* a point in monotonic time, ns from the clock's origin */
typedef uint64_t gar_dur_ns;  /* a length of time, ns */

#define GAR_MONO_NEVER UINT64_MAX /* a time that never comes: "no deadline" */
#define GAR_NS_PER_US UINT64_C(1000)
#define GAR_NS_PER_MS UINT64_C(1000000)
#define GAR_NS_PER_S UINT64_C(1000000000)

/* The duration from `earlier` to `now`; 0 when `earlier` is not before `now`. */
static inline gar_dur_ns gar_since(gar_mono_ns now, gar_mono_ns earlier)
{
    return now > earlier ? now - earlier : 0;
}

/* `at` moved on by `d`, saturating at GAR_MONO_NEVER. */
static inline gar_mono_ns gar_after(gar_mono_ns at, gar_dur_ns d)
{
    /* The sum wrapped exactly when it came out below `at`: written so, the
     * compiler tests the add's carry (the simulator adds a few dozen times
     * a wait) instead of computing UINT64_MAX - at first. */
    gar_mono_ns sum = at + d;
    return sum < at ? UINT64_MAX : sum;
}

/* The Clock port: `now` returns the current time and never goes backwards. */
typedef struct gar_clock {
    gar_mono_ns (*now)(void *ctx);
    void *ctx;
} gar_clock;

static inline gar_mono_ns gar_clock_now(gar_clock clock)
{
    return clock.now(clock.ctx);
}

#endif
