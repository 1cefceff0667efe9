/* tests/experiments/test_plot_coincident.c — which points of a pareto
 * panel hide each other: those within GAR_PLOT_COINCIDENT_PX on the drawn
 * panel, log axes read as drawn, each group named by a tag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/plot_coincident.h"

/* A 400 x 300 px panel over 1 .. 1000 µs (log) and 0.01 .. 100 % (log):
 * 133 px a decade across, 75 px a decade up. */
static const gar_plot_axes panel = { 1, 1000, 0.01, 100, true, 400, 300 };

static void equal_and_near_points_share_a_group(void **state)
{
    (void)state;
    /* 0 and 1 equal; 2 a hair beside them (1 % in x: under 1 px); 3 a
     * decade away; 4 equal to 3. */
    double x[] = { 10, 10, 10.1, 100, 100 };
    double y[] = { 5, 5, 5, 5, 5 };
    size_t group[5];
    assert_int_equal(gar_plot_coincident(x, y, 5, &panel, group), 2);
    assert_int_equal(group[0], 0);
    assert_int_equal(group[1], 0);
    assert_int_equal(group[2], 0);
    assert_int_equal(group[3], 1);
    assert_int_equal(group[4], 1);
}

static void points_apart_on_the_panel_stay_apart(void **state)
{
    (void)state;
    /* 10 % apart in x is 5.5 px on this panel: together; 12 % is 6.6 px:
     * apart.  On a linear y axis 0..100 % over 300 px, 1 % is 3 px. */
    double x[] = { 10, 11, 10, 11.2 };
    double y[] = { 1, 1, 50, 50 };
    size_t group[4];
    gar_plot_axes linear = panel;
    linear.log_y = false;
    linear.y_lo = 0;
    assert_int_equal(gar_plot_coincident(x, y, 2, &panel, group), 1);
    assert_int_equal(gar_plot_coincident(x + 2, y + 2, 2, &panel, group), 2);
    double near_y[] = { 50, 51 };
    double same_x[] = { 10, 10 };
    assert_int_equal(gar_plot_coincident(same_x, near_y, 2, &linear, group), 1);
    double far_y[] = { 50, 53 };
    assert_int_equal(gar_plot_coincident(same_x, far_y, 2, &linear, group), 2);
}

static void tags_run_a_to_z_then_aa(void **state)
{
    (void)state;
    char tag[8];
    gar_plot_tag(0, tag, sizeof tag);
    assert_string_equal(tag, "a");
    gar_plot_tag(25, tag, sizeof tag);
    assert_string_equal(tag, "z");
    gar_plot_tag(26, tag, sizeof tag);
    assert_string_equal(tag, "aa");
    gar_plot_tag(27, tag, sizeof tag);
    assert_string_equal(tag, "ab");
    gar_plot_tag(26 + 26 * 26, tag, sizeof tag);
    assert_string_equal(tag, "aaa");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_and_near_points_share_a_group),
        cmocka_unit_test(points_apart_on_the_panel_stay_apart),
        cmocka_unit_test(tags_run_a_to_z_then_aa),
    };
    return cmocka_run_group_tests_name("plot_coincident", tests, NULL, NULL);
}
