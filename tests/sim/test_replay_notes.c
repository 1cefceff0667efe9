/* tests/sim/test_replay_notes.c — a replay says what went wrong: predict
 * that never slept and why, sleeps that woke late, waits a backstop query
 * ended, too few waits for a p99, a fallback; and nothing on a run that went
 * well.  Exact traces on the constant host of sim_world.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/replay.h"
#include "sim/replay_notes.h"
#include "sim_world.h"

#define RESIDUAL_NS GAR_NS_PER_MS
#define PERIOD_NS (10 * GAR_NS_PER_MS)

/* n waits, 1 ms each (`short_row`'s 200 µs, `long_row`'s 2.5 ms), at one
 * point or each at its own. */
static gar_trace trace_with(size_t n, bool own_points, size_t short_row, size_t long_row)
{
    gar_trace t;
    gar_trace_init(&t);
    for (uint64_t i = 0; i < n; i++) {
        gar_dur_ns residual = i == short_row  ? 200 * GAR_NS_PER_US
                              : i == long_row ? 2500 * GAR_NS_PER_US
                                              : RESIDUAL_NS;
        gar_trace_row row = { .point = own_points ? i + 1 : 1, .submit_ns = i * PERIOD_NS,
                              .start_ns = i * PERIOD_NS, .done_ns = i * PERIOD_NS + residual };
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    }
    assert_int_equal(gar_trace_check(&t, "notes", NULL), 0);
    return t;
}

static gar_trace trace_of(size_t n, bool own_points, size_t short_row)
{
    return trace_with(n, own_points, short_row, SIZE_MAX);
}

typedef struct run {
    gar_replay_metrics m;
    gar_replay_notes notes;
} run;

static run replay(const gar_trace *t, const gar_plan *plan, const char *estimator,
                  gar_sim_fault fault, uint64_t fault_row, const char *fallback)
{
    gar_host_profile host = exact_profile(true);
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = t;
    c.plan = plan;
    c.host = &host;
    c.fault = fault;
    c.fault_wait = fault_row;
    assert_int_equal(gar_estimator_spec_parse(estimator, &c.estimator, NULL), 0);
    run r;
    gar_error err;
    int rc = gar_replay_run(&c, &r.m, &err);
    if (rc != 0)
        fail_msg("replay failed: %d %s", rc, err.argv[0]);
    gar_bands bands = { .count = 1 };
    bands.band[0].plan = *plan;
    gar_replay_notes_of(&r.m, &bands, &c.estimator, fallback, &r.notes);
    return r;
}

static const gar_replay_note *find(const run *r, const char *name)
{
    for (size_t k = 0; k < r->notes.count; k++)
        if (strcmp(r->notes.note[k].name, name) == 0)
            return &r->notes.note[k];
    return NULL;
}

static void a_margin_above_every_prediction_never_sleeps(void **state)
{
    (void)state;
    gar_trace t = trace_of(20, false, SIZE_MAX);
    gar_plan plan = plan_of(GAR_PARK_POLL, true);
    plan.deadline.margin_ns = 2 * GAR_NS_PER_MS; /* above the 1 ms every wait takes */
    run r = replay(&t, &plan, "adl", GAR_SIM_FAULT_NONE, 0, NULL);
    assert_int_equal(r.m.sleeps, 0);
    assert_int_equal(r.m.diagnosis.predict_waits, 20);
    assert_int_equal(r.m.diagnosis.unpredicted, 1); /* the cold first */
    assert_int_equal(r.m.diagnosis.short_predictions, 19);
    const gar_replay_note *n = find(&r, "never_slept");
    assert_non_null(n);
    assert_int_equal(n->count, 20);
    assert_false(n->has_worst);
    assert_non_null(strstr(n->message, "1 had no prediction yet"));
    assert_non_null(strstr(n->message, "19 predictions were below margin + min_sleep (2.02 ms)"));
    assert_non_null(strstr(n->message, "ran as the plan without predict"));
    assert_null(find(&r, "rarely_slept"));
    gar_trace_free(&t);
}

