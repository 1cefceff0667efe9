/* tests/sim/test_replay.c — replays of steady traces with exact expectations
 * for every plan, open and closed loop, faults, and determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sim/prng.h"

#include "sim/replay.h"
#include "sim_world.h"

#define N 20
#define RESIDUAL_NS GAR_NS_PER_MS
#define GAP_NS (100 * GAR_NS_PER_US)
#define PERIOD_NS (RESIDUAL_NS + GAP_NS)

/* N waits at one point on one stream: submitted as the wait starts, done
 * 1 ms later, the next wait 100 µs after that. */
static gar_trace steady_trace(void)
{
    gar_trace t;
    gar_trace_init(&t);
    for (uint64_t i = 0; i < N; i++) {
        gar_trace_row row = { .point = 1, .submit_ns = i * PERIOD_NS, .start_ns = i * PERIOD_NS,
                              .done_ns = i * PERIOD_NS + RESIDUAL_NS };
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    }
    assert_int_equal(gar_trace_check(&t, "steady", NULL), 0);
    return t;
}

typedef struct fixture {
    gar_trace trace;
    gar_host_profile host;
    gar_plan plan;
    gar_replay_config config;
} fixture;

static int setup(void **state)
{
    static fixture f;
    f.trace = steady_trace();
    f.host = exact_profile(true);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gar_trace_free(&f->trace);
    return 0;
}

static gar_replay_metrics replay(fixture *f, gar_park park, bool predict, const char *estimator)
{
    f->plan = plan_of(park, predict);
    gar_replay_config_init(&f->config);
    f->config.trace = &f->trace;
    f->config.plan = &f->plan;
    f->config.host = &f->host;
    assert_int_equal(gar_estimator_spec_parse(estimator, &f->config.estimator, NULL), 0);
    gar_replay_metrics m;
    gar_error err;
    int rc = gar_replay_run(&f->config, &m, &err);
    if (rc != 0)
        fail_msg("replay failed: %d %s", rc, err.argv[0]);
    assert_int_equal(m.waits, N);
    assert_int_equal(m.busy_ns + m.parked_ns + m.asleep_ns, m.wait_ns);
    return m;
}

static void block_is_asleep_and_late_by_the_blocking_wake(void **state)
{
    gar_replay_metrics m = replay(*state, GAR_PARK_BLOCK, false, "adl");
    assert_int_equal(m.blocked, N);
    assert_int_equal(m.busy_ns, N * Q_NS);
    assert_int_equal(m.asleep_ns, N * (RESIDUAL_NS + BLOCK_NS - Q_NS));
    assert_int_equal(m.overshoot_ns.p50, BLOCK_NS);
    assert_int_equal(m.overshoot_ns.max, BLOCK_NS);
    assert_int_equal(m.queries, 0);
    assert_int_equal(m.predictions, 0);
    assert_true(m.busy_frac < 0.01);
}

static void poll_keeps_the_core_busy_the_whole_wait(void **state)
{
    gar_replay_metrics m = replay(*state, GAR_PARK_POLL, false, "adl");
    assert_int_equal(m.parked, N);
    assert_int_equal(m.busy_ns, m.wait_ns);
    assert_true(m.busy_frac == 1.0);
    assert_int_equal(m.wait_ns, N * (RESIDUAL_NS + Q_NS));
    assert_int_equal(m.overshoot_ns.p99, Q_NS);
    assert_int_equal(m.polls, N * 500);
    assert_int_equal(m.queries, N * 501);
    assert_int_equal(m.makespan_ns, (N - 1) * PERIOD_NS + RESIDUAL_NS + Q_NS);
}

static void poll_predict_is_busy_for_about_the_margin_less_the_overshoot(void **state)
{
    gar_replay_metrics m = replay(*state, GAR_PARK_POLL, true, "adl");
    /* The first wait is cold and polls 1 ms.  Each warm one sleeps p - 150 µs
     * (p = 1000 or 1001 µs), wakes 20 µs late and polls the rest: 130 or 132 µs busy. */
    assert_int_equal(m.sleeps, N - 1);
    assert_int_equal(m.late, 0);
    assert_in_range(m.busy_ns, (RESIDUAL_NS + Q_NS) + (N - 1) * 130000,
                    (RESIDUAL_NS + Q_NS) + (N - 1) * 132000);
    assert_in_range(m.overshoot_ns.max, 0, Q_NS);
    assert_true(m.busy_frac < 0.2);
    assert_int_equal(m.predictions, N - 1);
}

