/* tests/backends/test_kind_host.c — each executor kind's host runs a wait
 * to its end on the real clock, with an emulated device completing the work.
 *
 * Asserted: every kind ends a wait done, never before the device completed
 * it, whatever the plan; the reactor kinds run it as an executor task (polls
 * counted) and naive inline (none); every sleep of io-uring's executor goes
 * through the io_uring host (a timeout or a counted fallback); a deadline ends a wait
 * the device does not complete in time, under every kind.  Nothing about how
 * late. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gar/emulated.h>
#include "kind_host.h"

#define MS GAR_NS_PER_MS
#define GIVE_UP_NS (20 * GAR_NS_PER_S)
#define PREDICT "+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"

static const gar_executor_kind kinds[] = {
    GAR_EXECUTOR_NAIVE,
    GAR_EXECUTOR_GPU_REACTOR,
#ifdef GAR_HAVE_URING_HOST
    GAR_EXECUTOR_IO_URING,
#endif
};
#define KINDS (sizeof kinds / sizeof kinds[0])

static gar_plan plan_of(const char *text)
{
    gar_plan plan;
    assert_int_equal(gar_plan_parse(text, &plan, NULL), 0);
    return plan;
}

/* One wait on one item completing `in_ns` from now, under `plan_text`.
 * Returns the wait's code; fills the report, the stats and whether it ended
 * at or after the completion. */
static int wait_one(gar_kind_host *host, const char *plan_text, bool has_sleep,
                    gar_dur_ns sleep_ns, gar_dur_ns in_ns, gar_dur_ns deadline_in_ns,
                    gar_wait_report *report, gar_executor_stats *stats, bool *not_early)
{
    gar_idle idle = gar_kind_host_idle(host);
    gar_mono_ns now = gar_posix_now();
    gar_emulated_item item = { .stream = 0, .done_at = now + in_ns };
    gar_emulated_device *dev;
    assert_int_equal(gar_emulated_device_start(&dev, &item, 1, idle, -1, NULL), 0);
    gar_port port;
    assert_int_equal(gar_emulated_device_port(dev, 0, &port, NULL), 0);
    gar_plan plan = plan_of(plan_text);
    gar_error err;
    int rc = gar_kind_wait(host->kind, &plan, has_sleep, sleep_ns, now + deadline_in_ns, port,
                           gar_posix_clock(), idle, report, stats, &err);
    gar_mono_ns ended = gar_posix_now();
    if (rc < 0)
        assert_int_equal(gar_emulated_device_stop(dev, NULL), 0);
    gar_mono_ns completed;
    assert_int_equal(gar_emulated_device_finish(dev, &completed, NULL), 0);
    *not_early = completed != GAR_MONO_NEVER && ended >= completed;
    return rc;
}

static void every_kind_ends_every_plan_done_not_before_the_work(void **state)
{
    (void)state;
    const char *plans[] = { "poll", "flag:park_us=100,backstop_us=1000", "poll" PREDICT,
                            "flag:park_us=100,backstop_us=1000" PREDICT, "block" };
    for (size_t k = 0; k < KINDS; k++) {
        gar_kind_host host;
        assert_int_equal(gar_kind_host_open(&host, kinds[k], NULL), 0);
        uint64_t slept_turns = 0; /* executor turns that slept to an alarm */
        for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
            gar_wait_report report;
            gar_executor_stats stats;
            bool not_early;
            /* A 1 ms sleep in front of work done in 3 ms (predict plans). */
            int rc = wait_one(&host, plans[p], true, 1 * MS, 3 * MS, GIVE_UP_NS, &report, &stats,
                              &not_early);
            assert_int_equal(rc, 0);
            assert_true(not_early);
            assert_int_not_equal(report.kind, GAR_WAIT_KIND_NONE);
            /* A predicted sleep runs once, unless the thread was held up past
             * its wake time before the first query answered (then none). */
            if (strstr(plans[p], "predict") != NULL)
                assert_true(report.sleeps <= 1);
            else
                assert_int_equal(report.sleeps, 0);
            slept_turns += stats.slept;
            if (kinds[k] == GAR_EXECUTOR_NAIVE)
                assert_int_equal(stats.polls, 0);
            else
                assert_true(stats.polls >= 1);
        }
        if (kinds[k] == GAR_EXECUTOR_IO_URING) {
            /* Every sleep of the executor went through the io_uring host, as a
             * timeout or a counted fallback. */
            gar_kind_host_sleeps s = gar_kind_host_sleep_stats(&host);
            assert_int_equal(s.timeouts + s.fallbacks, slept_turns);
        }
        gar_kind_host_close(&host);
    }
}

static void every_kind_fails_a_wait_at_its_deadline(void **state)
{
    (void)state;
    for (size_t k = 0; k < KINDS; k++) {
        gar_kind_host host;
        assert_int_equal(gar_kind_host_open(&host, kinds[k], NULL), 0);
        gar_wait_report report;
        bool not_early;
        int rc = wait_one(&host, "flag:park_us=100,backstop_us=1000", false, 0, GIVE_UP_NS,
                          2 * MS, &report, NULL, &not_early);
        assert_int_equal(rc, -GAR_E_WAIT_DEADLINE);
        assert_int_equal(report.kind, GAR_WAIT_KIND_NONE);
        gar_kind_host_close(&host);
    }
}

static void refuses_what_is_not_a_kind(void **state)
{
    (void)state;
    gar_kind_host host;
    assert_int_equal(gar_kind_host_open(&host, (gar_executor_kind)7, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_kind_host_open(NULL, GAR_EXECUTOR_NAIVE, NULL), -GAR_E_INVALID_ARGUMENT);
    gar_plan plan = plan_of("poll");
    assert_int_equal(gar_kind_wait((gar_executor_kind)7, &plan, false, 0, GAR_MONO_NEVER,
                                   (gar_port){ 0 }, gar_posix_clock(), (gar_idle){ 0 }, NULL,
                                   NULL, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    gar_kind_host_close(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_ends_every_plan_done_not_before_the_work),
        cmocka_unit_test(every_kind_fails_a_wait_at_its_deadline),
        cmocka_unit_test(refuses_what_is_not_a_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
