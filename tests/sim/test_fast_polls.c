/* tests/sim/test_fast_polls.c — fast-forwarded poll loops (sim_host.h): exact
 * where the profile is constant, the same in distribution where it is not,
 * and never past the completion or the deadline.  Statistical checks run on
 * fixed seeds, so they are deterministic; their tolerances are a few times
 * the spread between seeds of the exact runs themselves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nearest_rank.h"
#include "sim/gen.h"
#include "sim/prng.h"
#include "sim/replay.h"
#include "sim/sim_host.h"
#include "sim_world.h"

#define WAITS 4000 /* enough for stable p99s, few enough for a debug build */

static gar_trace generate(gar_gen_kind kind, const char *param1, const char *param2)
{
    gar_gen_spec spec = gar_gen_spec_default(kind);
    assert_int_equal(gar_gen_spec_set(&spec, param1, NULL), 0);
    if (param2 != NULL)
        assert_int_equal(gar_gen_spec_set(&spec, param2, NULL), 0);
    gar_trace t;
    assert_int_equal(gar_gen_run(&spec, WAITS, 1, &t, NULL), 0);
    return t;
}

static gar_replay_metrics replay(const gar_trace *t, const gar_host_profile *host,
                                 const gar_plan *plan, bool exact_polls)
{
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = t;
    c.plan = plan;
    c.host = host;
    c.exact_polls = exact_polls;
    assert_int_equal(gar_estimator_spec_parse("oracle", &c.estimator, NULL), 0);
    gar_replay_metrics m;
    gar_error err;
    if (gar_replay_run(&c, &m, &err) != 0)
        fail_msg("replay failed: %s", err.argv[0]);
    return m;
}

static void moments_are_those_of_the_sampler(void **state)
{
    (void)state;
    double mean, var;
    gar_host_dist c = constant_dist(777);
    gar_host_dist_moments(&c, &mean, &var);
    assert_true(mean == 777.0 && var == 0.0);

    /* One segment 0..10: the sampler gives 0..9 uniformly. */
    gar_host_dist u = { 2, { 0, GAR_HOST_LEVEL_ONE }, { 0, 10 } };
    gar_host_dist_moments(&u, &mean, &var);
    assert_true(fabs(mean - 4.5) < 1e-12 && fabs(var - 99.0 / 12) < 1e-12);

    /* A poll period of a bundled profile's shape, its thin tail trimmed (a
     * tail of 10^-4 would make a million samples' variance too noisy to
     * judge), against a million samples. */
    gar_host_dist d = { 5, { 0, 500000, 900000, 990000, GAR_HOST_LEVEL_ONE },
                        { 30, 45, 80, 150, 400 } };
    gar_host_dist_moments(&d, &mean, &var);
    gar_prng g = gar_prng_seeded(3);
    double sum = 0, sum2 = 0;
    enum { DRAWS = 1000000 };
    for (int i = 0; i < DRAWS; i++) {
        double x = (double)gar_host_dist_sample(&d, gar_prng_next(&g));
        sum += x;
        sum2 += x * x;
    }
    double m = sum / DRAWS, v = sum2 / DRAWS - m * m;
    assert_true(fabs(m - mean) < 4 * sqrt(var / DRAWS));
    assert_true(fabs(v - var) < 0.01 * var);
}

/* With every cost a constant a block is exact: fast and exact replays agree
 * to the byte, on a steady and a jittered trace, with and without predict. */
static void constant_costs_give_the_same_numbers_both_ways(void **state)
{
    (void)state;
    gar_host_profile host = exact_profile(true);
    gar_trace traces[] = { generate(GAR_GEN_STEADY, "residual_us=700", NULL),
                           generate(GAR_GEN_JITTER, "mean_us=700", "sd_us=200") };
    for (size_t i = 0; i < 2; i++)
        for (int predict = 0; predict <= 1; predict++) {
            gar_plan plan = plan_of(GAR_PARK_POLL, predict);
            gar_replay_metrics fast = replay(&traces[i], &host, &plan, false);
            gar_replay_metrics exact = replay(&traces[i], &host, &plan, true);
            assert_memory_equal(&fast, &exact, sizeof fast);
            assert_true(fast.polls > WAITS * 50);
        }
    gar_trace_free(&traces[0]);
    gar_trace_free(&traces[1]);
}

static void expect_near(const char *what, double fast, double exact, double tolerance)
{
    if (fabs(fast - exact) > tolerance)
        fail_msg("%s: fast %.1f, exact %.1f, more than %.1f apart", what, fast, exact, tolerance);
}

