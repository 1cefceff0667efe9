/* tests/backends/test_posix_host.c — the POSIX host's clock, sleep and park.
 *
 * These run on the real clock, so they assert only what the host
 * guarantees: time never goes backwards, a sleep never ends before its
 * target, a park answers 1 exactly when the line changed and never answers 0
 * before its bound.  How late anything is is measured elsewhere, never
 * asserted. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gar/posix.h>

#define MS GAR_NS_PER_MS

static gar_posix_host host_or_fail(const gar_posix_host_options *options)
{
    gar_posix_host host;
    gar_error err;
    assert_int_equal(gar_posix_host_init(&host, options, &err), 0);
    return host;
}

static gar_slot slot_or_fail(unsigned index)
{
    gar_slot slot;
    assert_int_equal(gar_slot_make(index, &slot, NULL), 0);
    return slot;
}

static void the_clock_never_goes_back_and_moves_on(void **state)
{
    (void)state;
    gar_clock clock = gar_posix_clock();
    gar_mono_ns before = gar_clock_now(clock);
    for (int i = 0; i < 10000; i++) {
        gar_mono_ns now = gar_clock_now(clock);
        assert_true(now >= before);
        before = now;
    }
    /* It advances: after a sleep to 1 ms on, at least 1 ms has passed. */
    gar_posix_host host = host_or_fail(NULL);
    gar_idle idle = gar_posix_host_idle(&host);
    gar_mono_ns start = gar_posix_now();
    assert_int_equal(idle.ops->sleep_until(idle.ctx, start + MS, NULL), 0);
    assert_true(gar_clock_now(clock) >= start + MS);
}

static void set_up_tightens_the_timer_slack_and_says_so(void **state)
{
    (void)state;
    gar_posix_host host = host_or_fail(NULL);
    assert_int_equal(host.report.spins_per_yield, GAR_POSIX_SPINS_PER_YIELD_DEFAULT);
#ifdef __linux__
    assert_true(host.report.timer_slack.set);
    assert_true(host.report.timer_slack.known);
    assert_int_equal(host.report.timer_slack.ns, 1);
    assert_null(host.report.timer_slack.why);
#else
    assert_false(host.report.timer_slack.set);
    assert_non_null(host.report.timer_slack.why);
#endif
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);
    assert_false(caps.io_uring);
    assert_non_null(caps.io_uring_why);
}

static void the_best_park_is_the_word_wait_where_the_probe_offers_one(void **state)
{
    (void)state;
    gar_word_wait probed;
    const bool offered = gar_word_wait_probe(&probed, NULL) == 1;
    gar_posix_host host = host_or_fail(NULL);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);
    assert_int_equal(host.report.word_wait.kind, probed.kind);
    if (offered) {
        assert_string_equal(host.report.park, probed.name);
        assert_null(host.report.word_wait_why);
        assert_true(caps.word_wait);
    } else {
        /* The probe's own reason, as the plan's fallback warning quotes it. */
        assert_string_equal(host.report.park, "spin-yield");
        assert_string_equal(host.report.word_wait_why, probed.why);
        assert_false(caps.word_wait);
        assert_ptr_equal(caps.word_wait_why, host.report.word_wait_why);
    }
}

static void the_word_wait_asked_for_by_name_is_refused_where_the_probe_refuses(void **state)
{
    (void)state;
    gar_word_wait probed;
    const bool offered = gar_word_wait_probe(&probed, NULL) == 1;
    const gar_posix_host_options options = { .park = GAR_POSIX_PARK_WORD_WAIT };
    gar_posix_host host = { .report = { .park = "untouched" } };
    gar_error err;
    int rc = gar_posix_host_init(&host, &options, &err);
    if (offered) {
        assert_int_equal(rc, 0);
        assert_string_equal(host.report.park, probed.name);
    } else {
        assert_int_equal(rc, -GAR_E_BACKEND);
        assert_string_equal(err.argv[0], "the word wait probe");
        assert_string_equal(err.argv[1], probed.why);
        assert_string_equal(host.report.park, "untouched");
    }
}

