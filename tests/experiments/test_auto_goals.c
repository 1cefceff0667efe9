/* tests/experiments/test_auto_goals.c — auto set beside the fixed arms of a
 * sweep: the cells, the ex-post best fixed arm (oracle left out), the three
 * goals, on hand-made arms whose answers are known. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/auto_goals.h"

#define ARMS_MAX 32

static gar_arm_summary arm_store[ARMS_MAX];

static void arm(gar_arm_list *list, const char *trace, const char *host, const char *plan,
                const char *estimator, double p99_us, double busy)
{
    assert_true(list->count < ARMS_MAX);
    gar_arm_summary *a = &list->arm[list->count++];
    memset(a, 0, sizeof *a);
    snprintf(a->trace, sizeof a->trace, "%s", trace);
    snprintf(a->trace_short, sizeof a->trace_short, "%s", trace);
    snprintf(a->host, sizeof a->host, "%s", host);
    snprintf(a->host_short, sizeof a->host_short, "%s", host);
    snprintf(a->mode, sizeof a->mode, "open");
    snprintf(a->plan, sizeof a->plan, "%s", plan);
    snprintf(a->estimator, sizeof a->estimator, "%s", estimator);
    a->runs = 3;
    a->p99_ns = p99_us * 1000.0;
    a->busy_frac = busy;
}

#define PREDICT "poll+predict:margin_us=100,min_sleep_us=20,max_sleep_us=50000,window=8"

/* Two traces on one host, budgets 5 and 20 µs. */
static void two_traces(gar_arm_list *l)
{
    l->arm = arm_store;
    l->count = 0;
    arm(l, "a", "h", "auto:p99_us=5", "-", 4, 0.30);
    arm(l, "a", "h", "auto:p99_us=20", "-", 12, 0.10);
    arm(l, "a", "h", "poll", "-", 2, 1.00);
    arm(l, "a", "h", "block", "-", 60, 0.001);
    arm(l, "a", "h", PREDICT, "adl", 15, 0.09);
    arm(l, "a", "h", PREDICT, "oracle", 3, 0.01); /* reads the future: not a plan */
    arm(l, "b", "h", "auto:p99_us=5", "-", 6, 0.20);  /* over its budget */
    arm(l, "b", "h", "auto:p99_us=20", "-", 8, 0.20);
    arm(l, "b", "h", "poll", "-", 3, 1.00);
    arm(l, "b", "h", "block", "-", 80, 0.001);
    arm(l, "b", "h", PREDICT, "adl", 30, 0.05);
}

static void cells_pair_auto_with_the_ex_post_best(void **state)
{
    (void)state;
    gar_arm_list l;
    two_traces(&l);
    gar_auto_goals g;
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    assert_int_equal(g.cells, 4);
    /* a at 5 µs: only poll meets it (oracle's 3 µs does not count). */
    const gar_auto_cell *c = &g.cell[0];
    assert_string_equal(c->any->trace, "a");
    assert_int_equal(c->budget_ns, 5000);
    assert_string_equal(c->best->plan, "poll");
    assert_true(c->auto_meets);
    assert_string_equal(c->poll->plan, "poll");
    assert_string_equal(c->block->plan, "block");
    /* a at 20 µs: predict under adl is cheaper than poll and within 20. */
    c = &g.cell[1];
    assert_int_equal(c->budget_ns, 20000);
    assert_string_equal(c->best->plan, PREDICT);
    assert_string_equal(c->best->estimator, "adl");
    /* b at 5 µs: auto's 6 µs is over. */
    c = &g.cell[2];
    assert_string_equal(c->any->trace, "b");
    assert_false(c->auto_meets);
    /* b at 20 µs: predict's 30 µs is over, so poll is the best. */
    assert_string_equal(g.cell[3].best->plan, "poll");

    assert_int_equal(g.meetable, 4);
    assert_int_equal(g.auto_met, 3);
    assert_false(g.goal_budget);
    /* Within 1.25 x: a@5 (0.30 vs 1.00), a@20 (0.10 vs 0.09: 1.11) and
     * b@20 (0.20 vs 1.00); not b@5, over its budget however cheap. */
    assert_int_equal(g.within, 3);
    assert_false(g.goal_within); /* 75 % */
    /* The single arm meeting the most cells is poll (4); over the 3 where
     * auto meets too, poll sums 3.00 and auto 0.60. */
    assert_string_equal(g.single->plan, "poll");
    assert_int_equal(g.single_meets, 4);
    assert_int_equal(g.both_meet, 3);
    assert_true(g.single_busy > 2.99 && g.single_busy < 3.01);
    assert_true(g.auto_busy > 0.59 && g.auto_busy < 0.61);
    assert_true(g.goal_single);
    gar_auto_goals_free(&g);
}

