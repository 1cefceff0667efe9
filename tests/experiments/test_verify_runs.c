/* tests/experiments/test_verify_runs.c — the three-way verdict of several real
 * runs against the simulation, on scripted samples: the simulation inside
 * the real runs' envelope, above all, below all, near an edge, real runs
 * that disagree among themselves (unjudgeable), and a pooled KS over the
 * bound while every quantile is inside; and the machine's own ceiling, each
 * real run held out and judged as the simulation against the others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "verify/verify_runs.h"

enum { N = 1000, RUNS = 3 };

static gar_dur_ns real[RUNS][N], sim[RUNS][N];
static gar_dur_ns real_pool[RUNS * N], sim_pool[RUNS * N];

/* n values base, base + 1, ..., base + n - 1: sorted, p50 = base + n/2 - 1. */
static void ramp(gar_dur_ns *v, size_t n, gar_dur_ns base)
{
    for (size_t i = 0; i < n; i++)
        v[i] = base + (gar_dur_ns)i;
}

/* Three real runs of ramps from the given bases; the simulation's three runs
 * from `sim_base`.  Judged under the defaults. */
static gar_verify_runs_judgement judge_ramps(const gar_dur_ns real_base[RUNS], gar_dur_ns sim_base,
                                             bool blocks, size_t n)
{
    const gar_dur_ns *r[RUNS], *s[RUNS];
    for (int i = 0; i < RUNS; i++) {
        ramp(real[i], n, real_base[i]);
        ramp(sim[i], n, sim_base);
        r[i] = real[i];
        s[i] = sim[i];
    }
    gar_verify_pool(r, RUNS, n, real_pool);
    gar_verify_pool(s, RUNS, n, sim_pool);
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    gar_verify_runs_judgement j;
    gar_verify_judge_runs(&tol, blocks, r, RUNS, n, real_pool, sim_pool, RUNS * n, &j);
    return j;
}

static void a_simulation_inside_close_runs_agrees(void **state)
{
    (void)state;
    const gar_dur_ns bases[RUNS] = { 200, 220, 240 };
    gar_verify_runs_judgement j = judge_ramps(bases, 220, false, N);
    /* p50 is the 500th value: 699, 719, 739 real; 719 simulated. */
    assert_int_equal(j.q[0].real_min, 699);
    assert_int_equal(j.q[0].real_max, 739);
    assert_int_equal(j.q[0].sim, 719);
    for (int k = 0; k < GAR_VERIFY_RUNS_LEVELS; k++) {
        assert_int_equal(j.q[k].position, GAR_POSITION_INSIDE);
        assert_false(j.q[k].outside);
    }
    assert_true(j.real_ks_d_max > 0.0399 && j.real_ks_d_max < 0.0401); /* runs 1 and 3 */
    assert_int_equal(j.widest[0], 0);
    assert_int_equal(j.widest[1], 2);
    assert_true(j.pooled_ks_d < 0.15);
    assert_true(j.ks_bound == 0.15);
    assert_int_equal(j.verdict, GAR_RUNS_AGREE);
    assert_string_equal(gar_verify_runs_verdict_name(j.verdict), "agree");
}

static void a_simulation_above_every_run_is_biased(void **state)
{
    (void)state;
    const gar_dur_ns bases[RUNS] = { 200, 220, 240 };
    /* p50 899 against 699..739: 21.6 % above the top, past the 10 % edge. */
    gar_verify_runs_judgement j = judge_ramps(bases, 400, false, N);
    assert_int_equal(j.q[0].position, GAR_POSITION_ABOVE);
    assert_true(j.q[0].outside);
    assert_true(j.q[0].beyond > 0.216 && j.q[0].beyond < 0.217);
    assert_int_equal(j.verdict, GAR_RUNS_BIASED);
    assert_string_equal(j.why, "the simulated p50 is outside the real runs' envelope");
    assert_string_equal(gar_verify_position_name(j.q[0].position), "above all");
}

static void a_simulation_below_every_run_is_biased(void **state)
{
    (void)state;
    const gar_dur_ns bases[RUNS] = { 200, 220, 240 };
    gar_verify_runs_judgement j = judge_ramps(bases, 0, true, N);
    assert_int_equal(j.q[0].position, GAR_POSITION_BELOW);
    assert_true(j.q[0].outside);
    assert_int_equal(j.verdict, GAR_RUNS_BIASED);
    assert_string_equal(gar_verify_position_name(j.q[0].position), "below all");
}

