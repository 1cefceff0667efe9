/* tests/sim/test_sim_device.c — in-order streams, their stores and faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim_device.h"

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
    assert_int_equal(gar_line_load(&dev.line, b.word.slot), 1);
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
    assert_int_equal(gar_line_load(&dev.line, b.word.slot), 2);
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
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    gar_sim_device dev;
    gar_sim_device_options o = { 9, 0, 0 };
    assert_int_equal(gar_sim_device_init(&dev, &o, NULL), -GAR_E_INVALID_ARGUMENT);
    o.streams = 0;
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streams_run_their_work_in_order),
        cmocka_unit_test(a_store_lands_behind_the_work_and_the_arm),
        cmocka_unit_test(stores_stay_in_order_behind_a_late_one),
        cmocka_unit_test(faults_show_as_specified),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return cmocka_run_group_tests_name("sim_device", tests, NULL, NULL);
}
