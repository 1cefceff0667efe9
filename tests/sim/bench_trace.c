/* tests/sim/bench_trace.c — reads and writes of a million-row trace, timed.
 * A benchmark (meson benchmark), not a test: it prints rates and asserts
 * nothing about time. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gen.h"
#include "trace.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    unsigned long long waits = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_DECODE);
    gar_trace t, back;
    gar_error err;
    if (gar_gen_run(&spec, waits, 1, &t, &err) < 0)
        return 1;
    FILE *f = tmpfile();
    if (f == NULL)
        return 1;
    double t0 = seconds();
    if (gar_trace_write_stream(&t, NULL, f, "bench", &err) < 0)
        return 1;
    double t1 = seconds();
    long bytes = ftell(f);
    rewind(f);
    double t2 = seconds();
    if (gar_trace_read_stream(&back, f, "bench", &err) < 0)
        return 1;
    double t3 = seconds();
    int same = gar_trace_equal(&t, &back);
    printf("rows: %llu\nbytes: %ld\nwrite_rows_per_s: %.0f\nread_rows_per_s: %.0f\n"
           "read_mb_per_s: %.0f\nround_trip_equal: %s\n",
           waits, bytes, (double)waits / (t1 - t0), (double)waits / (t3 - t2),
           (double)bytes / (t3 - t2) / 1e6, same ? "yes" : "no");
    fclose(f);
    gar_trace_free(&t);
    gar_trace_free(&back);
    return same ? 0 : 1;
}
