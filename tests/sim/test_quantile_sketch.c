/* tests/sim/test_quantile_sketch.c — a sketch is exact up to its limit, and
 * past it every quantile it reads from its histogram lies within the
 * documented relative error of the exact one, for a few million values of
 * narrow, wide and heavy-tailed spreads; a rank's bucket always holds the
 * exact value (what the confidence intervals rely on). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/alloc.h"
#include "sim/prng.h"
#include "sim/quantile_sketch.h"
#include "sim/rank_select.h"

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef uint64_t (*maker)(gar_prng *g);

/* Overshoots of a poll: a few hundred ns, rarely tens of µs. */
static uint64_t poll_like(gar_prng *g)
{
    uint64_t v = 200 + gar_prng_below(g, 400);
    return gar_prng_below(g, 100) == 0 ? v * 50 : v;
}

/* Log-uniform over 1 ns .. 1 s: every group of buckets in play. */
static uint64_t log_uniform(gar_prng *g)
{
    return (uint64_t)exp(gar_prng_uniform(g) * log(1e9));
}

/* Pareto with shape 1.2 from 10 µs: a heavy tail, some values near 2^40. */
static uint64_t pareto(gar_prng *g)
{
    double u = 1.0 - gar_prng_uniform(g);
    double v = 10000.0 * pow(u, -1.0 / 1.2);
    return v > 1e15 ? (uint64_t)1e15 : (uint64_t)v;
}

/* Adds n values of `make` to a sketch with limit `limit` and checks every
 * rank of interest against a sort of the same values. */
static void check_against_sort(maker make, size_t n, size_t limit)
{
    gar_quantile_sketch sk;
    gar_quantile_sketch_init(&sk, limit);
    uint64_t *all = malloc(n * sizeof *all);
    assert_non_null(all);
    gar_prng g = gar_prng_seeded(n ^ limit);
    for (size_t i = 0; i < n; i++) {
        all[i] = make(&g);
        assert_true(gar_quantile_sketch_add(&sk, all[i]));
    }
    assert_int_equal(sk.count, n);
    assert_int_equal(sk.histogram, n > (limit > 0 ? limit : GAR_SKETCH_EXACT_MAX));
    qsort(all, n, sizeof *all, by_value);
    assert_int_equal(sk.min, all[0]);
    assert_int_equal(sk.max, all[n - 1]);
    if (!sk.histogram) {
        /* Exact: the values themselves are kept. */
        uint64_t *tmp = malloc(n * sizeof *tmp);
        size_t ranks[] = { n / 2, n * 9 / 10, n * 99 / 100, n - 1 };
        uint64_t at[4];
        gar_rank_select(sk.value, tmp, n, ranks, 4, at);
        for (unsigned j = 0; j < 4; j++)
            assert_int_equal(at[j], all[ranks[j]]);
        free(tmp);
    } else {
        size_t ranks[] = { 0, n / 100, n / 4, n / 2, n * 9 / 10, n * 99 / 100, n * 999 / 1000,
                           n - 1 };
        unsigned k = sizeof ranks / sizeof ranks[0];
        gar_sketch_bucket b[8];
        gar_quantile_sketch_buckets(&sk, ranks, k, b);
        for (unsigned j = 0; j < k; j++) {
            uint64_t truth = all[ranks[j]], got = gar_sketch_bucket_mid(b[j]);
            if (!(b[j].lo <= truth && truth <= b[j].hi))
                fail_msg("rank %zu: %llu outside its bucket [%llu, %llu]", ranks[j],
                         (unsigned long long)truth, (unsigned long long)b[j].lo,
                         (unsigned long long)b[j].hi);
            double rel = fabs((double)got - (double)truth) / (double)truth;
            if (truth > 0 && rel > GAR_SKETCH_RELATIVE_ERROR)
                fail_msg("rank %zu: %llu against %llu, relative error %g", ranks[j],
                         (unsigned long long)got, (unsigned long long)truth, rel);
            /* The bound the header states, half a bucket: 2^-11. */
            assert_true(rel <= 1.0 / 2048.0);
        }
    }
    free(all);
    gar_quantile_sketch_free(&sk);
}

static void exact_up_to_the_limit(void **state)
{
    (void)state;
    check_against_sort(poll_like, 100000, 100000);
    check_against_sort(log_uniform, 50000, 0); /* the default limit */
}

static void histogram_within_the_error_on_millions(void **state)
{
    (void)state;
    check_against_sort(poll_like, 3000000, GAR_SKETCH_EXACT_MAX);
    check_against_sort(log_uniform, 3000000, GAR_SKETCH_EXACT_MAX);
    check_against_sort(pareto, 3000000, GAR_SKETCH_EXACT_MAX);
}

