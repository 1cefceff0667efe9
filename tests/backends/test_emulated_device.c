/* tests/backends/test_emulated_device.c — the emulated device completes its
 * items in order, never before their time, and its port answers as the
 * authority: pending before, done after, a block that returns only after
 * completion, a park that sees the word, a stop that wakes every waiter.
 *
 * On the real clock: only "not before" is asserted, never how late. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gar/emulated.h>
#include <gar/posix.h>

#define MS GAR_NS_PER_MS

typedef struct fixture {
    gar_posix_host host;
    gar_idle idle;
} fixture;

static int setup(void **state)
{
    static fixture f;
    assert_int_equal(gar_posix_host_init(&f.host, NULL, NULL), 0);
    f.idle = gar_posix_host_idle(&f.host);
    *state = &f;
    return 0;
}

static void assert_message_has(const gar_error *err, const char *part)
{
    char text[512];
    gar_error_message(err, text, sizeof text);
    assert_non_null(strstr(text, part));
}

static gar_port port_of(gar_emulated_device *dev, size_t item)
{
    gar_port port;
    assert_int_equal(gar_emulated_device_port(dev, item, &port, NULL), 0);
    return port;
}

static void stores_land_in_order_each_not_before_its_time(void **state)
{
    fixture *f = *state;
    enum { COUNT = 5 };
    const gar_mono_ns t0 = gar_posix_now();
    /* Streams interleaved, not in time order along the schedule. */
    const gar_emulated_item schedule[COUNT] = {
        { 0, t0 + 3 * MS }, { 1, t0 + 1 * MS }, { 0, t0 + 4 * MS },
        { 2, t0 + 2 * MS }, { 1, t0 + 5 * MS },
    };
    gar_emulated_device *dev = NULL;
    assert_int_equal(gar_emulated_device_start(&dev, schedule, COUNT, f->idle, -1, NULL), 0);
    gar_line *line = gar_emulated_device_line(dev, 0); /* streams 0..2: one line */

    /* Watch the line: each slot's word never goes back and never runs ahead
     * of the clock, and whenever an item's status says done its word has
     * reached the item's number. */
    const uint64_t seq[COUNT] = { 1, 1, 2, 1, 2 };
    uint64_t last[3] = { 0, 0, 0 };
    for (;;) {
        bool all = true;
        for (size_t i = 0; i < COUNT; i++) {
            gar_port port = port_of(dev, i);
            int q = port.ops->query(port.ctx, NULL);
            assert_in_range(q, 0, 1);
            gar_slot slot = { .index = (uint8_t)schedule[i].stream };
            if (q == 1) {
                assert_true(gar_line_load(line, slot) >= seq[i]);
                assert_true(gar_posix_now() >= schedule[i].done_at);
            }
            all = all && q == 1;
        }
        for (unsigned s = 0; s < 3; s++) {
            gar_slot slot = { .index = (uint8_t)s };
            uint64_t w = gar_line_load(line, slot);
            gar_mono_ns now = gar_posix_now();
            uint64_t due = 0; /* the stream's items whose time has come */
            for (size_t i = 0; i < COUNT; i++)
                due += schedule[i].stream == s && schedule[i].done_at <= now;
            assert_true(w >= last[s]); /* never back */
            assert_true(w <= due);     /* never early */
            last[s] = w;
        }
        if (all)
            break;
    }
    assert_int_equal(last[0], 2);
    assert_int_equal(last[1], 2);
    assert_int_equal(last[2], 1);

    gar_mono_ns done[COUNT];
    assert_int_equal(gar_emulated_device_finish(dev, done, NULL), 0);
    for (size_t i = 0; i < COUNT; i++)
        assert_true(done[i] >= schedule[i].done_at);
    /* In time order: 1, 3, 0, 2, 4. */
    assert_true(done[1] <= done[3] && done[3] <= done[0] && done[0] <= done[2] &&
                done[2] <= done[4]);
}

static void query_says_pending_before_and_done_after(void **state)
{
    fixture *f = *state;
    const gar_mono_ns due = gar_posix_now() + 30 * MS;
    const gar_emulated_item schedule[1] = { { 3, due } };
    gar_emulated_device *dev = NULL;
    assert_int_equal(gar_emulated_device_start(&dev, schedule, 1, f->idle, -1, NULL), 0);
    gar_port port = port_of(dev, 0);

    int q = port.ops->query(port.ctx, NULL);
    gar_mono_ns asked_by = gar_posix_now();
    if (asked_by < due) /* the device cannot have completed yet */
        assert_int_equal(q, 0);
    for (;;) {
        q = port.ops->poll(port.ctx, NULL);
        assert_in_range(q, 0, 1);
        if (q == 1)
            break;
    }
    assert_true(gar_posix_now() >= due);
    assert_int_equal(port.ops->query(port.ctx, NULL), 1);
    gar_mono_ns done;
    assert_int_equal(gar_emulated_device_finish(dev, &done, NULL), 0);
    assert_true(done >= due);
}

