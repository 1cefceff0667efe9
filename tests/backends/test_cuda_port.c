/* tests/backends/test_cuda_port.c — the CUDA stream's completion port over a
 * fake driver: what each op answers, what it enqueues, how it parks, and a
 * whole flag wait through the inline driver. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gar/cuda.h>
#include <gar/plan.h>
#include <gar/wait_inline.h>

#include "fake_cuda.h"

static gar_cuda_driver drv;
static gar_mapped_line line;

/* ---- a scripted idle ------------------------------------------------------ */

typedef struct script_idle {
    unsigned parks;
    gar_mono_ns last_until;
    int answer;             /* what park returns */
    int store_slot;         /* >= 0: park stores `store_value` into this slot first */
    uint64_t store_value;
    bool saw_snapshot_match; /* the line equalled the snapshot when park was called */
} script_idle;

static script_idle script;

static int script_park(void *ctx, gar_line *l, const uint64_t seen[GAR_LINE_WORDS],
                       gar_mono_ns until, gar_error *err)
{
    (void)ctx;
    script.parks++;
    script.last_until = until;
    script.saw_snapshot_match = gar_line_unchanged(l, seen);
    if (script.store_slot >= 0) {
        gar_slot slot = { .index = (uint8_t)script.store_slot };
        gar_line_store(l, slot, script.store_value);
    }
    if (script.answer < 0)
        return gar_error_set(err, GAR_E_BACKEND, 2, "script park", "told to fail");
    return script.answer;
}

static int script_sleep(void *ctx, gar_mono_ns until, gar_error *err)
{
    (void)ctx, (void)until, (void)err;
    return 0;
}

static const gar_idle_ops script_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = script_sleep,
    .park = script_park,
};
static const gar_idle idle = { .ops = &script_ops, .ctx = NULL };

static gar_slot slot_of(unsigned index)
{
    gar_slot slot;
    assert_int_equal(gar_slot_make(index, &slot, NULL), 0);
    return slot;
}

static const char *message(const gar_error *err)
{
    static char buf[512];
    gar_error_message(err, buf, sizeof buf);
    return buf;
}

static int set_up(void **state)
{
    (void)state;
    drv = fake_cuda_reset();
    script = (script_idle){ .store_slot = -1 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, NULL), 0);
    return 0;
}

static int tear_down(void **state)
{
    (void)state;
    assert_int_equal(gar_mapped_line_release(&line, NULL), 0);
    assert_int_equal(fake.retained, 0);
    return 0;
}

/* ---- tests ---------------------------------------------------------------- */

static void query_maps_the_stream_status(void **state)
{
    (void)state;
    gar_mapped_port mp;
    assert_int_equal(gar_cuda_port_init(&mp, &line, slot_of(0), FAKE_STREAM, idle, NULL), 0);
    gar_port port = gar_mapped_port_port(&mp);
    gar_error err = { 0 };

    fake.query_rc = CUDA_SUCCESS;
    assert_int_equal(port.ops->query(port.ctx, &err), 1);
    assert_int_equal(port.ops->poll(port.ctx, &err), 1);
    fake.query_rc = CUDA_ERROR_NOT_READY;
    assert_int_equal(port.ops->query(port.ctx, &err), 0);
    assert_int_equal(port.ops->poll(port.ctx, &err), 0);
    fake.query_rc = CUDA_ERROR_LAUNCH_FAILED;
    assert_int_equal(port.ops->query(port.ctx, &err), -GAR_E_BACKEND);
    assert_string_equal(message(&err), "cuStreamQuery failed: CUDA_ERROR_LAUNCH_FAILED (719): "
                                       "unspecified launch failure");
    assert_int_equal(port.ops->poll(port.ctx, &err), -GAR_E_BACKEND);
    assert_int_equal(fake_calls("cuStreamQuery"), 6);
    assert_int_equal(fake_calls("cuCtxPushCurrent_v2"), 1); /* only creation's: an explicit stream needs none */
    gar_mapped_port_fini(&mp);
}

