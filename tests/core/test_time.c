/* tests/core/test_time.c — time arithmetic saturates at both ends; the Clock
 * port calls through its context. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gar/time.h>

static void since_is_the_forward_distance(void **state)
{
    (void)state;
    assert_int_equal(gar_since(10, 3), 7);
    assert_int_equal(gar_since(1, 0), 1);
    assert_int_equal(gar_since(UINT64_MAX, 0), UINT64_MAX);
    assert_int_equal(gar_since(UINT64_MAX, 1), UINT64_MAX - 1);
    assert_int_equal(gar_since(UINT64_MAX, UINT64_MAX - 1), 1);
}

static void since_an_earlier_now_is_zero_not_a_wrap(void **state)
{
    (void)state;
    assert_int_equal(gar_since(0, 0), 0);
    assert_int_equal(gar_since(5, 5), 0);
    assert_int_equal(gar_since(UINT64_MAX, UINT64_MAX), 0);
    assert_int_equal(gar_since(3, 10), 0);
    assert_int_equal(gar_since(0, 1), 0);
    assert_int_equal(gar_since(0, UINT64_MAX), 0);
    assert_int_equal(gar_since(UINT64_MAX - 1, UINT64_MAX), 0);
}

static void after_adds_below_the_top(void **state)
{
    (void)state;
    assert_int_equal(gar_after(0, 0), 0);
    assert_int_equal(gar_after(0, 1), 1);
    assert_int_equal(gar_after(7, 3), 10);
    assert_int_equal(gar_after(0, UINT64_MAX), UINT64_MAX);
    assert_int_equal(gar_after(UINT64_MAX, 0), UINT64_MAX);
    assert_int_equal(gar_after(UINT64_MAX - 1, 1), UINT64_MAX);
    assert_int_equal(gar_after(1, UINT64_MAX - 1), UINT64_MAX);
}

static void after_saturates_at_never(void **state)
{
    (void)state;
    assert_int_equal(gar_after(UINT64_MAX, 1), GAR_MONO_NEVER);
    assert_int_equal(gar_after(1, UINT64_MAX), GAR_MONO_NEVER);
    assert_int_equal(gar_after(UINT64_MAX, UINT64_MAX), GAR_MONO_NEVER);
    assert_int_equal(gar_after(UINT64_MAX - 1, 2), GAR_MONO_NEVER);
    assert_int_equal(gar_after(UINT64_C(1) << 63, UINT64_C(1) << 63), GAR_MONO_NEVER);
    /* One below the wrap still adds exactly. */
    assert_int_equal(gar_after(UINT64_C(1) << 63, (UINT64_C(1) << 63) - 1), UINT64_MAX);
}

static void since_undoes_after_until_saturation(void **state)
{
    (void)state;
    const gar_mono_ns starts[] = { 0, 1, 1000, UINT64_MAX / 2, UINT64_MAX - 5 };
    const gar_dur_ns lengths[] = { 0, 1, 5, 999, UINT64_MAX / 2 };
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
        for (size_t j = 0; j < sizeof lengths / sizeof lengths[0]; j++) {
            gar_mono_ns at = starts[i];
            gar_dur_ns d = lengths[j];
            gar_dur_ns room = UINT64_MAX - at;
            gar_dur_ns expect = d <= room ? d : room;
            assert_int_equal(gar_since(gar_after(at, d), at), expect);
        }
    }
}

static gar_mono_ns read_counter(void *ctx)
{
    gar_mono_ns *counter = ctx;
    return (*counter)++;
}

static void clock_now_calls_through_its_context(void **state)
{
    (void)state;
    gar_mono_ns counter = 41;
    gar_clock clock = { read_counter, &counter };
    assert_int_equal(gar_clock_now(clock), 41);
    assert_int_equal(gar_clock_now(clock), 42);
    assert_int_equal(counter, 43);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(since_is_the_forward_distance),
        cmocka_unit_test(since_an_earlier_now_is_zero_not_a_wrap),
        cmocka_unit_test(after_adds_below_the_top),
        cmocka_unit_test(after_saturates_at_never),
        cmocka_unit_test(since_undoes_after_until_saturation),
        cmocka_unit_test(clock_now_calls_through_its_context),
    };
    return cmocka_run_group_tests_name("time", tests, NULL, NULL);
}
