/* tests/backends/test_cuda_gpu.c — the CUDA backend on a real GPU.
 *
 * Exits 77 (skip) where there is none: no driver library, the toolkit's
 * stub, no device.  On a GPU it checks that a store the device makes into
 * the mapped line is seen by the host, and runs each measured plan (block,
 * poll, poll+predict, flag, flag+predict) through the inline driver on real
 * work of a given duration, printing what each wait did.  Only hard
 * guarantees are asserted (done when the wait says so, the word reached
 * behind the work), never how long anything took. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <gar/cuda.h>
#include <gar/plan.h>
#include <gar/posix.h>
#include <gar/wait_inline.h>

#include "cuda_work.h"

#define SKIP 77
#define WORK_NS (2 * GAR_NS_PER_MS)
#define PREDICTED_SLEEP_NS (1500 * GAR_NS_PER_US)

static gar_cuda_driver drv;
static gar_mapped_line line;
static CUstream stream;
static gar_cuda_work work;
static gar_posix_host host;

static const char *message(const gar_error *err)
{
    static char buf[512];
    gar_error_describe(err, buf, sizeof buf);
    return buf;
}

static gar_slot slot_of(unsigned index)
{
    gar_slot slot;
    assert_int_equal(gar_slot_make(index, &slot, NULL), 0);
    return slot;
}

static void ok_or_fail(int rc, const gar_error *err)
{
    if (rc < 0)
        fail_msg("%s", message(err));
}

static void a_device_store_is_seen_by_the_host(void **state)
{
    (void)state;
    gar_error err = { 0 };
    gar_mapped_port mp;
    ok_or_fail(gar_cuda_port_init(&mp, &line, slot_of(0), stream, gar_posix_host_idle(&host), &err),
               &err);
    gar_port port = gar_mapped_port_port(&mp);

    for (int round = 0; round < 3; round++) {
        ok_or_fail(gar_cuda_work_submit(&work, stream, WORK_NS, &err), &err);
        gar_descriptor d;
        ok_or_fail(port.ops->arm(port.ctx, &d, &err), &err);
        ok_or_fail(port.ops->block(port.ctx, &err), &err);
        assert_true(gar_descriptor_reached(&d));
        assert_int_equal(gar_line_load(line.line, d.slot), d.target);
        assert_int_equal(port.ops->query(port.ctx, &err), 1);
    }
    gar_mapped_port_fini(&mp);
}

static void each_measured_plan_waits_on_real_work(void **state)
{
    (void)state;
    static const char *const plans[] = {
        "block",
        "poll",
        "poll+predict:margin_us=200,min_sleep_us=0,max_sleep_us=10000,window=4",
        "flag:park_us=100,backstop_us=1000",
        "flag:park_us=100,backstop_us=1000+predict:margin_us=200,min_sleep_us=0,"
        "max_sleep_us=10000,window=4",
    };
    gar_error err = { 0 };
    gar_mapped_port mp;
    ok_or_fail(gar_cuda_port_init(&mp, &line, slot_of(1), stream, gar_posix_host_idle(&host), &err),
               &err);
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        gar_plan plan;
        ok_or_fail(gar_plan_parse(plans[i], &plan, &err), &err);
        const uint64_t issued_before = gar_mapped_port_issued(&mp);
        const gar_mono_ns submitted = gar_posix_now();
        ok_or_fail(gar_cuda_work_submit(&work, stream, WORK_NS, &err), &err);

        gar_wait_report report;
        /* The plan as parsed, not resolved: this host's park is a spin,
         * not a word wait, and the flag plan is what is measured. */
        int rc = gar_wait_inline(&plan, plan.predict, PREDICTED_SLEEP_NS, GAR_MONO_NEVER,
                                 gar_mapped_port_port(&mp), gar_posix_clock(),
                                 gar_posix_host_idle(&host), &report, &err);
        const gar_mono_ns ended = gar_posix_now();
        ok_or_fail(rc, &err);

        gar_port port = gar_mapped_port_port(&mp);
        assert_int_equal(port.ops->query(port.ctx, &err), 1);
        if (plan.park == GAR_PARK_BLOCK) {
            assert_int_equal(report.kind, GAR_WAIT_KIND_BLOCKED);
        } else {
            assert_int_not_equal(report.kind, GAR_WAIT_KIND_NONE);
        }
        if (plan.park == GAR_PARK_FLAG) {
            /* armed once, and the store behind the work has landed */
            assert_int_equal(gar_mapped_port_issued(&mp), issued_before + 1);
            assert_int_equal(gar_line_load(line.line, slot_of(1)), issued_before + 1);
        }
        print_message("%-90s kind %d wait_ns %llu submit_to_end_ns %llu slept_ns %llu "
                      "parks %llu queries %llu polls %llu\n",
                      plans[i], (int)report.kind, (unsigned long long)report.wait_ns,
                      (unsigned long long)(ended - submitted),
                      (unsigned long long)report.slept_ns, (unsigned long long)report.parks,
                      (unsigned long long)report.queries, (unsigned long long)report.polls);
    }
    gar_mapped_port_fini(&mp);
}

