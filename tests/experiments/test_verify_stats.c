/* tests/experiments/test_verify_stats.c — gar verify's distances on
 * hand-worked samples: the KS statistic exactly, quantiles and ratios, and
 * the tolerances (their text and their rules). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verify/verify_stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void ks_of_identical_samples_is_zero(void **state)
{
    (void)state;
    const gar_dur_ns a[] = { 1, 2, 2, 3, 9 };
    assert_true(gar_ks_statistic(a, N(a), a, N(a), 0) == 0.0);
}

static void ks_of_disjoint_samples_is_one(void **state)
{
    (void)state;
    const gar_dur_ns a[] = { 1, 2, 3 }, b[] = { 4, 5 };
    assert_true(gar_ks_statistic(a, N(a), b, N(b), 0) == 1.0);
    assert_true(gar_ks_statistic(b, N(b), a, N(a), 0) == 1.0);
}

static void ks_is_the_largest_cdf_gap_worked_by_hand(void **state)
{
    (void)state;
    /* F_a steps 1/4 at 1, 2, 3, 4; F_b steps 1/3 at 2, 5, 6.
     * x:     1     2      3     4     5     6
     * F_a:  1/4   2/4    3/4    1     1     1
     * F_b:   0    1/3    1/3   1/3   2/3    1
     * gap:  1/4   1/6    5/12  2/3   1/3    0   -> D = 2/3. */
    const gar_dur_ns a[] = { 1, 2, 3, 4 }, b[] = { 2, 5, 6 };
    assert_true(gar_ks_statistic(a, N(a), b, N(b), 0) == 8.0 / 12.0);
    /* Ties step together: {1,1,2} against {1,2,2}: at 1, 2/3 vs 1/3. */
    const gar_dur_ns c[] = { 1, 1, 2 }, d[] = { 1, 2, 2 };
    assert_true(gar_ks_statistic(c, N(c), d, N(d), 0) == 1.0 / 3.0);
}

static void ks_at_a_resolution_ignores_differences_below_it(void **state)
{
    (void)state;
    /* Sub-µs overshoots of two different shapes, the same above 20 µs. */
    const gar_dur_ns a[] = { 60, 70, 80, 30000 }, b[] = { 700, 900, 1000, 30000 };
    assert_true(gar_ks_statistic(a, N(a), b, N(b), 0) == 0.75);
    assert_true(gar_ks_statistic(a, N(a), b, N(b), 20000) == 0.0);
    /* Mass above the resolution still counts: 1/4 against 3/4 above 20 µs. */
    const gar_dur_ns c[] = { 10, 10, 10, 40000 }, e[] = { 10, 40000, 40000, 40000 };
    assert_true(gar_ks_statistic(c, N(c), e, N(e), 20000) == 0.5);
}

static void ks_critical_value_matches_the_formula(void **state)
{
    (void)state;
    /* c(0.05) = sqrt(-ln(0.025) / 2) = 1.3581; for 300 and 300 waits the
     * factor is sqrt(600 / 90000) = 0.08165. */
    assert_true(fabs(gar_ks_critical(300, 300, 0.05) - 0.110889) < 1e-5);
    assert_true(gar_ks_critical(100, 100, 0.01) > gar_ks_critical(100, 100, 0.05));
}

static void quantiles_are_nearest_rank(void **state)
{
    (void)state;
    const gar_dur_ns v[] = { 10, 20, 30, 40, 50, 60, 70, 80, 90, 100 };
    assert_int_equal(gar_verify_quantile(v, N(v), 0), 10);
    assert_int_equal(gar_verify_quantile(v, N(v), 500000), 50);  /* 5th of 10 */
    assert_int_equal(gar_verify_quantile(v, N(v), 500001), 60);  /* ceil: 6th */
    assert_int_equal(gar_verify_quantile(v, N(v), 900000), 90);
    assert_int_equal(gar_verify_quantile(v, N(v), 990000), 100);
    assert_int_equal(gar_verify_quantile(v, N(v), 1000000), 100);
    assert_int_equal(gar_verify_quantile(v, 0, 500000), 0);
}

