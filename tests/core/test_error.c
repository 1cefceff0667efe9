/* tests/core/test_error.c — the registry's numbers are pinned; records format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/error.h>

/* Every registered number against its name: a renumbering or a rename of an
 * identity fails here.  Append a row when a code is added; never edit one. */
static void numbers_are_pinned_to_names(void **state)
{
    (void)state;
    static const struct {
        int code;
        const char *name;
        gar_code_kind kind;
    } pinned[] = {
        { 1, "InvalidPlan", GAR_KIND_ERROR },
        { 2, "ParkFallback", GAR_KIND_WARNING },
        { 3, "ExecutorFallback", GAR_KIND_WARNING },
        { 4, "ExecutorRefused", GAR_KIND_ERROR },
        { 5, "InvalidExecutor", GAR_KIND_ERROR },
        { 6, "PendedInline", GAR_KIND_ERROR },
        { 7, "Stalled", GAR_KIND_ERROR },
        { 8, "Backend", GAR_KIND_ERROR },
        { 9, "InvalidArgument", GAR_KIND_ERROR },
        { 10, "CapacityExceeded", GAR_KIND_ERROR },
        { 11, "Usage", GAR_KIND_ERROR },
        { 12, "Io", GAR_KIND_ERROR },
        { 13, "InvalidTrace", GAR_KIND_ERROR },
        { 14, "InvalidEstimator", GAR_KIND_ERROR },
        { 15, "InvalidHostProfile", GAR_KIND_ERROR },
        { 16, "WaitDeadline", GAR_KIND_ERROR },
        { 17, "DeviceFault", GAR_KIND_ERROR },
        { 18, "NoisyCalibration", GAR_KIND_WARNING },
        { 19, "AutoOverBudget", GAR_KIND_WARNING },
        { 20, "OpsVersion", GAR_KIND_ERROR },
        { 21, "AutoMissedBudget", GAR_KIND_WARNING },
        { 22, "EmptyDatabase", GAR_KIND_ERROR },
    };
    size_t n = sizeof pinned / sizeof pinned[0];
    assert_int_equal(GAR_CODE_COUNT, n + 1);
    for (size_t i = 0; i < n; i++) {
        assert_true(gar_code_registered(pinned[i].code));
        assert_string_equal(gar_code_name(pinned[i].code), pinned[i].name);
        assert_int_equal(gar_code_kind_of(pinned[i].code), pinned[i].kind);
    }
    assert_int_equal(GAR_E_INVALID_PLAN, 1);
    assert_int_equal(GAR_E_BACKEND, 8);
}

static void unregistered_numbers_have_no_name(void **state)
{
    (void)state;
    assert_false(gar_code_registered(0));
    assert_false(gar_code_registered(-1));
    assert_false(gar_code_registered(GAR_CODE_COUNT));
    assert_null(gar_code_name(GAR_CODE_COUNT));
    assert_null(gar_code_name(0));
}

static void set_returns_negated_code_and_keeps_arguments(void **state)
{
    (void)state;
    gar_error err;
    int rc = gar_error_set(&err, GAR_E_INVALID_PLAN, 3, "plan", "pol", "unknown park 'pol'");
    assert_int_equal(rc, -1);
    assert_int_equal(err.code, GAR_E_INVALID_PLAN);
    assert_int_equal(err.argc, 3);
    assert_string_equal(err.argv[1], "pol");
    assert_int_equal(gar_error_set(NULL, GAR_E_STALLED, 1, "3"), -7);
}

static void format_prints_number_name_and_message(void **state)
{
    (void)state;
    gar_error err;
    char text[256];
    gar_error_set(&err, GAR_E_INVALID_PLAN, 3, "plan", "pol", "unknown park 'pol'");
    size_t need = gar_error_format(&err, text, sizeof text);
    assert_string_equal(text, "error 1 (InvalidPlan): invalid plan 'pol': unknown park 'pol'");
    assert_int_equal(need, strlen(text));

    gar_error_set(&err, GAR_W_EXECUTOR_FALLBACK, 3, "io-uring", "no io_uring", "naive");
    gar_error_format(&err, text, sizeof text);
    assert_string_equal(text,
                        "warning 3 (ExecutorFallback): executor 'io-uring' cannot run here "
                        "(no io_uring); running 'naive'");
    gar_error_describe(&err, text, sizeof text);
    assert_string_equal(text, "3 (ExecutorFallback): executor 'io-uring' cannot run here "
                              "(no io_uring); running 'naive'");
}

/* An empty database names the verb and the file, and says what fills it. */
static void an_empty_database_says_how_to_fill_it(void **state)
{
    (void)state;
    gar_error err;
    char text[256];
    gar_error_set(&err, GAR_E_EMPTY_DATABASE, 2, "report", "shard.db");
    gar_error_format(&err, text, sizeof text);
    assert_string_equal(text, "error 22 (EmptyDatabase): report: the database 'shard.db' holds "
                              "no runs; run gar sweep SPEC --db 'shard.db' first");
}

