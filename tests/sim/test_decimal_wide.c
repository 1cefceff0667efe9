/* tests/sim/test_decimal_wide.c — sixteen bytes at a time agree with a
 * byte-by-byte reading: the classes of 64 random bytes (digits, commas,
 * newlines, their neighbours and any byte), and the value of every count of
 * 1 to 16 digits after any bytes, the largest values included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/trace/decimal_wide.h"
#include "sim/prng.h"

static void classes_agree_with_a_byte_loop(void **state)
{
    (void)state;
#if GAR_DECIMAL_WIDE
    /* Bytes near the classes' edges half the time, any byte else. */
    static const unsigned char near[] = { '/', '0', '5', '9', ':', ',', '\n', '\r', '+', '-',
                                          0x00, 0x80, 0xb0, 0xb9, 0xff, 0x2c + 0x80 };
    gar_prng g = gar_prng_seeded(17);
    for (int trial = 0; trial < 20000; trial++) {
        char b[64];
        for (unsigned i = 0; i < 64; i++) {
            uint64_t r = gar_prng_next(&g);
            b[i] = (char)(r & 1 ? near[(r >> 8) % sizeof near] : (unsigned char)(r >> 16));
        }
        uint64_t digit, comma, newline;
        gar_decimal_classify64(b, &digit, &comma, &newline);
        for (unsigned i = 0; i < 64; i++) {
            assert_int_equal((digit >> i) & 1, b[i] >= '0' && b[i] <= '9');
            assert_int_equal((comma >> i) & 1, b[i] == ',');
            assert_int_equal((newline >> i) & 1, b[i] == '\n');
        }
    }
#else
    skip();
#endif
}

static void values_agree_with_a_byte_loop(void **state)
{
    (void)state;
#if GAR_DECIMAL_WIDE
    gar_prng g = gar_prng_seeded(19);
    for (unsigned count = 1; count <= 16; count++) {
        for (int trial = 0; trial < 2000; trial++) {
            char b[32];
            for (unsigned i = 0; i < 32; i++)
                b[i] = (char)(gar_prng_next(&g) >> 24); /* anything before the digits */
            uint64_t want = 0;
            for (unsigned i = 0; i < count; i++) {
                uint64_t r = gar_prng_next(&g);
                /* All nines or all zeros now and then: the edges of each lane. */
                unsigned d = trial % 7 == 0 ? 9 : trial % 7 == 1 ? 0 : (unsigned)(r % 10);
                b[16 + i] = (char)('0' + d);
                want = want * 10 + d;
            }
            assert_int_equal(gar_decimal_value16(b + 16 + count, count), want);
        }
    }
    static const char top[] = "xxxxxxxx9999999999999999";
    assert_int_equal(gar_decimal_value16(top + 24, 16), UINT64_C(9999999999999999));
    static const char one[] = "0000000000000001";
    assert_int_equal(gar_decimal_value16(one + 16, 16), 1);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(classes_agree_with_a_byte_loop),
        cmocka_unit_test(values_agree_with_a_byte_loop),
    };
    return cmocka_run_group_tests_name("decimal_wide", tests, NULL, NULL);
}
