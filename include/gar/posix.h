/* gar/posix.h — the plain POSIX host: the clock and Idle port of a
 * real machine with nothing but the operating system to lean on.
 *
 * Clock: CLOCK_MONOTONIC in ns, origin the system's (so every thread and
 * every host in the process reads the same time line).
 *
 * Idle port:
 *   sleep_until  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), resumed
 *                after signals; never returns before its target.  On Linux
 *                set-up first asks for a 1 ns timer slack (the default 50 µs
 *                is added to every sleep) and reads back what it got.
 *   park         chosen once at set-up (gar_posix_host_init), as the table
 *                of Idle operations the host hands out:
 *                "word wait"   the CPU's user-mode wait on the line
 *                              (gar/word_wait.h: umwait, mwaitx, wfet or wfe),
 *                              when its probe offers one;
 *                "spin-yield"  a spin that compares the line against the
 *                              snapshot with the CPU's pause hint between
 *                              looks and a sched_yield every
 *                              `spins_per_yield` looks, so a co-located
 *                              thread still gets the core.
 *                Either never returns 0 before `until`.
 *
 * Ownership: the caller owns the gar_posix_host (no allocation, nothing to
 * release); the gar_idle it hands out borrows it, so the host must outlive
 * every use of that idle.  The timer slack is a property of a thread: it is
 * in force on the thread that called gar_posix_host_init (the executor's
 * thread); a host used from another thread sleeps with that thread's slack
 * (call gar_posix_tighten_timer_slack there). */
#ifndef GAR_POSIX_H
#define GAR_POSIX_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/caps.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/time.h>
#include <gar/word_wait.h>

/* Which park the host runs. */
typedef enum gar_posix_park {
    GAR_POSIX_PARK_BEST = 0,   /* the word wait when the probe offers one, else spin-yield */
    GAR_POSIX_PARK_SPIN_YIELD, /* bounded spin with a pause hint and periodic sched_yield */
    GAR_POSIX_PARK_WORD_WAIT,  /* the word wait, or refuse set-up where the probe refuses */
} gar_posix_park;

#define GAR_POSIX_SPINS_PER_YIELD_DEFAULT 64u

typedef struct gar_posix_host_options {
    gar_posix_park park;      /* default GAR_POSIX_PARK_BEST */
    uint32_t spins_per_yield; /* looks at the line between sched_yield calls; 0 = the default */
} gar_posix_host_options;

/* The timer slack of one thread, as asked for and read back. */
typedef struct gar_timer_slack {
    bool set;        /* the request for 1 ns was accepted */
    bool known;      /* `ns` was read back from the system */
    uint64_t ns;     /* the slack in force on the thread, when `known` */
    const char *why; /* static text saying why not, when !set or !known; else NULL */
} gar_timer_slack;

/* What set-up could and could not do.  Strings are static. */
typedef struct gar_posix_host_report {
    gar_timer_slack timer_slack; /* of the thread that set the host up */
    const char *park;            /* the park in force: the word wait's name, or "spin-yield" */
    const char *word_wait_why;   /* why that park is not a word wait; NULL when it is one */
    gar_word_wait word_wait;     /* what the word wait probe found (kind NONE: refused, or not asked) */
    uint32_t spins_per_yield;    /* the spin-yield park's setting in force */
} gar_posix_host_report;

typedef struct gar_posix_host {
    gar_posix_host_report report; /* read it; set-up owns it */
    /* private: the Idle operations chosen at set-up, which fix the park */
    const gar_idle_ops *idle_ops;
} gar_posix_host;

/* The time now on CLOCK_MONOTONIC, ns. */
GAR_API gar_mono_ns gar_posix_now(void);

/* The same clock as a Clock port (it needs no set-up and no context). */
GAR_API gar_clock gar_posix_clock(void);

/* Asks for a 1 ns timer slack on the calling thread and reads back the slack
 * in force into `out`.  On systems without the setting, records why. */
GAR_API void gar_posix_tighten_timer_slack(gar_timer_slack *out);

/* Sets a host up on the calling thread: tightens its timer slack, probes
 * the word wait (unless spin-yield is asked for) and chooses the park.
 * `options` may be NULL (the defaults).  Returns 0 with host->report
 * filled, or with the host untouched -GAR_E_INVALID_ARGUMENT (NULL host,
 * unknown park) or -GAR_E_BACKEND (GAR_POSIX_PARK_WORD_WAIT where the probe
 * refuses, with its reason).  Set-up failing to tighten the slack is not an
 * error: the report says so and the host sleeps with the slack it has. */
GAR_API int gar_posix_host_init(gar_posix_host *host, const gar_posix_host_options *options,
                                gar_error *err);

/* The host's Idle port (borrows `host`).  Its operations refuse a NULL line
 * or snapshot with -GAR_E_INVALID_ARGUMENT; a failing system sleep is
 * -GAR_E_BACKEND naming the call and its error. */
GAR_API gar_idle gar_posix_host_idle(gar_posix_host *host);

/* What the host offers, for plan and executor resolution: the word wait
 * when its park is one (else the report's reason) and no io_uring (that is
 * the io_uring host's). */
GAR_API void gar_posix_host_caps(const gar_posix_host *host, gar_caps *out);

#endif
