/* tests/sim/test_replay_streams.c — a replay takes any number of streams:
 * each keeps its own order, many streams do the same work as one, and the
 * per-stream counts add up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/nearest_rank.h"
#include "sim/trace/key_index.h"
#include "sim/quantile_sketch.h"
#include "many_streams.h"
#include "sim/replay.h"
#include "sim_world.h"

#define STREAMS 10000u
#define DEVICES 4u

/* Everything the observer saw, in trace order. */
typedef struct seen_log {
    gar_replay_wait *wait;
    size_t count;
} seen_log;

static void keep(void *context, const gar_replay_wait *w)
{
    seen_log *log = context;
    assert_int_equal(w->index, log->count);
    log->wait[log->count++] = *w;
}

static int replay(const gar_trace *t, gar_replay_mode mode, gar_park park, seen_log *log,
                  gar_replay_metrics *m, gar_replay_streams *streams)
{
    gar_host_profile host = exact_profile(true);
    gar_plan plan = plan_of(park, park != GAR_PARK_BLOCK); /* a block takes no sleep */
    gar_replay_config c;
    gar_replay_config_init(&c);
    c.trace = t;
    c.plan = &plan;
    c.host = &host;
    c.mode = mode;
    c.store_delay_ns = 2000;
    c.on_wait = keep;
    c.on_wait_context = log;
    c.streams_out = streams;
    log->count = 0;
    return gar_replay_run(&c, m, NULL);
}

/* Open loop, every item completes when the trace says — which holds only
 * if each of the 10 000 streams queued its own items, behind its own
 * previous one; closed loop, each stream's completions still come in its
 * order. */
static void each_of_ten_thousand_streams_keeps_its_order(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_queued(&t, 2 * STREAMS, STREAMS, DEVICES, 3), 0);
    assert_int_equal(gar_trace_check(&t, "queued", NULL), 0);
    seen_log log = { calloc(t.count, sizeof *log.wait), 0 };
    assert_non_null(log.wait);
    gar_replay_metrics m;
    gar_replay_streams streams = { NULL, 0 };
    assert_int_equal(replay(&t, GAR_REPLAY_OPEN, GAR_PARK_FLAG, &log, &m, &streams), 0);
    assert_int_equal(log.count, t.count);
    size_t queued = 0; /* items that waited for their stream, not for their submit */
    for (size_t i = 0; i < t.count; i++) {
        assert_int_equal(log.wait[i].done, t.row[i].done_ns);
        queued += t.row[i].done_ns - t.row[i].submit_ns > 200001000u;
    }
    assert_true(queued > 100); /* the trace does make streams queue */
    assert_int_equal(m.waits, t.count);
    gar_key_index ids;
    assert_true(gar_key_index_init(&ids));
    for (size_t i = 0; i < t.count; i++)
        gar_key_index_add(&ids, t.row[i].stream);
    assert_int_equal(ids.count, STREAMS);
    assert_int_equal(streams.count, STREAMS);
    gar_replay_streams_free(&streams);

    assert_int_equal(replay(&t, GAR_REPLAY_CLOSED, GAR_PARK_FLAG, &log, &m, NULL), 0);
    gar_mono_ns *last_done = calloc(STREAMS, sizeof *last_done);
    assert_non_null(last_done);
    for (size_t i = 0; i < t.count; i++) {
        uint32_t s = gar_key_index_add(&ids, t.row[i].stream);
        assert_true(s < STREAMS);
        assert_true(log.wait[i].done >= last_done[s]);
        assert_true(log.wait[i].end >= log.wait[i].done);
        last_done[s] = log.wait[i].done;
    }
    free(last_done);
    gar_key_index_free(&ids);
    free(log.wait);
    gar_trace_free(&t);
}

/* The same host loop on 10 000 streams over 4 devices and on one stream:
 * every wait sees the same work, so every wait must end the same — the
 * words of far-apart streams (other lines, other devices) are found, and
 * no store lands early or late. */