/* On both bundled profiles — a thin-tailed turn (waitpkg) and one whose
 * rare long turns set the p99 (dev-vm) — poll and poll+predict replays of a
 * steady and a jittered trace agree with turn-by-turn replays: busy_frac
 * within 2 %, the poll count within 1 %, overshoot p50 and p90 within one
 * median poll period, and p99 within five or 40 %, whichever is more.  The
 * p99 is loose because it is ill-conditioned: on dev-vm it is set by the ~1 %
 * of waits whose completion falls in a rare long turn, so at 4 000 waits it
 * moves by ±20 % (2 400 to 3 750 ns over eight seeds) between seeds of the
 * exact replays themselves; on waitpkg the five periods bind. */
static void fast_polls_agree_with_exact_ones_in_distribution(void **state)
{
    (void)state;
    static const char *const hosts[] = { "dev-vm", "waitpkg" };
    gar_trace traces[] = { generate(GAR_GEN_STEADY, "residual_us=200", NULL),
                           generate(GAR_GEN_JITTER, "mean_us=200", "sd_us=50") };
    for (size_t h = 0; h < 2; h++) {
        char path[512];
        snprintf(path, sizeof path, "%s/hosts/%s.host", GAR_DATA_DIR, hosts[h]);
        gar_host_profile host;
        assert_int_equal(gar_host_profile_load(path, &host, NULL), 0);
        /* Sleeps that never overrun the margin: no late wake, whose sleep
         * overshoot — not a poll — would set the p99. */
        host.sleep_overshoot = (gar_host_dist){ 5, { 0, 500000, 900000, 990000, 1000000 },
                                                { 5000, 20000, 40000, 60000, 100000 } };
        for (unsigned k = 0; k < GAR_HOST_LEADS; k++)
            host.sleep_overshoot_at[k].count = 0;
        /* Nor a store's visibility: one draw a wait, taken the same way by
         * both, whose thin tail would set the p99 by its own sampling noise. */
        host.store_visible.count = 0;
        for (unsigned k = 0; k < GAR_HOST_LEADS; k++)
            host.store_visible_at[k].count = 0;
        double period = (double)gar_host_dist_median(&host.poll_period);
        for (size_t i = 0; i < 2; i++)
            for (int predict = 0; predict <= 1; predict++) {
                gar_plan plan = plan_of(GAR_PARK_POLL, predict);
                gar_replay_metrics fast = replay(&traces[i], &host, &plan, false);
                gar_replay_metrics exact = replay(&traces[i], &host, &plan, true);
                print_message("%s trace %zu predict %d: p50 %llu/%llu p90 %llu/%llu "
                              "p99 %llu/%llu busy_frac %.5f/%.5f polls %llu/%llu\n",
                              hosts[h], i, predict,
                              (unsigned long long)fast.overshoot_ns.p50,
                              (unsigned long long)exact.overshoot_ns.p50,
                              (unsigned long long)fast.overshoot_ns.p90,
                              (unsigned long long)exact.overshoot_ns.p90,
                              (unsigned long long)fast.overshoot_ns.p99,
                              (unsigned long long)exact.overshoot_ns.p99, fast.busy_frac,
                              exact.busy_frac, (unsigned long long)fast.polls,
                              (unsigned long long)exact.polls);
                assert_int_equal(fast.late, 0);
                expect_near("p50", (double)fast.overshoot_ns.p50,
                            (double)exact.overshoot_ns.p50, period);
                expect_near("p90", (double)fast.overshoot_ns.p90,
                            (double)exact.overshoot_ns.p90, period);
                double p99 = (double)exact.overshoot_ns.p99;
                expect_near("p99", (double)fast.overshoot_ns.p99, p99,
                            fmax(5 * period, 0.4 * p99));
                expect_near("busy_frac", fast.busy_frac, exact.busy_frac,
                            0.02 * exact.busy_frac);
                /* The turns counted agree too (a turn's mean is exact). */
                expect_near("polls", (double)fast.polls, (double)exact.polls,
                            0.01 * (double)exact.polls);
            }
    }
    gar_trace_free(&traces[0]);
    gar_trace_free(&traces[1]);
}

/* Every overshoot of a replay, appended to a caller's array. */
typedef struct overshoots {
    uint64_t *v;
    size_t n;
} overshoots;

