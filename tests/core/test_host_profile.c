/* tests/core/test_host_profile.c — gar-host v1 as libgar reads it: every
 * fault is refused with its line and its key, a level is named as the text
 * spells it, the leads are the one table, and quantile sampling inverts the
 * CDF.  (Loading the bundled files: tests/sim/test_host_profile_file.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/host_profile.h>

#include "core/host_dist.h"
#include "core/splitmix64.h"

#define VALID_TAIL                                                                 \
    "query_ns 250\n"                                                               \
    "clock_ns 24\n"                                                                \
    "word_wait no\n"                                                               \
    "sleep_overshoot_ns p0=1000 p50=2000 p90=3000 p99=4000 p100=5000\n"            \
    "block_wake_ns p0=10 p50=20 p90=30 p99=40 p100=50\n"                           \
    "park_wake_ns p0=7 p50=7 p90=7 p99=7 p100=7\n"                                 \
    "poll_period_ns p0=1 p50=2 p90=3 p99=4 p100=5\n"

static int parse(const char *text, gar_host_profile *p, gar_error *err)
{
    return gar_host_profile_parse(text, strlen(text), "t.host", p, err);
}

static void a_valid_text_fills_every_field(void **state)
{
    (void)state;
    gar_host_profile p;
    gar_error err;
    const char *text = "gar-host v1   # header comment\r\n"
                       "# a comment line\n"
                       "\n"
                       "\tquery_ns\t250  # trailing comment\n"
                       "clock_ns 24\n"
                       "word_wait yes\n"
                       "poll_period_ns p0=1 p50=2 p90=3 p99=4 p99.9=5 p100=6\n"
                       "sleep_overshoot_ns p0=1000 p50=2000 p90=3000 p99=4000 p100=5000\n"
                       "block_wake_ns p0=10 p50=20 p90=30 p99=40 p100=50\n"
                       "park_wake_ns p0=7 p50=7 p90=7 p99=7 p100=7";
    assert_int_equal(parse(text, &p, &err), 0);
    assert_int_equal(p.query_ns, 250);
    assert_int_equal(p.clock_ns, 24);
    assert_true(p.word_wait);
    assert_int_equal(p.poll_period.count, 6);
    assert_int_equal(p.poll_period.level[4], 999000);
    assert_int_equal(p.poll_period.value[4], 5);
    assert_int_equal(p.poll_period.level[5], GAR_HOST_LEVEL_ONE);
    assert_int_equal(p.sleep_overshoot.value[1], 2000);
    assert_int_equal(p.block_wake.value[4], 50);
}

/* Each bad text against the line and a fragment of the fault it must name. */
static void faults_are_refused_with_their_line(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *line;
        const char *fault;
    } cases[] = {
        { "", "1", "first line must be 'gar-host v1'" },
        { "# comment first\ngar-host v1\n" VALID_TAIL, "1", "first line" },
        { "gar-host v2\n" VALID_TAIL, "1", "unsupported version 'v2'" },
        { "gar-host v1 extra\n" VALID_TAIL, "1", "unsupported version" },
        { "gar-host v1\n" VALID_TAIL "colour blue\n", "9", "unknown key 'colour'" },
        { "gar-host v1\n" VALID_TAIL "clock_ns 25\n", "9", "clock_ns given twice (first on line 3)" },
        { "gar-host v1\nquery_ns 1\n", "2", "missing key clock_ns" },
        { "gar-host v1\nquery_ns 01\n", "2", "query_ns: bad value '01'" },
        { "gar-host v1\nquery_ns -1\n", "2", "query_ns: bad value '-1'" },
        { "gar-host v1\nquery_ns 10000000001\n", "2", "query_ns: bad value" },
        { "gar-host v1\nquery_ns 1 2\n", "2", "query_ns takes one value" },
        { "gar-host v1\nquery_ns\n", "2", "query_ns takes one value" },
        { "gar-host v1\nword_wait maybe\n", "2", "'maybe' is neither yes nor no" },
        { "gar-host v1\npark_wake_ns p0=1 p50=2 p90=3 p100=5\n", "2", "missing p99" },
        { "gar-host v1\npark_wake_ns p0=1 p50=2 p90=3 p99=4\n", "2", "missing p100" },
        { "gar-host v1\npark_wake_ns p0=1 p90=3 p50=2 p99=4 p100=5\n", "2", "levels must increase" },
        { "gar-host v1\npark_wake_ns p0=1 p50=3 p90=2 p99=4 p100=5\n", "2", "must not decrease" },
        { "gar-host v1\npark_wake_ns p0=1 p50=2 p90=3 p99=4 p101=5\n", "2", "bad level 'p101'" },
        { "gar-host v1\npark_wake_ns p0=1 p50.0=2 p90=3 p99=4 p100=5\n", "2", "bad level 'p50.0'" },
        { "gar-host v1\npark_wake_ns p0=1 p50=2 p90=3 p99.90=4 p100=5\n", "2", "bad level" },
        { "gar-host v1\npark_wake_ns p0=1 p50=2 p90=3 p99.12345=4 p100=5\n", "2", "bad level" },
        { "gar-host v1\npark_wake_ns p0=1 p50 p90=3 p99=4 p100=5\n", "2", "'p50' is not pLEVEL=NS" },
        { "gar-host v1\npark_wake_ns p0=1 p50=x p90=3 p99=4 p100=5\n", "2", "bad value 'x'" },
        { "gar-host v1\npark_wake_ns p0=1\n", "2", "takes quantiles" },
        { "gar-host v1\npark_wake_ns p0=0 p1=1 p2=1 p3=1 p4=1 p5=1 p6=1 p7=1 p8=1 p9=1 p10=1 "
          "p50=2 p90=3 p99=4 p99.5=4 p99.9=4 p100=5\n", "2", "more than 16 quantiles" },
        { "gar-host v1\npoll_period_ns p0=0 p50=2 p90=3 p99=4 p100=5\n", "2", "p0 must be at least 1" },
        /* The optional keys: checked as any other, and only the stated leads exist. */
        { "gar-host v1\n" VALID_TAIL "block_wake_ns@2ms p0=1 p50=2 p90=3 p99=4 p100=5\n", "9",
          "unknown key 'block_wake_ns@2ms'" },
        { "gar-host v1\n" VALID_TAIL "store_visible_ns p0=1 p50=2 p90=3 p99=4 p100=5\n"
          "store_visible_ns p0=1 p50=2 p90=3 p99=4 p100=5\n", "10", "store_visible_ns given twice" },
        { "gar-host v1\n" VALID_TAIL "sleep_overshoot_ns@1ms p0=1 p50=2 p90=3 p100=5\n", "9",
          "sleep_overshoot_ns@1ms: missing p99" },
        { "gar-host v1\n" VALID_TAIL "block_wake_ns@1ms p0=1 p50=2 p90=3 p99=4 p100=5\n"
          "block_wake_ns@1ms p0=1 p50=2 p90=3 p99=4 p100=5\n", "10",
          "block_wake_ns@1ms given twice (first on line 9)" },
        /* Only the keys that take leads take them, and only the table's. */
        { "gar-host v1\n" VALID_TAIL "park_wake_ns@1ms p0=1 p50=2 p90=3 p99=4 p100=5\n", "9",
          "unknown key 'park_wake_ns@1ms'" },
        { "gar-host v1\n" VALID_TAIL "store_visible_ns@ p0=1 p50=2 p90=3 p99=4 p100=5\n", "9",
          "unknown key 'store_visible_ns@'" },
        { "gar-host v1\n" VALID_TAIL "block_wake_ns@1ms@1ms p0=1 p50=2 p90=3 p99=4 p100=5\n", "9",
          "unknown key 'block_wake_ns@1ms@1ms'" },
        /* Whole faults, as a user reads them: a level is named as the text
         * spells it, a bound in full. */
        { "gar-host v1\npark_wake_ns p0=1 p50=2 p90=3 p99.99=4 p99.9=4 p100=5\n", "2",
          "park_wake_ns: levels must increase ('p99.9' after p99.99)" },
        { "gar-host v1\npark_wake_ns p0=1 p0.0001=1 p0.0001=1 p50=2 p90=3 p99=4 p100=5\n", "2",
          "park_wake_ns: levels must increase ('p0.0001' after p0.0001)" },
        { "gar-host v1\npark_wake_ns p12.5=1 p0=1 p50=2 p90=3 p99=4 p100=5\n", "2",
          "park_wake_ns: levels must increase ('p0' after p12.5)" },
        { "gar-host v1\npark_wake_ns p50=2 p90=3 p99=4 p100=5\n", "2",
          "park_wake_ns: missing p0 (p0, p50, p90, p99 and p100 are required)" },
        { "gar-host v1\nclock_ns 10000000001\n", "2",
          "clock_ns: bad value '10000000001' (whole ns, 0..10000000000)" },
        { "gar-host v1\npark_wake_ns p0=1 p50=2 p90=3 p99=4 p100=5 p100=6\n", "2",
          "park_wake_ns: levels must increase ('p100' after p100)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gar_host_profile p;
        memset(&p, 0xA5, sizeof p);
        gar_host_profile before = p;
        gar_error err;
        int rc = parse(cases[i].text, &p, &err);
        if (rc != -GAR_E_INVALID_HOST_PROFILE || strcmp(err.argv[1], cases[i].line) != 0 ||
            strstr(err.argv[2], cases[i].fault) == NULL)
            fail_msg("case %zu: rc %d, line %s, fault '%s'", i, rc, err.argv[1], err.argv[2]);
        assert_string_equal(err.argv[0], "t.host");
        assert_memory_equal(&p, &before, sizeof p); /* nothing half-loaded */
    }
}