static void the_memset_work_runs_too(void **state)
{
    (void)state;
    gar_error err = { 0 };
    gar_cuda_work memset_work;
    const gar_cuda_work_options options = { .memset_only = true };
    ok_or_fail(gar_cuda_work_init(&memset_work, &drv, gar_cuda_line_context(&line), &options, &err),
               &err);
    assert_int_equal(memset_work.kind, GAR_CUDA_WORK_MEMSET);
    ok_or_fail(gar_cuda_work_submit(&memset_work, stream, WORK_NS, &err), &err);
    assert_int_equal(drv.stream_synchronize(stream), CUDA_SUCCESS);
    ok_or_fail(gar_cuda_work_fini(&memset_work, &err), &err);
}

/* Sets the GPU up; returns 0, or SKIP where there is no GPU, or 1. */
static int open_gpu(void)
{
    gar_error err = { 0 };
    if (gar_cuda_driver_open(&drv, NULL, &err) < 0) {
        printf("skip: %s\n", message(&err));
        return SKIP;
    }
    if (gar_cuda_line_create(&line, &drv, 0, &err) < 0) {
        gar_mapped_fault fault = gar_mapped_fault_of(&err);
        printf("%s: %s\n", fault == GAR_MAPPED_FAULT_DRIVER ? "error" : "skip", message(&err));
        gar_cuda_driver_close(&drv);
        return fault == GAR_MAPPED_FAULT_DRIVER ? 1 : SKIP;
    }
    if (drv.stream_create == NULL || drv.stream_destroy == NULL) {
        printf("error: the driver has no cuStreamCreate/cuStreamDestroy_v2\n");
        return 1;
    }
    CUcontext ctx = gar_cuda_line_context(&line);
    if (gar_cuda_push(&drv, ctx, &err) < 0) {
        printf("error: %s\n", message(&err));
        return 1;
    }
    CUresult rc = drv.stream_create(&stream, CU_STREAM_NON_BLOCKING);
    gar_cuda_pop(&drv, NULL);
    if (rc != CUDA_SUCCESS) {
        gar_cuda_fail(&drv, &err, GAR_MAPPED_FAULT_DRIVER, "cuStreamCreate", rc);
        printf("error: %s\n", message(&err));
        return 1;
    }
    if (gar_cuda_work_init(&work, &drv, ctx, NULL, &err) < 0) {
        printf("error: %s\n", message(&err));
        return 1;
    }
    printf("work: %s %s\n", work.kind == GAR_CUDA_WORK_KERNEL ? "kernel" : "memset", work.why);
    if (gar_posix_host_init(&host, NULL, &err) < 0) {
        printf("error: %s\n", message(&err));
        return 1;
    }
    return 0;
}

static int close_gpu(void)
{
    gar_error err = { 0 };
    int failed = 0;
    if (gar_cuda_work_fini(&work, &err) < 0) {
        printf("error: %s\n", message(&err));
        failed = 1;
    }
    drv.stream_destroy(stream);
    int rc = gar_mapped_line_release(&line, &err);
    if (rc != 0) {
        printf("error: line release answered %d: %s\n", rc, message(&err));
        failed = 1;
    }
    gar_cuda_driver_close(&drv);
    return failed;
}

int main(void)
{
    int rc = open_gpu();
    if (rc != 0)
        return rc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_device_store_is_seen_by_the_host),
        cmocka_unit_test(each_measured_plan_waits_on_real_work),
        cmocka_unit_test(the_memset_work_runs_too),
    };
    rc = cmocka_run_group_tests_name("cuda_gpu", tests, NULL, NULL);
    return close_gpu() != 0 ? 1 : rc;
}