static void ratios_are_real_over_sim(void **state)
{
    (void)state;
    assert_true(gar_verify_ratio(30, 60) == 0.5);
    assert_true(gar_verify_ratio(60, 30) == 2.0);
    assert_true(gar_verify_ratio(0, 0) == 1.0);
    assert_true(isinf(gar_verify_ratio(5, 0)));
}

static void a_quantile_agrees_by_ratio_or_by_absolute_distance(void **state)
{
    (void)state;
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    assert_true(gar_verify_quantile_agrees(&tol, 50000, 40000));   /* ratio 1.25 */
    assert_false(gar_verify_quantile_agrees(&tol, 50001, 40000));  /* just past 1.25 */
    assert_true(gar_verify_quantile_agrees(&tol, 40000, 50000));   /* ratio 0.8 */
    assert_false(gar_verify_quantile_agrees(&tol, 39999, 50000));
    assert_true(gar_verify_quantile_agrees(&tol, 900, 60));        /* ratio 15, 0.84 µs apart */
    assert_true(gar_verify_quantile_agrees(&tol, 1060, 60));       /* exactly 1 µs apart */
    assert_false(gar_verify_quantile_agrees(&tol, 1061, 60));
}

static void a_quantile_is_judged_only_with_ten_waits_above_it(void **state)
{
    (void)state;
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    assert_true(gar_verify_quantile_judged(&tol, 20, 500000));
    assert_false(gar_verify_quantile_judged(&tol, 19, 500000));
    assert_true(gar_verify_quantile_judged(&tol, 100, 900000));
    assert_false(gar_verify_quantile_judged(&tol, 99, 900000));
    assert_false(gar_verify_quantile_judged(&tol, 300, 990000));
    assert_true(gar_verify_quantile_judged(&tol, 1000, 990000));
    assert_false(gar_verify_quantile_judged(&tol, 1000000, 1000000)); /* the max never */
}

static void the_sampling_band_is_two_standard_errors_of_the_level(void **state)
{
    (void)state;
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    uint32_t lo, hi;
    /* p90 of 300 and 300 waits: 0.9 +- 2 sqrt(0.09 * 2/300) = 0.9 +- 0.04899. */
    gar_verify_level_band(&tol, 300, 300, 900000, &lo, &hi);
    assert_int_equal(lo, 851010);
    assert_int_equal(hi, 948990);
    gar_verify_level_band(&tol, 300, 300, 500000, &lo, &hi);
    assert_int_equal(lo, 418350);
    assert_int_equal(hi, 581650);
    gar_verify_level_band(&tol, 100, 100, 990000, &lo, &hi); /* clamped at the top */
    assert_int_equal(lo, 961858);
    assert_int_equal(hi, 1000000);
    tol.band_z = 0;
    gar_verify_level_band(&tol, 300, 300, 900000, &lo, &hi);
    assert_int_equal(lo, 900000);
    assert_int_equal(hi, 900000);
}

static void a_value_agrees_with_a_band_it_lies_in_or_near(void **state)
{
    (void)state;
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    /* A knee: the band spans 80 µs to 3 ms; anything inside agrees. */
    assert_true(gar_verify_agrees_with_band(&tol, 2800000, 80000, 3000000));
    assert_true(gar_verify_agrees_with_band(&tol, 3750000, 80000, 3000000)); /* 1.25x the top */
    assert_false(gar_verify_agrees_with_band(&tol, 3750001, 80000, 3000000));
    assert_true(gar_verify_agrees_with_band(&tol, 64000, 80000, 3000000));   /* 0.8x the bottom */
    assert_false(gar_verify_agrees_with_band(&tol, 63999, 80000, 3000000));
    assert_true(gar_verify_agrees_with_band(&tol, 100, 1100, 1100));         /* within 1 µs */
}

