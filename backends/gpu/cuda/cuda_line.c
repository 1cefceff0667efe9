/* backends/gpu/cuda/cuda_line.c — the mapped line's operations over CUDA. */
#include <gar/cuda.h>

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>

#define DRIVER GAR_MAPPED_FAULT_DRIVER

int gar_cuda_push(const gar_cuda_driver *drv, CUcontext ctx, gar_error *err)
{
    CUresult rc = drv->ctx_push_current(ctx);
    return rc == CUDA_SUCCESS ? 0 : gar_cuda_fail(drv, err, DRIVER, "cuCtxPushCurrent_v2", rc);
}

int gar_cuda_pop(const gar_cuda_driver *drv, gar_error *err)
{
    CUcontext popped;
    CUresult rc = drv->ctx_pop_current(&popped);
    return rc == CUDA_SUCCESS ? 0 : gar_cuda_fail(drv, err, DRIVER, "cuCtxPopCurrent_v2", rc);
}

/* The stream handles that mean "a stream of the current context". */
static bool implicit_stream(CUstream stream)
{
    return stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD;
}

static const char *cuda_missing(const void *drv_)
{
    const gar_cuda_driver *drv = drv_;
    const char *missing = gar_cuda_driver_missing(drv);
    if (missing != NULL)
        return missing;
    return drv->stream_write_value64 == NULL ? "cuStreamWriteValue64_v2" : NULL;
}

static int cuda_retain(const void *drv_, int ordinal, gar_mapped_domain *domain, gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    CUresult rc = drv->init(0);
    if (rc != CUDA_SUCCESS)
        return gar_cuda_fail(drv, err,
                             rc == CUDA_ERROR_STUB_LIBRARY ? GAR_MAPPED_FAULT_UNAVAILABLE
                             : rc == CUDA_ERROR_NO_DEVICE  ? GAR_MAPPED_FAULT_NO_DOMAIN
                                                           : DRIVER,
                             "cuInit", rc);
    CUdevice device;
    rc = drv->device_get(&device, ordinal);
    if (rc != CUDA_SUCCESS) {
        char what[48];
        snprintf(what, sizeof what, "cuDeviceGet(%d)", ordinal);
        return gar_cuda_fail(drv, err, GAR_MAPPED_FAULT_NO_DOMAIN, what, rc);
    }
    CUcontext ctx = NULL;
    rc = drv->primary_ctx_retain(&ctx, device);
    if (rc != CUDA_SUCCESS || ctx == NULL)
        return gar_cuda_fail(drv, err, GAR_MAPPED_FAULT_NO_DOMAIN, "cuDevicePrimaryCtxRetain",
                             rc != CUDA_SUCCESS ? rc : CUDA_ERROR_INVALID_CONTEXT);
    *domain = (gar_mapped_domain){ .ordinal = ordinal, .device = device, .context = ctx };
    return 0;
}

static int cuda_release(const void *drv_, const gar_mapped_domain *domain, gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    CUresult rc = drv->primary_ctx_release((CUdevice)domain->device);
    return rc == CUDA_SUCCESS ? 0
                              : gar_cuda_fail(drv, err, DRIVER, "cuDevicePrimaryCtxRelease_v2", rc);
}

static int cuda_map(const void *drv_, const gar_mapped_domain *domain, size_t bytes, void **host,
                    uint64_t *device_addr, gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    int failed = gar_cuda_push(drv, domain->context, err);
    if (failed)
        return failed;
    void *page = NULL;
    CUdeviceptr dptr = 0;
    CUresult rc = drv->mem_host_alloc(&page, bytes, CU_MEMHOSTALLOC_DEVICEMAP |
                                                        CU_MEMHOSTALLOC_PORTABLE);
    if (rc != CUDA_SUCCESS) {
        failed = gar_cuda_fail(drv, err, DRIVER, "cuMemHostAlloc", rc);
    } else {
        rc = drv->mem_host_get_device_pointer(&dptr, page, 0);
        if (rc != CUDA_SUCCESS) {
            failed = gar_cuda_fail(drv, err, DRIVER, "cuMemHostGetDevicePointer_v2", rc);
            drv->mem_free_host(page); /* never used: nothing can be pending on it */
        }
    }
    int popped = gar_cuda_pop(drv, failed ? NULL : err);
    if (failed)
        return failed;
    if (popped) {
        drv->mem_free_host(page);
        return popped;
    }
    *host = page;
    *device_addr = (uint64_t)dptr;
    return 0;
}

static int cuda_unmap(const void *drv_, const gar_mapped_domain *domain, void *host,
                      gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    int failed = gar_cuda_push(drv, domain->context, err);
    if (failed)
        return failed;
    CUresult rc = drv->mem_free_host(host);
    if (rc != CUDA_SUCCESS)
        failed = gar_cuda_fail(drv, err, DRIVER, "cuMemFreeHost", rc);
    int popped = gar_cuda_pop(drv, failed ? NULL : err);
    return failed ? failed : popped;
}