static void keep_overshoot(void *ctx, const gar_replay_wait *w)
{
    overshoots *o = ctx;
    o->v[o->n++] = w->overshoot_ns;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The p99 overshoot of replays of `t` under `plan` with the adl estimator,
 * seeds 1 .. seeds pooled (nearest rank over every wait of every seed). */
static double pooled_p99(const gar_trace *t, const gar_host_profile *host, const gar_plan *plan,
                         bool exact_polls, unsigned seeds, uint64_t *polls)
{
    overshoots o = { malloc(seeds * t->count * sizeof(uint64_t)), 0 };
    assert_non_null(o.v);
    *polls = 0;
    for (unsigned seed = 1; seed <= seeds; seed++) {
        gar_replay_config c;
        gar_replay_config_init(&c);
        c.trace = t;
        c.plan = plan;
        c.host = host;
        c.seed = seed;
        c.exact_polls = exact_polls;
        c.on_wait = keep_overshoot;
        c.on_wait_context = &o;
        gar_replay_metrics m;
        gar_error err;
        if (gar_replay_run(&c, &m, &err) != 0)
            fail_msg("replay failed: %s", err.argv[0]);
        *polls += m.polls;
    }
    qsort(o.v, o.n, sizeof o.v[0], by_value);
    double p99 = (double)gar_nearest_rank(o.v, o.n, 990000);
    free(o.v);
    return p99;
}

/* The benchmark's comparison (bench_replay.c prints the same): the bundled
 * profiles as they are, poll and poll+predict (margin 150 us, window 8)
 * under adl, a steady trace of 300 us residual.  Fast and turn-by-turn p99
 * overshoots agree within 5 %, and so do the polls counted (within 1 %).
 * Long turns are the same draws both ways (sim_host.h, "Streams"), so on
 * dev-vm, whose p99 they set, 2 x 10 000 waits suffice (seeds alone
 * differ by 2-3 % there); on waitpkg the p99 sits where the body turns'
 * residual meets the visibility's tail, the residual drawn apart, so it
 * takes 16 x 10 000 waits to bring the seeds' own spread (single seeds of
 * 10 000 waits differ by up to 9 %) to about 1 %, well inside the 5 %. */
static void fast_polls_keep_the_p99_within_5_percent_on_the_bundled_profiles(void **state)
{
    (void)state;
    static const struct {
        const char *host;
        unsigned seeds;
    } runs[] = { { "dev-vm", 2 }, { "waitpkg", 16 } };
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_STEADY);
    assert_int_equal(gar_gen_spec_set(&spec, "residual_us=300", NULL), 0);
    gar_trace t;
    assert_int_equal(gar_gen_run(&spec, 10000, 1, &t, NULL), 0);
    for (size_t h = 0; h < 2; h++) {
        char path[512];
        snprintf(path, sizeof path, "%s/hosts/%s.host", GAR_DATA_DIR, runs[h].host);
        gar_host_profile host;
        assert_int_equal(gar_host_profile_load(path, &host, NULL), 0);
        for (int predict = 0; predict <= 1; predict++) {
            gar_plan plan;
            assert_int_equal(gar_plan_parse(predict ? "poll+predict:margin_us=150,min_sleep_us=20,"
                                                      "max_sleep_us=50000,window=8"
                                                    : "poll",
                                            &plan, NULL),
                             0);
            uint64_t fast_polls, exact_polls;
            double fast = pooled_p99(&t, &host, &plan, false, runs[h].seeds, &fast_polls);
            double exact = pooled_p99(&t, &host, &plan, true, runs[h].seeds, &exact_polls);
            print_message("%s %s: p99 fast %.0f exact %.0f (%+.1f %%), polls %llu / %llu\n",
                          runs[h].host, predict ? "poll+predict" : "poll", fast, exact,
                          100 * (fast - exact) / exact, (unsigned long long)fast_polls,
                          (unsigned long long)exact_polls);
            expect_near("p99", fast, exact, 0.05 * exact);
            expect_near("polls", (double)fast_polls, (double)exact_polls,
                        0.01 * (double)exact_polls);
        }
    }
    gar_trace_free(&t);
}

/* A far limit takes the stationary crossing (sim_host.h): on a turn with a
 * heavy tail (one turn in 100 up to 4 us, a quarter of the time) the loop
 * jumps at once, and agrees with turn by turn: p50, p90 and p99 within 5 %
 * (the p99 sits inside the long turns, where the overshoots are dense),
 * the polls counted within 1 %. */