/* One wait in forty sleeps (the one after a 2.5 ms wait, under a window of
 * one sample): rarely, not never. */
static void one_sleep_in_forty_is_rarely(void **state)
{
    (void)state;
    gar_trace t = trace_with(40, false, SIZE_MAX, 30);
    gar_plan plan = plan_of(GAR_PARK_POLL, true);
    plan.deadline.margin_ns = 2 * GAR_NS_PER_MS;
    plan.deadline.window = 1;
    run r = replay(&t, &plan, "adl", GAR_SIM_FAULT_NONE, 0, NULL);
    assert_int_equal(r.m.diagnosis.slept, 1);
    assert_int_equal(r.m.sleeps, 1);
    assert_null(find(&r, "never_slept"));
    const gar_replay_note *n = find(&r, "rarely_slept");
    assert_non_null(n);
    assert_int_equal(n->count, 39);
    assert_non_null(strstr(n->message, "predict slept on only 1 of its 40 waits: 1 had no "
                                       "prediction yet"));
    assert_non_null(strstr(n->message, "38 predictions were below margin + min_sleep"));
    gar_trace_free(&t);
}

static void points_that_never_repeat_never_predict(void **state)
{
    (void)state;
    gar_trace t = trace_of(20, true, SIZE_MAX);
    gar_plan plan = plan_of(GAR_PARK_POLL, true);
    run r = replay(&t, &plan, "adl", GAR_SIM_FAULT_NONE, 0, NULL);
    assert_int_equal(r.m.diagnosis.unpredicted, 20);
    assert_int_equal(r.m.diagnosis.points, 20);
    const gar_replay_note *n = find(&r, "never_slept");
    assert_non_null(n);
    assert_non_null(strstr(n->message, "no point repeats"));
    gar_trace_free(&t);

    /* The none estimator, whatever the points: it never predicts. */
    t = trace_of(20, false, SIZE_MAX);
    r = replay(&t, &plan, "none", GAR_SIM_FAULT_NONE, 0, NULL);
    n = find(&r, "never_slept");
    assert_non_null(n);
    assert_non_null(strstr(n->message, "the none estimator never predicts"));
    gar_trace_free(&t);
}

static void a_prediction_too_long_is_a_late_wake_with_its_worst(void **state)
{
    (void)state;
    /* Row 10 takes 200 µs where the point learnt 1 ms: its sleep to 850 µs
     * (1 ms less the 150 µs margin) wakes 20 µs late, then one query, well
     * after the work completed. */
    gar_trace t = trace_of(20, false, 10);
    gar_plan plan = plan_of(GAR_PARK_POLL, true);
    run r = replay(&t, &plan, "adl", GAR_SIM_FAULT_NONE, 0, NULL);
    assert_true(r.m.diagnosis.late_wakes >= 1);
    assert_int_equal(r.m.diagnosis.late_wakes, r.m.late);
    gar_dur_ns woke = 850 * GAR_NS_PER_US + OVER_NS - 200 * GAR_NS_PER_US;
    assert_in_range(r.m.diagnosis.late_worst_ns, woke, woke + 2 * Q_NS); /* + its queries */
    assert_int_equal(r.m.diagnosis.late_worst_ns, r.m.overshoot_ns.max);
    const gar_replay_note *n = find(&r, "late_wakes");
    assert_non_null(n);
    assert_true(n->has_worst);
    assert_int_equal(n->worst_ns, r.m.diagnosis.late_worst_ns);
    assert_non_null(strstr(n->message, "the worst overshot by 67"));
    gar_trace_free(&t);
}

