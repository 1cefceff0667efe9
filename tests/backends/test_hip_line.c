/* tests/backends/test_hip_line.c — the HIP mapped line and port over a fake
 * HIP table: lifetime order, the leak, ForeignStream, the store through
 * hipStreamWriteValue64, status mapping, and the dlopen path.  It builds
 * without the HIP headers, as the backend does. */
#define _POSIX_C_SOURCE 200809L /* unsetenv */

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gar/hip.h>

#define LOG_MAX 64
#define STREAM ((gar_hip_stream)(uintptr_t)0x3000)
#define PRIMARY ((gar_hip_ctx)(uintptr_t)0x1000)
#define ERROR_LAUNCH_FAILURE 719 /* hipErrorLaunchFailure */

static struct {
    gar_hip_status init_rc, malloc_rc, sync_rc, query_rc, write_rc;
    int current;               /* the thread's current device */
    int current_at_malloc, current_at_sync;
    unsigned malloc_flags;
    int retained;
    bool page_allocated;
    gar_hip_device stream_device;
    void *write_addr;
    uint64_t write_value;
    const char *log[LOG_MAX];
    unsigned log_len;
} fake;

static _Alignas(4096) unsigned char page[4096];

static void record(const char *name)
{
    if (fake.log_len < LOG_MAX)
        fake.log[fake.log_len++] = name;
}

static int called_at(const char *name)
{
    for (unsigned i = 0; i < fake.log_len; i++)
        if (strcmp(fake.log[i], name) == 0)
            return (int)i;
    return -1;
}

static gar_hip_status f_init(unsigned int flags) { (void)flags; record("hipInit"); return fake.init_rc; }
static gar_hip_status f_device_get(gar_hip_device *d, int ordinal)
{
    record("hipDeviceGet");
    *d = ordinal;
    return GAR_HIP_SUCCESS;
}
static gar_hip_status f_retain(gar_hip_ctx *ctx, gar_hip_device d)
{
    (void)d;
    record("hipDevicePrimaryCtxRetain");
    fake.retained++;
    *ctx = PRIMARY;
    return GAR_HIP_SUCCESS;
}
static gar_hip_status f_release(gar_hip_device d)
{
    (void)d;
    record("hipDevicePrimaryCtxRelease");
    fake.retained--;
    return GAR_HIP_SUCCESS;
}
static gar_hip_status f_get_device(int *ordinal) { *ordinal = fake.current; return GAR_HIP_SUCCESS; }
static gar_hip_status f_set_device(int ordinal) { fake.current = ordinal; return GAR_HIP_SUCCESS; }
static gar_hip_status f_device_sync(void)
{
    record("hipDeviceSynchronize");
    fake.current_at_sync = fake.current;
    return fake.sync_rc;
}
static gar_hip_status f_malloc(void **host, size_t bytes, unsigned int flags)
{
    (void)bytes;
    record("hipHostMalloc");
    fake.malloc_flags = flags;
    fake.current_at_malloc = fake.current;
    if (fake.malloc_rc != GAR_HIP_SUCCESS)
        return fake.malloc_rc;
    fake.page_allocated = true;
    *host = page;
    return GAR_HIP_SUCCESS;
}
static gar_hip_status f_free(void *host)
{
    (void)host;
    record("hipHostFree");
    fake.page_allocated = false;
    return GAR_HIP_SUCCESS;
}
static gar_hip_status f_devptr(void **device, void *host, unsigned int flags)
{
    (void)flags;
    record("hipHostGetDevicePointer");
    *device = host; /* HIP maps pinned memory at the host's address */
    return GAR_HIP_SUCCESS;
}
static gar_hip_status f_stream_device(gar_hip_stream s, gar_hip_device *d)
{
    (void)s;
    *d = fake.stream_device;
    return GAR_HIP_SUCCESS;
}
static gar_hip_status f_query(gar_hip_stream s) { (void)s; return fake.query_rc; }
static gar_hip_status f_stream_sync(gar_hip_stream s) { (void)s; return GAR_HIP_SUCCESS; }
static gar_hip_status f_write(gar_hip_stream s, void *addr, uint64_t value, unsigned int flags)
{
    (void)s, (void)flags;
    record("hipStreamWriteValue64");
    if (fake.write_rc != GAR_HIP_SUCCESS)
        return fake.write_rc;
    fake.write_addr = addr;
    fake.write_value = value;
    atomic_store_explicit((_Atomic uint64_t *)addr, value, memory_order_release);
    return GAR_HIP_SUCCESS;
}
static const char *f_name(gar_hip_status s) { return s == ERROR_LAUNCH_FAILURE ? "hipErrorLaunchFailure" : NULL; }
static const char *f_string(gar_hip_status s) { return s == ERROR_LAUNCH_FAILURE ? "unspecified launch failure" : NULL; }

