/* tests/core/test_estimator.c — the deadline estimator against every worked
 * number of docs/glossary.md ("Estimator"), its invariants over random
 * sequences, and the point table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gar/estimator.h>

#include "core/splitmix64.h"

#define US(n) ((gar_dur_ns)(n) * GAR_NS_PER_US)
#define MS(n) ((gar_dur_ns)(n) * GAR_NS_PER_MS)

/* The bundled predict's parameters: margin 150 µs, min 20 µs, max 50 ms, window 8. */
static const gar_deadline reference = {
    .margin_ns = US(150),
    .min_sleep_ns = US(20),
    .max_sleep_ns = MS(50),
    .window = 8,
};

static gar_sample exact(gar_dur_ns ns)
{
    return (gar_sample){ .kind = GAR_SAMPLE_EXACT, .ns = ns };
}

static gar_sample late(gar_dur_ns ns)
{
    return (gar_sample){ .kind = GAR_SAMPLE_LATE, .ns = ns };
}

static void observe(gar_estimator *est, const gar_deadline *deadline, gar_sample sample)
{
    assert_int_equal(gar_estimator_observe(est, deadline, sample, NULL), 0);
}

/* The sleep, with "none" as UINT64_MAX (never a sleep the rule can give,
 * since max_sleep is below it in every deadline used here). */
#define NONE UINT64_MAX
static gar_dur_ns sleep_of(const gar_estimator *est, const gar_deadline *deadline)
{
    gar_dur_ns s = 12345;
    int rc = gar_estimator_sleep(est, deadline, &s, NULL);
    assert_true(rc == 0 || rc == 1);
    if (rc == 0) {
        assert_int_equal(s, 12345); /* untouched */
        return NONE;
    }
    assert_int_not_equal(s, NONE);
    return s;
}

static gar_dur_ns prediction_of(const gar_estimator *est, const gar_deadline *deadline)
{
    gar_dur_ns p = 0;
    assert_int_equal(gar_estimator_prediction(est, deadline, &p, NULL), 1);
    return p;
}

/* ---- the worked numbers (docs/glossary.md, "Estimator") ---------------- */

static void a_cold_point_sleeps_none(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    assert_int_equal(gar_estimator_count(&est), 0);
    assert_int_equal(sleep_of(&est, &reference), NONE);
    gar_dur_ns p = 99;
    assert_int_equal(gar_estimator_prediction(&est, &reference, &p, NULL), 0);
    assert_int_equal(p, 99);
    /* All zero bytes is a cold point too. */
    gar_estimator zeroed = { 0 };
    assert_int_equal(sleep_of(&zeroed, &reference), NONE);
}

static void the_reference_sequence(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, exact(US(1000)));
    observe(&est, &reference, exact(US(900)));
    observe(&est, &reference, exact(US(1100)));
    assert_int_equal(prediction_of(&est, &reference), US(900));
    assert_int_equal(sleep_of(&est, &reference), 750000);

    for (int i = 0; i < 8; i++) {
        observe(&est, &reference, exact(MS(2)));
        /* 0.9 ms leaves the window with the seventh 2 ms, 1.1 ms with the
         * eighth. */
        gar_dur_ns expect = i < 6 ? 750000 : i == 6 ? 950000 : 1850000;
        assert_int_equal(sleep_of(&est, &reference), expect);
    }
    assert_int_equal(prediction_of(&est, &reference), MS(2));
    assert_int_equal(sleep_of(&est, &reference), 1850000);
}

static void a_fresh_point_at_160us_sleeps_none(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, exact(US(160)));
    assert_int_equal(sleep_of(&est, &reference), NONE); /* 10 µs < 20 µs */
}

static void a_fresh_point_at_100us_sleeps_none(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, exact(US(100)));
    assert_int_equal(sleep_of(&est, &reference), NONE); /* p <= margin */
}