static void block_returns_only_after_completion(void **state)
{
    fixture *f = *state;
    const gar_mono_ns t0 = gar_posix_now();
    const gar_emulated_item schedule[3] = { { 0, t0 + 2 * MS }, { 0, t0 + 4 * MS },
                                            { 0, t0 + 6 * MS } };
    gar_emulated_device *dev = NULL;
    assert_int_equal(gar_emulated_device_start(&dev, schedule, 3, f->idle, -1, NULL), 0);
    gar_mono_ns returned[3];
    for (size_t i = 0; i < 3; i++) {
        gar_port port = port_of(dev, i);
        assert_int_equal(port.ops->block(port.ctx, NULL), 0);
        returned[i] = gar_posix_now();
        assert_int_equal(port.ops->query(port.ctx, NULL), 1);
        assert_true(returned[i] >= schedule[i].done_at);
    }
    gar_mono_ns done[3];
    assert_int_equal(gar_emulated_device_finish(dev, done, NULL), 0);
    for (size_t i = 0; i < 3; i++)
        assert_true(returned[i] >= done[i]);
}

static void arm_describes_the_word_and_park_sees_it(void **state)
{
    fixture *f = *state;
    const gar_mono_ns t0 = gar_posix_now();
    /* Stream 9 is word 1 of the device's second line. */
    gar_emulated_item schedule[10] = { { 9, t0 + 1 * MS }, { 9, t0 + 3 * MS } };
    for (unsigned s = 0; s < 8; s++)
        schedule[2 + s] = (gar_emulated_item){ s, t0 + 1 * MS };
    gar_emulated_device *dev = NULL;
    assert_int_equal(gar_emulated_device_start(&dev, schedule, 10, f->idle, -1, NULL), 0);
    gar_port port = port_of(dev, 1);
    gar_descriptor word;
    assert_int_equal(port.ops->arm(port.ctx, &word, NULL), 0);
    assert_ptr_equal(word.line, gar_emulated_device_line(dev, 9));
    assert_ptr_not_equal(word.line, gar_emulated_device_line(dev, 7));
    assert_null(gar_emulated_device_line(dev, 10));
    assert_int_equal(word.slot.index, 1);
    assert_int_equal(word.target, 2);

    int parked;
    do {
        parked = port.ops->park(port.ctx, &word, gar_posix_now() + 100 * GAR_NS_PER_US, NULL);
        assert_in_range(parked, 0, 1);
    } while (parked == 0);
    assert_true(gar_posix_now() >= schedule[1].done_at);
    assert_true(gar_descriptor_reached(&word));
    /* The status follows the word (it is bumped right after the store), so a
     * query may still say pending for an instant, never for long. */
    int q;
    while ((q = port.ops->query(port.ctx, NULL)) == 0)
        ;
    assert_int_equal(q, 1);
    /* A word already reached answers at once, whatever the bound. */
    assert_int_equal(port.ops->park(port.ctx, &word, 0, NULL), 1);
    assert_int_equal(gar_emulated_device_finish(dev, NULL, NULL), 0);
}

typedef struct blocker {
    gar_port port;
    int rc;
    gar_error err;
} blocker;

static void *block_in_thread(void *arg)
{
    blocker *b = arg;
    b->rc = b->port.ops->block(b->port.ctx, &b->err);
    return NULL;
}

