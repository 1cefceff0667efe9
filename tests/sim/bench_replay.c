/* tests/sim/bench_replay.c — simulated waits per second on a million-wait
 * steady trace (1 ms residual), for each measured arm, on the bundled
 * profile with a word wait, against the floor: a bare pass over the loaded
 * trace (reading every row and summing its times), measured in the same run;
 * each the best of three.
 * Then poll runs fast-forwarded and turn by turn on a smaller trace, with
 * the metrics of both: one seed each, so they differ by the draws (and
 * poll+predict under adl by more: a late wake moves the estimator, and every
 * wait after it).  Their agreement in distribution is tested, on fixed
 * seeds and the oracle estimator, in test_fast_polls.c.  A benchmark (meson
 * benchmark), not a test: it prints rates and ratios and asserts nothing
 * about time. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gar/plan.h>

#include "gen.h"
#include "replay.h"

#define REPS 3 /* replays of each measured arm; the best counts, as for the floor */
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
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = trace;
    c.plan = &plan;
    c.host = host;
    c.exact_polls = exact_polls;
    double best = 0;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = seconds();
        if (gar_replay_run(&c, m, &err) < 0) {
            fprintf(stderr, "replay failed: %s\n", err.argv[0]);
            return -1;
        }
        double rate = (double)m->waits / (seconds() - t0);
        best = rate > best ? rate : best;
    }
    return best;
}

static int make_trace(unsigned long long waits, gar_trace *trace)
{
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_STEADY);
    gar_error err;
    if (gar_gen_spec_set(&spec, "residual_us=1000", &err) < 0 ||
        gar_gen_run(&spec, waits, 1, trace, &err) < 0) {
        fprintf(stderr, "set-up failed: %s\n", err.argv[0]);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned long long waits = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    unsigned long long poll_waits = argc > 2 ? strtoull(argv[2], NULL, 10) : 2000;
    static const char *const plans[] = {
        "flag:park_us=100,backstop_us=1000" PREDICT,
        "flag:park_us=100,backstop_us=1000",
        "poll" PREDICT,
        "poll",
        "block",
    };
    gar_trace trace;
    gar_host_profile host;
    gar_error err;
    if (make_trace(waits, &trace) < 0 ||
        gar_host_profile_load(GAR_DATA_DIR "/hosts/waitpkg.host", &host, &err) < 0)
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
    gar_trace_free(&trace);

    /* Turn by turn is thousands of times slower: a smaller trace. */
    static const char *const hosts[] = { "waitpkg", "dev-vm" };
    if (make_trace(poll_waits, &trace) < 0)
        return 1;
    printf("poll_waits: %llu\n", poll_waits);
    for (size_t h = 0; h < 2; h++) {
        char path[512];
        snprintf(path, sizeof path, "%s/hosts/%s.host", GAR_DATA_DIR, hosts[h]);
        if (gar_host_profile_load(path, &host, &err) < 0)
            return 1;
        for (int predict = 0; predict <= 1; predict++) {
            const char *plan = predict ? "poll" PREDICT : "poll";
            gar_replay_metrics fast, exact;
            double f = replay_rate(&trace, &host, plan, false, 1, &fast);
            double e = replay_rate(&trace, &host, plan, true, 1, &exact);
            if (f < 0 || e < 0)
                return 1;
            printf("host: %s plan: %s\n  fast waits_per_s: %.0f exact: %.0f speedup: %.1f\n"
                   "  overshoot_ns p50/p90/p99 fast %llu/%llu/%llu exact %llu/%llu/%llu\n"
                   "  busy_frac fast %.5f exact %.5f\n",
                   hosts[h], predict ? "poll+predict" : "poll", f, e, f / e,
                   (unsigned long long)fast.overshoot_ns.p50,
                   (unsigned long long)fast.overshoot_ns.p90,
                   (unsigned long long)fast.overshoot_ns.p99,
                   (unsigned long long)exact.overshoot_ns.p50,
                   (unsigned long long)exact.overshoot_ns.p90,
                   (unsigned long long)exact.overshoot_ns.p99, fast.busy_frac, exact.busy_frac);
        }
    }
    gar_trace_free(&trace);
    return 0;
}