static gar_hip_driver drv;

static int set_up(void **state)
{
    (void)state;
    memset(&fake, 0, sizeof fake);
    fake.current = 7; /* the caller's device, which gar must leave as it was */
    memset(page, 0xff, sizeof page);
    drv = (gar_hip_driver){
        .init = f_init, .device_get = f_device_get, .primary_ctx_retain = f_retain,
        .primary_ctx_release = f_release, .get_device = f_get_device, .set_device = f_set_device,
        .device_synchronize = f_device_sync, .host_malloc = f_malloc, .host_free = f_free,
        .host_get_device_pointer = f_devptr, .stream_get_device = f_stream_device,
        .stream_query = f_query, .stream_synchronize = f_stream_sync,
        .stream_write_value64 = f_write, .get_error_name = f_name, .get_error_string = f_string,
    };
    return 0;
}

static int park_unused(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                       gar_mono_ns until, gar_error *err)
{
    (void)ctx, (void)line, (void)seen, (void)until, (void)err;
    return 0;
}
static const gar_idle_ops idle_ops = { .version = GAR_IDLE_OPS_VERSION, .park = park_unused };
static const gar_idle idle = { .ops = &idle_ops };

static const char *message(const gar_error *err)
{
    static char buf[512];
    gar_error_message(err, buf, sizeof buf);
    return buf;
}

static void the_line_lives_in_a_coherent_mapped_page_of_its_device(void **state)
{
    (void)state;
    gar_mapped_line line;
    assert_int_equal(gar_hip_line_create(&line, &drv, 2, NULL), 0);
    assert_true(called_at("hipDevicePrimaryCtxRetain") < called_at("hipHostMalloc"));
    assert_int_equal(fake.malloc_flags, GAR_HIP_HOST_MALLOC_MAPPED | GAR_HIP_HOST_MALLOC_COHERENT);
    assert_int_equal(fake.current_at_malloc, 2);
    assert_int_equal(fake.current, 7);
    assert_ptr_equal(line.line, page);
    assert_int_equal(line.device_addr, (uint64_t)(uintptr_t)page);
    assert_int_equal(page[0], 0);

    assert_int_equal(gar_mapped_line_release(&line, NULL), 0);
    assert_int_equal(fake.current_at_sync, 2);
    assert_int_equal(fake.current, 7);
    assert_true(called_at("hipDeviceSynchronize") < called_at("hipHostFree"));
    assert_true(called_at("hipHostFree") < called_at("hipDevicePrimaryCtxRelease"));
    assert_int_equal(fake.retained, 0);
}

static void an_unsettled_device_leaks_the_page(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_error err = { 0 };
    assert_int_equal(gar_hip_line_create(&line, &drv, 0, NULL), 0);
    fake.sync_rc = ERROR_LAUNCH_FAILURE;
    assert_int_equal(gar_mapped_line_release(&line, &err), 1);
    assert_int_equal(line.state, GAR_MAPPED_LEAKED);
    assert_true(fake.page_allocated);
    assert_int_equal(fake.retained, 1);
    assert_string_equal(message(&err), "hipDeviceSynchronize failed: hipErrorLaunchFailure (719): "
                                       "unspecified launch failure");
}