static void tolerances_are_set_from_text_and_bad_text_is_refused(void **state)
{
    (void)state;
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    /* The defaults gar verify --help states. */
    assert_true(tol.ks_d_max == 0.15 && tol.ks_d_block_max == 0.25);
    assert_true(tol.ratio_min == 0.8 && tol.ratio_max == 1.25);
    assert_int_equal(tol.abs_ns, 1000);
    assert_int_equal(tol.tail_waits_min, 10);
    assert_true(tol.busy_diff_max == 0.05);
    assert_true(tol.band_z == 2.0);
    assert_true(tol.edge_rel == 0.1);
    assert_int_equal(gar_verify_tolerance_set(&tol, "edge=0.2", "verify", NULL), 0);
    assert_true(tol.edge_rel == 0.2);
    assert_int_equal(gar_verify_tolerance_set(&tol, "ks_d_block=0.3", "verify", NULL), 0);
    assert_true(tol.ks_d_block_max == 0.3);

    assert_int_equal(gar_verify_tolerance_set(&tol, "ks_d=0.2", "verify", NULL), 0);
    assert_true(tol.ks_d_max == 0.2);
    assert_int_equal(gar_verify_tolerance_set(&tol, "abs_us=5", "verify", NULL), 0);
    assert_int_equal(tol.abs_ns, 5000);
    assert_int_equal(gar_verify_tolerance_set(&tol, "tail_waits=3", "verify", NULL), 0);
    assert_int_equal(tol.tail_waits_min, 3);
    assert_int_equal(gar_verify_tolerance_set(&tol, "ratio_max=3", "verify", NULL), 0);
    assert_true(tol.ratio_max == 3.0);
    assert_int_equal(gar_verify_tolerance_set(&tol, "band_z=0", "verify", NULL), 0);
    assert_true(tol.band_z == 0.0);

    const char *bad[] = { "ks_d", "ks_d=", "ks_d=1.5", "ks_d=-1", "ks_d=1e-1", "nope=1",
                          "abs_us=2.5", "ratio_min=0", "ratio_max=0.5", "busy_diff=x",
                          "band_z=11", "edge=1.5" };
    for (size_t i = 0; i < N(bad); i++) {
        gar_error err;
        gar_verify_tolerance before = tol;
        assert_int_equal(gar_verify_tolerance_set(&tol, bad[i], "verify", &err), -GAR_E_USAGE);
        assert_int_equal(err.code, GAR_E_USAGE);
        assert_memory_equal(&before, &tol, sizeof tol); /* untouched */
    }
}

/* n waits: value i is base + i * step (i = 0 .. n-1), in reverse order. */
static void ramp(gar_dur_ns *v, size_t n, gar_dur_ns base, gar_dur_ns step)
{
    for (size_t i = 0; i < n; i++)
        v[i] = base + (gar_dur_ns)(n - 1 - i) * step;
}