static void flag_parks_the_whole_wait_on_a_word_wait_host(void **state)
{
    gar_replay_metrics m = replay(*state, GAR_PARK_FLAG, false, "adl");
    assert_int_equal(m.parked, N);
    assert_int_equal(m.busy_ns, N * 3 * Q_NS);
    assert_int_equal(m.parked_ns, N * (RESIDUAL_NS + PARK_NS - 2 * Q_NS));
    assert_int_equal(m.asleep_ns, 0);
    assert_int_equal(m.parks, N * 10);
    assert_int_equal(m.queries, N * 2);
    assert_int_equal(m.backstop_queries, 0);
    assert_int_equal(m.overshoot_ns.p50, PARK_NS + Q_NS);
    assert_int_equal(m.overshoot_ns.max, PARK_NS + Q_NS);
}

static void flag_predict_sleeps_then_parks_the_margin(void **state)
{
    gar_replay_metrics m = replay(*state, GAR_PARK_FLAG, true, "adl");
    /* Cold first wait as plain flag (sample 1001.3 µs); then each sleeps
     * 851.3 µs, wakes 20 µs late, and parks 128 µs. */
    assert_int_equal(m.busy_ns, 3 * Q_NS + (N - 1) * 4 * Q_NS);
    assert_int_equal(m.parked_ns, (RESIDUAL_NS + PARK_NS - 2 * Q_NS) + (N - 1) * 128000);
    assert_int_equal(m.asleep_ns, (N - 1) * 869300);
    assert_int_equal(m.sleeps, N - 1);
    assert_int_equal(m.parks, 10 + (N - 1) * 2);
    assert_int_equal(m.overshoot_ns.max, PARK_NS + Q_NS);
    assert_int_equal(m.predictions, N - 1);
    assert_int_equal(m.estimator_error_ns.p50, PARK_NS + Q_NS);
    assert_int_equal(m.estimator_error_ns.p99, PARK_NS + Q_NS);
}

/* What the per-wait observer saw, summed. */
typedef struct seen_waits {
    uint64_t count, next_index, predicted, slept;
    gar_dur_ns max_overshoot;
    gar_dur_ns truth_sum;
} seen_waits;

static void observe(void *context, const gar_replay_wait *w)
{
    seen_waits *seen = context;
    assert_int_equal(w->index, seen->next_index);
    seen->next_index++;
    seen->count++;
    assert_true(w->end >= w->start);
    assert_int_equal(w->truth_ns, w->done > w->start ? w->done - w->start : 0);
    gar_mono_ns possible = w->done > w->start ? w->done : w->start;
    assert_int_equal(w->overshoot_ns, w->end - possible);
    if (w->overshoot_ns > seen->max_overshoot)
        seen->max_overshoot = w->overshoot_ns;
    seen->truth_sum += w->truth_ns;
    seen->predicted += w->predicted;
    seen->slept += w->sleep_ns > 0;
}

static void the_observer_sees_every_wait_as_the_metrics_count_it(void **state)
{
    fixture *f = *state;
    f->plan = plan_of(GAR_PARK_FLAG, true);
    gar_replay_config_init(&f->config);
    f->config.trace = &f->trace;
    f->config.plan = &f->plan;
    f->config.host = &f->host;
    seen_waits seen = { 0 };
    f->config.on_wait = observe;
    f->config.on_wait_context = &seen;
    gar_replay_metrics m;
    assert_int_equal(gar_replay_run(&f->config, &m, NULL), 0);
    assert_int_equal(seen.count, N);
    assert_int_equal(seen.max_overshoot, m.overshoot_ns.max);
    assert_int_equal(seen.predicted, m.predictions);
    assert_int_equal(seen.slept, m.sleeps);
    assert_int_equal(seen.truth_sum, N * RESIDUAL_NS);
}

