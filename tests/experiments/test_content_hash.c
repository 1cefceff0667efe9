/* tests/experiments/test_content_hash.c — the FNV-1a 64 that names traces,
 * host profiles and imported points, against the published test vectors and
 * its little-endian rule for whole numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "import/content_hash.h"

static void published_vectors(void **state)
{
    (void)state;
    assert_int_equal(gar_hash_bytes(GAR_HASH_OFFSET, "", 0), UINT64_C(0xcbf29ce484222325));
    /* (0xcbf29ce484222325 ^ 0x61) * 0x100000001b3 mod 2^64 */
    assert_int_equal(gar_hash_bytes(GAR_HASH_OFFSET, "a", 1), UINT64_C(0xaf63dc4c8601ec8c));
    assert_int_equal(gar_hash_bytes(GAR_HASH_OFFSET, "foobar", 6), UINT64_C(0x85944171f73967e8));
}

static void hashing_continues_where_it_stopped(void **state)
{
    (void)state;
    uint64_t h = gar_hash_bytes(GAR_HASH_OFFSET, "foo", 3);
    assert_int_equal(gar_hash_bytes(h, "bar", 3), UINT64_C(0x85944171f73967e8));
}

static void a_number_is_hashed_as_its_little_endian_bytes(void **state)
{
    (void)state;
    const unsigned char le[8] = { 8, 7, 6, 5, 4, 3, 2, 1 };
    uint64_t h = gar_hash_u64(GAR_HASH_OFFSET, UINT64_C(0x0102030405060708));
    assert_int_equal(h, gar_hash_bytes(GAR_HASH_OFFSET, le, sizeof le));
    assert_int_equal(h, UINT64_C(0x0c6d4496e17859d5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(published_vectors),
        cmocka_unit_test(hashing_continues_where_it_stopped),
        cmocka_unit_test(a_number_is_hashed_as_its_little_endian_bytes),
    };
    return cmocka_run_group_tests_name("content_hash", tests, NULL, NULL);
}
