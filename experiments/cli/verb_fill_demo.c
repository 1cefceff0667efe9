/* experiments/cli/verb_fill_demo.c — `gar fill-demo`: the "fill" example
 * (CPU work fills the time three waits pend) on a real host with no GPU,
 * run by the executor kind asked for, as this host resolves it.
 *
 * An emulated device plays the GPU: its streams 0, 1 and 2 complete one item
 * each at 2, 4 and 6 ms after the start, storing into slots 0, 1 and 2 of
 * its line.  Under the reactor kinds (gpu-reactor, io-uring), three wait
 * tasks of gar's executor (the reactor driver) await one item each under the
 * plan, and a fourth task does CPU work in slices, yielding after each: the
 * work fills the time the waits pend.  Under naive, the inline driver waits
 * for each item in turn on this thread, which does nothing else meanwhile.
 * The verdict checks what must hold whatever the machine's timing: no wait
 * completed before its item; and, under the reactor kinds, slices ran
 * before the first completion and between completions. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <gar/executor.h>
#include <gar/executor_kind.h>
#include <gar/plan.h>
#include <gar/wait_task.h>
#include <gar/emulated.h>
#include <gar/posix.h>

#include "cli/cli_options.h"
#include "cli/host_caps.h"
#include "backends/hosts/kind_host.h"
#include "cli/verbs.h"

#define VERB "fill-demo"
#define WAITERS 3
#define STORE_SPACING_NS (2 * GAR_NS_PER_MS)  /* slot k is stored at (k + 1) * 2 ms */
#define WAIT_DEADLINE_NS (10 * GAR_NS_PER_S)  /* a store that never comes fails, not hangs */
#define WORK_PER_SLICE_DEFAULT 5000ull
#define EXECUTOR_DEFAULT "gpu-reactor"
/* The bundled flag plan (README, "Wait plans"); a host without a word wait
 * runs it as poll (warning 2). */
#define DEMO_PLAN "flag:park_us=100,backstop_us=1000"

typedef struct demo demo;

