/* tests/backends/test_cpu_pin.c — a thread pinned for a run gets its own CPU
 * set back, and the split names two different CPUs it may run on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cpu_pin.h"

static void pin_then_restore_gives_the_set_back(void **state)
{
    (void)state;
    gar_cpu_saved before, pinned, after;
    gar_cpu_save(&before);
    int waiter, device;
    if (!before.valid || !gar_cpu_split(&waiter, &device))
        skip(); /* one CPU, or no affinity here: nothing to pin apart */
    assert_true(waiter >= 0 && device > waiter);
    assert_true(before.mask[waiter / 64] & (UINT64_C(1) << (waiter % 64)));
    assert_true(before.mask[device / 64] & (UINT64_C(1) << (device % 64)));

    assert_int_equal(gar_cpu_pin_self(waiter, NULL), 0);
    gar_cpu_save(&pinned);
    assert_true(pinned.valid);
    for (int w = 0; w < 16; w++) /* exactly the one CPU */
        assert_true(pinned.mask[w] == (w == waiter / 64 ? UINT64_C(1) << (waiter % 64) : 0));
    int a, b;
    assert_false(gar_cpu_split(&a, &b)); /* pinned: no two CPUs to split */
    assert_int_equal(a, -1);

    gar_cpu_restore(&before);
    gar_cpu_save(&after);
    assert_memory_equal(before.mask, after.mask, sizeof before.mask);
}

static void a_cpu_out_of_range_is_refused(void **state)
{
    (void)state;
    gar_error err;
    assert_int_equal(gar_cpu_pin_self(-1, &err), -GAR_E_BACKEND);
    assert_int_equal(err.code, GAR_E_BACKEND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pin_then_restore_gives_the_set_back),
        cmocka_unit_test(a_cpu_out_of_range_is_refused),
    };
    return cmocka_run_group_tests_name("cpu_pin", tests, NULL, NULL);
}
