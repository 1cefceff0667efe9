/* backends/gpu/cuda/cuda_driver.c — dlopen the CUDA driver, resolve its table. */
#define _POSIX_C_SOURCE 200809L /* getenv, dlclose */

#include <gar/cuda.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_loader.h"

#define ENTRY(field, symbol, required) { symbol, offsetof(gar_cuda_driver, field), required }

static const gar_entry_point entry_points[] = {
    ENTRY(init, "cuInit", true),
    ENTRY(device_get, "cuDeviceGet", true),
    ENTRY(primary_ctx_retain, "cuDevicePrimaryCtxRetain", true),
    ENTRY(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", true),
    ENTRY(ctx_push_current, "cuCtxPushCurrent_v2", true),
    ENTRY(ctx_pop_current, "cuCtxPopCurrent_v2", true),
    ENTRY(ctx_synchronize, "cuCtxSynchronize", true),
    ENTRY(mem_host_alloc, "cuMemHostAlloc", true),
    ENTRY(mem_free_host, "cuMemFreeHost", true),
    ENTRY(mem_host_get_device_pointer, "cuMemHostGetDevicePointer_v2", true),
    ENTRY(stream_get_ctx, "cuStreamGetCtx", true),
    ENTRY(stream_query, "cuStreamQuery", true),
    ENTRY(stream_synchronize, "cuStreamSynchronize", true),
    ENTRY(stream_write_value64, "cuStreamWriteValue64_v2", false),
    ENTRY(get_error_name, "cuGetErrorName", false),
    ENTRY(get_error_string, "cuGetErrorString", false),
    ENTRY(stream_create, "cuStreamCreate", false),
    ENTRY(stream_destroy, "cuStreamDestroy_v2", false),
    ENTRY(module_load_data, "cuModuleLoadData", false),
    ENTRY(module_unload, "cuModuleUnload", false),
    ENTRY(module_get_function, "cuModuleGetFunction", false),
    ENTRY(launch_kernel, "cuLaunchKernel", false),
    ENTRY(mem_alloc, "cuMemAlloc_v2", false),
    ENTRY(mem_free, "cuMemFree_v2", false),
    ENTRY(memset_d8_async, "cuMemsetD8Async", false),
    ENTRY(event_create, "cuEventCreate", false),
    ENTRY(event_destroy, "cuEventDestroy_v2", false),
    ENTRY(event_record, "cuEventRecord", false),
    ENTRY(event_query, "cuEventQuery", false),
    ENTRY(event_synchronize, "cuEventSynchronize", false),
    ENTRY(event_elapsed_time, "cuEventElapsedTime", false),
    ENTRY(event_elapsed_time_v2, "cuEventElapsedTime_v2", false),
};

#define ENTRY_COUNT (sizeof entry_points / sizeof entry_points[0])

const char *gar_cuda_driver_missing(const gar_cuda_driver *drv)
{
    if (drv == NULL)
        return "the driver table";
    return gar_driver_first_missing(drv, entry_points, ENTRY_COUNT);
}

int gar_cuda_driver_open(gar_cuda_driver *drv, const char *library, gar_error *err)
{
    if (drv == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_cuda_driver_open", "drv",
                             "is NULL");
    *drv = (gar_cuda_driver){ 0 };
    if (library == NULL) {
        const char *env = getenv(GAR_CUDA_LIBRARY_ENV);
        library = env != NULL && env[0] != '\0' ? env : GAR_CUDA_LIBRARY_DEFAULT;
    }

    if (strlen(library) >= GAR_CUDA_LIBRARY_BYTES)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_cuda_driver_open", "library",
                             "is longer than GAR_CUDA_LIBRARY_BYTES - 1");

    gar_cuda_driver table = { 0 };
    memcpy(table.library, library, strlen(library) + 1);
    int rc = gar_driver_load(library, &table, entry_points, ENTRY_COUNT, &table.handle, err);
    if (rc < 0)
        return rc;
    *drv = table;
    return 0;
}

void gar_cuda_driver_close(gar_cuda_driver *drv)
{
    if (drv == NULL)
        return;
    if (drv->handle != NULL)
        dlclose(drv->handle);
    *drv = (gar_cuda_driver){ 0 };
}

/* ---- statuses ------------------------------------------------------------- */

/* Names for the statuses gar itself branches on or expects to meet when the
 * driver cannot name them (a stub library answers every call, its own
 * cuGetErrorName included, with CUDA_ERROR_STUB_LIBRARY). */
static const struct {
    CUresult status;
    const char *name;
} known_statuses[] = {
    { CUDA_SUCCESS, "CUDA_SUCCESS" },
    { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY" },
    { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED" },
    { CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY" },
    { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE" },
    { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE" },
    { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT" },
    { CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY" },
    { CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED" },
};

size_t gar_cuda_status_text(const gar_cuda_driver *drv, CUresult status, char *buf, size_t size)
{
    const char *name = NULL;
    const char *text = NULL;
    if (drv != NULL && drv->get_error_name != NULL &&
        drv->get_error_name(status, &name) != CUDA_SUCCESS)
        name = NULL;
    if (drv != NULL && drv->get_error_string != NULL &&
        drv->get_error_string(status, &text) != CUDA_SUCCESS)
        text = NULL;
    for (size_t i = 0; name == NULL && i < sizeof known_statuses / sizeof known_statuses[0]; i++)
        if (known_statuses[i].status == status)
            name = known_statuses[i].name;

    int n;
    if (name == NULL)
        n = snprintf(buf, size, "CUresult %d", (int)status);
    else if (text == NULL)
        n = snprintf(buf, size, "%s (%d)", name, (int)status);
    else
        n = snprintf(buf, size, "%s (%d): %s", name, (int)status, text);
    return n < 0 ? 0 : (size_t)n;
}

int gar_cuda_fail(const gar_cuda_driver *drv, gar_error *err, gar_mapped_fault fault,
                  const char *what, CUresult status)
{
    char text[GAR_ERROR_ARG_BYTES];
    gar_cuda_status_text(drv, status, text, sizeof text);
    return gar_mapped_fail(err, fault, what, text);
}
