/* backends/gpu/cuda/cuda_work.c — the spin kernel, or a sized memset. */
#include "cuda_work.h"

#include <stdio.h>
#include <string.h>

#include <gar/cuda.h>

#define DRIVER GAR_MAPPED_FAULT_DRIVER

#if defined(GAR_CUDA_HAVE_PTX)
extern const char gar_cuda_work_ptx[]; /* generated from work_kernel.cu */
static const char *builtin_ptx(void) { return gar_cuda_work_ptx; }
#else
static const char *builtin_ptx(void) { return NULL; }
#endif

bool gar_cuda_work_has_ptx(void)
{
    return builtin_ptx() != NULL;
}

/* Loads the kernel with the context current.  Returns true when it did;
 * else writes why not into work->why. */
static bool load_kernel(gar_cuda_work *work, const char *ptx, bool memset_only)
{
    const gar_cuda_driver *drv = work->drv;
    if (memset_only) {
        snprintf(work->why, sizeof work->why, "the memset was asked for");
        return false;
    }
    if (ptx == NULL) {
        snprintf(work->why, sizeof work->why, "this build has no kernel (nvcc was not found)");
        return false;
    }
    if (drv->module_load_data == NULL || drv->module_get_function == NULL ||
        drv->module_unload == NULL || drv->launch_kernel == NULL) {
        snprintf(work->why, sizeof work->why, "the driver lacks the module or launch calls");
        return false;
    }
    char status[128]; /* leaves room in `why` for what failed */
    CUmodule module = NULL;
    CUresult rc = drv->module_load_data(&module, ptx);
    if (rc != CUDA_SUCCESS) {
        gar_cuda_status_text(drv, rc, status, sizeof status);
        snprintf(work->why, sizeof work->why, "cuModuleLoadData refused the kernel: %s", status);
        return false;
    }
    CUfunction spin = NULL;
    rc = drv->module_get_function(&spin, module, GAR_CUDA_WORK_KERNEL_NAME);
    if (rc != CUDA_SUCCESS) {
        gar_cuda_status_text(drv, rc, status, sizeof status);
        snprintf(work->why, sizeof work->why, "cuModuleGetFunction(%s): %s",
                 GAR_CUDA_WORK_KERNEL_NAME, status);
        drv->module_unload(module);
        return false;
    }
    work->module = module;
    work->spin = spin;
    return true;
}

static int set_up(gar_cuda_work *work, const gar_cuda_work_options *options, gar_error *err)
{
    const gar_cuda_driver *drv = work->drv;
    const char *ptx = options->ptx != NULL ? options->ptx : builtin_ptx();
    if (load_kernel(work, ptx, options->memset_only)) {
        work->kind = GAR_CUDA_WORK_KERNEL;
        work->why[0] = '\0';
        return 0;
    }
    if (drv->mem_alloc == NULL || drv->mem_free == NULL || drv->memset_d8_async == NULL)
        return gar_mapped_fail(err, GAR_MAPPED_FAULT_UNAVAILABLE, "set up device work",
                               "no kernel, and the driver lacks cuMemAlloc_v2, cuMemFree_v2 "
                               "or cuMemsetD8Async");
    work->kind = GAR_CUDA_WORK_MEMSET;
    work->bytes_per_ns = options->memset_bytes_per_ns != 0
                             ? options->memset_bytes_per_ns
                             : GAR_CUDA_WORK_MEMSET_BYTES_PER_NS_DEFAULT;
    work->buffer_bytes = options->memset_buffer_bytes != 0 ? options->memset_buffer_bytes
                                                           : GAR_CUDA_WORK_MEMSET_BUFFER_DEFAULT;
    CUresult rc = drv->mem_alloc(&work->buffer, work->buffer_bytes);
    if (rc != CUDA_SUCCESS)
        return gar_cuda_fail(drv, err, DRIVER, "cuMemAlloc_v2", rc);
    return 0;
}

