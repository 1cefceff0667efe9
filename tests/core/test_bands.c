/* tests/core/test_bands.c — bands select by step size, label back exactly,
 * refuse bad edges and segments, resolve band by band; the step-rows cell. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/bands.h>

#define FLAGDL                                                                                    \
    "flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000," \
    "window=8"

static const gar_caps with_word_wait = { true, NULL, true, NULL };
static const gar_caps without_word_wait = { false, "no word-wait probe in this build", true, NULL };

static gar_bands parsed(const char *text)
{
    gar_bands bands;
    gar_error err;
    if (gar_bands_parse(text, &bands, &err) != 0) {
        char message[512];
        gar_error_message(&err, message, sizeof message);
        fail_msg("'%s' was refused: %s", text, message);
    }
    char label[GAR_BANDS_LABEL_BYTES];
    size_t n = gar_bands_label(&bands, label, sizeof label);
    assert_string_equal(label, text);
    assert_int_equal(n, strlen(text));
    return bands;
}

static gar_plan plan_of(const char *text)
{
    gar_plan plan;
    assert_int_equal(gar_plan_parse(text, &plan, NULL), 0);
    return plan;
}

static void assert_selects(const gar_bands *bands, uint32_t rows, const char *text)
{
    gar_plan expected = plan_of(text);
    const gar_plan *selected = gar_bands_select(bands, rows);
    assert_non_null(selected);
    if (!gar_plan_equal(selected, &expected))
        fail_msg("rows %u did not select '%s'", (unsigned)rows, text);
}

static void a_plan_text_is_one_band(void **state)
{
    (void)state;
    const char *texts[] = { "block", "poll", "flag:park_us=100,backstop_us=1000" };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        gar_bands bands = parsed(texts[i]);
        assert_int_equal(bands.count, 1);
        assert_int_equal(bands.band[0].first_rows, 0);
        assert_selects(&bands, 0, texts[i]);
        assert_selects(&bands, UINT32_MAX, texts[i]);
    }
}

static void two_bands_select_by_rows(void **state)
{
    (void)state;
    gar_bands bands = parsed("block;rows>=32:" FLAGDL);
    assert_int_equal(bands.count, 2);
    assert_int_equal(bands.band[1].first_rows, 32);
    const uint32_t small[] = { 0, 1, 4, 8, 16, 17, 31 };
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        assert_selects(&bands, small[i], "block");
    const uint32_t large[] = { 32, 33, 64, 128, UINT32_MAX };
    for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
        assert_selects(&bands, large[i], FLAGDL);
}

static void three_bands_select_by_rows(void **state)
{
    (void)state;
    gar_bands bands = parsed("block;rows>=2:poll;rows>=5:" FLAGDL);
    assert_int_equal(bands.count, 3);
    const char *expected[] = { "block", "block", "poll", "poll", "poll", FLAGDL, FLAGDL };
    for (uint32_t rows = 0; rows < 7; rows++)
        assert_selects(&bands, rows, expected[rows]);
}

static void four_bands_and_extreme_edges(void **state)
{
    (void)state;
    gar_bands bands = parsed("poll;rows>=1:block;rows>=4294967294:" FLAGDL ";rows>=4294967295:poll");
    assert_int_equal(bands.count, GAR_BANDS_MAX);
    assert_selects(&bands, 0, "poll");
    assert_selects(&bands, 1, "block");
    assert_selects(&bands, 4294967293u, "block");
    assert_selects(&bands, 4294967294u, FLAGDL);
    assert_selects(&bands, UINT32_MAX, "poll");
    assert_true(gar_bands_equal(&bands, &bands));
    gar_bands other = parsed("poll;rows>=1:block;rows>=4294967293:" FLAGDL ";rows>=4294967295:poll");
    assert_false(gar_bands_equal(&bands, &other));
}

static void assert_refused(const char *text, const char *subject, const char *shown,
                           const char *fault)
{
    gar_bands bands;
    memset(&bands, 0x5a, sizeof bands);
    gar_bands untouched = bands;
    gar_error err;
    assert_int_equal(gar_bands_parse(text, &bands, &err), -GAR_E_INVALID_PLAN);
    assert_int_equal(err.code, GAR_E_INVALID_PLAN);
    assert_string_equal(err.argv[0], subject);
    assert_string_equal(err.argv[1], shown);
    assert_string_equal(err.argv[2], fault);
    assert_memory_equal(&bands, &untouched, sizeof bands);
}

static void the_first_band_has_no_edge(void **state)
{
    (void)state;
    assert_refused("rows>=0:block", "bands", "rows>=0:block",
                   "at byte 0: band 1 starts at 0 rows and states no edge, found 'rows>='");
    assert_refused("rows>=32:block;rows>=64:poll", "bands", "rows>=32:block;rows>=64:poll",
                   "at byte 0: band 1 starts at 0 rows and states no edge, found 'rows>='");
}

static void edges_strictly_increase(void **state)
{
    (void)state;
    assert_refused("block;rows>=0:poll", "bands", "block;rows>=0:poll",
                   "at byte 12: band 2 edge must be at least 1 (edges strictly increase), found 0");
    assert_refused("block;rows>=8:poll;rows>=8:block", "bands", "block;rows>=8:poll;rows>=8:block",
                   "at byte 25: band 3 edge must be at least 9 (edges strictly increase), found 8");
    assert_refused("block;rows>=8:poll;rows>=4:block", "bands", "block;rows>=8:poll;rows>=4:block",
                   "at byte 25: band 3 edge must be at least 9 (edges strictly increase), found 4");
    assert_refused("block;rows>=4294967296:poll", "bands", "block;rows>=4294967296:poll",
                   "at byte 12: band 2 edge must be 1..4294967295, found 4294967296");
    assert_refused("block;rows>=4294967295:poll;rows>=4294967296:poll", "bands",
                   "block;rows>=4294967295:poll;rows>=4294967296:poll",
                   "at byte 34: band 3 cannot start above 4294967295 rows");
    assert_refused("block;rows>=08:poll", "bands", "block;rows>=08:poll",
                   "at byte 12: expected a number without leading zeros for band 2 edge, found 08");
    assert_refused("block;rows>=x:poll", "bands", "block;rows>=x:poll",
                   "at byte 12: expected a number for band 2 edge, found 'x'");
    assert_refused("block;rows>=2poll", "bands", "block;rows>=2poll",
                   "at byte 13: expected ':', found 'p'");
    assert_refused("block;rows>2:poll", "bands", "block;rows>2:poll",
                   "at byte 6: expected 'rows>=', found 'rows>2'");
    assert_refused("block;rows >=2:poll", "bands", "block;rows >=2:poll",
                   "at byte 6: expected 'rows>=', found 'rows >'");
}

static void at_most_four_bands(void **state)
{
    (void)state;
    const char *five = "block;rows>=1:poll;rows>=2:block;rows>=3:poll;rows>=4:block";
    assert_refused(five, "bands", five, "at byte 45: more than 4 bands");
}

static void empty_segments_are_refused(void **state)
{
    (void)state;
    assert_refused("poll;", "bands", "poll;", "at byte 5: expected 'rows>=', found the end");
    assert_refused(";rows>=2:poll", "bands", ";rows>=2:poll",
                   "at byte 0: expected band 1's plan, found ';'");
    assert_refused("poll;;rows>=2:poll", "bands", "poll;;rows>=2:poll",
                   "at byte 5: expected 'rows>=', found ';rows>'");
    assert_refused("poll;rows>=2:", "bands", "poll;rows>=2:",
                   "at byte 13: expected band 2's plan, found the end");
    assert_refused("poll;rows>=2:;rows>=3:block", "bands", "poll;rows>=2:;rows>=3:block",
                   "at byte 13: expected band 2's plan, found ';'");
    /* One band is a plan text, refused as one. */
    assert_refused("", "plan", "", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found the end");
}

