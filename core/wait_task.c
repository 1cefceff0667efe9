/* core/wait_task.c — the reactor driver: the wait machine as an executor
 * task.  Each poll feeds the answer the task was woken with (an alarm, a
 * park's registration, a yield between polls), then performs actions until
 * one needs time to pass: that one becomes the task's wake source. */
#include <gar/wait_task.h>

#include "ops_version.h"

static gar_wait_task *of_task(gar_task *task)
{
    return (gar_wait_task *)(void *)((char *)task - offsetof(gar_wait_task, task));
}

/* Refuses a port that lacks an op the plan's actions need here (the port's
 * park is never needed: the reactor parks). */
static int check_port(const gar_plan *plan, gar_port port, gar_error *err)
{
    static const char fn[] = "gar_wait_task_init";
    const gar_port_ops *ops = port.ops;
    if (ops == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "port", "has no ops table");
    int rc = gar__ops_version_check(fn, "gar_port_ops", ops->version, GAR_PORT_OPS_VERSION, err);
    if (rc < 0)
        return rc;
    switch (plan->park) {
    case GAR_PARK_BLOCK:
        if (ops->block == NULL)
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "port",
                                 "has no block, which plan 'block' needs");
        return 0;
    case GAR_PARK_POLL:
        if (ops->query == NULL || ops->poll == NULL)
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "port",
                                 "lacks query or poll, which plan 'poll' needs");
        return 0;
    case GAR_PARK_FLAG:
        if (ops->query == NULL || ops->arm == NULL)
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "port",
                                 "lacks query or arm, which plan 'flag' needs");
        return 0;
    case GAR_PARK_AUTO:
        break; /* gar_wait_init refuses it first */
    }
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan", "has an unknown park");
}

/* Feeds the answer the task was woken with. */
static int feed_wake(gar_wait_task *wt, gar_executor *ex, gar_error *err)
{
    int answer = 0;
    switch ((gar_wait_op)wt->awaiting) {
    case GAR_WAIT_OP_SLEEP_UNTIL:
        answer = 0; /* the alarm rang: slept */
        break;
    case GAR_WAIT_OP_PARK:
        answer = gar_task_woken_by(&wt->task) == GAR_WAKE_REACHED ? 1 : 0;
        break;
    default:
        return 0; /* a yield after a pending poll: nothing to feed */
    }
    wt->awaiting = GAR_WAIT_OP_DONE;
    return gar_wait_feed(&wt->wait, answer, gar_executor_now(ex), err);
}

/* Performs actions until the wait ends or needs time to pass. */
static int drive(gar_wait_task *wt, gar_executor *ex, gar_error *err)
{
    const gar_port_ops *ops = wt->port.ops;
    void *ctx = wt->port.ctx;
    for (;;) {
        gar_wait_action a = gar_wait_next(&wt->wait);
        int answer;
        switch (a.op) {
        case GAR_WAIT_OP_QUERY:
            answer = ops->query(ctx, err);
            break;
        case GAR_WAIT_OP_ARM:
            answer = ops->arm(ctx, &wt->word, err);
            break;
        case GAR_WAIT_OP_BLOCK:
            answer = ops->block(ctx, err);
            break;
        case GAR_WAIT_OP_POLL:
            answer = ops->poll(ctx, err);
            if (answer == 0) {
                /* Pending: let every other ready task run before the next step. */
                int rc = gar_wait_feed(&wt->wait, 0, gar_executor_now(ex), err);
                if (rc < 0 || gar_wait_next(&wt->wait).op != GAR_WAIT_OP_POLL)
                    continue; /* the machine ended it or moved on: act on that */
                wt->awaiting = GAR_WAIT_OP_POLL;
                rc = gar_task_yield_now(&wt->task, err);
                return rc < 0 ? rc : GAR_TASK_PENDING;
            }
            break;
        case GAR_WAIT_OP_SLEEP_UNTIL: {
            int rc = gar_task_sleep_until(&wt->task, a.until, err);
            if (rc < 0)
                return rc;
            wt->awaiting = GAR_WAIT_OP_SLEEP_UNTIL;
            return GAR_TASK_PENDING;
        }
        case GAR_WAIT_OP_PARK: {
            int rc = gar_task_await(&wt->task, &wt->word, a.until, err);
            if (rc < 0)
                return rc;
            wt->awaiting = GAR_WAIT_OP_PARK;
            return GAR_TASK_PENDING;
        }
        case GAR_WAIT_OP_DONE:
            wt->finished = true;
            return GAR_TASK_DONE;
        case GAR_WAIT_OP_FAILED:
        default:
            wt->finished = true;
            wt->code = a.code < 0 ? a.code : -GAR_E_INVALID_ARGUMENT;
            return wt->code;
        }
        /* A port's error is fed too: the machine ends FAILED with it, and
         * `err` keeps what the port wrote. */
        gar_wait_feed(&wt->wait, answer, gar_executor_now(ex), err);
    }
}

static int wait_task_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    gar_wait_task *wt = of_task(task);
    if (!wt->started) {
        wt->started = true;
        int rc = gar_wait_init(&wt->wait, &wt->plan, wt->has_sleep, wt->sleep_ns,
                               gar_executor_now(ex), wt->deadline, err);
        if (rc < 0) {
            wt->finished = true;
            return wt->code = rc;
        }
    } else {
        feed_wake(wt, ex, err); /* an out-of-range answer shows as FAILED next */
    }
    return drive(wt, ex, err);
}

int gar_wait_task_init(gar_wait_task *wt, const char *name, const gar_plan *plan, bool has_sleep,
                       gar_dur_ns sleep_ns, gar_mono_ns deadline, gar_port port, gar_error *err)
{
    static const char fn[] = "gar_wait_task_init";
    if (wt == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wt", "is NULL");
    if (plan == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan", "is NULL");
    int rc = check_port(plan, port, err);
    if (rc < 0)
        return rc;
    /* Let the machine refuse what it refuses now, at set-up, not mid-run. */
    rc = gar_wait_init(&wt->wait, plan, has_sleep, sleep_ns, 0, deadline, err);
    if (rc < 0)
        return rc;
    gar_task_init(&wt->task, name != NULL ? name : "wait", wait_task_poll, NULL);
    wt->plan = *plan;
    wt->has_sleep = has_sleep;
    wt->sleep_ns = sleep_ns;
    wt->deadline = deadline;
    wt->port = port;
    wt->word = (gar_descriptor){ 0 };
    wt->awaiting = GAR_WAIT_OP_DONE;
    wt->started = false;
    wt->finished = false;
    wt->code = 0;
    return 0;
}

gar_wait_report gar_wait_task_report(const gar_wait_task *wt)
{
    return gar_wait_report_of(&wt->wait);
}