static void a_simulation_just_past_an_edge_is_within_it(void **state)
{
    (void)state;
    const gar_dur_ns bases[RUNS] = { 200, 220, 240 };
    /* p50 799 against 699..739: above all, by 8.1 %, within the 10 % edge;
     * pooled KS about 0.08. */
    gar_verify_runs_judgement j = judge_ramps(bases, 300, false, N);
    assert_int_equal(j.q[0].position, GAR_POSITION_ABOVE);
    assert_false(j.q[0].outside);
    assert_int_equal(j.verdict, GAR_RUNS_AGREE);
    /* With no edge at all the same simulation is biased. */
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    assert_int_equal(gar_verify_tolerance_set(&tol, "edge=0", "verify", NULL), 0);
    const gar_dur_ns *r[RUNS] = { real[0], real[1], real[2] };
    gar_verify_judge_runs(&tol, false, r, RUNS, N, real_pool, sim_pool, RUNS * N, &j);
    assert_int_equal(j.verdict, GAR_RUNS_BIASED);
}

static void real_runs_far_apart_with_the_simulation_among_them_are_unjudgeable(void **state)
{
    (void)state;
    /* Runs 1 and 2 are 0.4 apart, over twice poll's 0.15. */
    const gar_dur_ns bases[RUNS] = { 200, 600, 400 };
    gar_verify_runs_judgement j = judge_ramps(bases, 400, false, N);
    for (int k = 0; k < GAR_VERIFY_RUNS_LEVELS; k++)
        assert_int_equal(j.q[k].position, GAR_POSITION_INSIDE);
    assert_true(j.real_ks_d_max > 0.3999 && j.real_ks_d_max < 0.4001);
    assert_int_equal(j.widest[0], 0);
    assert_int_equal(j.widest[1], 1);
    assert_int_equal(j.verdict, GAR_RUNS_UNJUDGEABLE);
    assert_string_equal(gar_verify_runs_verdict_name(j.verdict), "unjudgeable here");
    /* The same real runs with the simulation above all of them: biased all
     * the same — noise does not put a model above every run. */
    j = judge_ramps(bases, 1200, false, N);
    assert_int_equal(j.verdict, GAR_RUNS_BIASED);
    /* A blocking plan's bound is 0.25: 0.4 is within twice it, so the
     * runs agree with each other and the pooled KS decides. */
    j = judge_ramps(bases, 400, true, N);
    assert_true(j.ks_bound == 0.25);
    assert_int_equal(j.verdict, GAR_RUNS_AGREE);
}

static void a_pooled_ks_over_the_bound_is_biased_when_the_runs_agree(void **state)
{
    (void)state;
    const gar_dur_ns bases[RUNS] = { 200, 205, 210 };
    judge_ramps(bases, 200, true, N);
    /* The simulation: the p50, p90 and p99 of the real runs, but its lowest
     * 40 % all at 200 ns where the real runs spread from 200 to 609. */
    for (int i = 0; i < RUNS; i++)
        for (size_t v = 0; v < N; v++)
            sim[i][v] = v < 400 ? 200 : 200 + (gar_dur_ns)v;
    const gar_dur_ns *r[RUNS] = { real[0], real[1], real[2] };
    const gar_dur_ns *s[RUNS] = { sim[0], sim[1], sim[2] };
    gar_verify_pool(s, RUNS, N, sim_pool);
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    gar_verify_runs_judgement j;
    gar_verify_judge_runs(&tol, true, r, RUNS, N, real_pool, sim_pool, RUNS * N, &j);
    for (int k = 0; k < GAR_VERIFY_RUNS_LEVELS; k++)
        assert_false(j.q[k].outside);
    assert_true(j.real_ks_d_max < 0.02);
    assert_true(j.pooled_ks_d > 0.39);
    assert_int_equal(j.verdict, GAR_RUNS_BIASED);
    assert_string_equal(j.why, "pooled KS over the bound while the real runs agree with each other");
}

static void a_tail_with_too_few_waits_above_it_is_not_judged(void **state)
{
    (void)state;
    /* 100 waits a run: p90 has 10 above it (judged), p99 one (not). */
    const gar_dur_ns bases[RUNS] = { 200, 202, 204 };
    gar_verify_runs_judgement j = judge_ramps(bases, 202, false, 100);
    assert_int_equal(j.q[1].position, GAR_POSITION_INSIDE);
    assert_int_equal(j.q[2].position, GAR_POSITION_NOT_JUDGED);
    assert_string_equal(gar_verify_position_name(j.q[2].position), "not judged");
    assert_int_equal(j.verdict, GAR_RUNS_AGREE);
}

