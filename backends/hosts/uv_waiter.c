/* backends/hosts/uv_waiter.c — the libuv adapter (gar/uv.h): a watcher thread runs
 * gar's executor with one reactor-driven wait task per wait, and hands each
 * outcome to the loop through a uv_async_t.
 *
 * Three lists move records between the two threads, under one mutex:
 *   inbox   started on the loop thread, not yet spawned by the watcher;
 *   live    spawned on the watcher's executor (the watcher's alone);
 *   outbox  ended (done, failed or cancelled), for the loop to deliver.
 * A control task on the executor takes in the inbox: at its first poll, then
 * every GAR_UV_CONTROL_PERIOD_NS (an alarm) while waits live.  When none
 * live and the inbox is empty it finishes, the executor run returns, and
 * the watcher sleeps on the condition variable until a start or the close.
 *
 * Each wait is a gar_wait_task whose poll is wrapped: the wrapper ends a
 * cancelled wait at its next poll, and turns the wait's end (done or failed)
 * into an outbox entry instead of a failed run, so one wait's error never
 * stops the others. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <gar/executor.h>
#include <gar/uv.h>
#include <gar/wait_task.h>

#include "cpu_relax.h"
#include <gar/posix.h>

struct gar_uv_wait {
    gar_wait_task wt;           /* its task is what the watcher spawns */
    gar_task_poll_fn wait_poll; /* the wait task's own poll, which the wrapper calls */
    gar_uv *uv;
    gar_descriptor word;        /* the word port's descriptor (no port given) */
    gar_uv_callback callback;
    void *user;
    atomic_bool cancel;         /* set on the loop thread, read by the watcher */
    gar_uv_status status;       /* set by the watcher before the record enters the outbox */
    int code;
    gar_error error;
    gar_uv_wait *next, *prev;
};

struct gar_uv {
    uv_loop_t *loop;
    uv_async_t async;           /* its data is the adapter */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;        /* inbox gained a record, close asked, or set-up ended */
    gar_uv_wait *inbox, *outbox; /* under lock; outbox is delivered oldest first */
    gar_uv_wait *outbox_last;
    bool closing;               /* under lock */
    bool setup_done;            /* under lock: the watcher's host is set up (or failed) */
    int setup_code;
    gar_error setup_error;
    size_t undelivered;         /* loop thread: started, callback not yet run */

    /* The watcher's own. */
    gar_posix_host host;
    gar_executor ex;
    gar_task control;
    gar_uv_wait *live;
    gar_uv_wait *ended;  /* finished tasks, posted once the executor let go of them */
};

static gar_uv_wait *of_task(gar_task *task)
{
    return (gar_uv_wait *)(void *)((char *)task - offsetof(gar_uv_wait, wt.task));
}

/* ---- the word as its own status (no port given) -------------------------- */

static int word_query(void *ctx, gar_error *err)
{
    (void)err;
    return gar_descriptor_reached(ctx) ? 1 : 0;
}

static int word_poll(void *ctx, gar_error *err)
{
    gar_cpu_relax();
    return word_query(ctx, err);
}

static int word_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    (void)err;
    *word = *(const gar_descriptor *)ctx;
    return 0;
}

static const gar_port_ops word_port_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = word_query,
    .poll = word_poll,
    .arm = word_arm,
};

/* ---- between the threads -------------------------------------------------- */

/* Watcher: hands an ended record to the loop, which may free it at once.
 * Takes the lock. */
static void post(gar_uv *uv, gar_uv_wait *w)
{
    pthread_mutex_lock(&uv->lock);
    w->next = NULL;
    if (uv->outbox_last != NULL)
        uv->outbox_last->next = w;
    else
        uv->outbox = w;
    uv->outbox_last = w;
    pthread_mutex_unlock(&uv->lock);
    uv_async_send(&uv->async);
}

/* Watcher: posts the waits whose tasks finished.  A task's poll cannot post
 * itself: the executor still unlinks the task after the poll returns.  So it
 * is posted at the next thing the executor does — another poll, an idle
 * call — or when the run returns. */
static void post_ended(gar_uv *uv)
{
    while (uv->ended != NULL) {
        gar_uv_wait *w = uv->ended;
        uv->ended = w->next;
        post(uv, w);
    }
}

