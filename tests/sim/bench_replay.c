/* tests/sim/bench_replay.c — simulated waits per second on a million-wait
 * steady trace (1 ms residual), for each plan, on the bundled profile with a
 * word wait.  A benchmark (meson benchmark), not a test: it prints rates,
 * and the ratios between plans, and asserts nothing about time. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <gar/plan.h>

#include "gen.h"
#include "replay.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    unsigned long long waits = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    static const char *const plans[] = {
        "flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,"
        "max_sleep_us=50000,window=8",
        "flag:park_us=100,backstop_us=1000",
        "block",
    };
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_STEADY);
    gar_trace trace;
    gar_host_profile host;
    gar_error err;
    if (gar_gen_spec_set(&spec, "residual_us=1000", &err) < 0 ||
        gar_gen_run(&spec, waits, 1, &trace, &err) < 0 ||
        gar_host_profile_load(GAR_DATA_DIR "/hosts/waitpkg.host", &host, &err) < 0) {
        fprintf(stderr, "set-up failed: %s\n", err.argv[0]);
        return 1;
    }
    printf("waits: %llu\n", waits);
    double first = 0;
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        gar_plan plan;
        if (gar_plan_parse(plans[i], &plan, &err) < 0)
            return 1;
        gar_replay_config c;
        gar_replay_config_init(&c);
        c.trace = &trace;
        c.plan = &plan;
        c.host = &host;
        gar_replay_metrics m;
        double t0 = seconds();
        if (gar_replay_run(&c, &m, &err) < 0)
            return 1;
        double rate = (double)m.waits / (seconds() - t0);
        if (i == 0)
            first = rate;
        printf("plan: %s\nwaits_per_s: %.0f\nrelative_to_first: %.2f\n", plans[i], rate,
               rate / first);
    }
    gar_trace_free(&trace);
    return 0;
}
