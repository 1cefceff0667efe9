/* tests/backends/test_cuda_work.c — work of a given duration over a fake
 * driver: the kernel when its PTX loads, else a memset sized by the rate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cuda_work.h"
#include "fake_cuda.h"

static gar_cuda_driver drv;
static const char ptx[] = "// fake PTX";

static int set_up(void **state)
{
    (void)state;
    drv = fake_cuda_reset();
    return 0;
}

static void the_kernel_runs_when_its_ptx_loads(void **state)
{
    (void)state;
    gar_cuda_work work;
    const gar_cuda_work_options options = { .ptx = ptx };
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, &options, NULL), 0);
    assert_int_equal(work.kind, GAR_CUDA_WORK_KERNEL);
    assert_string_equal(work.why, "");
    assert_ptr_equal(fake.module_image, ptx);
    assert_ptr_equal(fake_current_at("cuModuleLoadData"), FAKE_PRIMARY);

    assert_int_equal(gar_cuda_work_submit(&work, FAKE_STREAM, 2500 * GAR_NS_PER_US, NULL), 0);
    assert_int_equal(fake.launches, 1);
    assert_int_equal(fake.launch_ns, 2500 * GAR_NS_PER_US);
    assert_ptr_equal(fake_current_at("cuLaunchKernel"), FAKE_PRIMARY);
    assert_int_equal(gar_cuda_work_submit(&work, FAKE_STREAM, 0, NULL), 0);
    assert_int_equal(fake.launches, 1); /* no work is no launch */

    gar_error err = { 0 };
    fake.launch_rc = CUDA_ERROR_LAUNCH_FAILED;
    assert_int_equal(gar_cuda_work_submit(&work, FAKE_STREAM, 10, &err), -GAR_E_BACKEND);
    assert_int_equal(fake.depth, 0);

    assert_int_equal(gar_cuda_work_fini(&work, NULL), 0);
    assert_true(fake_called_at("cuCtxSynchronize") < fake_called_at("cuModuleUnload"));
    assert_int_equal(fake.depth, 0);
}

static void a_refused_kernel_falls_back_to_a_sized_memset(void **state)
{
    (void)state;
    gar_cuda_work work;
    fake.module_load_rc = CUDA_ERROR_OUT_OF_MEMORY;
    const gar_cuda_work_options options = {
        .ptx = ptx, .memset_bytes_per_ns = 10, .memset_buffer_bytes = 1000,
    };
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, &options, NULL), 0);
    assert_int_equal(work.kind, GAR_CUDA_WORK_MEMSET);
    assert_non_null(strstr(work.why, "cuModuleLoadData refused the kernel: "
                                     "CUDA_ERROR_OUT_OF_MEMORY (2)"));

    /* 250 ns at 10 bytes/ns: 2500 bytes, in memsets of at most the buffer */
    assert_int_equal(gar_cuda_work_submit(&work, FAKE_STREAM, 250, NULL), 0);
    assert_int_equal(fake.memset_bytes, 2500);
    assert_int_equal(fake.memsets, 3);
    assert_int_equal(fake.memset_largest, 1000);

    assert_int_equal(gar_cuda_work_fini(&work, NULL), 0);
    assert_true(fake_called_at("cuCtxSynchronize") < fake_called_at("cuMemFree_v2"));
}

