/* tests/core/test_estimator_family.c — the estimator families: their text,
 * their predictions on hand-made samples, and adl's worked numbers
 * (docs/glossary.md, "Estimator"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/estimator_family.h>

static const gar_deadline reference = { 150000, 20000, 50000000, 8 };

static gar_sample exact(gar_dur_ns ns)
{
    return (gar_sample){ GAR_SAMPLE_EXACT, ns };
}

static gar_sample late(gar_dur_ns ns)
{
    return (gar_sample){ GAR_SAMPLE_LATE, ns };
}

static gar_estimator_spec spec_of(const char *text)
{
    gar_estimator_spec s;
    gar_error err;
    if (gar_estimator_spec_parse(text, &s, &err) != 0)
        fail_msg("'%s' refused: %s", text, err.argv[1]);
    return s;
}

static void names_parse_and_labels_round_trip(void **state)
{
    (void)state;
    static const struct {
        const char *text, *label;
    } cases[] = {
        { "adl", "adl" },
        { "none", "none" },
        { "oracle", "oracle" },
        { "half-min", "half-min" },
        { "half-mean", "half-mean" },
        { "ewma", "ewma:alpha=0.25" },
        { "ewma:alpha=0.5", "ewma:alpha=0.5" },
        { "ewma:alpha=1", "ewma:alpha=1" },
        { "ewma:alpha=0.000001", "ewma:alpha=0.000001" },
        { "quantile", "quantile:q=0.1" },
        { "quantile:q=0", "quantile:q=0" },
        { "quantile:q=0.950", "quantile:q=0.95" },
        { "quantile:q=1.0", "quantile:q=1" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gar_estimator_spec s = spec_of(cases[i].text);
        char label[GAR_ESTIMATOR_LABEL_BYTES];
        assert_int_equal(gar_estimator_spec_label(&s, label, sizeof label), strlen(cases[i].label));
        assert_string_equal(label, cases[i].label);
        gar_estimator_spec again = spec_of(label);
        assert_memory_equal(&again, &s, sizeof s);
    }
    gar_estimator_spec d = gar_estimator_spec_default();
    assert_int_equal(d.family, GAR_ESTIMATOR_ADL);
}

static void bad_text_is_refused_with_code_14(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "ADL", "adl:", "adl:window=3", "ewma:", "ewma:alpha", "ewma:alpha=",
        "ewma:alpha=0", "ewma:alpha=1.5", "ewma:alpha=2", "ewma:alpha=0.1234567",
        "ewma:beta=0.5", "ewma:alpha=.5", "ewma:alpha=0.5,q=1", "quantile:q=-0.1",
        "quantile:q=0.5x", "half-min ", "oracle:x=1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gar_estimator_spec s = { GAR_ESTIMATOR_NONE, 7, 7 };
        gar_estimator_spec before = s;
        gar_error err;
        if (gar_estimator_spec_parse(bad[i], &s, &err) != -GAR_E_INVALID_ESTIMATOR)
            fail_msg("'%s' was not refused", bad[i]);
        assert_string_equal(err.argv[0], bad[i]);
        assert_memory_equal(&s, &before, sizeof s);
    }
}

static void adl_keeps_the_reference_numbers(void **state)
{
    (void)state;
    gar_estimator_spec s = spec_of("adl");
    gar_family_point pt;
    gar_family_point_init(&pt);
    gar_dur_ns sleep = 0;
    assert_int_equal(gar_family_sleep(&s, &pt, &reference, &sleep, NULL), 0); /* cold */
    gar_family_observe(&s, &pt, &reference, exact(1000000), NULL);
    gar_family_observe(&s, &pt, &reference, exact(900000), NULL);
    gar_family_observe(&s, &pt, &reference, exact(1100000), NULL);
    assert_int_equal(gar_family_sleep(&s, &pt, &reference, &sleep, NULL), 1);
    assert_int_equal(sleep, 750000);
    for (int i = 0; i < 8; i++)
        gar_family_observe(&s, &pt, &reference, exact(2000000), NULL);
    assert_int_equal(gar_family_sleep(&s, &pt, &reference, &sleep, NULL), 1);
    assert_int_equal(sleep, 1850000);

    gar_family_point_init(&pt);
    gar_family_observe(&s, &pt, &reference, exact(900000), NULL);
    gar_family_observe(&s, &pt, &reference, late(700000), NULL);
    assert_int_equal(gar_family_sleep(&s, &pt, &reference, &sleep, NULL), 1);
    assert_int_equal(sleep, 200000);
}

