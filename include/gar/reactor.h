/* gar/reactor.h — the registrations of one executor's waiting tasks.
 *
 * A registration is either a **descriptor wait** ("word `slot` of `line`
 * reaches `target`", with an optional deadline) or an **alarm** (a time).  It
 * resolves once: true when its descriptor is reached, false when its deadline
 * or alarm time passed (a descriptor found reached wins over a deadline that
 * passed at the same look).  On resolution the reactor unlinks it and calls
 * its wake function; the registration may be added again from there.
 *
 * The reactor never blocks and never reads a clock by itself: `fire` is given
 * "now" and only wakes what is due; `turn` reads the clock it is given and
 * lets time pass only through the host's Idle port.  `turn` runs these
 * phases, in order:
 *   1. wake every registration that is due (descriptor reached, deadline or
 *      alarm passed); if any woke → GAR_TURN_WOKE;
 *   2. else, with only alarms pending, sleep to the earliest → GAR_TURN_SLEPT;
 *   3. else park on the line of the earliest-registered descriptor wait,
 *      until the park bound or the earliest deadline/alarm, whichever comes
 *      first (never past a deadline); the park returns on any store into
 *      that line, so one park watches every descriptor of the line
 *      → GAR_TURN_PARKED.  The line is snapshot before phase 1 looks, so a
 *      store landing after that look ends the park at once;
 *   4. nothing registered → -GAR_E_STALLED.
 * Only the line of the earliest-registered descriptor is watched during a
 * park; descriptors on other lines are looked at when it ends, so the park
 * bound is also their worst added latency.
 *
 * Ownership: the reactor and its registrations are caller-owned; the reactor
 * links registrations through nodes inside them and allocates nothing.  A
 * registration must stay alive, and its descriptor's line mapped, while it is
 * registered.  Single-threaded: only the waited-on words are touched by other
 * threads (through atomics), never the reactor.  Cost: `fire` reads the word
 * of every descriptor wait (O(descriptors)) plus O(log n) per timer due. */
#ifndef GAR_REACTOR_H
#define GAR_REACTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/alarm_heap.h>
#include <gar/api.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/time.h>

/* A park is at most this long unless set otherwise: the park bound of the
 * bundled flag plans (flag:park_us=100), so a descriptor on a line the park
 * does not watch is seen at most 100 µs late, at ten parks a millisecond. */
#define GAR_REACTOR_PARK_BOUND_DEFAULT_NS (100 * GAR_NS_PER_US)

typedef struct gar_registration gar_registration;
typedef struct gar_reactor gar_reactor;

/* Called once when `reg` resolves: `reached` true for a descriptor reached,
 * false for a deadline or alarm that passed.  `reg` is already unlinked; the
 * function may add it (or any other registration) again, cancel others, or
 * spawn work.  Registrations cancelled from here before their turn came are
 * not called. */
typedef void (*gar_wake_fn)(gar_registration *reg, bool reached, void *ctx);

typedef enum gar_registration_state {
    GAR_REGISTRATION_IDLE,    /* not in a reactor */
    GAR_REGISTRATION_PENDING, /* waiting for its descriptor or time */
    GAR_REGISTRATION_DUE,     /* resolved, its wake about to be called */
} gar_registration_state;

/* Embed one per concurrent wait.  All fields are the reactor's; read them
 * only through the functions below. */
struct gar_registration {
    gar_wake_fn wake;
    void *ctx;
    gar_descriptor descriptor; /* meaningful when watches_descriptor */
    bool watches_descriptor;   /* a descriptor wait, not an alarm */
    bool reached;              /* the outcome, once due */
    uint8_t state;             /* a gar_registration_state */
    gar_alarm_node timer;      /* the deadline or alarm time, when there is one */
    gar_registration *prev, *next; /* descriptor list, or the due list */
};

typedef struct gar_reactor_stats {
    uint64_t woke;      /* turns that ended GAR_TURN_WOKE */
    uint64_t slept;     /* turns that ended GAR_TURN_SLEPT */
    uint64_t parked;    /* turns that ended GAR_TURN_PARKED */
    gar_dur_ns idle_ns; /* clock time spent inside Idle calls (sleeps and parks) */
} gar_reactor_stats;

/* Caller-owned; the fields are private. */
struct gar_reactor {
    gar_registration *first, *last;         /* descriptor waits, registration order */
    size_t descriptors;                     /* descriptor waits registered */
    size_t alarms;                          /* alarms registered */
    gar_alarm_heap timers;                  /* every deadline and alarm */
    gar_registration *due_first, *due_last; /* resolved, wakes not yet called */
    gar_dur_ns park_bound_ns;
    gar_reactor_stats stats;
};

