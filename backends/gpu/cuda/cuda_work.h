/* backends/gpu/cuda/cuda_work.h — device work of a given duration, for replaying
 * recorded completion times on a real GPU.
 *
 * Two kinds, chosen once at init:
 *   kernel  the spin kernel of work_kernel.cu (one thread watching the GPU's
 *           nanosecond timer), built into PTX by nvcc at build time and
 *           loaded with cuModuleLoadData: its duration is the GPU's own
 *           measure, the kind to use;
 *   memset  without a kernel (no nvcc at build time, a driver that refuses
 *           the PTX, or asked for): cuMemsetD8Async of duration × rate bytes
 *           into a device buffer, the rate given in bytes per ns.  Its
 *           duration is only as good as the rate, which the caller measures.
 * The report (`kind`, `why`) says which runs and why not the kernel.
 *
 * Ownership: the caller owns the gar_cuda_work; the driver table and the
 * context are borrowed until fini.  init and fini push the context and pop
 * it; submit too (launches on an implicit stream need it current). */
#ifndef GAR_CUDA_WORK_H
#define GAR_CUDA_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include <gar/cuda.h>
#include <gar/error.h>
#include <gar/time.h>

#define GAR_CUDA_WORK_KERNEL_NAME "gar_spin_ns"
#define GAR_CUDA_WORK_MEMSET_BYTES_PER_NS_DEFAULT UINT64_C(100)
#define GAR_CUDA_WORK_MEMSET_BUFFER_DEFAULT ((size_t)64 << 20)

typedef enum gar_cuda_work_kind {
    GAR_CUDA_WORK_KERNEL,
    GAR_CUDA_WORK_MEMSET,
} gar_cuda_work_kind;

typedef struct gar_cuda_work_options {
    const char *ptx;              /* PTX holding GAR_CUDA_WORK_KERNEL_NAME; NULL: the built-in one */
    bool memset_only;             /* run the memset even where the kernel would load */
    uint64_t memset_bytes_per_ns; /* the memset's rate; 0: the default */
    size_t memset_buffer_bytes;   /* its device buffer (one memset at most this); 0: the default */
} gar_cuda_work_options;

typedef struct gar_cuda_work {
    gar_cuda_work_kind kind;        /* read only */
    char why[GAR_ERROR_ARG_BYTES];  /* why not the kernel ("" when it is the kernel) */
    /* private */
    const gar_cuda_driver *drv;
    CUcontext ctx;
    CUmodule module;
    CUfunction spin;
    CUdeviceptr buffer;
    size_t buffer_bytes;
    uint64_t bytes_per_ns;
} gar_cuda_work;

/* Whether this build carries the kernel's PTX (nvcc was found). */
bool gar_cuda_work_has_ptx(void);

/* Sets work up in `ctx`: loads the kernel, else allocates the memset's
 * buffer.  `options` may be NULL.  Returns 0, or -GAR_E_INVALID_ARGUMENT
 * (NULL work, drv or ctx), -GAR_E_BACKEND (Unavailable: neither the kernel
 * nor the memset entry points; Driver: the buffer could not be allocated, a
 * push or pop failed).  On failure nothing stays allocated. */
int gar_cuda_work_init(gar_cuda_work *work, const gar_cuda_driver *drv, CUcontext ctx,
                       const gar_cuda_work_options *options, gar_error *err);

/* Enqueues on `stream` work lasting `duration_ns` on the device (memset:
 * as many memsets of at most the buffer as duration × rate needs; 0 ns
 * enqueues nothing).  Returns 0, or -GAR_E_INVALID_ARGUMENT (NULL or unset
 * work), -GAR_E_BACKEND (Driver: the launch or memset failed). */
int gar_cuda_work_submit(gar_cuda_work *work, CUstream stream, gar_dur_ns duration_ns,
                         gar_error *err);

/* Waits for the context to settle, then unloads the module or frees the
 * buffer.  Accepts NULL and unset work.  Returns 0, or -GAR_E_BACKEND when
 * the context did not settle (the buffer is then kept: work may still be
 * writing it). */
int gar_cuda_work_fini(gar_cuda_work *work, gar_error *err);

#endif
