/* tests/sim/test_quantile_interval.c — the order-statistic interval: the
 * binomial tail against exact sums, the ranks against a known table and
 * against their definition, where a bound stops existing, and values read
 * off sorted data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "sim/quantile_interval.h"

/* P(Bin(n, p) <= k) summed from k = 0 up, each term from a running
 * binomial coefficient: the plain definition, fine for small n. */
static double cdf_by_definition(unsigned n, double p, unsigned k)
{
    double sum = 0.0, choose = 1.0;
    for (unsigned j = 0; j <= k && j <= n; j++) {
        if (j > 0)
            choose = choose * (double)(n - j + 1) / (double)j;
        sum += choose * pow(p, (double)j) * pow(1.0 - p, (double)(n - j));
    }
    return sum;
}

static void the_binomial_tail_matches_its_definition(void **state)
{
    (void)state;
    /* Both sides of the mode, every k, three shapes. */
    const unsigned ns[] = { 1, 7, 21, 60, 200 };
    const double ps[] = { 0.01, 0.5, 0.9, 0.99 };
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof ps / sizeof ps[0]; b++)
            for (unsigned k = 0; k <= ns[a]; k++) {
                double want = cdf_by_definition(ns[a], ps[b], k);
                double got = gar_binomial_cdf(ns[a], ps[b], k);
                if (fabs(got - want) > 1e-12 * (want > 1e-300 ? 1.0 : 0.0) + 1e-15)
                    fail_msg("n %u p %g k %u: %.17g, by definition %.17g", ns[a], ps[b], k, got,
                             want);
            }
    /* 10 coin flips: 176/1024 at or below 3. */
    assert_true(fabs(gar_binomial_cdf(10, 0.5, 3) - 176.0 / 1024.0) < 1e-15);
    assert_true(gar_binomial_cdf(10, 0.5, 10) == 1.0);
    assert_true(gar_binomial_cdf(10, 0.0, 0) == 1.0);
    assert_true(gar_binomial_cdf(10, 1.0, 9) == 0.0);
}

/* At ten million values the tail still sums to what the normal
 * approximation says, and the ends sit about 1.96 sd from the quantile. */
static void a_large_n_is_summed_stably(void **state)
{
    (void)state;
    const size_t n = 10000000;
    double sd = sqrt((double)n * 0.5 * 0.5);
    double at_mean = gar_binomial_cdf(n, 0.5, n / 2);
    assert_true(at_mean > 0.5 && at_mean < 0.5003);
    double minus2 = gar_binomial_cdf(n, 0.5, (uint64_t)((double)n / 2 - 2 * sd));
    assert_true(fabs(minus2 - 0.02275) < 0.0002);
    gar_interval_ranks r = gar_quantile_interval_ranks(n, 990000, 0.95);
    assert_true(r.has_lo && r.has_hi);
    double sd99 = sqrt((double)n * 0.99 * 0.01);
    double centre = 0.99 * (double)n;
    assert_true(fabs(((double)r.lo - centre) / sd99 + 1.96) < 0.01);
    assert_true(fabs(((double)r.hi - centre) / sd99 - 1.96) < 0.01);
}

static void the_median_of_100_is_bounded_by_the_40th_and_61st(void **state)
{
    (void)state;
    /* The textbook 95 % interval of a median of 100: x(40) .. x(61). */
    gar_interval_ranks r = gar_quantile_interval_ranks(100, 500000, 0.95);
    assert_true(r.has_lo && r.has_hi);
    assert_int_equal(r.lo, 39);
    assert_int_equal(r.hi, 60);
}

/* Every end is the extreme order statistic its definition allows: one
 * further out would leave its tail above (1 - confidence) / 2. */
