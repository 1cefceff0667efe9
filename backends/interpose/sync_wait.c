/* backends/interpose/sync_wait.c — one taken-over wait through the wait
 * machine, per-thread policies and points; see sync_wait.h. */
#define _GNU_SOURCE
#include "sync_wait.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gar/auto_policy.h>
#include <gar/auto_wait.h>
#include <gar/estimator.h>
#include <gar/plan.h>
#include <gar/posix.h>
#include <gar/wait_inline.h>

#include "run_log.h"

#define PLAN_DEFAULT "auto:p99_us=20"
#define POINTS_PER_THREAD 32u /* a thread's points; further streams share the last */
#define BASELINE_EVERY_DEFAULT 16u

typedef struct sync_point {
    const void *key;
    gar_auto_point auto_point;
    gar_estimator estimator;
} sync_point;

/* What a waiting thread keeps: its own policy (a policy is not
 * thread-safe) and its points. */
typedef struct sync_thread {
    gar_auto_policy policy;        /* of the status-query path */
    gar_auto_policy mapped_policy; /* of the mapped path */
    sync_point points[POINTS_PER_THREAD];
    unsigned point_count;
    uint64_t waits;
    uint32_t ordinal;
} sync_thread;

static struct {
    pthread_once_t once;
    bool enabled;
    gar_plan plan;        /* resolved without a word: flag falls back to poll */
    gar_plan mapped_plan; /* resolved with the mapped line's word */
    gar_posix_host host;
    gar_auto_host auto_host;        /* no word to park on */
    gar_auto_host mapped_auto_host; /* the word, parked on as the host parks */
    unsigned baseline_every;
    pthread_key_t thread_key;
    _Atomic uint32_t threads;
} config = { .once = PTHREAD_ONCE_INIT };

static void free_thread(void *state)
{
    free(state);
}

static void read_config(void)
{
    const char *text = getenv("GAR_PLAN");
    if (!text || !*text)
        text = PLAN_DEFAULT;
    gar_error err = { 0 };
    char why[512];
    gar_plan asked;
    if (gar_plan_parse(text, &asked, &err) < 0) {
        gar_error_format(&err, why, sizeof why);
        gar_run_log_note("plan", why);
        fprintf(stderr, "gar-sync: %s; taking over no wait\n", why);
        return;
    }
    /* The status-query path has no word to park on: a flag plan runs as
     * poll there (the resolution's declared fallback).  The mapped path
     * has one. */
    gar_caps caps = { .word_wait = false,
                      .word_wait_why = "the status-query path has no word to park on",
                      .io_uring = false, .io_uring_why = "not used here" };
    gar_error warning = { 0 };
    if (gar_plan_resolve(&asked, &caps, &config.plan, &warning) == 1) {
        static const char prefix[] = "on the status-query path (events, the device, streams"
                                     " without a mapped line): ";
        memcpy(why, prefix, sizeof prefix);
        gar_error_format(&warning, why + sizeof prefix - 1, sizeof why - (sizeof prefix - 1));
        gar_run_log_note("fallback", why);
    }
    caps.word_wait = true;
    if (gar_plan_resolve(&asked, &caps, &config.mapped_plan, &warning) < 0)
        config.mapped_plan = config.plan;
    gar_plan_label(&asked, why, sizeof why);
    gar_run_log_note("plan", why);
    if (gar_posix_host_init(&config.host, NULL, &err) < 0)
        return;
    gar_caps host_caps;
    gar_posix_host_caps(&config.host, &host_caps);
    gar_auto_host_default(false, &config.auto_host);
    gar_auto_host_default(host_caps.word_wait, &config.mapped_auto_host);
    const char *every = getenv("GAR_SYNC_BASELINE_EVERY");
    config.baseline_every = every && *every ? (unsigned)strtoul(every, NULL, 10)
                                            : BASELINE_EVERY_DEFAULT;
    if (pthread_key_create(&config.thread_key, free_thread) != 0)
        return;
    const char *off = getenv("GAR_SYNC_DISABLE");
    config.enabled = !(off && *off && strcmp(off, "0") != 0);
}

bool gar_sync_enabled(void)
{
    pthread_once(&config.once, read_config);
    return config.enabled;
}

gar_idle gar_sync_idle(void)
{
    return gar_posix_host_idle(&config.host);
}

/* The calling thread's state, made on its first wait; NULL when memory
 * ran out (the wait is then left to the real call). */
static sync_thread *this_thread(void)
{
    sync_thread *t = pthread_getspecific(config.thread_key);
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    gar_error err = { 0 };
    if (gar_auto_init(&t->policy, &config.auto_host, &err) < 0 ||
        gar_auto_init(&t->mapped_policy, &config.mapped_auto_host, &err) < 0) {
        free(t);
        return NULL;
    }
    t->ordinal = atomic_fetch_add(&config.threads, 1) + 1;
    gar_timer_slack slack;
    gar_posix_tighten_timer_slack(&slack);
    pthread_setspecific(config.thread_key, t);
    return t;
}

