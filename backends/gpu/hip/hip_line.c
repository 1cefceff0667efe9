/* backends/gpu/hip/hip_line.c — the mapped line's operations over HIP. */

#include <stdint.h>
#include <stdio.h>

#include <gar/hip.h>

#define DRIVER GAR_MAPPED_FAULT_DRIVER

static const char *hip_missing(const void *drv_)
{
    const gar_hip_driver *drv = drv_;
    const char *missing = gar_hip_driver_missing(drv);
    if (missing != NULL)
        return missing;
    return drv->stream_write_value64 == NULL ? "hipStreamWriteValue64" : NULL;
}

/* Makes the line's device current; *previous receives the caller's, which
 * leave() restores. */
static int enter(const gar_hip_driver *drv, const gar_mapped_domain *domain, int *previous,
                 gar_error *err)
{
    gar_hip_status rc = drv->get_device(previous);
    if (rc != GAR_HIP_SUCCESS)
        return gar_hip_fail(drv, err, DRIVER, "hipGetDevice", rc);
    rc = drv->set_device(domain->ordinal);
    return rc == GAR_HIP_SUCCESS ? 0 : gar_hip_fail(drv, err, DRIVER, "hipSetDevice", rc);
}

/* Restores the caller's device; an earlier failure stays the one reported. */
static int leave(const gar_hip_driver *drv, int previous, int result, gar_error *err)
{
    gar_hip_status rc = drv->set_device(previous);
    if (rc != GAR_HIP_SUCCESS && result >= 0)
        return gar_hip_fail(drv, err, DRIVER, "hipSetDevice", rc);
    return result;
}

static int hip_retain(const void *drv_, int ordinal, gar_mapped_domain *domain, gar_error *err)
{
    const gar_hip_driver *drv = drv_;
    gar_hip_status rc = drv->init(0);
    if (rc != GAR_HIP_SUCCESS)
        return gar_hip_fail(drv, err,
                            rc == GAR_HIP_ERROR_NO_DEVICE ? GAR_MAPPED_FAULT_NO_DOMAIN : DRIVER,
                            "hipInit", rc);
    gar_hip_device device;
    rc = drv->device_get(&device, ordinal);
    if (rc != GAR_HIP_SUCCESS) {
        char what[48];
        snprintf(what, sizeof what, "hipDeviceGet(%d)", ordinal);
        return gar_hip_fail(drv, err, GAR_MAPPED_FAULT_NO_DOMAIN, what, rc);
    }
    gar_hip_ctx ctx = NULL;
    rc = drv->primary_ctx_retain(&ctx, device);
    if (rc != GAR_HIP_SUCCESS)
        return gar_hip_fail(drv, err, GAR_MAPPED_FAULT_NO_DOMAIN, "hipDevicePrimaryCtxRetain", rc);
    *domain = (gar_mapped_domain){ .ordinal = ordinal, .device = device, .context = ctx };
    return 0;
}

static int hip_release(const void *drv_, const gar_mapped_domain *domain, gar_error *err)
{
    const gar_hip_driver *drv = drv_;
    gar_hip_status rc = drv->primary_ctx_release(domain->device);
    return rc == GAR_HIP_SUCCESS
               ? 0
               : gar_hip_fail(drv, err, DRIVER, "hipDevicePrimaryCtxRelease", rc);
}

static int hip_map(const void *drv_, const gar_mapped_domain *domain, size_t bytes, void **host,
                   uint64_t *device_addr, gar_error *err)
{
    const gar_hip_driver *drv = drv_;
    int previous;
    int result = enter(drv, domain, &previous, err);
    if (result < 0)
        return result;
    void *page = NULL;
    void *dptr = NULL;
    gar_hip_status rc = drv->host_malloc(&page, bytes, GAR_HIP_HOST_MALLOC_MAPPED |
                                                           GAR_HIP_HOST_MALLOC_COHERENT);
    if (rc != GAR_HIP_SUCCESS) {
        result = gar_hip_fail(drv, err, DRIVER, "hipHostMalloc", rc);
    } else if ((rc = drv->host_get_device_pointer(&dptr, page, 0)) != GAR_HIP_SUCCESS) {
        result = gar_hip_fail(drv, err, DRIVER, "hipHostGetDevicePointer", rc);
        drv->host_free(page); /* never used: nothing can be pending on it */
    }
    result = leave(drv, previous, result, err);
    if (result < 0) {
        if (rc == GAR_HIP_SUCCESS)
            drv->host_free(page); /* only the device restore failed */
        return result;
    }
    *host = page;
    *device_addr = (uint64_t)(uintptr_t)dptr;
    return 0;
}

