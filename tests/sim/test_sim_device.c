/* tests/sim/test_sim_device.c — in-order streams, their stores and faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim/trace/alloc.h"
#include "sim/sim_device.h"

static gar_sim_device make(unsigned streams, gar_dur_ns store_delay, gar_dur_ns late)
{
    gar_sim_device dev;
    gar_sim_device_options o = { streams, store_delay, late };
    assert_int_equal(gar_sim_device_init(&dev, &o, NULL), 0);
    return dev;
}

static void streams_run_their_work_in_order(void **state)
{
    (void)state;
    gar_sim_device dev = make(2, 0, 0);
    gar_sim_work a, b, c, d;
    assert_int_equal(gar_sim_device_enqueue(&dev, 0, 100, 1000, GAR_SIM_FAULT_NONE, &a, NULL), 0);
    assert_int_equal(gar_sim_device_enqueue(&dev, 0, 200, 500, GAR_SIM_FAULT_NONE, &b, NULL), 0);
    assert_int_equal(gar_sim_device_enqueue(&dev, 0, 5000, 10, GAR_SIM_FAULT_NONE, &c, NULL), 0);
    assert_int_equal(gar_sim_device_enqueue(&dev, 1, 0, 7, GAR_SIM_FAULT_NONE, &d, NULL), 0);
    assert_int_equal(a.done_at, 1100);
    assert_int_equal(b.done_at, 1600); /* waits for a */
    assert_int_equal(c.done_at, 5010); /* the stream was idle */
    assert_int_equal(d.done_at, 7);    /* another stream is independent */
    assert_int_equal(b.index, 1);
    assert_int_equal(gar_sim_device_status(&dev, &b, 1599, NULL), 0);
    assert_int_equal(gar_sim_device_status(&dev, &b, 1600, NULL), 1);
    gar_sim_device_free(&dev);
}

static void a_store_lands_behind_the_work_and_the_arm(void **state)
{
    (void)state;
    gar_sim_device dev = make(2, 50, 0);
    gar_sim_work a, b;
    gar_sim_device_enqueue(&dev, 1, 0, 1000, GAR_SIM_FAULT_NONE, &a, NULL);
    gar_sim_device_arm(&dev, &a, 10);
    assert_int_equal(a.store_at, 1050);
    assert_int_equal(a.word.target, 1);
    assert_int_equal(a.word.slot.index, 1);
    gar_sim_device_advance(&dev, 1049);
    assert_false(gar_descriptor_reached(&a.word));
    gar_sim_device_advance(&dev, 1050);
    assert_true(gar_descriptor_reached(&a.word));
    /* Armed after its completion: the store is enqueued then. */
    gar_sim_device_enqueue(&dev, 1, 0, 100, GAR_SIM_FAULT_NONE, &b, NULL);
    gar_sim_device_arm(&dev, &b, 3000);
    assert_int_equal(b.store_at, 3050);
    assert_int_equal(b.word.target, 2);
    assert_int_equal(gar_line_load(gar_sim_device_line(&dev, b.stream), b.word.slot), 1);
    gar_sim_device_free(&dev);
}

static void stores_stay_in_order_behind_a_late_one(void **state)
{
    (void)state;
    gar_sim_device dev = make(1, 0, 10000);
    gar_sim_work a, b;
    gar_sim_device_enqueue(&dev, 0, 0, 100, GAR_SIM_FAULT_LATE_STORE, &a, NULL);
    gar_sim_device_arm(&dev, &a, 0);
    assert_int_equal(a.store_at, 10100);
    gar_sim_device_enqueue(&dev, 0, 0, 100, GAR_SIM_FAULT_NONE, &b, NULL);
    gar_sim_device_arm(&dev, &b, 300);
    assert_int_equal(b.done_at, 200);
    assert_int_equal(b.store_at, 10100); /* not before the store ahead of it */
    gar_sim_device_advance(&dev, 10100);
    assert_int_equal(gar_line_load(gar_sim_device_line(&dev, b.stream), b.word.slot), 2);
    gar_sim_device_free(&dev);
}