static void each_end_is_the_tightest_the_definition_allows(void **state)
{
    (void)state;
    const uint32_t levels[] = { 500000, 900000, 990000 };
    const double a = 0.025;
    for (size_t n = 1; n <= 1000; n += (n < 50 ? 1 : 37))
        for (size_t j = 0; j < 3; j++) {
            double q = levels[j] / 1e6;
            gar_interval_ranks r = gar_quantile_interval_ranks(n, levels[j], 0.95);
            if (r.has_lo) { /* l = lo + 1 */
                assert_true(gar_binomial_cdf(n, q, r.lo) <= a);
                if (r.lo + 1 < n)
                    assert_true(gar_binomial_cdf(n, q, r.lo + 1) > a);
            } else {
                assert_true(gar_binomial_cdf(n, q, 0) > a);
            }
            if (r.has_hi) { /* u = hi + 1: P(B >= u) = 1 - P(B <= hi) */
                assert_true(1.0 - gar_binomial_cdf(n, q, r.hi) <= a + 1e-15);
                if (r.hi > 0)
                    assert_true(1.0 - gar_binomial_cdf(n, q, r.hi - 1) > a);
            } else {
                assert_true(pow(q, (double)n) > a);
            }
            size_t point = (size_t)ceil(q * (double)n - 1e-9) - 1;
            if (r.has_lo)
                assert_true(r.lo <= point);
            if (r.has_hi)
                assert_true(r.hi >= point && r.hi < n);
        }
}

static void too_few_values_have_no_upper_bound(void **state)
{
    (void)state;
    assert_int_equal(gar_quantile_interval_min_waits(990000, 0.95), 368);
    assert_int_equal(gar_quantile_interval_min_waits(900000, 0.95), 36);
    assert_int_equal(gar_quantile_interval_min_waits(500000, 0.95), 6);
    assert_false(gar_quantile_interval_ranks(367, 990000, 0.95).has_hi);
    assert_true(gar_quantile_interval_ranks(368, 990000, 0.95).has_hi);
    assert_false(gar_quantile_interval_ranks(35, 900000, 0.95).has_hi);
    assert_true(gar_quantile_interval_ranks(36, 900000, 0.95).has_hi);
    /* The p99 of 21 waits: bounded below (by the 20th), not above. */
    gar_interval_ranks r = gar_quantile_interval_ranks(21, 990000, 0.95);
    assert_true(r.has_lo);
    assert_int_equal(r.lo, 19);
    assert_false(r.has_hi);
    /* A median needs 6 for either end; nothing at all of no values. */
    r = gar_quantile_interval_ranks(5, 500000, 0.95);
    assert_false(r.has_lo || r.has_hi);
    r = gar_quantile_interval_ranks(0, 500000, 0.95);
    assert_false(r.has_lo || r.has_hi);
    /* A lower confidence asks for fewer. */
    assert_true(gar_quantile_interval_min_waits(990000, 0.5) < 368);
}

static void values_are_read_off_the_sorted_data(void **state)
{
    (void)state;
    gar_dur_ns v[100];
    for (size_t i = 0; i < 100; i++)
        v[i] = 1000 + 10 * i;
    gar_quantile_interval ci = gar_quantile_interval_sorted(v, 100, 500000, 0.95);
    assert_true(ci.has_lo && ci.has_hi);
    assert_int_equal(ci.lo, 1390);
    assert_int_equal(ci.hi, 1600);
    ci = gar_quantile_interval_sorted(v, 21, 990000, 0.95);
    assert_true(ci.has_lo);
    assert_int_equal(ci.lo, 1190);
    assert_false(ci.has_hi);
    /* Refused arguments give no bounds rather than wrong ones. */
    ci = gar_quantile_interval_sorted(v, 100, 500000, 1.0);
    assert_false(ci.has_lo || ci.has_hi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_binomial_tail_matches_its_definition),
        cmocka_unit_test(a_large_n_is_summed_stably),
        cmocka_unit_test(the_median_of_100_is_bounded_by_the_40th_and_61st),
        cmocka_unit_test(each_end_is_the_tightest_the_definition_allows),
        cmocka_unit_test(too_few_values_have_no_upper_bound),
        cmocka_unit_test(values_are_read_off_the_sorted_data),
    };
    return cmocka_run_group_tests_name("quantile_interval", tests, NULL, NULL);
}
