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

#include "calibrate/calibrate.h"
#include "sim/host_profile.h"

static void assert_ordered(const gar_calibrated_dist *c)
{
    const gar_host_dist *d = &c->dist;
    assert_in_range(d->count, 5, GAR_HOST_QUANTILES_MAX);
    assert_int_equal(d->level[0], 0);
    assert_int_equal(d->level[d->count - 1], 1000000);
    bool has[3] = { false, false, false };
    for (unsigned i = 0; i < d->count; i++) {
        if (i > 0) {
            assert_true(d->level[i] > d->level[i - 1]);
            assert_true(d->value[i] >= d->value[i - 1]);
        }
        has[0] |= d->level[i] == 500000;
        has[1] |= d->level[i] == 900000;
        has[2] |= d->level[i] == 990000;
    }
    assert_true(has[0] && has[1] && has[2]);
    assert_true(c->samples >= 1);
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
    assert_int_equal(c->dist.count, p->count);
    for (unsigned i = 0; i < p->count; i++) {
        assert_int_equal(c->dist.level[i], p->level[i]);
        assert_int_equal(c->dist.value[i], p->value[i]);
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
    assert_ordered(&cal.store_visible);
    /* Every measurement's rounds are kept: fixed costs, then p50 and p90 of each. */
    assert_int_equal(cal.spreads, 2 + 2 * 5);
    assert_string_equal(cal.spread[0].what, "clock_ns");
    bool any_noisy = false;
    for (unsigned i = 0; i < cal.spreads; i++)
        any_noisy |= cal.spread[i].noisy;
    assert_int_equal(any_noisy, cal.noisy);
    /* By default every round is pooled. */
    for (unsigned i = 0; i < cal.spreads; i++)
        assert_int_equal(cal.spread[i].kept, GAR_CALIBRATE_ROUNDS);
    assert_true(cal.sleep_overshoot.samples == 60);
    assert_true(cal.poll_period.dist.value[0] >= 1); /* the format's floor */
    assert_true(cal.clock_ns >= 1);
    assert_non_null(cal.park);

    static char text[GAR_CALIBRATION_TEXT_BYTES];
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

/* Noise detection on injected samples: no timing involved. */
static void rounds_that_disagree_are_noisy(void **state)
{
    (void)state;
    /* The bound: more than 25 % and more than 50 ns apart. */
    assert_false(gar_calibrate_rounds_disagree((const gar_dur_ns[]){ 40000, 44000, 49000 }, 3));
    assert_true(gar_calibrate_rounds_disagree((const gar_dur_ns[]){ 40000, 50001, 41000 }, 3));
    assert_false(gar_calibrate_rounds_disagree((const gar_dur_ns[]){ 40000, 50000, 41000 }, 3));
    assert_false(gar_calibrate_rounds_disagree((const gar_dur_ns[]){ 10, 60, 20 }, 3)); /* 50 ns */
    assert_true(gar_calibrate_rounds_disagree((const gar_dur_ns[]){ 10, 61, 20 }, 3));
    assert_false(gar_calibrate_rounds_disagree((const gar_dur_ns[]){ 7 }, 1));

    /* Three rounds of 100 samples: 1..100 µs twice, then a neighbour doubles
     * the third's tail only (its p50 stays, its p90 moves). */
    gar_dur_ns v[300];
    for (unsigned r = 0; r < 3; r++)
        for (unsigned i = 0; i < 100; i++) {
            gar_dur_ns x = (gar_dur_ns)(100 - i) * 1000; /* unsorted on purpose */
            v[r * 100 + i] = r == 2 && x > 60000 ? 2 * x : x;
        }
    const size_t ends[3] = { 100, 200, 300 };
    gar_calibrate_spread s[2];
    assert_true(gar_calibrate_judge_rounds(v, ends, "block_wake_ns", false, s));
    assert_string_equal(s[0].what, "block_wake_ns p50");
    assert_string_equal(s[1].what, "block_wake_ns p90");
    assert_int_equal(s[0].round[0], 50000);
    assert_int_equal(s[0].round[2], 50000);
    assert_false(s[0].noisy);
    assert_int_equal(s[1].round[1], 90000);
    assert_int_equal(s[1].round[2], 180000);
    assert_true(s[1].noisy);

    /* The same rounds, quiet: nothing is noisy, and an empty round reads 0. */
    for (unsigned i = 0; i < 300; i++)
        v[i] = (gar_dur_ns)(i % 100 + 1) * 1000;
    assert_false(gar_calibrate_judge_rounds(v, ends, "k", false, s));
    const size_t with_empty[3] = { 100, 100, 200 };
    gar_calibrate_judge_rounds(v, with_empty, "k", false, s);
    assert_int_equal(s[0].round[1], 0);
    assert_true(s[0].noisy);

    /* Time-weighted: 99 turns of 50 ns and one preempted for 5 µs hold over half
     * their time in that one turn, so its round's p50 by time is 5 µs where
     * the quiet rounds' is 50 ns; by count all three read 50 ns. */
    gar_dur_ns turns[300];
    for (unsigned i = 0; i < 300; i++)
        turns[i] = 50;
    turns[250] = 5000;
    gar_dur_ns again[300];
    memcpy(again, turns, sizeof turns);
    assert_false(gar_calibrate_judge_rounds(turns, ends, "poll turn", false, s));
    assert_true(gar_calibrate_judge_rounds(again, ends, "poll turn", true, s));
    assert_int_equal(s[0].round[0], 50);
    assert_int_equal(s[0].round[2], 5000);
}

/* With keep_quietest, a distribution is fitted from one round exactly when
 * its pair of spreads (p50, p90) has a noisy one; the fixed costs always
 * pool. */
static void a_quietest_calibration_keeps_one_round_where_they_disagree(void **state)
{
    (void)state;
    gar_calibrate_options o = { .samples = 60, .quick = true, .keep_quietest = true };
    static gar_calibration cal;
    gar_error err;
    assert_int_equal(gar_calibrate_run(&o, &cal, &err), 0);
    assert_int_equal(cal.spread[0].kept, GAR_CALIBRATE_ROUNDS);
    assert_int_equal(cal.spread[1].kept, GAR_CALIBRATE_ROUNDS);
    for (unsigned i = 2; i + 1 < cal.spreads; i += 2) {
        bool noisy = cal.spread[i].noisy || cal.spread[i + 1].noisy;
        assert_int_equal(cal.spread[i].kept, cal.spread[i + 1].kept);
        assert_true(noisy ? cal.spread[i].kept < GAR_CALIBRATE_ROUNDS
                          : cal.spread[i].kept == GAR_CALIBRATE_ROUNDS);
    }
    /* sleep_overshoot (spreads 6 and 7, after the fixed costs, the poll turn
     * and the visibility): 60 sleeps, or the 20 of its kept round. */
    assert_true(cal.sleep_overshoot.samples == (cal.spread[6].kept < GAR_CALIBRATE_ROUNDS ? 20 : 60));
    static char text[GAR_CALIBRATION_TEXT_BYTES];
    gar_calibration_format(&cal, text, sizeof text);
    assert_true((strstr(text, "\n# kept: sleep_overshoot_ns: round ") != NULL) ==
                (cal.spread[6].kept < GAR_CALIBRATE_ROUNDS));
}

/* A distribution whose rounds disagree keeps its quietest round: the least
 * p90, a tie broken by the least p50; an empty round is never kept; rounds
 * that agree pool. */
static void disagreeing_rounds_keep_the_quietest(void **state)
{
    (void)state;
    const size_t ends[3] = { 100, 200, 300 };
    gar_calibrate_spread s[2] = {
        { .round = { 50000, 52000, 51000 }, .noisy = false },
        { .round = { 90000, 180000, 88000 }, .noisy = true },
    };
    assert_int_equal(gar_calibrate_kept_round(s, ends), 2);
    s[1].round[0] = 88000; /* a tie on p90: the least p50 */
    assert_int_equal(gar_calibrate_kept_round(s, ends), 0);
    s[0].round[0] = 51000; /* a tie on both: the earliest */
    assert_int_equal(gar_calibrate_kept_round(s, ends), 0);
    const size_t empty_first[3] = { 0, 100, 200 };
    s[1].round[0] = 0;
    assert_int_equal(gar_calibrate_kept_round(s, empty_first), 2);
    s[1].noisy = false; /* agreeing rounds pool */
    assert_int_equal(gar_calibrate_kept_round(s, ends), 3);
    s[0].noisy = true; /* a noisy p50 alone is enough */
    assert_int_equal(gar_calibrate_kept_round(s, ends), 0);
}

/* The calibration files its samples under the nearest lead, by the
 * profile's own rule (gar_host_dist_for_lead). */
static void calibrated_leads_are_the_profiles(void **state)
{
    (void)state;
    gar_host_dist base = { 0 }, at[GAR_HOST_LEADS];
    memset(at, 0, sizeof at);
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++)
        at[k].count = 5;
    for (gar_dur_ns ns = 1000; ns < 50 * GAR_NS_PER_MS; ns = ns * 21 / 20 + 1) {
        unsigned k = gar_calibrate_lead_of(ns);
        assert_ptr_equal(gar_host_dist_for_lead(&base, at, ns), &at[k]);
    }
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

/* A poll wait's visibility sample starts at the first query after the
 * completion: the queries that still missed the store count, a poller
 * preempted across the completion does not (that is the poll turn's tail,
 * which the simulator draws). */
static void visibility_runs_from_the_first_query_after_the_completion(void **state)
{
    (void)state;
    /* Turns every 100 ns; the completion at 1050; queries from 1100 on
     * missed until the one from 1400 saw it, ending at 1500. */
    const gar_mono_ns turns[] = { 900, 1000, 1100, 1200, 1300, 1400, 1500 };
    assert_int_equal(gar_calibrate_seen_after(turns, 7, true, 1050, 24), 1500 - 1100 - 24);
    /* Preempted from 1000 to 41000 across a completion at 1050. */
    const gar_mono_ns preempted[] = { 900, 1000, 41000, 41300 };
    assert_int_equal(gar_calibrate_seen_after(preempted, 4, true, 1050, 24), 41300 - 41000 - 24);
    /* A reading exactly at the completion is its first query's start. */
    assert_int_equal(gar_calibrate_seen_after(turns, 7, true, 1100, 0), 400);
    /* Older readings were dropped and the oldest kept is already after the
     * completion: the first query after it is unknown, so from the completion. */
    assert_int_equal(gar_calibrate_seen_after(turns + 3, 4, false, 1050, 0), 1500 - 1050);
    /* Within the clock read itself: nothing is left. */
    const gar_mono_ns short_turn[] = { 1000, 1010 };
    assert_int_equal(gar_calibrate_seen_after(short_turn, 2, true, 1000, 24), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_quick_calibration_parses_as_a_host_profile),
        cmocka_unit_test(nearest_rank_and_bad_options),
        cmocka_unit_test(rounds_that_disagree_are_noisy),
        cmocka_unit_test(disagreeing_rounds_keep_the_quietest),
        cmocka_unit_test(a_quietest_calibration_keeps_one_round_where_they_disagree),
        cmocka_unit_test(calibrated_leads_are_the_profiles),
        cmocka_unit_test(visibility_runs_from_the_first_query_after_the_completion),
    };
    return cmocka_run_group_tests_name("calibrate", tests, NULL, NULL);
}
