/* tests/experiments/test_calibrate.c — a quick calibration of this host is a
 * host profile the simulator reads, with sane orderings.
 *
 * Only shape and order are asserted, never the numbers: they are whatever
 * this machine measures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "calibrate.h"
#include "host_profile.h"

static void assert_ordered(const gar_calibrated_dist *d)
{
    assert_in_range(d->count, 5, GAR_CALIBRATE_LEVELS_MAX);
    assert_int_equal(d->level_ppm[0], 0);
    assert_int_equal(d->level_ppm[d->count - 1], 1000000);
    bool has[3] = { false, false, false };
    for (unsigned i = 0; i < d->count; i++) {
        if (i > 0) {
            assert_true(d->level_ppm[i] > d->level_ppm[i - 1]);
            assert_true(d->value[i] >= d->value[i - 1]);
        }
        has[0] |= d->level_ppm[i] == 500000;
        has[1] |= d->level_ppm[i] == 900000;
        has[2] |= d->level_ppm[i] == 990000;
    }
    assert_true(has[0] && has[1] && has[2]);
    assert_true(d->samples >= 1);
}

/* The quantile of a parsed distribution at an exact listed level. */
static gar_dur_ns parsed_at(const gar_host_dist *d, uint32_t ppm)
{
    for (unsigned i = 0; i < d->count; i++)
        if (d->level[i] == ppm)
            return d->value[i];
    fail_msg("level %u not listed", (unsigned)ppm);
    return 0;
}

static void assert_same(const gar_calibrated_dist *c, const gar_host_dist *p)
{
    assert_int_equal(c->count, p->count);
    for (unsigned i = 0; i < c->count; i++) {
        assert_int_equal(c->level_ppm[i], p->level[i]);
        assert_int_equal(c->value[i], p->value[i]);
    }
    assert_true(parsed_at(p, 0) <= parsed_at(p, 500000));
    assert_true(parsed_at(p, 500000) <= parsed_at(p, 900000));
    assert_true(parsed_at(p, 900000) <= parsed_at(p, 990000));
    assert_true(parsed_at(p, 990000) <= parsed_at(p, 1000000));
}

static void a_quick_calibration_parses_as_a_host_profile(void **state)
{
    (void)state;
    gar_calibrate_options options = { .samples = 60, .quick = true };
    gar_calibration cal;
    gar_error err;
    int rc = gar_calibrate_run(&options, &cal, &err);
    if (rc != 0)
        fail_msg("calibration failed: %d", rc);
    assert_ordered(&cal.sleep_overshoot);
    assert_ordered(&cal.block_wake);
    assert_ordered(&cal.park_wake);
    assert_ordered(&cal.poll_period);
    assert_true(cal.sleep_overshoot.samples == 60);
    assert_true(cal.poll_period.value[0] >= 1); /* the format's floor */
    assert_true(cal.clock_ns >= 1);
    assert_non_null(cal.park);

    char text[4096];
    size_t len = gar_calibration_format(&cal, text, sizeof text);
    assert_true(len < sizeof text);
    assert_int_equal(strlen(text), len);
    assert_memory_equal(text, "gar-host v1\n", 12);
    /* snprintf semantics: a short buffer gets a prefix and the full length. */
    char small[16];
    assert_int_equal(gar_calibration_format(&cal, small, sizeof small), len);
    assert_int_equal(strlen(small), sizeof small - 1);

    gar_host_profile profile;
    rc = gar_host_profile_parse(text, len, "calibration", &profile, &err);
    if (rc != 0) {
        char why[512];
        gar_error_message(&err, why, sizeof why);
        fail_msg("the profile does not parse: %s\n%s", why, text);
    }
    assert_int_equal(profile.query_ns, cal.query_ns);
    assert_int_equal(profile.clock_ns, cal.clock_ns);
    assert_true(profile.word_wait == cal.word_wait);
    assert_same(&cal.sleep_overshoot, &profile.sleep_overshoot);
    assert_same(&cal.block_wake, &profile.block_wake);
    assert_same(&cal.park_wake, &profile.park_wake);
    assert_same(&cal.poll_period, &profile.poll_period);
}

static void nearest_rank_and_bad_options(void **state)
{
    (void)state;
    const gar_dur_ns v[] = { 5, 6, 7, 8 };
    assert_int_equal(gar_calibrate_rank(v, 4, 0), 5);
    assert_int_equal(gar_calibrate_rank(v, 4, 250000), 5);
    assert_int_equal(gar_calibrate_rank(v, 4, 250001), 6);
    assert_int_equal(gar_calibrate_rank(v, 4, 1000000), 8);

    gar_calibration cal;
    gar_error err;
    gar_calibrate_options too_many = { .samples = GAR_CALIBRATE_SAMPLES_MAX + 1 };
    assert_int_equal(gar_calibrate_run(&too_many, &cal, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_calibrate_run(NULL, NULL, &err), -GAR_E_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_quick_calibration_parses_as_a_host_profile),
        cmocka_unit_test(nearest_rank_and_bad_options),
    };
    return cmocka_run_group_tests_name("calibrate", tests, NULL, NULL);
}
