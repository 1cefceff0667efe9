/* tests/sim/test_quantile_coverage.c — the replay's 95 % intervals cover
 * the true quantile as often as they claim.
 *
 * A wait under `block` on a host whose query and clock cost nothing ends
 * exactly one block_wake_ns draw after its work completes, so its overshoot
 * is that draw and the true quantiles are known in closed form: the
 * profile's distribution is piecewise linear in its inverse CDF and a draw
 * is v_i + floor((v_{i+1} - v_i) F) (core/host_dist.h), so the least x with
 * P(overshoot <= x) >= q is ceil(Q(q)) - 1, Q the piecewise-linear
 * quantile function.  For 100 host seeds each, at 200 and at 5 000 waits,
 * the run's interval for p50 and p99 must cover that truth at least 90
 * times; where it exists, an end must be a finite value (5 000 waits bound
 * a p99 on both sides; 200 bound it from below only, and that one-sided
 * interval is what is counted there). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "sim/replay.h"

#define SEEDS 100
#define COVERED_AT_LEAST 90

/* The least x with P(draw <= x) >= level (millionths) for `dist`. */
static gar_dur_ns true_quantile(const gar_host_dist *dist, uint32_t level)
{
    unsigned i = 0;
    while (i + 2 < dist->count && dist->level[i + 1] < level)
        i++;
    double span = (double)(dist->level[i + 1] - dist->level[i]);
    double q = (double)dist->value[i] + (double)(dist->value[i + 1] - dist->value[i]) *
                                            (double)(level - dist->level[i]) / span;
    return (gar_dur_ns)ceil(q) - 1;
}

/* n waits 10 ms apart, each done 5 ms after it starts. */
static gar_trace spaced_trace(size_t n)
{
    gar_trace t;
    gar_trace_init(&t);
    for (uint64_t i = 0; i < n; i++) {
        gar_trace_row row = { .point = 1, .submit_ns = i * 10 * GAR_NS_PER_MS,
                              .start_ns = i * 10 * GAR_NS_PER_MS,
                              .done_ns = i * 10 * GAR_NS_PER_MS + 5 * GAR_NS_PER_MS };
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    }
    assert_int_equal(gar_trace_check(&t, "spaced", NULL), 0);
    return t;
}

typedef struct coverage {
    unsigned p50, p99;         /* seeds whose interval covered the truth */
    unsigned p99_bounded;      /* seeds whose p99 had an upper end */
} coverage;

static coverage cover(const gar_host_dist *wake, size_t waits)
{
    gar_host_profile host = {
        .query_ns = 0,
        .clock_ns = 0,
        .word_wait = false,
        .sleep_overshoot = *wake,
        .block_wake = *wake,
        .park_wake = *wake,
        .poll_period = *wake,
    };
    gar_plan plan = { .park = GAR_PARK_BLOCK };
    gar_trace trace = spaced_trace(waits);
    const gar_dur_ns t50 = true_quantile(wake, 500000), t99 = true_quantile(wake, 990000);
    coverage c = { 0, 0, 0 };
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        gar_replay_config config;
        gar_replay_config_init(&config);
        config.trace = &trace;
        config.plan = &plan;
        config.host = &host;
        config.seed = seed;
        gar_replay_metrics m;
        assert_int_equal(gar_replay_run(&config, &m, NULL), 0);
        assert_true(m.overshoot_ns.max <= wake->value[wake->count - 1]); /* a draw, nothing added */
        const gar_quantile_interval *p50 = &m.overshoot_ci.p50, *p99 = &m.overshoot_ci.p99;
        /* Finite where they should be: 200 waits bound a median on both
         * sides and a p99 from below; 5 000 bound both on both sides. */
        assert_true(p50->has_lo && p50->has_hi && p99->has_lo);
        assert_true(p50->lo <= m.overshoot_ns.p50 && m.overshoot_ns.p50 <= p50->hi);
        assert_true(p99->lo <= m.overshoot_ns.p99);
        if (waits >= 368) {
            assert_true(p99->has_hi);
            assert_true(m.overshoot_ns.p99 <= p99->hi && p99->hi < m.overshoot_ns.max + 1);
        } else {
            assert_false(p99->has_hi);
        }
        c.p50 += p50->lo <= t50 && t50 <= p50->hi;
        c.p99 += p99->lo <= t99 && (!p99->has_hi || t99 <= p99->hi);
        c.p99_bounded += p99->has_hi;
    }
    gar_trace_free(&trace);
    return c;
}

static void check(const char *name, const gar_host_dist *wake, size_t waits)
{
    coverage c = cover(wake, waits);
    print_message("%s, %zu waits: p50 covered %u/%u, p99 covered %u/%u (%s)\n", name, waits,
                  c.p50, SEEDS, c.p99, SEEDS,
                  c.p99_bounded == SEEDS ? "two-sided" : "from below: no upper end");
    if (c.p50 < COVERED_AT_LEAST || c.p99 < COVERED_AT_LEAST)
        fail_msg("%s, %zu waits: p50 covered %u, p99 %u of %u seeds (at least %u wanted)", name,
                 waits, c.p50, c.p99, SEEDS, COVERED_AT_LEAST);
}

/* Uniform over 1 to 3 ms: true p50 1 999 999 ns, p99 2 979 999 ns. */
static const gar_host_dist uniform = { 2, { 0, 1000000 }, { 1000000, 3000000 } };

/* A heavy tail whose quantiles sit on the profile's own levels, where the
 * density jumps: true p50 1 999 ns, p99 99 999 ns.  The same seeds draw
 * the same uniform positions under either profile, and the interval and
 * the truth move together under any increasing map of the values: so the
 * two give the same counts — the interval does not depend on the shape. */
static const gar_host_dist heavy = { 5,
                                     { 0, 500000, 900000, 990000, 1000000 },
                                     { 1000, 2000, 10000, 100000, 1000000 } };

static void the_truth_is_what_the_closed_form_says(void **state)
{
    (void)state;
    assert_int_equal(true_quantile(&uniform, 500000), 1999999);
    assert_int_equal(true_quantile(&uniform, 990000), 2979999);
    assert_int_equal(true_quantile(&heavy, 500000), 1999);
    assert_int_equal(true_quantile(&heavy, 990000), 99999);
}

static void intervals_cover_at_200_waits(void **state)
{
    (void)state;
    check("uniform", &uniform, 200);
    check("heavy tail", &heavy, 200);
}

static void intervals_cover_at_5000_waits(void **state)
{
    (void)state;
    check("uniform", &uniform, 5000);
    check("heavy tail", &heavy, 5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_truth_is_what_the_closed_form_says),
        cmocka_unit_test(intervals_cover_at_200_waits),
        cmocka_unit_test(intervals_cover_at_5000_waits),
    };
    return cmocka_run_group_tests_name("quantile_coverage", tests, NULL, NULL);
}
