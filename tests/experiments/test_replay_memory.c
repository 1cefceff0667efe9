/* tests/experiments/test_replay_memory.c — `gar replay` runs in memory that
 * does not grow with its trace: the peak resident set of the replay child
 * (getrusage's ru_maxrss, from wait4) over 4 M waits is within 10 % of
 * over 1 M, on the plan the long replays are measured with, and the longer
 * one says its quantiles came from the histogram; --json gains its
 * "quantiles" key from the 500 001st wait on, not before.  Before the
 * replay was streamed the 4 M run held four times the rows and values of
 * the 1 M one (a peak 3.9 times as high).
 *
 * Usage: test_experiments_replay_memory GAR DATA_DIR (meson passes both).
 * Nothing here is timed. */
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
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *gar_path, *data_dir;
static char folder[] = "/tmp/gar-replay-memory-XXXXXX";

#define PLAN "flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20," \
             "max_sleep_us=50000,window=8"

/* Runs argv with stdout into `out` (NULL: /dev/null); asserts exit 0 and
 * returns the child's peak resident set in KiB. */
static long run_child(char *const argv[], const char *out)
{
    return child_peak_kib(argv, out);
}

/* Generates a steady trace of `waits` into the folder, replays it, and
 * returns the replay's peak; its output must say `quantiles_line`. */
static long replay_peak(unsigned long waits, const char *quantiles_line)
{
    char trace[256], waits_text[32], host[512], out[256];
    snprintf(trace, sizeof trace, "%s/steady-%lu.csv", folder, waits);
    snprintf(waits_text, sizeof waits_text, "%lu", waits);
    snprintf(host, sizeof host, "%s/hosts/waitpkg.host", data_dir);
    snprintf(out, sizeof out, "%s/replay-%lu.txt", folder, waits);
    char *gen[] = { (char *)gar_path, "gen", "steady", "--waits", waits_text, "--out", trace, NULL };
    run_child(gen, NULL);
    char *replay[] = { (char *)gar_path, "replay", trace, "--plan", PLAN, "--host", host, NULL };
    long peak = run_child(replay, out);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char line[512];
    bool said = false;
    char wanted_waits[64];
    snprintf(wanted_waits, sizeof wanted_waits, "waits: %lu\n", waits);
    bool counted = false;
    while (fgets(line, sizeof line, f) != NULL) {
        said |= strcmp(line, quantiles_line) == 0;
        counted |= strcmp(line, wanted_waits) == 0;
    }
    fclose(f);
    assert_true(said);
    assert_true(counted);
    unlink(trace);
    unlink(out);
    return peak;
}

/* Whether `gar replay --json` of a steady trace of `waits` has the key
 * "quantiles" with the histogram's words. */
static bool json_says_histogram(unsigned long waits)
{
    char trace[256], waits_text[32], host[512], out[256];
    snprintf(trace, sizeof trace, "%s/json-%lu.csv", folder, waits);
    snprintf(waits_text, sizeof waits_text, "%lu", waits);
    snprintf(host, sizeof host, "%s/hosts/waitpkg.host", data_dir);
    snprintf(out, sizeof out, "%s/json-%lu.txt", folder, waits);
    char *gen[] = { (char *)gar_path, "gen", "steady", "--waits", waits_text, "--out", trace, NULL };
    run_child(gen, NULL);
    char *replay[] = { (char *)gar_path, "replay", trace, "--plan", "poll", "--host", host,
                       "--json", NULL };
    run_child(replay, out);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(trace);
    unlink(out);
    assert_non_null(strstr(text, "\"waits\":"));
    return strstr(text, "\"quantiles\":\"histogram, relative error \u2264 0.1 %\"") != NULL;
}

/* JSON gains the key only past the budget: a short run reads as before. */
static void json_says_so_only_for_a_histogram(void **state)
{
    (void)state;
    assert_false(json_says_histogram(500000));
    assert_true(json_says_histogram(500001));
}

static void memory_does_not_grow_with_the_trace(void **state)
{
    (void)state;
    const char *histogram = "quantiles: histogram, relative error \u2264 0.1 %\n";
    long one = replay_peak(1000000, histogram);
    long four = replay_peak(4000000, histogram);
    print_message("peak resident set: %ld KiB at 1 M waits, %ld KiB at 4 M (%.3f x)\n", one, four,
                  (double)four / (double)one);
    assert_true(one > 0);
    assert_true((double)four <= 1.10 * (double)one);
}

/* A short trace keeps every value: its quantiles are exact. */
static void a_short_trace_is_exact(void **state)
{
    (void)state;
    replay_peak(1000, "quantiles: exact\n");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s GAR DATA_DIR\n", argv[0]);
        return 2;
    }
    gar_path = argv[1];
    data_dir = argv[2];
    if (mkdtemp(folder) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_short_trace_is_exact),
        cmocka_unit_test(json_says_so_only_for_a_histogram),
        cmocka_unit_test(memory_does_not_grow_with_the_trace),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(folder);
    return failed;
}
