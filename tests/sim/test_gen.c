/* tests/sim/test_gen.c — the generators: deterministic from the seed, valid
 * traces, and the statistics each kind promises. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sim/gen.h"

static gar_trace generate(gar_gen_kind kind, const char *const *params, uint64_t waits,
                          uint64_t seed)
{
    gar_gen_spec spec = gar_gen_spec_default(kind);
    for (; params != NULL && *params != NULL; params++)
        assert_int_equal(gar_gen_spec_set(&spec, *params, NULL), 0);
    gar_trace t;
    assert_int_equal(gar_gen_run(&spec, waits, seed, &t, NULL), 0);
    assert_int_equal(t.count, waits);
    assert_int_equal(gar_trace_check(&t, "gen", NULL), 0);
    return t;
}

static double residual_us(const gar_trace_row *r)
{
    return ((double)r->done_ns - (double)r->start_ns) / 1000.0;
}

static void same_seed_same_trace_other_seed_other_trace(void **state)
{
    (void)state;
    for (int k = 0; k < GAR_GEN_KIND_COUNT; k++) {
        gar_trace a = generate((gar_gen_kind)k, NULL, 2000, 11);
        gar_trace b = generate((gar_gen_kind)k, NULL, 2000, 11);
        gar_trace c = generate((gar_gen_kind)k, NULL, 2000, 12);
        assert_true(gar_trace_equal(&a, &b));
        if (k != GAR_GEN_STEADY) /* steady draws nothing */
            assert_false(gar_trace_equal(&a, &c));
        gar_trace_free(&a);
        gar_trace_free(&b);
        gar_trace_free(&c);
    }
}

static void steady_is_exact(void **state)
{
    (void)state;
    const char *params[] = { "residual_us=1500.5", "launch_us=20", "gap_us=7", NULL };
    gar_trace t = generate(GAR_GEN_STEADY, params, 1000, 1);
    assert_int_equal(t.columns, 0);
    for (size_t i = 0; i < t.count; i++) {
        const gar_trace_row *r = &t.row[i];
        assert_int_equal(r->point, 1);
        assert_int_equal(r->start_ns - r->submit_ns, 20000);
        assert_int_equal(r->done_ns - r->start_ns, 1500500);
        if (i + 1 < t.count)
            assert_int_equal(t.row[i + 1].submit_ns - r->done_ns, 7000);
    }
    assert_int_equal(t.row[0].submit_ns, 0);
    gar_trace_free(&t);
}

static void jitter_has_its_mean_and_sd(void **state)
{
    (void)state;
    const uint64_t n = 20000;
    gar_trace t = generate(GAR_GEN_JITTER, NULL, n, 5); /* mean 2000, sd 200 */
    double sum = 0, sq = 0;
    for (size_t i = 0; i < t.count; i++) {
        double r = residual_us(&t.row[i]);
        sum += r;
        sq += r * r;
    }
    double mean = sum / (double)n, sd = sqrt(sq / (double)n - mean * mean);
    assert_true(fabs(mean - 2000.0) < 5.0 * 200.0 / sqrt((double)n));
    assert_true(fabs(sd - 200.0) < 5.0 * 200.0 / sqrt(2.0 * (double)n));
    gar_trace_free(&t);
}

static void bimodal_mixes_two_points(void **state)
{
    (void)state;
    const uint64_t n = 20000;
    const char *params[] = { "prefill_p=0.25", NULL };
    gar_trace t = generate(GAR_GEN_BIMODAL, params, n, 9);
    double sum[3] = { 0 };
    size_t count[3] = { 0 };
    for (size_t i = 0; i < t.count; i++) {
        uint64_t p = t.row[i].point;
        assert_true(p == 1 || p == 2);
        sum[p] += residual_us(&t.row[i]);
        count[p]++;
    }
    double frac = (double)count[1] / (double)n;
    assert_true(fabs(frac - 0.25) < 5.0 * sqrt(0.25 * 0.75 / (double)n));
    assert_true(fabs(sum[1] / (double)count[1] - 20000.0) < 5.0 * 50.0);
    assert_true(fabs(sum[2] / (double)count[2] - 2000.0) < 5.0 * 50.0);
    gar_trace_free(&t);
}

static void drift_ramps_then_jumps_back(void **state)
{
    (void)state;
    const char *params[] = { "sd_us=0", "base_us=100", "step_us=3", "period=50", NULL };
    gar_trace t = generate(GAR_GEN_DRIFT, params, 500, 2);
    for (size_t i = 0; i < t.count; i++)
        assert_int_equal(t.row[i].done_ns - t.row[i].start_ns, (100 + 3 * (i % 50)) * 1000);
    gar_trace_free(&t);
}

static void shift_changes_regime_and_back(void **state)
{
    (void)state;
    const char *params[] = { "sd_us=0", "mean_us=1000", "factor=0.2", "shift_at=10",
                             "shift_waits=5", NULL };
    gar_trace t = generate(GAR_GEN_SHIFT, params, 30, 3);
    for (size_t i = 0; i < t.count; i++)
        assert_int_equal(t.row[i].done_ns - t.row[i].start_ns,
                         i >= 10 && i < 15 ? 200000 : 1000000);
    gar_trace_free(&t);
}