static void the_port_stores_through_hip_and_refuses_other_devices(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_mapped_port mp;
    gar_error err = { 0 };
    gar_slot slot = { .index = 4 };
    assert_int_equal(gar_hip_line_create(&line, &drv, 0, NULL), 0);

    fake.stream_device = 1;
    assert_int_equal(gar_hip_port_init(&mp, &line, slot, STREAM, idle, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_FOREIGN_STREAM);
    fake.stream_device = 0;
    assert_int_equal(gar_hip_port_init(&mp, &line, slot, STREAM, idle, &err), 0);

    gar_port port = gar_mapped_port_port(&mp);
    gar_descriptor d;
    assert_int_equal(port.ops->arm(port.ctx, &d, &err), 0);
    assert_ptr_equal(fake.write_addr, page + 4 * sizeof(uint64_t));
    assert_int_equal(fake.write_value, 1);
    assert_int_equal(port.ops->park(port.ctx, &d, 0, &err), 1);

    fake.query_rc = GAR_HIP_ERROR_NOT_READY;
    assert_int_equal(port.ops->query(port.ctx, &err), 0);
    fake.query_rc = GAR_HIP_SUCCESS;
    assert_int_equal(port.ops->query(port.ctx, &err), 1);
    fake.query_rc = 4242;
    assert_int_equal(port.ops->query(port.ctx, &err), -GAR_E_BACKEND);
    assert_string_equal(message(&err), "hipStreamQuery failed: hipError_t 4242");
    gar_mapped_port_fini(&mp);
    assert_int_equal(gar_mapped_line_release(&line, NULL), 0);
}

static void creation_maps_hip_failures(void **state)
{
    (void)state;
    gar_mapped_line line;
    gar_error err = { 0 };
    fake.init_rc = GAR_HIP_ERROR_NO_DEVICE;
    assert_int_equal(gar_hip_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_NO_DOMAIN);
    fake.init_rc = GAR_HIP_SUCCESS;
    fake.malloc_rc = 2; /* hipErrorOutOfMemory */
    assert_int_equal(gar_hip_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_DRIVER);
    assert_int_equal(fake.retained, 0);
    assert_int_equal(fake.current, 7);

    fake.malloc_rc = GAR_HIP_SUCCESS;
    drv.stream_write_value64 = NULL;
    assert_int_equal(gar_hip_line_create(&line, &drv, 0, &err), -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_non_null(strstr(message(&err), "no hipStreamWriteValue64"));
}

static void a_missing_runtime_is_named(void **state)
{
    (void)state;
    assert_int_equal(unsetenv(GAR_HIP_LIBRARY_ENV), 0);
    gar_hip_driver loaded;
    gar_error err = { 0 };
    int rc = gar_hip_driver_open(&loaded, NULL, &err);
    if (rc == 0) { /* a machine with ROCm */
        assert_string_equal(loaded.library, "libamdhip64.so");
        gar_hip_driver_close(&loaded);
        return;
    }
    assert_int_equal(rc, -GAR_E_BACKEND);
    assert_int_equal(gar_mapped_fault_of(&err), GAR_MAPPED_FAULT_UNAVAILABLE);
    assert_non_null(strstr(message(&err), "dlopen(libamdhip64.so) failed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(the_line_lives_in_a_coherent_mapped_page_of_its_device, set_up),
        cmocka_unit_test_setup(an_unsettled_device_leaks_the_page, set_up),
        cmocka_unit_test_setup(the_port_stores_through_hip_and_refuses_other_devices, set_up),
        cmocka_unit_test_setup(creation_maps_hip_failures, set_up),
        cmocka_unit_test_setup(a_missing_runtime_is_named, set_up),
    };
    return cmocka_run_group_tests_name("hip_line", tests, NULL, NULL);
}
