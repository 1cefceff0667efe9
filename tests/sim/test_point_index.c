/* tests/sim/test_point_index.c — a trace's points numbered by first
 * appearance: repeated keys share a number, extreme keys are keys like any
 * other, unknown keys answer NONE, and numbers survive the table growing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "point_index.h"

static gar_trace trace_of(const uint64_t *points, size_t n)
{
    gar_trace t;
    gar_trace_init(&t);
    t.row = calloc(n > 0 ? n : 1, sizeof *t.row);
    assert_non_null(t.row);
    for (size_t i = 0; i < n; i++)
        t.row[i].point = points[i];
    t.count = t.capacity = n;
    return t;
}

static void points_are_numbered_as_they_first_appear(void **state)
{
    (void)state;
    const uint64_t p[] = { 5, 7, 5, 0, UINT64_MAX, 7, 0 };
    gar_trace t = trace_of(p, sizeof p / sizeof p[0]);
    gar_point_index ix;
    assert_true(gar_point_index_build(&ix, &t));
    assert_int_equal(ix.count, 4);
    assert_int_equal(gar_point_index_find(&ix, 5), 0);
    assert_int_equal(gar_point_index_find(&ix, 7), 1);
    assert_int_equal(gar_point_index_find(&ix, 0), 2);
    assert_int_equal(gar_point_index_find(&ix, UINT64_MAX), 3);
    assert_int_equal(gar_point_index_find(&ix, 6), GAR_POINT_INDEX_NONE);
    gar_point_index_free(&ix);
    gar_point_index_free(&ix); /* a second free does nothing */
    gar_trace_free(&t);
}

static void an_empty_trace_has_no_points(void **state)
{
    (void)state;
    gar_trace t = trace_of(NULL, 0);
    gar_point_index ix;
    assert_true(gar_point_index_build(&ix, &t));
    assert_int_equal(ix.count, 0);
    assert_int_equal(gar_point_index_find(&ix, 0), GAR_POINT_INDEX_NONE);
    gar_point_index_free(&ix);
    gar_trace_free(&t);
}

/* 1000 distinct keys (spaced like aligned call sites) and each twice: the
 * table starts at 16 slots, so it doubles six times on the way. */
static void numbers_survive_growth(void **state)
{
    (void)state;
    enum { N = 1000 };
    uint64_t p[2 * N];
    for (size_t i = 0; i < N; i++)
        p[i] = p[N + i] = UINT64_C(0x400000) + 64 * i;
    gar_trace t = trace_of(p, 2 * N);
    gar_point_index ix;
    assert_true(gar_point_index_build(&ix, &t));
    assert_int_equal(ix.count, N);
    assert_true(ix.mask + 1 >= 2 * N); /* at most half full */
    for (size_t i = 0; i < N; i++)
        assert_int_equal(gar_point_index_find(&ix, p[i]), i);
    assert_int_equal(gar_point_index_find(&ix, UINT64_C(0x400000) + 1), GAR_POINT_INDEX_NONE);
    gar_point_index_free(&ix);
    gar_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(points_are_numbered_as_they_first_appear),
        cmocka_unit_test(an_empty_trace_has_no_points),
        cmocka_unit_test(numbers_survive_growth),
    };
    return cmocka_run_group_tests_name("point_index", tests, NULL, NULL);
}
