/* tests/core/test_plan.c — wait plans parse, label back exactly, refuse with
 * the first fault and resolve through the declared fallback chain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/plan.h>

#define FLAG "flag:park_us=100,backstop_us=1000"
#define PREDICT "+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"

static const gar_caps with_word_wait = { true, NULL, true, NULL };
static const gar_caps without_word_wait = { false, "CPU lacks WAITPKG and MONITORX", true, NULL };

static gar_plan parsed(const char *text)
{
    gar_plan plan;
    gar_error err;
    int rc = gar_plan_parse(text, &plan, &err);
    if (rc != 0) {
        char message[512];
        gar_error_message(&err, message, sizeof message);
        fail_msg("'%s' was refused: %s", text, message);
    }
    return plan;
}

static void assert_round_trip(const char *text)
{
    gar_plan plan = parsed(text);
    char label[GAR_PLAN_LABEL_BYTES];
    size_t n = gar_plan_label(&plan, label, sizeof label);
    assert_string_equal(label, text);
    assert_int_equal(n, strlen(text));
    gar_plan again = parsed(label);
    assert_true(gar_plan_equal(&plan, &again));
}

static void measured_arms_round_trip(void **state)
{
    (void)state;
    assert_round_trip("block");
    assert_round_trip("poll");
    assert_round_trip("poll" PREDICT);
    assert_round_trip(FLAG);
    assert_round_trip(FLAG PREDICT);
}

static void block_and_poll_carry_nothing_else(void **state)
{
    (void)state;
    gar_plan block = parsed("block");
    assert_int_equal(block.park, GAR_PARK_BLOCK);
    assert_false(block.predict);
    assert_false(block.fell_back);
    assert_int_equal(block.park_ns, 0);
    gar_plan poll = parsed("poll");
    assert_int_equal(poll.park, GAR_PARK_POLL);
    assert_false(poll.predict);
    assert_false(gar_plan_equal(&block, &poll));
}

static void values_are_stored_in_ns(void **state)
{
    (void)state;
    gar_plan flag = parsed(FLAG PREDICT);
    assert_int_equal(flag.park, GAR_PARK_FLAG);
    assert_int_equal(flag.park_ns, 100000);
    assert_int_equal(flag.backstop_ns, 1000000);
    assert_true(flag.predict);
    assert_int_equal(flag.deadline.margin_ns, 150000);
    assert_int_equal(flag.deadline.min_sleep_ns, 20000);
    assert_int_equal(flag.deadline.max_sleep_ns, 50000000);
    assert_int_equal(flag.deadline.window, 8);

    gar_plan poll = parsed("poll" PREDICT);
    assert_int_equal(poll.park, GAR_PARK_POLL);
    assert_true(poll.predict);
    assert_int_equal(poll.deadline.margin_ns, 150000);
    assert_int_equal(poll.deadline.window, 8);
    assert_false(gar_plan_equal(&flag, &poll));
}

static void bounds_are_inclusive(void **state)
{
    (void)state;
    assert_round_trip("flag:park_us=1,backstop_us=1");
    assert_round_trip("flag:park_us=10000,backstop_us=1000000");
    assert_round_trip("flag:park_us=7,backstop_us=7");
    assert_round_trip("poll+predict:margin_us=0,min_sleep_us=0,max_sleep_us=1,window=1");
    assert_round_trip("poll+predict:margin_us=10000000,min_sleep_us=10000000,"
                      "max_sleep_us=10000000,window=16");
    gar_plan longest = parsed("flag:park_us=10000,backstop_us=1000000+predict:margin_us=10000000,"
                              "min_sleep_us=10000000,max_sleep_us=10000000,window=16");
    assert_int_equal(longest.deadline.max_sleep_ns, UINT64_C(10000000000));
    gar_plan running;
    assert_int_equal(gar_plan_resolve(&longest, &without_word_wait, &running, NULL), 1);
    assert_true(gar_plan_label(&running, NULL, 0) < GAR_PLAN_LABEL_BYTES);
}

/* The text is refused with code 1 naming subject "plan", the text, and
 * exactly `fault`. */