static void the_memset_runs_when_asked_or_without_a_kernel(void **state)
{
    (void)state;
    gar_cuda_work work;
    const gar_cuda_work_options asked = { .ptx = ptx, .memset_only = true };
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, &asked, NULL), 0);
    assert_int_equal(work.kind, GAR_CUDA_WORK_MEMSET);
    assert_string_equal(work.why, "the memset was asked for");
    assert_int_equal(fake_calls("cuModuleLoadData"), 0);
    assert_int_equal(gar_cuda_work_fini(&work, NULL), 0);

    drv.launch_kernel = NULL;
    const gar_cuda_work_options no_launch = { .ptx = ptx };
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, &no_launch, NULL), 0);
    assert_int_equal(work.kind, GAR_CUDA_WORK_MEMSET);
    assert_int_equal(gar_cuda_work_fini(&work, NULL), 0);

    /* a huge duration saturates into many full memsets, never wraps to few */
    fake.memsets = 0;
    const gar_cuda_work_options fast = {
        .memset_only = true, .memset_bytes_per_ns = UINT64_MAX / 4,
        .memset_buffer_bytes = (size_t)1 << 62,
    };
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, &fast, NULL), 0);
    assert_int_equal(gar_cuda_work_submit(&work, FAKE_STREAM, 8, NULL), 0);
    assert_int_equal(fake.memsets, 4); /* UINT64_MAX bytes in 2^62-byte pieces */
    assert_int_equal(gar_cuda_work_fini(&work, NULL), 0);
}

static void without_kernel_or_memset_there_is_no_work(void **state)
{
    (void)state;
    gar_cuda_work work;
    drv.memset_d8_async = NULL;
    gar_error err = { 0 };
    const gar_cuda_work_options options = { .memset_only = true };
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, &options, &err),
                     -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_int_equal(fake.depth, 0);
    assert_int_equal(gar_cuda_work_submit(&work, FAKE_STREAM, 10, NULL), -GAR_E_INVALID_ARGUMENT);

    drv = fake_cuda_reset();
    fake.mem_alloc_rc = CUDA_ERROR_OUT_OF_MEMORY;
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, &options, &err),
                     -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_DRIVER);
    assert_int_equal(gar_cuda_work_init(NULL, &drv, FAKE_PRIMARY, NULL, NULL),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_cuda_work_init(&work, &drv, NULL, NULL, NULL), -GAR_E_INVALID_ARGUMENT);
}

static void fini_keeps_the_buffer_when_the_context_does_not_settle(void **state)
{
    (void)state;
    gar_cuda_work work;
    const gar_cuda_work_options options = { .memset_only = true };
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, &options, NULL), 0);
    fake.ctx_sync_rc = CUDA_ERROR_LAUNCH_FAILED;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_work_fini(&work, &err), -GAR_E_BACKEND);
    assert_int_equal(fake_calls("cuMemFree_v2"), 0);
    assert_int_equal(fake.depth, 0);
}

static void the_build_says_whether_it_carries_the_kernel(void **state)
{
    (void)state;
    gar_cuda_work work;
    assert_int_equal(gar_cuda_work_init(&work, &drv, FAKE_PRIMARY, NULL, NULL), 0);
    if (gar_cuda_work_has_ptx()) {
        assert_int_equal(work.kind, GAR_CUDA_WORK_KERNEL);
        assert_non_null(fake.module_image);
        /* the embedded text is PTX naming the kernel */
        assert_non_null(strstr((const char *)fake.module_image, GAR_CUDA_WORK_KERNEL_NAME));
        assert_non_null(strstr((const char *)fake.module_image, ".target"));
    } else {
        assert_int_equal(work.kind, GAR_CUDA_WORK_MEMSET);
        assert_non_null(strstr(work.why, "nvcc"));
    }
    assert_int_equal(gar_cuda_work_fini(&work, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(the_kernel_runs_when_its_ptx_loads, set_up),
        cmocka_unit_test_setup(a_refused_kernel_falls_back_to_a_sized_memset, set_up),
        cmocka_unit_test_setup(the_memset_runs_when_asked_or_without_a_kernel, set_up),
        cmocka_unit_test_setup(without_kernel_or_memset_there_is_no_work, set_up),
        cmocka_unit_test_setup(fini_keeps_the_buffer_when_the_context_does_not_settle, set_up),
        cmocka_unit_test_setup(the_build_says_whether_it_carries_the_kernel, set_up),
    };
    return cmocka_run_group_tests_name("cuda_work", tests, NULL, NULL);
}
