/* sim/trace/alloc.c — the allocation hook (alloc.h). */
#define _GNU_SOURCE /* malloc_usable_size, for the held-bytes counter */
#include "sim/trace/alloc.h"

#include <sys/mman.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

const gar_alloc_hook *gar_alloc_active_hook = NULL;

void gar_alloc_set_hook(const gar_alloc_hook *hook)
{
    gar_alloc_active_hook = hook;
}

static bool hook_fails(const gar_alloc_hook *h, size_t size)
{
    return h != NULL && h->should_fail != NULL && h->should_fail(h->context, size);
}

static void *hook_got(const gar_alloc_hook *h, void *block)
{
    if (h != NULL && h->tally != NULL && block != NULL)
        h->tally(h->context, block, true);
    return block;
}

void *gar_alloc_hooked_malloc(size_t size)
{
    const gar_alloc_hook *h = gar_alloc_active_hook;
    return hook_fails(h, size) ? NULL : hook_got(h, malloc(size));
}

void *gar_alloc_hooked_calloc(size_t count, size_t size)
{
    const gar_alloc_hook *h = gar_alloc_active_hook;
    return hook_fails(h, count * size) ? NULL : hook_got(h, calloc(count, size));
}

void *gar_alloc_hooked_realloc(void *block, size_t size)
{
    const gar_alloc_hook *h = gar_alloc_active_hook;
    if (hook_fails(h, size))
        return NULL;
    if (h != NULL && h->tally != NULL && block != NULL)
        h->tally(h->context, block, false);
    void *grown = realloc(block, size);
    if (grown == NULL) {
        hook_got(h, block); /* a failed realloc leaves the block held as it was */
        return NULL;
    }
    return hook_got(h, grown);
}

void *gar_malloc_large(size_t size)
{
    const gar_alloc_hook *h = gar_alloc_active_hook;
    if (hook_fails(h, size))
        return NULL;
    size_t bytes = (size + GAR_ALLOC_LARGE_ALIGN - 1) & ~(GAR_ALLOC_LARGE_ALIGN - 1);
    if (bytes < size)
        return NULL; /* no such block */
    void *block = aligned_alloc(GAR_ALLOC_LARGE_ALIGN, bytes);
#ifdef MADV_HUGEPAGE
    /* Advice only: without huge pages the block works as any other. */
    if (block != NULL)
        (void)madvise(block, bytes, MADV_HUGEPAGE);
#endif
    return hook_got(h, block);
}

void gar_alloc_hooked_free(void *block)
{
    const gar_alloc_hook *h = gar_alloc_active_hook;
    if (h != NULL && h->tally != NULL && block != NULL)
        h->tally(h->context, block, false);
    free(block);
}

static bool fail_nth(void *context, size_t size)
{
    (void)size;
    gar_alloc_fail_nth *c = context;
    return ++c->asked == c->nth;
}

void gar_alloc_fail_nth_make(gar_alloc_fail_nth *counter, uint64_t nth)
{
    *counter = (gar_alloc_fail_nth){ .hook = { fail_nth, counter, NULL }, .nth = nth, .asked = 0 };
}

bool gar_alloc_held_supported(void)
{
#ifdef __GLIBC__
    return true;
#else
    return false;
#endif
}

static void tally_held(void *context, void *block, bool got)
{
    gar_alloc_held *c = context;
#ifdef __GLIBC__
    int64_t bytes = (int64_t)malloc_usable_size(block);
#else
    int64_t bytes = 0;
    (void)block;
#endif
    c->held += got ? bytes : -bytes;
    if (c->held > c->peak)
        c->peak = c->held;
}

void gar_alloc_held_make(gar_alloc_held *counter)
{
    *counter = (gar_alloc_held){ .hook = { NULL, counter, tally_held }, .held = 0, .peak = 0 };
}
