/* tests/backends/test_cuda_line.c — the CUDA mapped line over a fake driver:
 * the order of its lifetime, the leak when the context does not settle,
 * ForeignStream, and how every driver failure is mapped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gar/cuda.h>
#include <gar/mapped.h>

#include "fake_cuda.h"

static gar_cuda_driver drv;

static int set_up(void **state)
{
    (void)state;
    drv = fake_cuda_reset();
    return 0;
}

/* An idle whose park is never expected to run in these tests. */
static int idle_park_unused(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                            gar_mono_ns until, gar_error *err)
{
    (void)ctx, (void)line, (void)seen, (void)until, (void)err;
    fail_msg("park was not expected");
    return -1;
}

static const gar_idle_ops idle_ops = { .version = GAR_IDLE_OPS_VERSION, .park = idle_park_unused };
static const gar_idle idle = { .ops = &idle_ops, .ctx = NULL };

static gar_slot slot_of(unsigned index)
{
    gar_slot slot;
    assert_int_equal(gar_slot_make(index, &slot, NULL), 0);
    return slot;
}

/* The message of `err`, for substring checks. */
static const char *message(const gar_error *err)
{
    static char buf[512];
    gar_error_message(err, buf, sizeof buf);
    return buf;
}

static void create_retains_before_the_page_and_release_frees_before_releasing(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, &err), 0);
    assert_int_equal(line.state, GAR_MAPPED_LIVE);

    /* creation: init, device, retain, then the page with the context current */
    assert_true(fake_called_at("cuInit") < fake_called_at("cuDeviceGet"));
    assert_true(fake_called_at("cuDeviceGet") < fake_called_at("cuDevicePrimaryCtxRetain"));
    assert_true(fake_called_at("cuDevicePrimaryCtxRetain") < fake_called_at("cuMemHostAlloc"));
    assert_true(fake_called_at("cuMemHostAlloc") < fake_called_at("cuMemHostGetDevicePointer_v2"));
    assert_ptr_equal(fake_current_at("cuMemHostAlloc"), FAKE_PRIMARY);
    assert_int_equal(fake.alloc_bytes, GAR_MAPPED_PAGE_BYTES);
    assert_int_equal(fake.alloc_flags, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
    assert_int_equal(fake.retained, 1);
    assert_int_equal(fake.depth, 0); /* the caller's context stack is as it was */

    /* the line is at the page's start, zeroed, with the page's device view */
    assert_ptr_equal(line.line, fake_page());
    assert_int_equal(line.device_addr, FAKE_DEVICE_BASE);
    for (unsigned i = 0; i < GAR_LINE_WORDS; i++)
        assert_int_equal(gar_line_load(line.line, slot_of(i)), 0);
    assert_ptr_equal(gar_cuda_line_context(&line), FAKE_PRIMARY);

    /* release: settle with the context current, free, then release */
    unsigned before = fake.log_len;
    assert_int_equal(gar_mapped_line_release(&line, &err), 0);
    assert_int_equal(line.state, GAR_MAPPED_RELEASED);
    assert_true(fake_called_at("cuCtxSynchronize") >= (int)before);
    assert_ptr_equal(fake_current_at("cuCtxSynchronize"), FAKE_PRIMARY);
    assert_true(fake_called_at("cuCtxSynchronize") < fake_called_at("cuMemFreeHost"));
    assert_true(fake_called_at("cuMemFreeHost") < fake_called_at("cuDevicePrimaryCtxRelease_v2"));
    assert_false(fake.page_allocated);
    assert_int_equal(fake.retained, 0);
    assert_int_equal(fake.depth, 0);
    assert_null(gar_cuda_line_context(&line));
}