/* The verdict of two injected runs of 1000 waits, check by check. */
static void a_comparison_judges_each_check_by_the_defaults(void **state)
{
    (void)state;
    enum { n = 1000 };
    static gar_dur_ns real[n], sim[n];
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    gar_verify_comparison c;

    /* The same samples: everything passes, D = 0, the max is never judged. */
    ramp(real, n, 200, 1);
    ramp(sim, n, 200, 1);
    gar_verify_compare(&tol, false, real, sim, n, 1.0, 0.96, &c);
    assert_true(c.agree);
    assert_true(c.ks_d == 0 && c.ks_d_max == 0.15);
    assert_int_equal(c.q[0].real, 699); /* nearest rank: the 500th */
    assert_int_equal(c.q[0].check, GAR_CHECK_PASS);
    assert_int_equal(c.q[3].check, GAR_CHECK_NOT_JUDGED);
    assert_int_equal(c.busy_check, GAR_CHECK_PASS);

    /* Busy 0.06 apart: only that check fails. */
    gar_verify_compare(&tol, false, real, sim, n, 1.0, 0.94, &c);
    assert_false(c.agree);
    assert_int_equal(c.busy_check, GAR_CHECK_FAIL);
    assert_int_equal(c.ks_check, GAR_CHECK_PASS);

    /* Sim shifted up by 200 ns, a fifth of the ramp:
     * D = 0.2 fails poll's 0.15 but passes a blocking plan's 0.25; the
     * quantiles differ by 200 ns, within 1 µs. */
    ramp(real, n, 200, 1);
    ramp(sim, n, 400, 1);
    gar_verify_compare(&tol, false, real, sim, n, 1, 1, &c);
    assert_true(c.ks_d > 0.1999 && c.ks_d < 0.2001);
    assert_int_equal(c.ks_check, GAR_CHECK_FAIL);
    assert_int_equal(c.q[0].check, GAR_CHECK_PASS);
    assert_false(c.agree);
    ramp(real, n, 200, 1);
    ramp(sim, n, 400, 1);
    gar_verify_compare(&tol, true, real, sim, n, 1, 1, &c);
    assert_true(c.ks_d_max == 0.25);
    assert_true(c.agree);

    /* Microseconds: block wakes of 30..39.99 µs real against 40..49.99 µs
     * sim.  p50 35 µs against 45 µs: ratio 0.78, past 1/1.25, and 10 µs
     * apart, past 1 µs: fails, as does D = 1. */
    ramp(real, n, 30000, 10);
    ramp(sim, n, 40000, 10);
    gar_verify_compare(&tol, true, real, sim, n, 0, 0, &c);
    assert_int_equal(c.q[0].real, 34990);
    assert_int_equal(c.q[0].sim, 44990);
    assert_int_equal(c.q[0].check, GAR_CHECK_FAIL);
    assert_true(c.ks_d == 1.0);
    assert_false(c.agree);
}

/* The blocking bound follows what an arm ran: a blocking band always, an
 * auto plan when it blocked in at least half its waits, nothing else. */
static void an_arm_is_judged_as_blocking_by_what_it_ran(void **state)
{
    (void)state;
    gar_bands bands;
    assert_int_equal(gar_bands_parse("block", &bands, NULL), 0);
    assert_true(gar_verify_arm_blocks(&bands, 0, 1000));
    assert_int_equal(gar_bands_parse("poll;rows>=8:block", &bands, NULL), 0);
    assert_true(gar_verify_arm_blocks(&bands, 0, 1000));
    assert_int_equal(gar_bands_parse("poll", &bands, NULL), 0);
    assert_false(gar_verify_arm_blocks(&bands, 1000, 1000)); /* poll never blocks: counts ignored */
    assert_int_equal(gar_bands_parse("auto:p99_us=1000", &bands, NULL), 0);
    assert_true(gar_verify_arm_blocks(&bands, 1000, 1000));
    assert_true(gar_verify_arm_blocks(&bands, 500, 1000));
    assert_false(gar_verify_arm_blocks(&bands, 499, 1000));
    assert_false(gar_verify_arm_blocks(&bands, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ks_of_identical_samples_is_zero),
        cmocka_unit_test(ks_of_disjoint_samples_is_one),
        cmocka_unit_test(ks_is_the_largest_cdf_gap_worked_by_hand),
        cmocka_unit_test(ks_at_a_resolution_ignores_differences_below_it),
        cmocka_unit_test(ks_critical_value_matches_the_formula),
        cmocka_unit_test(quantiles_are_nearest_rank),
        cmocka_unit_test(ratios_are_real_over_sim),
        cmocka_unit_test(a_comparison_judges_each_check_by_the_defaults),
        cmocka_unit_test(a_quantile_agrees_by_ratio_or_by_absolute_distance),
        cmocka_unit_test(a_quantile_is_judged_only_with_ten_waits_above_it),
        cmocka_unit_test(the_sampling_band_is_two_standard_errors_of_the_level),
        cmocka_unit_test(a_value_agrees_with_a_band_it_lies_in_or_near),
        cmocka_unit_test(tolerances_are_set_from_text_and_bad_text_is_refused),
        cmocka_unit_test(an_arm_is_judged_as_blocking_by_what_it_ran),
    };
    return cmocka_run_group_tests_name("verify_stats", tests, NULL, NULL);
}