static void a_band_plan_is_refused_in_its_own_words(void **state)
{
    (void)state;
    assert_refused("block;rows>=32:flag:park_us=0,backstop_us=1000", "band 2 plan",
                   "flag:park_us=0,backstop_us=1000", "at byte 13: park_us must be 1..10000, found 0");
    assert_refused("pol;rows>=32:block", "band 1 plan", "pol",
                   "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found 'pol'");
    assert_refused("block+predict:margin_us=1,min_sleep_us=1,max_sleep_us=1,window=1;rows>=2:poll",
                   "band 1 plan", "block+predict:margin_us=1,min_sleep_us=1,max_sleep_us=1,window=1",
                   "at byte 5: 'block' takes no '+predict' (there is nothing to sleep in front of)");
    /* One band is a plan text and is refused as one. */
    assert_refused("pol", "plan", "pol",
                   "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found 'pol'");
    assert_refused("poll rows>=2:block", "plan", "poll rows>=2:block",
                   "at byte 4: expected '+predict:' or the end, found white space");
}

static void resolve_goes_band_by_band(void **state)
{
    (void)state;
    gar_bands asked = parsed("block;rows>=2:poll;rows>=5:" FLAGDL);
    gar_bands running;
    gar_error warning;
    assert_int_equal(gar_bands_resolve(&asked, &with_word_wait, &running, &warning), 0);
    assert_int_equal(warning.code, GAR_OK);
    assert_true(gar_bands_equal(&asked, &running));

    assert_int_equal(gar_bands_resolve(&asked, &without_word_wait, &running, &warning), 1);
    char label[GAR_BANDS_LABEL_BYTES];
    gar_bands_label(&running, label, sizeof label);
    assert_string_equal(label, "block;rows>=2:poll;rows>=5:poll+predict:margin_us=150,min_sleep_us=20,"
                               "max_sleep_us=50000,window=8 (fallback from flag)");
    assert_int_equal(warning.code, GAR_W_PARK_FALLBACK);
    assert_string_equal(warning.argv[0], "block;rows>=2:poll;rows>=5:" FLAGDL);
    assert_string_equal(warning.argv[1], "word-wait");
    assert_string_equal(warning.argv[2], "no word-wait probe in this build");
    assert_string_equal(warning.argv[3], "block;rows>=2:poll;rows>=5:poll+predict:margin_us=150,"
                                         "min_sleep_us=20,max_sleep_us=50000,window=8");
    const gar_plan *selected = gar_bands_select(&running, 5);
    assert_int_equal(selected->park, GAR_PARK_POLL);
    assert_true(selected->fell_back);
    assert_true(selected->predict);
    assert_int_equal(gar_bands_select(&running, 4)->park, GAR_PARK_POLL);
    assert_false(gar_bands_select(&running, 4)->fell_back);

    gar_bands plain = parsed("poll;rows>=2:block");
    assert_int_equal(gar_bands_resolve(&plain, &without_word_wait, &plain, &warning), 0);
}

