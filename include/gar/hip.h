/* gar/hip.h — waiting on HIP streams: the runtime table (loaded at run
 * time), the HIP mapped line, and a stream's port on it, in that order.
 * Needs no HIP header, but a libgar built with the HIP backend
 * (GAR_HAVE_HIP_BACKEND, gar/features.h).  Threads: as gar/cuda.h.
 *
 * The runtime table: the HIP runtime, loaded at run time, declared here
 * without the HIP headers.
 *
 * gar uses a dozen HIP entry points, and needs from the headers only their
 * types and four constants, all part of HIP's documented, stable C ABI:
 *   hipError_t    a C enum: an int; hipSuccess 0, hipErrorNoDevice 100,
 *                 hipErrorInvalidDevice 101, hipErrorNotReady 600
 *   hipDevice_t   int;  hipCtx_t, hipStream_t: pointers to opaque structs
 *   hipHostMalloc flags: hipHostMallocMapped 0x2, hipHostMallocCoherent
 *                 0x40000000
 * Declaring them here lets the HIP backend build, and its CPU-side logic be
 * tested against a fake table, on any machine.  The names are gar's own
 * (gar_hip_*) so they never clash with the real headers if both are seen.
 *
 * gar_hip_driver_open dlopens "libamdhip64.so" (or $GAR_HIP_LIBRARY) and
 * resolves the table; a test builds one by hand.  As for CUDA (gar/cuda.h),
 * required entry points must all be there, while a runtime without
 * hipStreamWriteValue64 fails only line creation. */
#ifndef GAR_HIP_H
#define GAR_HIP_H

#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/mapped.h>

#define GAR_HIP_LIBRARY_DEFAULT "libamdhip64.so"
#define GAR_HIP_LIBRARY_ENV "GAR_HIP_LIBRARY"
#define GAR_HIP_LIBRARY_BYTES 256

typedef int gar_hip_status; /* hipError_t */
typedef int gar_hip_device; /* hipDevice_t */
typedef struct gar_hip_ctx_opaque *gar_hip_ctx;       /* hipCtx_t */
typedef struct gar_hip_stream_opaque *gar_hip_stream; /* hipStream_t */

enum {
    GAR_HIP_SUCCESS = 0,                /* hipSuccess */
    GAR_HIP_ERROR_NO_DEVICE = 100,      /* hipErrorNoDevice */
    GAR_HIP_ERROR_INVALID_DEVICE = 101, /* hipErrorInvalidDevice */
    GAR_HIP_ERROR_NOT_READY = 600,      /* hipErrorNotReady */
};

#define GAR_HIP_HOST_MALLOC_MAPPED 0x2u          /* hipHostMallocMapped */
#define GAR_HIP_HOST_MALLOC_COHERENT 0x40000000u /* hipHostMallocCoherent */

typedef struct gar_hip_driver {
    char library[GAR_HIP_LIBRARY_BYTES]; /* the file it was loaded from */
    void *handle;                        /* the dlopen handle; NULL for a table built by hand */

    /* required */
    gar_hip_status (*init)(unsigned int flags);                              /* hipInit */
    gar_hip_status (*device_get)(gar_hip_device *device, int ordinal);       /* hipDeviceGet */
    gar_hip_status (*primary_ctx_retain)(gar_hip_ctx *ctx, gar_hip_device device); /* hipDevicePrimaryCtxRetain */
    gar_hip_status (*primary_ctx_release)(gar_hip_device device);            /* hipDevicePrimaryCtxRelease */
    gar_hip_status (*get_device)(int *ordinal);                              /* hipGetDevice */
    gar_hip_status (*set_device)(int ordinal);                               /* hipSetDevice */
    gar_hip_status (*device_synchronize)(void);                              /* hipDeviceSynchronize */
    gar_hip_status (*host_malloc)(void **host, size_t bytes, unsigned int flags); /* hipHostMalloc */
    gar_hip_status (*host_free)(void *host);                                 /* hipHostFree */
    gar_hip_status (*host_get_device_pointer)(void **device, void *host,
                                              unsigned int flags);           /* hipHostGetDevicePointer */
    gar_hip_status (*stream_get_device)(gar_hip_stream stream, gar_hip_device *device); /* hipStreamGetDevice */
    gar_hip_status (*stream_query)(gar_hip_stream stream);                   /* hipStreamQuery */
    gar_hip_status (*stream_synchronize)(gar_hip_stream stream);             /* hipStreamSynchronize */

    /* optional */
    gar_hip_status (*stream_write_value64)(gar_hip_stream stream, void *addr, uint64_t value,
                                           unsigned int flags);              /* hipStreamWriteValue64 */
    const char *(*get_error_name)(gar_hip_status status);                    /* hipGetErrorName */
    const char *(*get_error_string)(gar_hip_status status);                  /* hipGetErrorString */
} gar_hip_driver;

