/* tests/experiments/test_report_rank.c — the report's ranking rule: the
 * lowest busy CPU within 10 % of the best p99, the oracle a bound only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "report.h"

static gar_arm_summary arm(const char *plan, const char *estimator, double p99_ns, double busy)
{
    gar_arm_summary a;
    memset(&a, 0, sizeof a);
    strcpy(a.plan, plan);
    strcpy(a.estimator, estimator);
    a.runs = 3;
    a.p99_ns = p99_ns;
    a.busy_frac = busy;
    return a;
}

static void the_cheapest_arm_near_the_best_p99_wins(void **state)
{
    (void)state;
    gar_arm_summary arms[] = {
        arm("block", "-", 180000, 0.0001),
        arm("poll", "-", 1000, 1.0),
        arm("flag", "-", 1050, 0.9),   /* within 10 %: eligible */
        arm("flag+p", "adl", 1100, 0.3), /* exactly 10 % over: eligible, cheapest */
        arm("flag+p", "ewma", 1101, 0.1), /* just over: not eligible */
        arm("flag+p", "oracle", 500, 0.01), /* a bound: sets no best, never wins */
    };
    gar_report_winner w = gar_report_pick(arms, 6);
    assert_ptr_equal(w.winner, &arms[3]);
    /* The table: eligible by busy, the oracle, the rest by p99. */
    gar_report_row rows[6];
    gar_report_rank(arms, 6, rows);
    const gar_arm_summary *order[6] = { &arms[3], &arms[2], &arms[1], &arms[5], &arms[4],
                                        &arms[0] };
    for (int i = 0; i < 6; i++)
        assert_ptr_equal(rows[i].arm, order[i]);
    assert_int_equal(rows[3].standing, GAR_REPORT_BOUND);
    assert_ptr_equal(w.poll, &arms[1]);
    assert_ptr_equal(w.block, &arms[0]);
    assert_true(w.best_p99_ns == 1000);
    assert_true(gar_report_eligible(&arms[2], w.best_p99_ns));
    assert_false(gar_report_eligible(&arms[4], w.best_p99_ns));
}

static void ties_keep_the_earlier_plan_and_failures_never_win(void **state)
{
    (void)state;
    gar_arm_summary arms[] = {
        arm("poll", "-", 1000, 0.5),
        arm("flag", "-", 1000, 0.5),
        arm("flag+p", "adl", 10, 0.0),
    };
    arms[2].failed = arms[2].runs; /* every run failed: no numbers */
    gar_report_winner w = gar_report_pick(arms, 3);
    assert_ptr_equal(w.winner, &arms[0]);
    assert_true(w.best_p99_ns == 1000);
    assert_null(w.block);

    gar_report_winner none = gar_report_pick(&arms[2], 1);
    assert_null(none.winner);
}

/* An arm that failed 2 of its 3 seeds must not win on its one good seed. */
static void an_arm_with_a_failed_seed_is_shown_failed_not_ranked(void **state)
{
    (void)state;
    gar_arm_summary arms[] = {
        arm("block", "-", 180000, 0.0001),
        arm("poll", "-", 1000, 1.0),
        arm("flag+p", "adl", 900, 0.05),  /* best numbers, from its one good seed */
        arm("flag+p", "ewma", 1050, 0.3), /* complete, within 10 % of poll */
    };
    arms[2].failed = 2;
    gar_report_winner w = gar_report_pick(arms, 4);
    assert_ptr_equal(w.winner, &arms[3]);
    assert_true(w.best_p99_ns == 1000); /* the failed arm sets no best either */
    assert_false(gar_report_complete(&arms[2]));
    assert_false(gar_report_eligible(&arms[2], w.best_p99_ns));

    gar_report_row rows[4];
    gar_report_rank(arms, 4, rows);
    assert_ptr_equal(rows[0].arm, &arms[3]); /* eligible: by busy */
    assert_int_equal(rows[0].standing, GAR_REPORT_ELIGIBLE);
    assert_ptr_equal(rows[1].arm, &arms[1]);
    assert_int_equal(rows[1].standing, GAR_REPORT_ELIGIBLE);
    assert_ptr_equal(rows[2].arm, &arms[0]); /* outside: by p99 */
    assert_int_equal(rows[2].standing, GAR_REPORT_OUTSIDE);
    assert_ptr_equal(rows[3].arm, &arms[2]); /* failed: last */
    assert_int_equal(rows[3].standing, GAR_REPORT_FAILED);

    /* A reference plan with a failed seed is no reference. */
    arms[1].failed = 1;
    w = gar_report_pick(arms, 4);
    assert_null(w.poll);
    assert_true(w.poll_failed);
    assert_false(w.block_failed);
    assert_ptr_equal(w.winner, &arms[3]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_arm_with_a_failed_seed_is_shown_failed_not_ranked),
        cmocka_unit_test(the_cheapest_arm_near_the_best_p99_wins),
        cmocka_unit_test(ties_keep_the_earlier_plan_and_failures_never_win),
    };
    return cmocka_run_group_tests_name("report_rank", tests, NULL, NULL);
}