typedef struct waiter {
    gar_wait_task wt;            /* the reactor kinds: spawn wt.task */
    gar_task_poll_fn wait_poll;  /* the wait task's own poll, which waiter_poll wraps */
    demo *demo;
    unsigned slot;
    gar_port port;               /* the device item's completion port */
    bool reached;                /* false: the wait failed (its deadline, a device fault) */
    gar_mono_ns done_at;         /* the clock when the wait ended */
    uint64_t slices_before;      /* worker slices that had run by then */
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

/* A wait has ended (rc 0 done, else its code): note when, and how much work
 * had run by then. */
static void waiter_ended(waiter *w, int rc, gar_mono_ns now, const gar_error *err)
{
    demo *d = w->demo;
    w->reached = rc == 0;
    w->done_at = now;
    w->slices_before = d->slices;
    d->waits_left--;
    if (w->reached) {
        printf("slot %u done after %.2f ms\n", w->slot, ms_between(d->start, w->done_at));
    } else {
        char why[512];
        gar_error_format(err, why, sizeof why);
        printf("slot %u not done: %s\n", w->slot, why);
    }
}

/* The reactor kinds: the wait task's poll, noting its end.  A failed wait
 * ends its task, not the run, so the verdict can say which failed. */
static int waiter_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    waiter *w = task->data;
    gar_error own;
    gar_error_clear(&own);
    int rc = w->wait_poll(task, ex, &own);
    if (rc == GAR_TASK_PENDING)
        return rc;
    (void)err;
    waiter_ended(w, rc, gar_executor_now(ex), &own);
    return GAR_TASK_DONE;
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

static void print_help(FILE *out)
{
    fprintf(out, "usage: gar " VERB " [OPTIONS]\n"
           "\n"
           "The \"fill\" example on this host, with no GPU: CPU work fills the time\n"
           "waits pend.  An emulated device completes one item on each of streams 0,\n"
           "1 and 2 at 2, 4 and 6 ms, storing into slots 0, 1 and 2 of its line, and\n"
           "the waits for them run under the plan " DEMO_PLAN "\n"
           "(poll, with warning 2, on a host without a word wait) by the executor kind\n"
           "asked for, resolved along\n"
           "io-uring -> gpu-reactor -> naive as `gar executor` resolves it:\n"
           "  gpu-reactor  three wait tasks of gar's executor (the reactor driver)\n"
           "               await one item each while a fourth task does CPU work in\n"
           "               slices, yielding after each;\n"
           "  io-uring     the same, the executor's deadline sleeps io_uring timeouts;\n"
           "  naive        the inline driver waits for each item in turn; nothing else\n"
           "               runs on the thread meanwhile, so no work slice runs.\n"
           "Prints `executor: KIND` (the kind that ran) and the fallback warning when\n"
           "one was taken, `plan: PLAN` (and warning 2), when each wait completed and\n"
           "each item was stored, how many slices ran before the last completion, and\n"
           "for the reactor kinds the executor's statistics (and io-uring's sleeps).\n"
           "\n"
           "Exits 0 when every wait completed after its item and, under the reactor\n"
           "kinds, the work ran before the first completion and between completions\n"
           "(unless both items had completed before the executor looked again, which\n"
           "a `note:` line says); otherwise prints `failed: WHAT` lines and exits 1.\n"
           "\n"
           "The work never runs out while a wait pends, so the reactor kinds always\n"
           "have a task ready and never idle (woke, slept, parked and idle_ns stay 0):\n"
           "each completion is found by the look the executor takes between polls.\n"
           "\n"
           "options:\n"
           "  --executor KIND     naive, gpu-reactor or io-uring (default " EXECUTOR_DEFAULT ")\n"
           "  --work-per-slice N  arithmetic steps per work slice (default %llu)\n"
           "  -h, --help          show this help\n"
           "\n"
           "example:\n"
           "  gar " VERB " --executor io-uring --work-per-slice 20000\n",
           WORK_PER_SLICE_DEFAULT);
}

typedef struct options {
    unsigned long long work_per_slice;
    const char *executor;
} options;

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, options *opt)
{
    opt->work_per_slice = WORK_PER_SLICE_DEFAULT;
    opt->executor = EXECUTOR_DEFAULT; /* parsed as an executor kind below */
    const gar_cli_option table[] = {
        { .name = "work-per-slice", .takes = GAR_CLI_U64, .to = &opt->work_per_slice, .min = 1,
          .max = UINT32_MAX, .refusal = "--work-per-slice must be a whole number from 1 to "
                                       "4294967295", .quote_value = true },
        { .name = "executor", .takes = GAR_CLI_TEXT, .to = &opt->executor },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options(VERB, argc, argv, table, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (optind < argc)
        return gar_cli_usage_error(VERB, "takes no arguments");
    return -1;
}

/* Prints a `failed:` line for every broken promise; returns how many.
 *
 * Under the reactor kinds, the work must run before the first completion,
 * and between two
 * completions whenever the later store landed after the earlier completion.
 * Two stores that had both landed when the executor looked (a late device
 * thread, or an executor thread the system did not run) are found by one
 * reactor fire, so no slice can run between their completions: that is
 * noted, not failed. */
static unsigned check(const demo *d, const gar_mono_ns due[WAITERS],
                      const gar_mono_ns stored_at[WAITERS], bool work_runs)
{
    unsigned failures = 0;
    unsigned order[WAITERS]; /* slots by completion time */
    for (unsigned k = 0; k < WAITERS; k++) {
        const waiter *w = &d->waiters[k];
        if (!w->reached) {
            printf("failed: slot %u was not done\n", k);
            failures++;
            continue;
        }
        if (stored_at[k] == GAR_MONO_NEVER || w->done_at < stored_at[k]
            || w->done_at < due[k]) {
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
    if (failures > 0 || !work_runs)
        return failures; /* naive runs no work while it waits */

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

/* Runs the waits on the device's items: under a reactor kind, each a task
 * of `ex` beside the worker; under naive, each in turn, inline.  Returns 0,
 * or the refusal in `err`. */
static int run_waits(demo *d, gar_executor *ex, gar_executor_kind running, const gar_plan *plan,
                     gar_emulated_device *device, gar_mono_ns deadline, gar_idle idle,
                     gar_error *err)
{
    const bool reactor = running != GAR_EXECUTOR_NAIVE;
    int rc = 0;
    for (unsigned k = 0; k < WAITERS && rc == 0; k++) {
        waiter *w = &d->waiters[k];
        w->demo = d;
        w->slot = k;
        rc = gar_emulated_device_port(device, k, &w->port, err);
        if (rc == 0 && reactor) {
            rc = gar_wait_task_init(&w->wt, "fill-demo waiter", plan, false, 0, deadline,
                                    w->port, err);
            if (rc == 0) {
                w->wait_poll = w->wt.task.poll;
                w->wt.task.poll = waiter_poll;
                w->wt.task.data = w;
                rc = gar_executor_spawn(ex, &w->wt.task, err);
            }
        }
    }
    if (rc == 0 && reactor) {
        gar_task_init(&d->worker, "fill-demo worker", worker_poll, d);
        rc = gar_executor_spawn(ex, &d->worker, err);
        if (rc == 0)
            rc = gar_executor_run(ex, err);
    } else if (rc == 0) {
        /* naive: each wait in turn, inline; this thread does nothing else. */
        for (unsigned k = 0; k < WAITERS; k++) {
            gar_error own;
            gar_error_clear(&own);
            int wrc = gar_kind_wait(running, plan, false, 0, deadline, d->waiters[k].port,
                                    gar_posix_clock(), idle, NULL, NULL, &own);
            waiter_ended(&d->waiters[k], wrc, gar_posix_now(), &own);
        }
    }
    return rc;
}

/* What the run did: each store's time, the work slices, the executor's
 * counters (`ex` NULL: naive, none), io_uring's sleeps, the park and the
 * timer slack. */
static void print_run(const demo *d, const gar_mono_ns stored_at[WAITERS], gar_executor *ex,
                      gar_executor_kind running, const gar_kind_host_sleeps *sleeps,
                      const gar_kind_host *host)
{
    for (unsigned k = 0; k < WAITERS; k++)
        printf("slot %u stored after %.2f ms\n", k,
               stored_at[k] == GAR_MONO_NEVER ? -1.0 : ms_between(d->start, stored_at[k]));
    uint64_t slices_before_last = 0;
    for (unsigned k = 0; k < WAITERS; k++)
        if (d->waiters[k].slices_before > slices_before_last)
            slices_before_last = d->waiters[k].slices_before;
    printf("slices_before_last_completion: %" PRIu64 "\n", slices_before_last);

    if (ex != NULL) {
        gar_executor_stats stats = gar_executor_stats_get(ex);
        printf("polls: %" PRIu64 "\n", stats.polls);
        printf("woke: %" PRIu64 "\n", stats.woke);
        printf("slept: %" PRIu64 "\n", stats.slept);
        printf("parked: %" PRIu64 "\n", stats.parked);
        printf("idle_ns: %" PRIu64 "\n", stats.idle_ns);
    } else {
        printf("note: naive waits inline, so no work slice runs while a wait pends\n");
    }
    if (running == GAR_EXECUTOR_IO_URING) {
        printf("uring_timeouts: %llu\n", sleeps->timeouts);
        printf("uring_fallbacks: %llu\n", sleeps->fallbacks);
    }
    printf("park: %s\n", host->posix.report.park);
    if (host->posix.report.timer_slack.known)
        printf("timer_slack_ns: %" PRIu64 "\n", host->posix.report.timer_slack.ns);
    else
        printf("timer_slack_ns: unknown (%s)\n", host->posix.report.timer_slack.why);
}

int gar_verb_fill_demo_main(int argc, char **argv)
{
    options opt;
    int status = parse_options(argc, argv, &opt);
    if (status >= 0)
        return status;

    /* The kind that runs, as `gar executor` resolves it, and the plan. */
    gar_error err, executor_warning, plan_warning;
    gar_executor_kind requested, running;
    if (gar_executor_kind_parse(opt.executor, &requested, &err) != 0)
        return gar_cli_refuse(&err);
    gar_caps caps = gar_host_caps_probe();
    int executor_fell_back =
        gar_executor_kind_resolve(requested, &caps, false, &running, &executor_warning);
    if (executor_fell_back < 0)
        return gar_cli_refuse(&executor_warning);
    gar_plan asked, plan;
    if (gar_plan_parse(DEMO_PLAN, &asked, &err) < 0)
        return gar_cli_refuse(&err);
    int plan_fell_back = gar_plan_resolve(&asked, &caps, &plan, &plan_warning);
    if (plan_fell_back < 0)
        return gar_cli_refuse(&plan_warning);

    gar_kind_host host;
    if (gar_kind_host_open(&host, running, &err) < 0)
        return gar_cli_refuse(&err);
    gar_idle idle = gar_kind_host_idle(&host);
    const bool reactor = running != GAR_EXECUTOR_NAIVE;
    gar_executor ex;
    if (reactor && gar_executor_init(&ex, gar_posix_clock(), idle, &err) < 0) {
        gar_kind_host_close(&host);
        return gar_cli_refuse(&err);
    }

    printf("executor: %s\n", gar_executor_kind_name(running));
    if (executor_fell_back == 1)
        gar_cli_print_warning(stdout, &executor_warning);
    char label[256];
    gar_plan_label(&plan, label, sizeof label);
    printf("plan: %s\n", label);
    if (plan_fell_back == 1)
        gar_cli_print_warning(stdout, &plan_warning);

    demo d;
    memset(&d, 0, sizeof d);
    d.work_per_slice = opt.work_per_slice;
    d.checksum = 0x9e3779b97f4a7c15u; /* any nonzero seed (xorshift keeps 0 at 0) */
    d.waits_left = WAITERS;

    /* Time starts with the device: its items complete 2, 4 and 6 ms on. */
    d.start = gar_posix_now();
    gar_emulated_item items[WAITERS];
    gar_mono_ns due[WAITERS];
    for (unsigned k = 0; k < WAITERS; k++) {
        due[k] = d.start + (k + 1) * STORE_SPACING_NS;
        items[k] = (gar_emulated_item){ .stream = k, .done_at = due[k] };
    }
    gar_emulated_device *device = NULL;
    if (gar_emulated_device_start(&device, items, WAITERS, idle, -1, &err) < 0) {
        gar_kind_host_close(&host);
        return gar_cli_refuse(&err);
    }
    const gar_mono_ns deadline = gar_after(d.start, WAIT_DEADLINE_NS);
    int rc = run_waits(&d, &ex, running, &plan, device, deadline, idle, &err);
    if (rc < 0)
        gar_emulated_device_stop(device, NULL);
    gar_mono_ns stored_at[WAITERS];
    gar_emulated_device_finish(device, stored_at, NULL);
    gar_kind_host_sleeps sleeps = gar_kind_host_sleep_stats(&host);
    gar_kind_host_close(&host);
    if (rc < 0)
        return gar_cli_refuse(&err);

    print_run(&d, stored_at, reactor ? &ex : NULL, running, &sleeps, &host);

    unsigned failures = check(&d, due, stored_at, reactor);
    printf("verdict: %s\n", failures == 0 ? "ok" : "failed");
    return failures == 0 ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}
