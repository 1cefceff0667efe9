/* tests/core/test_executor_kind.c — executor spellings, and the chain
 * io-uring -> gpu-reactor -> naive walked for every combination of caps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/executor_kind.h>

#define NO_WW "CPU lacks WAITPKG and MONITORX"
#define NO_URING "io_uring_setup: Operation not permitted"

static void spellings_parse_and_name_back(void **state)
{
    (void)state;
    const char *names[] = { "naive", "gpu-reactor", "io-uring" };
    const gar_executor_kind kinds[] = { GAR_EXECUTOR_NAIVE, GAR_EXECUTOR_GPU_REACTOR,
                                        GAR_EXECUTOR_IO_URING };
    for (size_t i = 0; i < 3; i++) {
        gar_executor_kind kind;
        assert_int_equal(gar_executor_kind_parse(names[i], &kind, NULL), 0);
        assert_int_equal(kind, kinds[i]);
        assert_string_equal(gar_executor_kind_name(kind), names[i]);
    }
    assert_string_equal(gar_executor_kind_name((gar_executor_kind)3), "?");
}

static void other_spellings_are_refused(void **state)
{
    (void)state;
    const char *bad[] = { "", "Naive", "gpu_reactor", "io_uring", "naive ", "reactor", "iouring" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gar_executor_kind kind = GAR_EXECUTOR_IO_URING;
        gar_error err;
        assert_int_equal(gar_executor_kind_parse(bad[i], &kind, &err), -GAR_E_INVALID_EXECUTOR);
        assert_int_equal(kind, GAR_EXECUTOR_IO_URING);
        assert_int_equal(err.argc, 2);
        assert_string_equal(err.argv[0], bad[i]);
        assert_string_equal(err.argv[1], "naive, gpu-reactor, io-uring");
    }
    gar_error err;
    gar_executor_kind_parse("reactor", NULL, &err);
    assert_int_equal(err.code, GAR_E_INVALID_ARGUMENT);
    gar_executor_kind kind;
    assert_int_equal(gar_executor_kind_parse(NULL, &kind, &err), -GAR_E_INVALID_ARGUMENT);
    gar_executor_kind_parse("reactor", &kind, &err);
    char text[256];
    gar_error_format(&err, text, sizeof text);
    assert_string_equal(text, "error 5 (InvalidExecutor): unknown executor 'reactor' (accepted: "
                              "naive, gpu-reactor, io-uring)");
}

/* One row per (requested, caps) pair: what runs, and the why it reports. */
typedef struct resolve_case {
    gar_executor_kind requested;
    bool word_wait;
    bool io_uring;
    gar_executor_kind running;
    const char *why; /* NULL: runs as requested */
} resolve_case;

static const resolve_case cases[] = {
    { GAR_EXECUTOR_NAIVE, false, false, GAR_EXECUTOR_NAIVE, NULL },
    { GAR_EXECUTOR_NAIVE, false, true, GAR_EXECUTOR_NAIVE, NULL },
    { GAR_EXECUTOR_NAIVE, true, false, GAR_EXECUTOR_NAIVE, NULL },
    { GAR_EXECUTOR_NAIVE, true, true, GAR_EXECUTOR_NAIVE, NULL },
    { GAR_EXECUTOR_GPU_REACTOR, false, false, GAR_EXECUTOR_NAIVE, "no word-wait: " NO_WW },
    { GAR_EXECUTOR_GPU_REACTOR, false, true, GAR_EXECUTOR_NAIVE, "no word-wait: " NO_WW },
    { GAR_EXECUTOR_GPU_REACTOR, true, false, GAR_EXECUTOR_GPU_REACTOR, NULL },
    { GAR_EXECUTOR_GPU_REACTOR, true, true, GAR_EXECUTOR_GPU_REACTOR, NULL },
    { GAR_EXECUTOR_IO_URING, false, false, GAR_EXECUTOR_NAIVE,
      "no io-uring: " NO_URING "; no word-wait: " NO_WW },
    { GAR_EXECUTOR_IO_URING, false, true, GAR_EXECUTOR_NAIVE, "no word-wait: " NO_WW },
    { GAR_EXECUTOR_IO_URING, true, false, GAR_EXECUTOR_GPU_REACTOR, "no io-uring: " NO_URING },
    { GAR_EXECUTOR_IO_URING, true, true, GAR_EXECUTOR_IO_URING, NULL },
};

