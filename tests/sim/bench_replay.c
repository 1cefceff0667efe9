/* tests/sim/bench_replay.c — simulated waits per second on a million-wait
 * steady trace (1 ms residual), for each measured arm, on the bundled
 * profile with a word wait (and the poll arms on dev-vm too), against the
 * floor: a bare pass over the loaded trace (reading every row and summing
 * its times), measured in the same run; each the best of five.  Replays
 * run as a sweep's worker runs them: the trace's index built once, one
 * scratch reused (replay.h).
 * Then poll runs fast-forwarded against turn by turn, as
 * test_fast_polls.c asserts them (within 5 %): a steady trace of 300 us
 * residual, 10 000 waits, seeds 1 .. 2 on dev-vm and 1 .. 16 on waitpkg,
 * the p99 overshoot pooled over the seeds, with each's rate.  A benchmark
 * (meson benchmark), not a test: it prints rates and ratios and asserts
 * nothing about time.  Arguments: the rate trace's waits (default 1 000 000). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gar/plan.h>

#include "core/nearest_rank.h"
#include "sim/gen.h"
#include "sim/replay.h"

#define REPS 5 /* replays of each measured arm; the best counts, as for the floor */
#define PREDICT "+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Rows per second of the least a replay must do: touch every row. */
static double floor_rate(const gar_trace *t)
{
    volatile uint64_t sink = 0;
    double best = 0;
    for (int rep = 0; rep < REPS; rep++) {
        double t0 = seconds();
        uint64_t sum = 0;
        for (size_t i = 0; i < t->count; i++)
            sum += t->row[i].start_ns ^ t->row[i].done_ns ^ t->row[i].point;
        sink += sum;
        double rate = (double)t->count / (seconds() - t0);
        best = rate > best ? rate : best;
    }
    (void)sink;
    return best;
}

/* Waits per second of the best of `reps` replays of `trace` (a shared
 * machine's noise only ever slows a run down), or -1 when one fails. */
static double replay_rate(const gar_trace *trace, const gar_host_profile *host, const char *text,
                          bool exact_polls, int reps, gar_replay_metrics *m)
{
    gar_plan plan;
    gar_error err;
    if (gar_plan_parse(text, &plan, &err) < 0)
        return -1;
    gar_replay_index index;
    gar_replay_scratch *scratch = gar_replay_scratch_new();
    if (scratch == NULL || gar_replay_index_build(trace, &index, &err) < 0) {
        gar_replay_scratch_free(scratch);
        return -1;
    }
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = trace;
    c.index = &index;
    c.scratch = scratch;
    c.plan = &plan;
    c.host = host;
    c.exact_polls = exact_polls;
    double best = 0;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = seconds();
        if (gar_replay_run(&c, m, &err) < 0) {
            fprintf(stderr, "replay failed: %s\n", err.argv[0]);
            best = -1;
            break;
        }
        double rate = (double)m->waits / (seconds() - t0);
        best = rate > best ? rate : best;
    }
    gar_replay_index_free(&index);
    gar_replay_scratch_free(scratch);
    return best;
}

static int make_trace(unsigned long long waits, const char *residual, gar_trace *trace)
{
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_STEADY);
    gar_error err;
    if (gar_gen_spec_set(&spec, residual, &err) < 0 ||
        gar_gen_run(&spec, waits, 1, trace, &err) < 0) {
        fprintf(stderr, "set-up failed: %s\n", err.argv[0]);
        return -1;
    }
    return 0;
}

static int load_host(const char *name, gar_host_profile *host)
{
    char path[512];
    gar_error err;
    snprintf(path, sizeof path, "%s/hosts/%s.host", GAR_DATA_DIR, name);
    if (gar_host_profile_load(path, host, &err) < 0) {
        fprintf(stderr, "%s: %s\n", path, err.argv[0]);
        return -1;
    }
    return 0;
}

/* Every overshoot of the replays of one arm, pooled over seeds. */
typedef struct pool {
    uint64_t *v;
    size_t n;
} pool;

