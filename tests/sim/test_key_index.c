/* tests/sim/test_key_index.c — keys numbered by first appearance: repeated
 * keys share a number, extreme keys are keys like any other, unknown keys
 * answer NONE, numbers survive the table growing, and a trace's points are
 * numbered row by row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "sim/trace/key_index.h"
#include "sim/replay_index.h"

static void keys_are_numbered_as_they_first_appear(void **state)
{
    (void)state;
    gar_key_index ix;
    assert_true(gar_key_index_init(&ix));
    assert_int_equal(gar_key_index_add(&ix, 5), 0);
    assert_int_equal(gar_key_index_add(&ix, 7), 1);
    assert_int_equal(gar_key_index_add(&ix, 5), 0);
    assert_int_equal(gar_key_index_add(&ix, 0), 2);
    assert_int_equal(gar_key_index_add(&ix, UINT64_MAX), 3);
    assert_int_equal(gar_key_index_add(&ix, 7), 1);
    assert_int_equal(ix.count, 4);
    assert_int_equal(gar_key_index_find(&ix, 0), 2);
    assert_int_equal(gar_key_index_find(&ix, UINT64_MAX), 3);
    assert_int_equal(gar_key_index_find(&ix, 6), GAR_KEY_INDEX_NONE);
    gar_key_index_free(&ix);
    gar_key_index_free(&ix); /* a second free does nothing */
}

/* 1000 distinct keys (spaced like aligned call sites), each added twice: the
 * table starts at 16 slots, so it doubles seven times on the way. */
static void numbers_survive_growth(void **state)
{
    (void)state;
    enum { N = 1000 };
    gar_key_index ix;
    assert_true(gar_key_index_init(&ix));
    for (unsigned pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(gar_key_index_add(&ix, UINT64_C(0x400000) + 64 * i), i);
    assert_int_equal(ix.count, N);
    assert_int_equal(ix.mask + 1, 2048); /* the least power of two at least twice N */
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(gar_key_index_find(&ix, UINT64_C(0x400000) + 64 * i), i);
    assert_int_equal(gar_key_index_find(&ix, UINT64_C(0x400001)), GAR_KEY_INDEX_NONE);
    gar_key_index_free(&ix);
}

static void a_traces_points_are_numbered_row_by_row(void **state)
{
    (void)state;
    const uint64_t points[] = { 9, 3, 9, 9, 4, 3 };
    gar_trace t;
    gar_trace_init(&t);
    t.row = calloc(6, sizeof *t.row);
    assert_non_null(t.row);
    for (size_t i = 0; i < 6; i++)
        t.row[i].point = points[i];
    t.count = t.capacity = 6;
    t.row[4].stream = 7; /* streams are numbered alike: 0, then 7 */
    gar_replay_index ix;
    assert_int_equal(gar_replay_index_build(&t, &ix, NULL), 0);
    assert_int_equal(ix.points, 3);
    static const uint32_t point_numbers[] = { 0, 1, 0, 0, 2, 1 };
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(ix.point_of_row[i], point_numbers[i]);
        assert_int_equal(ix.stream_of_row[i], i == 4 ? 1 : 0);
    }
    assert_int_equal(ix.streams, 2);
    assert_int_equal(ix.stream_id[0], 0);
    assert_int_equal(ix.stream_id[1], 7);
    gar_replay_index_free(&ix);

    t.count = 0; /* an empty trace has no points */
    assert_int_equal(gar_replay_index_build(&t, &ix, NULL), 0);
    assert_int_equal(ix.points, 0);
    assert_int_equal(ix.streams, 0);
    gar_replay_index_free(&ix);
    t.count = 6;
    gar_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_are_numbered_as_they_first_appear),
        cmocka_unit_test(numbers_survive_growth),
        cmocka_unit_test(a_traces_points_are_numbered_row_by_row),
    };
    return cmocka_run_group_tests_name("key_index", tests, NULL, NULL);
}
