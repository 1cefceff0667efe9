/* tests/sim/test_replay_stream.c — a replay over rows read as they come
 * gives, metric for metric, what a replay of the whole trace in memory
 * gives (every bundled trace, plans with and without predict, auto with its
 * lead from a first pass, open and closed loop, many streams); and past its
 * exact budget a replay's quantiles are within the histogram's relative
 * error of the exact ones, its intervals holding the exact intervals. */
#define _DEFAULT_SOURCE

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gar/bands.h>
#include <gar/plan.h>

#include "many_streams.h"
#include "sim/replay.h"

static const char *const traces[] = { "bimodal", "decode", "drift", "jitter", "steady" };
static const char *const plans[] = {
    "poll",
    "flag:park_us=100,backstop_us=1000+predict:margin_us=150,min_sleep_us=20,"
    "max_sleep_us=50000,window=8",
    "block;rows>=32:flag:park_us=100,backstop_us=1000",
    "auto:p99_us=20",
};

static gar_host_profile waitpkg(void)
{
    gar_host_profile host;
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts/waitpkg.host", &host, NULL), 0);
    return host;
}

static void assert_same_streams(const gar_replay_streams *a, const gar_replay_streams *b)
{
    assert_int_equal(a->count, b->count);
    assert_memory_equal(a->stream, b->stream, a->count * sizeof a->stream[0]);
}

/* Runs `c` over its trace in memory, then over the same file streamed,
 * and checks the two agree in every byte of their metrics and streams. */
static void check_streamed_equals_whole(gar_replay_config c, const char *path)
{
    gar_replay_metrics whole, streamed;
    gar_replay_streams whole_streams, streamed_streams;
    c.streams_out = &whole_streams;
    assert_int_equal(gar_replay_run(&c, &whole, NULL), 0);

    gar_error err;
    gar_trace_stream *s;
    const gar_trace *trace = c.trace;
    c.trace = NULL;
    c.streams_out = &streamed_streams;
    gar_trace_cursor first_pass = { trace, 0 };
    assert_int_equal(gar_replay_lead_of(gar_trace_cursor_source, &first_pass, &c.lead_ns, NULL),
                     0);
    c.has_lead = true;
    assert_int_equal(gar_trace_stream_open(&s, path, &err), 0);
    c.rows = gar_trace_stream_source;
    c.rows_context = s;
    assert_int_equal(gar_replay_run(&c, &streamed, &err), 0);
    gar_trace_stream_close(s);
    assert_memory_equal(&whole, &streamed, sizeof whole);
    assert_false(streamed.quantiles_histogram);
    assert_same_streams(&whole_streams, &streamed_streams);
    gar_replay_streams_free(&whole_streams);
    gar_replay_streams_free(&streamed_streams);
}

static void every_bundled_trace_streams_as_it_replays_whole(void **state)
{
    (void)state;
    gar_host_profile host = waitpkg();
    for (size_t t = 0; t < sizeof traces / sizeof traces[0]; t++) {
        char path[512];
        snprintf(path, sizeof path, GAR_DATA_DIR "/traces/%s.csv", traces[t]);
        gar_trace trace;
        assert_int_equal(gar_trace_read_file(&trace, path, NULL), 0);
        for (size_t p = 0; p < sizeof plans / sizeof plans[0]; p++) {
            gar_bands bands;
            assert_int_equal(gar_bands_parse(plans[p], &bands, NULL), 0);
            /* Closed loop under one plan: its carry from row to row crosses
             * the blocks as the open loop does. */
            int last_mode = p == 1 ? GAR_REPLAY_CLOSED : GAR_REPLAY_OPEN;
            for (int mode = GAR_REPLAY_OPEN; mode <= last_mode; mode++) {
                gar_replay_config c;
                gar_replay_config_init(&c);
                c.trace = &trace;
                c.bands = &bands;
                c.host = &host;
                c.mode = (gar_replay_mode)mode;
                c.seed = 7;
                check_streamed_equals_whole(c, path);
            }
        }
        gar_trace_free(&trace);
    }
}

/* Streams the run learns as they come: the device grows under waits in
 * flight on other streams, and the per-stream results keep their order. */
static void many_streams_learnt_as_they_come(void **state)
{
    (void)state;
    gar_host_profile host = waitpkg();
    gar_trace trace;
    assert_int_equal(many_streams_queued(&trace, 3000, 300, 4, 3), 0);
    char path[] = "/tmp/gar-replay-stream-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(gar_trace_write_file(&trace, NULL, path, NULL), 0);
    gar_plan plan;
    assert_int_equal(gar_plan_parse("flag:park_us=100,backstop_us=1000", &plan, NULL), 0);
    for (int mode = GAR_REPLAY_OPEN; mode <= GAR_REPLAY_CLOSED; mode++) {
        gar_replay_config c;
        gar_replay_config_init(&c);
        c.trace = &trace;
        c.plan = &plan;
        c.host = &host;
        c.mode = (gar_replay_mode)mode;
        check_streamed_equals_whole(c, path);
    }
    unlink(path);
    gar_trace_free(&trace);
}

static void assert_within(uint64_t got, uint64_t exact)
{
    double rel = exact > 0 ? fabs((double)got - (double)exact) / (double)exact : (double)got;
    if (rel > GAR_SKETCH_RELATIVE_ERROR)
        fail_msg("%llu against exact %llu: relative error %g", (unsigned long long)got,
                 (unsigned long long)exact, rel);
}

static void assert_quantiles_within(const gar_replay_quantiles *got,
                                    const gar_replay_quantiles *exact)
{
    assert_within(got->p50, exact->p50);
    assert_within(got->p90, exact->p90);
    assert_within(got->p99, exact->p99);
    assert_int_equal(got->max, exact->max);
}

