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

#include "sim/key_index.h"
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_of_ten_thousand_streams_keeps_its_order),
        cmocka_unit_test(many_streams_replay_as_one_stream_does),
        cmocka_unit_test(per_stream_counts_are_each_streams_own),
    };
    return cmocka_run_group_tests_name("replay_streams", tests, NULL, NULL);
}
