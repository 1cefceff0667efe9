/* gar/executor.h — gar's executor: one thread, caller-owned tasks, CPU work
 * run while waits pend (docs/glossary.md, "FILL").
 *
 * C has no async/await, so a task is a state machine: a poll function the
 * executor calls, which either finishes (GAR_TASK_DONE), fails (a negated
 * gar code), or returns GAR_TASK_PENDING after setting exactly one wake
 * source for itself:
 *   - gar_task_await:      a descriptor, with an optional deadline;
 *   - gar_task_sleep_until: an alarm;
 *   - gar_task_yield_now:  run again after every other ready task had a turn.
 * Setting a wake source replaces the one set before in the same poll.  On
 * the next poll, gar_task_woken_by says what woke it (reached or deadline for
 * an await), so the task reads the outcome where it resumes.  A task that
 * returns pending with no wake source is never polled again; it counts as
 * left unfinished, and the run ends Stalled once nothing else can happen.
 *
 * Running: each task is polled once after it is spawned, then only when
 * woken.  Ready tasks run in FIFO order; between two polls the executor fires
 * the reactor with the clock's now, so a completion that landed becomes
 * ready work at once; only when no task is ready does it idle through one
 * reactor turn (gar/reactor.h).  A task may, from its poll, spawn tasks, set
 * or cancel wake sources, and cancel other tasks' waits.
 *
 * Errors: a task's negative return ends the run with that code at once; the
 * task that failed is finished (its wait cancelled), every other task keeps
 * its state, and calling run again carries on with them.  An Idle port error
 * ends the run the same way.
 *
 * Ownership: the executor and tasks are caller-owned and must outlive their
 * use; nothing is allocated.  A task is in at most one executor at a time,
 * from spawn until it finishes (or gar_executor_forget).  Not thread-safe. */
#ifndef GAR_EXECUTOR_H
#define GAR_EXECUTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/reactor.h>
#include <gar/time.h>

typedef struct gar_task gar_task;
typedef struct gar_executor gar_executor;

/* What a poll returns (or a negated gar code: the task failed). */
enum {
    GAR_TASK_DONE = 0,
    GAR_TASK_PENDING = 1,
};

/* A task's step.  `err` is the record given to run (may be NULL); a failing
 * task fills it with `return gar_error_set(err, ...)`. */
typedef int (*gar_task_poll_fn)(gar_task *task, gar_executor *ex, gar_error *err);

/* Why a task is being polled. */
typedef enum gar_wake {
    GAR_WAKE_SPAWNED,  /* its first poll */
    GAR_WAKE_REACHED,  /* the awaited descriptor was reached */
    GAR_WAKE_DEADLINE, /* the await's deadline passed first */
    GAR_WAKE_ALARM,    /* its alarm rang */
    GAR_WAKE_YIELDED,  /* it yielded, and every other ready task had a turn */
} gar_wake;

typedef enum gar_task_state {
    GAR_TASK_STATE_IDLE,    /* not spawned, or finished */
    GAR_TASK_STATE_READY,   /* queued to be polled */
    GAR_TASK_STATE_RUNNING, /* being polled */
    GAR_TASK_STATE_WAITING, /* pending on its wake source */
} gar_task_state;

/* Embed in the struct that holds the task's own state (recover it from the
 * task with offsetof, or use `data`). */
struct gar_task {
    gar_task_poll_fn poll;
    const char *name; /* caller-owned, for errors (the site of a PendedInline) */
    void *data;       /* the caller's, untouched */
    /* private */
    gar_executor *ex;
    gar_task *ready_next;
    gar_task *all_prev, *all_next; /* the executor's unfinished tasks */
    uint8_t state;                 /* a gar_task_state */
    uint8_t woken_by;              /* a gar_wake */
    bool yielded;                  /* yield_now during this poll */
    gar_registration wait;         /* the one await or alarm */
};

typedef struct gar_executor_stats {
    uint64_t polls;     /* task polls */
    uint64_t woke;      /* idle turns that found something due (GAR_TURN_WOKE) */
    uint64_t slept;     /* idle turns that slept to an alarm */
    uint64_t parked;    /* idle turns that parked on a line */
    gar_dur_ns idle_ns; /* clock time inside the Idle port, read before and after each call */
} gar_executor_stats;

/* Caller-owned; the fields are private. */
struct gar_executor {
    gar_reactor reactor;
    gar_clock clock;
    gar_idle idle;
    gar_task *ready_first, *ready_last;
    gar_task *all_first;  /* unfinished tasks */
    size_t unfinished;
    uint64_t polls;
    bool running;         /* inside gar_executor_run */
    bool inline_only;     /* a run_inline executor: never idles, spawns refused */
};