static void live_add(gar_uv *uv, gar_uv_wait *w)
{
    w->prev = NULL;
    w->next = uv->live;
    if (uv->live != NULL)
        uv->live->prev = w;
    uv->live = w;
}

static void live_remove(gar_uv *uv, gar_uv_wait *w)
{
    if (w->prev != NULL)
        w->prev->next = w->next;
    else
        uv->live = w->next;
    if (w->next != NULL)
        w->next->prev = w->prev;
}

/* ---- the watcher ---------------------------------------------------------- */

/* A wait's poll: the wait task's, unless it was cancelled. */
static int wait_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)err; /* a wait's failure is its own, kept in its record */
    gar_uv_wait *w = of_task(task);
    post_ended(w->uv);
    int rc;
    if (atomic_load_explicit(&w->cancel, memory_order_acquire)) {
        w->status = GAR_UV_CANCELLED;
    } else {
        rc = w->wait_poll(task, ex, &w->error);
        if (rc == GAR_TASK_PENDING)
            return GAR_TASK_PENDING;
        w->status = rc == GAR_TASK_DONE ? GAR_UV_DONE : GAR_UV_FAILED;
        w->code = rc == GAR_TASK_DONE ? 0 : rc;
    }
    live_remove(w->uv, w);
    w->next = w->uv->ended;
    w->uv->ended = w;
    return GAR_TASK_DONE;
}

/* The watcher's Idle port: the host's, posting ended waits first. */
static int watcher_sleep_until(void *ctx, gar_mono_ns until, gar_error *err)
{
    gar_uv *uv = ctx;
    post_ended(uv);
    gar_idle host = gar_posix_host_idle(&uv->host);
    return host.ops->sleep_until(host.ctx, until, err);
}

static int watcher_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                        gar_mono_ns until, gar_error *err)
{
    gar_uv *uv = ctx;
    post_ended(uv);
    gar_idle host = gar_posix_host_idle(&uv->host);
    return host.ops->park(host.ctx, line, seen, until, err);
}

static const gar_idle_ops watcher_idle_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = watcher_sleep_until,
    .park = watcher_park,
};

/* The sentinel the control task fails the run with when the adapter closes. */
#define CLOSING_CODE (-GAR_E_STALLED)

static int control_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    gar_uv *uv = task->data;
    post_ended(uv);
    pthread_mutex_lock(&uv->lock);
    bool closing = uv->closing;
    gar_uv_wait *in = NULL;
    if (!closing) { /* when closing, the watcher cancels what is left in the inbox */
        in = uv->inbox;
        uv->inbox = NULL;
    }
    pthread_mutex_unlock(&uv->lock);
    if (closing)
        return CLOSING_CODE; /* the watcher forgets every task and cancels the live */

    while (in != NULL) {
        gar_uv_wait *w = in;
        in = in->next;
        if (atomic_load_explicit(&w->cancel, memory_order_acquire)) {
            w->status = GAR_UV_CANCELLED;
            post(uv, w);
            continue;
        }
        live_add(uv, w);
        /* A task never in an executor is always spawnable. */
        gar_executor_spawn(ex, &w->wt.task, NULL);
    }
    if (uv->live == NULL) {
        pthread_mutex_lock(&uv->lock);
        bool more = uv->inbox != NULL;
        pthread_mutex_unlock(&uv->lock);
        if (!more)
            return GAR_TASK_DONE; /* the run ends; the watcher sleeps until a start */
    }
    int rc = gar_task_sleep_until(task, gar_after(gar_executor_now(ex), GAR_UV_CONTROL_PERIOD_NS),
                                  err);
    return rc < 0 ? rc : GAR_TASK_PENDING;
}

/* After a run ended with an error (the close, or an Idle port's failure):
 * every live wait leaves the executor and ends, cancelled or failed. */
static void end_live(gar_uv *uv, bool closing, int code, const gar_error *error)
{
    gar_executor_forget(&uv->ex);
    post_ended(uv);
    while (uv->live != NULL) {
        gar_uv_wait *w = uv->live;
        live_remove(uv, w);
        if (closing) {
            w->status = GAR_UV_CANCELLED;
        } else {
            w->status = GAR_UV_FAILED;
            w->code = code;
            w->error = *error;
        }
        post(uv, w);
    }
}

