/* tests/backends/test_uring_host.c — the io_uring host's sleeps and counts.
 *
 * Two groups.  The fallback group needs no ring: it injects the ring's
 * refusal at set-up and checks that every sleep then runs as a thread sleep,
 * counted with its reason, and never ends before its target.  The ring group
 * runs where an io_uring can be set up: sleeps run as timeouts, are counted
 * as such, never end early, and a timeout the kernel refuses is counted as a
 * fallback.  Where no ring can be set up the ring group is not run and the
 * program exits 77 (skipped) after the fallback group passed.  Only hard
 * guarantees are asserted, never lateness. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <string.h>

#include <gar/posix.h>
#include <gar/uring.h>

#define MS GAR_NS_PER_MS

static gar_posix_host posix; /* set up by main, shared by every test */

static gar_uring_host *open_or_fail(const gar_uring_host_options *options)
{
    gar_uring_host *host = NULL;
    gar_error err;
    assert_int_equal(gar_uring_host_open(&host, &posix, options, &err), 0);
    assert_non_null(host);
    return host;
}

/* Sleeps to a series of targets ahead; each must be reached. */
static void sleep_to_targets_ahead(gar_idle idle, const gar_dur_ns *ahead, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        gar_mono_ns target = gar_after(gar_posix_now(), ahead[i]);
        assert_int_equal(idle.ops->sleep_until(idle.ctx, target, NULL), 0);
        assert_true(gar_posix_now() >= target);
    }
}

static const gar_dur_ns ms_ahead[] = { MS, 2 * MS, MS };
#define MS_SLEEPS (sizeof ms_ahead / sizeof ms_ahead[0])

/* ---- without a ring ------------------------------------------------------- */

