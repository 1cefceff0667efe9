/* backends/gpu/hip/hip_driver.c — dlopen the HIP runtime, resolve its table. */
#define _POSIX_C_SOURCE 200809L /* getenv, dlclose */

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/hip.h>

#include "driver_loader.h"

#define ENTRY(field, symbol, required) { symbol, offsetof(gar_hip_driver, field), required }

static const gar_entry_point entry_points[] = {
    ENTRY(init, "hipInit", true),
    ENTRY(device_get, "hipDeviceGet", true),
    ENTRY(primary_ctx_retain, "hipDevicePrimaryCtxRetain", true),
    ENTRY(primary_ctx_release, "hipDevicePrimaryCtxRelease", true),
    ENTRY(get_device, "hipGetDevice", true),
    ENTRY(set_device, "hipSetDevice", true),
    ENTRY(device_synchronize, "hipDeviceSynchronize", true),
    ENTRY(host_malloc, "hipHostMalloc", true),
    ENTRY(host_free, "hipHostFree", true),
    ENTRY(host_get_device_pointer, "hipHostGetDevicePointer", true),
    ENTRY(stream_get_device, "hipStreamGetDevice", true),
    ENTRY(stream_query, "hipStreamQuery", true),
    ENTRY(stream_synchronize, "hipStreamSynchronize", true),
    ENTRY(stream_write_value64, "hipStreamWriteValue64", false),
    ENTRY(get_error_name, "hipGetErrorName", false),
    ENTRY(get_error_string, "hipGetErrorString", false),
};

#define ENTRY_COUNT (sizeof entry_points / sizeof entry_points[0])

const char *gar_hip_driver_missing(const gar_hip_driver *drv)
{
    if (drv == NULL)
        return "the driver table";
    return gar_driver_first_missing(drv, entry_points, ENTRY_COUNT);
}

int gar_hip_driver_open(gar_hip_driver *drv, const char *library, gar_error *err)
{
    if (drv == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_hip_driver_open", "drv",
                             "is NULL");
    *drv = (gar_hip_driver){ 0 };
    if (library == NULL) {
        const char *env = getenv(GAR_HIP_LIBRARY_ENV);
        library = env != NULL && env[0] != '\0' ? env : GAR_HIP_LIBRARY_DEFAULT;
    }
    if (strlen(library) >= GAR_HIP_LIBRARY_BYTES)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_hip_driver_open", "library",
                             "is longer than GAR_HIP_LIBRARY_BYTES - 1");

    gar_hip_driver table = { 0 };
    memcpy(table.library, library, strlen(library) + 1);
    int rc = gar_driver_load(library, &table, entry_points, ENTRY_COUNT, &table.handle, err);
    if (rc < 0)
        return rc;
    *drv = table;
    return 0;
}

void gar_hip_driver_close(gar_hip_driver *drv)
{
    if (drv == NULL)
        return;
    if (drv->handle != NULL)
        dlclose(drv->handle);
    *drv = (gar_hip_driver){ 0 };
}

size_t gar_hip_status_text(const gar_hip_driver *drv, gar_hip_status status, char *buf,
                           size_t size)
{
    const char *name = drv != NULL && drv->get_error_name != NULL ? drv->get_error_name(status)
                                                                   : NULL;
    const char *text = drv != NULL && drv->get_error_string != NULL
                           ? drv->get_error_string(status)
                           : NULL;
    int n;
    if (name == NULL)
        n = snprintf(buf, size, "hipError_t %d", status);
    else if (text == NULL)
        n = snprintf(buf, size, "%s (%d)", name, status);
    else
        n = snprintf(buf, size, "%s (%d): %s", name, status, text);
    return n < 0 ? 0 : (size_t)n;
}

int gar_hip_fail(const gar_hip_driver *drv, gar_error *err, gar_mapped_fault fault,
                 const char *what, gar_hip_status status)
{
    char text[GAR_ERROR_ARG_BYTES];
    gar_hip_status_text(drv, status, text, sizeof text);
    return gar_mapped_fail(err, fault, what, text);
}