static void spin_yield_asked_for_is_not_probed_and_says_so(void **state)
{
    (void)state;
    const gar_posix_host_options options = { .park = GAR_POSIX_PARK_SPIN_YIELD };
    gar_posix_host host = host_or_fail(&options);
    assert_string_equal(host.report.park, "spin-yield");
    assert_int_equal(host.report.word_wait.kind, GAR_WORD_WAIT_NONE);
    assert_string_equal(host.report.word_wait_why, "spin-yield was asked for");
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);
    assert_false(caps.word_wait);
    assert_string_equal(caps.word_wait_why, "spin-yield was asked for");
}

static void set_up_refuses_what_it_cannot_do(void **state)
{
    (void)state;
    gar_error err;
    assert_int_equal(gar_posix_host_init(NULL, NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(err.code, GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "host");

    gar_posix_host host = { .report = { .park = "untouched" } };
    gar_posix_host_options options = { .park = (gar_posix_park)42 };
    assert_int_equal(gar_posix_host_init(&host, &options, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "options->park");
    assert_string_equal(host.report.park, "untouched");

    options = (gar_posix_host_options){ .park = GAR_POSIX_PARK_SPIN_YIELD, .spins_per_yield = 3 };
    assert_int_equal(gar_posix_host_init(&host, &options, &err), 0);
    assert_int_equal(host.report.spins_per_yield, 3);
}

static void sleep_until_never_returns_before_its_target(void **state)
{
    (void)state;
    gar_posix_host host = host_or_fail(NULL);
    gar_idle idle = gar_posix_host_idle(&host);
    const gar_dur_ns ahead[] = { 0, 1, 1000, 50 * GAR_NS_PER_US, 200 * GAR_NS_PER_US, 2 * MS };
    for (size_t i = 0; i < sizeof ahead / sizeof ahead[0]; i++) {
        gar_mono_ns target = gar_after(gar_posix_now(), ahead[i]);
        assert_int_equal(idle.ops->sleep_until(idle.ctx, target, NULL), 0);
        assert_true(gar_posix_now() >= target);
    }
    /* A target in the past (here the clock's origin) returns at once with 0. */
    assert_int_equal(idle.ops->sleep_until(idle.ctx, 0, NULL), 0);
}

typedef struct storer {
    gar_line *line;
    gar_slot slot;
    uint64_t value;
    pthread_barrier_t parking; /* both threads pass it as the parker parks */
} storer;

/* Stores once the parker is on its way into the park, not after a guessed
 * pause: the parker goes straight into its park from the barrier while
 * this thread is still waking, so the store lands inside the park; were
 * it first, the park would answer 1 at once, which is also right. */
static void *store_as_the_parker_parks(void *arg)
{
    storer *s = arg;
    pthread_barrier_wait(&s->parking);
    gar_line_store(s->line, s->slot, s->value);
    return NULL;
}

static void park_answers_1_when_another_thread_stores(void **state)
{
    (void)state;
    gar_posix_host host = host_or_fail(NULL);
    gar_idle idle = gar_posix_host_idle(&host);
    gar_line line;
    gar_line_init(&line);
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(&line, seen);

    storer s = { .line = &line, .slot = slot_or_fail(3), .value = 7 };
    assert_int_equal(pthread_barrier_init(&s.parking, NULL, 2), 0);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, store_as_the_parker_parks, &s), 0);
    /* The bound is far beyond any plausible scheduling delay: it is there so a
     * broken park fails the test rather than hanging it. */
    gar_mono_ns bound = gar_after(gar_posix_now(), 20 * GAR_NS_PER_S);
    pthread_barrier_wait(&s.parking);
    int rc = idle.ops->park(idle.ctx, &line, seen, bound, NULL);
    assert_int_equal(rc, 1);
    assert_int_equal(gar_line_load(&line, s.slot), 7); /* the store is visible */
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(pthread_barrier_destroy(&s.parking), 0);
}

static void park_answers_0_at_its_bound_when_nothing_changes(void **state)
{
    (void)state;
    /* Both the default spin and one that yields on every look. */
    const gar_posix_host_options options[] = {
        { .park = GAR_POSIX_PARK_BEST },
        { .park = GAR_POSIX_PARK_SPIN_YIELD, .spins_per_yield = 1 },
    };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        gar_posix_host host = host_or_fail(&options[i]);
        gar_idle idle = gar_posix_host_idle(&host);
        gar_line line;
        gar_line_init(&line);
        gar_line_store(&line, slot_or_fail(5), 9); /* a line that is not all zero */
        uint64_t seen[GAR_LINE_WORDS];
        gar_line_snapshot(&line, seen);

        gar_mono_ns bound = gar_posix_now() + 2 * MS;
        assert_int_equal(idle.ops->park(idle.ctx, &line, seen, bound, NULL), 0);
        assert_true(gar_posix_now() >= bound);
        assert_true(gar_line_unchanged(&line, seen));
    }
}