/* Makes an unspawned task.  `name` may be NULL ("task"). */
GAR_API void gar_task_init(gar_task *task, const char *name, gar_task_poll_fn poll, void *data);

/* An empty executor that reads `clock` and idles through `idle`.  Returns 0,
 * -GAR_E_INVALID_ARGUMENT for a clock without now or an idle without both
 * operations, or -GAR_E_OPS_VERSION for an idle ops table of a version this
 * libgar does not know (gar/idle.h). */
GAR_API int gar_executor_init(gar_executor *ex, gar_clock clock, gar_idle idle, gar_error *err);

/* The reactor's park bound (gar_reactor_set_park_bound). */
GAR_API int gar_executor_set_park_bound(gar_executor *ex, gar_dur_ns bound_ns, gar_error *err);

/* Queues `task` for its first poll (on the current run's next pass, or the
 * next run).  Returns 0, or -GAR_E_INVALID_ARGUMENT for a task without a
 * poll function, one already unfinished in an executor, or an inline
 * executor (it runs its one task only). */
GAR_API int gar_executor_spawn(gar_executor *ex, gar_task *task, gar_error *err);

/* Runs until every task finished: returns 0; or -GAR_E_STALLED (argument:
 * the number of unfinished tasks) when tasks are left and nothing is
 * registered; or a task's or the Idle port's error.  Refuses
 * (-GAR_E_INVALID_ARGUMENT) to be re-entered from a task. */
GAR_API int gar_executor_run(gar_executor *ex, gar_error *err);

/* Tasks spawned and not yet finished. */
static inline size_t gar_executor_unfinished(const gar_executor *ex)
{
    return ex->unfinished;
}

/* The executor's clock, read now (for tasks). */
GAR_API gar_mono_ns gar_executor_now(const gar_executor *ex);

GAR_API gar_executor_stats gar_executor_stats_get(const gar_executor *ex);

/* Cancels every unfinished task's wait and returns each to the unspawned
 * state (spawnable again), leaving the executor empty.  For giving up after
 * an error or Stalled; not from inside a task. */
GAR_API void gar_executor_forget(gar_executor *ex);

/* Runs `task` to completion on an executor of its own (over `clock` and
 * `idle`), with everything it spawns.  Returns as gar_executor_run; on
 * failure every task of that executor is forgotten before it returns, so
 * none refers to it afterwards.  `stats` (may be NULL) receives its
 * statistics. */
GAR_API int gar_block_on(gar_task *task, gar_clock clock, gar_idle idle, gar_executor_stats *stats,
                         gar_error *err);

/* Polls `task` exactly once, for hosts whose every operation completes at
 * once.  Returns 0 when it finished, its error when it failed, or
 * -GAR_E_PENDED_INLINE naming the task's name as the site when it returned
 * pending (a host bug: such a host must never pend) — never a hang; its wait
 * is cancelled and it is unspawned again.  A task run inline may not spawn. */
GAR_API int gar_run_inline(gar_task *task, gar_clock clock, gar_error *err);

/* ---- Wake sources, set by a task during its own poll. ---- */

/* Wakes the task when `*descriptor` is reached (GAR_WAKE_REACHED) or at
 * `deadline` (GAR_WAKE_DEADLINE; GAR_MONO_NEVER: none).  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT when the task is not being polled or the
 * descriptor is unusable. */
GAR_API int gar_task_await(gar_task *task, const gar_descriptor *descriptor, gar_mono_ns deadline,
                           gar_error *err);

/* Wakes the task at `at` (GAR_WAKE_ALARM).  An `at` already past wakes it on
 * the next pass.  Returns 0, or -GAR_E_INVALID_ARGUMENT when the task is not
 * being polled or `at` is GAR_MONO_NEVER. */
GAR_API int gar_task_sleep_until(gar_task *task, gar_mono_ns at, gar_error *err);

/* Polls the task again once every other task that is ready when this poll
 * returns (those woken right then included) had its turn (GAR_WAKE_YIELDED):
 * cooperative slicing of CPU work between waits.  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT when the task is not being polled. */
GAR_API int gar_task_yield_now(gar_task *task, gar_error *err);

/* Cancels the task's wait or yield, if any (a waiting task is then never
 * woken, unless it is given a new wake source from its own poll).  Returns
 * true when there was one. */
GAR_API bool gar_task_cancel(gar_task *task);

/* Why the task is being polled now (valid during its poll). */
static inline gar_wake gar_task_woken_by(const gar_task *task)
{
    return (gar_wake)task->woken_by;
}

/* Whether the task is spawned and not finished. */
static inline bool gar_task_unfinished(const gar_task *task)
{
    return task->ex != NULL;
}

#endif