static sync_point *point_of(sync_thread *t, const void *key)
{
    for (unsigned i = 0; i < t->point_count; i++)
        if (t->points[i].key == key)
            return &t->points[i];
    if (t->point_count == POINTS_PER_THREAD)
        return &t->points[POINTS_PER_THREAD - 1];
    sync_point *p = &t->points[t->point_count++];
    p->key = key;
    gar_auto_point_init(&p->auto_point);
    gar_estimator_init(&p->estimator);
    return p;
}

bool gar_sync_sample_baseline(void)
{
    if (!gar_sync_enabled() || config.baseline_every == 0)
        return false;
    sync_thread *t = this_thread();
    return t && t->waits % config.baseline_every == config.baseline_every - 1;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the port: the runtime's own calls --------------------------------- */

static int port_query(void *ctx, gar_error *err)
{
    const gar_sync_work *w = ctx;
    int rc = w->query(w->arg);
    if (rc < 0)
        return gar_error_set(err, GAR_E_BACKEND, 2, w->call, "the status query failed");
    return rc;
}

static int port_block(void *ctx, gar_error *err)
{
    const gar_sync_work *w = ctx;
    int rc = w->block(w->arg);
    if (rc < 0)
        return gar_error_set(err, GAR_E_BACKEND, 2, w->call, "the blocking call failed");
    return 0;
}

static const gar_port_ops sync_port_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = port_query,
    .block = port_block,
    .poll = port_query,
};

/* Runs the wait under the plan at `point`; fills `report`. */
static int run_plan(sync_thread *t, sync_point *point, const gar_sync_work *work,
                    gar_wait_report *report)
{
    bool mapped = work->mapped.ops != NULL;
    gar_port port = mapped ? work->mapped : (gar_port){ &sync_port_ops, (void *)work };
    const gar_plan *plan = mapped ? &config.mapped_plan : &config.plan;
    gar_idle idle = gar_posix_host_idle(&config.host);
    gar_error err = { 0 };
    if (plan->park == GAR_PARK_AUTO)
        return gar_auto_wait_inline(mapped ? &t->mapped_policy : &t->policy, &point->auto_point,
                                    plan, GAR_MONO_NEVER, port, gar_posix_clock(), idle, NULL,
                                    report, &err);
    gar_dur_ns sleep_ns = 0;
    bool has_sleep = plan->predict &&
                     gar_estimator_sleep(&point->estimator, &plan->deadline, &sleep_ns, &err) == 1;
    int rc = gar_wait_inline(plan, has_sleep, sleep_ns, GAR_MONO_NEVER, port, gar_posix_clock(),
                             idle, report, &err);
    if (rc == 0 && plan->predict)
        gar_estimator_observe(&point->estimator, &plan->deadline, report->sample, &err);
    return rc;
}

int gar_sync_take(const gar_sync_work *work)
{
    sync_thread *t = this_thread();
    if (!t)
        return gar_sync_pass(work, "out of memory") < 0 ? -1 : 0;
    t->waits++;
    if (work->stamp)
        work->stamp(work->arg, true);
    uint64_t cpu0 = thread_cpu_ns();
    gar_mono_ns start = gar_posix_now();
    gar_wait_report report = { 0 };
    int rc = run_plan(t, point_of(t, work->key), work, &report);
    gar_mono_ns end = gar_posix_now();
    uint64_t cpu = thread_cpu_ns() - cpu0;
    uint64_t done = rc == 0 && work->stamp ? work->stamp(work->arg, false) : 0;
    const char *how = report.kind == GAR_WAIT_KIND_IMMEDIATE ? "immediate"
                      : report.kind == GAR_WAIT_KIND_BLOCKED ? "block"
                      : report.polls > 0                     ? "poll"
                      : report.parks > 0                     ? "flag"
                                                             : "query";
    gar_run_log_wait(&(gar_run_log_row){ work->call, work->stream_id, t->ordinal, start, end,
                                         done, cpu, rc == 0 ? how : "failed", report.slept_ns,
                                         work->mapped.ops ? "mapped" : "query",
                                         work->mapped.ops ? NULL : work->query_why });
    return rc;
}

int gar_sync_pass(const gar_sync_work *work, const char *why)
{
    sync_thread *t = config.enabled ? this_thread() : NULL;
    if (t)
        t->waits++;
    uint64_t cpu0 = thread_cpu_ns();
    gar_mono_ns start = gar_posix_now();
    int rc = work->block(work->arg);
    gar_mono_ns end = gar_posix_now();
    gar_run_log_wait(&(gar_run_log_row){ work->call, work->stream_id, t ? t->ordinal : 0, start,
                                         end, 0, thread_cpu_ns() - cpu0, why, 0, "real", NULL });
    return rc;
}