static void pooling_sorts_every_part_together(void **state)
{
    (void)state;
    const gar_dur_ns a[] = { 5, 9 }, b[] = { 1, 7 };
    const gar_dur_ns *parts[] = { a, b };
    gar_dur_ns out[4];
    gar_verify_pool(parts, 2, 2, out);
    const gar_dur_ns want[] = { 1, 5, 7, 9 };
    assert_memory_equal(out, want, sizeof want);
}

enum { HELD = 5 };
static gar_dur_ns held_runs[HELD][N], held_scratch[(HELD - 1) * N];

/* How many of five real runs, ramps from `bases`, pass held out. */
static unsigned holdout_of_ramps(const gar_dur_ns bases[HELD])
{
    const gar_dur_ns *r[HELD], *others[HELD];
    for (int i = 0; i < HELD; i++) {
        ramp(held_runs[i], N, bases[i]);
        r[i] = held_runs[i];
    }
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    return gar_verify_holdout_passes(&tol, false, r, HELD, N, others, held_scratch);
}

static void close_runs_each_pass_held_out_against_the_others(void **state)
{
    (void)state;
    /* Each run's p50 is within 1 % of the others' envelope, its KS to them
     * pooled at most 0.015. */
    const gar_dur_ns bases[HELD] = { 200, 205, 210, 215, 220 };
    assert_int_equal(holdout_of_ramps(bases), 5);
}

static void one_run_far_off_fails_itself_and_every_other_held_out(void **state)
{
    (void)state;
    /* Held out, the far run lies above the others' envelope; every other
     * run, held out, is 0.25 in KS from the others pooled (a quarter of
     * them far off), over poll's 0.15. */
    const gar_dur_ns bases[HELD] = { 200, 205, 210, 215, 2000 };
    assert_int_equal(holdout_of_ramps(bases), 0);
}

static void a_machine_between_two_states_fails_even_an_exact_model(void **state)
{
    (void)state;
    /* Three runs in one state, two in another 400 ns slower: each run held
     * out lies inside the envelope of the others (both states are among
     * them), but 0.2 or 0.3 in KS from them pooled. */
    const gar_dur_ns bases[HELD] = { 200, 200, 200, 600, 600 };
    assert_int_equal(holdout_of_ramps(bases), 0);
    /* With the same runs in one state, all pass. */
    const gar_dur_ns same[HELD] = { 200, 200, 200, 200, 200 };
    assert_int_equal(holdout_of_ramps(same), 5);
}

/* xorshift64: a fixed stream, so the test is the same every run. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static int compare_ns(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return (x > y) - (x < y);
}

static void a_steady_machine_passes_held_out_whatever_its_sampling(void **state)
{
    (void)state;
    /* Five runs of 1 000 waits drawn from one distribution (200 ns plus a
     * sum of four uniform draws below 100 ns): they differ only by their
     * sampling, and each held-out run passes against the others — the
     * ceiling is what it is on a machine that stays put, so a low one says
     * the machine moved. */
    uint64_t seed = 0x9e3779b97f4a7c15u;
    const gar_dur_ns *r[HELD], *others[HELD];
    for (int i = 0; i < HELD; i++) {
        for (size_t v = 0; v < N; v++) {
            gar_dur_ns sum = 200;
            for (int k = 0; k < 4; k++)
                sum += next_random(&seed) % 100;
            held_runs[i][v] = sum;
        }
        qsort(held_runs[i], N, sizeof held_runs[i][0], compare_ns);
        r[i] = held_runs[i];
    }
    gar_verify_tolerance tol = gar_verify_tolerance_default();
    assert_int_equal(gar_verify_holdout_passes(&tol, false, r, HELD, N, others, held_scratch), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_simulation_inside_close_runs_agrees),
        cmocka_unit_test(a_simulation_above_every_run_is_biased),
        cmocka_unit_test(a_simulation_below_every_run_is_biased),
        cmocka_unit_test(a_simulation_just_past_an_edge_is_within_it),
        cmocka_unit_test(real_runs_far_apart_with_the_simulation_among_them_are_unjudgeable),
        cmocka_unit_test(a_pooled_ks_over_the_bound_is_biased_when_the_runs_agree),
        cmocka_unit_test(a_tail_with_too_few_waits_above_it_is_not_judged),
        cmocka_unit_test(pooling_sorts_every_part_together),
        cmocka_unit_test(close_runs_each_pass_held_out_against_the_others),
        cmocka_unit_test(one_run_far_off_fails_itself_and_every_other_held_out),
        cmocka_unit_test(a_machine_between_two_states_fails_even_an_exact_model),
        cmocka_unit_test(a_steady_machine_passes_held_out_whatever_its_sampling),
    };
    return cmocka_run_group_tests_name("verify_runs", tests, NULL, NULL);
}
