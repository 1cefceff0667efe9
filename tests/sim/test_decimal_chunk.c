/* tests/sim/test_decimal_chunk.c — eight bytes read as digits at once agree
 * with a byte-by-byte reading: for every count of leading digits (0 to 8),
 * every byte value that can end the run, and random bytes after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/trace/decimal_chunk.h"
#include "sim/prng.h"

/* The leading digits of b[0..7] and their value, a byte at a time. */
static unsigned digits_by_bytes(const unsigned char *b, uint64_t *value)
{
    unsigned n = 0;
    uint64_t v = 0;
    while (n < 8 && b[n] >= '0' && b[n] <= '9')
        v = v * 10 + (uint64_t)(b[n++] - '0');
    *value = v;
    return n;
}

static void agree_with_a_byte_loop(void **state)
{
    (void)state;
#if GAR_DECIMAL_CHUNKS
    gar_prng g = gar_prng_seeded(23);
    for (unsigned count = 0; count <= 8; count++) {
        for (unsigned stop = 0; stop < 256; stop++) {
            for (int trial = 0; trial < 16; trial++) {
                unsigned char b[8];
                for (unsigned i = 0; i < 8; i++) {
                    uint64_t r = gar_prng_next(&g);
                    /* After the stop byte: digits half the time, any byte else. */
                    b[i] = i < count ? (unsigned char)('0' + r % 10)
                                     : (unsigned char)((r >> 8) & 1 ? '0' + r % 10 : r >> 16);
                }
                if (count < 8)
                    b[count] = (unsigned char)stop;
                uint64_t want;
                unsigned want_count = digits_by_bytes(b, &want);
                uint64_t chunk;
                memcpy(&chunk, b, 8);
                unsigned got = gar_decimal_chunk_digits(chunk);
                assert_int_equal(got, want_count);
                if (got > 0)
                    assert_int_equal(gar_decimal_chunk_value(chunk, got), want);
            }
        }
    }
#else
    skip();
#endif
}

static void the_largest_values_are_exact(void **state)
{
    (void)state;
#if GAR_DECIMAL_CHUNKS
    uint64_t chunk;
    memcpy(&chunk, "99999999", 8);
    assert_int_equal(gar_decimal_chunk_digits(chunk), 8);
    assert_int_equal(gar_decimal_chunk_value(chunk, 8), 99999999);
    memcpy(&chunk, "10000000", 8);
    assert_int_equal(gar_decimal_chunk_value(chunk, 8), 10000000);
    memcpy(&chunk, "0000007,", 8);
    assert_int_equal(gar_decimal_chunk_digits(chunk), 7);
    assert_int_equal(gar_decimal_chunk_value(chunk, 7), 7);
    /* Bytes that carry when 6 is added, and the neighbours of '0' and '9'. */
    memcpy(&chunk, "12\xfa" "3456", 8);
    assert_int_equal(gar_decimal_chunk_digits(chunk), 2);
    memcpy(&chunk, "/1234567", 8);
    assert_int_equal(gar_decimal_chunk_digits(chunk), 0);
    memcpy(&chunk, "123:4567", 8);
    assert_int_equal(gar_decimal_chunk_digits(chunk), 3);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agree_with_a_byte_loop),
        cmocka_unit_test(the_largest_values_are_exact),
    };
    return cmocka_run_group_tests_name("decimal_chunk", tests, NULL, NULL);
}
