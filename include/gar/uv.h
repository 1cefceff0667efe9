/* gar/uv.h — waiting on lines for code that runs a libuv loop.
 *
 * A program built around a libuv loop must never block its loop thread, yet
 * a GPU completion is a word in memory that nobody signals.  The adapter
 * runs one watcher thread that waits on lines for the loop: each wait is a
 * task of gar's executor on that thread (the reactor driver, gar/wait_task.h),
 * so the plan's rules hold exactly as elsewhere — the first status query,
 * parks of at most park_us on the word, a status query at least every
 * backstop_us, the deadline — and the outcome is handed to the
 * loop through a uv_async_t: the callback runs on the loop thread.
 *
 *     gar_uv *uv;
 *     gar_uv_init(&uv, loop, &err);
 *     gar_uv_start(uv, &(gar_descriptor){ line, slot, 7 }, NULL, &plan,
 *                  GAR_MONO_NEVER, on_done, ctx, &handle, &err);
 *     uv_run(loop, UV_RUN_DEFAULT);            // on_done runs in here
 *     gar_uv_close(uv);
 *     uv_run(loop, UV_RUN_DEFAULT);            // lets the async handle close
 *     uv_loop_close(loop);                     // 0: nothing was leaked
 *
 * The status of a wait.  With a completion port (gar/port.h), the port's
 * query is the authority, as in every gar wait, and the port's arm gives the
 * word the parks watch.  Without one (port NULL), the descriptor's word is
 * both: "done" is the word reaching its target (an acquire load), which is
 * what a device that stores behind its work, or gar's store thread, makes
 * true.
 *
 * Latency.  The watcher parks on one line at a time (the reactor's rule,
 * gar/reactor.h): a store into another line is seen when that park ends,
 * at most the park bound (100 µs) later.  The watcher looks at new starts
 * at least every GAR_UV_CONTROL_PERIOD_NS (100 µs) while waits pend, and at
 * once when none pend (it then sleeps on a condition variable, costing
 * nothing).  A cancelled wait lets go of its line and port at its next step:
 * within its plan's park_us, or at its next poll.
 *
 * Threads.  gar_uv_init, gar_uv_start, gar_uv_cancel and gar_uv_close are
 * called on the loop's thread (the one that runs uv_run for `loop`), and
 * every callback runs there, from uv_run.  Only the watcher thread touches
 * the lines, the ports and their words otherwise; the device (or a store
 * thread) stores into the words from wherever it runs.
 *
 * Ownership.  init allocates the adapter, its watcher thread and one
 * uv_async_t on `loop`; close stops the thread and closes the handle, whose
 * memory (and the adapter's) is released by the loop's close callback, so run
 * the loop once more after close before uv_loop_close.  start allocates the
 * handle; the adapter frees it right after its callback returns.  The line
 * (and the port's table and context, when given) are borrowed: keep them
 * alive until the wait's callback has run.  The plan and descriptor are
 * copied.
 *
 * An "auto:p99_us=B" plan is a rule, not a plan the adapter runs: ask
 * gar_auto_decide (gar/auto_policy.h) for each wait's plan, with a host
 * whose no_block and no_sleep are set (the adapter runs neither), start the
 * plan it chose, and feed the callback's report to gar_auto_learn.
 *
 * Building.  libuv's own header needs the POSIX declarations: under a strict
 * -std=c11, define _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) before the first
 * include. */
#ifndef GAR_UV_H
#define GAR_UV_H

#include <uv.h>

#include <gar/api.h>
#include <gar/caps.h>
#include <gar/error.h>
#include <gar/line.h>
#include <gar/plan.h>
#include <gar/port.h>
#include <gar/reactor.h>
#include <gar/time.h>
#include <gar/wait.h>

/* The longest the watcher goes, while waits pend, before it takes in new
 * starts: the reactor's park bound, which the watcher wakes at anyway (the
 * adapter runs no predicted sleeps, so its idle is parks of that bound). */
#define GAR_UV_CONTROL_PERIOD_NS GAR_REACTOR_PARK_BOUND_DEFAULT_NS

typedef struct gar_uv gar_uv;           /* opaque: one adapter on one loop */
typedef struct gar_uv_wait gar_uv_wait; /* opaque: one wait, until its callback */