static void *watcher_main(void *arg)
{
    gar_uv *uv = arg;
    gar_error err;
    int rc = gar_posix_host_init(&uv->host, NULL, &err); /* this thread's timer slack */
    if (rc == 0)
        rc = gar_executor_init(&uv->ex, gar_posix_clock(),
                               (gar_idle){ .ops = &watcher_idle_ops, .ctx = uv }, &err);
    pthread_mutex_lock(&uv->lock);
    uv->setup_done = true;
    uv->setup_code = rc;
    if (rc < 0)
        uv->setup_error = err;
    pthread_cond_broadcast(&uv->wake);
    if (rc < 0) {
        pthread_mutex_unlock(&uv->lock);
        return NULL;
    }
    for (;;) {
        while (uv->inbox == NULL && !uv->closing)
            pthread_cond_wait(&uv->wake, &uv->lock);
        if (uv->closing)
            break;
        pthread_mutex_unlock(&uv->lock);

        gar_task_init(&uv->control, "uv control", control_poll, uv);
        gar_executor_spawn(&uv->ex, &uv->control, NULL);
        gar_error_clear(&err);
        rc = gar_executor_run(&uv->ex, &err);

        post_ended(uv);
        pthread_mutex_lock(&uv->lock);
        bool closing = uv->closing;
        pthread_mutex_unlock(&uv->lock);
        if (rc < 0)
            end_live(uv, closing, rc, &err);
        pthread_mutex_lock(&uv->lock);
    }
    /* Closing: starts never spawned end cancelled too. */
    gar_uv_wait *in = uv->inbox;
    uv->inbox = NULL;
    pthread_mutex_unlock(&uv->lock);
    end_live(uv, true, 0, NULL);
    while (in != NULL) {
        gar_uv_wait *w = in;
        in = in->next;
        w->status = GAR_UV_CANCELLED;
        post(uv, w);
    }
    return NULL;
}

/* ---- the loop thread ------------------------------------------------------ */

static void deliver(gar_uv *uv, gar_uv_wait *w)
{
    gar_uv_result result = {
        .status = atomic_load_explicit(&w->cancel, memory_order_acquire) ? GAR_UV_CANCELLED
                                                                         : w->status,
        .report = gar_wait_task_report(&w->wt),
    };
    if (result.status == GAR_UV_FAILED) {
        result.code = w->code;
        result.error = &w->error;
    }
    w->callback(w, &result, w->user);
    free(w);
    if (--uv->undelivered == 0)
        uv_unref((uv_handle_t *)&uv->async); /* nothing pending: let uv_run return */
}

static void drain_outbox(gar_uv *uv)
{
    pthread_mutex_lock(&uv->lock);
    gar_uv_wait *out = uv->outbox;
    uv->outbox = uv->outbox_last = NULL;
    pthread_mutex_unlock(&uv->lock);
    while (out != NULL) {
        gar_uv_wait *w = out;
        out = out->next;
        deliver(uv, w);
    }
}

static void on_async(uv_async_t *async)
{
    drain_outbox(async->data);
}

static void on_closed(uv_handle_t *handle)
{
    gar_uv *uv = handle->data;
    pthread_mutex_destroy(&uv->lock);
    pthread_cond_destroy(&uv->wake);
    free(uv);
}

