/* tests/experiments/test_verify_cuda.c — gar verify's CUDA device over a fake
 * driver table: the work each row is given, the row's port, the completion
 * times read from the events, and that everything is released — or leaked,
 * where the context did not settle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gar/line.h>

#include "cuda_work.h"
#include "fake_cuda.h"
#include "verify/verify_cuda.h"
#include "verify/verify_devices.h"
#include "verify/verify_real.h"

/* ---- an idle whose park reports the line reached ------------------------- */

static int test_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                     gar_mono_ns until, gar_error *err)
{
    (void)ctx, (void)line, (void)seen, (void)until, (void)err;
    return 1;
}

static int test_sleep(void *ctx, gar_mono_ns until, gar_error *err)
{
    (void)ctx, (void)until, (void)err;
    return 0;
}

static const gar_idle_ops idle_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = test_sleep,
    .park = test_park,
};
static const gar_idle idle = { .ops = &idle_ops, .ctx = NULL };

/* The message of `err`, for substring checks. */
static const char *message(const gar_error *err)
{
    static char buf[512];
    gar_error_message(err, buf, sizeof buf);
    return buf;
}

/* ---- traces --------------------------------------------------------------- */

typedef struct row_spec {
    uint32_t stream;
    uint64_t submit_us, done_us;
} row_spec;

static void make_trace(gar_trace *trace, const row_spec *rows, size_t n)
{
    gar_trace_init(trace);
    trace->columns = GAR_TRACE_HAS_STREAM;
    for (size_t i = 0; i < n; i++) {
        gar_trace_row row = {
            .point = 1,
            .submit_ns = rows[i].submit_us * 1000,
            .start_ns = rows[i].submit_us * 1000,
            .done_ns = rows[i].done_us * 1000,
            .stream = rows[i].stream,
        };
        assert_int_equal(gar_trace_append(trace, &row, NULL), 0);
    }
}

/* Stream 7 then stream 3: row 1 queues behind row 0 (starts at 100, not 50),
 * row 3 behind row 1 but done before that (0), row 2 alone on its stream. */
static const row_spec two_streams[] = {
    { 7, 0, 100 },
    { 7, 50, 300 },
    { 3, 10, 60 },
    { 7, 320, 320 },
};
#define TWO_STREAMS_ROWS (sizeof two_streams / sizeof two_streams[0])

static void slots_follow_first_appearance(void **state)
{
    (void)state;
    gar_trace trace;
    make_trace(&trace, two_streams, TWO_STREAMS_ROWS);
    uint8_t slot[TWO_STREAMS_ROWS];
    unsigned streams = 0;
    assert_int_equal(gar_verify_stream_slots(&trace, GAR_LINE_WORDS, slot, &streams, NULL), 0);
    assert_int_equal(streams, 2);
    assert_int_equal(slot[0], 0);
    assert_int_equal(slot[1], 0);
    assert_int_equal(slot[2], 1);
    assert_int_equal(slot[3], 0);

    gar_error err;
    assert_int_equal(gar_verify_stream_slots(&trace, 1, slot, &streams, &err), -GAR_E_CAPACITY);
    gar_trace_free(&trace);
}

static void durations_start_after_the_stream_is_free(void **state)
{
    (void)state;
    gar_trace trace;
    make_trace(&trace, two_streams, TWO_STREAMS_ROWS);
    uint8_t slot[TWO_STREAMS_ROWS];
    unsigned streams;
    assert_int_equal(gar_verify_stream_slots(&trace, GAR_LINE_WORDS, slot, &streams, NULL), 0);
    gar_dur_ns d[TWO_STREAMS_ROWS];
    gar_verify_work_durations(&trace, slot, GAR_LINE_WORDS, d);
    assert_int_equal(d[0], 100000); /* from its submit */
    assert_int_equal(d[1], 200000); /* from row 0's done, not its own submit */
    assert_int_equal(d[2], 50000);  /* its own stream is free */
    assert_int_equal(d[3], 0);      /* done the moment the stream is free */
    gar_trace_free(&trace);
}

/* ---- the device over the fake --------------------------------------------- */

static const gar_verify_device_ops *device(void)
{
    const gar_verify_device_ops *ops = NULL;
    assert_int_equal(gar_verify_device_find("cuda", "verify", &ops, NULL), 0);
    assert_string_equal(ops->name, "cuda");
    return ops;
}

/* The duration the fake's work last received, for the kind this build has. */
static gar_dur_ns last_work_ns(void)
{
    return gar_cuda_work_has_ptx() ? (gar_dur_ns)fake.launch_ns
                                   : fake.memset_bytes / GAR_CUDA_WORK_MEMSET_BYTES_PER_NS_DEFAULT;
}

