/* tests/experiments/bench_sweep_ranges.c — how the time to load a sweep spec
 * grows with the values its ranges stand for.  A benchmark (meson
 * benchmark), not a test: it prints, for seed ranges of 10 000 to 2 560 000
 * values and plan ranges of 2 500 to 160 000, the load's time per value as a
 * ratio to the smallest size's, measured in the same run (the least of
 * three loads each).  A quadratic load doubles the ratio at each doubling
 * of the size (x16 at sixteen times it, x256 at 256 times); a linear one
 * keeps it flat once its tables outgrow the CPU's caches, where each value
 * costs a miss or two.  It also sizes a range just under the
 * cap (--dry-run's count), which expands nothing. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sweep/sweep_spec.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The time to load a spec of the plan `plan` and the seeds `seeds`. */
static double load_seconds(const char *plan, const char *seeds)
{
    char text[1024];
    snprintf(text, sizeof text,
             "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\nplan %s\nestimator adl\n"
             "host hosts/dev-vm.host\nmode open\nseed %s\n",
             plan, seeds);
    double best = -1; /* the least of three: a neighbour's load only adds */
    for (int round = 0; round < 3; round++) {
        gar_sweep_spec spec;
        gar_error err;
        double t0 = seconds();
        int rc =
            gar_sweep_spec_parse(text, strlen(text), "bench.sweep", GAR_DATA_DIR, &spec, &err);
        double t1 = seconds();
        if (rc < 0) {
            char message[1024];
            gar_error_message(&err, message, sizeof message);
            fprintf(stderr, "bench_sweep_ranges: %s\n", message);
            return -1;
        }
        gar_sweep_spec_free(&spec);
        if (best < 0 || t1 - t0 < best)
            best = t1 - t0;
    }
    return best;
}

int main(void)
{
    char value[256];
    double base = 0;
    for (unsigned n = 10000; n <= 2560000; n *= 2) {
        snprintf(value, sizeof value, "{1..%u}", n);
        double s = load_seconds("block", value);
        if (s < 0)
            return 1;
        double per_value = s / n;
        if (base == 0)
            base = per_value;
        printf("seed_values: %u load_s: %.4f ns_per_value: %.0f ratio_to_10000: %.2f\n", n, s,
               per_value * 1e9, per_value / base);
    }
    base = 0;
    for (unsigned n = 2500; n <= 160000; n *= 2) {
        snprintf(value, sizeof value,
                 "poll+predict:margin_us={1..%u},min_sleep_us=20,max_sleep_us=50000,window=8", n);
        double s = load_seconds(value, "1");
        if (s < 0)
            return 1;
        double per_value = s / n;
        if (base == 0)
            base = per_value;
        printf("plan_values: %u load_s: %.4f ns_per_value: %.0f ratio_to_2500: %.2f\n", n, s,
               per_value * 1e9, per_value / base);
    }
    const char *near_cap = "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\nplan block\n"
                           "estimator adl\nhost hosts/dev-vm.host\nmode open\n"
                           "seed {1..99999999}\n";
    gar_sweep_size size;
    gar_error err;
    double t0 = seconds();
    int rc = gar_sweep_size_parse(near_cap, strlen(near_cap), "bench.sweep", GAR_DATA_DIR, &size,
                                  &err);
    double t1 = seconds();
    if (rc < 0)
        return 1;
    printf("size_of_99999999_seeds_s: %.4f runs: %llu\n", t1 - t0,
           (unsigned long long)size.runs);
    gar_sweep_size_free(&size);
    return 0;
}
