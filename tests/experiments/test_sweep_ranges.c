/* tests/experiments/test_sweep_ranges.c — ranges in sweep specs: `{a,b}`
 * lists and `{lo..hi..step}` ranges expand to the cross product, each run
 * knows its swept parameters, and every malformed range is refused with the
 * spec's place before anything is expanded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/alloc.h"
#include "sweep/sweep_spec.h"

static int parse(const char *text, gar_sweep_spec *spec, gar_error *err)
{
    return gar_sweep_spec_parse(text, strlen(text), "t.sweep", GAR_DATA_DIR, spec, err);
}

static const char *message_of(const gar_error *err)
{
    static char text[1024];
    gar_error_message(err, text, sizeof text);
    return text;
}

static const char *param_value(const gar_sweep_params *p, const char *name)
{
    for (unsigned i = 0; i < p->count; i++)
        if (strcmp(p->param[i].name, name) == 0)
            return p->param[i].value;
    return NULL;
}

/* The example: 3 park bounds x 6 margins x 4 windows. */
static void the_example_is_seventy_two_plans(void **state)
{
    (void)state;
    const char *text =
        "gar-sweep v1\n"
        "trace gen:steady:waits=10,seed=1\n"
        "plan flag:park_us={50,100,200},backstop_us=1000+predict:margin_us={50..300..50},"
        "min_sleep_us=20,max_sleep_us=50000,window={1,4,8,16}\n"
        "estimator adl\n"
        "host hosts/dev-vm.host\n"
        "mode open\n"
        "seed 1\n";
    gar_sweep_spec spec;
    gar_error err;
    if (parse(text, &spec, &err) != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(spec.plan_count, 72);
    assert_int_equal(spec.runs, 72);
    /* The last group varies fastest, as if written out in order. */
    const gar_sweep_params *first = &spec.plans[0].params, *second = &spec.plans[1].params,
                           *last = &spec.plans[71].params;
    assert_int_equal(first->count, 3);
    assert_string_equal(param_value(first, "park_us"), "50");
    assert_string_equal(param_value(first, "margin_us"), "50");
    assert_string_equal(param_value(first, "window"), "1");
    assert_string_equal(param_value(second, "window"), "4");
    assert_string_equal(param_value(last, "park_us"), "200");
    assert_string_equal(param_value(last, "margin_us"), "300");
    assert_string_equal(param_value(last, "window"), "16");
    assert_non_null(strstr(spec.plans[71].label, "park_us=200"));
    assert_non_null(strstr(spec.plans[71].label, "margin_us=300"));
    /* The dry-run's account: three groups, their sizes and line. */
    assert_int_equal(spec.swept_count, 3);
    assert_string_equal(spec.swept[1].name, "margin_us");
    assert_int_equal(spec.swept[1].values, 6);
    assert_int_equal(spec.swept[1].line, 3);
    assert_string_equal(spec.swept[1].keyword, "plan");
    gar_sweep_spec_free(&spec);
}

typedef struct collected {
    char values[32][GAR_SWEEP_PARAM_VALUE_BYTES];
    char texts[32][128];
    size_t count;
} collected;

static int collect(const char *value, const gar_sweep_params *params, void *context)
{
    collected *c = context;
    if (c->count == 32)
        return -1;
    snprintf(c->texts[c->count], sizeof c->texts[0], "%s", value);
    snprintf(c->values[c->count], sizeof c->values[0], "%s",
             params->count > 0 ? params->param[0].value : "");
    c->count++;
    return 0;
}

static void expand_into(const char *value, collected *c)
{
    memset(c, 0, sizeof *c);
    gar_error err;
    uint64_t n = 0;
    if (gar_sweep_expand(value, "plan", "t.sweep:1", NULL, NULL, &n, &err) != 0)
        fail_msg("%s", message_of(&err));
    if (gar_sweep_expand(value, "plan", "t.sweep:1", collect, c, NULL, &err) != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(n, c->count); /* counting agrees with expanding */
}

static void ranges_step_exactly_in_decimals(void **state)
{
    (void)state;
    collected c;
    expand_into("x={0.5..2..0.25}", &c);
    static const char *const quarters[] = { "0.5", "0.75", "1", "1.25", "1.5", "1.75", "2" };
    assert_int_equal(c.count, 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(c.values[i], quarters[i]);
    assert_string_equal(c.texts[2], "x=1");
    /* hi is a bound, not a promise: 1, 5, 9. */
    expand_into("n={1..10..4}", &c);
    assert_int_equal(c.count, 3);
    assert_string_equal(c.values[2], "9");
    /* Without a step, 1; below zero too. */
    expand_into("n={-2..1}", &c);
    assert_int_equal(c.count, 4);
    assert_string_equal(c.values[0], "-2");
    assert_string_equal(c.values[3], "1");
    /* One value: lo = hi. */
    expand_into("n={7..7..3}", &c);
    assert_int_equal(c.count, 1);
    /* A list keeps its text; a value without braces is itself. */
    expand_into("e={adl,half-min}", &c);
    assert_string_equal(c.texts[1], "e=half-min");
    /* A list's items may hold "..": relative paths. */
    expand_into("{../traces/steady.csv,../traces/jitter.csv}", &c);
    assert_int_equal(c.count, 2);
    assert_string_equal(c.texts[1], "../traces/jitter.csv");
    expand_into("block", &c);
    assert_int_equal(c.count, 1);
    assert_string_equal(c.texts[0], "block");
    assert_string_equal(c.values[0], "");
}

static void a_group_is_named_by_its_key_or_keyword(void **state)
{
    (void)state;
    const char *text = "gar-sweep v1\n"
                       "trace gen:jitter:waits=10,seed={1,2}\n"
                       "plan {block,poll}\n"
                       "plan poll+predict:margin_us={50,100},min_sleep_us=20,"
                       "max_sleep_us=50000,window=8\n"
                       "estimator ewma:alpha={0.25,0.5}\n"
                       "host hosts/dev-vm.host@block_wake_ns*{0.5,2},"
                       "sleep_overshoot_ns@1ms*{1,3}\n"
                       "mode open\n"
                       "seed {1..3}\n";
    gar_sweep_spec spec;
    gar_error err;
    if (parse(text, &spec, &err) != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(spec.trace_count, 2);
    assert_int_equal(spec.plan_count, 4);
    assert_int_equal(spec.estimator_count, 2);
    assert_int_equal(spec.host_count, 4);
    assert_int_equal(spec.seed_count, 3);
    /* 2 traces x (2 plans alone + 2 with 2 estimators) x 4 hosts x 3 seeds */
    assert_int_equal(spec.runs, 2 * 6 * 4 * 3);
    assert_string_equal(param_value(&spec.traces[1].params, "seed"), "2");
    assert_string_equal(param_value(&spec.plans[1].params, "plan"), "poll");
    assert_string_equal(param_value(&spec.estimators[1].params, "alpha"), "0.5");
    assert_string_equal(param_value(&spec.hosts[3].params, "block_wake_ns*"), "2");
    assert_string_equal(param_value(&spec.hosts[3].params, "sleep_overshoot_ns@1ms*"), "3");

    /* A run's parameters: its trace's, plan's, estimator's, host's. */
    gar_sweep_param params[4 * GAR_SWEEP_PARAMS_MAX];
    gar_sweep_run run = gar_sweep_run_at(&spec, spec.runs - 1);
    size_t n = gar_sweep_run_params(&spec, &run, params);
    assert_int_equal(n, 5);
    assert_string_equal(params[0].name, "seed");
    assert_string_equal(params[1].name, "margin_us");
    assert_string_equal(params[1].value, "100");
    assert_string_equal(params[2].name, "alpha");
    assert_string_equal(params[3].name, "block_wake_ns*");
    /* A plan without predict consults no estimator: no alpha. */
    run = gar_sweep_run_at(&spec, 0);
    n = gar_sweep_run_params(&spec, &run, params);
    assert_int_equal(n, 4);
    assert_string_equal(params[1].name, "plan");
    assert_string_equal(params[2].name, "block_wake_ns*");
    gar_sweep_spec_free(&spec);
}

/* Parses a spec whose line 3 is `plan VALUE` and expects refusal `code`
 * naming the place and `what`. */
static void refused(const char *value, int code, const char *what)
{
    char text[1024];
    snprintf(text, sizeof text,
             "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\nplan %s\nestimator adl\n"
             "host hosts/dev-vm.host\nmode open\nseed 1\n",
             value);
    gar_sweep_spec spec;
    gar_error err;
    int rc = parse(text, &spec, &err);
    if (rc != -code)
        fail_msg("wanted code %d, got %d (%s) for %s", code, -rc, message_of(&err), value);
    const char *m = message_of(&err);
    if (strstr(m, what) == NULL || (code == GAR_E_INVALID_ARGUMENT && strstr(m, "t.sweep:3") == NULL))
        fail_msg("message '%s' lacks 't.sweep:3' or '%s'", m, what);
    assert_int_equal(spec.runs, 0);
    assert_null(spec.plans);
}

static void malformed_ranges_are_refused_with_their_place(void **state)
{
    (void)state;
    refused("poll+predict:margin_us={}", GAR_E_INVALID_ARGUMENT, "empty range '{}'");
    refused("poll+predict:margin_us={50,,100}", GAR_E_INVALID_ARGUMENT, "empty item");
    refused("poll+predict:margin_us={50,}", GAR_E_INVALID_ARGUMENT, "empty item");
    refused("poll+predict:margin_us={50..300..0}", GAR_E_INVALID_ARGUMENT, "step of 0");
    refused("poll+predict:margin_us={50..300..-50}", GAR_E_INVALID_ARGUMENT, "step below 0");
    refused("poll+predict:margin_us={300..50..50}", GAR_E_INVALID_ARGUMENT, "lo is above hi");
    refused("poll+predict:margin_us={a..b}", GAR_E_INVALID_ARGUMENT, "'a' is not a number");
    refused("poll+predict:margin_us={50..1e3}", GAR_E_INVALID_ARGUMENT, "'1e3' is not a number");
    refused("poll+predict:margin_us={50..}", GAR_E_INVALID_ARGUMENT, "not a number");
    /* A number too long for a range is too large, not "not a number", and
     * the refusal states the limit; one decimal place takes a tenth of it. */
    refused("poll+predict:margin_us={1..12345678901234567}", GAR_E_INVALID_ARGUMENT,
            "'12345678901234567' is too large (a range's bounds and step lie within "
            "-9223372036854..9223372036854, divided by 10 for each decimal place");
    refused("poll+predict:margin_us={1..9223372036855}", GAR_E_INVALID_ARGUMENT,
            "'9223372036855' is too large (a range's bounds and step lie within");
    refused("poll+predict:margin_us={0.5..922337203685.5}", GAR_E_INVALID_ARGUMENT,
            "'922337203685.5' is too large");
    refused("poll+predict:margin_us={1..3..12345678901234567}", GAR_E_INVALID_ARGUMENT,
            "step '12345678901234567' is too large");
    refused("poll+predict:margin_us={1..2..3..4}", GAR_E_INVALID_ARGUMENT, "more than lo..hi..step");
    refused("poll+predict:margin_us={50,100", GAR_E_INVALID_ARGUMENT, "'{' without its '}'");
    refused("poll+predict:margin_us=50,100}", GAR_E_INVALID_ARGUMENT, "'}' without its '{'");
    refused("poll+predict:margin_us={5{0}}", GAR_E_INVALID_ARGUMENT, "do not nest");
    refused("{a}{b}{c}{d}{e}{f}{g}{h}{i}", GAR_E_INVALID_ARGUMENT, "more than 8 brace groups");
    /* A number where the plan wants one is the plan's to refuse, with the
     * expanded value and the spec's place. */
    refused("poll+predict:margin_us={fast,slow},min_sleep_us=20,max_sleep_us=50000,window=8",
            GAR_E_INVALID_PLAN, "margin_us=fast");
    refused("poll+predict:margin_us={fast,slow},min_sleep_us=20,max_sleep_us=50000,window=8",
            GAR_E_INVALID_PLAN, "(t.sweep:3)");
}

/* More than 10^8 runs is refused from the counts alone: nothing of the
 * 2 * 10^8 values below is ever expanded (this test would run out of time
 * or memory if it were). */
static void too_many_runs_are_refused_before_expanding(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\nplan block\nestimator adl\n"
        "host hosts/dev-vm.host\nmode open\nseed {1..200000000}\n",
        "gar-sweep v1\ntrace gen:steady:waits=10,seed={1..20000}\nplan block\nestimator adl\n"
        "host hosts/dev-vm.host\nmode open\nseed {1..10000}\n",
        "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\n"
        "plan poll+predict:margin_us={1..100000},min_sleep_us={1..100000}\nestimator adl\n"
        "host hosts/dev-vm.host\nmode open\nseed 1\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        gar_sweep_spec spec;
        gar_error err;
        int rc = parse(texts[i], &spec, &err);
        if (rc != -GAR_E_CAPACITY)
            fail_msg("wanted a capacity refusal, got %d: %s", rc, message_of(&err));
        assert_non_null(strstr(message_of(&err), "100000000 runs"));
        assert_non_null(strstr(message_of(&err), "t.sweep"));
        assert_null(spec.traces);
    }
    /* Exactly at the limit is not refused by the count (checked without
     * expanding: the counting pass alone). */
    uint64_t n = 0;
    assert_int_equal(gar_sweep_expand("{1..100000000}", "seed", "t.sweep:1", NULL, NULL, &n, NULL),
                     0);
    assert_int_equal(n, 100000000);
}

/* Counts the hooked allocations (never failing one): the work a call does,
 * told by a count rather than a clock. */
typedef struct allocations {
    gar_alloc_hook hook;
    uint64_t count, bytes;
} allocations;

static bool count_one(void *context, size_t size)
{
    allocations *a = context;
    a->count++;
    a->bytes += size;
    return false;
}

static allocations counting(void)
{
    allocations a = { { count_one, NULL, NULL }, 0, 0 };
    return a;
}

static const char *seed_spec(char *buf, size_t size, const char *seeds)
{
    snprintf(buf, size,
             "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\nplan block\nestimator adl\n"
             "host hosts/dev-vm.host\nmode open\nseed %s\n",
             seeds);
    return buf;
}

/* --dry-run's size counts, it does not expand: sizing seed {1..99999999}
 * (just under the cap) does exactly the work of sizing seed {1..10}, the
 * same allocations of the same bytes (but for the spec's longer text),
 * where expanding would make 10^8
 * seeds.  The counts are still exact. */
static void a_size_is_counted_without_expanding(void **state)
{
    (void)state;
    char text[512];
    allocations small = counting(), large = counting();
    gar_sweep_size size;
    gar_error err;
    small.hook.context = &small;
    gar_alloc_set_hook(&small.hook);
    seed_spec(text, sizeof text, "{1..10}");
    int rc = gar_sweep_size_parse(text, strlen(text), "t.sweep", GAR_DATA_DIR, &size, &err);
    gar_alloc_set_hook(NULL);
    if (rc != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(size.runs, 10);
    gar_sweep_size_free(&size);

    large.hook.context = &large;
    gar_alloc_set_hook(&large.hook);
    seed_spec(text, sizeof text, "{1..99999999}");
    rc = gar_sweep_size_parse(text, strlen(text), "t.sweep", GAR_DATA_DIR, &size, &err);
    gar_alloc_set_hook(NULL);
    if (rc != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(size.runs, 99999999);
    assert_int_equal(size.seeds, 99999999);
    assert_int_equal(size.swept_count, 1);
    assert_int_equal(size.swept[0].values, 99999999);
    gar_sweep_size_free(&size);
    assert_int_equal(large.count, small.count);
    assert_int_equal(large.bytes, small.bytes + strlen("99999999") - strlen("10")); /* its text */
}

/* A size agrees with the load, arm for arm: plans told apart by whether
 * their text (a list item, a band) sleeps to a prediction, estimators
 * counted once per such plan. */
static void a_size_agrees_with_the_load(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "gar-sweep v1\ntrace gen:jitter:waits=10,seed={1,2}\n"
        "plan block poll flag:park_us={100,200},backstop_us=1000\n"
        "plan poll+predict:margin_us={50..300..50},min_sleep_us=20,max_sleep_us=50000,"
        "window={1,8}\n"
        "plan flag:park_us=100,backstop_us=1000+predict:margin_us={50,100},min_sleep_us=20,"
        "max_sleep_us=50000,window=8\n"
        "bands block;rows>={2,4}:poll+predict:margin_us=150,min_sleep_us=20,"
        "max_sleep_us=50000,window=8\n"
        "bands {block,poll};rows>=8:poll+predict:margin_us=150,min_sleep_us=20,"
        "max_sleep_us=50000,window=8\n"
        "bands block;rows>={8,16}:poll\n"
        "estimator adl ewma:alpha={0.1,0.5}\n"
        "host hosts/dev-vm.host hosts/waitpkg.host@block_wake_ns*{0.5,2}\n"
        "mode open closed\nseed 1 {5..7}\n",
        "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\nplan block poll\n"
        "estimator {adl,half-min}\nhost hosts/dev-vm.host\nmode open\nseed 1\n",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        gar_sweep_spec spec;
        gar_sweep_size size;
        gar_error err;
        if (parse(texts[i], &spec, &err) != 0)
            fail_msg("load %zu: %s", i, message_of(&err));
        if (gar_sweep_size_parse(texts[i], strlen(texts[i]), "t.sweep", GAR_DATA_DIR, &size,
                                 &err) != 0)
            fail_msg("size %zu: %s", i, message_of(&err));
        assert_int_equal(size.runs, spec.runs);
        assert_int_equal(size.arms, spec.arm_count);
        assert_int_equal(size.traces, spec.trace_count);
        assert_int_equal(size.plans, spec.plan_count);
        assert_int_equal(size.estimators, spec.estimator_count);
        assert_int_equal(size.hosts, spec.host_count);
        assert_int_equal(size.modes, spec.mode_count);
        assert_int_equal(size.seeds, spec.seed_count);
        assert_int_equal(size.swept_count, spec.swept_count);
        gar_sweep_size_free(&size);
        gar_sweep_spec_free(&spec);
    }
    /* The first: 2 traces x (6 plain + (12 + 2 + 2 + 2) predict x 3
     * estimators) x 3 hosts x 2 modes x 4 seeds. */
    gar_sweep_size size;
    assert_int_equal(gar_sweep_size_parse(texts[0], strlen(texts[0]), "t.sweep", GAR_DATA_DIR,
                                          &size, NULL),
                     0);
    assert_int_equal(size.arms, 6 + 18 * 3);
    assert_int_equal(size.runs, 2 * (6 + 18 * 3) * 3 * 2 * 4);
    gar_sweep_size_free(&size);
}

/* The text a plan must hold is found across the groups' edges, without
 * expanding them. */
static void expansions_holding_a_text_are_counted(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        uint64_t holding;
    } cases[] = {
        { "poll+predict:margin_us={1..1000}", 1000 },
        { "poll", 0 },
        { "{poll,flag}+pre{dict,x,dic}:margin_us={1..10}", 20 },
        { "poll{+,x}pre{d,x}ict{1..3}", 3 },
        { "a{++,+}predict", 2 },
        { "{block,poll+predict:a=1};{x+predict,y}", 3 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t holding = 99;
        assert_int_equal(gar_sweep_count_holding(cases[i].value, "plan", "t.sweep:1", "+predict",
                                                 &holding, NULL),
                         0);
        if (holding != cases[i].holding)
            fail_msg("'%s': %llu hold +predict, not %llu", cases[i].value,
                     (unsigned long long)holding, (unsigned long long)cases[i].holding);
    }
}

/* Loading n values takes allocations in proportion to log n (arrays and the
 * repeat check double), not to n, and a repeat far into a long range is
 * still found, naming it. */
static void a_long_range_loads_in_few_allocations(void **state)
{
    (void)state;
    char text[512];
    allocations a = counting();
    a.hook.context = &a;
    gar_sweep_spec spec;
    gar_error err;
    seed_spec(text, sizeof text, "{1..100000}");
    gar_alloc_set_hook(&a.hook);
    int rc = parse(text, &spec, &err);
    gar_alloc_set_hook(NULL);
    if (rc != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(spec.seed_count, 100000);
    assert_true(a.count < 200);
    gar_sweep_spec_free(&spec);

    seed_spec(text, sizeof text, "{1..100000} 7 {99999..100001}");
    assert_int_equal(parse(text, &spec, &err), -GAR_E_INVALID_ARGUMENT);
    assert_non_null(strstr(message_of(&err), "seed '7' repeats"));
    seed_spec(text, sizeof text, "{1..100000} {100001..100005} {100005..100006}");
    assert_int_equal(parse(text, &spec, &err), -GAR_E_INVALID_ARGUMENT);
    assert_non_null(strstr(message_of(&err), "seed '100005' repeats"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_example_is_seventy_two_plans),
        cmocka_unit_test(ranges_step_exactly_in_decimals),
        cmocka_unit_test(a_group_is_named_by_its_key_or_keyword),
        cmocka_unit_test(malformed_ranges_are_refused_with_their_place),
        cmocka_unit_test(too_many_runs_are_refused_before_expanding),
        cmocka_unit_test(a_size_is_counted_without_expanding),
        cmocka_unit_test(a_size_agrees_with_the_load),
        cmocka_unit_test(expansions_holding_a_text_are_counted),
        cmocka_unit_test(a_long_range_loads_in_few_allocations),
    };
    return cmocka_run_group_tests_name("sweep_ranges", tests, NULL, NULL);
}
