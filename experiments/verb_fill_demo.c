/* experiments/verb_fill_demo.c — `gar fill-demo`: the reference "fill"
 * example on a real host with no GPU.
 *
 * A store thread plays the device: it stores 1 into slots 0, 1 and 2 of one
 * line at 2, 4 and 6 ms after the start.  On gar's executor, three tasks
 * await one slot each (target 1) and a fourth does CPU work in slices,
 * yielding after each.  The work fills the time the waits pend; the
 * executor idles only when no task is ready.  The verdict checks what must
 * hold whatever the machine's timing: no wait completed before its store,
 * and slices ran before the first completion and between completions. */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <gar/emulated.h>
#include <gar/executor.h>
#include <gar/posix.h>

#include "verbs.h"

#define VERB "fill-demo"
#define WAITERS 3
#define STORE_SPACING_NS (2 * GAR_NS_PER_MS)  /* slot k is stored at (k + 1) * 2 ms */
#define WAIT_DEADLINE_NS (10 * GAR_NS_PER_S)  /* a store that never comes fails, not hangs */
#define WORK_PER_SLICE_DEFAULT 5000ull

typedef struct demo demo;

typedef struct waiter {
    gar_task task;
    demo *demo;
    gar_descriptor descriptor;
    bool reached;           /* false: its deadline passed first */
    gar_mono_ns done_at;    /* the executor's clock when it resumed */
    uint64_t slices_before; /* worker slices that had run by then */
} waiter;

struct demo {
    gar_mono_ns start;
    unsigned long long work_per_slice;
    waiter waiters[WAITERS];
    unsigned waits_left;
    gar_task worker;
    uint64_t slices;
    uint64_t checksum; /* the work's result, kept so the work cannot be optimised away */
};

static double ms_between(gar_mono_ns from, gar_mono_ns to)
{
    return (double)gar_since(to, from) / (double)GAR_NS_PER_MS;
}

static int waiter_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    waiter *w = task->data;
    demo *d = w->demo;
    switch (gar_task_woken_by(task)) {
    case GAR_WAKE_SPAWNED: {
        int rc = gar_task_await(task, &w->descriptor, gar_after(d->start, WAIT_DEADLINE_NS), err);
        return rc < 0 ? rc : GAR_TASK_PENDING;
    }
    case GAR_WAKE_REACHED:
    case GAR_WAKE_DEADLINE:
        w->reached = gar_task_woken_by(task) == GAR_WAKE_REACHED;
        w->done_at = gar_executor_now(ex);
        w->slices_before = d->slices;
        d->waits_left--;
        if (w->reached)
            printf("slot %u done after %.2f ms\n", (unsigned)w->descriptor.slot.index,
                   ms_between(d->start, w->done_at));
        else
            printf("slot %u not done by its deadline\n", (unsigned)w->descriptor.slot.index);
        return GAR_TASK_DONE;
    default:
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "fill-demo waiter", "wake",
                             "is not one an await gives");
    }
}

/* A fixed amount of arithmetic (a xorshift walk): the same CPU work per slice. */
static uint64_t work_slice(uint64_t x, unsigned long long steps)
{
    for (unsigned long long i = 0; i < steps; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

static int worker_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)ex;
    demo *d = task->data;
    if (d->waits_left == 0)
        return GAR_TASK_DONE;
    d->checksum = work_slice(d->checksum, d->work_per_slice);
    d->slices++;
    int rc = gar_task_yield_now(task, err);
    return rc < 0 ? rc : GAR_TASK_PENDING;
}

static void print_help(void)
{
    printf("usage: gar " VERB " [OPTIONS]\n"
           "\n"
           "The reference \"fill\" example on this host, with no GPU: a device thread\n"
           "stores into slots 0, 1 and 2 of one line at 2, 4 and 6 ms; three tasks of\n"
           "gar's executor await one slot each while a fourth does CPU work in slices,\n"
           "yielding after each.  Prints when each wait completed, how many slices ran\n"
           "before the last completion, and the executor's statistics.\n"
           "\n"
           "Exits 0 when every wait completed after its store and the work ran before\n"
           "the first completion and between completions (unless both stores had\n"
           "landed before the executor looked again, which a `note:` line says);\n"
           "otherwise prints `failed: WHAT` lines and exits 1.\n"
           "\n"
           "The work never runs out while a wait pends, so the executor always has a\n"
           "task ready and never idles (woke, slept, parked and idle_ns stay 0): each\n"
           "completion is found by the look the executor takes between two polls.\n"
           "\n"
           "options:\n"
           "  --work-per-slice N  arithmetic steps per work slice (default %llu)\n"
           "  -h, --help          show this help\n"
           "\n"
           "example:\n"
           "  gar " VERB " --work-per-slice 20000\n",
           WORK_PER_SLICE_DEFAULT);
}

