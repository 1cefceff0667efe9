/* backends/store_thread.h — a thread that plays a device: it stores values
 * into a line's slots at given times on the host clock.
 *
 * Given a line and a schedule of (slot, value, time), the thread sleeps until
 * each time and stores the value with release order, in schedule order — what
 * a GPU stream does behind its work, on a machine with no GPU.  It is the
 * seed of the emulated device that replays recorded traces in real time.
 *
 * Times are on gar_posix_now's clock (CLOCK_MONOTONIC).  A store is never
 * made before its time; how late it is made is the host's sleep overshoot,
 * which the thread records (the time read just before each store) rather
 * than hides.  The thread asks for a 1 ns timer slack for itself.  It sleeps
 * on a condition variable, so gar_store_thread_stop interrupts a sleep at
 * once instead of waiting out the next store.
 *
 * Ownership: start copies the schedule (the caller's array may go at once)
 * and allocates the thread's record; the line is borrowed and must outlive
 * the join.  Every started thread is joined exactly once, which frees it. */
#ifndef GAR_STORE_THREAD_H
#define GAR_STORE_THREAD_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/line.h>
#include <gar/time.h>

#include "posix_host.h"

/* One store of a schedule. */
typedef struct gar_store {
    gar_slot slot;     /* the word to store into */
    uint64_t value;    /* what to store */
    gar_mono_ns at;    /* not before this time (gar_posix_now's clock) */
    gar_line *line;    /* NULL: the thread's line; else this one (borrowed, outliving the
                        * join): a device of many streams has a line per eight */
} gar_store;

/* What a store thread did, filled by the join. */
typedef struct gar_store_thread_report {
    size_t stored;               /* stores made: always the schedule's first `stored` */
    gar_timer_slack timer_slack; /* the store thread's own slack */
} gar_store_thread_report;

typedef struct gar_store_thread gar_store_thread; /* opaque */

/* Starts a thread that makes the `count` stores of `schedule` into `line`.
 * The times must not decrease along the schedule (stores land in schedule
 * order, so an earlier time after a later one could only be late); times
 * already past are stored at once.  `count` may be 0 (the thread just ends).
 * Returns 0 with *out set, or a negative code with *out untouched:
 * -GAR_E_INVALID_ARGUMENT (NULL out or line, NULL schedule with a count,
 * a time earlier than the one before it, naming its index), -GAR_E_BACKEND
 * (no memory, or the thread could not be made). */
int gar_store_thread_start(gar_store_thread **out, gar_line *line, const gar_store *schedule,
                           size_t count, gar_error *err);

/* Called on the store thread right after store `index` of the schedule
 * landed, with the time read just before it (its `stored_at`).  It lets a
 * device built on the thread publish more than the word — the emulated
 * device bumps its status there — and must not block for long: the next
 * store waits for it.  It runs with the thread's own lock held, so it must
 * not call back into the store thread. */
typedef void (*gar_store_notify)(void *ctx, size_t index, gar_mono_ns stored_at);

/* What a started thread does besides its stores. */
typedef struct gar_store_thread_options {
    gar_store_notify notify; /* NULL: nothing after each store */
    void *notify_ctx;        /* borrowed until the join */
    int cpu;                 /* -1: wherever the system runs it; else the thread pins itself
                              * to that CPU (the system's number, cpu_pin.h), best effort */
} gar_store_thread_options;

/* As gar_store_thread_start, with `options` (NULL: as gar_store_thread_start). */
int gar_store_thread_start_with(gar_store_thread **out, gar_line *line,
                                const gar_store *schedule, size_t count,
                                const gar_store_thread_options *options, gar_error *err);

/* Asks the thread to make no further store; returns at once (the thread may
 * be finishing the store it is making).  Safe from any thread, any number of
 * times, until the join.  Returns 0, or -GAR_E_INVALID_ARGUMENT for NULL. */
int gar_store_thread_stop(gar_store_thread *thread, gar_error *err);

/* Waits for the thread to make its stores (or to stop), then frees it.
 * `stored_at` is NULL or an array with one entry per schedule entry: each
 * gets the clock's reading just before its store (so whoever sees a store
 * reads a time at or after it), or GAR_MONO_NEVER for a store not made.
 * `report` is NULL or filled.  Returns 0, or -GAR_E_INVALID_ARGUMENT for a
 * NULL thread. */
int gar_store_thread_join(gar_store_thread *thread, gar_mono_ns *stored_at,
                          gar_store_thread_report *report, gar_error *err);

#endif