static void format_truncates_like_snprintf(void **state)
{
    (void)state;
    gar_error err;
    gar_error_set(&err, GAR_E_STALLED, 1, "12");
    char small[8];
    size_t need = gar_error_format(&err, small, sizeof small);
    assert_string_equal(small, "error 7");
    assert_true(need > sizeof small);
    char exact[128];
    assert_int_equal(gar_error_format(&err, exact, sizeof exact), need);
    assert_int_equal(strlen(exact), need);
}

static void missing_arguments_show_as_question_marks(void **state)
{
    (void)state;
    gar_error err;
    gar_error_set(&err, GAR_E_BACKEND, 1, "cuStreamQuery");
    char text[128];
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "cuStreamQuery failed: ?");
}

/* A fault of a whole file names the file alone, not a made-up place. */
static void empty_place_arguments_drop_their_part(void **state)
{
    (void)state;
    gar_error err;
    char text[256];
    gar_error_set(&err, GAR_E_INVALID_TRACE, 4, "a.csv", "3", "7", "bad");
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "a.csv:3: column 7: bad");
    gar_error_set(&err, GAR_E_INVALID_TRACE, 4, "r.sqlite", "KERNEL", "", "bad");
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "r.sqlite:KERNEL: bad");
    gar_error_set(&err, GAR_E_INVALID_TRACE, 4, "k.json", "", "", "no waits");
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "k.json: no waits");
    gar_error_set(&err, GAR_E_INVALID_TRACE, 2, "k.json", "4");
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "k.json:4: ?");
}

static void long_and_control_arguments_are_kept_safe(void **state)
{
    (void)state;
    char long_text[1000];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    gar_error err;
    gar_error_set(&err, GAR_E_INVALID_PLAN, 3, "plan", long_text, "a\nb\tc");
    assert_int_equal(strlen(err.argv[1]), GAR_ERROR_ARG_BYTES - 1);
    assert_memory_equal(err.argv[1] + GAR_ERROR_ARG_BYTES - 4, "...", 4);
    char text[1024];
    gar_error_message(&err, text, sizeof text);
    assert_non_null(strstr(text, "a\\x0ab\\x09c"));
    assert_null(strchr(text, '\n'));
}

/* Untrusted bytes are shown so a message stays one line of valid UTF-8, and
 * a NUL inside a field shows as \x00, not as the field's end. */
static void untrusted_bytes_are_escaped(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t n;
        const char *shown;
    } cases[] = {
        { "10\0", 3, "10\\x00" },
        { "fl\xc3\xa9g", 5, "fl\xc3\xa9g" },             /* well-formed UTF-8 */
        { "\xe2\x82\xac \xf0\x9f\x98\x80", 8, "\xe2\x82\xac \xf0\x9f\x98\x80" },
        { "a\xff" "b", 3, "a\\xffb" },                  /* no sequence */
        { "\xc3", 1, "\\xc3" },                          /* cut short */
        { "\xc0\xaf", 2, "\\xc0\\xaf" },                 /* overlong */
        { "\xed\xa0\x80", 3, "\\xed\\xa0\\x80" },        /* a surrogate */
        { "\xc2\x9b", 2, "\\xc2\\x9b" },                 /* C1 control (CSI) */
        { "\x1b[31m\x7f", 6, "\\x1b[31m\\x7f" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        size_t need = gar_error_show_bytes(cases[i].bytes, cases[i].n, buf, sizeof buf);
        assert_string_equal(buf, cases[i].shown);
        assert_int_equal(need, strlen(cases[i].shown));
    }
    char small[4];
    assert_int_equal(gar_error_show_bytes("\x01\x02", 2, small, sizeof small), 8);
    assert_string_equal(small, "\\x0");

    gar_error err;
    gar_error_set(&err, GAR_E_INVALID_PLAN, 3, "plan", "x\xff\x1b", "bad");
    char text[128];
    gar_error_format(&err, text, sizeof text);
    assert_string_equal(text, "error 1 (InvalidPlan): invalid plan 'x\\xff\\x1b': bad");
}

static void clear_empties_a_record(void **state)
{
    (void)state;
    gar_error err;
    gar_error_set(&err, GAR_E_STALLED, 1, "1");
    gar_error_clear(&err);
    assert_int_equal(err.code, GAR_OK);
    assert_int_equal(err.argc, 0);
    gar_error_clear(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_are_pinned_to_names),
        cmocka_unit_test(unregistered_numbers_have_no_name),
        cmocka_unit_test(set_returns_negated_code_and_keeps_arguments),
        cmocka_unit_test(format_prints_number_name_and_message),
        cmocka_unit_test(an_empty_database_says_how_to_fill_it),
        cmocka_unit_test(format_truncates_like_snprintf),
        cmocka_unit_test(missing_arguments_show_as_question_marks),
        cmocka_unit_test(empty_place_arguments_drop_their_part),
        cmocka_unit_test(long_and_control_arguments_are_kept_safe),
        cmocka_unit_test(untrusted_bytes_are_escaped),
        cmocka_unit_test(clear_empties_a_record),
    };
    return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