static void a_refused_ring_keeps_its_reason(void **state)
{
    (void)state;
    const struct {
        int error;
        const char *why;
    } cases[] = {
        { ENOSYS, "io_uring_queue_init: ENOSYS (the kernel has no io_uring)" },
        { EPERM, "io_uring_queue_init: EPERM (io_uring is disabled for this process: "
                 "kernel.io_uring_disabled, or a seccomp filter)" },
        { ENOMEM, "io_uring_queue_init: ENOMEM (no memory for the ring, or RLIMIT_MEMLOCK)" },
        { EIO, "io_uring_queue_init failed" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const gar_uring_host_options options = { .refuse_setup = cases[i].error };
        gar_uring_host *host = open_or_fail(&options);
        assert_string_equal(gar_uring_host_ring_why(host), cases[i].why);
        gar_uring_host_close(host);
    }
}

static void without_a_ring_every_sleep_is_a_counted_thread_sleep(void **state)
{
    (void)state;
    const gar_uring_host_options options = { .refuse_setup = ENOSYS };
    gar_uring_host *host = open_or_fail(&options);
    gar_idle idle = gar_uring_host_idle(host);

    gar_uring_stats stats = gar_uring_host_stats(host);
    assert_int_equal(stats.timeouts, 0);
    assert_int_equal(stats.fallbacks, 0);
    assert_null(stats.last_fallback_why);

    sleep_to_targets_ahead(idle, ms_ahead, MS_SLEEPS);
    stats = gar_uring_host_stats(host);
    assert_int_equal(stats.timeouts, 0);
    assert_int_equal(stats.fallbacks, MS_SLEEPS);
    assert_string_equal(stats.last_fallback_why, gar_uring_host_ring_why(host));
    assert_int_equal(stats.last_fallback_errno, ENOSYS);
    gar_uring_host_close(host);
}

static void a_target_already_past_sleeps_nothing_and_counts_nothing(void **state)
{
    (void)state;
    const gar_uring_host_options options = { .refuse_setup = ENOSYS };
    gar_uring_host *host = open_or_fail(&options);
    gar_idle idle = gar_uring_host_idle(host);
    assert_int_equal(idle.ops->sleep_until(idle.ctx, 0, NULL), 0);
    assert_int_equal(idle.ops->sleep_until(idle.ctx, gar_posix_now(), NULL), 0);
    gar_uring_stats stats = gar_uring_host_stats(host);
    assert_int_equal(stats.timeouts + stats.fallbacks, 0);
    gar_uring_host_close(host);
}

static void the_park_is_the_posix_hosts(void **state)
{
    (void)state;
    const gar_uring_host_options options = { .refuse_setup = ENOSYS };
    gar_uring_host *host = open_or_fail(&options);
    gar_idle idle = gar_uring_host_idle(host);
    gar_line line;
    gar_line_init(&line);
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(&line, seen);

    gar_mono_ns bound = gar_after(gar_posix_now(), MS);
    assert_int_equal(idle.ops->park(idle.ctx, &line, seen, bound, NULL), 0);
    assert_true(gar_posix_now() >= bound);

    gar_slot slot;
    assert_int_equal(gar_slot_make(4, &slot, NULL), 0);
    gar_line_store(&line, slot, 1);
    assert_int_equal(idle.ops->park(idle.ctx, &line, seen, GAR_MONO_NEVER, NULL), 1);

    gar_error err;
    assert_int_equal(idle.ops->park(idle.ctx, NULL, seen, 0, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "line");
    /* Parks are the posix host's business: they count as no sleep. */
    gar_uring_stats stats = gar_uring_host_stats(host);
    assert_int_equal(stats.timeouts + stats.fallbacks, 0);
    gar_uring_host_close(host);
}

static void open_refuses_what_it_cannot_use(void **state)
{
    (void)state;
    gar_error err;
    gar_uring_host *host = (gar_uring_host *)&posix; /* a sentinel: must stay untouched */
    assert_int_equal(gar_uring_host_open(NULL, &posix, NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "out");
    assert_int_equal(gar_uring_host_open(&host, NULL, NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "posix");
    assert_ptr_equal(host, (gar_uring_host *)&posix);
    gar_uring_host_close(NULL); /* allowed, does nothing */
}

/* ---- with a ring ---------------------------------------------------------- */

static void sleeps_run_as_timeouts_and_never_end_early(void **state)
{
    (void)state;
    gar_uring_host *host = open_or_fail(NULL);
    assert_null(gar_uring_host_ring_why(host));
    gar_idle idle = gar_uring_host_idle(host);

    sleep_to_targets_ahead(idle, ms_ahead, MS_SLEEPS);
    gar_uring_stats stats = gar_uring_host_stats(host);
    assert_int_equal(stats.timeouts, MS_SLEEPS);
    assert_int_equal(stats.fallbacks, 0);
    assert_null(stats.last_fallback_why);

    /* Short targets too: each is reached, and none ran as a fallback (one
     * may have passed before its sleep began, which then counts nothing). */
    const gar_dur_ns short_ahead[] = { 1, 1000, 50 * GAR_NS_PER_US, 200 * GAR_NS_PER_US };
    const size_t shorts = sizeof short_ahead / sizeof short_ahead[0];
    sleep_to_targets_ahead(idle, short_ahead, shorts);
    stats = gar_uring_host_stats(host);
    assert_true(stats.timeouts >= MS_SLEEPS && stats.timeouts <= MS_SLEEPS + shorts);
    assert_int_equal(stats.fallbacks, 0);
    gar_uring_host_close(host);
}

static void a_timeout_the_kernel_refuses_is_a_counted_fallback(void **state)
{
    (void)state;
    const gar_uring_host_options options = { .refuse_timeouts = true };
    gar_uring_host *host = open_or_fail(&options);
    assert_null(gar_uring_host_ring_why(host)); /* the ring is up; its timeouts are refused */
    gar_idle idle = gar_uring_host_idle(host);

    sleep_to_targets_ahead(idle, ms_ahead, MS_SLEEPS);
    gar_uring_stats stats = gar_uring_host_stats(host);
    assert_int_equal(stats.timeouts, 0);
    assert_int_equal(stats.fallbacks, MS_SLEEPS);
    assert_string_equal(stats.last_fallback_why, "the kernel refused the timeout (EINVAL)");
    assert_int_equal(stats.last_fallback_errno, EINVAL);
    gar_uring_host_close(host);
}

static void the_probe_says_yes_where_a_ring_runs(void **state)
{
    (void)state;
    const char *why = "untouched";
    assert_true(gar_uring_probe(&why));
    assert_null(why);
    assert_true(gar_uring_probe(NULL));
}

int main(void)
{
    gar_error err;
    if (gar_posix_host_init(&posix, NULL, &err) != 0) {
        fprintf(stderr, "the POSIX host could not be set up\n");
        return 1;
    }
    const struct CMUnitTest without_ring[] = {
        cmocka_unit_test(a_refused_ring_keeps_its_reason),
        cmocka_unit_test(without_a_ring_every_sleep_is_a_counted_thread_sleep),
        cmocka_unit_test(a_target_already_past_sleeps_nothing_and_counts_nothing),
        cmocka_unit_test(the_park_is_the_posix_hosts),
        cmocka_unit_test(open_refuses_what_it_cannot_use),
    };
    int failed = cmocka_run_group_tests_name("uring_host without a ring", without_ring, NULL, NULL);
    if (failed != 0)
        return failed;

    const char *why;
    if (!gar_uring_probe(&why)) {
        printf("skipped: the ring tests: no io_uring here: %s\n", why);
        return 77;
    }
    const struct CMUnitTest with_ring[] = {
        cmocka_unit_test(sleeps_run_as_timeouts_and_never_end_early),
        cmocka_unit_test(a_timeout_the_kernel_refuses_is_a_counted_fallback),
        cmocka_unit_test(the_probe_says_yes_where_a_ring_runs),
    };
    return cmocka_run_group_tests_name("uring_host with a ring", with_ring, NULL, NULL);
}