static void a_lost_store_is_a_backstop_hit_and_a_woken_park_is_not(void **state)
{
    (void)state;
    /* Row 5 takes 2.5 ms: backstop queries at 1 and 2 ms find it pending
     * and the word wakes its park; lost, its store leaves the wait to the
     * backstop query at 3 ms. */
    gar_trace t = trace_with(20, false, SIZE_MAX, 5);
    gar_plan plan = plan_of(GAR_PARK_FLAG, false);
    run r = replay(&t, &plan, "adl", GAR_SIM_FAULT_NONE, 0, NULL);
    assert_true(r.m.backstop_queries >= 2);
    assert_int_equal(r.m.diagnosis.backstop_waits, 0);
    assert_null(find(&r, "backstop_hits"));
    r = replay(&t, &plan, "adl", GAR_SIM_FAULT_LOST_STORE, 5, NULL);
    assert_int_equal(r.m.diagnosis.backstop_waits, 1);
    const gar_replay_note *n = find(&r, "backstop_hits");
    assert_non_null(n);
    assert_int_equal(n->count, 1);
    assert_true(n->has_worst);
    /* The lost store's wait ran to the backstop query after its completion. */
    assert_int_equal(n->worst_ns, r.m.overshoot_ns.max);
    assert_in_range(n->worst_ns, 400 * GAR_NS_PER_US, GAR_NS_PER_MS);
    assert_non_null(strstr(n->message, "1 wait was ended by a backstop query"));
    gar_trace_free(&t);
}

static void few_waits_and_a_fallback_are_said(void **state)
{
    (void)state;
    gar_trace t = trace_of(20, false, SIZE_MAX);
    gar_plan plan = plan_of(GAR_PARK_POLL, false);
    run r = replay(&t, &plan, "adl", GAR_SIM_FAULT_NONE, 0, "poll (fallback from flag)");
    assert_int_equal(r.notes.count, 2);
    assert_string_equal(r.notes.note[0].name, "fallback");
    assert_non_null(strstr(r.notes.note[0].message, "poll (fallback from flag)"));
    assert_string_equal(r.notes.note[1].name, "few_waits");
    assert_int_equal(r.notes.note[1].count, 20);
    assert_string_equal(r.notes.note[1].message,
                        "20 waits are too few for a p99 (368 bound it from above at 95 %): the "
                        "p99 is the largest wait");
    assert_false(r.m.overshoot_ci.p99.has_hi);
    gar_trace_free(&t);
}

/* A run past the exact budget says its quantiles came from the histogram. */
static void histogram_quantiles_are_said(void **state)
{
    (void)state;
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    m.waits = 600000;
    m.ci_level = 0.95;
    m.overshoot_ci.p99.has_lo = m.overshoot_ci.p99.has_hi = true;
    gar_bands bands = { .count = 1 };
    bands.band[0].plan = plan_of(GAR_PARK_POLL, false);
    gar_estimator_spec adl = gar_estimator_spec_default();
    gar_replay_notes notes;
    gar_replay_notes_of(&m, &bands, &adl, NULL, &notes);
    assert_int_equal(notes.count, 0);
    m.quantiles_histogram = true;
    gar_replay_notes_of(&m, &bands, &adl, NULL, &notes);
    assert_int_equal(notes.count, 1);
    assert_string_equal(notes.note[0].name, "histogram_quantiles");
    assert_int_equal(notes.note[0].count, 600000);
    assert_string_equal(notes.note[0].message,
                        "the quantiles of these 600000 waits were read from a histogram (past "
                        "500000 values of a metric): each within 0.1 %, its intervals widened "
                        "to the histogram's buckets");
}

/* 400 steady waits under flag+predict on a host with a word wait: every
 * wait sleeps and a park wakes it, p99 is bounded — nothing to say. */
static void a_run_that_went_well_has_no_notes(void **state)
{
    (void)state;
    gar_trace t = trace_of(400, false, SIZE_MAX);
    gar_plan plan = plan_of(GAR_PARK_FLAG, true);
    run r = replay(&t, &plan, "adl", GAR_SIM_FAULT_NONE, 0, NULL);
    assert_int_equal(r.m.diagnosis.slept, 399);
    assert_true(r.m.overshoot_ci.p99.has_hi);
    for (size_t k = 0; k < r.notes.count; k++)
        fail_msg("unexpected note %s: %s", r.notes.note[k].name, r.notes.note[k].message);
    gar_trace_free(&t);
}