static void faults_show_as_specified(void **state)
{
    (void)state;
    gar_sim_device dev = make(1, 0, 0);
    gar_sim_work e, l, h, after;
    gar_error err;
    gar_sim_device_enqueue(&dev, 0, 0, 100, GAR_SIM_FAULT_ERROR, &e, NULL);
    assert_int_equal(gar_sim_device_status(&dev, &e, 99, &err), 0);
    assert_int_equal(gar_sim_device_status(&dev, &e, 100, &err), -GAR_E_DEVICE_FAULT);
    gar_sim_device_arm(&dev, &e, 0);
    assert_int_equal(e.store_at, GAR_MONO_NEVER);

    gar_sim_device_enqueue(&dev, 0, 0, 100, GAR_SIM_FAULT_LOST_STORE, &l, NULL);
    gar_sim_device_arm(&dev, &l, 0);
    assert_int_equal(gar_sim_device_status(&dev, &l, 200, NULL), 1);
    assert_int_equal(l.store_at, GAR_MONO_NEVER);
    assert_int_equal(l.word.target, 2); /* the lost store used its number up */

    gar_sim_device_enqueue(&dev, 0, 0, 100, GAR_SIM_FAULT_HANG, &h, NULL);
    gar_sim_device_enqueue(&dev, 0, 0, 100, GAR_SIM_FAULT_NONE, &after, NULL);
    assert_int_equal(h.done_at, GAR_MONO_NEVER);
    assert_int_equal(after.done_at, GAR_MONO_NEVER); /* nothing passes a hung item */
    assert_int_equal(gar_sim_device_status(&dev, &h, GAR_MONO_NEVER, NULL), 0);
    gar_sim_device_free(&dev);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    gar_sim_device dev;
    gar_sim_device_options o = { 0, 0, 0 };
    assert_int_equal(gar_sim_device_init(&dev, &o, NULL), -GAR_E_INVALID_ARGUMENT);
    o.streams = UINT32_MAX;
    assert_int_equal(gar_sim_device_init(&dev, &o, NULL), -GAR_E_INVALID_ARGUMENT);
    dev = make(2, 0, 0);
    gar_sim_work w;
    assert_int_equal(gar_sim_device_enqueue(&dev, 2, 0, 1, GAR_SIM_FAULT_NONE, &w, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_sim_device_enqueue(&dev, 0, 0, 1, (gar_sim_fault)9, &w, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_sim_device_enqueue(&dev, 0, 5, UINT64_MAX, GAR_SIM_FAULT_NONE, &w, NULL), 0);
    assert_int_equal(w.done_at, GAR_MONO_NEVER - 1); /* late, not hung */
    assert_string_equal(gar_sim_fault_name(GAR_SIM_FAULT_LOST_STORE), "lost-store");
    assert_int_equal(gar_sim_fault_from_name("late-store"), GAR_SIM_FAULT_LATE_STORE);
    assert_int_equal(gar_sim_fault_from_name("late"), -1);
    gar_sim_device_free(&dev);
}

/* Streams past one line's eight get words of further lines, and every store
 * lands exactly when due, checked against the rule itself (a store landed
 * iff its time has come) after every step of a random walk through time. */
static void many_streams_land_each_store_when_due(void **state)
{
    (void)state;
    enum { STREAMS = 37, ITEMS = 4000 };
    gar_sim_device dev = make(STREAMS, 20, 700);
    assert_ptr_not_equal(gar_sim_device_line(&dev, 0), gar_sim_device_line(&dev, 8));
    assert_ptr_equal(gar_sim_device_line(&dev, 8), gar_sim_device_line(&dev, 15));
    gar_sim_work last[STREAMS]; /* each stream's latest item, armed */
    bool armed[STREAMS] = { false };
    gar_mono_ns now = 0;
    uint64_t x = 88172645463325252u; /* xorshift: the walk is the same every run */
    for (int i = 0; i < ITEMS; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        unsigned s = (unsigned)(x % STREAMS);
        gar_sim_fault fault = (x >> 20) % 9 == 0 ? GAR_SIM_FAULT_LATE_STORE : GAR_SIM_FAULT_NONE;
        gar_sim_work w;
        assert_int_equal(
            gar_sim_device_enqueue(&dev, s, now, (x >> 32) % 3000, fault, &w, NULL), 0);
        gar_sim_device_arm(&dev, &w, now);
        assert_ptr_equal(w.word.line, gar_sim_device_line(&dev, s));
        assert_int_equal(w.word.slot.index, s % 8);
        last[s] = w;
        armed[s] = true;
        now += (x >> 40) % 400;
        /* A stream's stores land in order, so its latest item's word is
         * reached exactly when that item's store is due. */
        if (i % 3 == 0) {
            gar_sim_device_advance(&dev, now);
            for (unsigned k = 0; k < STREAMS; k++)
                if (armed[k])
                    assert_int_equal(gar_descriptor_reached(&last[k].word),
                                     last[k].store_at <= now);
        } else {
            unsigned k = (unsigned)((x >> 8) % STREAMS);
            if (armed[k]) {
                gar_sim_device_status(&dev, &last[k], now, NULL); /* lands its own store */
                assert_int_equal(gar_descriptor_reached(&last[k].word), last[k].store_at <= now);
            }
        }
    }
    gar_sim_device_advance(&dev, GAR_MONO_NEVER - 1);
    for (unsigned k = 0; k < STREAMS; k++)
        if (armed[k])
            assert_true(gar_descriptor_reached(&last[k].word));
    gar_sim_device_free(&dev);
}

/* The device's one allocation goes through the hook: a failed one is a
 * coded refusal with nothing to free. */
static void a_device_without_memory_is_refused(void **state)
{
    (void)state;
    gar_alloc_fail_nth counter;
    gar_alloc_fail_nth_make(&counter, 1);
    gar_alloc_set_hook(&counter.hook);
    gar_sim_device dev;
    gar_sim_device_options o = { 10000, 0, 0 };
    gar_error err;
    int rc = gar_sim_device_init(&dev, &o, &err);
    gar_alloc_set_hook(NULL);
    assert_int_equal(rc, -GAR_E_CAPACITY);
    assert_true(gar_alloc_fail_nth_fired(&counter));
    assert_int_equal(gar_sim_device_init(&dev, &o, NULL), 0);
    assert_int_equal(dev.options.streams, 10000);
    gar_sim_device_free(&dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streams_run_their_work_in_order),
        cmocka_unit_test(a_store_lands_behind_the_work_and_the_arm),
        cmocka_unit_test(stores_stay_in_order_behind_a_late_one),
        cmocka_unit_test(faults_show_as_specified),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(many_streams_land_each_store_when_due),
        cmocka_unit_test(a_device_without_memory_is_refused),
    };
    return cmocka_run_group_tests_name("sim_device", tests, NULL, NULL);
}