typedef struct options {
    unsigned long long work_per_slice;
} options;

/* Reads a whole number above 0 into `*out` (at most `max`); refuses anything
 * else naming the option and the text.  Returns -1 to go on, else the exit
 * status. */
static int parse_count(const char *option, const char *text, unsigned long long max,
                       unsigned long long *out)
{
    if (gar_cli_parse_u64(text, out) == 0 && *out > 0 && *out <= max)
        return -1;
    char what[256];
    snprintf(what, sizeof what, "%s '%s' is not a whole number from 1 to %llu", option, text,
             max);
    return gar_cli_usage_error(VERB, what);
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, options *opt)
{
    enum { OPT_WORK = 1, OPT_HELP };
    static const struct option longs[] = {
        { "work-per-slice", required_argument, NULL, OPT_WORK },
        { "help", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    opt->work_per_slice = WORK_PER_SLICE_DEFAULT;
    opterr = 0; /* bad options are refused below, as coded errors */
    optind = 1;
    int c, status = -1;
    /* The leading ':' tells a missing value (':') from an unknown option ('?'). */
    while (status < 0 && (c = gar_cli_getopt(argc, argv, ":h", longs, NULL)) != -1) {
        switch (c) {
        case 'h':
        case OPT_HELP:
            print_help();
            return GAR_EXIT_OK;
        case OPT_WORK:
            status = parse_count("--work-per-slice", optarg, UINT32_MAX, &opt->work_per_slice);
            break;
        default:
            return gar_cli_bad_option(VERB, c, argv);
        }
    }
    if (status < 0 && optind < argc)
        status = gar_cli_usage_error(VERB, "takes no arguments");
    return status;
}

/* Prints a `failed:` line for every broken promise; returns how many.
 *
 * The work must run before the first completion, and between two
 * completions whenever the later store landed after the earlier completion.
 * Two stores that had both landed when the executor looked (a late device
 * thread, or an executor thread the system did not run) are found by one
 * reactor fire, so no slice can run between their completions: that is
 * noted, not failed. */
static unsigned check(const demo *d, const gar_store schedule[WAITERS],
                      const gar_mono_ns stored_at[WAITERS])
{
    unsigned failures = 0;
    unsigned order[WAITERS]; /* slots by completion time */
    for (unsigned k = 0; k < WAITERS; k++) {
        const waiter *w = &d->waiters[k];
        if (!w->reached) {
            printf("failed: slot %u was not done by its deadline\n", k);
            failures++;
            continue;
        }
        if (stored_at[k] == GAR_MONO_NEVER || w->done_at < stored_at[k]
            || w->done_at < schedule[k].at) {
            printf("failed: slot %u done at %.3f ms, before its store at %.3f ms\n", k,
                   ms_between(d->start, w->done_at),
                   stored_at[k] == GAR_MONO_NEVER ? -1.0 : ms_between(d->start, stored_at[k]));
            failures++;
        }
        unsigned at = k;
        while (at > 0 && d->waiters[order[at - 1]].done_at > w->done_at) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = k;
    }
    if (failures > 0)
        return failures;

    if (d->waiters[order[0]].slices_before == 0) {
        printf("failed: no work slice ran before the first completion\n");
        failures++;
    }
    for (unsigned i = 1; i < WAITERS; i++) {
        const waiter *earlier = &d->waiters[order[i - 1]];
        const waiter *later = &d->waiters[order[i]];
        if (later->slices_before > earlier->slices_before)
            continue;
        if (stored_at[order[i]] <= earlier->done_at) {
            printf("note: slots %u and %u were found done at one look (both stores had "
                   "landed before the executor's thread looked again), so no slice could run "
                   "between their completions\n",
                   order[i - 1], order[i]);
            continue;
        }
        printf("failed: no work slice ran between the completions of slots %u and %u\n",
               order[i - 1], order[i]);
        failures++;
    }
    return failures;
}

int gar_verb_fill_demo_main(int argc, char **argv)
{
    options opt;
    int status = parse_options(argc, argv, &opt);
    if (status >= 0)
        return status;

    gar_error err;
    gar_posix_host host;
    if (gar_posix_host_init(&host, NULL, &err) < 0)
        return gar_cli_refuse(&err);
    gar_executor ex;
    if (gar_executor_init(&ex, gar_posix_clock(), gar_posix_host_idle(&host), &err) < 0)
        return gar_cli_refuse(&err);

    demo d;
    memset(&d, 0, sizeof d);
    d.work_per_slice = opt.work_per_slice;
    d.checksum = 0x9e3779b97f4a7c15u; /* any nonzero seed (xorshift keeps 0 at 0) */
    gar_line line;
    gar_line_init(&line);
    for (unsigned k = 0; k < WAITERS; k++) {
        waiter *w = &d.waiters[k];
        w->demo = &d;
        w->descriptor = (gar_descriptor){ .line = &line, .target = 1 };
        if (gar_slot_make(k, &w->descriptor.slot, &err) < 0)
            return gar_cli_refuse(&err);
        gar_task_init(&w->task, "fill-demo waiter", waiter_poll, w);
        if (gar_executor_spawn(&ex, &w->task, &err) < 0)
            return gar_cli_refuse(&err);
    }
    d.waits_left = WAITERS;
    gar_task_init(&d.worker, "fill-demo worker", worker_poll, &d);
    if (gar_executor_spawn(&ex, &d.worker, &err) < 0)
        return gar_cli_refuse(&err);

    /* Time starts with the device: its stores are due 2, 4 and 6 ms on. */
    d.start = gar_posix_now();
    gar_store schedule[WAITERS];
    for (unsigned k = 0; k < WAITERS; k++)
        schedule[k] = (gar_store){ .slot = d.waiters[k].descriptor.slot,
                                   .value = 1,
                                   .at = d.start + (k + 1) * STORE_SPACING_NS };
    gar_store_thread *device = NULL;
    if (gar_store_thread_start(&device, &line, schedule, WAITERS, &err) < 0)
        return gar_cli_refuse(&err);

    int rc = gar_executor_run(&ex, &err);

    gar_store_thread_stop(device, NULL); /* a no-op unless the run ended early */
    gar_mono_ns stored_at[WAITERS];
    gar_store_thread_join(device, stored_at, NULL, NULL);
    if (rc < 0)
        return gar_cli_refuse(&err);

    for (unsigned k = 0; k < WAITERS; k++)
        printf("slot %u stored after %.2f ms\n", k,
               stored_at[k] == GAR_MONO_NEVER ? -1.0 : ms_between(d.start, stored_at[k]));
    uint64_t slices_before_last = 0;
    for (unsigned k = 0; k < WAITERS; k++)
        if (d.waiters[k].slices_before > slices_before_last)
            slices_before_last = d.waiters[k].slices_before;
    printf("slices_before_last_completion: %" PRIu64 "\n", slices_before_last);

    gar_executor_stats stats = gar_executor_stats_get(&ex);
    printf("polls: %" PRIu64 "\n", stats.polls);
    printf("woke: %" PRIu64 "\n", stats.woke);
    printf("slept: %" PRIu64 "\n", stats.slept);
    printf("parked: %" PRIu64 "\n", stats.parked);
    printf("idle_ns: %" PRIu64 "\n", stats.idle_ns);
    printf("park: %s\n", host.report.park);
    if (host.report.timer_slack.known)
        printf("timer_slack_ns: %" PRIu64 "\n", host.report.timer_slack.ns);
    else
        printf("timer_slack_ns: unknown (%s)\n", host.report.timer_slack.why);

    unsigned failures = check(&d, schedule, stored_at);
    printf("verdict: %s\n", failures == 0 ? "ok" : "failed");
    return failures == 0 ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}
