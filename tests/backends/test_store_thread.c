/* tests/backends/test_store_thread.c — a thread playing a device stores the
 * right values, in schedule order, none before its time, and stops when told.
 *
 * On the real clock: only "not before" is asserted, never how late. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gar/emulated.h>
#include <gar/posix.h>

#define MS GAR_NS_PER_MS
/* Far beyond any scheduling delay: a bound so a broken thread fails a test
 * instead of hanging it. */
#define GIVE_UP_NS (20 * GAR_NS_PER_S)

static gar_slot slot_or_fail(unsigned index)
{
    gar_slot slot;
    assert_int_equal(gar_slot_make(index, &slot, NULL), 0);
    return slot;
}

/* The index of the latest store of `schedule` whose value is in the line
 * (distinct slots), or -1 for none. */
static int latest_visible(gar_line *line, const gar_store *schedule, int count)
{
    for (int k = count - 1; k >= 0; k--)
        if (gar_line_load(line, schedule[k].slot) == schedule[k].value)
            return k;
    return -1;
}

static void stores_land_in_order_with_their_values_never_early(void **state)
{
    (void)state;
    gar_posix_host host;
    assert_int_equal(gar_posix_host_init(&host, NULL, NULL), 0);
    gar_idle idle = gar_posix_host_idle(&host);
    gar_line line;
    gar_line_init(&line);

    enum { COUNT = 4 };
    const gar_mono_ns start = gar_posix_now();
    const gar_store schedule[COUNT] = {
        { slot_or_fail(0), 11, start + 1 * MS, NULL },
        { slot_or_fail(1), 22, start + 2 * MS, NULL },
        { slot_or_fail(6), 33, start + 3 * MS, NULL },
        { slot_or_fail(2), 44, start + 3 * MS, NULL }, /* due with the one before: order still holds */
    };
    gar_store_thread *thread = NULL;
    assert_int_equal(gar_store_thread_start(&thread, &line, schedule, COUNT, NULL), 0);

    /* Watch the line as a waiter would: each time it changes, the latest
     * store seen must come with every store before it (release/acquire), and
     * the time read after seeing it is not before that store's time. */
    gar_mono_ns seen_at[COUNT];
    for (int k = 0; k < COUNT; k++)
        seen_at[k] = GAR_MONO_NEVER;
    const gar_mono_ns give_up = start + GIVE_UP_NS;
    int latest = -1;
    while (latest < COUNT - 1) {
        uint64_t seen[GAR_LINE_WORDS];
        gar_line_snapshot(&line, seen); /* before looking, so no store slips between */
        int now_latest = latest_visible(&line, schedule, COUNT);
        gar_mono_ns now = gar_posix_now();
        assert_true(now_latest >= latest); /* a store once seen stays */
        for (int j = 0; j < now_latest; j++)
            assert_int_equal(gar_line_load(&line, schedule[j].slot), schedule[j].value);
        for (int k = latest + 1; k <= now_latest; k++) {
            assert_true(now >= schedule[k].at);
            seen_at[k] = now;
        }
        latest = now_latest;
        if (latest == COUNT - 1)
            break;
        assert_true(now < give_up);
        assert_true(idle.ops->park(idle.ctx, &line, seen, give_up, NULL) >= 0);
    }

    gar_mono_ns stored_at[COUNT];
    gar_store_thread_report report;
    assert_int_equal(gar_store_thread_join(thread, stored_at, &report, NULL), 0);
    assert_int_equal(report.stored, COUNT);
    for (int k = 0; k < COUNT; k++) {
        assert_true(stored_at[k] >= schedule[k].at);          /* never early */
        assert_true(k == 0 || stored_at[k] >= stored_at[k - 1]); /* in order */
        assert_true(seen_at[k] >= stored_at[k]);              /* seen only once made */
    }
#ifdef __linux__
    assert_int_equal(report.timer_slack.ns, 1);
#endif
    /* Nothing else was touched. */
    gar_slot untouched[] = { slot_or_fail(3), slot_or_fail(4), slot_or_fail(5), slot_or_fail(7) };
    for (size_t i = 0; i < sizeof untouched / sizeof untouched[0]; i++)
        assert_int_equal(gar_line_load(&line, untouched[i]), 0);
}