/* How a wait ended. */
typedef enum gar_uv_status {
    GAR_UV_DONE,      /* the status said done */
    GAR_UV_FAILED,    /* the wait failed: `code`, with `error` as the port or machine wrote it */
    GAR_UV_CANCELLED, /* gar_uv_cancel or gar_uv_close came first */
} gar_uv_status;

/* What the callback is given (valid during the callback only). */
typedef struct gar_uv_result {
    gar_uv_status status;
    int code;                /* 0, or the failure's negated gar code (GAR_E_WAIT_DEADLINE: the
                              * deadline passed; a port's own code) */
    const gar_error *error;  /* the failure's record, when FAILED; else NULL */
    gar_wait_report report;  /* the wait machine's report (zeros for a wait never started) */
} gar_uv_result;

/* Called exactly once per started wait, on the loop thread.  `handle` is
 * freed when the callback returns. */
typedef void (*gar_uv_callback)(gar_uv_wait *handle, const gar_uv_result *result, void *user);

/* Sets an adapter up on `loop` (initialised, not closed) and starts its
 * watcher thread, which parks with the POSIX host's best park (a word wait
 * where the CPU has one, else spin-yield).  Returns 0 with *out set, or with
 * *out untouched -GAR_E_INVALID_ARGUMENT (NULL out or loop) or
 * -GAR_E_BACKEND (no memory, the host's set-up, uv_async_init, or the
 * thread failed: it names which).  After a failure past uv_async_init, the
 * handle is left closing on the loop: run the loop once before closing it. */
GAR_API int gar_uv_init(gar_uv **out, uv_loop_t *loop, gar_error *err);

/* What the watcher's host offers (its word wait, or why not; no io_uring:
 * the watcher does not use one), for resolving plans with gar_plan_resolve.
 * Returns 0, or -GAR_E_INVALID_ARGUMENT for NULL.  The reasons are static. */
GAR_API int gar_uv_caps(const gar_uv *uv, gar_caps *out, gar_error *err);

/* Starts a wait for `*word` (line, slot, target) under `plan`, resolved for
 * this host (gar_plan_resolve against gar_uv_caps; the "block" arm
 * is refused: it would hold the watcher, and so every other wait, for its
 * whole length).  `port` is NULL (the word is the status) or the completion
 * port whose query is the authority and whose arm names the word to park
 * on (then `word` is only checked for a line).  `deadline` is absolute on
 * gar_posix_now's clock (CLOCK_MONOTONIC), GAR_MONO_NEVER for none: a wait
 * still pending then ends FAILED with -GAR_E_WAIT_DEADLINE.  The plan's
 * predicted sleep is not used (no estimator point here).  Returns 0 with
 * *handle (may be NULL) set, or -GAR_E_INVALID_ARGUMENT (NULL adapter, word,
 * line, plan or callback; a block plan; a port lacking an op the plan needs;
 * an adapter being closed) or -GAR_E_BACKEND (no memory), with nothing
 * started and the callback never called. */
GAR_API int gar_uv_start(gar_uv *uv, const gar_descriptor *word, const gar_port *port,
                         const gar_plan *plan, gar_mono_ns deadline, gar_uv_callback callback,
                         void *user, gar_uv_wait **handle, gar_error *err);

/* Asks for the wait to end: its callback then runs once, with
 * GAR_UV_CANCELLED, after the watcher let go of the line and port — even if
 * the work completed meanwhile but the callback had not run yet.  Only
 * before the handle's callback has run.  Cancelling twice is harmless.
 * Returns 0, or -GAR_E_INVALID_ARGUMENT for NULL. */
GAR_API int gar_uv_cancel(gar_uv_wait *handle, gar_error *err);

/* Stops the watcher (joining it: at most a control period and the step in
 * progress), cancels every wait still pending — their callbacks run before
 * close returns, with GAR_UV_CANCELLED — and closes the async handle.  The
 * adapter is freed by the handle's close callback: run the loop until
 * uv_run returns before uv_loop_close.  NULL is allowed.  Not from inside a
 * callback of this adapter. */
GAR_API void gar_uv_close(gar_uv *uv);

#endif
