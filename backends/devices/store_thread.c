/* backends/devices/store_thread.c — a thread that stores scheduled values into a line. */
#define _POSIX_C_SOURCE 200809L

#include <gar/emulated.h>

#include "cpu_pin.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct store_entry {
    gar_store store;
    gar_mono_ns stored_at; /* GAR_MONO_NEVER until made */
} store_entry;

struct gar_store_thread {
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t wake;   /* on CLOCK_MONOTONIC; signalled by stop */
    bool stop;             /* under mutex */
    gar_line *line;
    gar_store_thread_options options;
    /* Written by the thread, read by the joiner after pthread_join. */
    size_t stored;
    gar_timer_slack timer_slack;
    size_t count;
    store_entry entries[];
};

static struct timespec timespec_of(gar_mono_ns at)
{
    return (struct timespec){
        .tv_sec = (time_t)(at / GAR_NS_PER_S),
        .tv_nsec = (long)(at % GAR_NS_PER_S),
    };
}

static void *store_thread_main(void *arg)
{
    gar_store_thread *t = arg;
    if (t->options.cpu >= 0)
        (void)gar_cpu_pin_self(t->options.cpu, NULL); /* best effort: unpinned is still right */
    gar_posix_tighten_timer_slack(&t->timer_slack);

    pthread_mutex_lock(&t->mutex);
    for (size_t i = 0; i < t->count; i++) {
        store_entry *e = &t->entries[i];
        const struct timespec due = timespec_of(e->store.at);
        gar_mono_ns now = gar_posix_now();
        /* A timed wait may end early (a spurious wake): the clock decides. */
        while (!t->stop && now < e->store.at) {
            int rc = pthread_cond_timedwait(&t->wake, &t->mutex, &due);
            assert(rc == 0 || rc == ETIMEDOUT);
            (void)rc;
            now = gar_posix_now();
        }
        if (t->stop)
            break;
        e->stored_at = now;
        gar_line_store(e->store.line != NULL ? e->store.line : t->line, e->store.slot,
                       e->store.value);
        t->stored = i + 1;
        if (t->options.notify != NULL)
            t->options.notify(t->options.notify_ctx, i, now);
    }
    pthread_mutex_unlock(&t->mutex);
    return NULL;
}

static int refuse(gar_error *err, const char *argument, const char *what)
{
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_store_thread_start", argument,
                         what);
}

/* A condition variable timed on CLOCK_MONOTONIC, the clock of the schedule. */
static int make_monotonic_cond(pthread_cond_t *cond)
{
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc != 0)
        return rc;
    rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

int gar_store_thread_start(gar_store_thread **out, gar_line *line, const gar_store *schedule,
                           size_t count, gar_error *err)
{
    return gar_store_thread_start_with(out, line, schedule, count, NULL, err);
}

int gar_store_thread_start_with(gar_store_thread **out, gar_line *line,
                                const gar_store *schedule, size_t count,
                                const gar_store_thread_options *options, gar_error *err)
{
    static const gar_store_thread_options defaults = { .notify = NULL, .cpu = -1 };
    if (options == NULL)
        options = &defaults;
    if (out == NULL)
        return refuse(err, "out", "is NULL");
    if (line == NULL)
        return refuse(err, "line", "is NULL");
    if (schedule == NULL && count > 0)
        return refuse(err, "schedule", "is NULL with a count above 0");
    for (size_t i = 1; i < count; i++) {
        if (schedule[i].at < schedule[i - 1].at) {
            char what[96];
            snprintf(what, sizeof what, "has entry %zu due before entry %zu (times must not decrease)",
                     i, i - 1);
            return refuse(err, "schedule", what);
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (schedule[i].slot.index >= GAR_LINE_WORDS) { /* a slot not made by gar_slot_make */
            char what[64];
            snprintf(what, sizeof what, "has entry %zu naming slot %u (slots are 0..7)", i,
                     (unsigned)schedule[i].slot.index);
            return refuse(err, "schedule", what);
        }
    }
    if (count > (SIZE_MAX - sizeof(gar_store_thread)) / sizeof(store_entry))
        return gar_error_set(err, GAR_E_BACKEND, 2, "allocating the store schedule",
                             strerror(ENOMEM));

    gar_store_thread *t = malloc(sizeof *t + count * sizeof t->entries[0]);
    if (t == NULL)
        return gar_error_set(err, GAR_E_BACKEND, 2, "allocating the store schedule",
                             strerror(ENOMEM));
    t->stop = false;
    t->line = line;
    t->options = *options;
    t->stored = 0;
    t->timer_slack = (gar_timer_slack){ 0 };
    t->count = count;
    for (size_t i = 0; i < count; i++)
        t->entries[i] = (store_entry){ .store = schedule[i], .stored_at = GAR_MONO_NEVER };

    const char *step = "pthread_mutex_init";
    int rc = pthread_mutex_init(&t->mutex, NULL);
    if (rc == 0) {
        step = "pthread_cond_init(CLOCK_MONOTONIC)";
        rc = make_monotonic_cond(&t->wake);
        if (rc == 0) {
            step = "pthread_create";
            rc = pthread_create(&t->thread, NULL, store_thread_main, t);
            if (rc == 0) {
                *out = t;
                return 0;
            }
            pthread_cond_destroy(&t->wake);
        }
        pthread_mutex_destroy(&t->mutex);
    }
    free(t);
    return gar_error_set(err, GAR_E_BACKEND, 2, step, strerror(rc));
}

int gar_store_thread_stop(gar_store_thread *thread, gar_error *err)
{
    if (thread == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_store_thread_stop", "thread",
                             "is NULL");
    pthread_mutex_lock(&thread->mutex);
    thread->stop = true;
    pthread_cond_signal(&thread->wake);
    pthread_mutex_unlock(&thread->mutex);
    return 0;
}

int gar_store_thread_join(gar_store_thread *thread, gar_mono_ns *stored_at,
                          gar_store_thread_report *report, gar_error *err)
{
    if (thread == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_store_thread_join", "thread",
                             "is NULL");
    int rc = pthread_join(thread->thread, NULL);
    assert(rc == 0); /* a started, unjoined thread, never the caller itself */
    (void)rc;
    if (stored_at != NULL)
        for (size_t i = 0; i < thread->count; i++)
            stored_at[i] = thread->entries[i].stored_at;
    if (report != NULL)
        *report = (gar_store_thread_report){
            .stored = thread->stored,
            .timer_slack = thread->timer_slack,
        };
    pthread_cond_destroy(&thread->wake);
    pthread_mutex_destroy(&thread->mutex);
    free(thread);
    return 0;
}