static void stores_into_one_slot_leave_the_last_value(void **state)
{
    (void)state;
    gar_line line;
    gar_line_init(&line);
    const gar_mono_ns now = gar_posix_now();
    const gar_store schedule[] = {
        { slot_or_fail(4), 1, now, NULL },
        { slot_or_fail(4), 2, now + 1 * MS, NULL },
        { slot_or_fail(4), UINT64_MAX, now + 1 * MS, NULL },
    };
    gar_store_thread *thread = NULL;
    assert_int_equal(gar_store_thread_start(&thread, &line, schedule, 3, NULL), 0);
    gar_mono_ns stored_at[3];
    gar_store_thread_report report;
    assert_int_equal(gar_store_thread_join(thread, stored_at, &report, NULL), 0);
    assert_int_equal(report.stored, 3);
    assert_int_equal(gar_line_load(&line, slot_or_fail(4)), UINT64_MAX);
    for (int k = 0; k < 3; k++)
        assert_true(stored_at[k] >= schedule[k].at);
}

static void stop_interrupts_the_sleep_and_makes_no_further_store(void **state)
{
    (void)state;
    gar_posix_host host;
    assert_int_equal(gar_posix_host_init(&host, NULL, NULL), 0);
    gar_idle idle = gar_posix_host_idle(&host);
    gar_line line;
    gar_line_init(&line);
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(&line, seen);

    const gar_mono_ns now = gar_posix_now();
    const gar_store schedule[] = {
        { slot_or_fail(0), 1, 0, NULL },                        /* long past: stored at once */
        { slot_or_fail(1), 1, now + 3600 * GAR_NS_PER_S, NULL }, /* an hour away */
    };
    gar_store_thread *thread = NULL;
    assert_int_equal(gar_store_thread_start(&thread, &line, schedule, 2, NULL), 0);
    assert_int_equal(idle.ops->park(idle.ctx, &line, seen, now + GIVE_UP_NS, NULL), 1);
    assert_int_equal(gar_line_load(&line, slot_or_fail(0)), 1);

    /* The thread is now asleep for an hour (or about to be); stop wakes it. */
    assert_int_equal(gar_store_thread_stop(thread, NULL), 0);
    assert_int_equal(gar_store_thread_stop(thread, NULL), 0); /* twice is fine */
    gar_mono_ns stored_at[2];
    gar_store_thread_report report;
    assert_int_equal(gar_store_thread_join(thread, stored_at, &report, NULL), 0);
    assert_int_equal(report.stored, 1);
    assert_true(stored_at[0] != GAR_MONO_NEVER);
    assert_true(stored_at[1] == GAR_MONO_NEVER);
    assert_int_equal(gar_line_load(&line, slot_or_fail(1)), 0);
}

static void an_empty_schedule_just_ends(void **state)
{
    (void)state;
    gar_line line;
    gar_line_init(&line);
    gar_store_thread *thread = NULL;
    assert_int_equal(gar_store_thread_start(&thread, &line, NULL, 0, NULL), 0);
    gar_store_thread_report report = { .stored = 99 };
    assert_int_equal(gar_store_thread_join(thread, NULL, &report, NULL), 0);
    assert_int_equal(report.stored, 0);
}

static void start_refuses_bad_arguments_and_starts_nothing(void **state)
{
    (void)state;
    gar_line line;
    gar_line_init(&line);
    const gar_store schedule[] = {
        { slot_or_fail(0), 1, 10, NULL },
        { slot_or_fail(1), 1, 20, NULL },
        { slot_or_fail(2), 1, 19, NULL }, /* before the one before */
    };
    gar_store_thread *thread = NULL;
    gar_error err;

    assert_int_equal(gar_store_thread_start(NULL, &line, schedule, 2, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "out");
    assert_int_equal(gar_store_thread_start(&thread, NULL, schedule, 2, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "line");
    assert_int_equal(gar_store_thread_start(&thread, &line, NULL, 2, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "schedule");

    assert_int_equal(gar_store_thread_start(&thread, &line, schedule, 3, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "schedule");
    assert_non_null(strstr(err.argv[2], "entry 2 due before entry 1"));

    gar_store bad_slot = { { 8 }, 1, 0, NULL }; /* not made by gar_slot_make */
    assert_int_equal(gar_store_thread_start(&thread, &line, &bad_slot, 1, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.argv[2], "slot 8"));

    assert_null(thread); /* untouched by every refusal */
    assert_int_equal(gar_store_thread_stop(NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_store_thread_join(NULL, NULL, NULL, &err), -GAR_E_INVALID_ARGUMENT);
    for (unsigned i = 0; i < GAR_LINE_WORDS; i++)
        assert_int_equal(gar_line_load(&line, slot_or_fail(i)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stores_land_in_order_with_their_values_never_early),
        cmocka_unit_test(stores_into_one_slot_leave_the_last_value),
        cmocka_unit_test(stop_interrupts_the_sleep_and_makes_no_further_store),
        cmocka_unit_test(an_empty_schedule_just_ends),
        cmocka_unit_test(start_refuses_bad_arguments_and_starts_nothing),
    };
    return cmocka_run_group_tests_name("store_thread", tests, NULL, NULL);
}