/* The optional keys fill their fields; left out, a distribution has count 0. */
static void optional_keys_fill_their_fields(void **state)
{
    (void)state;
    gar_host_profile p;
    gar_error err;
    assert_int_equal(parse("gar-host v1\n" VALID_TAIL, &p, &err), 0);
    assert_int_equal(p.store_visible.count, 0);
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        assert_int_equal(p.sleep_overshoot_at[k].count, 0);
        assert_int_equal(p.block_wake_at[k].count, 0);
    }
    const char *text = "gar-host v1\n" VALID_TAIL
                       "store_visible_ns p0=100 p50=200 p90=300 p99=400 p100=500\n"
                       "sleep_overshoot_ns@100us p0=1 p50=1 p90=1 p99=1 p100=1\n"
                       "sleep_overshoot_ns@10ms p0=9 p50=9 p90=9 p99=9 p100=9\n"
                       "block_wake_ns@300us p0=3 p50=3 p90=3 p99=3 p100=3\n"
                       "block_wake_ns@1ms p0=4 p50=4 p90=4 p99=4 p100=4\n"
                       "block_wake_ns@3ms p0=5 p50=5 p90=5 p99=5 p100=5\n";
    assert_int_equal(parse(text, &p, &err), 0);
    assert_int_equal(p.store_visible.count, 5);
    assert_int_equal(p.store_visible.value[1], 200);
    assert_int_equal(p.sleep_overshoot_at[0].value[0], 1);
    assert_int_equal(p.sleep_overshoot_at[1].count, 0);
    assert_int_equal(p.sleep_overshoot_at[4].value[0], 9);
    assert_int_equal(p.block_wake_at[0].count, 0);
    assert_int_equal(p.block_wake_at[1].value[0], 3);
    assert_int_equal(p.block_wake_at[2].value[0], 4);
    assert_int_equal(p.block_wake_at[3].value[0], 5);
    assert_int_equal(gar_host_lead_ns(2), GAR_NS_PER_MS);
    assert_string_equal(gar_host_lead_name(4), "10ms");
    assert_null(gar_host_lead_name(GAR_HOST_LEADS));
}