static void the_estimator_families_change_only_the_sleep(void **state)
{
    gar_replay_metrics none = replay(*state, GAR_PARK_POLL, true, "none");
    gar_replay_metrics poll = replay(*state, GAR_PARK_POLL, false, "adl");
    assert_int_equal(none.busy_ns, poll.busy_ns);
    assert_int_equal(none.sleeps, 0);

    /* The oracle knows the 1 ms residual from the first wait on. */
    gar_replay_metrics oracle = replay(*state, GAR_PARK_POLL, true, "oracle");
    assert_int_equal(oracle.sleeps, N);
    assert_int_equal(oracle.predictions, N);
    assert_int_equal(oracle.estimator_error_ns.max, 0);
    assert_int_equal(oracle.busy_ns, N * 132000);

    /* Half the least (or mean) sample sleeps about half the wait. */
    gar_replay_metrics half = replay(*state, GAR_PARK_POLL, true, "half-min");
    assert_int_equal(half.sleeps, N - 1);
    assert_in_range(half.estimator_error_ns.p50, 499000, 501000);
    assert_true(half.busy_ns > oracle.busy_ns);
    gar_replay_metrics ewma = replay(*state, GAR_PARK_POLL, true, "ewma:alpha=0.5");
    assert_int_equal(ewma.sleeps, N - 1);
    gar_replay_metrics q = replay(*state, GAR_PARK_POLL, true, "quantile:q=0");
    gar_replay_metrics adl = replay(*state, GAR_PARK_POLL, true, "adl");
    assert_memory_equal(&q, &adl, sizeof q); /* q=0 is adl */
}

static void closed_loop_carries_each_late_wake_forward(void **state)
{
    fixture *f = *state;
    gar_replay_metrics open = replay(f, GAR_PARK_BLOCK, false, "adl");
    assert_int_equal(open.makespan_ns, (N - 1) * PERIOD_NS + RESIDUAL_NS + BLOCK_NS);

    f->config.mode = GAR_REPLAY_CLOSED;
    gar_replay_metrics closed;
    assert_int_equal(gar_replay_run(&f->config, &closed, NULL), 0);
    /* Every wait returns 30 µs after its completion and the host's 100 µs gap
     * follows that: each step is 30 µs longer. */
    assert_int_equal(closed.makespan_ns, N * (RESIDUAL_NS + BLOCK_NS) + (N - 1) * GAP_NS);
    assert_int_equal(closed.overshoot_ns.max, BLOCK_NS);
    assert_int_equal(closed.wait_ns, open.wait_ns);
}

static void closed_loop_keeps_device_durations_and_host_leads(void **state)
{
    fixture *f = *state;
    /* Work submitted 200 µs before each wait and taking 1 ms once the stream is free. */
    gar_trace t;
    gar_trace_init(&t);
    for (uint64_t i = 0; i < N; i++) {
        uint64_t start = i * 2 * GAR_NS_PER_MS + 200000;
        gar_trace_row row = { .point = 1, .submit_ns = start - 200000, .start_ns = start,
                              .done_ns = start - 200000 + RESIDUAL_NS };
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    }
    gar_trace saved = f->trace;
    f->trace = t;
    gar_replay_metrics open = replay(f, GAR_PARK_BLOCK, false, "adl");
    f->config.mode = GAR_REPLAY_CLOSED;
    gar_replay_metrics closed;
    assert_int_equal(gar_replay_run(&f->config, &closed, NULL), 0);
    /* The residual seen by each wait is 800 µs in both modes. */
    assert_int_equal(closed.asleep_ns, open.asleep_ns);
    assert_int_equal(closed.makespan_ns, open.makespan_ns + (N - 1) * BLOCK_NS);
    f->trace = saved;
    gar_trace_free(&t);
}