/* Values below 2 048 have buckets of their own: exact even in a histogram. */
static void small_values_stay_exact(void **state)
{
    (void)state;
    gar_quantile_sketch sk;
    gar_quantile_sketch_init(&sk, 10);
    for (uint64_t v = 0; v < 2048; v++)
        assert_true(gar_quantile_sketch_add(&sk, 2047 - v));
    assert_true(sk.histogram);
    size_t ranks[] = { 0, 1, 1023, 2047 };
    gar_sketch_bucket b[4];
    gar_quantile_sketch_buckets(&sk, ranks, 4, b);
    for (unsigned j = 0; j < 4; j++) {
        assert_int_equal(b[j].lo, ranks[j]);
        assert_int_equal(b[j].hi, ranks[j]);
    }
    gar_quantile_sketch_free(&sk);
}

/* The extremes of the range: 0 and 2^64 - 1 land in buckets, read back. */
static void the_whole_range(void **state)
{
    (void)state;
    gar_quantile_sketch sk;
    gar_quantile_sketch_init(&sk, 1);
    assert_true(gar_quantile_sketch_add(&sk, UINT64_MAX));
    assert_true(gar_quantile_sketch_add(&sk, 0));
    assert_true(gar_quantile_sketch_add(&sk, UINT64_C(1) << 63));
    size_t ranks[] = { 0, 1, 2 };
    gar_sketch_bucket b[3];
    gar_quantile_sketch_buckets(&sk, ranks, 3, b);
    assert_int_equal(b[0].lo, 0);
    assert_int_equal(b[0].hi, 0);
    assert_int_equal(b[1].lo, UINT64_C(1) << 63);
    assert_true(b[1].hi < (UINT64_C(1) << 63) + (UINT64_C(1) << 54));
    assert_int_equal(b[2].hi, UINT64_MAX);
    assert_true(b[2].lo > UINT64_MAX - (UINT64_C(1) << 53));
    gar_quantile_sketch_free(&sk);
}

/* A reset sketch keeps its room and forgets its values and histogram. */
static void reset_starts_over(void **state)
{
    (void)state;
    gar_quantile_sketch sk;
    gar_quantile_sketch_init(&sk, 4);
    for (uint64_t v = 1; v <= 9; v++)
        assert_true(gar_quantile_sketch_add(&sk, v * 100000));
    assert_true(sk.histogram);
    gar_quantile_sketch_reset(&sk);
    assert_false(sk.histogram);
    assert_int_equal(sk.count, 0);
    assert_true(gar_quantile_sketch_add(&sk, 7));
    assert_int_equal(sk.value[0], 7);
    assert_int_equal(sk.min, 7);
    assert_int_equal(sk.max, 7);
    gar_quantile_sketch_free(&sk);
}

/* `x` and `y` (of the same count) give the same buckets at `ranks`. */
static void same_buckets(gar_quantile_sketch *x, gar_quantile_sketch *y, const size_t *ranks,
                         unsigned k)
{
    assert_int_equal(x->count, y->count);
    gar_sketch_bucket a[16], b[16];
    assert_true(k <= 16);
    uint64_t *tmp = malloc((size_t)x->count * sizeof *tmp);
    assert_non_null(tmp);
    gar_quantile_sketch_select(x, tmp, ranks, k, a);
    gar_quantile_sketch_select(y, tmp, ranks, k, b);
    assert_memory_equal(a, b, k * sizeof a[0]);
    free(tmp);
}

/* A copy holds what its source holds, exact or counted (the same ranks
 * read the same buckets), and owns its memory; room made ahead keeps the
 * values added and never passes the limit. */
static void copies_and_room(void **state)
{
    (void)state;
    gar_prng g = gar_prng_seeded(5);
    for (size_t n = 0; n <= 3000; n += 1500) {
        gar_quantile_sketch src, dst;
        gar_quantile_sketch_init(&src, 2000);
        gar_quantile_sketch_init(&dst, 7);
        assert_true(gar_quantile_sketch_reserve(&src, 1 << 20));
        assert_true(src.capacity == 2000);
        for (size_t i = 0; i < n; i++)
            assert_true(gar_quantile_sketch_add(&src, poll_like(&g)));
        assert_int_equal(src.histogram, n > 2000);
        assert_true(gar_quantile_sketch_add(&dst, 1));
        assert_true(gar_quantile_sketch_copy(&dst, &src));
        assert_int_equal(dst.count, src.count);
        assert_int_equal(dst.limit, src.limit);
        assert_int_equal(dst.histogram, src.histogram);
        assert_int_equal(dst.min, src.min);
        assert_int_equal(dst.max, src.max);
        if (n > 0) {
            const size_t ranks[] = { 0, n / 2, n - 1 };
            same_buckets(&src, &dst, ranks, 3);
        }
        gar_quantile_sketch_free(&src);
        /* The copy's memory is its own: it goes on counting. */
        assert_true(gar_quantile_sketch_add(&dst, 3));
        assert_int_equal(dst.count, n + 1);
        gar_quantile_sketch_free(&dst);
    }
}

