/* tests/experiments/test_sweep_spec.c — sweep specs: the axes, the arms, the
 * canonical order, the shard key, and every refusal with its file and line. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep/sweep_spec.h"

#define FLAG "flag:park_us=100,backstop_us=1000"
#define PREDICT "+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"

static int parse(const char *text, gar_sweep_spec *spec, gar_error *err)
{
    return gar_sweep_spec_parse(text, strlen(text), "t.sweep", GAR_DATA_DIR, spec, err);
}

/* The refusal's whole message. */
static const char *message_of(const gar_error *err)
{
    static char text[1024];
    gar_error_message(err, text, sizeof text);
    return text;
}

/* Parses `text`, expects refusal `code` whose message holds `where` and
 * `what`, and an empty spec. */
static void refused(const char *text, int code, const char *where, const char *what)
{
    gar_sweep_spec spec;
    gar_error err;
    int rc = parse(text, &spec, &err);
    if (rc != -code)
        fail_msg("wanted code %d, got %d (%s) for:\n%s", code, -rc, message_of(&err), text);
    const char *m = message_of(&err);
    if (strstr(m, where) == NULL || strstr(m, what) == NULL)
        fail_msg("message '%s' lacks '%s' or '%s'", m, where, what);
    assert_int_equal(spec.runs, 0);
    assert_null(spec.traces);
}

static const char good[] = "gar-sweep v1\n"
                           "# a comment line\n"
                           "trace gen:steady:waits=20,seed=1 gen:jitter:waits=30,seed=2\n"
                           "plan block poll  # a comment after values\n"
                           "plan " FLAG PREDICT "\n"
                           "bands block;rows>=32:" FLAG PREDICT "\n"
                           "estimator adl half-min\n"
                           "host hosts/dev-vm.host hosts/waitpkg.host\n"
                           "mode open closed\n"
                           "seed 1 2 3\n";