static void assert_refused(const char *text, const char *fault)
{
    gar_plan plan;
    memset(&plan, 0x5a, sizeof plan);
    gar_plan untouched = plan;
    gar_error err;
    assert_int_equal(gar_plan_parse(text, &plan, &err), -GAR_E_INVALID_PLAN);
    assert_int_equal(err.code, GAR_E_INVALID_PLAN);
    assert_int_equal(err.argc, 3);
    assert_string_equal(err.argv[0], "plan");
    char shown[GAR_ERROR_ARG_BYTES];
    gar_error_show_bytes(text, strlen(text), shown, sizeof shown);
    assert_string_equal(err.argv[1], shown); /* the text as a message shows it */
    assert_string_equal(err.argv[2], fault);
    assert_memory_equal(&plan, &untouched, sizeof plan);
}

static void empty_and_unknown_parks_are_refused(void **state)
{
    (void)state;
    assert_refused("", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found the end");
    assert_refused("pol", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found 'pol'");
    assert_refused("Poll", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found 'Poll'");
    assert_refused("spin+predict:margin_us=1,min_sleep_us=1,max_sleep_us=1,window=1",
                   "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found 'spin'");
    assert_refused("+predict", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found '+'");
}

static void keys_are_all_written_once_in_order(void **state)
{
    (void)state;
    /* unknown key */
    assert_refused("flag:park_us=100,backstop=1000",
                   "at byte 17: expected key 'backstop_us', found 'backstop'");
    assert_refused("flag:park=100,backstop_us=1000",
                   "at byte 5: expected key 'park_us', found 'park'");
    /* missing key */
    assert_refused("flag:park_us=100", "at byte 16: missing key 'backstop_us', found the end");
    assert_refused("flag:backstop_us=1000",
                   "at byte 5: missing key 'park_us', found key 'backstop_us'");
    assert_refused("flag", "at byte 4: expected ':', found the end");
    assert_refused("flag+predict:margin_us=1,min_sleep_us=1,max_sleep_us=1,window=1",
                   "at byte 4: expected ':', found '+'");
    assert_refused("poll+predict:margin_us=150,min_sleep_us=20,window=8",
                   "at byte 43: missing key 'max_sleep_us', found key 'window'");
    assert_refused("poll+predict:margin_us=150", "at byte 26: missing key 'min_sleep_us', found the end");
    assert_refused("poll+predict:", "at byte 13: expected key 'margin_us', found the end");
    /* duplicate key */
    assert_refused("flag:park_us=100,park_us=100",
                   "at byte 17: duplicate key 'park_us', expected key 'backstop_us'");
    assert_refused(FLAG ",backstop_us=1000", "at byte 34: duplicate key 'backstop_us'");
    assert_refused("poll" PREDICT ",window=8", "at byte 71: duplicate key 'window'");
    /* out of order */
    assert_refused("flag:backstop_us=1000,park_us=100",
                   "at byte 5: key 'backstop_us' out of order, expected key 'park_us' first");
    assert_refused("poll+predict:margin_us=150,max_sleep_us=50000,min_sleep_us=20,window=8",
                   "at byte 27: key 'max_sleep_us' out of order, expected key 'min_sleep_us' first");
    /* separators */
    assert_refused("flag:park_us=100;backstop_us=1000",
                   "at byte 16: expected ',' before key 'backstop_us', found ';'");
    assert_refused("flag:park_us:100,backstop_us=1000",
                   "at byte 12: expected '=' after key 'park_us', found ':'");
    assert_refused("poll+predict=margin_us=1", "at byte 4: expected '+predict:', found '+predict='");
    assert_refused("poll+pred", "at byte 4: expected '+predict:', found '+pred' and the end");
}

static void numbers_are_plain_decimal(void **state)
{
    (void)state;
    assert_refused("flag:park_us=x,backstop_us=1000",
                   "at byte 13: expected a number for park_us, found 'x'");
    assert_refused("flag:park_us=-1,backstop_us=1000",
                   "at byte 13: expected a number for park_us, found '-'");
    assert_refused("flag:park_us=,backstop_us=1000",
                   "at byte 13: expected a number for park_us, found ','");
    assert_refused("flag:park_us=1e3,backstop_us=1000",
                   "at byte 14: expected ',' before key 'backstop_us', found 'e3'");
    assert_refused("flag:park_us=100,backstop_us=", "at byte 29: expected a number for backstop_us, found the end");
    /* leading zeros */
    assert_refused("flag:park_us=0100,backstop_us=1000",
                   "at byte 13: expected a number without leading zeros for park_us, found 0100");
    assert_refused("poll+predict:margin_us=00,min_sleep_us=0,max_sleep_us=1,window=1",
                   "at byte 23: expected a number without leading zeros for margin_us, found 00");
    /* overflow: beyond u64, and within u64 but beyond the bound */
    assert_refused("flag:park_us=18446744073709551616,backstop_us=1000",
                   "at byte 13: park_us must be 1..10000, found 18446744073709551616");
    assert_refused("flag:park_us=100,backstop_us=99999999999999999999999999999999",
                   "at byte 29: backstop_us must be 100..1000000, found 999999999999999999999999...");
    assert_refused("poll+predict:margin_us=18446744073709551,min_sleep_us=0,max_sleep_us=1,window=1",
                   "at byte 23: margin_us must be 0..10000000, found 18446744073709551");
}

static void values_out_of_bounds_are_refused(void **state)
{
    (void)state;
    assert_refused("flag:park_us=0,backstop_us=1000", "at byte 13: park_us must be 1..10000, found 0");
    assert_refused("flag:park_us=10001,backstop_us=1000000",
                   "at byte 13: park_us must be 1..10000, found 10001");
    assert_refused("flag:park_us=100,backstop_us=1000001",
                   "at byte 29: backstop_us must be 100..1000000, found 1000001");
    assert_refused("flag:park_us=100,backstop_us=99",
                   "at byte 29: backstop_us must be at least 100 (park_us), found 99");
    assert_refused("poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=0",
                   "at byte 69: window must be 1..16, found 0");
    assert_refused("poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=17",
                   "at byte 69: window must be 1..16, found 17");
    assert_refused("poll+predict:margin_us=150,min_sleep_us=0,max_sleep_us=0,window=8",
                   "at byte 55: max_sleep_us must be 1..10000000, found 0");
    assert_refused("poll+predict:margin_us=150,min_sleep_us=0,max_sleep_us=10000001,window=8",
                   "at byte 55: max_sleep_us must be 1..10000000, found 10000001");
    assert_refused("poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=19,window=8",
                   "at byte 56: max_sleep_us must be at least 20 (min_sleep_us), found 19");
    assert_refused("poll+predict:margin_us=10000001,min_sleep_us=20,max_sleep_us=50,window=8",
                   "at byte 23: margin_us must be 0..10000000, found 10000001");
    assert_refused("poll+predict:margin_us=1,min_sleep_us=10000001,max_sleep_us=50,window=8",
                   "at byte 38: min_sleep_us must be 0..10000000, found 10000001");
}

static void block_predict_trailing_junk_and_white_space_are_refused(void **state)
{
    (void)state;
    assert_refused("block" PREDICT, "at byte 5: 'block' takes no '+predict' (there is nothing to "
                                    "sleep in front of)");
    assert_refused("block:x", "at byte 5: expected the end, found ':'");
    assert_refused("blockade", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found 'blockade'");
    assert_refused("poll;", "at byte 4: expected '+predict:' or the end, found ';'");
    assert_refused(FLAG "x", "at byte 33: expected '+predict:' or the end, found 'x'");
    assert_refused("poll" PREDICT "x", "at byte 70: expected the end, found 'x'");
    assert_refused("poll" PREDICT "+predict:margin_us=1",
                   "at byte 70: expected the end, found '+'");
    assert_refused(" poll", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), found white space");
    assert_refused("poll ", "at byte 4: expected '+predict:' or the end, found white space");
    assert_refused("block\n", "at byte 5: expected the end, found white space");
    assert_refused("flag:park_us =100,backstop_us=1000",
                   "at byte 12: expected '=' after key 'park_us', found white space");
    assert_refused("flag:park_us= 100,backstop_us=1000",
                   "at byte 13: expected a number for park_us, found white space");
    assert_refused("flag:park_us=100, backstop_us=1000",
                   "at byte 17: expected key 'backstop_us', found white space");
    assert_refused("poll\x01", "at byte 4: expected '+predict:' or the end, found byte 0x01");
    assert_refused("poll\xc3\xa9", "at byte 4: expected '+predict:' or the end, found byte 0xc3");
    /* A word with bytes outside ASCII is quoted whole, from its start. */
    assert_refused("fl\xc3\xa9g", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), "
                                  "found 'fl\xc3\xa9g'");
    assert_refused("fl\xff" "g", "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), "
                             "found 'fl\\xffg'");
}

static void spans_stop_at_their_length_and_name_their_subject(void **state)
{
    (void)state;
    gar_plan plan;
    gar_error err;
    assert_int_equal(gar_plan_parse_span("poll;rows>=2:block", 4, "band 1 plan", &plan, &err), 0);
    assert_int_equal(plan.park, GAR_PARK_POLL);
    const char nul_inside[] = "poll\0x";
    assert_int_equal(gar_plan_parse_span(nul_inside, 6, "band 3 plan", &plan, &err),
                     -GAR_E_INVALID_PLAN);
    assert_string_equal(err.argv[0], "band 3 plan");
    assert_string_equal(err.argv[1], "poll\\x00x");
    assert_string_equal(err.argv[2], "at byte 4: expected '+predict:' or the end, found byte 0x00");
    char message[256];
    gar_error_message(&err, message, sizeof message);
    assert_string_equal(message, "invalid band 3 plan 'poll\\x00x': at byte 4: expected '+predict:' or "
                                 "the end, found byte 0x00");
}

static void null_arguments_are_refused(void **state)
{
    (void)state;
    gar_plan plan;
    gar_error err;
    assert_int_equal(gar_plan_parse(NULL, &plan, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_plan_parse("poll", NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_plan_parse("poll", &plan, NULL), 0);
    assert_int_equal(gar_plan_parse("pol", &plan, NULL), -GAR_E_INVALID_PLAN);
    assert_int_equal(gar_plan_resolve(NULL, &with_word_wait, &plan, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_plan_resolve(&plan, NULL, &plan, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_plan_resolve(&plan, &with_word_wait, NULL, &err), -GAR_E_INVALID_ARGUMENT);
}

static void long_texts_are_cut_in_the_error(void **state)
{
    (void)state;
    char text[600];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    gar_plan plan;
    gar_error err;
    assert_int_equal(gar_plan_parse(text, &plan, &err), -GAR_E_INVALID_PLAN);
    assert_int_equal(strlen(err.argv[1]), GAR_ERROR_ARG_BYTES - 1);
    assert_memory_equal(err.argv[1] + GAR_ERROR_ARG_BYTES - 4, "...", 4);
    assert_string_equal(err.argv[2], "at byte 0: expected a park ('block', 'poll', 'flag' or 'auto'), "
                                     "found 'aaaaaaaaaaaaaaaaaaaaaaaa'...");
}

static void label_truncates_like_snprintf(void **state)
{
    (void)state;
    gar_plan plan = parsed(FLAG);
    char small[8];
    size_t need = gar_plan_label(&plan, small, sizeof small);
    assert_int_equal(need, strlen(FLAG));
    assert_string_equal(small, "flag:pa");
    assert_int_equal(gar_plan_label(NULL, small, sizeof small), 0);
    assert_string_equal(small, "");
}

static void flag_falls_back_to_poll_keeping_predict(void **state)
{
    (void)state;
    gar_plan asked = parsed(FLAG PREDICT);
    gar_plan running;
    gar_error warning;
    assert_int_equal(gar_plan_resolve(&asked, &without_word_wait, &running, &warning), 1);
    assert_int_equal(running.park, GAR_PARK_POLL);
    assert_true(running.fell_back);
    assert_int_equal(running.requested_park, GAR_PARK_FLAG);
    assert_true(running.predict);
    assert_int_equal(running.deadline.margin_ns, 150000);
    assert_int_equal(running.deadline.window, 8);
    assert_int_equal(running.park_ns, 100000);

    char label[GAR_PLAN_LABEL_BYTES];
    gar_plan_label(&running, label, sizeof label);
    assert_string_equal(label, "poll" PREDICT " (fallback from flag)");

    assert_int_equal(warning.code, GAR_W_PARK_FALLBACK);
    assert_int_equal(warning.argc, 4);
    assert_string_equal(warning.argv[0], FLAG PREDICT);
    assert_string_equal(warning.argv[1], "word-wait");
    assert_string_equal(warning.argv[2], "CPU lacks WAITPKG and MONITORX");
    assert_string_equal(warning.argv[3], "poll" PREDICT);

    gar_plan plain = parsed(FLAG);
    assert_int_equal(gar_plan_resolve(&plain, &without_word_wait, &running, &warning), 1);
    char text[512];
    gar_error_format(&warning, text, sizeof text);
    assert_string_equal(text, "warning 2 (ParkFallback): plan '" FLAG "' needs word-wait, which "
                              "this host lacks (CPU lacks WAITPKG and MONITORX); running 'poll'");
    gar_plan_label(&running, label, sizeof label);
    assert_string_equal(label, "poll (fallback from flag)");
}

static void resolving_runs_as_asked_where_it_can(void **state)
{
    (void)state;
    const char *texts[] = { "block", "poll", "poll" PREDICT, FLAG, FLAG PREDICT };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        gar_plan asked = parsed(texts[i]);
        gar_plan running;
        gar_error warning;
        gar_error_set(&warning, GAR_E_STALLED, 1, "stale");
        assert_int_equal(gar_plan_resolve(&asked, &with_word_wait, &running, &warning), 0);
        assert_int_equal(warning.code, GAR_OK);
        assert_true(gar_plan_equal(&asked, &running));
        char label[GAR_PLAN_LABEL_BYTES];
        gar_plan_label(&running, label, sizeof label);
        assert_string_equal(label, texts[i]);
        if (asked.park != GAR_PARK_FLAG) {
            assert_int_equal(gar_plan_resolve(&asked, &without_word_wait, &running, &warning), 0);
            assert_true(gar_plan_equal(&asked, &running));
        }
    }
}

static void resolving_a_resolved_plan_changes_nothing(void **state)
{
    (void)state;
    gar_plan plan = parsed(FLAG);
    assert_int_equal(gar_plan_resolve(&plan, &without_word_wait, &plan, NULL), 1);
    gar_plan once = plan;
    assert_int_equal(gar_plan_resolve(&plan, &with_word_wait, &plan, NULL), 0);
    assert_true(gar_plan_equal(&plan, &once));
    assert_true(plan.fell_back);
}

static void missing_reasons_are_named(void **state)
{
    (void)state;
    gar_caps no_reason = { false, NULL, false, NULL };
    gar_plan plan = parsed(FLAG);
    gar_error warning;
    assert_int_equal(gar_plan_resolve(&plan, &no_reason, &plan, &warning), 1);
    assert_string_equal(warning.argv[2], "no reason given");
}

static void invalid_plans_are_refused_by_resolve(void **state)
{
    (void)state;
    gar_plan plan = parsed(FLAG PREDICT);
    gar_plan bad = plan;
    bad.park_ns = 100500; /* not whole µs: no text says it */
    gar_plan running;
    gar_error err;
    assert_int_equal(gar_plan_resolve(&bad, &with_word_wait, &running, &err), -GAR_E_INVALID_ARGUMENT);
    bad = plan;
    bad.deadline.window = 0;
    assert_int_equal(gar_plan_resolve(&bad, &with_word_wait, &running, &err), -GAR_E_INVALID_ARGUMENT);
    bad = parsed("block");
    bad.predict = true;
    bad.deadline = plan.deadline;
    assert_int_equal(gar_plan_resolve(&bad, &with_word_wait, &running, &err), -GAR_E_INVALID_ARGUMENT);
    bad = plan;
    bad.park = (gar_park)7;
    assert_int_equal(gar_plan_resolve(&bad, &with_word_wait, &running, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "requested");
}

static void parks_are_named_as_plans_spell_them(void **state)
{
    (void)state;
    assert_string_equal(gar_park_name(GAR_PARK_BLOCK), "block");
    assert_string_equal(gar_park_name(GAR_PARK_POLL), "poll");
    assert_string_equal(gar_park_name(GAR_PARK_FLAG), "flag");
    assert_string_equal(gar_park_name(GAR_PARK_AUTO), "auto");
    assert_string_equal(gar_park_name((gar_park)4), "?");
    assert_string_equal(gar_park_name((gar_park)-1), "?");
}

static void auto_parses_labels_back_and_resolves_everywhere(void **state)
{
    (void)state;
    assert_round_trip("auto:p99_us=20");
    assert_round_trip("auto:p99_us=1");
    assert_round_trip("auto:p99_us=1000000");
    gar_plan plan = parsed("auto:p99_us=20");
    assert_int_equal(plan.park, GAR_PARK_AUTO);
    assert_int_equal(plan.budget_ns, 20000);
    assert_false(plan.predict);
    assert_false(gar_plan_equal(&plan, &(gar_plan){ .park = GAR_PARK_AUTO, .budget_ns = 5000 }));
    /* A rule, not a park: every host runs it as asked, whatever its caps. */
    const gar_caps *caps[] = { &with_word_wait, &without_word_wait };
    for (size_t i = 0; i < 2; i++) {
        gar_plan running;
        gar_error warning;
        assert_int_equal(gar_plan_resolve(&plan, caps[i], &running, &warning), 0);
        assert_int_equal(warning.code, GAR_OK);
        assert_true(gar_plan_equal(&plan, &running));
    }
}

static void auto_refusals_name_the_fault(void **state)
{
    (void)state;
    assert_refused("auto", "at byte 4: expected ':', found the end");
    assert_refused("auto:", "at byte 5: expected key 'p99_us', found the end");
    assert_refused("auto:p99_us=0", "at byte 12: p99_us must be 1..1000000, found 0");
    assert_refused("auto:p99_us=1000001", "at byte 12: p99_us must be 1..1000000, found 1000001");
    assert_refused("auto:p99_us=020", "at byte 12: expected a number without leading zeros for p99_us, found 020");
    /* A fraction is named as one, with the whole-µs bounds (not "found 0"). */
    assert_refused("auto:p99_us=0.5",
                   "at byte 12: p99_us takes whole microseconds from 1 to 1000000, found 0.5");
    assert_refused("auto:p99_us=2.",
                   "at byte 12: p99_us takes whole microseconds from 1 to 1000000, found 2.");
    assert_refused("flag:park_us=100,backstop_us=150.25",
                   "at byte 29: backstop_us takes whole microseconds from 100 to 1000000, "
                   "found 150.25");
    assert_refused("poll+predict:margin_us=1,min_sleep_us=2,max_sleep_us=3,window=2.5",
                   "at byte 62: window takes a whole number from 1 to 16, found 2.5");
    assert_refused("auto:p99=20", "at byte 5: expected key 'p99_us', found 'p99'");
    assert_refused("auto:p99_us=20,p99_us=20", "at byte 15: duplicate key 'p99_us'");
    assert_refused("auto:p99_us=20" PREDICT,
                   "at byte 14: 'auto' takes no '+predict' (it decides its own sleep)");
    assert_refused("auto:p99_us=20 ", "at byte 14: expected the end, found white space");
    /* An auto plan whose budget no text gives is not resolved. */
    gar_plan bad = { .park = GAR_PARK_AUTO, .budget_ns = 1500 };
    gar_plan running;
    assert_int_equal(gar_plan_resolve(&bad, &with_word_wait, &running, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    bad.budget_ns = 0;
    assert_int_equal(gar_plan_resolve(&bad, &with_word_wait, &running, NULL),
                     -GAR_E_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(measured_arms_round_trip),
        cmocka_unit_test(block_and_poll_carry_nothing_else),
        cmocka_unit_test(values_are_stored_in_ns),
        cmocka_unit_test(bounds_are_inclusive),
        cmocka_unit_test(empty_and_unknown_parks_are_refused),
        cmocka_unit_test(keys_are_all_written_once_in_order),
        cmocka_unit_test(numbers_are_plain_decimal),
        cmocka_unit_test(values_out_of_bounds_are_refused),
        cmocka_unit_test(block_predict_trailing_junk_and_white_space_are_refused),
        cmocka_unit_test(spans_stop_at_their_length_and_name_their_subject),
        cmocka_unit_test(null_arguments_are_refused),
        cmocka_unit_test(long_texts_are_cut_in_the_error),
        cmocka_unit_test(label_truncates_like_snprintf),
        cmocka_unit_test(flag_falls_back_to_poll_keeping_predict),
        cmocka_unit_test(resolving_runs_as_asked_where_it_can),
        cmocka_unit_test(resolving_a_resolved_plan_changes_nothing),
        cmocka_unit_test(missing_reasons_are_named),
        cmocka_unit_test(invalid_plans_are_refused_by_resolve),
        cmocka_unit_test(parks_are_named_as_plans_spell_them),
        cmocka_unit_test(auto_parses_labels_back_and_resolves_everywhere),
        cmocka_unit_test(auto_refusals_name_the_fault),
    };
    return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