/* Room expected for many values comes in two steps: a first room now,
 * all of it in one aligned block when that fills, the values carried over
 * (the same exact quantiles as a sketch that grew by doubling); a small
 * expectation is reserved at once; and when the large block cannot be had,
 * the sketch doubles, and asks again when that fills. */
static void expected_room_comes_in_two_steps(void **state)
{
    (void)state;
    const size_t n = 2 * GAR_SKETCH_FIRST_ROOM + 5;
    for (int fail_large = 0; fail_large < 2; fail_large++) {
        gar_quantile_sketch grown, expected;
        gar_quantile_sketch_init(&grown, 4 * GAR_SKETCH_FIRST_ROOM);
        gar_quantile_sketch_init(&expected, 4 * GAR_SKETCH_FIRST_ROOM);
        assert_true(gar_quantile_sketch_expect(&expected, 1 << 30)); /* capped at the limit */
        assert_int_equal(expected.capacity, GAR_SKETCH_FIRST_ROOM);
        assert_int_equal(expected.expected, 4 * GAR_SKETCH_FIRST_ROOM);
        gar_prng g = gar_prng_seeded(11);
        gar_alloc_fail_nth fail;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = poll_like(&g);
            if (fail_large && i == GAR_SKETCH_FIRST_ROOM) {
                gar_alloc_fail_nth_make(&fail, 1); /* the large block is the next asked */
                gar_alloc_set_hook(&fail.hook);
            }
            assert_true(gar_quantile_sketch_add(&expected, v));
            if (fail_large && i == GAR_SKETCH_FIRST_ROOM) {
                gar_alloc_set_hook(NULL);
                assert_true(gar_alloc_fail_nth_fired(&fail));
                assert_int_equal(expected.capacity, 2 * GAR_SKETCH_FIRST_ROOM); /* doubled */
            }
            assert_true(gar_quantile_sketch_add(&grown, v));
        }
        /* Either way the expected room came (after a failure, when the
         * doubled room filled). */
        assert_false(expected.histogram);
        assert_int_equal(expected.capacity, 4 * GAR_SKETCH_FIRST_ROOM);
        assert_int_equal(expected.expected, 0);
        assert_int_equal((uintptr_t)expected.value % GAR_ALLOC_LARGE_ALIGN, 0);
        const size_t ranks[] = { 0, n / 3, n / 2, n - 2, n - 1 };
        same_buckets(&grown, &expected, ranks, 5);
        gar_quantile_sketch_free(&grown);
        gar_quantile_sketch_free(&expected);
    }
    /* Under 2 MiB: all of it at once, no second step. */
    gar_quantile_sketch small;
    gar_quantile_sketch_init(&small, 1000);
    assert_true(gar_quantile_sketch_expect(&small, 1000));
    assert_int_equal(small.capacity, 1000);
    assert_int_equal(small.expected, 0);
    gar_quantile_sketch_free(&small);
}

/* Going over to the histogram needs a group for each order of magnitude
 * the values span: when one cannot be had, the sketch is left exact, its
 * values as they were and no group held; asked again, it goes over. */
static void a_failed_move_to_the_histogram_changes_nothing(void **state)
{
    (void)state;
    gar_quantile_sketch sk;
    gar_quantile_sketch_init(&sk, 100);
    for (uint64_t i = 0; i < 60; i++)
        assert_true(gar_quantile_sketch_add(&sk, (UINT64_C(1) << i) + i)); /* many groups */
    uint64_t before[60];
    memcpy(before, sk.value, sizeof before);
    bool fired = true;
    for (uint64_t nth = 1; fired; nth++) {
        gar_alloc_fail_nth fail;
        gar_alloc_fail_nth_make(&fail, nth);
        gar_alloc_set_hook(&fail.hook);
        bool moved = gar_quantile_sketch_to_histogram(&sk);
        gar_alloc_set_hook(NULL);
        fired = gar_alloc_fail_nth_fired(&fail);
        assert_int_equal(moved, !fired);
        if (fired) {
            assert_false(sk.histogram);
            assert_int_equal(sk.count, 60);
            assert_memory_equal(sk.value, before, sizeof before);
            for (unsigned g = 0; g < GAR_SKETCH_GROUPS; g++) {
                assert_null(sk.group[g]);
                assert_int_equal(sk.group_count[g], 0);
            }
        }
    }
    assert_true(sk.histogram);
    uint64_t counted = 0;
    for (unsigned g = 0; g < GAR_SKETCH_GROUPS; g++)
        counted += sk.group_count[g];
    assert_int_equal(counted, 60);
    gar_quantile_sketch_free(&sk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_up_to_the_limit),
        cmocka_unit_test(histogram_within_the_error_on_millions),
        cmocka_unit_test(small_values_stay_exact),
        cmocka_unit_test(the_whole_range),
        cmocka_unit_test(reset_starts_over),
        cmocka_unit_test(copies_and_room),
        cmocka_unit_test(expected_room_comes_in_two_steps),
        cmocka_unit_test(a_failed_move_to_the_histogram_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
