/* backends/cuda/cuda_driver.h — the CUDA driver API, loaded at run time.
 *
 * Nothing links against libcuda: gar_cuda_driver_open dlopens the driver
 * ("libcuda.so.1", or the file named by the environment variable
 * GAR_CUDA_LIBRARY) and resolves every entry point by name, taking the
 * versioned symbol where the driver versions it (cuMemHostGetDevicePointer_v2,
 * cuStreamWriteValue64_v2, cuCtxPushCurrent_v2, ...), so the build needs only
 * cuda.h for the types.  The result is the "driver table": plain function
 * pointers that the CUDA line, port and work call through.  A test builds a
 * table by hand instead (fake entry points), leaving `handle` NULL.
 *
 * Entry points split in two.  The required ones (the line's and the port's
 * but the store) must all be there, or open fails.  The optional ones may be
 * NULL; whoever needs one checks it: the mapped line refuses to be created
 * without write_value64 (Unavailable), the error mapping falls back to
 * numbers without get_error_name/get_error_string, the work falls back from
 * the kernel to memset, and to nothing without memset, and gar verify's
 * CUDA device refuses to open without the stream and event calls.
 *
 * Ownership: the caller owns the table; open fills it, close unloads the
 * library (every line, port and work using the table must be gone first). */
#ifndef GAR_CUDA_DRIVER_H
#define GAR_CUDA_DRIVER_H

#include <stddef.h>

#include <cuda.h>

#include <gar/error.h>

#include "mapped_line.h"

#define GAR_CUDA_LIBRARY_DEFAULT "libcuda.so.1"
#define GAR_CUDA_LIBRARY_ENV "GAR_CUDA_LIBRARY"
#define GAR_CUDA_LIBRARY_BYTES 256 /* a longer library path is refused */

typedef struct gar_cuda_driver {
    char library[GAR_CUDA_LIBRARY_BYTES]; /* the file it was loaded from (for messages) */
    void *handle;        /* the dlopen handle; NULL for a table built by hand */

    /* required */
    CUresult (*init)(unsigned int flags);                                    /* cuInit */
    CUresult (*device_get)(CUdevice *device, int ordinal);                   /* cuDeviceGet */
    CUresult (*primary_ctx_retain)(CUcontext *ctx, CUdevice device);         /* cuDevicePrimaryCtxRetain */
    CUresult (*primary_ctx_release)(CUdevice device);                        /* cuDevicePrimaryCtxRelease_v2 */
    CUresult (*ctx_push_current)(CUcontext ctx);                             /* cuCtxPushCurrent_v2 */
    CUresult (*ctx_pop_current)(CUcontext *ctx);                             /* cuCtxPopCurrent_v2 */
    CUresult (*ctx_synchronize)(void);                                       /* cuCtxSynchronize */
    CUresult (*mem_host_alloc)(void **host, size_t bytes, unsigned int flags); /* cuMemHostAlloc */
    CUresult (*mem_free_host)(void *host);                                   /* cuMemFreeHost */
    CUresult (*mem_host_get_device_pointer)(CUdeviceptr *device, void *host,
                                            unsigned int flags);             /* cuMemHostGetDevicePointer_v2 */
    CUresult (*stream_get_ctx)(CUstream stream, CUcontext *ctx);             /* cuStreamGetCtx */
    CUresult (*stream_query)(CUstream stream);                               /* cuStreamQuery */
    CUresult (*stream_synchronize)(CUstream stream);                         /* cuStreamSynchronize */

    /* optional */
    CUresult (*stream_write_value64)(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                     unsigned int flags);                    /* cuStreamWriteValue64_v2 */
    CUresult (*get_error_name)(CUresult status, const char **name);          /* cuGetErrorName */
    CUresult (*get_error_string)(CUresult status, const char **text);        /* cuGetErrorString */
    CUresult (*stream_create)(CUstream *stream, unsigned int flags);         /* cuStreamCreate */
    CUresult (*stream_destroy)(CUstream stream);                             /* cuStreamDestroy_v2 */
    CUresult (*module_load_data)(CUmodule *module, const void *image);       /* cuModuleLoadData */
    CUresult (*module_unload)(CUmodule module);                              /* cuModuleUnload */
    CUresult (*module_get_function)(CUfunction *function, CUmodule module,
                                    const char *name);                      /* cuModuleGetFunction */
    CUresult (*launch_kernel)(CUfunction f, unsigned int grid_x, unsigned int grid_y,
                              unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                              unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                              void **params, void **extra);                 /* cuLaunchKernel */
    CUresult (*mem_alloc)(CUdeviceptr *device, size_t bytes);                /* cuMemAlloc_v2 */
    CUresult (*mem_free)(CUdeviceptr device);                                /* cuMemFree_v2 */
    CUresult (*memset_d8_async)(CUdeviceptr device, unsigned char value, size_t count,
                                CUstream stream);                            /* cuMemsetD8Async */
    CUresult (*event_create)(CUevent *event, unsigned int flags);           /* cuEventCreate */
    CUresult (*event_destroy)(CUevent event);                                /* cuEventDestroy_v2 */
    CUresult (*event_record)(CUevent event, CUstream stream);                /* cuEventRecord */
    CUresult (*event_query)(CUevent event);                                  /* cuEventQuery */
    CUresult (*event_synchronize)(CUevent event);                            /* cuEventSynchronize */
    /* The same call under two names: drivers of CUDA 12.8 and later export
     * the _v2 (the only one cuda.h 13 declares), older ones only the first;
     * use event_elapsed_time_v2 where set, else event_elapsed_time. */
    CUresult (*event_elapsed_time)(float *ms, CUevent start, CUevent end);   /* cuEventElapsedTime */
    CUresult (*event_elapsed_time_v2)(float *ms, CUevent start, CUevent end); /* cuEventElapsedTime_v2 */
} gar_cuda_driver;

