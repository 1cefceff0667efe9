/* tests/backends/bench_wait_cost.c — what gar adds to a wait, in clock reads.
 *
 * A benchmark (meson benchmark), not a test: it prints its figures and
 * asserts nothing about time.  Each figure is a ratio to the cost of one
 * read of the clock the waits run on (the POSIX host's CLOCK_MONOTONIC),
 * measured in the same run, so machines of different speed compare:
 *   inline_wait   gar_wait_inline on a line whose work is already done, under
 *                 the serving plan: the whole call, the first query saying
 *                 done (goal: at most 2 clock reads);
 *   task_switch   one turn of gar's executor from one task's poll to the
 *                 next, two tasks yielding to each other (goal: at most 4).
 * Each figure is the median of ROUNDS rounds, to stand a shared machine's
 * noise; the spread (lowest and highest round) is printed beside it. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gar/executor.h>
#include <gar/plan.h>
#include <gar/wait_inline.h>

#include <gar/posix.h>

#define ROUNDS 9
#define CLOCK_READS 2000000u
#define WAITS 1000000u
#define SWITCHES 2000000u

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct figure {
    double median, low, high; /* ns per operation */
} figure;

static figure summarise(double *per_op)
{
    qsort(per_op, ROUNDS, sizeof *per_op, compare_double);
    return (figure){ per_op[ROUNDS / 2], per_op[0], per_op[ROUNDS - 1] };
}

/* ---- the clock ------------------------------------------------------------ */

static volatile gar_mono_ns sink;

static double clock_round(void)
{
    gar_clock clock = gar_posix_clock();
    gar_mono_ns t0 = gar_posix_now(), sum = 0;
    for (unsigned i = 0; i < CLOCK_READS; i++)
        sum += gar_clock_now(clock); /* through the port, as the waits read it */
    gar_mono_ns t1 = gar_posix_now();
    sink = sum;
    return (double)(t1 - t0) / CLOCK_READS;
}

/* ---- an inline wait on a completed line ----------------------------------- */

static int word_query(void *ctx, gar_error *err)
{
    (void)err;
    return gar_descriptor_reached(ctx) ? 1 : 0;
}

static int word_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    (void)err;
    *word = *(const gar_descriptor *)ctx;
    return 0;
}

static int word_park(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err)
{
    (void)ctx, (void)until, (void)err;
    return gar_descriptor_reached(word) ? 1 : 0;
}

static const gar_port_ops word_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = word_query, .poll = word_query, .arm = word_arm, .park = word_park,
};

static double inline_round(const gar_plan *plan, gar_descriptor *done_word, unsigned *bad)
{
    gar_port port = { .ops = &word_ops, .ctx = done_word };
    gar_clock clock = gar_posix_clock();
    gar_idle idle = { 0 };
    gar_mono_ns t0 = gar_posix_now();
    for (unsigned i = 0; i < WAITS; i++) {
        gar_wait_report report;
        if (gar_wait_inline(plan, false, 0, GAR_MONO_NEVER, port, clock, idle, &report, NULL) !=
                0 ||
            report.kind != GAR_WAIT_KIND_IMMEDIATE)
            (*bad)++;
    }
    gar_mono_ns t1 = gar_posix_now();
    return (double)(t1 - t0) / WAITS;
}

/* ---- executor task switches ------------------------------------------------ */

typedef struct yielder {
    gar_task task;
    unsigned left;
} yielder;

static int yield_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)ex;
    yielder *y = task->data;
    if (y->left == 0)
        return GAR_TASK_DONE;
    y->left--;
    int rc = gar_task_yield_now(task, err);
    return rc < 0 ? rc : GAR_TASK_PENDING;
}

static double switch_round(gar_posix_host *host, uint64_t *polls_out)
{
    gar_executor ex;
    yielder a = { .left = SWITCHES / 2 }, b = { .left = SWITCHES / 2 };
    if (gar_executor_init(&ex, gar_posix_clock(), gar_posix_host_idle(host), NULL) < 0)
        abort();
    gar_task_init(&a.task, "a", yield_poll, &a);
    gar_task_init(&b.task, "b", yield_poll, &b);
    if (gar_executor_spawn(&ex, &a.task, NULL) < 0 || gar_executor_spawn(&ex, &b.task, NULL) < 0)
        abort();
    gar_mono_ns t0 = gar_posix_now();
    int rc = gar_executor_run(&ex, NULL);
    gar_mono_ns t1 = gar_posix_now();
    if (rc < 0)
        abort();
    uint64_t polls = gar_executor_stats_get(&ex).polls;
    *polls_out = polls;
    return (double)(t1 - t0) / (double)polls;
}

int main(void)
{
    gar_posix_host host;
    if (gar_posix_host_init(&host, NULL, NULL) < 0)
        return 1;
    gar_plan plan;
    if (gar_plan_parse("flag:park_us=100,backstop_us=1000", &plan, NULL) < 0)
        return 1;
    gar_line line;
    gar_line_init(&line);
    gar_descriptor done = { .line = &line, .target = 3 };
    if (gar_slot_make(0, &done.slot, NULL) < 0)
        return 1;
    gar_line_store(&line, done.slot, 3); /* the work is already done */

    double clock_ns[ROUNDS], wait_ns[ROUNDS], switch_ns[ROUNDS];
    unsigned bad = 0;
    uint64_t polls = 0;
    /* Interleaved, so a noisy stretch of the machine hits every figure alike. */
    for (unsigned r = 0; r < ROUNDS; r++) {
        clock_ns[r] = clock_round();
        wait_ns[r] = inline_round(&plan, &done, &bad);
        switch_ns[r] = switch_round(&host, &polls);
    }
    figure c = summarise(clock_ns), w = summarise(wait_ns), s = summarise(switch_ns);
    printf("clock_read_ns: %.2f (rounds %.2f..%.2f)\n", c.median, c.low, c.high);
    printf("inline_wait_ns: %.2f (rounds %.2f..%.2f)\n", w.median, w.low, w.high);
    printf("inline_wait_clock_reads: %.2f (goal <= 2)\n", w.median / c.median);
    printf("task_switch_ns: %.2f (rounds %.2f..%.2f; %llu polls a round)\n", s.median, s.low,
           s.high, (unsigned long long)polls);
    printf("task_switch_clock_reads: %.2f (goal <= 4)\n", s.median / c.median);
    printf("waits_not_immediate: %u\n", bad);
    return bad == 0 ? 0 : 1;
}
