/* tests/experiments/test_plan_names.c — plans named by what tells them from
 * the plans shown beside them, never by a number from the whole database;
 * and the plots' styles, a distinct colour and dash for each of the first
 * GAR_PLOT_STYLES things. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "report/plan_names.h"
#include "report/plot_style.h"

#define PP(m) "poll+predict:margin_us=" m ",min_sleep_us=20,max_sleep_us=50000,window=8"
#define FLAG "flag:park_us=100,backstop_us=1000"

static void a_lone_plan_is_its_family(void **state)
{
    (void)state;
    const char *shown[] = { "block", "poll", PP("150"), FLAG, FLAG "+predict:margin_us=150,"
                            "min_sleep_us=20,max_sleep_us=50000,window=8" };
    char out[192];
    gar_plan_name_among(shown[2], shown, 5, out, sizeof out);
    assert_string_equal(out, "poll+predict");
    gar_plan_name_among(shown[3], shown, 5, out, sizeof out);
    assert_string_equal(out, "flag");
    gar_plan_name_among(shown[4], shown, 5, out, sizeof out);
    assert_string_equal(out, "flag+predict");
    gar_arm_name_among(shown[2], "ewma:alpha=0.25", shown, 5, out, sizeof out);
    assert_string_equal(out, "poll+predict / ewma:alpha=0.25");
    gar_arm_name_among(shown[0], "-", shown, 5, out, sizeof out);
    assert_string_equal(out, "block");
}

static void plans_of_one_family_name_what_differs(void **state)
{
    (void)state;
    const char *shown[] = { PP("50"), PP("150"), "poll",
                            "poll+predict:margin_us=50,min_sleep_us=20,max_sleep_us=50000,"
                            "window=4" };
    char out[192];
    gar_plan_name_among(shown[0], shown, 4, out, sizeof out);
    assert_string_equal(out, "poll+predict margin_us=50,window=8");
    gar_plan_name_among(shown[1], shown, 4, out, sizeof out);
    assert_string_equal(out, "poll+predict margin_us=150,window=8");
    gar_plan_name_among(shown[3], shown, 4, out, sizeof out);
    assert_string_equal(out, "poll+predict margin_us=50,window=4");
    /* Shown with one other margin only, the window is no longer named. */
    gar_plan_name_among(shown[0], shown, 2, out, sizeof out);
    assert_string_equal(out, "poll+predict margin_us=50");
}

static void bands_name_a_parameter_with_its_edge(void **state)
{
    (void)state;
    const char *shown[] = {
        "block;rows>=32:" FLAG "+predict:" "margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8",
        "block;rows>=32:" FLAG "+predict:" "margin_us=300,min_sleep_us=20,max_sleep_us=50000,window=8",
    };
    char out[192];
    gar_plan_family(shown[0], out, sizeof out);
    assert_string_equal(out, "bands block|32:flag+predict");
    gar_plan_name_among(shown[1], shown, 2, out, sizeof out);
    assert_string_equal(out, "bands block|32:flag+predict |32:margin_us=300");
    /* Not a plan: its own family, unchanged. */
    gar_plan_name_among("nonsense", shown, 2, out, sizeof out);
    assert_string_equal(out, "nonsense");
}

static void numbers_in_plans_order_as_numbers(void **state)
{
    (void)state;
    assert_true(gar_plan_text_order(PP("50"), PP("100")) < 0);
    assert_true(gar_plan_text_order(PP("300"), PP("100")) > 0);
    assert_int_equal(gar_plan_text_order(PP("150"), PP("150")), 0);
    assert_true(gar_plan_text_order("a007b", "a7c") < 0); /* leading zeros aside */
    assert_true(gar_plan_text_order("poll", "poll+predict") < 0);
}

static void every_style_is_its_own_pair(void **state)
{
    (void)state;
    for (size_t i = 0; i < GAR_PLOT_STYLES; i++)
        for (size_t j = i + 1; j < GAR_PLOT_STYLES; j++) {
            gar_plot_style a = gar_plot_style_of(i), b = gar_plot_style_of(j);
            assert_false(strcmp(a.colour, b.colour) == 0 && a.dash == b.dash);
        }
    /* The first sixteen are solid and of sixteen colours: no neighbours alike. */
    for (size_t i = 0; i < GAR_PLOT_COLOURS; i++) {
        assert_int_equal(gar_plot_style_of(i).dash, 1);
        for (size_t j = i + 1; j < GAR_PLOT_COLOURS; j++)
            assert_string_not_equal(gar_plot_style_of(i).colour, gar_plot_style_of(j).colour);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_lone_plan_is_its_family),
        cmocka_unit_test(plans_of_one_family_name_what_differs),
        cmocka_unit_test(bands_name_a_parameter_with_its_edge),
        cmocka_unit_test(numbers_in_plans_order_as_numbers),
        cmocka_unit_test(every_style_is_its_own_pair),
    };
    return cmocka_run_group_tests_name("plan_names", tests, NULL, NULL);
}
