/* tests/core/test_line.c — line layout, slot checks and the wrapping reached test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gar/line.h>

static void a_line_is_one_aligned_cache_line_of_zeros(void **state)
{
    (void)state;
    gar_line line;
    gar_line_init(&line);
    assert_int_equal(sizeof line, 64);
    assert_int_equal((uintptr_t)&line % 64, 0);
    for (unsigned i = 0; i < GAR_LINE_WORDS; i++) {
        gar_slot slot;
        assert_int_equal(gar_slot_make(i, &slot, NULL), 0);
        assert_int_equal(gar_line_load(&line, slot), 0);
    }
}

static void slots_past_seven_are_refused(void **state)
{
    (void)state;
    gar_slot slot = { 3 };
    gar_error err;
    assert_int_equal(gar_slot_make(7, &slot, &err), 0);
    assert_int_equal(slot.index, 7);
    assert_int_equal(gar_slot_make(8, &slot, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(err.code, GAR_E_INVALID_ARGUMENT);
    assert_int_equal(slot.index, 7); /* untouched on refusal */
    assert_int_equal(gar_slot_make(UINT32_MAX, &slot, NULL), -GAR_E_INVALID_ARGUMENT);
}

static void reached_follows_wrapping_order(void **state)
{
    (void)state;
    assert_true(gar_seq_reached(0, 0));            /* a new line has reached 0 */
    assert_false(gar_seq_reached(UINT64_MAX, 5));  /* just before the wrap */
    assert_true(gar_seq_reached(3, UINT64_MAX));   /* a store past the wrap */
    assert_true(gar_seq_reached(6, 5));            /* an overwritten value still completes */
    assert_false(gar_seq_reached(4, 5));
    assert_true(gar_seq_reached(UINT64_MAX, UINT64_MAX));
    assert_true(gar_seq_reached(0, UINT64_MAX));
    /* Half the circle ahead is "reached", one more is "behind". */
    assert_true(gar_seq_reached(UINT64_C(1) << 63 /* - 0 */ , 1));
    assert_false(gar_seq_reached(UINT64_C(1) << 63, 0));
}

static void descriptors_read_their_own_slot(void **state)
{
    (void)state;
    gar_line line;
    gar_line_init(&line);
    gar_slot s2, s5;
    gar_slot_make(2, &s2, NULL);
    gar_slot_make(5, &s5, NULL);
    gar_descriptor d2 = { &line, s2, 3 };
    gar_descriptor d5 = { &line, s5, 1 };
    assert_false(gar_descriptor_reached(&d2));
    gar_line_store(&line, s5, 1);
    assert_false(gar_descriptor_reached(&d2));
    assert_true(gar_descriptor_reached(&d5));
    gar_line_store(&line, s2, 4);
    assert_true(gar_descriptor_reached(&d2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_line_is_one_aligned_cache_line_of_zeros),
        cmocka_unit_test(slots_past_seven_are_refused),
        cmocka_unit_test(reached_follows_wrapping_order),
        cmocka_unit_test(descriptors_read_their_own_slot),
    };
    return cmocka_run_group_tests_name("line", tests, NULL, NULL);
}