static void goals_pass_where_auto_keeps_up(void **state)
{
    (void)state;
    gar_arm_list l;
    two_traces(&l);
    l.arm[6].p99_ns = 5000; /* b@5 now meets, at its budget exactly */
    gar_auto_goals g;
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    assert_true(g.goal_budget);
    assert_int_equal(g.within, 4);
    assert_true(g.goal_within);
    assert_true(g.goal_single);
    gar_auto_goals_free(&g);
}

/* Auto is judged by the fixed arms' rule: over B by its mean p99 is not
 * met, wherever B falls in its interval; the interval is a column apart. */
static void an_interval_alone_never_meets_a_budget(void **state)
{
    (void)state;
    gar_arm_list l;
    two_traces(&l);
    gar_arm_summary *b5 = &l.arm[6]; /* b@5: p99 6 µs */
    b5->has_ci = true;
    b5->p99_lo_ns = 5500; /* the interval starts above 5 µs: over, and could not meet */
    b5->p99_hi_ns = 9000;
    gar_auto_goals g;
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    assert_false(g.cell[2].auto_meets);
    assert_false(g.cell[2].auto_could_meet);
    gar_auto_goals_free(&g);
    b5->p99_lo_ns = 4800; /* 5 µs within it: still not met; it could meet, said apart */
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    assert_false(g.cell[2].auto_meets);
    assert_true(g.cell[2].auto_could_meet);
    assert_int_equal(g.auto_met, 3);
    assert_int_equal(g.auto_could, 1);
    assert_false(g.goal_budget);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    gar_auto_goals_print(f, &g);
    fclose(f);
    assert_non_null(strstr(text, "rule: an arm, auto or fixed, meets B when every seed's run "
                                 "succeeded and the mean p99 over its seeds is at most B"));
    /* b@5: p99 6, interval 5-9 (4.8 shown rounded), not met, could meet. */
    assert_non_null(strstr(text, "5         6          5-9     0.200000       no        yes"));
    assert_non_null(strstr(text, "in 3 of the 4 cells where a fixed arm does; in 1 more it "
                                 "could"));
    free(text);
    gar_auto_goals_free(&g);
}

/* A failed run reads as p99 0 and busy 0: an arm with one would meet every
 * budget at no CPU.  It meets none, is never the best, nor the single arm. */
static void an_arm_with_a_failed_seed_meets_nothing(void **state)
{
    (void)state;
    gar_arm_list l;
    two_traces(&l);
    /* block failed in every seed, in both places: it reads p99 0, busy 0. */
    for (size_t i = 3; i < l.count; i += 6) {
        assert_string_equal(l.arm[i].plan, "block");
        l.arm[i].failed = 3;
        l.arm[i].p99_ns = 0;
        l.arm[i].busy_frac = 0;
    }
    /* And one seed of predict under adl failed on a (its ok seeds: 15 µs). */
    l.arm[4].failed = 1;
    gar_auto_goals g;
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    for (size_t i = 0; i < g.cells; i++) {
        assert_non_null(g.cell[i].best);
        assert_string_equal(g.cell[i].best->plan, "poll");
        assert_null(g.cell[i].block); /* not drawn as the plain block either */
    }
    assert_string_equal(g.single->plan, "poll");
    gar_auto_goals_free(&g);

    /* Only failed fixed arms: none meets anything, no best, no single arm. */
    gar_arm_list only = { arm_store, 0 };
    arm(&only, "a", "h", "auto:p99_us=5", "-", 4, 0.30);
    arm(&only, "a", "h", "poll", "-", 0, 0.0);
    only.arm[1].failed = 1;
    only.arm[1].runs = 1;
    assert_int_equal(gar_auto_goals_compute(&only, &g, NULL), 0);
    assert_null(g.cell[0].best);
    assert_null(g.cell[0].poll);
    assert_int_equal(g.meetable, 0);
    assert_null(g.single);
    gar_auto_goals_free(&g);

    /* A failed auto seed: auto meets nothing, and the table says failed. */
    two_traces(&l);
    l.arm[0].failed = 1; /* a@5 */
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    assert_false(g.cell[0].auto_meets);
    assert_true(g.cell[0].auto_failed);
    assert_int_equal(g.auto_met, 2);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    gar_auto_goals_print(f, &g);
    fclose(f);
    assert_non_null(strstr(text, "5    failed            -     0.300000   failed          -"));
    free(text);
    gar_auto_goals_free(&g);
}