static void a_huge_residual_sleeps_max(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, exact(UINT64_MAX));
    assert_int_equal(sleep_of(&est, &reference), 50000000);
}

static void the_reference_late_example(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, exact(US(900)));
    assert_int_equal(sleep_of(&est, &reference), US(750));
    observe(&est, &reference, late(US(700)));
    assert_int_equal(gar_estimator_count(&est), 2);
    assert_int_equal(prediction_of(&est, &reference), US(350));
    assert_int_equal(sleep_of(&est, &reference), US(200));
}

/* ---- the edges of the rule -------------------------------------------- */

static void a_late_wake_after_p_halves_p(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, exact(US(900)));
    observe(&est, &reference, late(MS(5))); /* later than p: min(woke, p) = p */
    assert_int_equal(prediction_of(&est, &reference), US(450));
    observe(&est, &reference, late(MS(5)));
    assert_int_equal(prediction_of(&est, &reference), 225000);
}

static void a_late_wake_at_a_cold_point_pushes_half_of_it(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, late(US(1000)));
    assert_int_equal(gar_estimator_count(&est), 1);
    assert_int_equal(prediction_of(&est, &reference), US(500));
    assert_int_equal(sleep_of(&est, &reference), US(350));

    gar_estimator odd;
    gar_estimator_init(&odd);
    observe(&odd, &reference, late(7));
    assert_int_equal(prediction_of(&odd, &reference), 3); /* rounds down */
}

static void a_none_sample_teaches_nothing(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, (gar_sample){ .kind = GAR_SAMPLE_NONE, .ns = 5 });
    assert_int_equal(gar_estimator_count(&est), 0);
    observe(&est, &reference, exact(US(900)));
    observe(&est, &reference, (gar_sample){ .kind = GAR_SAMPLE_NONE, .ns = 1 });
    assert_int_equal(gar_estimator_count(&est), 1);
    assert_int_equal(prediction_of(&est, &reference), US(900));
}

static void the_sleep_rule_at_its_boundaries(void **state)
{
    (void)state;
    const struct {
        gar_dur_ns p;
        gar_dur_ns sleep;
    } cases[] = {
        { 0, NONE },
        { US(150), NONE },          /* p == margin */
        { US(150) + 1, NONE },      /* s = 1 ns < min */
        { US(170) - 1, NONE },      /* s just under min */
        { US(170), US(20) },        /* s == min */
        { MS(50) + US(150), MS(50) },       /* s == max */
        { MS(50) + US(150) + 1, MS(50) },   /* s just over max */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gar_estimator est;
        gar_estimator_init(&est);
        observe(&est, &reference, exact(cases[i].p));
        assert_int_equal(sleep_of(&est, &reference), cases[i].sleep);
    }
    /* A zero margin and zero minimum: any positive p sleeps p. */
    const gar_deadline bare = { .margin_ns = 0, .min_sleep_ns = 0, .max_sleep_ns = 10, .window = 1 };
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &bare, exact(0));
    assert_int_equal(sleep_of(&est, &bare), NONE);
    observe(&est, &bare, exact(1));
    assert_int_equal(sleep_of(&est, &bare), 1);
}

static void a_window_smaller_than_the_ring_looks_back_that_far(void **state)
{
    (void)state;
    gar_deadline three = reference;
    three.window = 3;
    gar_deadline one = reference;
    one.window = 1;
    gar_deadline sixteen = reference;
    sixteen.window = GAR_WINDOW_MAX;
    gar_estimator est;
    gar_estimator_init(&est);
    const gar_dur_ns pushed[6] = { US(400), US(900), US(800), US(700), US(600), US(1000) };
    for (int i = 0; i < 6; i++)
        observe(&est, &three, exact(pushed[i]));
    assert_int_equal(prediction_of(&est, &three), US(600));   /* 700, 600, 1000 */
    assert_int_equal(prediction_of(&est, &one), US(1000));    /* the last alone */
    assert_int_equal(prediction_of(&est, &sixteen), US(400)); /* all six held */
    assert_int_equal(sleep_of(&est, &three), US(450));
    /* The window is read per call: the same history, another plan. */
    assert_int_equal(sleep_of(&est, &sixteen), US(250));
}