static void a_line_leaks_its_page_when_the_context_does_not_settle(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, NULL), 0);
    fake.ctx_sync_rc = CUDA_ERROR_LAUNCH_FAILED;

    assert_int_equal(gar_mapped_line_release(&line, &err), 1);
    assert_int_equal(line.state, GAR_MAPPED_LEAKED);
    assert_int_equal(fake_calls("cuMemFreeHost"), 0);
    assert_int_equal(fake_calls("cuDevicePrimaryCtxRelease_v2"), 0);
    assert_true(fake.page_allocated);
    assert_int_equal(fake.retained, 1); /* the context stays, or it would free the page */
    assert_int_equal(fake.depth, 0);
    assert_int_equal(err.code, GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_DRIVER);
    assert_string_equal(message(&err), "cuCtxSynchronize failed: CUDA_ERROR_LAUNCH_FAILED (719): "
                                       "unspecified launch failure");

    /* a leaked line is ended: a second release is refused, not repeated */
    assert_int_equal(gar_mapped_line_release(&line, NULL), -GAR_E_INVALID_ARGUMENT);
}

static void a_line_leaks_its_page_when_freeing_it_fails(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, NULL), 0);
    fake.free_rc = CUDA_ERROR_INVALID_VALUE;
    assert_int_equal(gar_mapped_line_release(&line, &err), 1);
    assert_int_equal(line.state, GAR_MAPPED_LEAKED);
    assert_int_equal(fake.retained, 1);
    assert_non_null(strstr(message(&err), "cuMemFreeHost failed"));
}

static void a_failing_context_release_is_reported_after_the_page_is_freed(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, NULL), 0);
    fake.release_rc = CUDA_ERROR_INVALID_CONTEXT;
    assert_int_equal(gar_mapped_line_release(&line, &err), -GAR_E_BACKEND);
    assert_int_equal(line.state, GAR_MAPPED_RELEASED);
    assert_false(fake.page_allocated);
    assert_string_equal(message(&err), "cuDevicePrimaryCtxRelease_v2 failed: "
                                       "CUDA_ERROR_INVALID_CONTEXT (201)");
}

static void release_refuses_a_line_with_a_bound_slot(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_mapped_port port;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, NULL), 0);
    assert_int_equal(gar_cuda_port_init(&port, &line, slot_of(3), FAKE_STREAM, idle, NULL), 0);
    assert_int_equal(gar_mapped_line_release(&line, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(line.state, GAR_MAPPED_LIVE);
    assert_int_equal(fake_calls("cuCtxSynchronize"), 0);
    gar_mapped_port_fini(&port);
    assert_int_equal(gar_mapped_line_release(&line, NULL), 0);
}

static void a_stream_of_another_context_is_refused(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_mapped_port port;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, NULL), 0);

    fake.stream_ctx = FAKE_OTHER_CTX;
    assert_int_equal(gar_cuda_port_init(&port, &line, slot_of(0), FAKE_STREAM, idle, &err),
                     -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_FOREIGN_STREAM);
    assert_non_null(strstr(message(&err), "ForeignStream"));
    assert_int_equal(line.bound, 0); /* nothing bound: the slot is still free */

    fake.stream_ctx = FAKE_PRIMARY;
    assert_int_equal(gar_cuda_port_init(&port, &line, slot_of(0), FAKE_STREAM, idle, NULL), 0);
    gar_mapped_port other;
    assert_int_equal(gar_cuda_port_init(&other, &line, slot_of(0), FAKE_STREAM, idle, &err),
                     -GAR_E_INVALID_ARGUMENT); /* one stream per word */
    gar_mapped_port_fini(&port);

    fake.get_ctx_rc = CUDA_ERROR_INVALID_HANDLE;
    assert_int_equal(gar_cuda_port_init(&port, &line, slot_of(0), FAKE_STREAM, idle, &err),
                     -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_DRIVER);
    assert_string_equal(message(&err), "cuStreamGetCtx failed: CUresult 400"); /* a status no one names */
    assert_int_equal(gar_mapped_line_release(&line, NULL), 0);
}

/* Which entry point fails, with what, and what the line says. */
typedef struct mapping_case {
    const char *label;
    CUresult *rc; /* the fake's status to set */
    CUresult status;
    gar_mapped_fault fault;
    const char *message;
} mapping_case;