static void goals_fail_where_auto_falls_short(void **state)
{
    (void)state;
    gar_arm_list l;
    two_traces(&l);
    l.arm[1].busy_frac = 0.2;  /* a@20: 0.2 against 0.09, over 1.25 x */
    l.arm[7].busy_frac = 0.99; /* b@20: 0.99 against 1.00, within */
    l.arm[0].busy_frac = 1.5;  /* a@5: over poll's 1.00 */
    gar_auto_goals g;
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    assert_int_equal(g.within, 1); /* b@20 */
    assert_false(g.goal_within);
    /* Against poll over a@5, a@20 and b@20: 3.00 against 1.5 + 0.2 + 0.99. */
    assert_true(g.goal_single);
    l.arm[0].busy_frac = 2.0;
    l.arm[7].busy_frac = 1.0;
    gar_auto_goals_free(&g);
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    assert_false(g.goal_single); /* 3.2 against 3.0 */
    gar_auto_goals_free(&g);
}

static void budgets_are_read_from_auto_labels_only(void **state)
{
    (void)state;
    assert_int_equal(gar_auto_goals_budget_of("auto:p99_us=20"), 20000);
    assert_int_equal(gar_auto_goals_budget_of("auto:p99_us=1000000"), 1000000000);
    assert_int_equal(gar_auto_goals_budget_of("poll"), 0);
    assert_int_equal(gar_auto_goals_budget_of("auto:p99_us=2x"), 0);
    assert_int_equal(gar_auto_goals_budget_of(NULL), 0);
    /* No auto arm: no cell, nothing allocated. */
    gar_arm_list l = { arm_store, 0 };
    arm(&l, "a", "h", "poll", "-", 2, 1.0);
    gar_auto_goals g;
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    assert_int_equal(g.cells, 0);
    assert_null(g.cell);
}

static void the_report_section_answers_per_trace_and_host(void **state)
{
    (void)state;
    gar_arm_list l;
    two_traces(&l);
    snprintf(l.arm[4].estimator, sizeof l.arm[4].estimator, "a<b>&c");
    gar_auto_goals g;
    assert_int_equal(gar_auto_goals_compute(&l, &g, NULL), 0);
    char *html = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&html, &size);
    assert_non_null(f);
    assert_int_equal(gar_auto_goals_html(f, &g, "mem", NULL), 0);
    fclose(f);
    /* Trace a meets 5 µs at 30 % (the best fixed, poll, at 100 %); b
     * first meets 20 µs. */
    assert_non_null(strstr(html, "<b>a</b> on <b>h</b>: auto meets a p99 of 5 µs (its p99 4 µs) "
                                 "at 30 % busy CPU; the best fixed arm within it, poll / -, "
                                 "costs 100 %."));
    assert_non_null(strstr(html, "<b>b</b> on <b>h</b>: auto meets a p99 of 20 µs"));
    assert_non_null(strstr(html, "<td>6 µs (over its budget)</td><td>-</td>"));
    assert_non_null(strstr(html, "a&lt;b&gt;&amp;c")); /* escaped */
    assert_null(strstr(html, "a<b>&c"));
    assert_non_null(strstr(html, "in 3 of the 4 cells where a fixed arm does (fail; in 0 more "
                                 "it could"));
    assert_non_null(strstr(html, "One rule for every arm: an arm, auto or fixed, meets B"));
    free(html);
    gar_auto_goals_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cells_pair_auto_with_the_ex_post_best),
        cmocka_unit_test(goals_pass_where_auto_keeps_up),
        cmocka_unit_test(an_interval_alone_never_meets_a_budget),
        cmocka_unit_test(an_arm_with_a_failed_seed_meets_nothing),
        cmocka_unit_test(goals_fail_where_auto_falls_short),
        cmocka_unit_test(budgets_are_read_from_auto_labels_only),
        cmocka_unit_test(the_report_section_answers_per_trace_and_host),
    };
    return cmocka_run_group_tests_name("auto_goals", tests, NULL, NULL);
}
