/* tests/fake_cudart/fake_runtime.c — streams as threads that run kernels of
 * given durations; see fake_runtime.h. */
#define _GNU_SOURCE
#include "fake_runtime.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "fake_context.h"

typedef struct fake_item {
    uint64_t duration_ns;
    int fault;
    fake_event *mark; /* an event's mark: no work, stamps the event */
    uint64_t *word;   /* a stream write: no work, stores `value` here */
    uint64_t value;
} fake_item;

struct fake_stream {
    pthread_mutex_t mu;
    pthread_cond_t work;    /* the thread waits here for items */
    pthread_cond_t settled; /* blocking waiters wait here for completions */
    fake_item *items;       /* ring of `cap` items, head at completed % cap */
    uint64_t cap;
    _Atomic uint64_t enqueued;  /* both written under mu, read without it by queries */
    _Atomic uint64_t completed;
    enum fake_capture capture;
    bool destroyed;
    fake_ctx *ctx;
    fake_stream *next_all;
};

struct fake_event {
    pthread_mutex_t mu;
    fake_stream *stream; /* NULL: never recorded */
    uint64_t target;     /* done once stream->completed >= target */
    uint64_t done_ns;    /* stamped when it completed; valid once done */
    _Atomic bool stamped;
};

static fake_codes codes = { 0, 600, 1, 900, 901 };
static _Atomic int schedule = FAKE_SPIN;
static _Atomic int sticky;          /* a fault's code, once a faulting kernel completed */
static _Thread_local int pending;   /* the last launch refusal, until read */
static pthread_mutex_t all_mu = PTHREAD_MUTEX_INITIALIZER;
static fake_stream *all_streams;
static fake_stream *legacy;
static _Thread_local fake_stream *thread_default;
static _Atomic uint64_t stores_done;  /* stream writes performed */
static _Atomic uint64_t syncs_pending; /* synchronises that found work pending */

void fake_set_codes(const fake_codes *c)
{
    codes = *c;
}

uint64_t fake_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
    struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* The stream's thread: runs each item for its duration, in order. */
static void *run_stream(void *arg)
{
    fake_stream *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        uint64_t done = atomic_load(&s->completed);
        while (s->enqueued == done)
            pthread_cond_wait(&s->work, &s->mu);
        fake_item item = s->items[done % s->cap];
        pthread_mutex_unlock(&s->mu);
        if (item.duration_ns > 0)
            sleep_until(fake_now_ns() + item.duration_ns);
        pthread_mutex_lock(&s->mu);
        /* The stamp, the fault and the count change together: a query that
         * sees the work done sees its time and its error. */
        if (item.mark) {
            pthread_mutex_lock(&item.mark->mu);
            item.mark->done_ns = fake_now_ns();
            atomic_store(&item.mark->stamped, true);
            pthread_mutex_unlock(&item.mark->mu);
        }
        if (item.word) {
            __atomic_store_n(item.word, item.value, __ATOMIC_RELEASE);
            atomic_fetch_add(&stores_done, 1);
        }
        if (item.fault) {
            int none = 0;
            atomic_compare_exchange_strong(&sticky, &none, item.fault);
        }
        atomic_store(&s->completed, done + 1);
        pthread_cond_broadcast(&s->settled);
    }
    return NULL;
}

fake_stream *fake_stream_new(fake_ctx *ctx)
{
    fake_stream *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work, NULL);
    pthread_cond_init(&s->settled, NULL);
    s->ctx = ctx;
    s->cap = 64;
    s->items = calloc(s->cap, sizeof *s->items);
    if (!s->items)
        abort();
    pthread_t thread;
    if (pthread_create(&thread, NULL, run_stream, s) != 0)
        abort();
    pthread_detach(thread);
    pthread_mutex_lock(&all_mu);
    s->next_all = all_streams;
    all_streams = s;
    pthread_mutex_unlock(&all_mu);
    return s;
}

void fake_stream_destroy(fake_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->destroyed = true;
    pthread_mutex_unlock(&s->mu);
}

static void make_legacy(void)
{
    legacy = fake_stream_new(fake_primary_ctx(0));
}

fake_stream *fake_legacy_stream(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_legacy);
    return legacy;
}

