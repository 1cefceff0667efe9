/* tests/fake_cudart/fake_context.c — devices, contexts and mapped host memory
 * of the fake GPU; see fake_context.h. */
#define _GNU_SOURCE
#include "fake_context.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define STACK_MAX 8
/* The device view sits this far above the host view: an address no host
 * allocation has, so a store through the host pointer finds nothing. */
#define DEVICE_OFFSET (UINT64_C(1) << 56)

struct fake_ctx {
    int device;
};

static fake_ctx primaries[FAKE_DEVICES] = { { 0 }, { 1 } };
static _Thread_local fake_ctx *stack[STACK_MAX];
static _Thread_local unsigned depth;
static _Thread_local int current_device;

typedef struct allocation {
    char *host;
    size_t bytes;
    struct allocation *next;
} allocation;

static pthread_mutex_t memory_mu = PTHREAD_MUTEX_INITIALIZER;
static allocation *allocations;

fake_ctx *fake_primary_ctx(int device)
{
    return device >= 0 && device < FAKE_DEVICES ? &primaries[device] : NULL;
}

fake_ctx *fake_current_ctx(void)
{
    return depth ? stack[depth - 1] : &primaries[current_device];
}

bool fake_ctx_push(fake_ctx *ctx)
{
    if (!ctx || depth == STACK_MAX)
        return false;
    stack[depth++] = ctx;
    return true;
}

fake_ctx *fake_ctx_pop(void)
{
    return depth ? stack[--depth] : NULL;
}

fake_ctx *fake_ctx_create(int device)
{
    if (device < 0 || device >= FAKE_DEVICES)
        return NULL;
    fake_ctx *ctx = malloc(sizeof *ctx);
    if (!ctx)
        return NULL;
    ctx->device = device;
    if (!fake_ctx_push(ctx)) {
        free(ctx);
        return NULL;
    }
    return ctx;
}

int fake_ctx_device(const fake_ctx *ctx)
{
    return ctx->device;
}

int fake_get_device(void)
{
    return current_device;
}

bool fake_set_device(int device)
{
    if (device < 0 || device >= FAKE_DEVICES)
        return false;
    current_device = device;
    return true;
}

void *fake_host_alloc(size_t bytes)
{
    allocation *a = malloc(sizeof *a);
    char *host = bytes ? aligned_alloc(4096, (bytes + 4095) / 4096 * 4096) : NULL;
    if (!a || !host) {
        free(a);
        free(host);
        return NULL;
    }
    memset(host, 0, bytes);
    *a = (allocation){ host, bytes, NULL };
    pthread_mutex_lock(&memory_mu);
    a->next = allocations;
    allocations = a;
    pthread_mutex_unlock(&memory_mu);
    return host;
}

bool fake_host_free(void *host)
{
    pthread_mutex_lock(&memory_mu);
    allocation **at = &allocations;
    while (*at && (*at)->host != host)
        at = &(*at)->next;
    allocation *found = *at;
    if (found)
        *at = found->next;
    pthread_mutex_unlock(&memory_mu);
    if (found) {
        free(found->host);
        free(found);
    }
    return found != NULL;
}

/* The allocation holding [addr, addr + bytes) of the host view; with
 * memory_mu held. */
static allocation *holding(uintptr_t addr, size_t bytes)
{
    for (allocation *a = allocations; a; a = a->next)
        if (addr >= (uintptr_t)a->host && addr - (uintptr_t)a->host + bytes <= a->bytes)
            return a;
    return NULL;
}

uint64_t fake_device_pointer(const void *host)
{
    pthread_mutex_lock(&memory_mu);
    allocation *a = holding((uintptr_t)host, 1);
    pthread_mutex_unlock(&memory_mu);
    return a ? (uint64_t)(uintptr_t)host + DEVICE_OFFSET : 0;
}

uint64_t *fake_host_word(uint64_t device_addr)
{
    if (device_addr < DEVICE_OFFSET || device_addr % 8 != 0)
        return NULL;
    uintptr_t host = (uintptr_t)(device_addr - DEVICE_OFFSET);
    pthread_mutex_lock(&memory_mu);
    allocation *a = holding(host, 8);
    pthread_mutex_unlock(&memory_mu);
    return a ? (uint64_t *)host : NULL;
}

int fake_stream_mem_ops(void)
{
    const char *off = getenv("FAKE_GPU_STREAM_MEM_OPS");
    return off && strcmp(off, "0") == 0 ? 0 : 1;
}
