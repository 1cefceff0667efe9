/* tests/experiments/test_cli_options.c — the table-driven option loop: each
 * kind of row stores its value, ranges and parsers refuse with the row's
 * message, and the loop keeps gar_cli_getopt's refusals (repeats, unknown
 * options, missing values) word for word. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_options.h"

typedef struct values {
    const char *out;
    bool quiet, seed_given;
    unsigned long long seed, jobs;
    int parsed;
} values;

static int parse_even(const char *value, void *to)
{
    unsigned long long n;
    if (gar_cli_parse_u64(value, &n) != 0 || n % 2 != 0)
        return -1;
    *(int *)to = (int)n;
    return 0;
}

static int helped;
static void help(FILE *out)
{
    (void)out;
    helped++;
}

/* Runs the loop over a fixed table on `args` (NULL-terminated, without the
 * verb), keeping what it wrote on stderr in `said`. */
static int run(values *v, const char *const *args, char *said, size_t said_size)
{
    const gar_cli_option table[] = {
        { .name = "out", .takes = GAR_CLI_TEXT, .to = &v->out },
        { .name = "quiet", .letter = 'q', .takes = GAR_CLI_FLAG, .to = &v->quiet },
        { .name = "seed", .takes = GAR_CLI_U64, .to = &v->seed, .max = UINT64_MAX,
          .refusal = "--seed takes a decimal u64", .given = &v->seed_given },
        { .name = "jobs", .letter = 'j', .takes = GAR_CLI_U64, .to = &v->jobs, .min = 1, .max = 8,
          .refusal = "--jobs takes 1..8" },
        { .name = "even", .takes = GAR_CLI_PARSE, .to = &v->parsed, .parse = parse_even,
          .refusal = "--even takes an even number" },
        { .name = "level", .takes = GAR_CLI_U64, .to = &v->jobs, .max = 9,
          .refusal = "--level must be 0 to 9", .quote_value = true },
        { .name = "help", .letter = 'h', .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    char *argv[16] = { (char *)"demo" };
    int argc = 1;
    for (; args[argc - 1] != NULL; argc++)
        argv[argc] = (char *)args[argc - 1];
    argv[argc] = NULL;

    FILE *capture = tmpfile();
    assert_non_null(capture);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fileno(capture), STDERR_FILENO);
    int rc = gar_cli_options("demo", argc, argv, table, help);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(capture);
    size_t n = fread(said, 1, said_size - 1, capture);
    said[n] = '\0';
    fclose(capture);
    return rc;
}

static void every_kind_of_row_stores_its_value(void **state)
{
    (void)state;
    values v = { .jobs = 3 };
    char said[512];
    const char *args[] = { "--out", "o.txt", "-q", "--seed=42", "-j", "8", "--even", "6",
                           "operand", NULL };
    optind = 1;
    assert_int_equal(run(&v, args, said, sizeof said), GAR_CLI_OPTIONS_DONE);
    assert_string_equal(said, "");
    assert_string_equal(v.out, "o.txt");
    assert_true(v.quiet);
    assert_true(v.seed_given);
    assert_int_equal(v.seed, 42);
    assert_int_equal(v.jobs, 8);
    assert_int_equal(v.parsed, 6);
    assert_int_equal(optind, 9); /* at "operand" */
}

static void defaults_stay_when_an_option_is_absent(void **state)
{
    (void)state;
    values v = { .jobs = 3, .seed = 7 };
    char said[512];
    const char *args[] = { NULL };
    assert_int_equal(run(&v, args, said, sizeof said), GAR_CLI_OPTIONS_DONE);
    assert_int_equal(v.jobs, 3);
    assert_int_equal(v.seed, 7);
    assert_false(v.seed_given);
    assert_null(v.out);
    assert_int_equal(optind, 1);
}

static void help_is_printed_and_ends_the_loop(void **state)
{
    (void)state;
    values v = { 0 };
    char said[512];
    helped = 0;
    const char *args[] = { "-h", "--bogus", NULL };
    assert_int_equal(run(&v, args, said, sizeof said), GAR_EXIT_OK);
    assert_int_equal(helped, 1);
    assert_string_equal(said, "");
}

static void values_out_of_range_or_unparsed_are_refused_with_the_rows_message(void **state)
{
    (void)state;
    values v = { 0 };
    char said[512];
    const char *zero[] = { "--jobs", "0", NULL };
    assert_int_equal(run(&v, zero, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "demo: --jobs takes 1..8 (see 'gar demo --help')"));
    const char *nine[] = { "-j9", NULL };
    assert_int_equal(run(&v, nine, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "--jobs takes 1..8"));
    const char *junk[] = { "--seed", "12x", NULL };
    assert_int_equal(run(&v, junk, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "--seed takes a decimal u64"));
    const char *odd[] = { "--even", "5", NULL };
    assert_int_equal(run(&v, odd, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "--even takes an even number"));
    const char *level[] = { "--level", "10", NULL };
    assert_int_equal(run(&v, level, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "demo: --level must be 0 to 9, found '10' (see"));
}

static void getopts_refusals_name_the_option(void **state)
{
    (void)state;
    values v = { 0 };
    char said[512];
    const char *twice[] = { "-q", "--quiet", NULL };
    assert_int_equal(run(&v, twice, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "option '--quiet' is given more than once; give it once"));
    const char *unknown[] = { "--bogus", NULL };
    assert_int_equal(run(&v, unknown, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "unknown option '--bogus'"));
    const char *letter[] = { "-z", NULL };
    assert_int_equal(run(&v, letter, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "unknown option '-z'"));
    const char *bare[] = { "--out", NULL };
    assert_int_equal(run(&v, bare, said, sizeof said), GAR_EXIT_REFUSED);
    assert_non_null(strstr(said, "option '--out' needs a value"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_of_row_stores_its_value),
        cmocka_unit_test(defaults_stay_when_an_option_is_absent),
        cmocka_unit_test(help_is_printed_and_ends_the_loop),
        cmocka_unit_test(values_out_of_range_or_unparsed_are_refused_with_the_rows_message),
        cmocka_unit_test(getopts_refusals_name_the_option),
    };
    return cmocka_run_group_tests_name("cli_options", tests, NULL, NULL);
}