fake_stream *fake_thread_stream(void)
{
    if (!thread_default)
        thread_default = fake_stream_new(fake_current_ctx());
    return thread_default;
}

fake_stream *fake_stream_of(uintptr_t handle, int per_thread)
{
    if (handle == 0)
        return per_thread ? fake_thread_stream() : fake_legacy_stream();
    if (handle == 1)
        return fake_legacy_stream();
    if (handle == 2)
        return fake_thread_stream();
    return (fake_stream *)handle;
}

/* Appends an item under s->mu, growing the ring when full. */
static uint64_t push_item(fake_stream *s, fake_item item)
{
    uint64_t done = atomic_load(&s->completed);
    if (s->enqueued - done == s->cap) {
        fake_item *grown = calloc(s->cap * 2, sizeof *grown);
        if (!grown)
            abort();
        for (uint64_t i = done; i < s->enqueued; i++)
            grown[i % (s->cap * 2)] = s->items[i % s->cap];
        free(s->items);
        s->items = grown;
        s->cap *= 2;
    }
    uint64_t at = atomic_load(&s->enqueued);
    s->items[at % s->cap] = item;
    atomic_store(&s->enqueued, at + 1);
    pthread_cond_signal(&s->work);
    return at + 1;
}

int fake_launch(fake_stream *s, uint64_t duration_ns, int fault, int refuse)
{
    if (refuse) {
        pending = refuse;
        return refuse;
    }
    pthread_mutex_lock(&s->mu);
    if (s->capture == FAKE_CAPTURE_NONE && !s->destroyed)
        push_item(s, (fake_item){ duration_ns, fault, NULL, NULL, 0 });
    pthread_mutex_unlock(&s->mu);
    return codes.success;
}

uint64_t fake_stream_pending(fake_stream *s)
{
    /* completed first: it never passes enqueued, so the difference never wraps */
    uint64_t done = atomic_load(&s->completed);
    return atomic_load(&s->enqueued) - done;
}

int fake_stream_query(fake_stream *s)
{
    if (atomic_load(&sticky))
        return atomic_load(&sticky);
    return fake_stream_pending(s) ? codes.not_ready : codes.success;
}

/* Waits until s->completed reaches `target`, as the schedule says. */
static void wait_completed(fake_stream *s, uint64_t target)
{
    int how = atomic_load(&schedule);
    if (how == FAKE_BLOCK) {
        pthread_mutex_lock(&s->mu);
        while (atomic_load(&s->completed) < target)
            pthread_cond_wait(&s->settled, &s->mu);
        pthread_mutex_unlock(&s->mu);
        return;
    }
    while (atomic_load_explicit(&s->completed, memory_order_acquire) < target) {
        if (how == FAKE_YIELD)
            sched_yield();
    }
}

int fake_stream_synchronize(fake_stream *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->capture != FAKE_CAPTURE_NONE) {
        s->capture = FAKE_CAPTURE_INVALIDATED;
        pthread_mutex_unlock(&s->mu);
        return codes.capture_unsupported;
    }
    uint64_t target = s->enqueued;
    pthread_mutex_unlock(&s->mu);
    wait_completed(s, target);
    return atomic_load(&sticky) ? atomic_load(&sticky) : codes.success;
}

int fake_device_synchronize(void)
{
    pthread_mutex_lock(&all_mu);
    fake_stream *first = all_streams;
    pthread_mutex_unlock(&all_mu);
    for (fake_stream *s = first; s; s = s->next_all) {
        pthread_mutex_lock(&s->mu);
        uint64_t target = s->enqueued;
        pthread_mutex_unlock(&s->mu);
        wait_completed(s, target);
    }
    return atomic_load(&sticky) ? atomic_load(&sticky) : codes.success;
}

fake_event *fake_event_new(void)
{
    fake_event *e = calloc(1, sizeof *e);
    if (!e)
        abort();
    pthread_mutex_init(&e->mu, NULL);
    return e;
}

void fake_event_destroy(fake_event *e)
{
    /* An event still marked in a stream's queue is stamped later: keep it. */
    pthread_mutex_lock(&e->mu);
    bool in_queue = e->stream && !atomic_load(&e->stamped);
    pthread_mutex_unlock(&e->mu);
    if (!in_queue)
        free(e);
}

