/* backends/interpose/mapped_cuda.c — the route of a CUDA stream wait
 * (mapped_lines.h): the CUDA driver table (gar/cuda.h) opened once the
 * program has loaded libcuda.so.1, and per wait the checks the mapped line
 * needs.
 *
 *   no driver      libcuda.so.1 not loaded yet, or without an entry point
 *                  the line needs: QUERY, tried again once the process has
 *                  loaded a library since;
 *   no stream memory operations
 *                  the device answers 0 for
 *                  CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS (asked
 *                  once per device): QUERY;
 *   other context  the stream's context (cuStreamGetCtx; an implicit stream's
 *                  is the current one) is not the current context, or the
 *                  current context is not the device's primary one (the
 *                  runtime's, where the line lives): PASS.
 * The driver stays loaded for the process's life (the table holds a
 * reference), so a dlclose of the runtime never leaves it dangling.
 *
 * Built only where cuda.h is (GAR_HAVE_CUDA_BACKEND); elsewhere every CUDA
 * wait takes the status-query path, "no driver entry points". */
#define _GNU_SOURCE
#include "mapped_lines.h"

#ifdef GAR_HAVE_CUDA_BACKEND

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <gar/cuda.h>

#define DEVICES_MAX 64
enum { MEM_OPS_UNKNOWN = 0, MEM_OPS_YES, MEM_OPS_NO };

static struct {
    pthread_mutex_t mu;
    _Atomic bool open;
    unsigned long long tried_generation; /* of the last failed open; with mu */
    bool tried;
    gar_cuda_driver drv;
    CUresult (*get_attribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*ctx_get_current)(CUcontext *);
    _Atomic int mem_ops[DEVICES_MAX];
    _Atomic(CUcontext) primary[DEVICES_MAX]; /* retained once, kept: the lines hold it too */
} cuda = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Opens the driver the program loaded (never loads one of its own: a
 * program without the driver waits by status query). */
static bool open_driver(void)
{
    if (atomic_load(&cuda.open))
        return true;
    unsigned long long generation = gar_sync_dl_generation();
    pthread_mutex_lock(&cuda.mu);
    if (!atomic_load(&cuda.open) && !(cuda.tried && cuda.tried_generation == generation)) {
        cuda.tried = true;
        cuda.tried_generation = generation;
        const char *library = getenv(GAR_CUDA_LIBRARY_ENV);
        if (!library || !*library)
            library = GAR_CUDA_LIBRARY_DEFAULT;
        void *loaded = dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
        gar_error err = { 0 };
        if (loaded && gar_cuda_driver_open(&cuda.drv, library, &err) == 0) {
            *(void **)&cuda.get_attribute = dlsym(cuda.drv.handle, "cuDeviceGetAttribute");
            *(void **)&cuda.ctx_get_current = dlsym(cuda.drv.handle, "cuCtxGetCurrent");
            if (cuda.get_attribute && cuda.ctx_get_current && cuda.drv.stream_write_value64)
                atomic_store(&cuda.open, true);
            else
                gar_cuda_driver_close(&cuda.drv);
        }
        if (loaded)
            dlclose(loaded); /* drops only the reference NOLOAD took */
    }
    pthread_mutex_unlock(&cuda.mu);
    return atomic_load(&cuda.open);
}

static bool has_mem_ops(int ordinal)
{
    int known = atomic_load(&cuda.mem_ops[ordinal]);
    if (known == MEM_OPS_UNKNOWN) {
        CUdevice device;
        int value = 0;
        bool yes = cuda.drv.device_get(&device, ordinal) == CUDA_SUCCESS &&
                   cuda.get_attribute(&value, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
                                      device) == CUDA_SUCCESS &&
                   value != 0;
        known = yes ? MEM_OPS_YES : MEM_OPS_NO;
        atomic_store(&cuda.mem_ops[ordinal], known);
    }
    return known == MEM_OPS_YES;
}

/* Whether `stream` is of the current context (an implicit stream always
 * is).  A failing driver call answers no: the real call then decides. */
static bool of_current_context(CUstream stream)
{
    if (stream == NULL || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
        return true;
    CUcontext current = NULL, own = NULL;
    return cuda.ctx_get_current(&current) == CUDA_SUCCESS &&
           cuda.drv.stream_get_ctx(stream, &own) == CUDA_SUCCESS && own == current;
}

/* Whether the current context is device `ordinal`'s primary one. */
static bool primary_is_current(int ordinal)
{
    CUcontext current = NULL, primary = atomic_load(&cuda.primary[ordinal]);
    CUdevice device;
    if (!primary) {
        if (cuda.drv.device_get(&device, ordinal) != CUDA_SUCCESS ||
            cuda.drv.primary_ctx_retain(&primary, device) != CUDA_SUCCESS)
            return false;
        CUcontext none = NULL;
        if (!atomic_compare_exchange_strong(&cuda.primary[ordinal], &none, primary))
            cuda.drv.primary_ctx_release(device); /* another thread kept its reference */
    }
    return cuda.ctx_get_current(&current) == CUDA_SUCCESS && primary == current;
}

void gar_sync_cuda_route(void *stream, int ordinal, gar_idle idle, gar_sync_route *out)
{
    if (ordinal < 0 || ordinal >= DEVICES_MAX || !open_driver()) {
        *out = (gar_sync_route){ .path = GAR_SYNC_QUERY, .why = GAR_SYNC_NO_DRIVER };
        return;
    }
    if (!of_current_context((CUstream)stream) || !primary_is_current(ordinal)) {
        *out = (gar_sync_route){ .path = GAR_SYNC_PASS, .why = GAR_SYNC_OTHER_CONTEXT };
        return;
    }
    if (!has_mem_ops(ordinal)) {
        *out = (gar_sync_route){ .path = GAR_SYNC_QUERY, .why = GAR_SYNC_NO_MEM_OPS };
        return;
    }
    gar_sync_mapped_route(&gar_cuda_mapped_ops, &cuda.drv, ordinal, stream, idle, out);
}

#else

void gar_sync_cuda_route(void *stream, int ordinal, gar_idle idle, gar_sync_route *out)
{
    (void)stream, (void)ordinal, (void)idle;
    *out = (gar_sync_route){ .path = GAR_SYNC_QUERY, .why = GAR_SYNC_NO_DRIVER };
}

#endif
