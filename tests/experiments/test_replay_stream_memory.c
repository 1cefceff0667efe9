/* tests/experiments/test_replay_stream_memory.c — a replay of many streams
 * past the exact budget holds little for each: the peak resident set of
 * `gar replay` (getrusage's ru_maxrss, from wait4) over 600 000 waits on
 * 20 000 streams exceeds that of the same waits on one stream by under
 * 4 KiB a stream, all of a stream's state counted (the replay's own, the
 * device's, its overshoots' sketch).  Before the streams' sketches counted
 * in pages (sim/stream_sketch.h) each stream's histogram took 16 KiB for
 * its values below 2 048 ns alone, about 18 KiB a stream in all.
 *
 * Usage: test_experiments_replay_stream_memory GAR DATA_DIR (meson passes
 * both).  Nothing here is timed.  Skipped (77) in a sanitizer's build,
 * where each allocation's red zones, the freed blocks held in quarantine
 * and the shadow memory would be measured, not gar's. */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "child_peak.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAITS 600000UL /* past the 500 000 values kept exactly */
#define STREAMS 20000UL
#define PER_STREAM_KIB 4L
#define PLAN "flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20," \
             "max_sleep_us=50000,window=8"

static const char *gar_path, *data_dir;
static char folder[] = "/tmp/gar-stream-memory-XXXXXX";

/* Writes a trace of WAITS waits spread in turn over `streams` streams:
 * each a host loop of 5 ms steps whose work takes 1 to 1.4 ms. */
static void write_trace(const char *path, unsigned long streams)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# gar-trace v1\npoint,submit_ns,start_ns,done_ns,stream\n", f);
    uint64_t x = 7;
    for (unsigned long i = 0; i < WAITS; i++) {
        unsigned long s = i % streams, k = i / streams;
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned long long submit = 5000000ULL * k + s, start = submit + 30000;
        unsigned long long done = start + 1000000 + (x >> 33) % 400000;
        fprintf(f, "1,%llu,%llu,%llu,%lu\n", submit, start, done, s);
    }
    assert_int_equal(fclose(f), 0);
}

/* Replays `trace` with its output into `out`; asserts exit 0 and returns
 * the child's peak resident set in KiB. */
static long replay_peak(const char *trace, const char *out)
{
    char host[512];
    snprintf(host, sizeof host, "%s/hosts/waitpkg.host", data_dir);
    char *argv[] = { (char *)gar_path, "replay", (char *)trace, "--plan",
                     PLAN, "--host", host,
                     NULL };
    return child_peak_kib(argv, out);
}

/* Whether the file holds the line `want`. */
static bool says(const char *path, const char *want)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = strncmp(line, want, strlen(want)) == 0;
    fclose(f);
    return found;
}

static void each_stream_costs_little(void **state)
{
    (void)state;
    char one[256], many[256], out[256];
    snprintf(one, sizeof one, "%s/one.csv", folder);
    snprintf(many, sizeof many, "%s/many.csv", folder);
    snprintf(out, sizeof out, "%s/out.txt", folder);
    write_trace(one, 1);
    long single = replay_peak(one, out);
    assert_true(says(out, "quantiles: histogram"));
    write_trace(many, STREAMS);
    long spread = replay_peak(many, out);
    assert_true(says(out, "quantiles: histogram"));
    assert_true(says(out, "streams: 20000"));
    double per_stream = (double)(spread - single) / (double)STREAMS;
    print_message("peak resident set: %ld KiB on 1 stream, %ld KiB on %lu (%.2f KiB a stream)\n",
                  single, spread, STREAMS, per_stream);
    unlink(one);
    unlink(many);
    unlink(out);
    assert_true(single > 0);
    assert_true(per_stream < (double)PER_STREAM_KIB);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s GAR DATA_DIR\n", argv[0]);
        return 2;
    }
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)argv;
    puts("skipped: a sanitizer's build measures its own allocator, not gar's");
    return 77;
#endif
    gar_path = argv[1];
    data_dir = argv[2];
    if (mkdtemp(folder) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_stream_costs_little),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(folder);
    return failed;
}