int gar_cuda_work_init(gar_cuda_work *work, const gar_cuda_driver *drv, CUcontext ctx,
                       const gar_cuda_work_options *options, gar_error *err)
{
    static const gar_cuda_work_options defaults = { 0 };
    if (work == NULL || drv == NULL || ctx == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_cuda_work_init",
                             work == NULL ? "work" : drv == NULL ? "drv" : "ctx", "is NULL");
    *work = (gar_cuda_work){ .drv = drv, .ctx = ctx };
    if (options == NULL)
        options = &defaults;

    int rc = gar_cuda_push(drv, ctx, err);
    if (rc < 0) {
        *work = (gar_cuda_work){ 0 };
        return rc;
    }
    rc = set_up(work, options, err);
    int popped = gar_cuda_pop(drv, rc < 0 ? NULL : err);
    if (rc == 0 && popped < 0) {
        gar_cuda_work_fini(work, NULL); /* nothing ran: safe to undo at once */
        rc = popped;
    }
    if (rc < 0)
        *work = (gar_cuda_work){ 0 };
    return rc;
}

static int enqueue(const gar_cuda_work *work, CUstream stream, gar_dur_ns duration_ns,
                   gar_error *err)
{
    const gar_cuda_driver *drv = work->drv;
    if (work->kind == GAR_CUDA_WORK_KERNEL) {
        unsigned long long ns = duration_ns;
        void *params[] = { &ns };
        CUresult rc = drv->launch_kernel(work->spin, 1, 1, 1, 1, 1, 1, 0, stream, params, NULL);
        return rc == CUDA_SUCCESS ? 0 : gar_cuda_fail(drv, err, DRIVER, "cuLaunchKernel", rc);
    }
    /* duration × rate, saturating: a huge duration is a long memset, not a short one */
    uint64_t bytes = work->bytes_per_ns != 0 && duration_ns > UINT64_MAX / work->bytes_per_ns
                         ? UINT64_MAX
                         : duration_ns * work->bytes_per_ns;
    while (bytes > 0) {
        size_t chunk = bytes < work->buffer_bytes ? (size_t)bytes : work->buffer_bytes;
        CUresult rc = drv->memset_d8_async(work->buffer, 0, chunk, stream);
        if (rc != CUDA_SUCCESS)
            return gar_cuda_fail(drv, err, DRIVER, "cuMemsetD8Async", rc);
        bytes -= chunk;
    }
    return 0;
}

int gar_cuda_work_submit(gar_cuda_work *work, CUstream stream, gar_dur_ns duration_ns,
                         gar_error *err)
{
    if (work == NULL || work->drv == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_cuda_work_submit", "work",
                             work == NULL ? "is NULL" : "is not set up");
    if (duration_ns == 0)
        return 0;
    int rc = gar_cuda_push(work->drv, work->ctx, err);
    if (rc < 0)
        return rc;
    rc = enqueue(work, stream, duration_ns, err);
    int popped = gar_cuda_pop(work->drv, rc < 0 ? NULL : err);
    return rc < 0 ? rc : popped;
}

int gar_cuda_work_fini(gar_cuda_work *work, gar_error *err)
{
    if (work == NULL || work->drv == NULL)
        return 0;
    const gar_cuda_driver *drv = work->drv;
    int rc = gar_cuda_push(drv, work->ctx, err);
    if (rc < 0)
        return rc;
    CUresult status = drv->ctx_synchronize();
    if (status != CUDA_SUCCESS) {
        rc = gar_cuda_fail(drv, err, DRIVER, "cuCtxSynchronize", status);
    } else {
        if (work->module != NULL)
            drv->module_unload(work->module);
        if (work->buffer != 0)
            drv->mem_free(work->buffer);
        *work = (gar_cuda_work){ .drv = drv, .ctx = work->ctx };
    }
    int popped = gar_cuda_pop(drv, rc < 0 ? NULL : err);
    if (rc == 0)
        *work = (gar_cuda_work){ 0 };
    return rc < 0 ? rc : popped;
}