static void every_family_predicts_its_own_statistic(void **state)
{
    (void)state;
    static const gar_dur_ns samples[] = { 400000, 1000000, 600000, 800000 };
    static const struct {
        const char *spec;
        int has;
        gar_dur_ns p;
    } cases[] = {
        { "adl", 1, 400000 },
        { "none", 0, 0 },
        { "oracle", 0, 0 },       /* only a simulator knows the truth */
        { "half-min", 1, 200000 },
        { "half-mean", 1, 350000 },
        /* 400, then +0.5 of each difference: 700, 650, 725 µs. */
        { "ewma:alpha=0.5", 1, 725000 },
        { "quantile:q=0.5", 1, 600000 },
        { "quantile:q=1", 1, 1000000 },
        { "quantile:q=0", 1, 400000 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gar_estimator_spec s = spec_of(cases[i].spec);
        gar_family_point pt;
        gar_family_point_init(&pt);
        gar_dur_ns p = 0;
        assert_int_equal(gar_family_prediction(&s, &pt, &reference, &p, NULL), 0);
        for (size_t k = 0; k < 4; k++)
            assert_int_equal(gar_family_observe(&s, &pt, &reference, exact(samples[k]), NULL), 0);
        int has = gar_family_prediction(&s, &pt, &reference, &p, NULL);
        if (has != cases[i].has || (has && p != cases[i].p))
            fail_msg("%s: has %d p %llu", cases[i].spec, has, (unsigned long long)p);
        /* A NONE sample (a blocking wait) teaches nothing. */
        gar_family_point copy = pt;
        assert_int_equal(gar_family_observe(&s, &pt, &reference,
                                            (gar_sample){ GAR_SAMPLE_NONE, 5 }, NULL), 0);
        assert_memory_equal(&copy, &pt, sizeof pt);
    }
}

static void late_samples_follow_each_familys_rule(void **state)
{
    (void)state;
    gar_dur_ns p = 0;
    gar_family_point pt;
    /* half-min counts a late wake as a sample: it can only stay or fall to it. */
    gar_estimator_spec hm = spec_of("half-min");
    gar_family_point_init(&pt);
    gar_family_observe(&hm, &pt, &reference, exact(800000), NULL);
    gar_family_observe(&hm, &pt, &reference, late(600000), NULL);
    gar_family_prediction(&hm, &pt, &reference, &p, NULL);
    assert_int_equal(p, 300000);
    /* quantile halves a late wake as adl does. */
    gar_estimator_spec q = spec_of("quantile:q=0");
    gar_family_point_init(&pt);
    gar_family_observe(&q, &pt, &reference, exact(900000), NULL);
    gar_family_observe(&q, &pt, &reference, late(700000), NULL);
    gar_family_prediction(&q, &pt, &reference, &p, NULL);
    assert_int_equal(p, 350000);
}

static void the_deadline_rule_is_shared(void **state)
{
    (void)state;
    gar_dur_ns s = 0;
    assert_int_equal(gar_deadline_sleep_for(&reference, 150000, &s), 0);  /* p <= margin */
    assert_int_equal(gar_deadline_sleep_for(&reference, 160000, &s), 0);  /* 10 µs < min */
    assert_int_equal(gar_deadline_sleep_for(&reference, 170000, &s), 1);
    assert_int_equal(s, 20000);
    assert_int_equal(gar_deadline_sleep_for(&reference, UINT64_MAX, &s), 1);
    assert_int_equal(s, 50000000);

    gar_estimator_spec e = spec_of("ewma");
    gar_family_point pt;
    gar_family_point_init(&pt);
    gar_deadline bad = reference;
    bad.window = 0;
    assert_int_equal(gar_family_sleep(&e, &pt, &bad, &s, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_family_observe(&e, &pt, &bad, exact(1), NULL), -GAR_E_INVALID_ARGUMENT);
    e.family = (gar_estimator_family)99;
    assert_int_equal(gar_family_sleep(&e, &pt, &reference, &s, NULL), -GAR_E_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_parse_and_labels_round_trip),
        cmocka_unit_test(bad_text_is_refused_with_code_14),
        cmocka_unit_test(adl_keeps_the_reference_numbers),
        cmocka_unit_test(every_family_predicts_its_own_statistic),
        cmocka_unit_test(late_samples_follow_each_familys_rule),
        cmocka_unit_test(the_deadline_rule_is_shared),
    };
    return cmocka_run_group_tests_name("estimator_family", tests, NULL, NULL);
}
