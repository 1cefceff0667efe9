/* tests/backends/test_cuda_driver.c — loading the CUDA driver with dlopen:
 * a missing library, a missing entry point, a driver without the store,
 * and the toolkit's stub library (present on machines with the toolkit but
 * no driver), whose every call answers CUDA_ERROR_STUB_LIBRARY. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gar/cuda.h>

static const char *message(const gar_error *err)
{
    static char buf[512];
    gar_error_message(err, buf, sizeof buf);
    return buf;
}

/* A path the build passes in the environment; the test fails without it. */
static const char *test_path(const char *name)
{
    const char *path = getenv(name);
    assert_non_null(path);
    return path;
}

static void a_missing_library_is_unavailable_and_named(void **state)
{
    (void)state;
    gar_cuda_driver drv;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_driver_open(&drv, "libgar-no-such-driver.so.1", &err),
                     -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_non_null(strstr(message(&err), "dlopen(libgar-no-such-driver.so.1) failed: Unavailable: "));
    assert_null(drv.handle);
    assert_null(drv.init);
}

static void the_default_library_is_libcuda_so_1(void **state)
{
    (void)state;
    assert_int_equal(unsetenv(GAR_CUDA_LIBRARY_ENV), 0);
    gar_cuda_driver drv;
    gar_error err = { 0 };
    int rc = gar_cuda_driver_open(&drv, NULL, &err);
    if (rc == 0) { /* a machine with a driver */
        assert_string_equal(drv.library, "libcuda.so.1");
        gar_cuda_driver_close(&drv);
        return;
    }
    assert_int_equal(rc, -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_non_null(strstr(message(&err), "dlopen(libcuda.so.1) failed"));
}

static void the_environment_names_another_library(void **state)
{
    (void)state;
    assert_int_equal(setenv(GAR_CUDA_LIBRARY_ENV, "/nonexistent/libcuda-from-env.so", 1), 0);
    gar_cuda_driver drv;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_driver_open(&drv, NULL, &err), -GAR_E_BACKEND);
    assert_non_null(strstr(message(&err), "dlopen(/nonexistent/libcuda-from-env.so) failed"));
    assert_int_equal(unsetenv(GAR_CUDA_LIBRARY_ENV), 0);

    char long_name[GAR_CUDA_LIBRARY_BYTES + 1];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(gar_cuda_driver_open(&drv, long_name, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_cuda_driver_open(NULL, NULL, NULL), -GAR_E_INVALID_ARGUMENT);
}

static void a_missing_required_entry_point_fails_open(void **state)
{
    (void)state;
    const char *path = test_path("GAR_TEST_FAKE_LIBCUDA_NOQUERY");
    gar_cuda_driver drv;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_driver_open(&drv, path, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    char expected[512];
    snprintf(expected, sizeof expected, "resolve cuStreamQuery in %s failed", path);
    assert_non_null(strstr(message(&err), expected));
    assert_null(drv.handle);
}

static void a_driver_without_the_store_loads_but_makes_no_line(void **state)
{
    (void)state;
    const char *path = test_path("GAR_TEST_FAKE_LIBCUDA_NOSTORE");
    gar_cuda_driver drv;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_driver_open(&drv, path, &err), 0);
    assert_string_equal(drv.library, path);
    assert_non_null(drv.handle);
    assert_non_null(drv.stream_query);
    assert_null(drv.stream_write_value64);
    assert_null(drv.get_error_name); /* optional, and absent */
    assert_null(gar_cuda_driver_missing(&drv));

    gar_mapped_line line;
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_non_null(strstr(message(&err), "no cuStreamWriteValue64_v2"));
    gar_cuda_driver_close(&drv);
    assert_null(drv.handle);
}

static void the_stub_library_loads_but_line_creation_is_refused(void **state)
{
    (void)state;
    const char *stub = test_path("GAR_TEST_CUDA_STUB");
    if (access(stub, R_OK) != 0)
        skip(); /* no toolkit stub here */
    gar_cuda_driver drv;
    gar_error err = { 0 };
    assert_int_equal(gar_cuda_driver_open(&drv, stub, &err), 0);
    gar_mapped_line line;
    assert_int_equal(gar_cuda_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
    assert_int_equal(line.state, GAR_MAPPED_UNSET);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_string_equal(message(&err), "cuInit failed: Unavailable: CUDA_ERROR_STUB_LIBRARY (34)");
    gar_cuda_driver_close(&drv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_missing_library_is_unavailable_and_named),
        cmocka_unit_test(the_default_library_is_libcuda_so_1),
        cmocka_unit_test(the_environment_names_another_library),
        cmocka_unit_test(a_missing_required_entry_point_fails_open),
        cmocka_unit_test(a_driver_without_the_store_loads_but_makes_no_line),
        cmocka_unit_test(the_stub_library_loads_but_line_creation_is_refused),
    };
    return cmocka_run_group_tests_name("cuda_driver", tests, NULL, NULL);
}