static void runs_rows_and_reads_their_completions(void **state)
{
    (void)state;
    gar_cuda_driver drv = fake_cuda_reset();
    gar_trace trace;
    make_trace(&trace, two_streams, TWO_STREAMS_ROWS);
    const gar_verify_device_ops *ops = device();

    void *dev = NULL;
    assert_int_equal(gar_verify_cuda_open(&dev, &drv, &trace, idle, NULL), 0);
    assert_int_equal(fake.retained, 1);
    assert_true(fake.page_allocated);
    assert_int_equal(fake.streams_created, 2);
    assert_int_equal(fake.depth, 0); /* the caller's context stack as it was */
    unsigned anchors = fake.event_records;
    assert_int_equal(anchors, GAR_VERIFY_CUDA_ANCHOR_TRIES);
    /* A first launch of 1 ns before the anchors, for lazily loading drivers. */
    assert_int_equal(last_work_ns(), 1);
    assert_true(fake_called_at(gar_cuda_work_has_ptx() ? "cuLaunchKernel" : "cuMemsetD8Async") <
                fake_called_at("cuEventRecord"));

    /* The device's timer per row: rows end at 1, 2.5, 0.25 (another stream)
     * and 4 ms after the anchors, recorded at 0 ms. */
    static const double done_ms[TWO_STREAMS_ROWS] = { 1.0, 2.5, 0.25, 4.0 };
    static const gar_dur_ns want_ns[TWO_STREAMS_ROWS] = { 100000, 200000, 50000, 0 };
    static const uint64_t want_target[TWO_STREAMS_ROWS] = { 1, 2, 1, 3 };
    static const uint8_t want_slot[TWO_STREAMS_ROWS] = { 0, 0, 1, 0 };
    gar_port port[TWO_STREAMS_ROWS];
    for (size_t i = 0; i < TWO_STREAMS_ROWS; i++) {
        fake.launch_ns = 0;
        fake.memset_bytes = 0;
        fake.clock_ms = done_ms[i];
        assert_int_equal(ops->submit_row(dev, i, &port[i], NULL), 0);
        assert_int_equal(last_work_ns(), want_ns[i]);
        assert_int_equal(fake.event_records, anchors + i + 1);

        /* The store behind the row's work, answered by arm without a second. */
        unsigned writes = fake.writes;
        gar_descriptor word;
        assert_int_equal(port[i].ops->arm(port[i].ctx, &word, NULL), 0);
        assert_int_equal(fake.writes, writes);
        assert_int_equal(word.slot.index, want_slot[i]);
        assert_int_equal(word.target, want_target[i]);
        assert_true(gar_seq_reached(gar_line_load(word.line, word.slot), word.target));
        assert_int_equal(port[i].ops->park(port[i].ctx, &word, GAR_MONO_NEVER, NULL), 1);
    }
    assert_int_equal(fake.depth, 0);

    /* The row's port asks about the row's event, not the stream. */
    unsigned stream_queries = fake_calls("cuStreamQuery");
    fake.event_query_rc = CUDA_ERROR_NOT_READY;
    assert_int_equal(port[1].ops->query(port[1].ctx, NULL), 0);
    assert_int_equal(port[1].ops->poll(port[1].ctx, NULL), 0);
    fake.event_query_rc = CUDA_SUCCESS;
    assert_int_equal(port[1].ops->query(port[1].ctx, NULL), 1);
    assert_int_equal(port[1].ops->block(port[1].ctx, NULL), 0);
    fake.event_query_rc = CUDA_ERROR_LAUNCH_FAILED;
    gar_error err;
    assert_int_equal(port[1].ops->query(port[1].ctx, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_DRIVER);
    assert_int_equal(fake_calls("cuStreamQuery"), stream_queries);

    gar_mono_ns completed[TWO_STREAMS_ROWS];
    assert_int_equal(ops->close(dev, false, completed, NULL), 0);
    for (size_t i = 0; i < TWO_STREAMS_ROWS; i++)
        assert_true(completed[i] != GAR_MONO_NEVER);
    /* The anchor's host time is the real clock's; the differences are the
     * device timer's exactly. */
    assert_int_equal(completed[1] - completed[0], 1500000);
    assert_int_equal(completed[0] - completed[2], 750000);
    assert_int_equal(completed[3] - completed[1], 1500000);

    /* Everything released, the line's page last, the context with it. */
    assert_int_equal(fake.retained, 0);
    assert_false(fake.page_allocated);
    assert_int_equal(fake.streams_destroyed, fake.streams_created);
    assert_int_equal(fake.events_destroyed, fake.events_created);
    assert_int_equal(fake.events_created, GAR_VERIFY_CUDA_ANCHOR_TRIES + TWO_STREAMS_ROWS);
    assert_int_equal(fake.depth, 0);
    gar_trace_free(&trace);
}

static void stop_settles_and_leaves_unsubmitted_rows_never(void **state)
{
    (void)state;
    gar_cuda_driver drv = fake_cuda_reset();
    gar_trace trace;
    make_trace(&trace, two_streams, TWO_STREAMS_ROWS);
    const gar_verify_device_ops *ops = device();
    void *dev = NULL;
    assert_int_equal(gar_verify_cuda_open(&dev, &drv, &trace, idle, NULL), 0);
    gar_port port;
    fake.clock_ms = 2.0;
    assert_int_equal(ops->submit_row(dev, 0, &port, NULL), 0);
    gar_error err;
    assert_int_equal(ops->submit_row(dev, 2, &port, &err), -GAR_E_INVALID_ARGUMENT);

    unsigned syncs = fake_calls("cuCtxSynchronize");
    gar_mono_ns completed[TWO_STREAMS_ROWS];
    assert_int_equal(ops->close(dev, true, completed, NULL), 0);
    assert_true(fake_calls("cuCtxSynchronize") > syncs); /* settled before anything went */
    assert_true(completed[0] != GAR_MONO_NEVER);
    for (size_t i = 1; i < TWO_STREAMS_ROWS; i++)
        assert_true(completed[i] == GAR_MONO_NEVER);
    assert_int_equal(fake.retained, 0);
    assert_false(fake.page_allocated);
    gar_trace_free(&trace);
}

static void an_unsettled_context_leaks_the_line(void **state)
{
    (void)state;
    gar_cuda_driver drv = fake_cuda_reset();
    gar_trace trace;
    make_trace(&trace, two_streams, TWO_STREAMS_ROWS);
    const gar_verify_device_ops *ops = device();
    void *dev = NULL;
    assert_int_equal(gar_verify_cuda_open(&dev, &drv, &trace, idle, NULL), 0);
    gar_port port;
    assert_int_equal(ops->submit_row(dev, 0, &port, NULL), 0);

    fake.ctx_sync_rc = CUDA_ERROR_LAUNCH_FAILED;
    gar_mono_ns completed[TWO_STREAMS_ROWS];
    gar_error err;
    assert_int_equal(ops->close(dev, false, completed, &err), -GAR_E_BACKEND);
    assert_non_null(strstr(message(&err), "CUDA_ERROR_LAUNCH_FAILED"));
    for (size_t i = 0; i < TWO_STREAMS_ROWS; i++)
        assert_true(completed[i] == GAR_MONO_NEVER);
    assert_true(fake.page_allocated); /* never freed under a pending store */
    assert_int_equal(fake.retained, 1);
    gar_trace_free(&trace);
}

static void a_driver_without_events_is_refused_holding_nothing(void **state)
{
    (void)state;
    gar_cuda_driver drv = fake_cuda_reset();
    CUresult (*elapsed)(float *, CUevent, CUevent) = drv.event_elapsed_time_v2;
    drv.event_elapsed_time_v2 = NULL;
    gar_trace trace;
    make_trace(&trace, two_streams, TWO_STREAMS_ROWS);
    void *dev = NULL;
    gar_error err;
    assert_int_equal(gar_verify_cuda_open(&dev, &drv, &trace, idle, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_non_null(strstr(message(&err), "cuEventElapsedTime"));
    assert_int_equal(fake_called_at("cuInit"), -1); /* refused before touching the device */

    /* The older name alone will do. */
    drv.event_elapsed_time = elapsed;
    drv.stream_create = NULL;
    assert_int_equal(gar_verify_cuda_open(&dev, &drv, &trace, idle, &err), -GAR_E_BACKEND);
    assert_non_null(strstr(message(&err), "cuStreamCreate"));
    gar_trace_free(&trace);
}

static void a_failing_open_releases_what_it_made(void **state)
{
    (void)state;
    gar_cuda_driver drv = fake_cuda_reset();
    fake.event_create_rc = CUDA_ERROR_OUT_OF_MEMORY;
    gar_trace trace;
    make_trace(&trace, two_streams, TWO_STREAMS_ROWS);
    void *dev = NULL;
    gar_error err;
    assert_int_equal(gar_verify_cuda_open(&dev, &drv, &trace, idle, &err), -GAR_E_BACKEND);
    assert_non_null(strstr(message(&err), "cuEventCreate"));
    assert_int_equal(fake.streams_destroyed, fake.streams_created);
    assert_int_equal(fake.retained, 0);
    assert_false(fake.page_allocated);
    assert_int_equal(fake.depth, 0);
    gar_trace_free(&trace);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slots_follow_first_appearance),
        cmocka_unit_test(durations_start_after_the_stream_is_free),
        cmocka_unit_test(runs_rows_and_reads_their_completions),
        cmocka_unit_test(stop_settles_and_leaves_unsubmitted_rows_never),
        cmocka_unit_test(an_unsettled_context_leaks_the_line),
        cmocka_unit_test(a_driver_without_events_is_refused_holding_nothing),
        cmocka_unit_test(a_failing_open_releases_what_it_made),
    };
    return cmocka_run_group_tests_name("verify_cuda", tests, NULL, NULL);
}