/* A wait takes the stated lead nearest its length in ratio; none stated: the base. */
static void a_wait_takes_the_nearest_stated_lead(void **state)
{
    (void)state;
    gar_host_dist base = { 0 }, at[GAR_HOST_LEADS];
    memset(at, 0, sizeof at);
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, GAR_NS_PER_MS), &base);
    at[2].count = 5; /* 1 ms only: every length takes it */
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, 0), &at[2]);
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, 10 * GAR_NS_PER_S), &at[2]);
    at[2].count = 0;
    at[0].count = at[4].count = 5; /* 100 µs and 10 ms: the midpoint in ratio is 1 ms */
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, 999999), &at[0]);
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, GAR_NS_PER_MS), &at[4]); /* a tie: longer */
    at[1].count = at[2].count = at[3].count = 5; /* all: 173, 548, 1732, 5477 µs between */
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, 173000), &at[0]);
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, 174000), &at[1]);
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, 850000), &at[2]);
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, 5 * GAR_NS_PER_MS), &at[3]);
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, 6 * GAR_NS_PER_MS), &at[4]);
    assert_ptr_equal(gar_host_dist_for_lead(&base, at, UINT64_MAX), &at[4]);
    /* The rule itself, over the leads a mask states: the calibration files
     * samples by it with every lead stated. */
    assert_int_equal(gar_host_lead_nearest(GAR_NS_PER_MS, 0), -1);
    assert_int_equal(gar_host_lead_nearest(0, 0x1f), 0);
    assert_int_equal(gar_host_lead_nearest(173000, 0x1f), 0);
    assert_int_equal(gar_host_lead_nearest(174000, 0x1f), 1);
    assert_int_equal(gar_host_lead_nearest(UINT64_MAX, 0x1f), 4);
    assert_int_equal(gar_host_lead_nearest(UINT64_MAX, 0x01), 0);
    assert_int_equal(gar_host_lead_nearest(999999, 0x11), 0);
    assert_int_equal(gar_host_lead_nearest(GAR_NS_PER_MS, 0x11), 4);
}