static void many_streams_replay_as_one_stream_does(void **state)
{
    (void)state;
    /* A block waits on the status, a flag on the word. */
    const gar_park parks[] = { GAR_PARK_BLOCK, GAR_PARK_FLAG };
    for (size_t p = 0; p < 2; p++) {
        const gar_park park = parks[p];
        gar_trace one, many;
        assert_int_equal(many_streams_serial(&one, 2 * STREAMS, 1, 1, 5), 0);
        assert_int_equal(many_streams_serial(&many, 2 * STREAMS, STREAMS, DEVICES, 5), 0);
        assert_int_equal(gar_trace_check(&many, "many", NULL), 0);
        seen_log a = { calloc(one.count, sizeof *a.wait), 0 };
        seen_log b = { calloc(one.count, sizeof *b.wait), 0 };
        assert_true(a.wait != NULL && b.wait != NULL);
        gar_replay_metrics ma, mb;
        assert_int_equal(replay(&one, GAR_REPLAY_CLOSED, park, &a, &ma, NULL), 0);
        assert_int_equal(replay(&many, GAR_REPLAY_CLOSED, park, &b, &mb, NULL), 0);
        assert_memory_equal(a.wait, b.wait, one.count * sizeof *a.wait);
        assert_memory_equal(&ma, &mb, sizeof ma);
        free(a.wait);
        free(b.wait);
        gar_trace_free(&one);
        gar_trace_free(&many);
    }
}

static int compare_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Each stream's share, recomputed from the observer's waits: the ids as the
 * trace names them in first-seen order, the waits, and nearest-rank
 * overshoot quantiles over the stream's own waits. */
static void per_stream_counts_are_each_streams_own(void **state)
{
    (void)state;
    gar_trace t;
    assert_int_equal(many_streams_queued(&t, 3000, 9, 2, 11), 0);
    seen_log log = { calloc(t.count, sizeof *log.wait), 0 };
    assert_non_null(log.wait);
    gar_replay_metrics m;
    gar_replay_streams streams = { NULL, 0 };
    assert_int_equal(replay(&t, GAR_REPLAY_CLOSED, GAR_PARK_POLL, &log, &m, &streams), 0);
    assert_int_equal(streams.count, 9); /* nine streams: past one line's eight */
    uint64_t *mine = malloc(t.count * sizeof *mine);
    assert_non_null(mine);
    uint64_t total = 0;
    size_t previous_first = 0;
    for (size_t s = 0; s < streams.count; s++) {
        const gar_replay_stream *st = &streams.stream[s];
        size_t first = 0;
        while (first < t.count && t.row[first].stream != st->stream)
            first++;
        assert_true(first < t.count);
        /* In the order the trace first names them. */
        assert_true(s == 0 ? first == 0 : first > previous_first);
        previous_first = first;
        size_t n = 0;
        for (size_t i = 0; i < t.count; i++)
            if (t.row[i].stream == st->stream)
                mine[n++] = log.wait[i].overshoot_ns;
        qsort(mine, n, sizeof *mine, compare_u64);
        gar_replay_quantiles q = gar_replay_quantiles_sorted(mine, n);
        assert_int_equal(st->waits, n);
        assert_memory_equal(&st->overshoot_ns, &q, sizeof q);
        assert_true(st->busy_ns > 0 && st->busy_ns <= m.busy_ns);
        total += st->waits;
    }
    assert_int_equal(total, m.waits);
    free(mine);
    gar_replay_streams_free(&streams);
    assert_null(streams.stream);
    free(log.wait);
    gar_trace_free(&t);
}

/* `n` rows: the first `alone` on stream 7 only, the rest alternating
 * between streams 3 and 7, each stream's work in its order. */
static gar_trace late_second_stream(size_t n, size_t alone)
{
    gar_trace t;
    gar_trace_init(&t);
    t.columns = GAR_TRACE_HAS_STREAM;
    for (size_t i = 0; i < n; i++) {
        uint64_t submit = (uint64_t)i * 100000;
        gar_trace_row row = {
            .point = 1 + i % 2,
            .submit_ns = submit,
            .start_ns = submit + 30000,
            .done_ns = submit + 2000000 + (uint64_t)(i * 7919 % 50000),
            .stream = i < alone || i % 2 == 0 ? 7 : 3,
        };
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    }
    assert_int_equal(gar_trace_check(&t, "late", NULL), 0);
    return t;
}

/* The quantiles a stream's own sketch, exact up to `limit` values, gives
 * of `values` (as the replay reads a sketch: nearest ranks, bucket
 * midpoints once over the budget). */