static void park_answers_1_at_once_when_the_line_already_differs(void **state)
{
    (void)state;
    gar_posix_host host = host_or_fail(NULL);
    gar_idle idle = gar_posix_host_idle(&host);
    gar_line line;
    gar_line_init(&line);
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(&line, seen);
    gar_line_store(&line, slot_or_fail(0), 1); /* after the snapshot, before the park */

    /* A bound already past: the line is looked at before the clock, so the
     * answer is 1, not 0 — and the park cannot wait for anything. */
    assert_int_equal(idle.ops->park(idle.ctx, &line, seen, 0, NULL), 1);

    /* Any word counts, including the last. */
    gar_line_snapshot(&line, seen);
    gar_line_store(&line, slot_or_fail(7), UINT64_MAX);
    assert_int_equal(idle.ops->park(idle.ctx, &line, seen, 0, NULL), 1);
}

static void park_refuses_a_missing_line_or_snapshot(void **state)
{
    (void)state;
    gar_posix_host host = host_or_fail(NULL);
    gar_idle idle = gar_posix_host_idle(&host);
    gar_line line;
    gar_line_init(&line);
    uint64_t seen[GAR_LINE_WORDS] = { 0 };
    gar_error err;
    assert_int_equal(idle.ops->park(idle.ctx, NULL, seen, GAR_MONO_NEVER, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "line");
    assert_int_equal(idle.ops->park(idle.ctx, &line, NULL, GAR_MONO_NEVER, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "seen");
}

static void a_thread_tightens_its_own_timer_slack(void **state)
{
    (void)state;
    /* The call reads back what it got, so a refusal cannot pass for 1 ns. */
    gar_timer_slack slack;
    gar_posix_tighten_timer_slack(&slack);
#ifdef __linux__
    assert_true(slack.set && slack.known);
    assert_int_equal(slack.ns, 1);
#else
    assert_non_null(slack.why);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_clock_never_goes_back_and_moves_on),
        cmocka_unit_test(set_up_tightens_the_timer_slack_and_says_so),
        cmocka_unit_test(set_up_refuses_what_it_cannot_do),
        cmocka_unit_test(the_best_park_is_the_word_wait_where_the_probe_offers_one),
        cmocka_unit_test(the_word_wait_asked_for_by_name_is_refused_where_the_probe_refuses),
        cmocka_unit_test(spin_yield_asked_for_is_not_probed_and_says_so),
        cmocka_unit_test(sleep_until_never_returns_before_its_target),
        cmocka_unit_test(park_answers_1_when_another_thread_stores),
        cmocka_unit_test(park_answers_0_at_its_bound_when_nothing_changes),
        cmocka_unit_test(park_answers_1_at_once_when_the_line_already_differs),
        cmocka_unit_test(park_refuses_a_missing_line_or_snapshot),
        cmocka_unit_test(a_thread_tightens_its_own_timer_slack),
    };
    return cmocka_run_group_tests_name("posix_host", tests, NULL, NULL);
}