int fake_event_record(fake_event *e, fake_stream *s)
{
    pthread_mutex_lock(&s->mu);
    pthread_mutex_lock(&e->mu);
    e->stream = s;
    atomic_store(&e->stamped, false);
    if (s->enqueued == atomic_load(&s->completed)) {
        /* Nothing pending: the mark is done as it is recorded. */
        e->target = s->enqueued;
        e->done_ns = fake_now_ns();
        atomic_store(&e->stamped, true);
        pthread_mutex_unlock(&e->mu);
    } else {
        pthread_mutex_unlock(&e->mu);
        e->target = push_item(s, (fake_item){ 0, 0, e, NULL, 0 });
    }
    pthread_mutex_unlock(&s->mu);
    return codes.success;
}

int fake_event_query(fake_event *e)
{
    if (atomic_load(&sticky))
        return atomic_load(&sticky);
    if (!e->stream)
        return codes.success;
    return atomic_load(&e->stamped) ? codes.success : codes.not_ready;
}

int fake_event_synchronize(fake_event *e)
{
    if (e->stream) {
        wait_completed(e->stream, e->target);
        while (!atomic_load(&e->stamped))
            sched_yield();
    }
    return atomic_load(&sticky) ? atomic_load(&sticky) : codes.success;
}

int fake_event_elapsed(float *ms, fake_event *a, fake_event *b)
{
    if (!ms || !a || !b || !a->stream || !b->stream)
        return codes.invalid_value;
    if (!atomic_load(&a->stamped) || !atomic_load(&b->stamped))
        return codes.not_ready;
    pthread_mutex_lock(&a->mu);
    int64_t from = (int64_t)a->done_ns;
    pthread_mutex_unlock(&a->mu);
    pthread_mutex_lock(&b->mu);
    int64_t to = (int64_t)b->done_ns;
    pthread_mutex_unlock(&b->mu);
    *ms = (float)((double)(to - from) / 1e6);
    return codes.success;
}

int fake_set_schedule(enum fake_schedule how)
{
    atomic_store(&schedule, how);
    return codes.success;
}

enum fake_schedule fake_get_schedule(void)
{
    return (enum fake_schedule)atomic_load(&schedule);
}

int fake_last_error(bool clear)
{
    int code = atomic_load(&sticky);
    if (code)
        return code;
    code = pending;
    if (clear)
        pending = codes.success;
    return code;
}

int fake_capture_begin(fake_stream *s)
{
    pthread_mutex_lock(&s->mu);
    int rc = s->capture == FAKE_CAPTURE_NONE ? codes.success : codes.invalid_value;
    if (rc == codes.success)
        s->capture = FAKE_CAPTURE_ACTIVE;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int fake_capture_end(fake_stream *s)
{
    pthread_mutex_lock(&s->mu);
    enum fake_capture was = s->capture;
    s->capture = FAKE_CAPTURE_NONE;
    pthread_mutex_unlock(&s->mu);
    if (was == FAKE_CAPTURE_NONE)
        return codes.invalid_value;
    return was == FAKE_CAPTURE_INVALIDATED ? codes.capture_invalidated : codes.success;
}

enum fake_capture fake_capture_status(fake_stream *s)
{
    pthread_mutex_lock(&s->mu);
    enum fake_capture c = s->capture;
    pthread_mutex_unlock(&s->mu);
    return c;
}

int fake_write_value(fake_stream *s, uint64_t device_addr, uint64_t value)
{
    uint64_t *word = fake_host_word(device_addr);
    if (!word)
        return codes.invalid_value;
    pthread_mutex_lock(&s->mu);
    if (s->capture == FAKE_CAPTURE_NONE && !s->destroyed)
        push_item(s, (fake_item){ 0, 0, NULL, word, value });
    pthread_mutex_unlock(&s->mu);
    return codes.success;
}

fake_ctx *fake_stream_ctx(fake_stream *s)
{
    return s->ctx;
}

uint64_t fake_stores_done(void)
{
    return atomic_load(&stores_done);
}

void fake_count_found_pending(void)
{
    atomic_fetch_add(&syncs_pending, 1);
}

uint64_t fake_syncs_found_pending(void)
{
    return atomic_load(&syncs_pending);
}

bool fake_event_pending(fake_event *e)
{
    return e->stream && !atomic_load(&e->stamped);
}