/* A refusal reads as one message: the profile's name, the line, the fault. */
static void a_refusal_reads_as_one_message(void **state)
{
    (void)state;
    gar_host_profile p;
    gar_error err;
    assert_int_equal(parse("gar-host v1\n" VALID_TAIL "store_visible_ns@3ms p0=5 p50=4\n", &p,
                           &err),
                     -GAR_E_INVALID_HOST_PROFILE);
    char text[256];
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "t.host:9: store_visible_ns@3ms: values must not decrease "
                              "(p50=4 below the one before)");
    /* A fault longer than a record keeps is cut, never overrun. */
    char line[2048] = "gar-host v1\nword_wait ";
    memset(line + strlen(line), 'x', 1500);
    assert_int_equal(parse(line, &p, &err), -GAR_E_INVALID_HOST_PROFILE);
    assert_true(strlen(err.argv[2]) < GAR_ERROR_ARG_BYTES);
    assert_non_null(strstr(err.argv[2], "word_wait: 'xxx"));
}

/* Two leads' distributions of two points each, p0 = p100 = one value: a
 * constant, so a sample is exactly that value whatever the draw. */
static gar_host_dist constant(gar_dur_ns v)
{
    return (gar_host_dist){ .count = 2, .level = { 0, GAR_HOST_LEVEL_ONE }, .value = { v, v } };
}

/* A length between two stated leads draws both at the same draw and mixes
 * them linearly in the length; outside them it takes the nearer end's;
 * with none stated, the base. */
