/* tests/fake_cudart/fake_context.h — the fake GPU's devices, contexts and
 * device-mapped host memory: what the fake driver (fake_cuda.c, libcuda.so.1;
 * fake_hip_driver.c inside libamdhip64) needs besides the streams of
 * fake_runtime.h.
 *
 *   devices   FAKE_DEVICES of them, each with one primary context.  A thread
 *             has a current device (0 until it sets another).
 *   contexts  a per-thread stack: a context made with fake_ctx_create is
 *             pushed; the current context is the stack's top, or, when the
 *             stack is empty, the current device's primary context (the
 *             runtime binds it on a thread's first call).
 *   memory    host allocations made mapped: each has a "device pointer" that
 *             differs from its host address (a fixed offset), so a caller
 *             that stores through the wrong view is caught.
 *   stream memory operations
 *             supported, unless the environment says FAKE_GPU_STREAM_MEM_OPS=0
 *             (read on each query), so tests can take them away.
 *
 * All functions are thread-safe. */
#ifndef GAR_FAKE_CONTEXT_H
#define GAR_FAKE_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_DEVICES 2

typedef struct fake_ctx fake_ctx;

/* The primary context of `device`, or NULL for no such device. */
fake_ctx *fake_primary_ctx(int device);
/* The calling thread's current context (never NULL). */
fake_ctx *fake_current_ctx(void);
/* A new context of `device`, pushed on the calling thread; NULL for no
 * such device. */
fake_ctx *fake_ctx_create(int device);
/* Pushes `ctx`; false when the stack is full. */
bool fake_ctx_push(fake_ctx *ctx);
/* Pops the top (NULL when the stack is empty). */
fake_ctx *fake_ctx_pop(void);
int fake_ctx_device(const fake_ctx *ctx);

/* The thread's current device; set returns false for no such device. */
int fake_get_device(void);
bool fake_set_device(int device);

/* Mapped host memory: NULL when out of memory.  free returns false for a
 * pointer the fake never gave. */
void *fake_host_alloc(size_t bytes);
bool fake_host_free(void *host);
/* The device view of `host` (inside an allocation), or 0. */
uint64_t fake_device_pointer(const void *host);
/* The host word a device pointer names, or NULL when it names no 8 bytes
 * of an allocation. */
uint64_t *fake_host_word(uint64_t device_addr);

/* 1 when the devices support stream memory operations (the default), 0 when
 * FAKE_GPU_STREAM_MEM_OPS is "0". */
int fake_stream_mem_ops(void);

#endif