int gar_uv_init(gar_uv **out, uv_loop_t *loop, gar_error *err)
{
    static const char fn[] = "gar_uv_init";
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "out", "is NULL");
    if (loop == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "loop", "is NULL");
    gar_uv *uv = calloc(1, sizeof *uv);
    if (uv == NULL)
        return gar_error_set(err, GAR_E_BACKEND, 2, "allocating the libuv adapter",
                             strerror(ENOMEM));
    uv->loop = loop;
    if (pthread_mutex_init(&uv->lock, NULL) != 0) {
        free(uv);
        return gar_error_set(err, GAR_E_BACKEND, 2, "pthread_mutex_init", "failed");
    }
    if (pthread_cond_init(&uv->wake, NULL) != 0) {
        pthread_mutex_destroy(&uv->lock);
        free(uv);
        return gar_error_set(err, GAR_E_BACKEND, 2, "pthread_cond_init", "failed");
    }
    int rc = uv_async_init(loop, &uv->async, on_async);
    if (rc != 0) {
        pthread_cond_destroy(&uv->wake);
        pthread_mutex_destroy(&uv->lock);
        free(uv);
        return gar_error_set(err, GAR_E_BACKEND, 2, "uv_async_init", uv_strerror(rc));
    }
    uv->async.data = uv;
    uv_unref((uv_handle_t *)&uv->async); /* no wait pends yet */

    rc = pthread_create(&uv->thread, NULL, watcher_main, uv);
    if (rc != 0) {
        uv_close((uv_handle_t *)&uv->async, on_closed);
        return gar_error_set(err, GAR_E_BACKEND, 2, "starting the watcher thread", strerror(rc));
    }
    pthread_mutex_lock(&uv->lock);
    while (!uv->setup_done)
        pthread_cond_wait(&uv->wake, &uv->lock);
    rc = uv->setup_code;
    pthread_mutex_unlock(&uv->lock);
    if (rc < 0) {
        pthread_join(uv->thread, NULL);
        if (err != NULL)
            *err = uv->setup_error;
        uv_close((uv_handle_t *)&uv->async, on_closed);
        return rc;
    }
    *out = uv;
    return 0;
}

int gar_uv_caps(const gar_uv *uv, gar_caps *out, gar_error *err)
{
    if (uv == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_uv_caps",
                             uv == NULL ? "uv" : "out", "is NULL");
    /* The watcher set its host up before init returned, and never changes it. */
    gar_posix_host_caps(&uv->host, out);
    return 0;
}

int gar_uv_start(gar_uv *uv, const gar_descriptor *word, const gar_port *port,
                 const gar_plan *plan, gar_mono_ns deadline, gar_uv_callback callback,
                 void *user, gar_uv_wait **handle, gar_error *err)
{
    static const char fn[] = "gar_uv_start";
    if (uv == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "uv", "is NULL");
    if (word == NULL || word->line == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "word", "has no line");
    if (plan == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan", "is NULL");
    if (plan->park == GAR_PARK_BLOCK)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan",
                             "is 'block', which would hold the watcher for every wait");
    if (callback == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "callback", "is NULL");
    gar_uv_wait *w = calloc(1, sizeof *w);
    if (w == NULL)
        return gar_error_set(err, GAR_E_BACKEND, 2, "allocating a wait", strerror(ENOMEM));
    w->uv = uv;
    w->word = *word;
    w->callback = callback;
    w->user = user;
    atomic_init(&w->cancel, false);
    gar_port use = port != NULL ? *port : (gar_port){ .ops = &word_port_ops, .ctx = &w->word };
    int rc = gar_wait_task_init(&w->wt, "uv wait", plan, false, 0, deadline, use, err);
    if (rc < 0) {
        free(w);
        return rc;
    }
    w->wait_poll = w->wt.task.poll;
    w->wt.task.poll = wait_poll;

    pthread_mutex_lock(&uv->lock);
    bool closing = uv->closing;
    if (!closing) {
        w->next = uv->inbox;
        uv->inbox = w;
        pthread_cond_signal(&uv->wake);
    }
    pthread_mutex_unlock(&uv->lock);
    if (closing) {
        free(w);
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "uv", "is being closed");
    }
    if (uv->undelivered++ == 0)
        uv_ref((uv_handle_t *)&uv->async); /* a wait pends: keep uv_run running */
    if (handle != NULL)
        *handle = w;
    return 0;
}

int gar_uv_cancel(gar_uv_wait *handle, gar_error *err)
{
    if (handle == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_uv_cancel", "handle",
                             "is NULL");
    atomic_store_explicit(&handle->cancel, true, memory_order_release);
    return 0;
}

void gar_uv_close(gar_uv *uv)
{
    if (uv == NULL)
        return;
    pthread_mutex_lock(&uv->lock);
    uv->closing = true;
    pthread_cond_broadcast(&uv->wake);
    pthread_mutex_unlock(&uv->lock);
    pthread_join(uv->thread, NULL);
    drain_outbox(uv); /* every wait is there now: each gets its callback */
    uv_close((uv_handle_t *)&uv->async, on_closed);
}