static void a_length_between_leads_mixes_their_samples(void **state)
{
    (void)state;
    gar_host_dist base = constant(7), at[GAR_HOST_LEADS];
    memset(at, 0, sizeof at);
    const uint64_t draw = UINT64_C(1) << 63;
    assert_int_equal(gar_host_lead_sample(&base, at, 2 * GAR_NS_PER_MS, draw), 7);
    at[2] = constant(61700); /* 1 ms */
    at[3] = constant(75800); /* 3 ms */
    assert_int_equal(gar_host_lead_sample(&base, at, 0, draw), 61700);
    assert_int_equal(gar_host_lead_sample(&base, at, GAR_NS_PER_MS, draw), 61700);
    /* 2 ms, half way: 61.7 + 14.1 / 2 µs, where the nearest lead stepped to 75.8. */
    assert_int_equal(gar_host_lead_sample(&base, at, 2 * GAR_NS_PER_MS, draw), 68750);
    assert_int_equal(gar_host_lead_sample(&base, at, 3 * GAR_NS_PER_MS, draw), 75800);
    assert_int_equal(gar_host_lead_sample(&base, at, UINT64_MAX, draw), 75800);
    /* A shorter lead may wake later: the mix goes down as well. */
    at[3] = constant(41700);
    assert_int_equal(gar_host_lead_sample(&base, at, 2 * GAR_NS_PER_MS, draw), 51700);
    /* Quantile by quantile: a uniform 0..1000 at 1 ms and 1000..3000 at
     * 3 ms, at 1.5 ms (a quarter of the way), draw at the median: 500 and
     * 2000 mixed, 875. */
    at[2] = (gar_host_dist){ .count = 2, .level = { 0, GAR_HOST_LEVEL_ONE }, .value = { 0, 1000 } };
    at[3] = (gar_host_dist){ .count = 2, .level = { 0, GAR_HOST_LEVEL_ONE }, .value = { 1000, 3000 } };
    assert_int_equal(gar_host_lead_sample(&base, at, 1500000, draw), 875);
    /* Leads not stated in between are skipped: 1 ms and 10 ms around 5.5 ms. */
    at[3].count = 0;
    at[4] = constant(10000);
    at[2] = constant(1000);
    assert_int_equal(gar_host_lead_sample(&base, at, 5500000, draw), 5500);
}

static void a_nul_byte_is_refused(void **state)
{
    (void)state;
    static const char text[] = "gar-host v1\nquery_ns 1\0\n";
    gar_host_profile p;
    gar_error err;
    assert_int_equal(gar_host_profile_parse(text, sizeof text - 1, "t", &p, &err),
                     -GAR_E_INVALID_HOST_PROFILE);
    assert_string_equal(err.argv[1], "2");
}

