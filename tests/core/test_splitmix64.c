/* tests/core/test_splitmix64.c — splitmix64 against its published sequence
 * (seed 0) and the state arithmetic worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/splitmix64.h"

static void seed_zero_gives_the_reference_sequence(void **state)
{
    (void)state;
    uint64_t s = 0;
    assert_int_equal(gar_splitmix64(&s), UINT64_C(0xe220a8397b1dcdaf));
    assert_int_equal(gar_splitmix64(&s), UINT64_C(0x6e789e6aa1b965f4));
    assert_int_equal(gar_splitmix64(&s), UINT64_C(0x06c45d188009454f));
    assert_int_equal(gar_splitmix64(&s), UINT64_C(0xf88bb8a8724c81ec));
    assert_int_equal(s, UINT64_C(0x9e3779b97f4a7c15) * 4); /* four steps, wrapped */
}

static void the_state_wraps_and_zero_mixes_to_zero(void **state)
{
    (void)state;
    /* One step short of wrapping to 0: the mix of 0 is 0 (every step is a
     * shift-xor or a multiply, each keeping 0). */
    uint64_t s = UINT64_C(0) - UINT64_C(0x9e3779b97f4a7c15);
    assert_int_equal(gar_splitmix64(&s), 0);
    assert_int_equal(s, 0);
}

static void the_mix_alone(void **state)
{
    (void)state;
    assert_int_equal(gar_splitmix64_mix(0), 0);
    /* The first output of seed 0 is the mix of one step. */
    assert_int_equal(gar_splitmix64_mix(UINT64_C(0x9e3779b97f4a7c15)),
                     UINT64_C(0xe220a8397b1dcdaf));
    assert_int_equal(gar_splitmix64_mix(1), UINT64_C(0x5692161d100b05e5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_zero_gives_the_reference_sequence),
        cmocka_unit_test(the_state_wraps_and_zero_mixes_to_zero),
        cmocka_unit_test(the_mix_alone),
    };
    return cmocka_run_group_tests_name("splitmix64", tests, NULL, NULL);
}
