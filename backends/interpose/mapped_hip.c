/* backends/interpose/mapped_hip.c — the route of a HIP stream wait
 * (mapped_lines.h), as mapped_cuda.c routes CUDA's, over the HIP runtime
 * table (gar/hip.h) opened from the libamdhip64 the program loaded.  HIP
 * binds work to a device rather than a context stack, so "other context"
 * is a stream of another device than the current one (hipStreamGetDevice);
 * stream memory operations are asked of
 * hipDeviceAttributeCanUseStreamWaitValue, HIP's one attribute for them. */
#define _GNU_SOURCE
#include "mapped_lines.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <gar/hip.h>

#define DEVICES_MAX 64
#define ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE 10013 /* hipDeviceAttributeCanUseStreamWaitValue */
#define PER_THREAD_STREAM ((gar_hip_stream)(uintptr_t)2) /* hipStreamPerThread */
enum { MEM_OPS_UNKNOWN = 0, MEM_OPS_YES, MEM_OPS_NO };

static struct {
    pthread_mutex_t mu;
    _Atomic bool open;
    unsigned long long tried_generation; /* of the last failed open; with mu */
    bool tried;
    gar_hip_driver drv;
    gar_hip_status (*get_attribute)(int *, int, int);
    _Atomic int mem_ops[DEVICES_MAX];
} hip = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Opens the runtime the program loaded, under the name it was loaded by. */
static bool open_runtime(void)
{
    if (atomic_load(&hip.open))
        return true;
    static const char *const names[] = { "libamdhip64.so.6", "libamdhip64.so.7",
                                         GAR_HIP_LIBRARY_DEFAULT };
    unsigned long long generation = gar_sync_dl_generation();
    pthread_mutex_lock(&hip.mu);
    if (!atomic_load(&hip.open) && !(hip.tried && hip.tried_generation == generation)) {
        hip.tried = true;
        hip.tried_generation = generation;
        for (size_t i = 0; i < sizeof names / sizeof *names && !atomic_load(&hip.open); i++) {
            void *loaded = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
            gar_error err = { 0 };
            if (loaded && gar_hip_driver_open(&hip.drv, names[i], &err) == 0) {
                *(void **)&hip.get_attribute = dlsym(hip.drv.handle, "hipDeviceGetAttribute");
                if (hip.get_attribute && hip.drv.stream_write_value64)
                    atomic_store(&hip.open, true);
                else
                    gar_hip_driver_close(&hip.drv);
            }
            if (loaded)
                dlclose(loaded); /* drops only the reference NOLOAD took */
        }
    }
    pthread_mutex_unlock(&hip.mu);
    return atomic_load(&hip.open);
}

static bool has_mem_ops(int ordinal)
{
    int known = atomic_load(&hip.mem_ops[ordinal]);
    if (known == MEM_OPS_UNKNOWN) {
        int value = 0;
        bool yes = hip.get_attribute(&value, ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE, ordinal) ==
                       GAR_HIP_SUCCESS &&
                   value != 0;
        known = yes ? MEM_OPS_YES : MEM_OPS_NO;
        atomic_store(&hip.mem_ops[ordinal], known);
    }
    return known == MEM_OPS_YES;
}

/* Whether `stream` is of the current device (the NULL and per-thread
 * streams always are).  A failing call answers no: the real call decides. */
static bool of_current_device(gar_hip_stream stream, int ordinal)
{
    if (stream == NULL || stream == PER_THREAD_STREAM)
        return true;
    gar_hip_device device;
    return hip.drv.stream_get_device(stream, &device) == GAR_HIP_SUCCESS && device == ordinal;
}

void gar_sync_hip_route(void *stream, int ordinal, gar_idle idle, gar_sync_route *out)
{
    if (ordinal < 0 || ordinal >= DEVICES_MAX || !open_runtime()) {
        *out = (gar_sync_route){ .path = GAR_SYNC_QUERY, .why = GAR_SYNC_NO_DRIVER };
        return;
    }
    if (!of_current_device((gar_hip_stream)stream, ordinal)) {
        *out = (gar_sync_route){ .path = GAR_SYNC_PASS, .why = GAR_SYNC_OTHER_CONTEXT };
        return;
    }
    if (!has_mem_ops(ordinal)) {
        *out = (gar_sync_route){ .path = GAR_SYNC_QUERY, .why = GAR_SYNC_NO_MEM_OPS };
        return;
    }
    gar_sync_mapped_route(&gar_hip_mapped_ops, &hip.drv, ordinal, stream, idle, out);
}
