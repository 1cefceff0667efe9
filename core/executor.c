/* core/executor.c — gar's executor: its run loop and a task's wake sources.
 *
 * The loop reads like its description: poll the ready tasks one at a time,
 * firing the reactor after each poll; when none is ready and some are left,
 * let one reactor turn idle.  A task's one wait is the registration embedded
 * in it, whose wake function only queues the task: wakes never run a task's
 * code, so a wake can never re-enter a poll. */
#include <assert.h>

#include <gar/executor.h>

#include "ops_version.h"
#include "text.h"

static gar_task *of_wait(gar_registration *reg)
{
    return (gar_task *)(void *)((char *)reg - offsetof(gar_task, wait));
}

static void ready_push(gar_executor *ex, gar_task *task, gar_wake why)
{
    task->state = GAR_TASK_STATE_READY;
    task->woken_by = (uint8_t)why;
    task->ready_next = NULL;
    if (ex->ready_last != NULL)
        ex->ready_last->ready_next = task;
    else
        ex->ready_first = task;
    ex->ready_last = task;
}

static gar_task *ready_pop(gar_executor *ex)
{
    gar_task *task = ex->ready_first;
    if (task != NULL) {
        ex->ready_first = task->ready_next;
        if (ex->ready_first == NULL)
            ex->ready_last = NULL;
        task->ready_next = NULL;
    }
    return task;
}

/* The reactor resolved a task's wait: queue the task. */
static void wake_task(gar_registration *reg, bool reached, void *ctx)
{
    gar_task *task = of_wait(reg);
    gar_executor *ex = ctx;
    assert(task->ex == ex && task->state == GAR_TASK_STATE_WAITING);
    gar_wake why = reached ? GAR_WAKE_REACHED
                           : reg->watches_descriptor ? GAR_WAKE_DEADLINE : GAR_WAKE_ALARM;
    ready_push(ex, task, why);
}

/* Takes a task out of the executor: finished, failed or forgotten. */
static void finish(gar_executor *ex, gar_task *task)
{
    gar_reactor_cancel(&ex->reactor, &task->wait);
    if (task->all_prev != NULL)
        task->all_prev->all_next = task->all_next;
    else
        ex->all_first = task->all_next;
    if (task->all_next != NULL)
        task->all_next->all_prev = task->all_prev;
    task->all_prev = task->all_next = NULL;
    task->state = GAR_TASK_STATE_IDLE;
    task->yielded = false;
    task->ex = NULL;
    assert(ex->unfinished > 0);
    ex->unfinished--;
}

void gar_task_init(gar_task *task, const char *name, gar_task_poll_fn poll, void *data)
{
    task->poll = poll;
    task->name = name != NULL ? name : "task";
    task->data = data;
    task->ex = NULL;
    task->ready_next = NULL;
    task->all_prev = task->all_next = NULL;
    task->state = GAR_TASK_STATE_IDLE;
    task->woken_by = GAR_WAKE_SPAWNED;
    task->yielded = false;
    gar_registration_init(&task->wait, NULL, NULL);
}

int gar_executor_init(gar_executor *ex, gar_clock clock, gar_idle idle, gar_error *err)
{
    static const char fn[] = "gar_executor_init";
    if (ex == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "ex", "is NULL");
    if (clock.now == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "clock", "has no now");
    if (idle.ops == NULL || idle.ops->sleep_until == NULL || idle.ops->park == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "idle", "lacks an operation");
    int checked = gar__ops_version_check(fn, "gar_idle_ops", idle.ops->version,
                                         GAR_IDLE_OPS_VERSION, err);
    if (checked < 0)
        return checked;
    gar_reactor_init(&ex->reactor);
    ex->clock = clock;
    ex->idle = idle;
    ex->ready_first = ex->ready_last = NULL;
    ex->all_first = NULL;
    ex->unfinished = 0;
    ex->polls = 0;
    ex->running = false;
    ex->inline_only = false;
    return 0;
}

int gar_executor_set_park_bound(gar_executor *ex, gar_dur_ns bound_ns, gar_error *err)
{
    if (ex == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_executor_set_park_bound",
                             "ex", "is NULL");
    return gar_reactor_set_park_bound(&ex->reactor, bound_ns, err);
}

int gar_executor_spawn(gar_executor *ex, gar_task *task, gar_error *err)
{
    static const char fn[] = "gar_executor_spawn";
    if (ex == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "ex", "is NULL");
    if (task == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "task", "is NULL");
    if (task->poll == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "task", "has no poll function");
    if (task->ex != NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "task",
                             "is already spawned and unfinished");
    if (ex->inline_only)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "ex",
                             "runs one task inline and cannot take more");
    task->ex = ex;
    task->yielded = false;
    gar_registration_init(&task->wait, wake_task, ex);
    task->all_prev = NULL;
    task->all_next = ex->all_first;
    if (ex->all_first != NULL)
        ex->all_first->all_prev = task;
    ex->all_first = task;
    ex->unfinished++;
    ready_push(ex, task, GAR_WAKE_SPAWNED);
    return 0;
}

/* Polls one ready task and settles what it returned.  Returns 0, or the
 * task's error. */
static int poll_one(gar_executor *ex, gar_task *task, gar_error *err)
{
    task->state = GAR_TASK_STATE_RUNNING;
    task->yielded = false;
    ex->polls++;
    int rc = task->poll(task, ex, err);
    if (rc == GAR_TASK_PENDING) {
        task->state = GAR_TASK_STATE_WAITING;
        return 0;
    }
    finish(ex, task);
    if (rc == GAR_TASK_DONE)
        return 0;
    if (rc > 0) {
        char got[GAR__U64_TEXT_BYTES + 40];
        gar__text_out text = gar__text_out_make(got, sizeof got);
        gar__text_puts(&text, "returned ");
        gar__text_put_u64(&text, (uint64_t)rc);
        gar__text_puts(&text, ", not done, pending or an error");
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, task->name, "poll", got);
    }
    return rc;
}

