/* tests/backends/fake_cuda.c — the fake CUDA driver's entry points. */
#include "fake_cuda.h"

#include <stdatomic.h>
#include <string.h>

fake_cuda fake;

static _Alignas(4096) unsigned char page[4096 + 64];

unsigned char *fake_page(void)
{
    return page;
}

static void record(const char *name)
{
    if (fake.log_len < FAKE_LOG_MAX)
        fake.log[fake.log_len++] =
            (fake_call){ .name = name, .current = fake.depth > 0 ? fake.stack[fake.depth - 1] : NULL };
}

static CUresult f_init(unsigned int flags)
{
    (void)flags;
    record("cuInit");
    return fake.init_rc;
}

static CUresult f_device_get(CUdevice *device, int ordinal)
{
    record("cuDeviceGet");
    if (fake.device_get_rc == CUDA_SUCCESS)
        *device = (CUdevice)ordinal;
    return fake.device_get_rc;
}

static CUresult f_retain(CUcontext *ctx, CUdevice device)
{
    (void)device;
    record("cuDevicePrimaryCtxRetain");
    if (fake.retain_rc != CUDA_SUCCESS)
        return fake.retain_rc;
    fake.retained++;
    *ctx = FAKE_PRIMARY;
    return CUDA_SUCCESS;
}

static CUresult f_release(CUdevice device)
{
    (void)device;
    record("cuDevicePrimaryCtxRelease_v2");
    if (fake.release_rc != CUDA_SUCCESS)
        return fake.release_rc;
    fake.retained--;
    return CUDA_SUCCESS;
}

static CUresult f_push(CUcontext ctx)
{
    record("cuCtxPushCurrent_v2");
    if (fake.push_rc != CUDA_SUCCESS)
        return fake.push_rc;
    if (fake.depth < FAKE_STACK_MAX)
        fake.stack[fake.depth] = ctx;
    fake.depth++;
    return CUDA_SUCCESS;
}

