/* gar/manual_clock.h — virtual time that moves only when told, with timers.
 *
 * A manual clock starts at 0 and moves forward only through
 * gar_manual_clock_advance and gar_manual_clock_set; it never moves back.
 * Tests and the simulator hand its gar_clock view to the core, so a wait
 * decided under it decides exactly as under a host clock, with no sleeping.
 *
 * Timers fire while the clock moves: earliest due time first, equal due times
 * in the order they were added.  Before firing a timer the clock steps to that
 * timer's due time, so a callback reads its own due time as "now"; when the
 * last due timer has fired the clock steps on to the target.  Time saturates
 * at UINT64_MAX, which is an ordinary due time here: a timer due then fires
 * once the clock gets there (GAR_MONO_NEVER is "never" only to callers that
 * do not move the clock to the top).
 *
 * Ownership.  The caller owns the clock and every timer; gar allocates
 * nothing.  A timer is an intrusive node: while pending it is linked into its
 * clock and must stay at the same address, unmodified, until it fires or is
 * cancelled.  A clock must outlive the timers pending on it and every gar_clock
 * view made of it (views hold a pointer to it: all of them share one time).
 *
 * Re-entrancy.  A callback may add, re-add or cancel any timer (its own
 * included; it is no longer pending when its callback runs) and may move the
 * clock itself.  A timer added with a due time at or before now is due now:
 * outside a callback it fires before gar_manual_clock_add returns; from inside
 * a callback it joins the current firing and fires in the same advance, after
 * the timers already due.  So, seen from outside any callback, every pending
 * timer is due strictly in the future.
 *
 * Not thread-safe: one thread drives a clock and its timers. */
#ifndef GAR_MANUAL_CLOCK_H
#define GAR_MANUAL_CLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/time.h>

typedef struct gar_manual_clock gar_manual_clock;
typedef struct gar_manual_timer gar_manual_timer;

/* Called when `timer` fires, with the clock at the timer's due time. */
typedef void (*gar_manual_timer_fn)(gar_manual_clock *clock, gar_manual_timer *timer, void *ctx);

/* A caller-owned timer.  The fields are private: use the functions below. */
struct gar_manual_timer {
    gar_manual_clock *owner; /* the clock it is pending on; NULL when idle */
    gar_manual_timer *prev;
    gar_manual_timer *next;
    gar_mono_ns due;
    gar_manual_timer_fn fn;
    void *ctx;
};

/* A caller-owned clock.  The fields are private: use the functions below. */
struct gar_manual_clock {
    gar_mono_ns now;
    gar_manual_timer *head; /* pending timers in firing order */
    gar_manual_timer *tail;
    size_t pending;
    unsigned firing; /* depth of timer-firing loops now running */
};

/* Sets `clock` to time 0 with no timers. */
GAR_API void gar_manual_clock_init(gar_manual_clock *clock);

/* The Clock port view: its ctx is `clock`, so every view reads the same time. */
GAR_API gar_clock gar_manual_clock_port(gar_manual_clock *clock);

/* The clock's current time. */
GAR_API gar_mono_ns gar_manual_clock_now(const gar_manual_clock *clock);

/* Moves the clock forward by `d`, saturating at UINT64_MAX, firing every
 * timer due by then. */
GAR_API void gar_manual_clock_advance(gar_manual_clock *clock, gar_dur_ns d);

/* Moves the clock forward to `at`, firing every timer due by then.  An `at`
 * at or before now is ignored: the clock never moves back. */
GAR_API void gar_manual_clock_set(gar_manual_clock *clock, gar_mono_ns at);

/* Prepares an idle timer that will call `fn(clock, timer, ctx)` when it fires.
 * Must not be called on a pending timer. */
GAR_API void gar_manual_timer_init(gar_manual_timer *timer, gar_manual_timer_fn fn, void *ctx);

/* Whether `timer` is pending on some clock. */
GAR_API bool gar_manual_timer_pending(const gar_manual_timer *timer);

/* Makes `timer` pending on `clock`, due at `due` (a due time before now
 * counts as now; see Re-entrancy above for when such a timer fires).  A timer
 * already pending on `clock` is moved: it takes the new due time and counts as
 * added last.  Returns 0, or -GAR_E_INVALID_ARGUMENT when `timer` is pending
 * on another clock (nothing changes). */
GAR_API int gar_manual_clock_add(gar_manual_clock *clock, gar_manual_timer *timer, gar_mono_ns due,
                                 gar_error *err);

/* Removes `timer` from `clock`.  Returns true when it was pending there, false
 * when it was idle or pending on another clock (then nothing changes). */
GAR_API bool gar_manual_clock_cancel(gar_manual_clock *clock, gar_manual_timer *timer);

/* The number of timers pending on `clock`. */
GAR_API size_t gar_manual_clock_pending_timers(const gar_manual_clock *clock);

/* When a timer is pending, writes the earliest due time to `*out` and returns
 * true; otherwise returns false and leaves `*out` alone.  Outside a callback
 * the time written is always strictly after now. */
GAR_API bool gar_manual_clock_next_deadline(const gar_manual_clock *clock, gar_mono_ns *out);

#endif