static void block_is_the_stream_synchronize(void **state)
{
    (void)state;
    gar_mapped_port mp;
    assert_int_equal(gar_cuda_port_init(&mp, &line, slot_of(0), FAKE_STREAM, idle, NULL), 0);
    gar_port port = gar_mapped_port_port(&mp);
    gar_error err = { 0 };
    assert_int_equal(port.ops->block(port.ctx, &err), 0);
    assert_int_equal(fake_calls("cuStreamSynchronize"), 1);
    fake.stream_sync_rc = CUDA_ERROR_LAUNCH_FAILED;
    assert_int_equal(port.ops->block(port.ctx, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_DRIVER);
    assert_non_null(strstr(message(&err), "cuStreamSynchronize failed"));
    gar_mapped_port_fini(&mp);
}

static void arm_enqueues_the_next_number_into_the_slot_word(void **state)
{
    (void)state;
    gar_mapped_port mp;
    assert_int_equal(gar_cuda_port_init(&mp, &line, slot_of(5), FAKE_STREAM, idle, NULL), 0);
    gar_port port = gar_mapped_port_port(&mp);
    fake.stores_land = false; /* the store stays "queued behind the work" */

    gar_descriptor d;
    assert_int_equal(port.ops->arm(port.ctx, &d, NULL), 0);
    assert_ptr_equal(d.line, line.line);
    assert_int_equal(d.slot.index, 5);
    assert_int_equal(d.target, 1);
    assert_ptr_equal(fake.write_stream, FAKE_STREAM);
    assert_int_equal(fake.write_addr, FAKE_DEVICE_BASE + 5 * sizeof(uint64_t));
    assert_int_equal(fake.write_value, 1);
    assert_false(gar_descriptor_reached(&d));

    assert_int_equal(port.ops->arm(port.ctx, &d, NULL), 0);
    assert_int_equal(d.target, 2);
    assert_int_equal(gar_mapped_port_issued(&mp), 2);

    gar_error err = { 0 };
    fake.write_rc = CUDA_ERROR_NOT_SUPPORTED;
    assert_int_equal(port.ops->arm(port.ctx, &d, &err), -GAR_E_BACKEND);
    assert_string_equal(message(&err), "cuStreamWriteValue64_v2 failed: "
                                       "CUDA_ERROR_NOT_SUPPORTED (801)");
    assert_int_equal(gar_mapped_port_issued(&mp), 2); /* a failed arm issues nothing */
    assert_int_equal(port.ops->arm(port.ctx, NULL, &err), -GAR_E_INVALID_ARGUMENT);

    /* a later port on the slot goes on counting */
    gar_mapped_port_fini(&mp);
    fake.write_rc = CUDA_SUCCESS;
    assert_int_equal(gar_cuda_port_init(&mp, &line, slot_of(5), FAKE_STREAM, idle, NULL), 0);
    port = gar_mapped_port_port(&mp);
    assert_int_equal(port.ops->arm(port.ctx, &d, NULL), 0);
    assert_int_equal(d.target, 3);
    gar_mapped_port_fini(&mp);
}

static void park_answers_whether_the_descriptor_is_reached(void **state)
{
    (void)state;
    gar_mapped_port mp;
    assert_int_equal(gar_cuda_port_init(&mp, &line, slot_of(2), FAKE_STREAM, idle, NULL), 0);
    gar_port port = gar_mapped_port_port(&mp);
    gar_descriptor d;
    gar_error err = { 0 };

    /* landed already: 1 without parking */
    assert_int_equal(port.ops->arm(port.ctx, &d, NULL), 0);
    assert_int_equal(port.ops->park(port.ctx, &d, 1000, &err), 1);
    assert_int_equal(script.parks, 0);

    /* not landed: the host parks from a snapshot of the line, to `until` */
    fake.stores_land = false;
    assert_int_equal(port.ops->arm(port.ctx, &d, NULL), 0);
    script.answer = 0;
    assert_int_equal(port.ops->park(port.ctx, &d, 1234, &err), 0);
    assert_int_equal(script.parks, 1);
    assert_int_equal(script.last_until, 1234);
    assert_true(script.saw_snapshot_match);

    /* the line changed, but in another slot: not reached */
    script.answer = 1;
    script.store_slot = 3;
    script.store_value = 77;
    assert_int_equal(port.ops->park(port.ctx, &d, 2000, &err), 0);

    /* the awaited store lands during the park */
    script.store_slot = 2;
    script.store_value = d.target;
    assert_int_equal(port.ops->park(port.ctx, &d, 3000, &err), 1);

    /* the host's failure is the port's */
    script.store_slot = -1;
    assert_int_equal(port.ops->arm(port.ctx, &d, NULL), 0);
    script.answer = -1;
    assert_int_equal(port.ops->park(port.ctx, &d, 4000, &err), -GAR_E_BACKEND);
    assert_string_equal(message(&err), "script park failed: told to fail");

    /* a descriptor of another slot is refused */
    gar_descriptor wrong = d;
    wrong.slot = slot_of(1);
    assert_int_equal(port.ops->park(port.ctx, &wrong, 4000, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(port.ops->park(port.ctx, NULL, 4000, &err), -GAR_E_INVALID_ARGUMENT);
    gar_mapped_port_fini(&mp);
}

static void the_implicit_stream_runs_with_the_line_context_pushed(void **state)
{
    (void)state;
    gar_mapped_port mp;
    fake.stream_ctx = FAKE_OTHER_CTX; /* never asked: NULL is the line's context's stream */
    assert_int_equal(gar_cuda_port_init(&mp, &line, slot_of(0), NULL, idle, NULL), 0);
    assert_int_equal(fake_calls("cuStreamGetCtx"), 0);
    gar_port port = gar_mapped_port_port(&mp);
    gar_descriptor d;
    assert_int_equal(port.ops->query(port.ctx, NULL), 1);
    assert_ptr_equal(fake_current_at("cuStreamQuery"), FAKE_PRIMARY);
    assert_int_equal(port.ops->block(port.ctx, NULL), 0);
    assert_ptr_equal(fake_current_at("cuStreamSynchronize"), FAKE_PRIMARY);
    assert_int_equal(port.ops->arm(port.ctx, &d, NULL), 0);
    assert_ptr_equal(fake_current_at("cuStreamWriteValue64_v2"), FAKE_PRIMARY);
    assert_int_equal(fake.depth, 0);

    /* a failing pop after a successful query is reported */
    gar_error err = { 0 };
    fake.pop_rc = CUDA_ERROR_INVALID_CONTEXT;
    assert_int_equal(port.ops->query(port.ctx, &err), -GAR_E_BACKEND);
    assert_non_null(strstr(message(&err), "cuCtxPopCurrent_v2 failed"));
    fake.pop_rc = CUDA_SUCCESS;
    fake.depth = 0;
    gar_mapped_port_fini(&mp);
}

static void init_refuses_bad_arguments(void **state)
{
    (void)state;
    gar_mapped_port mp;
    const gar_idle no_park = {
        .ops = &(const gar_idle_ops){ .version = GAR_IDLE_OPS_VERSION, .sleep_until = script_sleep },
    };
    assert_int_equal(gar_cuda_port_init(NULL, &line, slot_of(0), FAKE_STREAM, idle, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_cuda_port_init(&mp, NULL, slot_of(0), FAKE_STREAM, idle, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_cuda_port_init(&mp, &line, slot_of(0), FAKE_STREAM, no_park, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    gar_mapped_line other = line;
    other.ops = &(const gar_mapped_ops){ 0 };
    assert_int_equal(gar_cuda_port_init(&mp, &other, slot_of(0), FAKE_STREAM, idle, NULL),
                     -GAR_E_INVALID_ARGUMENT); /* not a CUDA line */
    assert_int_equal(line.bound, 0);
}

/* A clock that moves 10 µs per reading. */
static gar_mono_ns ticks;
static gar_mono_ns tick_now(void *ctx)
{
    (void)ctx;
    return ticks += 10 * GAR_NS_PER_US;
}

/* Pending for the first `pending` queries, then done. */
static unsigned queries_left;
static CUresult scripted_query(CUstream stream)
{
    (void)stream;
    fake.log[fake.log_len < FAKE_LOG_MAX ? fake.log_len++ : FAKE_LOG_MAX - 1] =
        (fake_call){ .name = "cuStreamQuery" };
    if (queries_left == 0)
        return CUDA_SUCCESS;
    queries_left--;
    return CUDA_ERROR_NOT_READY;
}

static void a_flag_wait_runs_through_the_inline_driver(void **state)
{
    (void)state;
    drv.stream_query = scripted_query;
    queries_left = 2;
    fake.stores_land = false;
    script.answer = 0;
    gar_mapped_port mp;
    assert_int_equal(gar_cuda_port_init(&mp, &line, slot_of(0), FAKE_STREAM, idle, NULL), 0);

    gar_plan plan;
    assert_int_equal(gar_plan_parse("flag:park_us=100,backstop_us=1000", &plan, NULL), 0);
    gar_wait_report report;
    gar_error err = { 0 };
    ticks = 0;
    assert_int_equal(gar_wait_inline(&plan, false, 0, GAR_MONO_NEVER, gar_mapped_port_port(&mp),
                                     (gar_clock){ .now = tick_now }, idle, &report, &err),
                     0);
    assert_int_equal(report.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(fake.writes, 1);                  /* armed once */
    assert_int_equal(fake_calls("cuStreamQuery"), 3);  /* pending, pending (backstop), done */
    assert_true(script.parks >= 1);
    assert_int_equal(report.parks, script.parks);
    gar_mapped_port_fini(&mp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(query_maps_the_stream_status, set_up, tear_down),
        cmocka_unit_test_setup_teardown(block_is_the_stream_synchronize, set_up, tear_down),
        cmocka_unit_test_setup_teardown(arm_enqueues_the_next_number_into_the_slot_word, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(park_answers_whether_the_descriptor_is_reached, set_up,
                                        tear_down),
        cmocka_unit_test_setup_teardown(the_implicit_stream_runs_with_the_line_context_pushed,
                                        set_up, tear_down),
        cmocka_unit_test_setup_teardown(init_refuses_bad_arguments, set_up, tear_down),
        cmocka_unit_test_setup_teardown(a_flag_wait_runs_through_the_inline_driver, set_up,
                                        tear_down),
    };
    return cmocka_run_group_tests_name("cuda_port", tests, NULL, NULL);
}
