/* tests/sim/test_stream_sketch.c — a stream's sketch reads every quantile
 * from the very bucket a gar_quantile_sketch of the same values reads it
 * from (so within the documented 0.1 % of the exact value, checked here
 * too), in exact mode and past its limit, filled directly or copied from a
 * run's sketch; and its memory is the pages its values touch: a few KiB
 * for a stream's clustered overshoots however many there are, where the
 * run's sketch layout takes 16 KiB and more, and never past the stated
 * most. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/prng.h"
#include "sim/quantile_sketch.h"
#include "sim/stream_sketch.h"

#define LIMIT 1000 /* values kept exactly, as a run's budget would */
#define RANKS 9

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A stream's overshoots: a few hundred ns to a few µs, rarely 100 µs. */
static uint64_t overshoot_like(gar_prng *g)
{
    uint64_t v = 800 + gar_prng_below(g, 2400);
    return gar_prng_below(g, 1000) == 0 ? v * 40 : v;
}

/* Log-uniform over 1 ns .. 1 s: every group of buckets in play. */
static uint64_t log_uniform(gar_prng *g)
{
    return (uint64_t)exp(gar_prng_uniform(g) * log(1e9));
}

/* Fills both sketches with `n` values of `make`; checks that they read the
 * same buckets at a spread of ranks, and each midpoint against the exact
 * value within GAR_SKETCH_RELATIVE_ERROR. */
static void same_quantiles(uint64_t (*make)(gar_prng *), size_t n, uint64_t seed)
{
    gar_prng g = gar_prng_seeded(seed);
    gar_quantile_sketch run;
    gar_stream_sketch stream;
    gar_quantile_sketch_init(&run, LIMIT);
    gar_stream_sketch_init(&stream, LIMIT);
    uint64_t *all = malloc(n * sizeof *all);
    uint64_t *tmp = malloc(LIMIT * sizeof *tmp);
    assert_non_null(all);
    assert_non_null(tmp);
    for (size_t i = 0; i < n; i++) {
        all[i] = make(&g);
        assert_true(gar_quantile_sketch_add(&run, all[i]));
        assert_true(gar_stream_sketch_add(&stream, all[i]));
    }
    assert_int_equal(stream.histogram, n > LIMIT);
    assert_int_equal(stream.count, n);
    assert_int_equal(stream.min, run.min);
    assert_int_equal(stream.max, run.max);
    qsort(all, n, sizeof *all, by_value);
    size_t ranks[RANKS] = { 0, n / 10, n / 4, n / 2, n * 9 / 10, n * 99 / 100, n * 999 / 1000,
                            n - 2, n - 1 };
    gar_sketch_bucket want[RANKS], got[RANKS];
    gar_quantile_sketch_select(&run, tmp, ranks, RANKS, want);
    gar_stream_sketch_select(&stream, tmp, ranks, RANKS, got);
    for (unsigned j = 0; j < RANKS; j++) {
        assert_int_equal(got[j].lo, want[j].lo);
        assert_int_equal(got[j].hi, want[j].hi);
        uint64_t truth = all[ranks[j]], mid = gar_sketch_bucket_mid(got[j]);
        assert_true(got[j].lo <= truth && truth <= got[j].hi);
        assert_true(fabs((double)mid - (double)truth) <=
                    GAR_SKETCH_RELATIVE_ERROR * (double)truth);
    }
    free(all);
    free(tmp);
    gar_quantile_sketch_free(&run);
    gar_stream_sketch_free(&stream);
}

static void it_reads_the_run_sketchs_buckets(void **state)
{
    (void)state;
    same_quantiles(overshoot_like, 500, 1);     /* exact */
    same_quantiles(overshoot_like, 200000, 2);  /* past the limit */
    same_quantiles(log_uniform, 300000, 3);     /* every group */
}