static void keep(void *ctx, const gar_replay_wait *w)
{
    pool *p = ctx;
    p->v[p->n++] = w->overshoot_ns;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The pooled p99 overshoot of seeds 1 .. seeds (-1 on failure), and the
 * waits per second of them all in *rate. */
static double pooled_p99(const gar_trace *trace, const gar_host_profile *host, const char *text,
                         bool exact_polls, unsigned seeds, double *rate)
{
    gar_plan plan;
    gar_error err;
    if (gar_plan_parse(text, &plan, &err) < 0)
        return -1;
    pool p = { malloc(seeds * trace->count * sizeof(uint64_t)), 0 };
    if (p.v == NULL)
        return -1;
    double t0 = seconds();
    for (unsigned seed = 1; seed <= seeds; seed++) {
        gar_replay_config c;
        gar_replay_config_init(&c);
        c.trace = trace;
        c.plan = &plan;
        c.host = host;
        c.seed = seed;
        c.exact_polls = exact_polls;
        c.on_wait = keep;
        c.on_wait_context = &p;
        gar_replay_metrics m;
        if (gar_replay_run(&c, &m, &err) < 0) {
            fprintf(stderr, "replay failed: %s\n", err.argv[0]);
            free(p.v);
            return -1;
        }
    }
    *rate = (double)p.n / (seconds() - t0);
    qsort(p.v, p.n, sizeof p.v[0], by_value);
    double p99 = (double)gar_nearest_rank(p.v, p.n, 990000);
    free(p.v);
    return p99;
}

int main(int argc, char **argv)
{
    unsigned long long waits = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    static const char *const plans[] = {
        "flag:park_us=100,backstop_us=1000" PREDICT,
        "flag:park_us=100,backstop_us=1000",
        "poll" PREDICT,
        "poll",
        "block",
    };
    gar_trace trace;
    gar_host_profile host;
    if (make_trace(waits, "residual_us=1000", &trace) < 0 || load_host("waitpkg", &host) < 0)
        return 1;
    double floor = floor_rate(&trace);
    printf("waits: %llu\nfloor_rows_per_s: %.0f\n", waits, floor);
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        gar_replay_metrics m;
        double rate = replay_rate(&trace, &host, plans[i], false, REPS, &m);
        if (rate < 0)
            return 1;
        printf("plan: %s\nwaits_per_s: %.0f\nfloor_over_rate: %.1f\n", plans[i], rate,
               floor / rate);
    }
    if (load_host("dev-vm", &host) < 0)
        return 1;
    for (size_t i = 2; i < 4; i++) {
        gar_replay_metrics m;
        double rate = replay_rate(&trace, &host, plans[i], false, REPS, &m);
        if (rate < 0)
            return 1;
        printf("host: dev-vm plan: %s\nwaits_per_s: %.0f\nfloor_over_rate: %.1f\n", plans[i],
               rate, floor / rate);
    }
    gar_trace_free(&trace);

    /* Turn by turn is hundreds of times slower: test_fast_polls.c's trace. */
    static const struct {
        const char *host;
        unsigned seeds;
    } runs[] = { { "dev-vm", 2 }, { "waitpkg", 16 } };
    if (make_trace(10000, "residual_us=300", &trace) < 0)
        return 1;
    printf("poll_waits: 10000 residual_us: 300\n");
    for (size_t h = 0; h < 2; h++) {
        if (load_host(runs[h].host, &host) < 0)
            return 1;
        for (size_t i = 2; i < 4; i++) {
            double f_rate, e_rate;
            double f = pooled_p99(&trace, &host, plans[i], false, runs[h].seeds, &f_rate);
            double e = pooled_p99(&trace, &host, plans[i], true, runs[h].seeds, &e_rate);
            if (f < 0 || e < 0)
                return 1;
            printf("host: %s plan: %s seeds: 1..%u\n  fast waits_per_s: %.0f exact: %.0f "
                   "speedup: %.1f\n  overshoot_ns p99 fast %.0f exact %.0f (%+.1f %%)\n",
                   runs[h].host, i == 2 ? "poll+predict" : "poll", runs[h].seeds, f_rate, e_rate,
                   f_rate / e_rate, f, e, 100 * (f - e) / e);
        }
    }
    gar_trace_free(&trace);
    return 0;
}