static void bands_choose_each_waits_plan_by_its_rows(void **state)
{
    fixture *f = *state;
    gar_trace t;
    gar_trace_init(&t);
    for (uint64_t i = 0; i < N; i++) {
        gar_trace_row row = { .point = 1, .submit_ns = i * PERIOD_NS, .start_ns = i * PERIOD_NS,
                              .done_ns = i * PERIOD_NS + RESIDUAL_NS,
                              .step_rows = i % 4 == 0 ? 64 : (uint32_t)i % 4 };
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    }
    gar_bands bands;
    assert_int_equal(gar_bands_parse("block;rows>=32:flag:park_us=100,backstop_us=1000+predict:"
                                     "margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8",
                                     &bands, NULL), 0);
    replay(f, GAR_PARK_POLL, false, "adl");
    gar_replay_config c = f->config;
    c.trace = &t;
    c.plan = NULL;
    c.bands = &bands;
    gar_replay_metrics m;
    assert_int_equal(gar_replay_run(&c, &m, NULL), 0);
    assert_int_equal(m.blocked, N - N / 4);
    assert_int_equal(m.parked, N / 4);
    /* Only the flag band consults the estimator: cold once, then it sleeps. */
    assert_int_equal(m.predictions, N / 4 - 1);
    assert_int_equal(m.sleeps, N / 4 - 1);
    c.plan = f->config.plan;
    assert_int_equal(gar_replay_run(&c, &m, NULL), -GAR_E_INVALID_ARGUMENT); /* both given */
    gar_trace_free(&t);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Residuals spread at random; a poll answers 1 + 2k µs into the wait, so each
 * overshoot is known: the quantiles must be the nearest ranks of those. */
/* The summary of sorted values, by hand: ranks ceil(0.5 n), ceil(0.9 n),
 * ceil(0.99 n) and n. */
static void a_sorted_summary_reads_the_nearest_ranks(void **state)
{
    (void)state;
    const gar_dur_ns ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    gar_replay_quantiles q = gar_replay_quantiles_sorted(ten, 10);
    assert_int_equal(q.p50, 5);
    assert_int_equal(q.p90, 9);
    assert_int_equal(q.p99, 10);
    assert_int_equal(q.max, 10);
    const gar_dur_ns three[] = { 4, 8, 15 };
    q = gar_replay_quantiles_sorted(three, 3);
    assert_int_equal(q.p50, 8);  /* ceil(1.5) = 2 */
    assert_int_equal(q.p90, 15); /* ceil(2.7) = 3 */
    assert_int_equal(q.max, 15);
    q = gar_replay_quantiles_sorted(NULL, 0);
    assert_int_equal(q.p50 | q.p90 | q.p99 | q.max, 0);
}

static void quantiles_are_nearest_ranks(void **state)
{
    fixture *f = *state;
    enum { M = 301 };
    gar_trace t;
    gar_trace_init(&t);
    gar_prng g = gar_prng_seeded(42);
    uint64_t want[M];
    for (uint64_t i = 0; i < M; i++) {
        uint64_t residual = 2000 + gar_prng_below(&g, 400000);
        gar_trace_row row = { .point = 1, .submit_ns = i * GAR_NS_PER_MS,
                              .start_ns = i * GAR_NS_PER_MS,
                              .done_ns = i * GAR_NS_PER_MS + residual };
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
        uint64_t seen = Q_NS + (residual - Q_NS + 2 * Q_NS - 1) / (2 * Q_NS) * (2 * Q_NS);
        want[i] = seen - residual;
    }
    qsort(want, M, sizeof want[0], compare_u64);
    replay(f, GAR_PARK_POLL, false, "adl");
    gar_replay_config c = f->config;
    c.trace = &t;
    gar_replay_metrics m;
    assert_int_equal(gar_replay_run(&c, &m, NULL), 0);
    assert_int_equal(m.overshoot_ns.p50, want[150]); /* ceil(0.5 * 301) = 151st */
    assert_int_equal(m.overshoot_ns.p90, want[270]); /* ceil(270.9) = 271st */
    assert_int_equal(m.overshoot_ns.p99, want[297]); /* ceil(297.99) = 298th */
    assert_int_equal(m.overshoot_ns.max, want[M - 1]);
    gar_trace_free(&t);
}

static void faults_end_the_replay_cleanly(void **state)
{
    fixture *f = *state;
    replay(f, GAR_PARK_FLAG, true, "adl");
    gar_replay_metrics m, untouched;
    memset(&m, 0x77, sizeof m);
    untouched = m;
    gar_error err;

    f->config.fault = GAR_SIM_FAULT_HANG;
    f->config.fault_wait = 3;
    f->config.wait_deadline_ns = 5 * GAR_NS_PER_MS;
    assert_int_equal(gar_replay_run(&f->config, &m, &err), -GAR_E_WAIT_DEADLINE);
    assert_int_equal(err.code, GAR_E_WAIT_DEADLINE);
    assert_memory_equal(&m, &untouched, sizeof m);

    f->config.fault = GAR_SIM_FAULT_ERROR;
    f->config.fault_wait = 2;
    assert_int_equal(gar_replay_run(&f->config, &m, &err), -GAR_E_DEVICE_FAULT);
    assert_string_equal(err.argv[0], "stream 0 work item 2 failed");

    f->config.fault = GAR_SIM_FAULT_LOST_STORE;
    f->config.fault_wait = 0;
    assert_int_equal(gar_replay_run(&f->config, &m, &err), 0);
    assert_int_equal(m.backstop_queries, 1);
    assert_int_equal(m.overshoot_ns.max, 2 * Q_NS); /* answered at 1 µs + 1 ms + 1 µs */
}

static void a_block_on_a_hung_device_ends_at_the_deadline(void **state)
{
    fixture *f = *state;
    replay(f, GAR_PARK_BLOCK, false, "adl");
    f->config.fault = GAR_SIM_FAULT_HANG;
    f->config.fault_wait = N - 1;
    gar_error err;
    gar_replay_metrics m;
    assert_int_equal(gar_replay_run(&f->config, &m, &err), -GAR_E_WAIT_DEADLINE);
}

/* A deadline whose sum with the start would pass the clock's end is
 * saturated at its last instant: every plan still ends with error 16 (not
 * an abort, not a loop), in a few steps. */
static void a_deadline_past_the_clocks_end_is_saturated(void **state)
{
    fixture *f = *state;
    for (gar_park park = GAR_PARK_BLOCK; park <= GAR_PARK_FLAG; park++) {
        replay(f, park, park != GAR_PARK_BLOCK, "adl");
        f->config.fault = GAR_SIM_FAULT_HANG;
        f->config.fault_wait = 4;
        f->config.wait_deadline_ns = UINT64_MAX;
        gar_error err;
        gar_replay_metrics m;
        assert_int_equal(gar_replay_run(&f->config, &m, &err), -GAR_E_WAIT_DEADLINE);
        assert_int_equal(err.code, GAR_E_WAIT_DEADLINE);
        assert_string_equal(err.argv[1], "18446744073709551614 ns");
    }
}

/* One range rule: a makespan past 2^63 - 1 ns refuses the run, naming the
 * metric, rather than being reported wrapped or clamped. */
static void a_metric_past_int64_max_is_refused(void **state)
{
    (void)state;
    gar_trace t;
    gar_trace_init(&t);
    const gar_trace_row rows[] = {
        { .point = 1, .submit_ns = 0, .start_ns = 0, .done_ns = 1000 },
        { .point = 1, .submit_ns = GAR_TRACE_TIME_MAX - 500, .start_ns = GAR_TRACE_TIME_MAX - 500,
          .done_ns = GAR_TRACE_TIME_MAX },
    };
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(gar_trace_append(&t, &rows[i], NULL), 0);
    gar_host_profile host = exact_profile(true);
    for (gar_park park = GAR_PARK_BLOCK; park <= GAR_PARK_FLAG; park++) {
        gar_plan plan = plan_of(park, false);
        gar_replay_config c;
        gar_replay_config_init(&c);
        c.trace = &t;
        c.plan = &plan;
        c.host = &host;
        gar_replay_metrics m, untouched;
        memset(&m, 0x33, sizeof m);
        untouched = m;
        gar_error err;
        assert_int_equal(gar_replay_run(&c, &m, &err), -GAR_E_CAPACITY);
        assert_string_equal(err.argv[0], "the replay's makespan_ns");
        assert_memory_equal(&m, &untouched, sizeof m);
    }
    /* The same trace 1 µs shorter at the end fits, and says so exactly. */
    t.row[1].done_ns = GAR_TRACE_TIME_MAX - 100000;
    t.row[1].start_ns = t.row[1].submit_ns = GAR_TRACE_TIME_MAX - 200000;
    gar_plan plan = plan_of(GAR_PARK_BLOCK, false);
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = &t;
    c.plan = &plan;
    c.host = &host;
    gar_replay_metrics m;
    assert_int_equal(gar_replay_run(&c, &m, NULL), 0);
    assert_int_equal(m.makespan_ns, GAR_TRACE_TIME_MAX - 100000 + BLOCK_NS);
    gar_trace_free(&t);
}

static void the_same_seed_gives_the_same_metrics(void **state)
{
    fixture *f = *state;
    gar_host_profile vm;
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts/dev-vm.host", &vm, NULL), 0);
    gar_host_profile saved = f->host;
    f->host = vm;
    gar_replay_metrics a = replay(f, GAR_PARK_FLAG, true, "adl");
    gar_replay_metrics b = replay(f, GAR_PARK_FLAG, true, "adl");
    assert_memory_equal(&a, &b, sizeof a);
    f->config.seed = 2;
    gar_replay_metrics c;
    assert_int_equal(gar_replay_run(&f->config, &c, NULL), 0);
    assert_true(memcmp(&a, &c, sizeof a) != 0);
    assert_true(a.asleep_ns != c.asleep_ns);
    f->host = saved;
}

/* A sweep worker's way: the trace numbered once, one scratch for run after
 * run.  Each run must give what a run with memory of its own gives, whatever
 * the scratch served before (a bigger trace, more points, another plan). */
static void an_index_and_a_scratch_change_nothing(void **state)
{
    fixture *f = *state;
    gar_replay_metrics plain = replay(f, GAR_PARK_FLAG, true, "adl");
    gar_replay_streams plain_streams;
    f->config.streams_out = &plain_streams;
    assert_int_equal(gar_replay_run(&f->config, &plain, NULL), 0);

    /* A bigger trace, over several points and streams, first. */
    gar_trace big;
    gar_trace_init(&big);
    for (uint64_t i = 0; i < 3 * N; i++) {
        gar_trace_row row = { .point = i % 5, .submit_ns = i * PERIOD_NS,
                              .start_ns = i * PERIOD_NS, .done_ns = i * PERIOD_NS + RESIDUAL_NS,
                              .stream = (uint32_t)(i % 3) };
        assert_int_equal(gar_trace_append(&big, &row, NULL), 0);
    }
    gar_replay_scratch *scratch = gar_replay_scratch_new();
    assert_non_null(scratch);
    gar_replay_index big_index, index;
    assert_int_equal(gar_replay_index_build(&big, &big_index, NULL), 0);
    assert_int_equal(big_index.points, 5);
    assert_int_equal(big_index.streams, 3);
    gar_replay_config c = f->config;
    c.trace = &big;
    c.index = &big_index;
    c.scratch = scratch;
    c.streams_out = NULL;
    gar_replay_metrics m;
    assert_int_equal(gar_replay_run(&c, &m, NULL), 0);
    assert_int_equal(m.waits, 3 * N);

    assert_int_equal(gar_replay_index_build(&f->trace, &index, NULL), 0);
    for (int twice = 0; twice < 2; twice++) {
        gar_replay_streams streams;
        c = f->config;
        c.index = &index;
        c.scratch = scratch;
        c.streams_out = &streams;
        assert_int_equal(gar_replay_run(&c, &m, NULL), 0);
        assert_memory_equal(&m, &plain, sizeof m);
        assert_int_equal(streams.count, plain_streams.count);
        assert_memory_equal(streams.stream, plain_streams.stream,
                            streams.count * sizeof streams.stream[0]);
        gar_replay_streams_free(&streams);
    }

    /* Another trace's index is refused, not read past its end. */
    c = f->config;
    c.index = &big_index;
    c.streams_out = NULL;
    gar_error err;
    assert_int_equal(gar_replay_run(&c, &m, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "index");

    gar_replay_streams_free(&plain_streams);
    f->config.streams_out = NULL;
    gar_replay_index_free(&index);
    gar_replay_index_free(&big_index);
    gar_replay_index_free(&big_index); /* twice: nothing */
    gar_replay_scratch_free(scratch);
    gar_replay_scratch_free(NULL);
    gar_trace_free(&big);
}

static void bad_configs_are_refused(void **state)
{
    fixture *f = *state;
    replay(f, GAR_PARK_FLAG, false, "adl");
    gar_replay_metrics m;
    gar_replay_config c = f->config;
    c.wait_deadline_ns = 0;
    assert_int_equal(gar_replay_run(&c, &m, NULL), -GAR_E_INVALID_ARGUMENT);
    c = f->config;
    c.trace = NULL;
    assert_int_equal(gar_replay_run(&c, &m, NULL), -GAR_E_INVALID_ARGUMENT);
    c = f->config;
    c.mode = (gar_replay_mode)7;
    assert_int_equal(gar_replay_run(&c, &m, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_replay_run(NULL, &m, NULL), -GAR_E_INVALID_ARGUMENT);

    /* A predicting plan's deadline is checked once, before the first wait,
     * for every family that consults it; `none` never reads it. */
    gar_plan broken = plan_of(GAR_PARK_FLAG, true);
    broken.deadline.window = 0;
    const char *consulting[] = { "adl", "oracle", "ewma:alpha=0.5", "quantile:q=0.5" };
    for (size_t k = 0; k < sizeof consulting / sizeof consulting[0]; k++) {
        c = f->config;
        c.plan = &broken;
        assert_int_equal(gar_estimator_spec_parse(consulting[k], &c.estimator, NULL), 0);
        gar_error err;
        assert_int_equal(gar_replay_run(&c, &m, &err), -GAR_E_INVALID_ARGUMENT);
        assert_string_equal(err.argv[0], "gar_replay_run");
        assert_string_equal(err.argv[1], "deadline");
    }
    c = f->config;
    c.plan = &broken;
    assert_int_equal(gar_estimator_spec_parse("none", &c.estimator, NULL), 0);
    assert_int_equal(gar_replay_run(&c, &m, NULL), 0);
    assert_int_equal(m.waits, N);

    /* Nine streams take a second line: a trace may name any number. */
    gar_trace t;
    gar_trace_init(&t);
    for (uint32_t s = 0; s < 9; s++) {
        gar_trace_row row = { .point = 1, .submit_ns = s, .start_ns = s, .done_ns = s + 10,
                              .stream = s * 3 };
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    }
    c = f->config;
    c.trace = &t;
    gar_replay_streams streams;
    c.streams_out = &streams;
    assert_int_equal(gar_replay_run(&c, &m, NULL), 0);
    assert_int_equal(m.waits, 9);
    assert_int_equal(streams.count, 9);
    assert_int_equal(streams.stream[8].stream, 24);
    assert_int_equal(streams.stream[8].waits, 1);
    gar_replay_streams_free(&streams);
    gar_trace_free(&t);

    assert_string_equal(gar_replay_mode_name(GAR_REPLAY_CLOSED), "closed");
    assert_int_equal(gar_replay_mode_from_name("open"), GAR_REPLAY_OPEN);
    assert_int_equal(gar_replay_mode_from_name("half"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_is_asleep_and_late_by_the_blocking_wake),
        cmocka_unit_test(poll_keeps_the_core_busy_the_whole_wait),
        cmocka_unit_test(poll_predict_is_busy_for_about_the_margin_less_the_overshoot),
        cmocka_unit_test(flag_parks_the_whole_wait_on_a_word_wait_host),
        cmocka_unit_test(flag_predict_sleeps_then_parks_the_margin),
        cmocka_unit_test(the_observer_sees_every_wait_as_the_metrics_count_it),
        cmocka_unit_test(the_estimator_families_change_only_the_sleep),
        cmocka_unit_test(closed_loop_carries_each_late_wake_forward),
        cmocka_unit_test(closed_loop_keeps_device_durations_and_host_leads),
        cmocka_unit_test(bands_choose_each_waits_plan_by_its_rows),
        cmocka_unit_test(a_sorted_summary_reads_the_nearest_ranks),
        cmocka_unit_test(quantiles_are_nearest_ranks),
        cmocka_unit_test(faults_end_the_replay_cleanly),
        cmocka_unit_test(a_block_on_a_hung_device_ends_at_the_deadline),
        cmocka_unit_test(a_deadline_past_the_clocks_end_is_saturated),
        cmocka_unit_test(a_metric_past_int64_max_is_refused),
        cmocka_unit_test(the_same_seed_gives_the_same_metrics),
        cmocka_unit_test(an_index_and_a_scratch_change_nothing),
        cmocka_unit_test(bad_configs_are_refused),
    };
    return cmocka_run_group_tests_name("replay", tests, setup, teardown);
}