static void the_ring_wraps_past_sixteen_samples(void **state)
{
    (void)state;
    gar_deadline all = reference;
    all.window = GAR_WINDOW_MAX;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &all, exact(US(100))); /* the minimum, oldest */
    for (int i = 0; i < GAR_WINDOW_MAX - 1; i++)
        observe(&est, &all, exact(US(1000) + (gar_dur_ns)i));
    assert_int_equal(gar_estimator_count(&est), GAR_WINDOW_MAX);
    assert_int_equal(prediction_of(&est, &all), US(100));
    observe(&est, &all, exact(US(2000))); /* overwrites the 100 µs sample */
    assert_int_equal(gar_estimator_count(&est), GAR_WINDOW_MAX);
    assert_int_equal(prediction_of(&est, &all), US(1000));
    for (int i = 0; i < 3 * GAR_WINDOW_MAX; i++)
        observe(&est, &all, exact(US(3000) + (gar_dur_ns)(i % 5)));
    assert_int_equal(prediction_of(&est, &all), US(3000));
    assert_int_equal(gar_estimator_count(&est), GAR_WINDOW_MAX);
}

static void bad_deadlines_and_samples_are_refused(void **state)
{
    (void)state;
    gar_estimator est;
    gar_estimator_init(&est);
    observe(&est, &reference, exact(US(900)));
    gar_deadline bad[4] = { reference, reference, reference, reference };
    bad[0].window = 0;
    bad[1].window = GAR_WINDOW_MAX + 1;
    bad[2].max_sleep_ns = 0;
    bad[2].min_sleep_ns = 0;
    bad[3].min_sleep_ns = bad[3].max_sleep_ns + 1;
    const char *why[4] = {
        "has window 0, not 1..16",
        "has window 17, not 1..16",
        "has max_sleep_ns 0",
        "has min_sleep_ns 50000001 above max_sleep_ns 50000000",
    };
    for (int i = 0; i < 4; i++) {
        gar_error err;
        gar_dur_ns out = 7;
        assert_int_equal(gar_estimator_sleep(&est, &bad[i], &out, &err), -GAR_E_INVALID_ARGUMENT);
        assert_string_equal(err.argv[0], "gar_estimator_sleep");
        assert_string_equal(err.argv[1], "deadline");
        assert_string_equal(err.argv[2], why[i]);
        assert_int_equal(gar_estimator_prediction(&est, &bad[i], &out, NULL),
                         -GAR_E_INVALID_ARGUMENT);
        assert_int_equal(gar_estimator_observe(&est, &bad[i], exact(1), &err),
                         -GAR_E_INVALID_ARGUMENT);
        assert_string_equal(err.argv[0], "gar_estimator_observe");
        assert_int_equal(out, 7);
    }
    gar_dur_ns out = 7;
    assert_int_equal(gar_estimator_sleep(&est, NULL, &out, NULL), -GAR_E_INVALID_ARGUMENT);
    gar_error err;
    gar_sample odd = { .kind = (gar_sample_kind)42, .ns = 1 };
    assert_int_equal(gar_estimator_observe(&est, &reference, odd, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "sample");
    /* Nothing refused was pushed. */
    assert_int_equal(gar_estimator_count(&est), 1);
    assert_int_equal(prediction_of(&est, &reference), US(900));
}

/* ---- invariants over random sequences --------------------------------- */

/* A sample size drawn over many scales, with the extremes now and then. */
static gar_dur_ns random_ns(uint64_t *s)
{
    uint64_t r = gar_splitmix64(s);
    switch (r % 16) {
    case 0:
        return 0;
    case 1:
        return UINT64_MAX;
    default:
        return gar_splitmix64(s) >> ((r >> 4) % 64);
    }
}

/* The naive model: every pushed value in order; p is the min of the last w. */
typedef struct model {
    gar_dur_ns pushed[4096];
    size_t count;
} model;

static bool model_p(const model *m, uint32_t window, gar_dur_ns *p)
{
    if (m->count == 0)
        return false;
    size_t look = m->count < window ? m->count : window;
    *p = UINT64_MAX;
    for (size_t i = m->count - look; i < m->count; i++)
        if (m->pushed[i] < *p)
            *p = m->pushed[i];
    return true;
}

static void invariants_hold_over_random_sequences(void **state)
{
    (void)state;
    static model m;
    uint64_t seed = UINT64_C(0x6761722d657374); /* fixed: every run sees the same sequences */
    for (int trial = 0; trial < 200; trial++) {
        gar_deadline d = {
            .window = (uint32_t)(1 + gar_splitmix64(&seed) % GAR_WINDOW_MAX),
            .margin_ns = random_ns(&seed) % MS(20),
            .max_sleep_ns = 1 + random_ns(&seed) % MS(100),
        };
        d.min_sleep_ns = gar_splitmix64(&seed) % (d.max_sleep_ns + 1);
        gar_estimator est;
        gar_estimator_init(&est);
        m.count = 0;
        for (int step = 0; step < 300; step++) {
            gar_dur_ns p_before = 0;
            bool warm = model_p(&m, d.window, &p_before);
            gar_dur_ns ns = random_ns(&seed);
            bool is_late = gar_splitmix64(&seed) % 3 == 0;
            observe(&est, &d, is_late ? late(ns) : exact(ns));

            gar_dur_ns expect_push = ns;
            if (is_late)
                expect_push = (warm && p_before < ns ? p_before : ns) / 2;
            m.pushed[m.count++] = expect_push;

            /* p is the min of the last `window` pushed values. */
            gar_dur_ns p = 0, naive = 0;
            assert_int_equal(gar_estimator_prediction(&est, &d, &p, NULL), 1);
            assert_true(model_p(&m, d.window, &naive));
            assert_int_equal(p, naive);
            /* A late wake never raises p. */
            if (is_late && warm)
                assert_true(p <= p_before);
            /* A sleep never exceeds max_sleep, nor goes under min_sleep, and
             * it is given exactly when the rule says. */
            gar_dur_ns s = 0;
            int rc = gar_estimator_sleep(&est, &d, &s, NULL);
            bool due = p > d.margin_ns && p - d.margin_ns >= d.min_sleep_ns;
            assert_int_equal(rc, due ? 1 : 0);
            if (rc == 1) {
                assert_true(s <= d.max_sleep_ns);
                assert_true(s >= d.min_sleep_ns);
                assert_true(s <= p - d.margin_ns);
            }
            /* Any window on the same history agrees with the model. */
            gar_deadline other = d;
            other.window = (uint32_t)(1 + gar_splitmix64(&seed) % GAR_WINDOW_MAX);
            assert_int_equal(gar_estimator_prediction(&est, &other, &p, NULL), 1);
            assert_true(model_p(&m, other.window, &naive));
            assert_int_equal(p, naive);
            assert_int_equal(gar_estimator_count(&est),
                             m.count < GAR_WINDOW_MAX ? m.count : GAR_WINDOW_MAX);
        }
    }
}

/* The minimum kept as samples arrive (core/estimator.c) against the model:
 * values from a handful, so that the sample leaving the window is often the
 * minimum or ties with it, and samples taken under a window changed at
 * random, so that the kept minimum is often for another window. */
static void the_kept_minimum_survives_ties_and_changing_windows(void **state)
{
    (void)state;
    static model m;
    uint64_t seed = UINT64_C(0x6d696e2d6b657074); /* fixed: every run sees the same sequences */
    for (int trial = 0; trial < 100; trial++) {
        gar_estimator est;
        gar_estimator_init(&est);
        m.count = 0;
        uint32_t window = 1 + (uint32_t)(gar_splitmix64(&seed) % GAR_WINDOW_MAX);
        for (int step = 0; step < 400; step++) {
            if (gar_splitmix64(&seed) % 8 == 0)
                window = 1 + (uint32_t)(gar_splitmix64(&seed) % GAR_WINDOW_MAX);
            gar_deadline d = reference;
            d.window = window;
            gar_dur_ns ns = US(1 + gar_splitmix64(&seed) % 4);
            observe(&est, &d, exact(ns));
            m.pushed[m.count++] = ns;
            for (uint32_t w = 1; w <= GAR_WINDOW_MAX; w++) {
                gar_deadline asked = reference;
                asked.window = w;
                gar_dur_ns p = 0, naive = 0;
                assert_int_equal(gar_estimator_prediction(&est, &asked, &p, NULL), 1);
                assert_true(model_p(&m, w, &naive));
                assert_int_equal(p, naive);
            }
        }
    }
}

/* ---- the point table --------------------------------------------------- */

static void a_table_inserts_then_finds(void **state)
{
    (void)state;
    gar_point_slot slots[8];
    gar_point_table table;
    assert_int_equal(gar_point_table_init(&table, slots, 8, NULL), 0);
    assert_int_equal(gar_point_table_count(&table), 0);
    assert_int_equal(gar_point_table_capacity(&table), 8);
    assert_null(gar_point_table_find(&table, 42));

    gar_estimator *a = NULL, *again = NULL;
    assert_int_equal(gar_point_table_get(&table, 42, &a, NULL), 1); /* created */
    assert_non_null(a);
    assert_int_equal(gar_estimator_count(a), 0); /* cold */
    observe(a, &reference, exact(US(900)));
    assert_int_equal(gar_point_table_get(&table, 42, &again, NULL), 0); /* found */
    assert_ptr_equal(again, a);
    assert_ptr_equal(gar_point_table_find(&table, 42), a);
    assert_int_equal(sleep_of(gar_point_table_find(&table, 42), &reference), US(750));
    assert_int_equal(gar_point_table_count(&table), 1);
    assert_null(gar_point_table_find(&table, 43));
    assert_int_equal(gar_point_table_count(&table), 1); /* find never inserts */
}

static void a_full_table_refuses_new_keys_only(void **state)
{
    (void)state;
    gar_point_slot slots[4];
    gar_point_table table;
    assert_int_equal(gar_point_table_init(&table, slots, 4, NULL), 0);
    gar_estimator *est[4];
    for (uint64_t k = 0; k < 4; k++)
        assert_int_equal(gar_point_table_get(&table, 100 + k, &est[k], NULL), 1);
    assert_int_equal(gar_point_table_count(&table), 4);
    gar_error err;
    gar_estimator *none = NULL;
    assert_int_equal(gar_point_table_get(&table, 999, &none, &err), -GAR_E_CAPACITY);
    assert_null(none);
    assert_int_equal(err.code, GAR_E_CAPACITY);
    char text[128];
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "the point table is full (capacity 4)");
    assert_null(gar_point_table_find(&table, 999)); /* a miss in a full table ends */
    for (uint64_t k = 0; k < 4; k++) {
        gar_estimator *found = NULL;
        assert_int_equal(gar_point_table_get(&table, 100 + k, &found, NULL), 0);
        assert_ptr_equal(found, est[k]);
    }
    assert_int_equal(gar_point_table_count(&table), 4);
}