/* auto's sleeps are the rule's, not an estimator's: each counts as slept,
 * so no "never slept ... window not filled" note where auto slept; and no
 * estimator error, the rule sleeping short of the residual on purpose. */
static void auto_sleeps_count_as_slept(void **state)
{
    (void)state;
    gar_trace t = trace_of(400, false, SIZE_MAX);
    gar_plan plan;
    assert_int_equal(gar_plan_parse("auto:p99_us=10", &plan, NULL), 0);
    run r = replay(&t, &plan, "adl", GAR_SIM_FAULT_NONE, 0, NULL);
    assert_true(r.m.auto_counts.sleeps > 40); /* flag parks under 10 µs, sleeping */
    assert_int_equal(r.m.diagnosis.predict_waits, r.m.auto_counts.sleeps);
    assert_int_equal(r.m.diagnosis.slept, r.m.auto_counts.sleeps);
    assert_int_equal(r.m.diagnosis.unpredicted, 0);
    assert_null(find(&r, "never_slept"));
    assert_null(find(&r, "rarely_slept"));
    assert_int_equal(r.m.predictions, 0);
    gar_trace_free(&t);
}

/* An auto run over its budget is said, with how sure: its interval wholly
 * above the budget, the budget within it, or too few waits to bound it. */
static void an_auto_p99_over_its_budget_is_said(void **state)
{
    (void)state;
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    m.waits = 2000;
    m.ci_level = 0.95;
    m.overshoot_ns.p99 = 23 * GAR_NS_PER_US;
    m.overshoot_ci.p99 = (gar_quantile_interval){ true, true, 21 * GAR_NS_PER_US,
                                                  26 * GAR_NS_PER_US };
    gar_error w;
    gar_error_clear(&w);
    assert_false(gar_replay_auto_missed(&m, "auto:p99_us=23", 23 * GAR_NS_PER_US, &w));
    assert_int_equal(w.code, GAR_OK);
    assert_true(gar_replay_auto_missed(&m, "auto:p99_us=20", 20 * GAR_NS_PER_US, &w));
    assert_int_equal(w.code, GAR_W_AUTO_MISSED_BUDGET);
    assert_string_equal(w.argv[1], "23.0 µs");
    assert_string_equal(w.argv[2], "20.0 µs");
    assert_string_equal(w.argv[3], "its 95 % interval, 21.0 µs to 26.0 µs, lies wholly above it");
    assert_true(gar_replay_auto_missed(&m, "auto:p99_us=22", 22 * GAR_NS_PER_US, &w));
    assert_non_null(strstr(w.argv[3], "the budget is within its 95 % interval"));
    m.waits = 100;
    m.overshoot_ci.p99.has_hi = false;
    assert_true(gar_replay_auto_missed(&m, "auto:p99_us=22", 22 * GAR_NS_PER_US, &w));
    assert_string_equal(w.argv[3], "100 waits are too few to bound a p99 from above (368 at 95 %)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_margin_above_every_prediction_never_sleeps),
        cmocka_unit_test(one_sleep_in_forty_is_rarely),
        cmocka_unit_test(points_that_never_repeat_never_predict),
        cmocka_unit_test(a_prediction_too_long_is_a_late_wake_with_its_worst),
        cmocka_unit_test(a_lost_store_is_a_backstop_hit_and_a_woken_park_is_not),
        cmocka_unit_test(few_waits_and_a_fallback_are_said),
        cmocka_unit_test(histogram_quantiles_are_said),
        cmocka_unit_test(a_run_that_went_well_has_no_notes),
        cmocka_unit_test(auto_sleeps_count_as_slept),
        cmocka_unit_test(an_auto_p99_over_its_budget_is_said),
    };
    return cmocka_run_group_tests_name("replay_notes", tests, NULL, NULL);
}