static void a_far_limit_draws_the_crossing_turn_as_turn_by_turn_would(void **state)
{
    (void)state;
    gar_host_profile host = exact_profile(false);
    host.query_ns = 20;
    host.clock_ns = 20;
    host.poll_period = (gar_host_dist){ 5, { 0, 500000, 900000, 990000, 1000000 },
                                        { 10, 20, 30, 40, 4000 } };
    gar_sim_host probe;
    assert_int_equal(gar_sim_host_init(&probe, &host, 0, NULL), 0);
    assert_true(probe.poll_turn.stationary_from < 300 * GAR_NS_PER_US);
    gar_trace t = generate(GAR_GEN_STEADY, "residual_us=300", NULL);
    gar_plan plan = plan_of(GAR_PARK_POLL, false);
    gar_replay_metrics fast = replay(&t, &host, &plan, false);
    gar_replay_metrics exact = replay(&t, &host, &plan, true);
    print_message("stationary: p50 %llu/%llu p90 %llu/%llu p99 %llu/%llu polls %llu/%llu\n",
                  (unsigned long long)fast.overshoot_ns.p50,
                  (unsigned long long)exact.overshoot_ns.p50,
                  (unsigned long long)fast.overshoot_ns.p90,
                  (unsigned long long)exact.overshoot_ns.p90,
                  (unsigned long long)fast.overshoot_ns.p99,
                  (unsigned long long)exact.overshoot_ns.p99, (unsigned long long)fast.polls,
                  (unsigned long long)exact.polls);
    expect_near("p50", (double)fast.overshoot_ns.p50, (double)exact.overshoot_ns.p50,
                0.05 * (double)exact.overshoot_ns.p50);
    expect_near("p90", (double)fast.overshoot_ns.p90, (double)exact.overshoot_ns.p90,
                0.05 * (double)exact.overshoot_ns.p90);
    expect_near("p99", (double)fast.overshoot_ns.p99, (double)exact.overshoot_ns.p99,
                0.05 * (double)exact.overshoot_ns.p99);
    expect_near("polls", (double)fast.polls, (double)exact.polls, 0.01 * (double)exact.polls);
    gar_trace_free(&t);
}

/* How many 64-bit draws took `from` to `to` (at most `limit`; limit + 1
 * when more). */
static uint64_t draws_between(gar_prng from, const gar_prng *to, uint64_t limit)
{
    uint64_t k = 0;
    while (k <= limit && memcmp(&from, to, sizeof from) != 0) {
        gar_prng_next(&from);
        k++;
    }
    return k;
}

/* A block never crosses the deadline: a hung device's poll wait fails at
 * the first turn past it, within one turn, as turn by turn it would — and
 * with a fraction of the draws. */
static void a_fast_forwarded_poll_still_fails_at_the_deadline(void **state)
{
    (void)state;
    gar_host_profile vm;
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts/dev-vm.host", &vm, NULL), 0);
    const gar_mono_ns deadline = 5 * GAR_NS_PER_MS;
    for (uint64_t seed = 0; seed < 20; seed++)
        for (int exact = 0; exact <= 1; exact++) {
            gar_sim_device dev;
            gar_sim_device_options o = { .streams = 1 };
            assert_int_equal(gar_sim_device_init(&dev, &o, NULL), 0);
            gar_sim_work work;
            assert_int_equal(
                gar_sim_device_enqueue(&dev, 0, 0, 1, GAR_SIM_FAULT_HANG, &work, NULL), 0);
            gar_sim_host host;
            assert_int_equal(gar_sim_host_init(&host, &vm, seed, NULL), 0);
            host.exact_polls = exact == 1;
            gar_prng seeded = host.prng, poll_seeded = host.poll_prng;
            gar_prng long_seeded = gar_prng_seeded(host.long_seed); /* this first wait's */
            gar_plan plan = plan_of(GAR_PARK_POLL, false);
            gar_sim_wait_result r;
            gar_error err;
            assert_int_equal(gar_sim_host_wait(&host, &dev, &work, &plan, false, 0, 0, deadline,
                                               &r, &err), -GAR_E_WAIT_DEADLINE);
            gar_sim_device_free(&dev);
            assert_in_range(r.end, deadline, deadline + host.poll_turn.max);
            assert_int_equal(r.busy_ns, r.end);
            /* About 5 ms of the profile's mean turns, either way (within
             * 5 %: 33 000 to 36 500 for the 144 ns turns of an earlier
             * dev-vm profile). */
            double turns = (double)deadline / host.poll_turn.mean;
            assert_in_range(r.report.polls, (uint64_t)(0.95 * turns), (uint64_t)(1.05 * turns));
            /* Nothing changes on a hung item before the deadline, so both
             * ways jump there (sim_host.h, "A hung item"): a last turn or
             * two are drawn, never one a turn, whatever exact_polls says. */
            assert_true(draws_between(seeded, &host.prng, r.report.polls) <= 2);
            assert_true(draws_between(poll_seeded, &host.poll_prng, r.report.polls) <= 2);
            assert_true(draws_between(long_seeded, &host.long_prng, r.report.polls) <= 2);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(moments_are_those_of_the_sampler),
        cmocka_unit_test(constant_costs_give_the_same_numbers_both_ways),
        cmocka_unit_test(fast_polls_agree_with_exact_ones_in_distribution),
        cmocka_unit_test(fast_polls_keep_the_p99_within_5_percent_on_the_bundled_profiles),
        cmocka_unit_test(a_far_limit_draws_the_crossing_turn_as_turn_by_turn_would),
        cmocka_unit_test(a_fast_forwarded_poll_still_fails_at_the_deadline),
    };
    return cmocka_run_group_tests_name("fast_polls", tests, NULL, NULL);
}