static void a_table_of_one(void **state)
{
    (void)state;
    gar_point_slot slot;
    gar_point_table table;
    assert_int_equal(gar_point_table_init(&table, &slot, 1, NULL), 0);
    gar_estimator *est = NULL;
    assert_int_equal(gar_point_table_get(&table, UINT64_MAX, &est, NULL), 1);
    assert_ptr_equal(est, &slot.estimator);
    assert_int_equal(gar_point_table_get(&table, 0, &est, NULL), -GAR_E_CAPACITY);
    assert_null(gar_point_table_find(&table, 0));
    assert_ptr_equal(gar_point_table_find(&table, UINT64_MAX), &slot.estimator);
    assert_int_equal(gar_point_table_count(&table), 1);
}

static void keys_zero_and_max_are_ordinary_keys(void **state)
{
    (void)state;
    gar_point_slot slots[3];
    gar_point_table table;
    assert_int_equal(gar_point_table_init(&table, slots, 3, NULL), 0);
    /* Key 0 is no "empty" marker: a fresh table does not hold it. */
    assert_null(gar_point_table_find(&table, 0));
    assert_null(gar_point_table_find(&table, UINT64_MAX));
    gar_estimator *zero = NULL, *max = NULL;
    assert_int_equal(gar_point_table_get(&table, 0, &zero, NULL), 1);
    assert_int_equal(gar_point_table_get(&table, UINT64_MAX, &max, NULL), 1);
    assert_ptr_not_equal(zero, max);
    observe(zero, &reference, exact(US(1000)));
    observe(max, &reference, exact(US(2000)));
    assert_int_equal(sleep_of(gar_point_table_find(&table, 0), &reference), US(850));
    assert_int_equal(sleep_of(gar_point_table_find(&table, UINT64_MAX), &reference), US(1850));
    assert_int_equal(gar_point_table_count(&table), 2);
}

