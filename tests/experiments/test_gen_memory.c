/* tests/experiments/test_gen_memory.c — `gar gen` writes its rows as it
 * draws them: the peak resident set of the gen child (getrusage's
 * ru_maxrss, from wait4) for 2 M waits exceeds that for 200 k by less than
 * 2 MiB, to standard output and to a compressed file alike: 1/28 of the
 * 56 MiB the 1.8 M more rows would take in memory, and several times the
 * few hundred KiB the peak varies by from run to run (of about 3.4 MiB).
 * Before gen was streamed it held the whole trace (32 bytes a wait): 2 M
 * waits took 81 MiB, 7.5 times the 200 k run's 11 MiB.
 *
 * Usage: test_experiments_gen_memory GAR (meson passes it).  Nothing here
 * is timed. */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "child_peak.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define GROWTH_KIB 2048L

static const char *gar_path;
static char folder[] = "/tmp/gar-gen-memory-XXXXXX";

/* Runs `gar gen jitter --waits WAITS` with --out `out` (NULL: standard
 * output, into `stdout_file`); asserts exit 0 and returns the child's peak
 * resident set in KiB. */
static long gen_peak(unsigned long waits, const char *out, const char *stdout_file)
{
    char waits_text[32];
    snprintf(waits_text, sizeof waits_text, "%lu", waits);
    char *argv[] = { (char *)gar_path, "gen", "jitter", "--waits", waits_text, "--seed", "3",
                     out != NULL ? "--out" : NULL, (char *)out, NULL };
    return child_peak_kib(argv, stdout_file);
}

/* The lines of a file. */
static unsigned long lines_of(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    unsigned long n = 0;
    int c;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void to_standard_output(void **state)
{
    (void)state;
    char text[256];
    snprintf(text, sizeof text, "%s/out.csv", folder);
    long small = gen_peak(200000, NULL, text);
    unsigned long small_lines = lines_of(text);
    long large = gen_peak(2000000, NULL, text);
    print_message("peak resident set: %ld KiB at 200 k waits, %ld KiB at 2 M (%.3f x)\n", small,
                  large, (double)large / (double)small);
    /* Every row came out: the same head, ten times the rows. */
    assert_int_equal(lines_of(text) - 2000000, small_lines - 200000);
    unlink(text);
    assert_true(small > 0);
    assert_true(large - small < GROWTH_KIB);
}

static void to_a_compressed_file(void **state)
{
    (void)state;
    char out[256], said[256];
    snprintf(out, sizeof out, "%s/out.csv.gz", folder);
    snprintf(said, sizeof said, "%s/said.txt", folder);
    long small = gen_peak(200000, out, said);
    long large = gen_peak(2000000, out, said);
    print_message("peak resident set: %ld KiB at 200 k waits, %ld KiB at 2 M (%.3f x)\n", small,
                  large, (double)large / (double)small);
    struct stat st;
    assert_int_equal(stat(out, &st), 0);
    assert_true(st.st_size > 0);
    unlink(out);
    unlink(said);
    assert_true(small > 0);
    assert_true(large - small < GROWTH_KIB);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s GAR\n", argv[0]);
        return 2;
    }
    gar_path = argv[1];
    if (mkdtemp(folder) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(to_standard_output),
        cmocka_unit_test(to_a_compressed_file),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(folder);
    return failed;
}
