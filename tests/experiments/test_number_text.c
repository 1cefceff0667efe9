/* tests/experiments/test_number_text.c — the report's figures in plain
 * decimals: three significant digits, never exponent notation, and a share
 * too small to matter said as "<0.001 %". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sweep/number_text.h"

static void numbers_keep_their_digits_without_exponents(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(gar_number_text(0.0000728, 3, out, sizeof out), "0.0000728");
    assert_string_equal(gar_number_text(52.61, 3, out, sizeof out), "52.6");
    assert_string_equal(gar_number_text(100, 3, out, sizeof out), "100");
    assert_string_equal(gar_number_text(99.96, 3, out, sizeof out), "100");
    assert_string_equal(gar_number_text(0.5, 3, out, sizeof out), "0.5");
    assert_string_equal(gar_number_text(1234567, 3, out, sizeof out), "1234567");
    assert_string_equal(gar_number_text(0, 3, out, sizeof out), "0");
    assert_string_equal(gar_number_text(-0.0001234, 2, out, sizeof out), "-0.00012");
    assert_string_equal(gar_number_text(INFINITY, 3, out, sizeof out), "∞");
}

static void percents_below_a_thousandth_are_said_so(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(gar_percent_text(0.0000728, out, sizeof out), "<0.001 %");
    assert_string_equal(gar_percent_text(0.000999, out, sizeof out), "<0.001 %");
    assert_string_equal(gar_percent_text(0.001, out, sizeof out), "0.001 %");
    assert_string_equal(gar_percent_text(0.0551, out, sizeof out), "0.0551 %");
    assert_string_equal(gar_percent_text(0, out, sizeof out), "0 %");
    assert_string_equal(gar_percent_text(100, out, sizeof out), "100 %");
}

static void durations_take_a_readable_unit(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(gar_duration_text(553, out, sizeof out), "0.553 µs");
    assert_string_equal(gar_duration_text(17500, out, sizeof out), "17.5 µs");
    assert_string_equal(gar_duration_text(1.6e6, out, sizeof out), "1.6 ms");
    assert_string_equal(gar_duration_text(1e10, out, sizeof out), "10 s");
    assert_string_equal(gar_duration_text(INFINITY, out, sizeof out), "∞");
    /* %.3g wrote this one as "1e+04 ms". */
    assert_string_equal(gar_duration_text(9.9999e9, out, sizeof out), "10 s");
    char small[6];
    gar_duration_text(17500, small, sizeof small); /* cut, never overflowed */
    assert_int_equal(strlen(small), 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_keep_their_digits_without_exponents),
        cmocka_unit_test(percents_below_a_thousandth_are_said_so),
        cmocka_unit_test(durations_take_a_readable_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