static CUresult f_pop(CUcontext *ctx)
{
    record("cuCtxPopCurrent_v2");
    if (fake.pop_rc != CUDA_SUCCESS)
        return fake.pop_rc;
    if (fake.depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    fake.depth--;
    *ctx = fake.stack[fake.depth];
    return CUDA_SUCCESS;
}

static CUresult f_ctx_sync(void)
{
    record("cuCtxSynchronize");
    return fake.depth == 0 ? CUDA_ERROR_INVALID_CONTEXT : fake.ctx_sync_rc;
}

static CUresult f_alloc(void **host, size_t bytes, unsigned int flags)
{
    record("cuMemHostAlloc");
    fake.alloc_bytes = bytes;
    fake.alloc_flags = flags;
    if (fake.alloc_rc != CUDA_SUCCESS)
        return fake.alloc_rc;
    fake.page_allocated = true;
    *host = page + fake.page_offset;
    return CUDA_SUCCESS;
}

static CUresult f_free(void *host)
{
    record("cuMemFreeHost");
    if (fake.free_rc != CUDA_SUCCESS)
        return fake.free_rc;
    if (!fake.page_allocated || host != page + fake.page_offset)
        return CUDA_ERROR_INVALID_VALUE;
    fake.page_allocated = false;
    return CUDA_SUCCESS;
}

static CUresult f_devptr(CUdeviceptr *device, void *host, unsigned int flags)
{
    (void)flags;
    record("cuMemHostGetDevicePointer_v2");
    if (fake.devptr_rc != CUDA_SUCCESS)
        return fake.devptr_rc;
    *device = (CUdeviceptr)(FAKE_DEVICE_BASE + (uint64_t)((unsigned char *)host - page));
    return CUDA_SUCCESS;
}

static CUresult f_get_ctx(CUstream stream, CUcontext *ctx)
{
    (void)stream;
    record("cuStreamGetCtx");
    if (fake.get_ctx_rc != CUDA_SUCCESS)
        return fake.get_ctx_rc;
    *ctx = fake.stream_ctx;
    return CUDA_SUCCESS;
}

static CUresult f_query(CUstream stream)
{
    (void)stream;
    record("cuStreamQuery");
    return fake.query_rc;
}

static CUresult f_stream_sync(CUstream stream)
{
    (void)stream;
    record("cuStreamSynchronize");
    return fake.stream_sync_rc;
}

static CUresult f_write(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags)
{
    (void)flags;
    record("cuStreamWriteValue64_v2");
    if (fake.write_rc != CUDA_SUCCESS)
        return fake.write_rc;
    fake.writes++;
    fake.write_stream = stream;
    fake.write_addr = addr;
    fake.write_value = value;
    if (fake.stores_land) {
        uint64_t offset = (uint64_t)addr - FAKE_DEVICE_BASE;
        _Atomic uint64_t *word = (_Atomic uint64_t *)(void *)(page + offset);
        atomic_store_explicit(word, value, memory_order_release);
    }
    return CUDA_SUCCESS;
}

static CUresult f_error_name(CUresult status, const char **name)
{
    switch (status) {
    case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
    case CUDA_ERROR_LAUNCH_FAILED: *name = "CUDA_ERROR_LAUNCH_FAILED"; return CUDA_SUCCESS;
    case CUDA_ERROR_NO_DEVICE: *name = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult f_error_string(CUresult status, const char **text)
{
    switch (status) {
    case CUDA_ERROR_OUT_OF_MEMORY: *text = "out of memory"; return CUDA_SUCCESS;
    case CUDA_ERROR_LAUNCH_FAILED: *text = "unspecified launch failure"; return CUDA_SUCCESS;
    case CUDA_ERROR_NO_DEVICE: *text = "no CUDA-capable device is detected"; return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult f_module_load(CUmodule *module, const void *image)
{
    record("cuModuleLoadData");
    fake.module_image = image;
    if (fake.module_load_rc != CUDA_SUCCESS)
        return fake.module_load_rc;
    *module = (CUmodule)(uintptr_t)0x4000;
    return CUDA_SUCCESS;
}

static CUresult f_module_unload(CUmodule module)
{
    (void)module;
    record("cuModuleUnload");
    return CUDA_SUCCESS;
}

static CUresult f_get_function(CUfunction *function, CUmodule module, const char *name)
{
    (void)module;
    record("cuModuleGetFunction");
    if (fake.get_function_rc != CUDA_SUCCESS || strcmp(name, "gar_spin_ns") != 0)
        return fake.get_function_rc != CUDA_SUCCESS ? fake.get_function_rc : CUDA_ERROR_NOT_FOUND;
    *function = (CUfunction)(uintptr_t)0x5000;
    return CUDA_SUCCESS;
}

static CUresult f_launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                         unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                         CUstream stream, void **params, void **extra)
{
    (void)f, (void)stream, (void)extra;
    record("cuLaunchKernel");
    if (fake.launch_rc != CUDA_SUCCESS)
        return fake.launch_rc;
    if (gx * gy * gz * bx * by * bz != 1 || shared != 0)
        return CUDA_ERROR_INVALID_VALUE;
    fake.launches++;
    fake.launch_ns = *(unsigned long long *)params[0];
    return CUDA_SUCCESS;
}

static CUresult f_mem_alloc(CUdeviceptr *device, size_t bytes)
{
    (void)bytes;
    record("cuMemAlloc_v2");
    if (fake.mem_alloc_rc != CUDA_SUCCESS)
        return fake.mem_alloc_rc;
    *device = (CUdeviceptr)0x6000;
    return CUDA_SUCCESS;
}

static CUresult f_mem_free(CUdeviceptr device)
{
    (void)device;
    record("cuMemFree_v2");
    return CUDA_SUCCESS;
}

static CUresult f_memset(CUdeviceptr device, unsigned char value, size_t count, CUstream stream)
{
    (void)device, (void)value, (void)stream;
    record("cuMemsetD8Async");
    if (fake.memset_rc != CUDA_SUCCESS)
        return fake.memset_rc;
    fake.memsets++;
    fake.memset_bytes += count;
    if (count > fake.memset_largest)
        fake.memset_largest = count;
    return CUDA_SUCCESS;
}

static struct {
    double at_ms;
    bool recorded;
} events[FAKE_EVENTS_MAX];

static CUresult f_stream_create(CUstream *stream, unsigned int flags)
{
    (void)flags;
    record("cuStreamCreate");
    if (fake.stream_create_rc != CUDA_SUCCESS)
        return fake.stream_create_rc;
    fake.streams_created++;
    *stream = (CUstream)(uintptr_t)(0x3000 + 0x10 * fake.streams_created);
    return CUDA_SUCCESS;
}

static CUresult f_stream_destroy(CUstream stream)
{
    (void)stream;
    record("cuStreamDestroy_v2");
    fake.streams_destroyed++;
    return CUDA_SUCCESS;
}

/* An event's handle is its index in `events`, plus one. */
static int event_index(CUevent event)
{
    uintptr_t i = (uintptr_t)event;
    return i >= 1 && i <= FAKE_EVENTS_MAX ? (int)(i - 1) : -1;
}

static CUresult f_event_create(CUevent *event, unsigned int flags)
{
    (void)flags;
    record("cuEventCreate");
    if (fake.event_create_rc != CUDA_SUCCESS)
        return fake.event_create_rc;
    if (fake.events_created == FAKE_EVENTS_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    events[fake.events_created].recorded = false;
    *event = (CUevent)(uintptr_t)(++fake.events_created);
    return CUDA_SUCCESS;
}

static CUresult f_event_destroy(CUevent event)
{
    record("cuEventDestroy_v2");
    if (event_index(event) < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    fake.events_destroyed++;
    return CUDA_SUCCESS;
}

static CUresult f_event_record(CUevent event, CUstream stream)
{
    (void)stream;
    record("cuEventRecord");
    int i = event_index(event);
    if (i < 0)
        return CUDA_ERROR_INVALID_HANDLE;
    if (fake.event_record_rc != CUDA_SUCCESS)
        return fake.event_record_rc;
    fake.event_records++;
    events[i].at_ms = fake.clock_ms;
    events[i].recorded = true;
    return CUDA_SUCCESS;
}

static CUresult f_event_query(CUevent event)
{
    record("cuEventQuery");
    return event_index(event) < 0 ? CUDA_ERROR_INVALID_HANDLE : fake.event_query_rc;
}

static CUresult f_event_synchronize(CUevent event)
{
    record("cuEventSynchronize");
    return event_index(event) < 0 ? CUDA_ERROR_INVALID_HANDLE : CUDA_SUCCESS;
}

static CUresult f_elapsed(float *ms, CUevent start, CUevent end)
{
    record("cuEventElapsedTime_v2");
    int a = event_index(start), b = event_index(end);
    if (a < 0 || b < 0 || !events[a].recorded || !events[b].recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    if (fake.elapsed_rc != CUDA_SUCCESS)
        return fake.elapsed_rc;
    *ms = (float)(events[b].at_ms - events[a].at_ms);
    return CUDA_SUCCESS;
}

gar_cuda_driver fake_cuda_reset(void)
{
    fake = (fake_cuda){ .stream_ctx = FAKE_PRIMARY, .stores_land = true };
    memset(page, 0xff, sizeof page); /* a new line must be zeroed by gar, not by luck */
    return (gar_cuda_driver){
        .init = f_init,
        .device_get = f_device_get,
        .primary_ctx_retain = f_retain,
        .primary_ctx_release = f_release,
        .ctx_push_current = f_push,
        .ctx_pop_current = f_pop,
        .ctx_synchronize = f_ctx_sync,
        .mem_host_alloc = f_alloc,
        .mem_free_host = f_free,
        .mem_host_get_device_pointer = f_devptr,
        .stream_get_ctx = f_get_ctx,
        .stream_query = f_query,
        .stream_synchronize = f_stream_sync,
        .stream_write_value64 = f_write,
        .get_error_name = f_error_name,
        .get_error_string = f_error_string,
        .module_load_data = f_module_load,
        .module_unload = f_module_unload,
        .module_get_function = f_get_function,
        .launch_kernel = f_launch,
        .mem_alloc = f_mem_alloc,
        .mem_free = f_mem_free,
        .memset_d8_async = f_memset,
        .stream_create = f_stream_create,
        .stream_destroy = f_stream_destroy,
        .event_create = f_event_create,
        .event_destroy = f_event_destroy,
        .event_record = f_event_record,
        .event_query = f_event_query,
        .event_synchronize = f_event_synchronize,
        .event_elapsed_time_v2 = f_elapsed,
    };
}

int fake_called_at(const char *name)
{
    for (unsigned i = 0; i < fake.log_len; i++)
        if (strcmp(fake.log[i].name, name) == 0)
            return (int)i;
    return -1;
}

unsigned fake_calls(const char *name)
{
    unsigned n = 0;
    for (unsigned i = 0; i < fake.log_len; i++)
        n += strcmp(fake.log[i].name, name) == 0;
    return n;
}

CUcontext fake_current_at(const char *name)
{
    int at = fake_called_at(name);
    return at < 0 ? NULL : fake.log[at].current;
}