static int hip_unmap(const void *drv_, const gar_mapped_domain *domain, void *host,
                     gar_error *err)
{
    const gar_hip_driver *drv = drv_;
    (void)domain; /* pinned host memory is freed the same from any device */
    gar_hip_status rc = drv->host_free(host);
    return rc == GAR_HIP_SUCCESS ? 0 : gar_hip_fail(drv, err, DRIVER, "hipHostFree", rc);
}

static int hip_settle(const void *drv_, const gar_mapped_domain *domain, gar_error *err)
{
    const gar_hip_driver *drv = drv_;
    int previous;
    int result = enter(drv, domain, &previous, err);
    if (result < 0)
        return result;
    gar_hip_status rc = drv->device_synchronize();
    if (rc != GAR_HIP_SUCCESS)
        result = gar_hip_fail(drv, err, DRIVER, "hipDeviceSynchronize", rc);
    return leave(drv, previous, result, err);
}

static int hip_owns_stream(const void *drv_, const gar_mapped_domain *domain, void *stream,
                           gar_error *err)
{
    const gar_hip_driver *drv = drv_;
    if (stream == NULL)
        return 1; /* every call on it runs with the line's device current */
    gar_hip_device device;
    gar_hip_status rc = drv->stream_get_device((gar_hip_stream)stream, &device);
    if (rc != GAR_HIP_SUCCESS)
        return gar_hip_fail(drv, err, DRIVER, "hipStreamGetDevice", rc);
    return device == domain->device ? 1 : 0;
}

/* One call on `stream`, with the line's device current for the NULL stream. */
typedef enum stream_call { CALL_QUERY, CALL_SYNCHRONIZE, CALL_WRITE } stream_call;

static int on_stream(const gar_hip_driver *drv, const gar_mapped_domain *domain,
                     gar_hip_stream stream, stream_call call, uint64_t addr, uint64_t value,
                     gar_error *err)
{
    int previous = 0;
    int result = stream == NULL ? enter(drv, domain, &previous, err) : 0;
    if (result < 0)
        return result;
    gar_hip_status rc;
    switch (call) {
    case CALL_QUERY:
        rc = drv->stream_query(stream);
        result = rc == GAR_HIP_SUCCESS          ? 1
                 : rc == GAR_HIP_ERROR_NOT_READY ? 0
                                                 : gar_hip_fail(drv, err, DRIVER, "hipStreamQuery", rc);
        break;
    case CALL_SYNCHRONIZE:
        rc = drv->stream_synchronize(stream);
        result = rc == GAR_HIP_SUCCESS ? 0
                                       : gar_hip_fail(drv, err, DRIVER, "hipStreamSynchronize", rc);
        break;
    case CALL_WRITE:
    default:
        rc = drv->stream_write_value64(stream, (void *)(uintptr_t)addr, value, 0);
        result = rc == GAR_HIP_SUCCESS ? 0
                                       : gar_hip_fail(drv, err, DRIVER, "hipStreamWriteValue64", rc);
        break;
    }
    return stream == NULL ? leave(drv, previous, result, err) : result;
}

static int hip_query(const void *drv, const gar_mapped_domain *domain, void *stream,
                     gar_error *err)
{
    return on_stream(drv, domain, stream, CALL_QUERY, 0, 0, err);
}

static int hip_synchronize(const void *drv, const gar_mapped_domain *domain, void *stream,
                           gar_error *err)
{
    return on_stream(drv, domain, stream, CALL_SYNCHRONIZE, 0, 0, err);
}

static int hip_write_value(const void *drv, const gar_mapped_domain *domain, void *stream,
                           uint64_t device_addr, uint64_t value, gar_error *err)
{
    return on_stream(drv, domain, stream, CALL_WRITE, device_addr, value, err);
}

const gar_mapped_ops gar_hip_mapped_ops = {
    .version = GAR_MAPPED_OPS_VERSION,
    .missing = hip_missing,
    .retain = hip_retain,
    .release = hip_release,
    .map = hip_map,
    .unmap = hip_unmap,
    .settle = hip_settle,
    .owns_stream = hip_owns_stream,
    .query = hip_query,
    .synchronize = hip_synchronize,
    .write_value = hip_write_value,
};

int gar_hip_line_create(gar_mapped_line *line, const gar_hip_driver *drv, int ordinal,
                        gar_error *err)
{
    return gar_mapped_line_create(line, &gar_hip_mapped_ops, drv, ordinal, err);
}