int gar_executor_run(gar_executor *ex, gar_error *err)
{
    if (ex == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_executor_run", "ex", "is NULL");
    if (ex->running)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_executor_run", "ex",
                             "is already running (run was called from one of its tasks)");
    ex->running = true;
    int rc = 0;
    while (ex->unfinished > 0) {
        gar_task *task = ready_pop(ex);
        if (task != NULL) {
            rc = poll_one(ex, task, err);
            if (rc < 0)
                break;
            /* A completion that landed while the task ran is ready work now;
             * a yield queues behind it. */
            gar_reactor_fire(&ex->reactor, gar_clock_now(ex->clock));
            if (task->state == GAR_TASK_STATE_WAITING && task->yielded) {
                task->yielded = false;
                ready_push(ex, task, GAR_WAKE_YIELDED);
            }
            continue;
        }
        rc = gar_reactor_turn(&ex->reactor, ex->clock, ex->idle, ex->unfinished, err);
        if (rc < 0)
            break;
        rc = 0;
    }
    ex->running = false;
    return rc;
}

gar_mono_ns gar_executor_now(const gar_executor *ex)
{
    return gar_clock_now(ex->clock);
}

gar_executor_stats gar_executor_stats_get(const gar_executor *ex)
{
    gar_reactor_stats r = gar_reactor_stats_get(&ex->reactor);
    return (gar_executor_stats){
        .polls = ex->polls,
        .woke = r.woke,
        .slept = r.slept,
        .parked = r.parked,
        .idle_ns = r.idle_ns,
    };
}

void gar_executor_forget(gar_executor *ex)
{
    if (ex == NULL)
        return;
    while (ex->all_first != NULL)
        finish(ex, ex->all_first);
    ex->ready_first = ex->ready_last = NULL;
}

int gar_block_on(gar_task *task, gar_clock clock, gar_idle idle, gar_executor_stats *stats,
                 gar_error *err)
{
    gar_executor ex;
    int rc = gar_executor_init(&ex, clock, idle, err);
    if (rc < 0)
        return rc;
    rc = gar_executor_spawn(&ex, task, err);
    if (rc < 0)
        return rc;
    rc = gar_executor_run(&ex, err);
    if (stats != NULL)
        *stats = gar_executor_stats_get(&ex);
    gar_executor_forget(&ex);
    return rc;
}

/* The Idle port of an inline executor: it is never called, because
 * run_inline never turns the reactor. */
static int inline_sleep_until(void *ctx, gar_mono_ns until, gar_error *err)
{
    (void)ctx;
    (void)until;
    return gar_error_set(err, GAR_E_PENDED_INLINE, 1, "inline sleep");
}

static int inline_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                       gar_mono_ns until, gar_error *err)
{
    (void)ctx;
    (void)line;
    (void)seen;
    (void)until;
    return gar_error_set(err, GAR_E_PENDED_INLINE, 1, "inline park");
}

static const gar_idle_ops inline_idle_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = inline_sleep_until,
    .park = inline_park,
};

int gar_run_inline(gar_task *task, gar_clock clock, gar_error *err)
{
    gar_executor ex;
    gar_idle never = { &inline_idle_ops, NULL };
    int rc = gar_executor_init(&ex, clock, never, err);
    if (rc < 0)
        return rc;
    rc = gar_executor_spawn(&ex, task, err);
    if (rc < 0)
        return rc;
    ex.inline_only = true;
    ex.running = true;
    gar_task *first = ready_pop(&ex);
    assert(first == task);
    rc = poll_one(&ex, first, err);
    ex.running = false;
    if (rc == 0 && gar_task_unfinished(task)) {
        gar_executor_forget(&ex);
        return gar_error_set(err, GAR_E_PENDED_INLINE, 1, task->name);
    }
    return rc;
}

/* ---- Wake sources ---- */

/* Refuses a wake source set from outside the task's own poll. */
static int check_running(const gar_task *task, const char *fn, gar_error *err)
{
    if (task == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "task", "is NULL");
    if (task->ex == NULL || task->state != GAR_TASK_STATE_RUNNING)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "task",
                             "is not being polled (a task sets its wake source from its own poll)");
    return 0;
}

int gar_task_await(gar_task *task, const gar_descriptor *descriptor, gar_mono_ns deadline,
                   gar_error *err)
{
    int rc = check_running(task, "gar_task_await", err);
    if (rc < 0)
        return rc;
    task->yielded = false;
    return gar_reactor_add_descriptor(&task->ex->reactor, &task->wait, descriptor, deadline, err);
}

int gar_task_sleep_until(gar_task *task, gar_mono_ns at, gar_error *err)
{
    int rc = check_running(task, "gar_task_sleep_until", err);
    if (rc < 0)
        return rc;
    task->yielded = false;
    return gar_reactor_add_alarm(&task->ex->reactor, &task->wait, at, err);
}

int gar_task_yield_now(gar_task *task, gar_error *err)
{
    int rc = check_running(task, "gar_task_yield_now", err);
    if (rc < 0)
        return rc;
    gar_reactor_cancel(&task->ex->reactor, &task->wait);
    task->yielded = true;
    return 0;
}

bool gar_task_cancel(gar_task *task)
{
    if (task == NULL || task->ex == NULL)
        return false;
    bool had = task->yielded;
    task->yielded = false;
    return gar_reactor_cancel(&task->ex->reactor, &task->wait) || had;
}