/* An interval from the histogram holds the exact one: the same ends exist,
 * the low one at or below, the high one at or above. */
static void assert_interval_holds(const gar_quantile_interval *got,
                                  const gar_quantile_interval *exact)
{
    assert_int_equal(got->has_lo, exact->has_lo);
    assert_int_equal(got->has_hi, exact->has_hi);
    if (got->has_lo) {
        assert_true(got->lo <= exact->lo);
        assert_within(got->lo, exact->lo); /* widened by at most a bucket */
    }
    if (got->has_hi) {
        assert_true(got->hi >= exact->hi);
        assert_within(got->hi, exact->hi);
    }
}

static void assert_intervals_hold(const gar_replay_intervals *got,
                                  const gar_replay_intervals *exact)
{
    assert_interval_holds(&got->p50, &exact->p50);
    assert_interval_holds(&got->p90, &exact->p90);
    assert_interval_holds(&got->p99, &exact->p99);
}

/* Past the exact budget (set low here: 1 000 values) the quantiles come from
 * the histogram: within its relative error of the exact run's, the counts
 * and sums unchanged, per stream too. */
static void past_the_budget_quantiles_are_within_the_error(void **state)
{
    (void)state;
    gar_host_profile host = waitpkg();
    gar_trace trace;
    assert_int_equal(many_streams_serial(&trace, 20000, 6, 2, 11), 0);
    gar_plan plan;
    assert_int_equal(gar_plan_parse("poll+predict:margin_us=150,min_sleep_us=20,"
                                    "max_sleep_us=50000,window=8",
                                    &plan, NULL),
                     0);
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = &trace;
    c.plan = &plan;
    c.host = &host;
    gar_replay_metrics exact, sketched;
    gar_replay_streams exact_streams, sketched_streams;
    c.streams_out = &exact_streams;
    assert_int_equal(gar_replay_run(&c, &exact, NULL), 0);
    assert_false(exact.quantiles_histogram);
    c.exact_max = 1000;
    c.streams_out = &sketched_streams;
    assert_int_equal(gar_replay_run(&c, &sketched, NULL), 0);
    assert_true(sketched.quantiles_histogram);
    assert_true(exact.predictions > 1000);

    assert_quantiles_within(&sketched.overshoot_ns, &exact.overshoot_ns);
    assert_quantiles_within(&sketched.estimator_error_ns, &exact.estimator_error_ns);
    assert_intervals_hold(&sketched.overshoot_ci, &exact.overshoot_ci);
    assert_intervals_hold(&sketched.estimator_error_ci, &exact.estimator_error_ci);
    /* Everything that is not a quantile is as it was. */
    assert_int_equal(sketched.waits, exact.waits);
    assert_int_equal(sketched.busy_ns, exact.busy_ns);
    assert_int_equal(sketched.queries, exact.queries);
    assert_int_equal(sketched.makespan_ns, exact.makespan_ns);
    assert_memory_equal(&sketched.diagnosis, &exact.diagnosis, sizeof exact.diagnosis);

    assert_int_equal(sketched_streams.count, exact_streams.count);
    for (size_t s = 0; s < exact_streams.count; s++) {
        assert_int_equal(sketched_streams.stream[s].stream, exact_streams.stream[s].stream);
        assert_int_equal(sketched_streams.stream[s].waits, exact_streams.stream[s].waits);
        assert_quantiles_within(&sketched_streams.stream[s].overshoot_ns,
                                &exact_streams.stream[s].overshoot_ns);
    }
    gar_replay_streams_free(&exact_streams);
    gar_replay_streams_free(&sketched_streams);
    gar_trace_free(&trace);
}

/* What a streamed run needs and what it refuses. */
static void streamed_runs_refuse_what_they_cannot_do(void **state)
{
    (void)state;
    gar_host_profile host = waitpkg();
    gar_trace trace;
    assert_int_equal(gar_trace_read_file(&trace, GAR_DATA_DIR "/traces/steady.csv", NULL), 0);
    gar_plan plan;
    assert_int_equal(gar_plan_parse("auto:p99_us=20", &plan, NULL), 0);
    gar_trace_cursor cursor = { &trace, 0 };
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.rows = gar_trace_cursor_source;
    c.rows_context = &cursor;
    c.plan = &plan;
    c.host = &host;
    gar_replay_metrics m;
    gar_error err;
    /* auto over rows read once needs its lead given */
    assert_int_equal(gar_replay_run(&c, &m, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "lead_ns");
    /* a trace and rows both, or neither */
    c.trace = &trace;
    assert_int_equal(gar_replay_run(&c, &m, &err), -GAR_E_INVALID_ARGUMENT);
    c.trace = NULL;
    c.rows = NULL;
    assert_int_equal(gar_replay_run(&c, &m, &err), -GAR_E_INVALID_ARGUMENT);
    /* rows that are none */
    gar_trace empty;
    gar_trace_init(&empty);
    gar_trace_cursor none = { &empty, 0 };
    c.rows = gar_trace_cursor_source;
    c.rows_context = &none;
    c.has_lead = true;
    assert_int_equal(gar_replay_run(&c, &m, &err), -GAR_E_INVALID_ARGUMENT);
    gar_trace_free(&trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_bundled_trace_streams_as_it_replays_whole),
        cmocka_unit_test(many_streams_learnt_as_they_come),
        cmocka_unit_test(past_the_budget_quantiles_are_within_the_error),
        cmocka_unit_test(streamed_runs_refuse_what_they_cannot_do),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
