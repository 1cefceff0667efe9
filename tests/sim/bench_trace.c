/* tests/sim/bench_trace.c — reads and writes of a million-row trace, timed,
 * plain and gzip-compressed; the compressed rates also as ratios to the plain
 * ones of the same run.  A benchmark (meson benchmark), not a test: it prints
 * rates and asserts nothing about time. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/gen.h"
#include "sim/trace/trace.h"

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
    gar_trace_free(&back);

    /* The same rows through the streaming writer, gzip, and read back. */
    FILE *z = tmpfile();
    if (z == NULL)
        return 1;
    double t4 = seconds();
    gar_trace_writer w;
    if (gar_trace_writer_stream(&w, z, "bench.gz", true, t.columns, NULL, &err) < 0)
        return 1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < t.count; i++)
        rc = gar_trace_writer_row(&w, &t.row[i]);
    if (rc == 0)
        rc = gar_trace_writer_finish(&w);
    if (gar_trace_writer_end(&w, rc) < 0)
        return 1;
    double t5 = seconds();
    long packed = ftell(z);
    rewind(z);
    double t6 = seconds();
    if (gar_trace_read_stream(&back, z, "bench.gz", &err) < 0)
        return 1;
    double t7 = seconds();
    int same_gz = gar_trace_equal(&t, &back);
    double write_plain = (double)waits / (t1 - t0), read_plain = (double)waits / (t3 - t2);
    double write_gz = (double)waits / (t5 - t4), read_gz = (double)waits / (t7 - t6);
    printf("rows: %llu\nbytes: %ld\nwrite_rows_per_s: %.0f\nread_rows_per_s: %.0f\n"
           "read_mb_per_s: %.0f\nround_trip_equal: %s\n"
           "gzip_bytes: %ld\ngzip_write_rows_per_s: %.0f\ngzip_read_rows_per_s: %.0f\n"
           "gzip_write_vs_plain: %.3f\ngzip_read_vs_plain: %.3f\ngzip_round_trip_equal: %s\n",
           waits, bytes, write_plain, read_plain, (double)bytes / (t3 - t2) / 1e6,
           same ? "yes" : "no", packed, write_gz, read_gz, write_gz / write_plain,
           read_gz / read_plain, same_gz ? "yes" : "no");
    fclose(f);
    fclose(z);
    gar_trace_free(&t);
    gar_trace_free(&back);
    return same && same_gz ? 0 : 1;
}