typedef enum gar_turn {
    GAR_TURN_WOKE = 1,   /* something was due and was woken */
    GAR_TURN_SLEPT = 2,  /* only alarms were pending; slept to the earliest */
    GAR_TURN_PARKED = 3, /* parked on a line (a store, the bound or a deadline ended it) */
} gar_turn;

/* An empty reactor with the default park bound and zeroed statistics. */
GAR_API void gar_reactor_init(gar_reactor *reactor);

/* An idle registration that will call `wake(reg, reached, ctx)` when it
 * resolves.  `wake` may be NULL (nothing is called; read the state). */
GAR_API void gar_registration_init(gar_registration *reg, gar_wake_fn wake, void *ctx);

/* Sets the longest single park.  Returns 0, or -GAR_E_INVALID_ARGUMENT for 0
 * (a park bound of 0 would be a spin).  GAR_MONO_NEVER means "only deadlines
 * bound a park". */
GAR_API int gar_reactor_set_park_bound(gar_reactor *reactor, gar_dur_ns bound_ns, gar_error *err);
GAR_API gar_dur_ns gar_reactor_park_bound(const gar_reactor *reactor);

/* Registers `reg` to wait for `*descriptor` (copied), until `deadline`
 * (GAR_MONO_NEVER: none).  A registration already in this reactor is first
 * cancelled, so this also re-registers.  The descriptor is not looked at
 * here: the next fire or turn finds it, even when it was reached already.
 * Returns 0, or -GAR_E_INVALID_ARGUMENT for a NULL argument or a descriptor
 * without a line. */
GAR_API int gar_reactor_add_descriptor(gar_reactor *reactor, gar_registration *reg,
                                       const gar_descriptor *descriptor, gar_mono_ns deadline,
                                       gar_error *err);

/* Registers `reg` as an alarm due at `at` (it resolves false at `at`).
 * Re-registers as above.  Returns 0, or -GAR_E_INVALID_ARGUMENT for a NULL
 * argument or `at` = GAR_MONO_NEVER (an alarm that never rings). */
GAR_API int gar_reactor_add_alarm(gar_reactor *reactor, gar_registration *reg, gar_mono_ns at,
                                  gar_error *err);

/* Removes `reg` if it is registered (or due and not yet woken); its wake is
 * then never called.  Returns true when it was there.  Safe from inside any
 * wake function. */
GAR_API bool gar_reactor_cancel(gar_reactor *reactor, gar_registration *reg);

/* Whether `reg` is in a reactor (pending or due). */
static inline bool gar_registration_active(const gar_registration *reg)
{
    return reg->state != GAR_REGISTRATION_IDLE;
}

/* The outcome of the last resolution: true reached, false time passed. */
static inline bool gar_registration_reached(const gar_registration *reg)
{
    return reg->reached;
}

/* Registrations pending (descriptor waits + alarms), not counting due ones. */
static inline size_t gar_reactor_pending(const gar_reactor *reactor)
{
    return reactor->descriptors + reactor->alarms;
}

/* The earliest deadline or alarm time pending, or GAR_MONO_NEVER. */
GAR_API gar_mono_ns gar_reactor_next_time(const gar_reactor *reactor);

/* Wakes everything due at `now` without idling: first every descriptor wait
 * found reached (in registration order), then every deadline and alarm with
 * time <= now (earliest first, ties in registration order).  Registrations
 * added by wake functions during this call wait for the next one.  Returns
 * how many were woken. */
GAR_API size_t gar_reactor_fire(gar_reactor *reactor, gar_mono_ns now);

/* One turn, for when no task is ready (phases in the header comment).
 * `tasks_left` is how many unfinished tasks the caller has; it is only named
 * in a Stalled error.  Returns a gar_turn (> 0), -GAR_E_STALLED when nothing
 * is registered, or an Idle port's error unchanged (its `err` as it filled
 * it); GAR_E_INVALID_ARGUMENT for a clock without `now` or an idle without
 * ops; GAR_E_OPS_VERSION for an idle ops table of a version this libgar does
 * not know (gar/idle.h). */
GAR_API int gar_reactor_turn(gar_reactor *reactor, gar_clock clock, gar_idle idle, size_t tasks_left,
                             gar_error *err);

/* The statistics since init. */
GAR_API gar_reactor_stats gar_reactor_stats_get(const gar_reactor *reactor);

#endif