static void stop_wakes_a_blocked_waiter_with_a_device_fault(void **state)
{
    fixture *f = *state;
    const gar_emulated_item schedule[1] = { { 0, gar_posix_now() + 60 * GAR_NS_PER_S } };
    gar_emulated_device *dev = NULL;
    assert_int_equal(gar_emulated_device_start(&dev, schedule, 1, f->idle, -1, NULL), 0);
    blocker b = { .port = port_of(dev, 0), .rc = 1 };
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, block_in_thread, &b), 0);
    assert_int_equal(b.port.ops->query(b.port.ctx, NULL), 0);
    assert_int_equal(gar_emulated_device_stop(dev, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(b.rc, -GAR_E_DEVICE_FAULT);
    assert_int_equal(b.err.code, GAR_E_DEVICE_FAULT);
    gar_error err;
    assert_int_equal(b.port.ops->query(b.port.ctx, &err), -GAR_E_DEVICE_FAULT);
    gar_mono_ns done;
    assert_int_equal(gar_emulated_device_finish(dev, &done, NULL), 0);
    assert_true(done == GAR_MONO_NEVER);
}

/* Thousands of streams whose times cross everywhere (each stream's items
 * due in order, the streams' interleaved backwards): every item completes,
 * not before its time, each stream's in its order, and each stream's word
 * ends at its item count. */
static void many_interleaved_streams_complete_in_each_streams_order(void **state)
{
    fixture *f = *state;
    enum { STREAMS = 3000, PER_STREAM = 20, COUNT = STREAMS * PER_STREAM };
    gar_emulated_item *schedule = malloc(COUNT * sizeof *schedule);
    gar_mono_ns *done = malloc(COUNT * sizeof *done);
    assert_true(schedule != NULL && done != NULL);
    const gar_mono_ns t0 = gar_posix_now() + 2 * MS;
    /* Round j of the streams, each round's times going down the streams:
     * an insertion sort would move almost every item past all the others. */
    for (size_t j = 0; j < PER_STREAM; j++)
        for (unsigned s = 0; s < STREAMS; s++)
            schedule[j * STREAMS + s] = (gar_emulated_item){
                s, t0 + (gar_mono_ns)j * 10 * GAR_NS_PER_US + (STREAMS - s) * 3 * GAR_NS_PER_US
            };
    gar_emulated_device *dev = NULL;
    assert_int_equal(gar_emulated_device_start(&dev, schedule, COUNT, f->idle, -1, NULL), 0);
    for (unsigned s = 0; s < STREAMS; s++) {
        gar_port last = port_of(dev, (PER_STREAM - 1) * STREAMS + s);
        assert_int_equal(last.ops->block(last.ctx, NULL), 0);
        gar_slot slot = { .index = (uint8_t)(s % GAR_LINE_WORDS) };
        assert_int_equal(gar_line_load(gar_emulated_device_line(dev, s), slot), PER_STREAM);
    }
    assert_int_equal(gar_emulated_device_finish(dev, done, NULL), 0);
    for (size_t i = 0; i < COUNT; i++) {
        assert_true(done[i] != GAR_MONO_NEVER && done[i] >= schedule[i].done_at);
        if (i >= STREAMS) /* the stream's item before it completed no later */
            assert_true(done[i] >= done[i - STREAMS]);
    }
    free(schedule);
    free(done);
}

static void bad_schedules_and_items_are_refused(void **state)
{
    fixture *f = *state;
    gar_emulated_device *dev = NULL;
    gar_error err;
    const gar_emulated_item one[1] = { { 0, 0 } };
    assert_int_equal(gar_emulated_device_start(&dev, one, 0, f->idle, -1, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_emulated_device_start(NULL, one, 1, f->idle, -1, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_emulated_device_start(&dev, NULL, 1, f->idle, -1, &err),
                     -GAR_E_INVALID_ARGUMENT);
    const gar_emulated_item bad_stream[1] = { { 8, 0 } };
    assert_int_equal(gar_emulated_device_start(&dev, bad_stream, 1, f->idle, -1, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_message_has(&err, "stream 8");
    const gar_emulated_item back[3] = { { 1, 5 * MS }, { 2, 1 * MS }, { 1, 4 * MS } };
    assert_int_equal(gar_emulated_device_start(&dev, back, 3, f->idle, -1, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_message_has(&err, "item 2");
    /* A park whose Idle table is of a version this libgar does not know. */
    gar_idle_ops unset = *f->idle.ops;
    unset.version = 0;
    assert_int_equal(gar_emulated_device_start(&dev, one, 1, (gar_idle){ &unset, f->idle.ctx },
                                               -1, &err),
                     -GAR_E_OPS_VERSION);
    assert_message_has(&err, "gar_idle_ops");
    assert_null(dev);

    assert_int_equal(gar_emulated_device_start(&dev, one, 1, f->idle, -1, NULL), 0);
    gar_port port;
    assert_int_equal(gar_emulated_device_port(dev, 1, &port, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_emulated_device_finish(dev, NULL, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stores_land_in_order_each_not_before_its_time),
        cmocka_unit_test(query_says_pending_before_and_done_after),
        cmocka_unit_test(block_returns_only_after_completion),
        cmocka_unit_test(arm_describes_the_word_and_park_sees_it),
        cmocka_unit_test(stop_wakes_a_blocked_waiter_with_a_device_fault),
        cmocka_unit_test(many_interleaved_streams_complete_in_each_streams_order),
        cmocka_unit_test(bad_schedules_and_items_are_refused),
    };
    return cmocka_run_group_tests_name("emulated_device", tests, setup, NULL);
}
