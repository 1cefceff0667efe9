/* gar/cuda.h — waiting on CUDA streams: the driver table (loaded at run
 * time), the CUDA mapped line, and a stream's port on it, in that order.
 * Needs the CUDA toolkit's cuda.h on the include path (gar.pc names it) and
 * a libgar built with the CUDA backend (GAR_HAVE_CUDA_BACKEND, gar/features.h).
 * Threads: the driver table may be read from any thread once open; a line
 * and its ports belong to one thread at a time (gar/mapped.h).
 *
 * The driver table.
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
#ifndef GAR_CUDA_H
#define GAR_CUDA_H

#include <stddef.h>

#include <cuda.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/mapped.h>

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
 * drv), or -GAR_E_BACKEND with the fault Unavailable (gar/mapped.h):
 * "dlopen(LIB)" when the library cannot be loaded, "resolve NAME in LIB"
 * for the first required entry point missing.  On failure nothing stays
 * loaded and `drv` is zeroed.  A library name of GAR_CUDA_LIBRARY_BYTES
 * or more is -GAR_E_INVALID_ARGUMENT. */
GAR_API int gar_cuda_driver_open(gar_cuda_driver *drv, const char *library, gar_error *err);

/* Unloads what open loaded and zeroes the table.  Accepts NULL and a table
 * built by hand (then it only zeroes it). */
GAR_API void gar_cuda_driver_close(gar_cuda_driver *drv);

/* The name of the first required entry point `drv` lacks, or NULL when all
 * are there: for a table built by hand. */
GAR_API const char *gar_cuda_driver_missing(const gar_cuda_driver *drv);

/* Writes "NAME (N): text" for `status` into `buf` (the driver's own name and
 * text when it has get_error_name/get_error_string and they know `status`;
 * else gar's name for the few statuses gar treats specially, else
 * "CUresult N").  Like snprintf: returns the length the whole text needs. */
GAR_API size_t gar_cuda_status_text(const gar_cuda_driver *drv, CUresult status, char *buf, size_t size);

/* Fills `err` through gar_mapped_fail with `fault`, `what` and the status
 * text of `status`.  Returns -GAR_E_BACKEND. */
GAR_API int gar_cuda_fail(const gar_cuda_driver *drv, gar_error *err, gar_mapped_fault fault,
                          const char *what, CUresult status);

/* The CUDA line: the mapped line (gar/mapped.h) on CUDA.
 *
 * The domain is the device's primary context, retained with
 * cuDevicePrimaryCtxRetain; the page is cuMemHostAlloc(DEVICEMAP|PORTABLE)
 * of GAR_MAPPED_PAGE_BYTES, its device view cuMemHostGetDevicePointer_v2;
 * the domain settles when cuCtxSynchronize succeeds with it current; a
 * stream belongs to the line when cuStreamGetCtx names the line's context.
 * Calls that need a current context (allocation, free, settle, and every
 * call on the implicit streams NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD)
 * push the line's context and pop it after, so the caller's current context
 * is left as it was; an implicit stream is thus the default stream of the
 * line's context.
 *
 * Fault mapping (the driver's status is always the error's text):
 *   cuInit            CUDA_ERROR_STUB_LIBRARY -> Unavailable (the toolkit's
 *                     link-time libcuda, no driver), CUDA_ERROR_NO_DEVICE ->
 *                     NoDomain, else Driver
 *   cuDeviceGet, cuDevicePrimaryCtxRetain failing -> NoDomain
 *   every other failing call -> Driver
 *   a driver without cuStreamWriteValue64_v2 -> Unavailable, at creation
 *
 * Release with gar_mapped_line_release (0 freed, 1 leaked: see there).
 * The driver table is borrowed for the line's life. */

/* The mapped-line operations over a gar_cuda_driver (the `drv` of every op). */
GAR_API extern const gar_mapped_ops gar_cuda_mapped_ops;

/* Creates a line on device `ordinal` (see gar_mapped_line_create). */
GAR_API int gar_cuda_line_create(gar_mapped_line *line, const gar_cuda_driver *drv, int ordinal,
                                 gar_error *err);

/* The line's context (its retained primary context), for making streams
 * and work in it; NULL for a line that is not a live CUDA line. */
GAR_API CUcontext gar_cuda_line_context(const gar_mapped_line *line);

/* Pushes `ctx` current on the calling thread, or pops it, as a pair around
 * calls that need it: each returns 0 or -GAR_E_BACKEND (Driver). */
GAR_API int gar_cuda_push(const gar_cuda_driver *drv, CUcontext ctx, gar_error *err);
GAR_API int gar_cuda_pop(const gar_cuda_driver *drv, gar_error *err);

/* The CUDA port: the completion port of a CUDA stream on a slot
 * of a CUDA mapped line (above).
 *
 * The port is the vendor-neutral mapped port (gar/mapped.h) over the CUDA
 * line's operations:
 *   query  cuStreamQuery: CUDA_SUCCESS done, CUDA_ERROR_NOT_READY pending,
 *          any other status an error (Driver);
 *   block  cuStreamSynchronize;
 *   poll   one cuStreamQuery after the CPU's spin hint;
 *   arm    cuStreamWriteValue64_v2 of the slot's next sequence number into
 *          the slot's word (the line's device pointer), behind the stream's
 *          pending work;
 *   park   the host's park (the gar_idle given at init) on the line.
 * Use gar_mapped_port_port for the gar_port and gar_mapped_port_fini to
 * unbind; the ownership rules are the mapped port's. */

/* Binds `slot` of the CUDA line `line` to `stream` (see
 * gar_mapped_port_init).  A line that is not a live CUDA line is
 * -GAR_E_INVALID_ARGUMENT; a stream of another context is ForeignStream. */
GAR_API int gar_cuda_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                               CUstream stream, gar_idle idle, gar_error *err);

#endif
