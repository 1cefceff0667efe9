/* tests/sim/test_rank_select.c — selection gives what a full sort puts at
 * each rank, whatever the values' spread: the same value everywhere, one
 * far outlier over a narrow body, every bit in play, ties across buckets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sim/prng.h"
#include "sim/rank_select.h"

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Selects `ranks` of v[0..n-1] and checks each against a sorted copy. */
static void check(const uint64_t *v, size_t n, const size_t *ranks, unsigned k)
{
    uint64_t *work = malloc(n * sizeof *work), *tmp = malloc(n * sizeof *tmp);
    uint64_t *sorted = malloc(n * sizeof *sorted);
    assert_non_null(work);
    assert_non_null(tmp);
    assert_non_null(sorted);
    memcpy(work, v, n * sizeof *v);
    memcpy(sorted, v, n * sizeof *v);
    qsort(sorted, n, sizeof *sorted, by_value);
    uint64_t out[GAR_RANK_SELECT_MAX];
    gar_rank_select(work, tmp, n, ranks, k, out);
    for (unsigned j = 0; j < k; j++)
        if (out[j] != sorted[ranks[j]])
            fail_msg("n %zu rank %zu: selected %llu, sorted %llu", n, ranks[j],
                     (unsigned long long)out[j], (unsigned long long)sorted[ranks[j]]);
    free(work);
    free(tmp);
    free(sorted);
}

/* The replay's four ranks (p50, p90, p99, max) and the first. */
static void check_quantile_ranks(const uint64_t *v, size_t n)
{
    size_t ranks[] = { 0, (n - 1) / 2, n * 9 / 10, n * 99 / 100, n - 1 };
    check(v, n, ranks, 5);
}

typedef uint64_t (*maker)(gar_prng *g, size_t i);

static uint64_t constant(gar_prng *g, size_t i)
{
    (void)g;
    (void)i;
    return 12345;
}

static uint64_t narrow(gar_prng *g, size_t i)
{
    (void)i;
    return 1000 + gar_prng_next(g) % 200; /* many ties, a digit's worth of spread */
}

static uint64_t outlier(gar_prng *g, size_t i)
{
    return i == 777 ? UINT64_C(1) << 62 : 400 + gar_prng_next(g) % 64;
}

static uint64_t full_width(gar_prng *g, size_t i)
{
    (void)i;
    return gar_prng_next(g);
}

static uint64_t overshoot_like(gar_prng *g, size_t i)
{
    (void)i;
    uint64_t r = gar_prng_next(g);
    return (r & 0xff) < 3 ? 100000 + (r >> 40) : 200 + (r >> 54); /* a body and a tail */
}

static void every_spread_selects_what_sorting_finds(void **state)
{
    (void)state;
    static const maker makers[] = { constant, narrow, outlier, full_width, overshoot_like };
    static const size_t sizes[] = { 1, 2, 47, 48, 49, 1000, 100003 };
    for (size_t m = 0; m < sizeof makers / sizeof makers[0]; m++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            uint64_t *v = malloc(n * sizeof *v);
            assert_non_null(v);
            gar_prng g = gar_prng_seeded(m * 100 + s);
            for (size_t i = 0; i < n; i++)
                v[i] = makers[m](&g, i);
            check_quantile_ranks(v, n);
            free(v);
        }
}

static void repeated_and_adjacent_ranks_each_get_their_value(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint64_t v[N];
    gar_prng g = gar_prng_seeded(9);
    for (size_t i = 0; i < N; i++)
        v[i] = gar_prng_next(&g) >> (i % 50); /* magnitudes spread over 50 bits */
    size_t ranks[] = { 0, 0, 1, 2, 2499, 2500, N - 2, N - 1 };
    check(v, N, ranks, sizeof ranks / sizeof ranks[0]);
    /* As many as one call takes: a replay's quantiles, their intervals' ends
     * and the max. */
    size_t many[GAR_RANK_SELECT_MAX];
    for (unsigned j = 0; j < GAR_RANK_SELECT_MAX; j++)
        many[j] = (size_t)j * (N / GAR_RANK_SELECT_MAX) + (j % 3);
    check(v, N, many, GAR_RANK_SELECT_MAX);
    size_t one[] = { N / 3 };
    check(v, N, one, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_spread_selects_what_sorting_finds),
        cmocka_unit_test(repeated_and_adjacent_ranks_each_get_their_value),
    };
    return cmocka_run_group_tests_name("rank_select", tests, NULL, NULL);
}