static void resolve_refuses_invalid_bands(void **state)
{
    (void)state;
    gar_bands bands = parsed("block;rows>=2:poll");
    gar_bands running;
    gar_error err;
    gar_bands bad = bands;
    bad.band[1].first_rows = 0;
    assert_int_equal(gar_bands_resolve(&bad, &with_word_wait, &running, &err), -GAR_E_INVALID_ARGUMENT);
    bad = bands;
    bad.count = 0;
    assert_int_equal(gar_bands_resolve(&bad, &with_word_wait, &running, &err), -GAR_E_INVALID_ARGUMENT);
    bad = bands;
    bad.band[1].plan.park = (gar_park)9;
    assert_int_equal(gar_bands_resolve(&bad, &with_word_wait, &running, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_bands_resolve(NULL, &with_word_wait, &running, &err), -GAR_E_INVALID_ARGUMENT);
    assert_null(gar_bands_select(NULL, 3));
    assert_int_equal(gar_bands_parse(NULL, &running, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_bands_parse("poll", NULL, &err), -GAR_E_INVALID_ARGUMENT);
}

static void the_longest_label_fits(void **state)
{
    (void)state;
    const char *longest = "flag:park_us=10000,backstop_us=1000000+predict:margin_us=10000000,"
                          "min_sleep_us=10000000,max_sleep_us=10000000,window=16";
    char text[2048];
    strcpy(text, longest);
    const char *edges[] = { ";rows>=4294967293:", ";rows>=4294967294:", ";rows>=4294967295:" };
    for (size_t i = 0; i < 3; i++) {
        strcat(text, edges[i]);
        strcat(text, longest);
    }
    gar_bands bands = parsed(text);
    assert_int_equal(gar_bands_resolve(&bands, &without_word_wait, &bands, NULL), 1);
    assert_true(gar_bands_label(&bands, NULL, 0) < GAR_BANDS_LABEL_BYTES);
}

static void step_rows_is_zero_until_published(void **state)
{
    (void)state;
    static gar_step_rows shared = GAR_STEP_ROWS_INIT;
    assert_int_equal(gar_step_rows_read(&shared), 0);
    gar_step_rows cell;
    gar_step_rows_init(&cell);
    assert_int_equal(gar_step_rows_read(&cell), 0);
    gar_bands bands = parsed("block;rows>=32:" FLAGDL);
    assert_int_equal(gar_bands_select(&bands, gar_step_rows_read(&cell))->park, GAR_PARK_BLOCK);
    gar_step_rows_publish(&cell, 48);
    assert_int_equal(gar_step_rows_read(&cell), 48);
    assert_int_equal(gar_bands_select(&bands, gar_step_rows_read(&cell))->park, GAR_PARK_FLAG);
    gar_step_rows_publish(&cell, UINT32_MAX);
    assert_int_equal(gar_step_rows_read(&cell), UINT32_MAX);
    gar_step_rows_publish(&cell, 3);
    assert_int_equal(gar_step_rows_read(&cell), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_plan_text_is_one_band),
        cmocka_unit_test(two_bands_select_by_rows),
        cmocka_unit_test(three_bands_select_by_rows),
        cmocka_unit_test(four_bands_and_extreme_edges),
        cmocka_unit_test(the_first_band_has_no_edge),
        cmocka_unit_test(edges_strictly_increase),
        cmocka_unit_test(at_most_four_bands),
        cmocka_unit_test(empty_segments_are_refused),
        cmocka_unit_test(a_band_plan_is_refused_in_its_own_words),
        cmocka_unit_test(resolve_goes_band_by_band),
        cmocka_unit_test(resolve_refuses_invalid_bands),
        cmocka_unit_test(the_longest_label_fits),
        cmocka_unit_test(step_rows_is_zero_until_published),
    };
    return cmocka_run_group_tests_name("bands", tests, NULL, NULL);
}