/* As gar_cuda_driver_open, over libamdhip64.so and $GAR_HIP_LIBRARY. */
GAR_API int gar_hip_driver_open(gar_hip_driver *drv, const char *library, gar_error *err);

/* Unloads what open loaded and zeroes the table.  Accepts NULL. */
GAR_API void gar_hip_driver_close(gar_hip_driver *drv);

/* The first required entry point `drv` lacks, or NULL. */
GAR_API const char *gar_hip_driver_missing(const gar_hip_driver *drv);

/* "NAME (N): text" (from hipGetErrorName/String when present), else
 * "hipError_t N".  Returns the length the whole text needs. */
GAR_API size_t gar_hip_status_text(const gar_hip_driver *drv, gar_hip_status status, char *buf,
                                   size_t size);

/* Fills `err` through gar_mapped_fail.  Returns -GAR_E_BACKEND. */
GAR_API int gar_hip_fail(const gar_hip_driver *drv, gar_error *err, gar_mapped_fault fault,
                         const char *what, gar_hip_status status);

/* The HIP line: the mapped line (gar/mapped.h) on HIP.
 *
 * The domain is the device's primary context, retained with
 * hipDevicePrimaryCtxRetain for the line's life; the page is
 * hipHostMalloc(Mapped|Coherent) of GAR_MAPPED_PAGE_BYTES (coherent, so the
 * device's store is seen by the host without a flush), its device view
 * hipHostGetDevicePointer; the domain settles when hipDeviceSynchronize
 * succeeds with the line's device current; a stream belongs to the line
 * when hipStreamGetDevice names the line's device.  HIP binds work to the
 * thread's current device rather than a context stack, so calls that need
 * it (allocation, settle, and every call on the NULL stream, which is then
 * the line's device's) set the line's device and set the caller's back.
 *
 * Fault mapping: hipInit hipErrorNoDevice -> NoDomain; hipDeviceGet,
 * hipDevicePrimaryCtxRetain failing -> NoDomain; a runtime without
 * hipStreamWriteValue64 -> Unavailable at creation; all else Driver.
 * Release with gar_mapped_line_release. */

/* The mapped-line operations over a gar_hip_driver. */
GAR_API extern const gar_mapped_ops gar_hip_mapped_ops;

/* Creates a line on device `ordinal` (see gar_mapped_line_create). */
GAR_API int gar_hip_line_create(gar_mapped_line *line, const gar_hip_driver *drv, int ordinal,
                                gar_error *err);

/* The HIP port: the completion port of a HIP stream on a slot of
 * a HIP mapped line: the mapped port (gar/mapped.h) over hipStreamQuery
 * (hipErrorNotReady = pending), hipStreamSynchronize and
 * hipStreamWriteValue64, parking through the host's idle. */

/* As gar_mapped_port_init; a line that is not a HIP line is
 * -GAR_E_INVALID_ARGUMENT, a stream of another device ForeignStream. */
GAR_API int gar_hip_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                              gar_hip_stream stream, gar_idle idle, gar_error *err);

#endif