static void every_creation_failure_is_mapped_and_holds_nothing(void **state)
{
    (void)state;
    const mapping_case cases[] = {
        { "stub", &fake.init_rc, CUDA_ERROR_STUB_LIBRARY, GAR_MAPPED_FAULT_UNAVAILABLE,
          "cuInit failed: Unavailable: CUDA_ERROR_STUB_LIBRARY (34)" },
        { "no device", &fake.init_rc, CUDA_ERROR_NO_DEVICE, GAR_MAPPED_FAULT_NO_DOMAIN,
          "cuInit failed: NoDomain: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected" },
        { "init", &fake.init_rc, CUDA_ERROR_NOT_INITIALIZED, GAR_MAPPED_FAULT_DRIVER,
          "cuInit failed: CUDA_ERROR_NOT_INITIALIZED (3)" },
        { "ordinal", &fake.device_get_rc, CUDA_ERROR_INVALID_DEVICE, GAR_MAPPED_FAULT_NO_DOMAIN,
          "cuDeviceGet(0) failed: NoDomain: CUDA_ERROR_INVALID_DEVICE (101)" },
        { "retain", &fake.retain_rc, CUDA_ERROR_OUT_OF_MEMORY, GAR_MAPPED_FAULT_NO_DOMAIN,
          "cuDevicePrimaryCtxRetain failed: NoDomain: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" },
        { "push", &fake.push_rc, CUDA_ERROR_INVALID_CONTEXT, GAR_MAPPED_FAULT_DRIVER,
          "cuCtxPushCurrent_v2 failed: CUDA_ERROR_INVALID_CONTEXT (201)" },
        { "alloc", &fake.alloc_rc, CUDA_ERROR_OUT_OF_MEMORY, GAR_MAPPED_FAULT_DRIVER,
          "cuMemHostAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory" },
        { "device pointer", &fake.devptr_rc, CUDA_ERROR_NOT_SUPPORTED, GAR_MAPPED_FAULT_DRIVER,
          "cuMemHostGetDevicePointer_v2 failed: CUDA_ERROR_NOT_SUPPORTED (801)" },
        { "unknown status", &fake.alloc_rc, (CUresult)4242, GAR_MAPPED_FAULT_DRIVER,
          "cuMemHostAlloc failed: CUresult 4242" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        drv = fake_cuda_reset();
        *cases[i].rc = cases[i].status;
        gar_mapped_line line;
        gar_error err = { 0 };
        print_message("case: %s\n", cases[i].label);
        assert_int_equal(gar_cuda_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
        assert_int_equal(line.state, GAR_MAPPED_UNSET);
        assert_int_equal(gar_mapped_fault_of(&err), cases[i].fault);
        assert_string_equal(message(&err), cases[i].message);
        assert_int_equal(fake.retained, 0); /* a failed creation holds nothing */
        assert_false(fake.page_allocated);
        assert_int_equal(fake.depth, 0);
    }
}

static void statuses_are_named_by_the_driver_else_by_gar_else_by_number(void **state)
{
    (void)state;
    char buf[128];
    gar_cuda_status_text(&drv, CUDA_ERROR_OUT_OF_MEMORY, buf, sizeof buf);
    assert_string_equal(buf, "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory");
    drv.get_error_name = NULL;
    drv.get_error_string = NULL;
    gar_cuda_status_text(&drv, CUDA_ERROR_OUT_OF_MEMORY, buf, sizeof buf);
    assert_string_equal(buf, "CUDA_ERROR_OUT_OF_MEMORY (2)");
    gar_cuda_status_text(NULL, CUDA_ERROR_NOT_READY, buf, sizeof buf);
    assert_string_equal(buf, "CUDA_ERROR_NOT_READY (600)");
    gar_cuda_status_text(&drv, (CUresult)999, buf, sizeof buf);
    assert_string_equal(buf, "CUresult 999");
    /* like snprintf: the whole length, however small the buffer */
    assert_int_equal(gar_cuda_status_text(&drv, (CUresult)999, buf, 4), strlen("CUresult 999"));
    assert_string_equal(buf, "CUr");
}

static void a_driver_without_the_store_fails_only_line_creation(void **state)
{
    (void)state;
    drv.stream_write_value64 = NULL;
    assert_null(gar_cuda_driver_missing(&drv)); /* the table itself is complete */

    gar_mapped_line line;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_string_equal(message(&err), "create a mapped line failed: Unavailable: the driver has "
                                       "no cuStreamWriteValue64_v2");
    assert_int_equal(fake.log_len, 0); /* refused before any call */
}

static void a_table_missing_a_required_entry_point_is_unavailable(void **state)
{
    (void)state;
    drv.stream_get_ctx = NULL;
    assert_string_equal(gar_cuda_driver_missing(&drv), "cuStreamGetCtx");
    gar_mapped_line line;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_non_null(strstr(message(&err), "cuStreamGetCtx"));
}

static void an_unaligned_page_is_refused_and_freed(void **state)
{
    (void)state;
    fake.page_offset = 8;
    gar_mapped_line line;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_DRIVER);
    assert_false(fake.page_allocated);
    assert_int_equal(fake.retained, 0);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    gar_mapped_line line;
    assert_int_equal(gar_cuda_line_create(NULL, &drv, 0, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_cuda_line_create(&line, NULL, 0, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_cuda_line_create(&line, &drv, -1, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_mapped_line_release(NULL, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_mapped_line_release(&line, NULL), -GAR_E_INVALID_ARGUMENT); /* UNSET */
    assert_int_equal(fake.log_len, 0);
}

static void faults_round_trip_through_the_error_record(void **state)
{
    (void)state;
    gar_error err = { 0 };
    assert_int_equal(gar_mapped_fault_of(NULL), GAR_MAPPED_FAULT_NONE);
    gar_error_set(&err, GAR_E_BACKEND, 2, "x", "y"); /* a backend error of someone else */
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_NONE);
    for (int f = GAR_MAPPED_FAULT_DRIVER; f <= GAR_MAPPED_FAULT_FOREIGN_STREAM; f++) {
        assert_int_equal(gar_mapped_fail(&err, (gar_mapped_fault)f, "w", "s"), -GAR_E_BACKEND);
        assert_int_equal(gar_mapped_fault_of(&err), f);
    }
    assert_string_equal(gar_mapped_fault_name((gar_mapped_fault)99), "None");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(create_retains_before_the_page_and_release_frees_before_releasing,
                               set_up),
        cmocka_unit_test_setup(a_line_leaks_its_page_when_the_context_does_not_settle, set_up),
        cmocka_unit_test_setup(a_line_leaks_its_page_when_freeing_it_fails, set_up),
        cmocka_unit_test_setup(a_failing_context_release_is_reported_after_the_page_is_freed,
                               set_up),
        cmocka_unit_test_setup(release_refuses_a_line_with_a_bound_slot, set_up),
        cmocka_unit_test_setup(a_stream_of_another_context_is_refused, set_up),
        cmocka_unit_test_setup(every_creation_failure_is_mapped_and_holds_nothing, set_up),
        cmocka_unit_test_setup(statuses_are_named_by_the_driver_else_by_gar_else_by_number, set_up),
        cmocka_unit_test_setup(a_driver_without_the_store_fails_only_line_creation, set_up),
        cmocka_unit_test_setup(a_table_missing_a_required_entry_point_is_unavailable, set_up),
        cmocka_unit_test_setup(an_unaligned_page_is_refused_and_freed, set_up),
        cmocka_unit_test_setup(bad_arguments_are_refused, set_up),
        cmocka_unit_test_setup(faults_round_trip_through_the_error_record, set_up),
    };
    return cmocka_run_group_tests_name("cuda_line", tests, NULL, NULL);
}
