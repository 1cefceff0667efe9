/* gar/wait_task.h — the reactor driver (executor kinds "gpu-reactor" and
 * "io-uring"): one wait as a task of gar's executor (gar/executor.h).
 *
 * The wait machine (gar/wait.h) decides exactly as it does inline; this
 * driver performs its actions so that other tasks run while the wait pends:
 *   QUERY, ARM      → the completion port, at once, from the task's poll;
 *   SLEEP_UNTIL t   → an alarm at t (the executor idles to it only when no
 *                     other task is ready);
 *   PARK until t    → a descriptor registration on the armed word with
 *                     deadline t: the reactor parks on the word's line
 *                     through the host's Idle port, bounded by its own park
 *                     bound and t, and answers 1 when the word is reached,
 *                     0 when t passed.  The port's own `park` is not used;
 *   POLL            → the port's poll, then a yield_now while it answers
 *                     pending, so a poll loop is sliced with the other tasks;
 *   BLOCK           → the port's blocking wait, inline from the poll.  It
 *                     holds the executor's thread until the work is done (no
 *                     other task runs meanwhile): that is what the declared
 *                     `block` arm means, and why it is never a default.
 * Every answer is fed with the executor clock's now, read right after it.
 *
 * The wait starts at the task's first poll (start = the clock then), not at
 * init.  When the wait fails (a port error, GAR_E_WAIT_DEADLINE) the task
 * fails with that code unchanged, so the run ends with it (gar/executor.h);
 * the code and the report stay readable here.
 *
 * Ownership: caller-owned; spawn `&wt->task`.  The plan is copied; the port
 * (ops table and context) is borrowed and must outlive the wait, as must the
 * line `arm` points to.  Nothing is allocated.  After the task finished, init
 * may be called again for the next wait. */
#ifndef GAR_WAIT_TASK_H
#define GAR_WAIT_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/executor.h>
#include <gar/line.h>
#include <gar/plan.h>
#include <gar/port.h>
#include <gar/time.h>
#include <gar/wait.h>

typedef struct gar_wait_task {
    gar_task task; /* spawn this */
    /* private */
    gar_plan plan;
    bool has_sleep;
    gar_dur_ns sleep_ns;
    gar_mono_ns deadline;
    gar_port port;
    gar_wait wait;
    gar_descriptor word; /* what ARM wrote, for PARK */
    uint8_t awaiting;    /* the gar_wait_op the task pends on, or GAR_WAIT_OP_DONE for none */
    bool started;
    bool finished;
    int code; /* 0, or the failed wait's negated code */
} gar_wait_task;

/* Prepares a wait under the resolved `plan` with the point's sleep
 * (`has_sleep`, `sleep_ns`: as for gar_wait_init) and an absolute `deadline`
 * (GAR_MONO_NEVER: none), through `port`.  `name` (may be NULL) names the
 * task.  Returns 0, or -GAR_E_INVALID_ARGUMENT for what gar_wait_init
 * refuses, a NULL port ops table, or an op the plan needs left NULL (block:
 * block; poll: query and poll; flag: query and arm); -GAR_E_OPS_VERSION for a
 * port ops table of a version this libgar does not know (gar/port.h).  Not
 * while its task is unfinished in an executor. */
GAR_API int gar_wait_task_init(gar_wait_task *wt, const char *name, const gar_plan *plan, bool has_sleep,
                               gar_dur_ns sleep_ns, gar_mono_ns deadline, gar_port port, gar_error *err);

/* Whether the wait ended (done or failed). */
static inline bool gar_wait_task_finished(const gar_wait_task *wt)
{
    return wt->finished;
}

/* 0 when the wait ended done, its negated code when it failed (also 0 while
 * it runs). */
static inline int gar_wait_task_code(const gar_wait_task *wt)
{
    return wt->code;
}

/* The machine's report so far; final once finished. */
GAR_API gar_wait_report gar_wait_task_report(const gar_wait_task *wt);

#endif