static void a_spec_holds_its_axes_and_arms(void **state)
{
    (void)state;
    gar_sweep_spec spec;
    gar_error err;
    if (parse(good, &spec, &err) != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(spec.trace_count, 2);
    assert_int_equal(spec.traces[0].trace.count, 20);
    assert_int_equal(spec.traces[1].trace.count, 30);
    assert_int_equal(spec.traces[0].line, 3);
    assert_string_equal(spec.traces[0].source, "gen:steady:waits=20,seed=1");
    assert_int_equal(strlen(spec.traces[0].hash), 16);
    assert_int_equal(spec.plan_count, 4);
    assert_string_equal(spec.plans[2].label, FLAG PREDICT);
    assert_int_equal(spec.plans[3].bands.count, 2);
    assert_int_equal(spec.estimator_count, 2);
    assert_int_equal(spec.host_count, 2);
    assert_true(spec.hosts[0].source[0] == '/');
    assert_non_null(strstr(spec.hosts[0].text, "gar-host v1"));
    assert_int_equal(spec.mode_count, 2);
    assert_int_equal(spec.seed_count, 3);
    /* block and poll run once; the two predict plans once per estimator. */
    assert_int_equal(spec.arm_count, 1 + 1 + 2 + 2);
    assert_int_equal(spec.arms[0].estimator, GAR_SWEEP_NO_ESTIMATOR);
    assert_int_equal(spec.arms[2].plan, 2);
    assert_int_equal(spec.arms[3].estimator, 1);
    assert_int_equal(spec.runs, 2 * 6 * 2 * 2 * 3);
    gar_sweep_spec_free(&spec);
    assert_null(spec.traces);
}

static void runs_come_in_the_canonical_order(void **state)
{
    (void)state;
    gar_sweep_spec spec;
    assert_int_equal(parse(good, &spec, NULL), 0);
    gar_sweep_run r = gar_sweep_run_at(&spec, 0);
    assert_int_equal(r.trace + r.plan + r.host + r.mode + r.seed, 0);
    assert_string_equal(gar_sweep_run_estimator_label(&spec, &r), "-");
    r = gar_sweep_run_at(&spec, 1); /* seed fastest */
    assert_int_equal(r.seed, 1);
    r = gar_sweep_run_at(&spec, 3); /* then mode */
    assert_int_equal(r.seed, 0);
    assert_int_equal(r.mode, 1);
    r = gar_sweep_run_at(&spec, 6); /* then host */
    assert_int_equal(r.host, 1);
    r = gar_sweep_run_at(&spec, 12 * 3); /* arm 3: plan 2 with half-min */
    assert_int_equal(r.plan, 2);
    assert_string_equal(gar_sweep_run_estimator_label(&spec, &r), "half-min");
    r = gar_sweep_run_at(&spec, spec.runs - 1);
    assert_int_equal(r.trace, 1);
    assert_int_equal(r.plan, 3);
    assert_int_equal(r.seed, 2);
    /* Every run's key differs from every other's. */
    for (uint64_t i = 0; i < spec.runs; i++)
        for (uint64_t j = i + 1; j < spec.runs; j++) {
            gar_sweep_run a = gar_sweep_run_at(&spec, i), b = gar_sweep_run_at(&spec, j);
            assert_true(gar_sweep_run_key_hash(&spec, &a) != gar_sweep_run_key_hash(&spec, &b));
        }
    gar_sweep_spec_free(&spec);
}

static void the_shard_key_ignores_the_specs_order(void **state)
{
    (void)state;
    const char *a_text = "gar-sweep v1\ntrace gen:steady:waits=5,seed=1\nplan block poll\n"
                         "estimator adl\nhost hosts/dev-vm.host\nmode open\nseed 4 5\n";
    const char *b_text = "gar-sweep v1\nseed 5 4\nmode open\nhost hosts/dev-vm.host\n"
                         "estimator adl\nplan poll block\ntrace gen:steady:waits=5,seed=1\n";
    gar_sweep_spec a, b;
    assert_int_equal(parse(a_text, &a, NULL), 0);
    assert_int_equal(parse(b_text, &b, NULL), 0);
    gar_sweep_run ra = gar_sweep_run_at(&a, 0);             /* block, seed 4 */
    gar_sweep_run rb = gar_sweep_run_at(&b, b.runs - 1);    /* block, seed 4 */
    assert_string_equal(a.plans[ra.plan].label, b.plans[rb.plan].label);
    assert_int_equal(a.seeds[ra.seed], b.seeds[rb.seed]);
    assert_true(gar_sweep_run_key_hash(&a, &ra) == gar_sweep_run_key_hash(&b, &rb));
    gar_sweep_spec_free(&a);
    gar_sweep_spec_free(&b);
}

static void a_trace_is_named_by_its_content(void **state)
{
    (void)state;
    gar_sweep_trace a, b, c;
    assert_int_equal(gar_sweep_trace_load("gen:steady:waits=10,seed=1", NULL, &a, NULL), 0);
    /* Same rows, written another way (a default made explicit). */
    assert_int_equal(
        gar_sweep_trace_load("gen:steady:waits=10,seed=1,residual_us=2000", NULL, &b, NULL), 0);
    assert_int_equal(gar_sweep_trace_load("gen:steady:waits=10,seed=1,residual_us=2001", NULL, &c,
                                          NULL),
                     0);
    assert_string_equal(a.hash, b.hash);
    assert_string_not_equal(a.hash, c.hash);
    c.trace.row[3].done_ns -= 1; /* one changed row is a new trace */
    assert_true(gar_sweep_trace_hash(&c.trace) != gar_sweep_trace_hash(&b.trace));
    gar_sweep_trace_free(&a);
    gar_sweep_trace_free(&b);
    gar_sweep_trace_free(&c);
}

#define AXES_BUT_TRACE                                                                          \
    "plan block\nestimator adl\nhost hosts/dev-vm.host\nmode open\nseed 1\n"
#define TRACE "trace gen:steady:waits=5,seed=1\n"

static void the_specs_own_faults_name_file_and_line(void **state)
{
    (void)state;
    refused("", GAR_E_INVALID_ARGUMENT, "t.sweep:1", "empty");
    refused("gar-sweep v2\n" TRACE, GAR_E_INVALID_ARGUMENT, "t.sweep:1", "gar-sweep v1");
    refused("gar-sweep v1\n" TRACE "trace\n" AXES_BUT_TRACE, GAR_E_INVALID_ARGUMENT, "t.sweep:3",
            "has no value");
    refused("gar-sweep v1\n" TRACE "plans poll\n", GAR_E_INVALID_ARGUMENT, "t.sweep:3",
            "is no keyword");
    refused("gar-sweep v1\n" TRACE "plan block\nestimator adl\nhost hosts/dev-vm.host\nmode open\n",
            GAR_E_INVALID_ARGUMENT, "seed", "is missing");
    refused("gar-sweep v1\n" TRACE AXES_BUT_TRACE "mode sideways\n", GAR_E_INVALID_ARGUMENT,
            "t.sweep:8", "neither open nor closed");
    refused("gar-sweep v1\n" TRACE AXES_BUT_TRACE "seed -1\n", GAR_E_INVALID_ARGUMENT, "t.sweep:8",
            "not a whole number");
    refused("gar-sweep v1\n" TRACE AXES_BUT_TRACE "seed 9223372036854775808\n",
            GAR_E_INVALID_ARGUMENT, "t.sweep:8", "2^63-1");
    refused("gar-sweep v1\n" TRACE AXES_BUT_TRACE "seed 2 1\n", GAR_E_INVALID_ARGUMENT,
            "t.sweep:8", "'1' repeats");
    refused("gar-sweep v1\n" TRACE AXES_BUT_TRACE "plan poll block\n", GAR_E_INVALID_ARGUMENT,
            "t.sweep:8", "'block' repeats the one on line 3");
    refused("gar-sweep v1\n" TRACE AXES_BUT_TRACE "estimator quantile:q=0\nestimator adl\n",
            GAR_E_INVALID_ARGUMENT, "t.sweep:9", "line 4");
    refused("gar-sweep v1\n" TRACE "trace gen:steady:seed=1,waits=5\n" AXES_BUT_TRACE,
            GAR_E_INVALID_ARGUMENT, "t.sweep:3", "same content as the one on line 2");
    refused("gar-sweep v1\n" TRACE AXES_BUT_TRACE "host hosts/../hosts/dev-vm.host\n",
            GAR_E_INVALID_ARGUMENT, "t.sweep:8", "same profile");
    const char nul[] = "gar-sweep v1\ntrace a\0b\n";
    gar_error err;
    gar_sweep_spec spec;
    assert_int_equal(gar_sweep_spec_parse(nul, sizeof nul - 1, "t.sweep", GAR_DATA_DIR, &spec, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_non_null(strstr(message_of(&err), "t.sweep:2"));
}

static void what_it_names_is_refused_with_the_specs_place(void **state)
{
    (void)state;
    refused("gar-sweep v1\n" TRACE "plan blok\nestimator adl\nhost hosts/dev-vm.host\nmode "
            "open\nseed 1\n",
            GAR_E_INVALID_PLAN, "(t.sweep:3)", "blok");
    refused("gar-sweep v1\n" TRACE "bands block;rows>=0:poll\nestimator adl\nhost "
            "hosts/dev-vm.host\nmode open\nseed 1\n",
            GAR_E_INVALID_PLAN, "(t.sweep:3)", "block;rows>=0:poll");
    refused("gar-sweep v1\n" TRACE "plan block\nestimator adl ewma:alpha=2\nhost "
            "hosts/dev-vm.host\nmode open\nseed 1\n",
            GAR_E_INVALID_ESTIMATOR, "(t.sweep:4)", "ewma:alpha=2");
    refused("gar-sweep v1\ntrace no-such.csv\n" AXES_BUT_TRACE, GAR_E_IO, "(t.sweep:2)",
            "no-such.csv");
    refused("gar-sweep v1\ntrace gen:steady:seed=1\n" AXES_BUT_TRACE, GAR_E_INVALID_ARGUMENT,
            "(t.sweep:2)", "waits=N and seed=S");
    refused("gar-sweep v1\ntrace gen:nonesuch:waits=2,seed=1\n" AXES_BUT_TRACE,
            GAR_E_INVALID_ARGUMENT, "(t.sweep:2)", "nonesuch");
    refused("gar-sweep v1\ntrace gen:steady:waits=2,seed=1,bogus=3\n" AXES_BUT_TRACE,
            GAR_E_INVALID_ARGUMENT, "(t.sweep:2)", "bogus");
    /* A parameter given twice would silently take the second value. */
    refused("gar-sweep v1\ntrace gen:steady:waits=2,seed=1,gap_us=3,gap_us=4\n" AXES_BUT_TRACE,
            GAR_E_INVALID_ARGUMENT, "(t.sweep:2)", "gap_us=4 sets a parameter given before");
    refused("gar-sweep v1\n" TRACE "plan block\nestimator adl\nhost hosts/README.md\nmode "
            "open\nseed 1\n",
            GAR_E_INVALID_HOST_PROFILE, "(t.sweep:5)", "README.md");

    /* A trace file that breaks a rule: the trace's own line and the spec's. */
    char dir[] = "/tmp/gar-spec-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/bad.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n1,10,20,5\n", f);
    fclose(f);
    char text[512];
    snprintf(text, sizeof text, "gar-sweep v1\ntrace %s\n" AXES_BUT_TRACE, path);
    refused(text, GAR_E_INVALID_TRACE, "bad.csv:3", "(t.sweep:2)");
    remove(path);
    remove(dir);
}

/* Appends `lines` lines of 256 values each, made by `value(k)`. */
static int add_lines(char *text, int n, int cap, const char *keyword, int lines,
                     void (*value)(int k, char *out, size_t size))
{
    for (int line = 0; line < lines; line++) {
        n += snprintf(text + n, (size_t)(cap - n), "%s", keyword);
        for (int v = 0; v < 256; v++) {
            char word[64];
            value(line * 256 + v, word, sizeof word);
            n += snprintf(text + n, (size_t)(cap - n), " %s", word);
        }
        n += snprintf(text + n, (size_t)(cap - n), "\n");
    }
    return n;
}

static void seed_value(int k, char *out, size_t size)
{
    snprintf(out, size, "%d", k);
}

static void quantile_value(int k, char *out, size_t size)
{
    snprintf(out, size, "quantile:q=0.%06d", k);
}

static void overlong_lines_and_too_many_runs_are_refused(void **state)
{
    (void)state;
    enum { CAP = 256 * 1024 };
    char *text = malloc(CAP);
    assert_non_null(text);
    int n = snprintf(text, CAP, "gar-sweep v1\nseed");
    for (int s = 0; s < 257; s++)
        n += snprintf(text + n, (size_t)(CAP - n), " %d", s);
    snprintf(text + n, (size_t)(CAP - n), "\n");
    refused(text, GAR_E_INVALID_ARGUMENT, "t.sweep:2", "over 256 values");

    /* 4 predict plans x 2560 estimators x 2 hosts x 2 modes x 2560 seeds is
     * over 10^8 runs. */
    n = snprintf(text, CAP, "gar-sweep v1\n" TRACE "host hosts/dev-vm.host hosts/waitpkg.host\n"
                 "mode open closed\n");
    for (int p = 0; p < 4; p++)
        n += snprintf(text + n, (size_t)(CAP - n),
                      "plan poll+predict:margin_us=%d,min_sleep_us=20,max_sleep_us=50000,"
                      "window=8\n",
                      150 + p);
    n = add_lines(text, n, CAP, "estimator", 10, quantile_value);
    n = add_lines(text, n, CAP, "seed", 10, seed_value);
    gar_sweep_spec spec;
    gar_error err;
    int rc = parse(text, &spec, &err);
    if (rc != -GAR_E_CAPACITY)
        fail_msg("wanted a capacity refusal, got %d: %s", rc, message_of(&err));
    assert_non_null(strstr(message_of(&err), "100000000 runs"));
    free(text);
}

/* A spec file past the size limit is refused as too large, not "full". */
static void a_spec_over_the_size_limit_says_so(void **state)
{
    (void)state;
    char dir[] = "/tmp/gar-spec-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/big.sweep", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("gar-sweep v1\n", f);
    for (size_t i = 0; i < GAR_SWEEP_FILE_MAX; i++)
        fputc('#', f);
    assert_int_equal(fclose(f), 0);
    gar_sweep_spec spec;
    gar_error err;
    assert_int_equal(gar_sweep_spec_load(path, &spec, &err), -GAR_E_INVALID_ARGUMENT);
    const char *m = message_of(&err);
    assert_non_null(strstr(m, "big.sweep: argument file is larger than 1048576 bytes"));
    assert_null(strstr(m, "full"));
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_spec_holds_its_axes_and_arms),
        cmocka_unit_test(runs_come_in_the_canonical_order),
        cmocka_unit_test(the_shard_key_ignores_the_specs_order),
        cmocka_unit_test(a_trace_is_named_by_its_content),
        cmocka_unit_test(the_specs_own_faults_name_file_and_line),
        cmocka_unit_test(what_it_names_is_refused_with_the_specs_place),
        cmocka_unit_test(overlong_lines_and_too_many_runs_are_refused),
        cmocka_unit_test(a_spec_over_the_size_limit_says_so),
    };
    return cmocka_run_group_tests_name("sweep_spec", tests, NULL, NULL);
}
