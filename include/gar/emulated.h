/* gar/emulated.h — a device on a machine with no GPU: a thread
 * that completes scheduled work in real time, behind a completion port.
 * Two parts: the emulated device (first), and the store thread it runs on
 * (below), which may also be used alone to store into any line on time.
 *
 * The device is given, up front, the work it will run: one item per wait,
 * each on a stream and with the host time it completes at.  Any number of
 * streams: stream s owns word s % 8 of the device's line s / 8 (one line per
 * eight streams), so a stream's word is never shared.  A store thread
 * (below) plays it open loop: at each item's time it stores the stream's next
 * sequence number into the stream's slot (release order), then marks the item
 * complete.  Nothing a
 * waiter does moves the schedule, as nothing a host does moves a GPU's clock.
 *
 * Status, the authority.  Each stream has a completed counter: the number of
 * its items the device has finished.  The thread bumps it right after the
 * item's store, so "status done" (counter at or past the item's number on its
 * stream) implies both that the item's time has passed and that its store
 * landed: the word never lags the status, as a GPU's stream-ordered store
 * never lags the stream's completion.  An item's completion time is the
 * store thread's clock reading just before its store (`stored_at`), so every
 * observer of the status or the word reads a time at or after it.
 *
 * The port of an item (gar/port.h):
 *   query  one acquire load of its stream's counter: 1 done, 0 pending; once
 *          the device was stopped, an item it never finished answers
 *          -GAR_E_DEVICE_FAULT (so no waiter hangs on a stopped device);
 *   block  a condition-variable wait on the counter, the thread broadcasting
 *          after every bump: the "blocking wait" (as a vendor's sync is a
 *          futex or condition wait on driver state).  gar calibrate measures
 *          this very primitive's wake latency;
 *   poll   the CPU's pause hint, then one query (a spin loop's turn);
 *   arm    nothing to enqueue (the thread stores behind every item anyway):
 *          writes the descriptor (line, the stream's slot, the item's number);
 *   park   the host's park (the gar_idle given at start: spin-yield on POSIX,
 *          a hardware word wait where the host has one) on the line, at most
 *          until `until`; 1 when the word reached the target.
 * Ports of items may be used from any thread, concurrently.
 *
 * Ownership: start copies the schedule and allocates the device (its lines
 * and a status counter per stream included: 16 bytes a stream, plus about
 * 80 bytes an item); the idle is borrowed and must outlive the device.  Every started
 * device is finished exactly once, which joins the thread and frees it; ports
 * handed out must not be used after that. */
#ifndef GAR_EMULATED_H
#define GAR_EMULATED_H

#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/port.h>
#include <gar/posix.h>
#include <gar/time.h>

/* One item of work: it completes on `stream` at `done_at` (gar_posix_now's
 * clock).  Along the schedule, each stream's times must not decrease. */
typedef struct gar_emulated_item {
    unsigned stream;    /* 0 .. max(the schedule's count, 8) - 1: number them densely */
    gar_mono_ns done_at;
} gar_emulated_item;

typedef struct gar_emulated_device gar_emulated_device; /* opaque */

/* Starts the device thread on the `count` items of `schedule` (count >= 1).
 * Items of different streams may come in any time order (the thread takes
 * them in time order, sorted stably in O(count log count)); times already
 * past complete at once.  The device has as many streams as the highest
 * stream named plus one; a schedule of n items names at most n streams, so
 * a stream number must be below max(n, 8) (a dense numbering always is),
 * which bounds the device's memory by its schedule.  `park` is the
 * host's Idle port whose park the ports' park runs (its sleep is not used);
 * a park with NULL ops makes the ports' park refuse.  `cpu` is -1 (the
 * thread runs wherever the system puts it) or the CPU the thread pins
 * itself to, best effort (to keep it off the waiter's core).  Returns 0 with *out
 * set, or a negative code with *out untouched: -GAR_E_INVALID_ARGUMENT (NULL
 * out or schedule, count 0, a stream out of range, a stream's time going
 * back — naming the item), -GAR_E_OPS_VERSION (`park`'s ops table is of a
 * version this libgar does not know, gar/idle.h), -GAR_E_BACKEND (no memory,
 * no thread). */
GAR_API int gar_emulated_device_start(gar_emulated_device **out, const gar_emulated_item *schedule,
                                      size_t count, gar_idle park, int cpu, gar_error *err);

/* The port of item `item` (its index in the schedule).  Returns 0 with *out
 * set, or -GAR_E_INVALID_ARGUMENT for a NULL device or out, or an item out
 * of range. */
GAR_API int gar_emulated_device_port(gar_emulated_device *dev, size_t item, gar_port *out,
                                     gar_error *err);

/* The line holding `stream`'s word (owned by the device, valid until the
 * finish); NULL for a stream the device does not have. */
GAR_API gar_line *gar_emulated_device_line(gar_emulated_device *dev, unsigned stream);

/* Asks the thread to complete nothing more; returns at once.  Items it did
 * not finish then answer -GAR_E_DEVICE_FAULT, and blocked waiters wake to
 * that answer.  Safe from any thread until the finish.  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT for NULL. */
GAR_API int gar_emulated_device_stop(gar_emulated_device *dev, gar_error *err);

/* Waits for the thread to complete every item (or to stop), then frees the
 * device.  `completed_at` is NULL or an array with one entry per schedule
 * item, in schedule order: each gets its completion time (see above), or
 * GAR_MONO_NEVER for an item not completed.  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT for NULL. */
GAR_API int gar_emulated_device_finish(gar_emulated_device *dev, gar_mono_ns *completed_at,
                                       gar_error *err);

/* The store thread: a thread that plays a device: it stores values
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
GAR_API int gar_store_thread_start(gar_store_thread **out, gar_line *line, const gar_store *schedule,
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
                              * to that CPU (the system's number), best effort */
} gar_store_thread_options;

/* As gar_store_thread_start, with `options` (NULL: as gar_store_thread_start). */
GAR_API int gar_store_thread_start_with(gar_store_thread **out, gar_line *line,
                                        const gar_store *schedule, size_t count,
                                        const gar_store_thread_options *options, gar_error *err);

/* Asks the thread to make no further store; returns at once (the thread may
 * be finishing the store it is making).  Safe from any thread, any number of
 * times, until the join.  Returns 0, or -GAR_E_INVALID_ARGUMENT for NULL. */
GAR_API int gar_store_thread_stop(gar_store_thread *thread, gar_error *err);

/* Waits for the thread to make its stores (or to stop), then frees it.
 * `stored_at` is NULL or an array with one entry per schedule entry: each
 * gets the clock's reading just before its store (so whoever sees a store
 * reads a time at or after it), or GAR_MONO_NEVER for a store not made.
 * `report` is NULL or filled.  Returns 0, or -GAR_E_INVALID_ARGUMENT for a
 * NULL thread. */
GAR_API int gar_store_thread_join(gar_store_thread *thread, gar_mono_ns *stored_at,
                                  gar_store_thread_report *report, gar_error *err);

#endif