static void null_arguments_are_refused(void **state)
{
    (void)state;
    gar_host_profile p;
    gar_error err;
    assert_int_equal(gar_host_profile_parse(NULL, 0, "t", NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_host_profile_parse(NULL, 0, "t", &p, &err), -GAR_E_INVALID_HOST_PROFILE);
    assert_int_equal(gar_host_profile_parse(NULL, 3, "t", &p, &err), -GAR_E_INVALID_ARGUMENT);
}

static uint64_t draw_at(double u)
{
    return (uint64_t)(u * 4294967296.0) << 32;
}

static void sampling_interpolates_the_inverse_cdf(void **state)
{
    (void)state;
    gar_host_dist d = { 5, { 0, 500000, 900000, 990000, 1000000 }, { 100, 1000, 5000, 9000, 20000 } };
    assert_int_equal(gar_host_dist_sample(&d, 0), 100);
    assert_int_equal(gar_host_dist_median(&d), 1000);
    assert_int_equal(gar_host_dist_sample(&d, draw_at(0.25)), 550);
    assert_in_range(gar_host_dist_sample(&d, draw_at(0.7)), 2999, 3000);
    assert_in_range(gar_host_dist_sample(&d, draw_at(0.9)), 4999, 5000);
    assert_in_range(gar_host_dist_sample(&d, draw_at(0.995)), 14499, 14500);
    assert_in_range(gar_host_dist_sample(&d, UINT64_MAX), 19990, 19999); /* never past p100 */

    /* Evenly spread draws reproduce the stated levels, and samples rise with the draw. */
    unsigned below_p90 = 0, below_p50 = 0;
    gar_dur_ns last = 0;
    const unsigned n = 100000;
    for (unsigned i = 0; i < n; i++) {
        uint64_t draw = (uint64_t)(((double)i + 0.5) / n * 18446744073709551616.0);
        gar_dur_ns v = gar_host_dist_sample(&d, draw);
        assert_true(v >= last);
        last = v;
        below_p50 += v < 1000;
        below_p90 += v < 5000;
    }
    assert_in_range(below_p50, n / 2 - 2, n / 2 + 2);
    assert_in_range(below_p90, n * 9 / 10 - 2, n * 9 / 10 + 2);
}

static void an_all_equal_distribution_is_a_constant(void **state)
{
    (void)state;
    gar_host_dist d = { 5, { 0, 500000, 900000, 990000, 1000000 }, { 7, 7, 7, 7, 7 } };
    assert_int_equal(gar_host_dist_sample(&d, 0), 7);
    assert_int_equal(gar_host_dist_sample(&d, UINT64_MAX), 7);
    assert_int_equal(gar_host_dist_sample(&d, 0x123456789abcdefULL), 7);
    /* A large span must not overflow: 0 .. 10 s. */
    gar_host_dist big = { 2, { 0, 1000000 }, { 0, GAR_HOST_NS_MAX } };
    assert_in_range(gar_host_dist_median(&big), GAR_HOST_NS_MAX / 2 - 1, GAR_HOST_NS_MAX / 2);
}

/* The sampler's segment position, by 64-bit integer division: what the
 * sampler computed before it divided in double, and must still compute. */
static uint64_t reference_frac(const gar_host_dist *d, uint64_t draw, unsigned *segment)
{
    uint64_t pos = (draw >> 32) * GAR_HOST_LEVEL_ONE;
    unsigned i = 0;
    while (i + 2 < d->count && pos >= (uint64_t)d->level[i + 1] << 32)
        i++;
    *segment = i;
    return (pos - ((uint64_t)d->level[i] << 32)) / (d->level[i + 1] - d->level[i]);
}

static void sampling_divides_exactly(void **state)
{
    (void)state;
    /* Level gaps from one ppm to the whole range, draws at random and at the
     * edges of every segment (where a rounded quotient would show). */
    gar_host_dist d = { 6, { 0, 1, 3, 500000, 999999, GAR_HOST_LEVEL_ONE },
                        { 0, 10, 20, 30, GAR_HOST_NS_MAX - 1, GAR_HOST_NS_MAX } };
    gar_host_dist whole = { 2, { 0, GAR_HOST_LEVEL_ONE }, { 0, GAR_HOST_NS_MAX } };
    gar_host_dist thirds = { 4, { 0, 333333, 666667, GAR_HOST_LEVEL_ONE }, { 5, 7, 700, 7000 } };
    const gar_host_dist *dists[] = { &d, &whole, &thirds };
    uint64_t g = 9;
    for (size_t k = 0; k < 3; k++)
        for (unsigned n = 0; n < 300000; n++) {
            uint64_t draw = gar_splitmix64(&g);
            if (n % 3 == 1) /* just below or at a level's edge */
                draw = ((((uint64_t)dists[k]->level[n % dists[k]->count] << 32) /
                         GAR_HOST_LEVEL_ONE) + (n % 5) - 2) << 32;
            unsigned i;
            uint64_t frac = reference_frac(dists[k], draw, &i);
            const gar_host_dist *x = dists[k];
            gar_dur_ns want = x->value[i] + (gar_dur_ns)((((x->value[i + 1] - x->value[i]) >> 32)
                                                          * frac) +
                                                         ((((x->value[i + 1] - x->value[i]) &
                                                            UINT32_MAX) * frac) >> 32));
            assert_int_equal(gar_host_dist_sample(x, draw), want);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_valid_text_fills_every_field),
        cmocka_unit_test(faults_are_refused_with_their_line),
        cmocka_unit_test(optional_keys_fill_their_fields),
        cmocka_unit_test(a_wait_takes_the_nearest_stated_lead),
        cmocka_unit_test(a_nul_byte_is_refused),
        cmocka_unit_test(a_refusal_reads_as_one_message),
        cmocka_unit_test(null_arguments_are_refused),
        cmocka_unit_test(sampling_interpolates_the_inverse_cdf),
        cmocka_unit_test(a_length_between_leads_mixes_their_samples),
        cmocka_unit_test(an_all_equal_distribution_is_a_constant),
        cmocka_unit_test(sampling_divides_exactly),
    };
    return cmocka_run_group_tests_name("host_profile", tests, NULL, NULL);
}