/* Loads the driver from `library` (NULL: $GAR_CUDA_LIBRARY, else
 * libcuda.so.1) and resolves the table.  It does not call cuInit (the line
 * does, so a stub library or a machine without a device fails there, with
 * the driver's own status).  Returns 0, or -GAR_E_INVALID_ARGUMENT (NULL
 * drv), or -GAR_E_BACKEND with the fault Unavailable (mapped_line.h):
 * "dlopen(LIB)" when the library cannot be loaded, "resolve NAME in LIB"
 * for the first required entry point missing.  On failure nothing stays
 * loaded and `drv` is zeroed.  A library name of GAR_CUDA_LIBRARY_BYTES
 * or more is -GAR_E_INVALID_ARGUMENT. */
int gar_cuda_driver_open(gar_cuda_driver *drv, const char *library, gar_error *err);

/* Unloads what open loaded and zeroes the table.  Accepts NULL and a table
 * built by hand (then it only zeroes it). */
void gar_cuda_driver_close(gar_cuda_driver *drv);

/* The name of the first required entry point `drv` lacks, or NULL when all
 * are there: for a table built by hand. */
const char *gar_cuda_driver_missing(const gar_cuda_driver *drv);

/* Writes "NAME (N): text" for `status` into `buf` (the driver's own name and
 * text when it has get_error_name/get_error_string and they know `status`;
 * else gar's name for the few statuses gar treats specially, else
 * "CUresult N").  Like snprintf: returns the length the whole text needs. */
size_t gar_cuda_status_text(const gar_cuda_driver *drv, CUresult status, char *buf, size_t size);

/* Fills `err` through gar_mapped_fail with `fault`, `what` and the status
 * text of `status`.  Returns -GAR_E_BACKEND. */
int gar_cuda_fail(const gar_cuda_driver *drv, gar_error *err, gar_mapped_fault fault,
                  const char *what, CUresult status);

#endif