static gar_replay_quantiles own_quantiles(const uint64_t *values, size_t n, size_t limit,
                                          bool histogram)
{
    gar_quantile_sketch sk;
    gar_quantile_sketch_init(&sk, limit);
    for (size_t i = 0; i < n; i++)
        assert_true(gar_quantile_sketch_add(&sk, values[i]));
    if (histogram)
        assert_true(gar_quantile_sketch_to_histogram(&sk));
    uint64_t *tmp = malloc(n * sizeof *tmp);
    assert_non_null(tmp);
    const size_t ranks[] = { gar_nearest_rank_index(n, 500000), gar_nearest_rank_index(n, 900000),
                             gar_nearest_rank_index(n, 990000), n - 1 };
    gar_sketch_bucket at[4];
    gar_quantile_sketch_select(&sk, tmp, ranks, 4, at);
    gar_replay_quantiles q = { gar_sketch_bucket_mid(at[0]), gar_sketch_bucket_mid(at[1]),
                               gar_sketch_bucket_mid(at[2]), sk.max };
    free(tmp);
    gar_quantile_sketch_free(&sk);
    return q;
}

/* While a run has seen one stream, that stream's overshoots are counted
 * once, in the run's sketch; a second stream coming blocks later (after
 * the exact budget, too) leaves the first its own quantiles, each stream's
 * those of its own waits' overshoots, exact or from a histogram as the
 * run's budget says. */
static void a_stream_that_comes_late_leaves_the_first_its_own(void **state)
{
    (void)state;
    gar_host_profile host;
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts/waitpkg.host", &host, NULL), 0);
    gar_plan plan;
    /* Blocking waits: overshoots of microseconds, where a histogram's
     * bucket midpoints are not the values. */
    assert_int_equal(gar_plan_parse("block", &plan, NULL), 0);
    /* The second stream after three blocks of rows.  Budgets: none
     * reached; passed long before it; passed in the block it comes in, by
     * the run but never by the first stream alone (15 000 waits). */
    const size_t n = 17000, limits[] = { 0, 1000, 16000 };
    for (size_t k = 0; k < 2 * sizeof limits / sizeof limits[0]; k++) {
        /* Then the same with the first stream alone throughout. */
        const bool one = k >= sizeof limits / sizeof limits[0];
        const size_t streams_n = one ? 1 : 2;
        gar_trace t = late_second_stream(n, one ? n : 13000);
        seen_log log = { calloc(n, sizeof *log.wait), 0 };
        assert_non_null(log.wait);
        gar_replay_config c;
        gar_replay_config_init(&c);
        c.trace = &t;
        c.plan = &plan;
        c.host = &host;
        c.exact_max = limits[k % 3];
        c.on_wait = keep;
        c.on_wait_context = &log;
        gar_replay_streams streams = { NULL, 0 };
        c.streams_out = &streams;
        gar_replay_metrics m;
        assert_int_equal(gar_replay_run(&c, &m, NULL), 0);
        assert_int_equal(m.quantiles_histogram, limits[k % 3] != 0);
        assert_int_equal(streams.count, streams_n);
        uint64_t *mine = malloc(n * sizeof *mine);
        assert_non_null(mine);
        for (size_t s = 0; s < streams_n; s++) {
            assert_int_equal(streams.stream[s].stream, s == 0 ? 7 : 3);
            size_t count = 0;
            for (size_t i = 0; i < n; i++)
                if (t.row[i].stream == streams.stream[s].stream)
                    mine[count++] = log.wait[i].overshoot_ns;
            assert_int_equal(streams.stream[s].waits, count);
            gar_replay_quantiles q =
                own_quantiles(mine, count, limits[k % 3] != 0 ? limits[k % 3] : GAR_SKETCH_EXACT_MAX,
                              m.quantiles_histogram);
            assert_memory_equal(&streams.stream[s].overshoot_ns, &q, sizeof q);
        }
        free(mine);
        gar_replay_streams_free(&streams);
        free(log.wait);
        gar_trace_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_of_ten_thousand_streams_keeps_its_order),
        cmocka_unit_test(many_streams_replay_as_one_stream_does),
        cmocka_unit_test(per_stream_counts_are_each_streams_own),
        cmocka_unit_test(a_stream_that_comes_late_leaves_the_first_its_own),
    };
    return cmocka_run_group_tests_name("replay_streams", tests, NULL, NULL);
}
