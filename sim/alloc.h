/* sim/alloc.h — the allocation hook of the readers: a way for tests to make
 * an allocation fail on purpose (SQLite's fault injection is the model).
 *
 * The trace reader and writer (trace.c, atomic_file.c), the importers and
 * the sweep-spec reader (experiments/) allocate through gar_malloc, gar_calloc,
 * gar_realloc and gar_free, which are the C library's functions unless a
 * fault hook is installed.  Then each allocation first asks the hook, which
 * answers true to make that one allocation fail (return NULL, as malloc
 * does when memory runs out; a failed gar_realloc leaves the block as it
 * was).  The memory itself always comes from the C library, so gar_free
 * frees what malloc, strdup or realpath returned, and memory allocated
 * before a hook was installed is freed as usual after.
 *
 * The default path costs one well-predicted test of a pointer.
 *
 * gar_alloc_fail_nth is the hook tests use: count the allocations and fail
 * the nth.  A test runs an operation with n = 1, 2, 3, ... until the hook
 * never fired (the operation needed fewer than n allocations), and checks
 * that every failed run ended in a coded error with nothing leaked or
 * half-written.  yajl's allocations are not hooked: yajl does not check
 * them (it would crash, not refuse).  SQLite's can be
 * (experiments/sweep/alloc_sqlite.h).
 *
 * One hook for the process.  Install or remove it only while no other
 * thread allocates through these functions (before starting them, after
 * joining them); it is a test facility, not a run-time setting. */
#ifndef GAR_SIM_ALLOC_H
#define GAR_SIM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Asked before each hooked allocation of `size` bytes: true makes it fail. */
typedef bool (*gar_alloc_fault_fn)(void *context, size_t size);

typedef struct gar_alloc_hook {
    gar_alloc_fault_fn should_fail;
    void *context;
} gar_alloc_hook;

/* The installed hook, or NULL (the default: nothing fails on purpose).
 * Read through the functions below; set with gar_alloc_set_hook. */
extern const gar_alloc_hook *gar_alloc_active_hook;

/* Installs `hook` (borrowed until replaced; NULL removes it). */
void gar_alloc_set_hook(const gar_alloc_hook *hook);

static inline bool gar_alloc_fails(size_t size)
{
    const gar_alloc_hook *h = gar_alloc_active_hook;
    return h != NULL && h->should_fail(h->context, size);
}

static inline void *gar_malloc(size_t size)
{
    return gar_alloc_fails(size) ? NULL : malloc(size);
}

static inline void *gar_calloc(size_t count, size_t size)
{
    return gar_alloc_fails(count * size) ? NULL : calloc(count, size);
}

static inline void *gar_realloc(void *block, size_t size)
{
    return gar_alloc_fails(size) ? NULL : realloc(block, size);
}

static inline void gar_free(void *block)
{
    free(block);
}

/* The counting hook: fails the `nth` allocation asked (1-based) and no
 * other; counts every one asked.  Fill it with gar_alloc_fail_nth_make and
 * install &counter->hook. */
typedef struct gar_alloc_fail_nth {
    gar_alloc_hook hook;
    uint64_t nth;    /* the allocation to fail */
    uint64_t asked;  /* allocations asked so far */
} gar_alloc_fail_nth;

void gar_alloc_fail_nth_make(gar_alloc_fail_nth *counter, uint64_t nth);

/* Whether the counter's nth allocation came (and failed). */
static inline bool gar_alloc_fail_nth_fired(const gar_alloc_fail_nth *counter)
{
    return counter->asked >= counter->nth;
}

#endif
