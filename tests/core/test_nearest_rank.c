/* tests/core/test_nearest_rank.c — the nearest-rank quantile, against ranks
 * worked out by hand: ceil(level * n), counted from 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/nearest_rank.h"

static void levels_pick_the_ceiling_rank(void **state)
{
    (void)state;
    const gar_dur_ns v[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
    assert_int_equal(gar_nearest_rank(v, 10, 0), 10);       /* rank 0 reads the first */
    assert_int_equal(gar_nearest_rank(v, 10, 1), 10);       /* ceil(0.00001) = 1 */
    assert_int_equal(gar_nearest_rank(v, 10, 100000), 10);  /* exactly 1 */
    assert_int_equal(gar_nearest_rank(v, 10, 100001), 20);  /* just past: 2 */
    assert_int_equal(gar_nearest_rank(v, 10, 500000), 50);  /* 5 */
    assert_int_equal(gar_nearest_rank(v, 10, 900000), 90);  /* 9 */
    assert_int_equal(gar_nearest_rank(v, 10, 990000), 100); /* ceil(9.9) = 10 */
    assert_int_equal(gar_nearest_rank(v, 10, 1000000), 100);
}

static void an_odd_count_and_a_single_value(void **state)
{
    (void)state;
    const gar_dur_ns v[] = { 5, 6, 7 };
    assert_int_equal(gar_nearest_rank(v, 3, 333333), 5); /* ceil(0.999999) = 1 */
    assert_int_equal(gar_nearest_rank(v, 3, 333334), 6); /* ceil(1.000002) = 2 */
    assert_int_equal(gar_nearest_rank(v, 3, 500000), 6); /* ceil(1.5) = 2 */
    assert_int_equal(gar_nearest_rank(v, 3, 666667), 7); /* ceil(2.000001) = 3 */
    assert_int_equal(gar_nearest_rank(v, 1, 990000), 5);
}

static void nothing_reads_zero_and_too_high_reads_the_largest(void **state)
{
    (void)state;
    const gar_dur_ns v[] = { 1, 2 };
    assert_int_equal(gar_nearest_rank(NULL, 0, 500000), 0);
    assert_int_equal(gar_nearest_rank(v, 2, 2000000), 2);
    assert_int_equal(gar_nearest_rank(v, 2, UINT32_MAX), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels_pick_the_ceiling_rank),
        cmocka_unit_test(an_odd_count_and_a_single_value),
        cmocka_unit_test(nothing_reads_zero_and_too_high_reads_the_largest),
    };
    return cmocka_run_group_tests_name("nearest_rank", tests, NULL, NULL);
}