/* Keys whose first slot is `home` in a table of `capacity`, found by search. */
static size_t keys_homed_at(size_t capacity, size_t home, uint64_t *keys, size_t want)
{
    size_t found = 0;
    for (uint64_t k = 1; found < want && k < 100000; k++)
        if (gar_point_key_hash(k) % capacity == home)
            keys[found++] = k;
    return found;
}

static void colliding_keys_probe_on_and_wrap(void **state)
{
    (void)state;
    enum { CAP = 8 };
    gar_point_slot slots[CAP];
    gar_point_table table;
    assert_int_equal(gar_point_table_init(&table, slots, CAP, NULL), 0);
    /* Three keys homed at the last slot: the second and third wrap to 0, 1. */
    uint64_t keys[3] = { 0 };
    assert_int_equal(keys_homed_at(CAP, CAP - 1, keys, 3), 3);
    gar_estimator *est[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(gar_point_table_get(&table, keys[i], &est[i], NULL), 1);
    assert_ptr_equal(est[0], &slots[CAP - 1].estimator);
    assert_ptr_equal(est[1], &slots[0].estimator);
    assert_ptr_equal(est[2], &slots[1].estimator);
    /* A key homed at 0 now finds 0 and 1 taken by others and lands at 2. */
    uint64_t zero_home[1] = { 0 };
    assert_int_equal(keys_homed_at(CAP, 0, zero_home, 1), 1);
    gar_estimator *z = NULL;
    assert_null(gar_point_table_find(&table, zero_home[0]));
    assert_int_equal(gar_point_table_get(&table, zero_home[0], &z, NULL), 1);
    assert_ptr_equal(z, &slots[2].estimator);
    /* Each keeps its own history. */
    for (int i = 0; i < 3; i++)
        observe(est[i], &reference, exact(US(1000) * (gar_dur_ns)(i + 1)));
    for (int i = 0; i < 3; i++) {
        gar_estimator *found = gar_point_table_find(&table, keys[i]);
        assert_ptr_equal(found, est[i]);
        assert_int_equal(prediction_of(found, &reference), US(1000) * (gar_dur_ns)(i + 1));
    }
    assert_int_equal(gar_estimator_count(z), 0);
    assert_int_equal(gar_point_table_count(&table), 4);
}

static void many_keys_fill_a_table_exactly(void **state)
{
    (void)state;
    enum { CAP = 61 }; /* not a power of two */
    gar_point_slot slots[CAP];
    gar_point_table table;
    assert_int_equal(gar_point_table_init(&table, slots, CAP, NULL), 0);
    uint64_t seed = 7;
    uint64_t keys[CAP];
    for (int i = 0; i < CAP; i++) {
        keys[i] = gar_splitmix64(&seed) & 0xff0; /* clustered, like aligned addresses */
        keys[i] += (uint64_t)i << 12;       /* yet distinct */
        gar_estimator *est = NULL;
        assert_int_equal(gar_point_table_get(&table, keys[i], &est, NULL), 1);
        observe(est, &reference, exact(keys[i]));
    }
    gar_estimator *est = NULL;
    assert_int_equal(gar_point_table_get(&table, UINT64_C(1) << 40, &est, NULL), -GAR_E_CAPACITY);
    for (int i = 0; i < CAP; i++) {
        gar_estimator *found = gar_point_table_find(&table, keys[i]);
        assert_non_null(found);
        assert_int_equal(prediction_of(found, &reference), keys[i]);
    }
}

static void a_table_set_up_badly_is_refused(void **state)
{
    (void)state;
    gar_point_slot slots[2];
    gar_point_table table;
    gar_error err;
    assert_int_equal(gar_point_table_init(&table, slots, 0, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "capacity");
    assert_int_equal(gar_point_table_init(&table, NULL, 2, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "slots");
    assert_int_equal(gar_point_table_init(NULL, slots, 2, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "table");
}

static void the_key_hash_spreads_and_is_fixed(void **state)
{
    (void)state;
    /* Pinned values: a change to the mix moves every point, so it shows here. */
    assert_int_equal(gar_point_key_hash(0), 0);
    assert_int_equal(gar_point_key_hash(1), UINT64_C(0x5692161d100b05e5));
    /* Neighbouring keys differ in about half their bits. */
    for (uint64_t k = 0; k < 64; k++) {
        uint64_t diff = gar_point_key_hash(k) ^ gar_point_key_hash(k + 1);
        int bits = 0;
        for (; diff != 0; diff &= diff - 1)
            bits++;
        assert_true(bits >= 12 && bits <= 52);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_cold_point_sleeps_none),
        cmocka_unit_test(the_reference_sequence),
        cmocka_unit_test(a_fresh_point_at_160us_sleeps_none),
        cmocka_unit_test(a_fresh_point_at_100us_sleeps_none),
        cmocka_unit_test(a_huge_residual_sleeps_max),
        cmocka_unit_test(the_reference_late_example),
        cmocka_unit_test(a_late_wake_after_p_halves_p),
        cmocka_unit_test(a_late_wake_at_a_cold_point_pushes_half_of_it),
        cmocka_unit_test(a_none_sample_teaches_nothing),
        cmocka_unit_test(the_sleep_rule_at_its_boundaries),
        cmocka_unit_test(a_window_smaller_than_the_ring_looks_back_that_far),
        cmocka_unit_test(the_ring_wraps_past_sixteen_samples),
        cmocka_unit_test(bad_deadlines_and_samples_are_refused),
        cmocka_unit_test(invariants_hold_over_random_sequences),
        cmocka_unit_test(the_kept_minimum_survives_ties_and_changing_windows),
        cmocka_unit_test(a_table_inserts_then_finds),
        cmocka_unit_test(a_full_table_refuses_new_keys_only),
        cmocka_unit_test(a_table_of_one),
        cmocka_unit_test(keys_zero_and_max_are_ordinary_keys),
        cmocka_unit_test(colliding_keys_probe_on_and_wrap),
        cmocka_unit_test(many_keys_fill_a_table_exactly),
        cmocka_unit_test(a_table_set_up_badly_is_refused),
        cmocka_unit_test(the_key_hash_spreads_and_is_fixed),
    };
    return cmocka_run_group_tests_name("estimator", tests, NULL, NULL);
}