/* A copy of a run's sketch (a second stream appears) reads the same. */
static void a_copy_reads_the_same(void **state)
{
    (void)state;
    for (size_t n = 300; n <= 30000; n *= 100) {
        gar_prng g = gar_prng_seeded(n);
        gar_quantile_sketch run;
        gar_stream_sketch copy, direct;
        gar_quantile_sketch_init(&run, LIMIT);
        gar_stream_sketch_init(&copy, 0);
        gar_stream_sketch_init(&direct, LIMIT);
        for (size_t i = 0; i < n; i++) {
            uint64_t v = log_uniform(&g);
            assert_true(gar_quantile_sketch_add(&run, v));
            assert_true(gar_stream_sketch_add(&direct, v));
        }
        assert_true(gar_stream_sketch_from(&copy, &run));
        assert_int_equal(copy.histogram, run.histogram);
        assert_int_equal(copy.limit, LIMIT);
        assert_int_equal(copy.count, n);
        uint64_t tmp[LIMIT];
        size_t ranks[4] = { 0, n / 2, n * 99 / 100, n - 1 };
        gar_sketch_bucket a[4], b[4];
        gar_stream_sketch_select(&copy, tmp, ranks, 4, a);
        gar_stream_sketch_select(&direct, tmp, ranks, 4, b);
        assert_memory_equal(a, b, sizeof a);
        gar_quantile_sketch_free(&run);
        gar_stream_sketch_free(&copy);
        gar_stream_sketch_free(&direct);
    }
}

/* Clustered overshoots touch a few pages, and more of them touch no more:
 * under 4 KiB at 100 000 values and at 1 000 000, where the run sketch's
 * layout holds a 16 KiB group for the values below 2 048 alone. */
static void memory_is_the_pages_touched(void **state)
{
    (void)state;
    gar_prng g = gar_prng_seeded(9);
    gar_stream_sketch sk;
    gar_stream_sketch_init(&sk, LIMIT);
    size_t at_100k = 0;
    for (size_t i = 1; i <= 1000000; i++) {
        assert_true(gar_stream_sketch_add(&sk, 850 + gar_prng_below(&g, 200)));
        if (i == 100000)
            at_100k = gar_stream_sketch_bytes(&sk);
    }
    size_t at_1m = gar_stream_sketch_bytes(&sk);
    print_message("stream sketch: %zu bytes at 100 k values, %zu at 1 M\n", at_100k, at_1m);
    /* 850 .. 1 049, one value a bucket: pages 106 .. 131, with room for
     * half again at most. */
    assert_int_equal(sk.pages, 26);
    assert_true(at_1m == at_100k);
    assert_true(at_1m <= 3 * (size_t)sk.pages * GAR_STREAM_SKETCH_PAGE_BYTES / 2);
    assert_true(at_1m < 4096);
    gar_stream_sketch_free(&sk);
    assert_int_equal(gar_stream_sketch_bytes(&sk), 0);

    /* A handful of values: a handful of pages. */
    gar_stream_sketch_init(&sk, 1);
    for (uint64_t v = 1000; v < 1010; v++)
        assert_true(gar_stream_sketch_add(&sk, v));
    assert_true(sk.histogram);
    assert_int_equal(sk.pages, 2);
    assert_true(gar_stream_sketch_bytes(&sk) <= 4 * GAR_STREAM_SKETCH_PAGE_BYTES);
    gar_stream_sketch_free(&sk);
}

/* Values over the whole range of u64 touch pages everywhere, yet the
 * sketch stays within the stated most. */
static void never_past_the_most(void **state)
{
    (void)state;
    gar_stream_sketch sk;
    gar_stream_sketch_init(&sk, 1);
    for (uint64_t v = 0; v < GAR_SKETCH_LINEAR; v++)
        assert_true(gar_stream_sketch_add(&sk, v));
    for (unsigned e = 11; e < 64; e++)
        for (uint64_t b = 0; b < 1024; b += GAR_STREAM_SKETCH_PAGE)
            assert_true(gar_stream_sketch_add(&sk, (UINT64_C(1) << e) + (b << (e - 10))));
    assert_int_equal(sk.pages, GAR_STREAM_SKETCH_PAGES_MAX);
    assert_true(gar_stream_sketch_bytes(&sk) <=
                GAR_STREAM_SKETCH_PAGES_MAX * GAR_STREAM_SKETCH_PAGE_BYTES);
    assert_true(gar_stream_sketch_add(&sk, UINT64_MAX));
    assert_int_equal(sk.max, UINT64_MAX);
    gar_stream_sketch_free(&sk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(it_reads_the_run_sketchs_buckets),
        cmocka_unit_test(a_copy_reads_the_same),
        cmocka_unit_test(memory_is_the_pages_touched),
        cmocka_unit_test(never_past_the_most),
    };
    return cmocka_run_group_tests_name("stream_sketch", tests, NULL, NULL);
}