static void every_combination_resolves(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const resolve_case *c = &cases[i];
        gar_caps caps = { c->word_wait, c->word_wait ? NULL : NO_WW, c->io_uring,
                          c->io_uring ? NULL : NO_URING };
        const char *asked = gar_executor_kind_name(c->requested);
        const char *runs = gar_executor_kind_name(c->running);

        gar_executor_kind running = (gar_executor_kind)99;
        gar_error report;
        gar_error_set(&report, GAR_E_STALLED, 1, "stale");
        int rc = gar_executor_kind_resolve(c->requested, &caps, false, &running, &report);
        assert_int_equal(running, c->running);
        if (c->why == NULL) {
            assert_int_equal(rc, 0);
            assert_int_equal(report.code, GAR_OK);
        } else {
            assert_int_equal(rc, 1);
            assert_int_equal(report.code, GAR_W_EXECUTOR_FALLBACK);
            assert_int_equal(report.argc, 3);
            assert_string_equal(report.argv[0], asked);
            assert_string_equal(report.argv[1], c->why);
            assert_string_equal(report.argv[2], runs);
        }

        running = (gar_executor_kind)99;
        rc = gar_executor_kind_resolve(c->requested, &caps, true, &running, &report);
        if (c->why == NULL) {
            assert_int_equal(rc, 0);
            assert_int_equal(running, c->requested);
        } else {
            assert_int_equal(rc, -GAR_E_EXECUTOR_REFUSED);
            assert_int_equal(running, (gar_executor_kind)99);
            assert_int_equal(report.argc, 2);
            assert_string_equal(report.argv[0], asked);
            assert_string_equal(report.argv[1], c->why);
        }
    }
}

static void messages_read_whole(void **state)
{
    (void)state;
    gar_caps caps = { false, NO_WW, true, NULL };
    gar_executor_kind running;
    gar_error report;
    char text[512];
    gar_executor_kind_resolve(GAR_EXECUTOR_GPU_REACTOR, &caps, false, &running, &report);
    gar_error_format(&report, text, sizeof text);
    assert_string_equal(text, "warning 3 (ExecutorFallback): executor 'gpu-reactor' cannot run here "
                              "(no word-wait: " NO_WW "); running 'naive'");
    gar_executor_kind_resolve(GAR_EXECUTOR_GPU_REACTOR, &caps, true, &running, &report);
    gar_error_format(&report, text, sizeof text);
    assert_string_equal(text, "error 4 (ExecutorRefused): executor 'gpu-reactor' cannot run here "
                              "(no word-wait: " NO_WW ") and the setting is strict");
}

static void long_reasons_are_cut_visibly(void **state)
{
    (void)state;
    char reason[300];
    memset(reason, 'r', sizeof reason - 1);
    reason[sizeof reason - 1] = '\0';
    gar_caps caps = { false, reason, false, reason };
    gar_executor_kind running;
    gar_error report;
    assert_int_equal(gar_executor_kind_resolve(GAR_EXECUTOR_IO_URING, &caps, false, &running, &report), 1);
    assert_int_equal(running, GAR_EXECUTOR_NAIVE);
    assert_int_equal(strlen(report.argv[1]), GAR_ERROR_ARG_BYTES - 1);
    assert_memory_equal(report.argv[1], "no io-uring: rrr", 16);
    assert_memory_equal(report.argv[1] + GAR_ERROR_ARG_BYTES - 4, "...", 4);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    gar_caps caps = { true, NULL, true, NULL };
    gar_executor_kind running;
    gar_error err;
    assert_int_equal(gar_executor_kind_resolve(GAR_EXECUTOR_NAIVE, NULL, false, &running, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_executor_kind_resolve(GAR_EXECUTOR_NAIVE, &caps, false, NULL, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_executor_kind_resolve((gar_executor_kind)3, &caps, false, &running, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_executor_kind_resolve(GAR_EXECUTOR_IO_URING, &caps, false, &running, NULL), 0);
}

static void caps_are_looked_up_and_withdrawn_by_name(void **state)
{
    (void)state;
    gar_caps caps = { true, NULL, true, NULL };
    const char *why = "untouched";
    assert_true(gar_caps_has(&caps, "word-wait", &why));
    assert_string_equal(why, "untouched");
    assert_false(gar_caps_has(&caps, "spin", &why));
    assert_string_equal(why, "not a capability");
    assert_int_equal(gar_caps_withdraw(&caps, "io-uring", "withdrawn for a test", NULL), 0);
    assert_false(caps.io_uring);
    assert_false(gar_caps_has(&caps, "io-uring", &why));
    assert_string_equal(why, "withdrawn for a test");
    assert_true(caps.word_wait);
    gar_error err;
    assert_int_equal(gar_caps_withdraw(&caps, "spin", "x", &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_caps_withdraw(NULL, "io-uring", "x", &err), -GAR_E_INVALID_ARGUMENT);
    assert_false(gar_caps_has(NULL, "word-wait", NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spellings_parse_and_name_back),
        cmocka_unit_test(other_spellings_are_refused),
        cmocka_unit_test(every_combination_resolves),
        cmocka_unit_test(messages_read_whole),
        cmocka_unit_test(long_reasons_are_cut_visibly),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(caps_are_looked_up_and_withdrawn_by_name),
    };
    return cmocka_run_group_tests_name("executor_kind", tests, NULL, NULL);
}
