/* tests/fake_cudart/fake_cuda.c — a stand-in for the CUDA driver,
 * libcuda.so.1: the driver calls gar's interposer and its CUDA mapped line
 * use, under their real names (the `_v2` ones where the driver's ABI
 * versions them by name), over the fake streams, contexts and mapped memory
 * (fake_runtime.h, fake_context.h) that the fake runtime (fake_cudart.c)
 * shares: a cudaStream_t is a CUstream here as in the real pair.
 *
 * The driver's exports are unversioned, as the real driver's are
 * (libcuda.map); the fake's internals (fake_*) are exported too, for the
 * fake runtime linked against it.  Stream handles read as the runtime's:
 * 0 and 1 (CU_STREAM_LEGACY) the legacy stream, 2 (CU_STREAM_PER_THREAD)
 * the calling thread's own. */
#include "fake_context.h"
#include "fake_runtime.h"

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NOT_SUPPORTED = 801,
};

#define ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS 122 /* CU_DEVICE_ATTRIBUTE_... */
#define ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 92      /* its older, deprecated twin */

#define EXPORT __attribute__((visibility("default")))
EXPORT CUresult cuInit(unsigned flags);
EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal);
EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device);
EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device);
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device);
EXPORT CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice device);
EXPORT CUresult cuCtxGetCurrent(CUcontext *ctx);
EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx);
EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *ctx);
EXPORT CUresult cuCtxSynchronize(void);
EXPORT CUresult cuMemHostAlloc(void **host, size_t bytes, unsigned flags);
EXPORT CUresult cuMemFreeHost(void *host);
EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *device, void *host, unsigned flags);
EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned flags);
EXPORT CUresult cuStreamGetCtx(CUstream stream, CUcontext *ctx);
EXPORT CUresult cuStreamQuery(CUstream stream);
EXPORT CUresult cuStreamSynchronize(CUstream stream);
EXPORT CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, uint64_t value,
                                        unsigned flags);

static fake_stream *stream_of(CUstream stream)
{
    return fake_stream_of((uintptr_t)stream, 0);
}

CUresult cuInit(unsigned flags)
{
    return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fake_primary_ctx(ordinal))
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device)
{
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fake_primary_ctx(device))
        return CUDA_ERROR_INVALID_DEVICE;
    if (attribute != ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS &&
        attribute != ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1)
        return CUDA_ERROR_INVALID_VALUE; /* the fake knows no other */
    *value = fake_stream_mem_ops();
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device)
{
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    fake_ctx *primary = fake_primary_ctx(device);
    if (!primary)
        return CUDA_ERROR_INVALID_DEVICE;
    *ctx = (CUcontext)primary;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device)
{
    return fake_primary_ctx(device) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice device)
{
    (void)flags;
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    fake_ctx *made = fake_ctx_create(device);
    if (!made)
        return CUDA_ERROR_INVALID_DEVICE;
    *ctx = (CUcontext)made;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *ctx)
{
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    *ctx = (CUcontext)fake_current_ctx();
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    return fake_ctx_push((fake_ctx *)ctx) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuCtxPopCurrent_v2(CUcontext *ctx)
{
    fake_ctx *popped = fake_ctx_pop();
    if (!popped)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx)
        *ctx = (CUcontext)popped;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    return fake_device_synchronize();
}

CUresult cuMemHostAlloc(void **host, size_t bytes, unsigned flags)
{
    (void)flags; /* every allocation of the fake is mapped and portable */
    if (!host || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    *host = fake_host_alloc(bytes);
    return *host ? CUDA_SUCCESS : 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}

CUresult cuMemFreeHost(void *host)
{
    return fake_host_free(host) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *device, void *host, unsigned flags)
{
    if (!device || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    *device = fake_device_pointer(host);
    return *device ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuStreamCreate(CUstream *stream, unsigned flags)
{
    (void)flags;
    if (!stream)
        return CUDA_ERROR_INVALID_VALUE;
    *stream = (CUstream)fake_stream_new(fake_current_ctx());
    return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream stream, CUcontext *ctx)
{
    if (!ctx)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t h = (uintptr_t)stream;
    *ctx = (CUcontext)(h < 3 ? fake_current_ctx() : fake_stream_ctx(stream_of(stream)));
    return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream stream)
{
    return fake_stream_query(stream_of(stream));
}

CUresult cuStreamSynchronize(CUstream stream)
{
    return fake_stream_synchronize(stream_of(stream));
}

CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, uint64_t value,
                                 unsigned flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!fake_stream_mem_ops())
        return CUDA_ERROR_NOT_SUPPORTED;
    return fake_write_value(stream_of(stream), addr, value);
}