static void decode_rows_grow_and_drive_the_residual(void **state)
{
    (void)state;
    const char *params[] = { "sd_us=0", "rows_min=2", "rows_max=40", NULL };
    gar_trace t = generate(GAR_GEN_DECODE, params, 5000, 4);
    assert_int_equal(t.columns, GAR_TRACE_HAS_STEP_ROWS);
    assert_int_equal(t.row[0].step_rows, 2);
    size_t grew = 0, drained = 0;
    for (size_t i = 0; i < t.count; i++) {
        const gar_trace_row *r = &t.row[i];
        assert_true(r->step_rows >= 2 && r->step_rows <= 40);
        /* residual = base 1000 + 25 per row, exactly with sd 0 */
        assert_int_equal(r->done_ns - r->start_ns, (1000 + 25 * (uint64_t)r->step_rows) * 1000);
        if (i == 0)
            continue;
        uint32_t before = t.row[i - 1].step_rows;
        if (before == 40) {
            assert_int_equal(r->step_rows, 2);
            drained++;
        } else {
            assert_true(r->step_rows == before || r->step_rows == before + 1);
            grew += r->step_rows == before + 1;
        }
    }
    /* grow_p 0.5: about half the steps that can grow do. */
    assert_true(drained > 0);
    assert_true(grew > 0.4 * (double)(t.count - drained) && grew < 0.6 * (double)(t.count - drained));
    gar_trace_free(&t);
}

/* A parameter set twice through set_once is refused, naming the second
 * assignment; the first value stays. */
static void a_parameter_is_set_once(void **state)
{
    (void)state;
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_DECODE);
    unsigned given = 0;
    gar_error err;
    assert_int_equal(gar_gen_spec_set_once(&spec, &given, "rows_max=40", &err), 0);
    assert_int_equal(gar_gen_spec_set_once(&spec, &given, "rows_min=2", &err), 0);
    assert_int_equal(gar_gen_spec_set_once(&spec, &given, "rows_max=50", &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "rows_max=50");
    assert_non_null(strstr(err.argv[2], "given before"));
    char label[512];
    gar_gen_spec_label(&spec, label, sizeof label);
    assert_non_null(strstr(label, "rows_max=40"));
}

static void bad_specs_are_refused(void **state)
{
    (void)state;
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_DECODE);
    gar_error err;
    assert_int_equal(gar_gen_spec_set(&spec, "colour=3", &err), -GAR_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.argv[2], "rows_max"));
    assert_int_equal(gar_gen_spec_set(&spec, "rows_max", &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_gen_spec_set(&spec, "rows_max=", &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_gen_spec_set(&spec, "rows_max=0x10", &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_gen_spec_set(&spec, "rows_max=nan", &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_gen_spec_set(&spec, "rows_max=2.5", &err), -GAR_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.argv[2], "whole"));
    assert_int_equal(gar_gen_spec_set(&spec, "grow_p=1.5", &err), -GAR_E_INVALID_ARGUMENT);
    assert_non_null(strstr(err.argv[2], "out of bounds"));
    assert_int_equal(gar_gen_spec_set(&spec, "sd_us=-1", &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_gen_spec_set(&spec, "rows_min=80", &err), 0);
    gar_trace t;
    assert_int_equal(gar_gen_run(&spec, 10, 1, &t, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "rows_min");
    assert_int_equal(t.count, 0);
    spec = gar_gen_spec_default(GAR_GEN_STEADY);
    assert_int_equal(gar_gen_run(&spec, 0, 1, &t, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "--waits");
    gar_gen_kind kind;
    assert_int_equal(gar_gen_kind_parse("decode", &kind, NULL), 0);
    assert_int_equal(kind, GAR_GEN_DECODE);
    assert_int_equal(gar_gen_kind_parse("Decode", &kind, &err), -GAR_E_INVALID_ARGUMENT);
}

static void label_names_every_parameter(void **state)
{
    (void)state;
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_BIMODAL);
    assert_int_equal(gar_gen_spec_set(&spec, "prefill_p=0.3", NULL), 0);
    char label[256];
    size_t need = gar_gen_spec_label(&spec, label, sizeof label);
    assert_string_equal(label, "launch_us=30 gap_us=100 prefill_us=20000 decode_us=2000 "
                               "prefill_p=0.3 sd_us=50");
    assert_int_equal(need, strlen(label));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_trace_other_seed_other_trace),
        cmocka_unit_test(steady_is_exact),
        cmocka_unit_test(jitter_has_its_mean_and_sd),
        cmocka_unit_test(bimodal_mixes_two_points),
        cmocka_unit_test(drift_ramps_then_jumps_back),
        cmocka_unit_test(decode_rows_grow_and_drive_the_residual),
        cmocka_unit_test(shift_changes_regime_and_back),
        cmocka_unit_test(bad_specs_are_refused),
        cmocka_unit_test(a_parameter_is_set_once),
        cmocka_unit_test(label_names_every_parameter),
    };
    return cmocka_run_group_tests_name("gen", tests, NULL, NULL);
}
