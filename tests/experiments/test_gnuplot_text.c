/* tests/experiments/test_gnuplot_text.c — names escaped for the quotes they
 * sit in print as they are: "hta_alexnet" stays one word, not "hta" with a
 * subscript, in single and in double quotes alike.  Checked on the escapes
 * and, where gnuplot is installed, on what gnuplot draws (its SVG terminal
 * writes enhanced text as plain text when nothing in it is markup). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/gnuplot_text.h"

static void single_quotes_take_one_backslash(void **state)
{
    (void)state;
    char out[128];
    gar_gnuplot_single("hta_alexnet", out, sizeof out);
    assert_string_equal(out, "hta\\_alexnet");
    gar_gnuplot_single("it's {x}^2 @a&b ~c \\d", out, sizeof out);
    assert_string_equal(out, "it''s \\{x\\}\\^2 \\@a\\&b \\~c \\\\d");
    gar_gnuplot_single("a\"b\nc", out, sizeof out);
    assert_string_equal(out, "a\"b c");
}

static void double_quotes_take_two(void **state)
{
    (void)state;
    char out[128];
    gar_gnuplot_double("hta_alexnet", out, sizeof out);
    assert_string_equal(out, "hta\\\\_alexnet");
    gar_gnuplot_double("it's \"q\" \\d", out, sizeof out);
    assert_string_equal(out, "it's \\\"q\\\" \\\\\\\\d");
}

static void a_cut_name_never_ends_inside_an_escape(void **state)
{
    (void)state;
    char out[5];
    /* "ab\_" takes 4 bytes and the NUL: "ab\_c" would need 6. */
    assert_int_equal(gar_gnuplot_single("ab_cd", out, sizeof out), 4);
    assert_string_equal(out, "ab\\_");
    char small[4];
    gar_gnuplot_double("a_b", small, sizeof small);
    assert_string_equal(small, "a");
}

/* What gnuplot draws: the title of each kind of quotes comes out whole. */
static void gnuplot_draws_the_names_as_they_are(void **state)
{
    (void)state;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        skip();
    char dir[] = "/tmp/gar-gptext-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], single[128], dbl[128];
    gar_gnuplot_single("hta_alexnet it's {a}", single, sizeof single);
    gar_gnuplot_double("gen_decode \"x\" @b", dbl, sizeof dbl);
    snprintf(path, sizeof path, "%s/t.gp", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "set terminal svg enhanced\nset output '%s/t.svg'\nset title '%s'\n"
               "set xlabel \"%s\"\nplot x notitle\n",
            dir, single, dbl);
    fclose(f);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", path);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "grep -q '>hta_alexnet it.s {a}</tspan>' '%s/t.svg' && "
             "grep -q '>gen_decode \"x\" @b</tspan>' '%s/t.svg'",
             dir, dir);
    int found = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(found, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(single_quotes_take_one_backslash),
        cmocka_unit_test(double_quotes_take_two),
        cmocka_unit_test(a_cut_name_never_ends_inside_an_escape),
        cmocka_unit_test(gnuplot_draws_the_names_as_they_are),
    };
    return cmocka_run_group_tests_name("gnuplot_text", tests, NULL, NULL);
}
