/* tests/sim/bench_streams.c — what a wait costs to replay when the trace
 * names 10 000 streams on 4 devices, against the same host loop on one
 * stream, measured in the same run: the same waits (many_streams.h), so
 * the ratio is what the streams themselves cost (the device's heap and
 * lines, the replay's stream index).  The goal is a ratio within 2.  Each
 * side is the best of five replays, run in alternation (a shared machine's
 * noise only ever slows a run down).  A benchmark (meson benchmark), not a
 * test: it prints the rates and their ratio and asserts nothing about time. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gar/plan.h>

#include "many_streams.h"
#include "sim/replay.h"

#define REPS 5

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Nanoseconds a wait of one replay of `trace`, or -1 when it fails. */
static double ns_per_wait(const gar_trace *trace, const gar_host_profile *host,
                          const gar_plan *plan)
{
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = trace;
    c.plan = plan;
    c.host = host;
    c.mode = GAR_REPLAY_CLOSED;
    gar_replay_metrics m;
    gar_error err;
    double t0 = seconds();
    if (gar_replay_run(&c, &m, &err) < 0) {
        fprintf(stderr, "replay failed: %s\n", err.argv[0]);
        return -1;
    }
    return (seconds() - t0) * 1e9 / (double)m.waits;
}

int main(int argc, char **argv)
{
    unsigned long long waits = argc > 1 ? strtoull(argv[1], NULL, 10) : 400000;
    static const char *const plans[] = {
        "flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,"
        "max_sleep_us=50000,window=8",
        "block",
    };
    gar_trace one, many;
    gar_host_profile host;
    gar_error err;
    if (gar_host_profile_load(GAR_DATA_DIR "/hosts/waitpkg.host", &host, &err) < 0 ||
        many_streams_serial(&one, waits, 1, 1, 1) < 0 ||
        many_streams_serial(&many, waits, 10000, 4, 1) < 0) {
        fprintf(stderr, "set-up failed\n");
        return 1;
    }
    printf("waits: %llu\n", waits);
    for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
        gar_plan plan;
        if (gar_plan_parse(plans[p], &plan, &err) < 0)
            return 1;
        double best_one = 1e300, best_many = 1e300;
        for (int rep = 0; rep < REPS; rep++) {
            double a = ns_per_wait(&one, &host, &plan);
            double b = ns_per_wait(&many, &host, &plan);
            if (a < 0 || b < 0)
                return 1;
            best_one = a < best_one ? a : best_one;
            best_many = b < best_many ? b : best_many;
        }
        printf("plan: %s\none_stream_ns_per_wait: %.1f\nstreams_10000_on_4_devices_ns_per_wait: "
               "%.1f\nratio: %.2f\n",
               plans[p], best_one, best_many, best_many / best_one);
    }
    gar_trace_free(&one);
    gar_trace_free(&many);
    return 0;
}
