/* tests/fake_cudart/fake_hip_driver.c — the part of the fake
 * libamdhip64.so.6 that CUDA keeps in its driver (fake_cuda.c): the calls
 * gar's interposer and its HIP mapped line use, under HIP's names, over the
 * fake devices, contexts and mapped memory (fake_context.h).  HIP binds work
 * to the thread's current device, so "another context" is a stream made
 * while another device was current.  hipDeviceAttributeCanUseStreamWaitValue
 * answers whether stream memory operations work (FAKE_GPU_STREAM_MEM_OPS). */
#include "fake_context.h"
#include "fake_runtime.h"

#include <stddef.h>
#include <stdint.h>

typedef int hipError_t;
typedef int hipDevice_t;
typedef struct ihipCtx_t *hipCtx_t;
typedef struct ihipStream_t *hipStream_t;

enum {
    hipSuccess = 0,
    hipErrorInvalidValue = 1,
    hipErrorInvalidDevice = 101,
    hipErrorNotSupported = 801,
};

#define ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE 10013 /* hipDeviceAttributeCanUseStreamWaitValue */

#define EXPORT __attribute__((visibility("default")))
EXPORT hipError_t hipInit(unsigned flags);
EXPORT hipError_t hipDeviceGet(hipDevice_t *device, int ordinal);
EXPORT hipError_t hipDeviceGetAttribute(int *value, int attribute, int device);
EXPORT hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *ctx, hipDevice_t device);
EXPORT hipError_t hipDevicePrimaryCtxRelease(hipDevice_t device);
EXPORT hipError_t hipHostMalloc(void **host, size_t bytes, unsigned flags);
EXPORT hipError_t hipHostFree(void *host);
EXPORT hipError_t hipHostGetDevicePointer(void **device, void *host, unsigned flags);
EXPORT hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device);
EXPORT hipError_t hipStreamWriteValue64(hipStream_t stream, void *addr, uint64_t value,
                                        unsigned flags);

hipError_t hipInit(unsigned flags)
{
    return flags == 0 ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)
{
    if (!device)
        return hipErrorInvalidValue;
    if (!fake_primary_ctx(ordinal))
        return hipErrorInvalidDevice;
    *device = ordinal;
    return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *value, int attribute, int device)
{
    if (!value)
        return hipErrorInvalidValue;
    if (!fake_primary_ctx(device))
        return hipErrorInvalidDevice;
    if (attribute != ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE)
        return hipErrorInvalidValue; /* the fake knows no other */
    *value = fake_stream_mem_ops();
    return hipSuccess;
}

hipError_t hipDevicePrimaryCtxRetain(hipCtx_t *ctx, hipDevice_t device)
{
    if (!ctx)
        return hipErrorInvalidValue;
    fake_ctx *primary = fake_primary_ctx(device);
    if (!primary)
        return hipErrorInvalidDevice;
    *ctx = (hipCtx_t)primary;
    return hipSuccess;
}

hipError_t hipDevicePrimaryCtxRelease(hipDevice_t device)
{
    return fake_primary_ctx(device) ? hipSuccess : hipErrorInvalidDevice;
}

hipError_t hipHostMalloc(void **host, size_t bytes, unsigned flags)
{
    (void)flags; /* every allocation of the fake is mapped and coherent */
    if (!host || bytes == 0)
        return hipErrorInvalidValue;
    *host = fake_host_alloc(bytes);
    return *host ? hipSuccess : 2; /* hipErrorOutOfMemory */
}

hipError_t hipHostFree(void *host)
{
    return fake_host_free(host) ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipHostGetDevicePointer(void **device, void *host, unsigned flags)
{
    if (!device || flags != 0)
        return hipErrorInvalidValue;
    uint64_t addr = fake_device_pointer(host);
    *device = (void *)(uintptr_t)addr;
    return addr ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipStreamGetDevice(hipStream_t stream, hipDevice_t *device)
{
    if (!device)
        return hipErrorInvalidValue;
    uintptr_t h = (uintptr_t)stream;
    fake_ctx *ctx = h < 3 ? fake_current_ctx() : fake_stream_ctx(fake_stream_of(h, 0));
    *device = fake_ctx_device(ctx);
    return hipSuccess;
}

hipError_t hipStreamWriteValue64(hipStream_t stream, void *addr, uint64_t value, unsigned flags)
{
    (void)flags; /* reserved */
    if (!fake_stream_mem_ops())
        return hipErrorNotSupported;
    return fake_write_value(fake_stream_of((uintptr_t)stream, 0), (uint64_t)(uintptr_t)addr,
                            value);
}