static int cuda_settle(const void *drv_, const gar_mapped_domain *domain, gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    int failed = gar_cuda_push(drv, domain->context, err);
    if (failed)
        return failed;
    CUresult rc = drv->ctx_synchronize();
    if (rc != CUDA_SUCCESS)
        failed = gar_cuda_fail(drv, err, DRIVER, "cuCtxSynchronize", rc);
    int popped = gar_cuda_pop(drv, failed ? NULL : err);
    return failed ? failed : popped;
}

static int cuda_owns_stream(const void *drv_, const gar_mapped_domain *domain, void *stream_,
                            gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    CUstream stream = stream_;
    if (implicit_stream(stream))
        return 1; /* every call on it runs with the line's context pushed */
    CUcontext ctx = NULL;
    CUresult rc = drv->stream_get_ctx(stream, &ctx);
    if (rc != CUDA_SUCCESS)
        return gar_cuda_fail(drv, err, DRIVER, "cuStreamGetCtx", rc);
    return ctx == (CUcontext)domain->context ? 1 : 0;
}

/* Implicit streams resolve through the current context: push the line's. */
static int push_for(const gar_cuda_driver *drv, const gar_mapped_domain *domain, CUstream stream,
                    gar_error *err)
{
    return implicit_stream(stream) ? gar_cuda_push(drv, domain->context, err) : 0;
}

/* Pops what push_for pushed.  A failing `result` stays the one reported;
 * else a failing pop is.  Returns what the op hands back. */
static int pop_for(const gar_cuda_driver *drv, CUstream stream, int result, gar_error *err)
{
    if (!implicit_stream(stream))
        return result;
    int popped = gar_cuda_pop(drv, result < 0 ? NULL : err);
    return result < 0 ? result : popped < 0 ? popped : result;
}

static int cuda_query(const void *drv_, const gar_mapped_domain *domain, void *stream_,
                      gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    CUstream stream = stream_;
    int result = push_for(drv, domain, stream, err);
    if (result < 0)
        return result;
    CUresult rc = drv->stream_query(stream);
    result = rc == CUDA_SUCCESS          ? 1
             : rc == CUDA_ERROR_NOT_READY ? 0
                                         : gar_cuda_fail(drv, err, DRIVER, "cuStreamQuery", rc);
    return pop_for(drv, stream, result, err);
}

static int cuda_synchronize(const void *drv_, const gar_mapped_domain *domain, void *stream_,
                            gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    CUstream stream = stream_;
    int result = push_for(drv, domain, stream, err);
    if (result < 0)
        return result;
    CUresult rc = drv->stream_synchronize(stream);
    result = rc == CUDA_SUCCESS ? 0 : gar_cuda_fail(drv, err, DRIVER, "cuStreamSynchronize", rc);
    return pop_for(drv, stream, result, err);
}

static int cuda_write_value(const void *drv_, const gar_mapped_domain *domain, void *stream_,
                            uint64_t device_addr, uint64_t value, gar_error *err)
{
    const gar_cuda_driver *drv = drv_;
    CUstream stream = stream_;
    int result = push_for(drv, domain, stream, err);
    if (result < 0)
        return result;
    CUresult rc = drv->stream_write_value64(stream, (CUdeviceptr)device_addr, (cuuint64_t)value,
                                            CU_STREAM_WRITE_VALUE_DEFAULT);
    result = rc == CUDA_SUCCESS ? 0
                                : gar_cuda_fail(drv, err, DRIVER, "cuStreamWriteValue64_v2", rc);
    return pop_for(drv, stream, result, err);
}

const gar_mapped_ops gar_cuda_mapped_ops = {
    .version = GAR_MAPPED_OPS_VERSION,
    .missing = cuda_missing,
    .retain = cuda_retain,
    .release = cuda_release,
    .map = cuda_map,
    .unmap = cuda_unmap,
    .settle = cuda_settle,
    .owns_stream = cuda_owns_stream,
    .query = cuda_query,
    .synchronize = cuda_synchronize,
    .write_value = cuda_write_value,
};

int gar_cuda_line_create(gar_mapped_line *line, const gar_cuda_driver *drv, int ordinal,
                         gar_error *err)
{
    return gar_mapped_line_create(line, &gar_cuda_mapped_ops, drv, ordinal, err);
}

CUcontext gar_cuda_line_context(const gar_mapped_line *line)
{
    if (line == NULL || line->state != GAR_MAPPED_LIVE || line->ops != &gar_cuda_mapped_ops)
        return NULL;
    return (CUcontext)line->domain.context;
}
