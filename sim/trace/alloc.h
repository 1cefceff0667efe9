/* sim/trace/alloc.h — the allocation hook of the readers: a way for tests to make
 * an allocation fail on purpose (SQLite's fault injection is the model).
 *
 * The trace reader and writer (trace_*.c, atomic_file.c), the importers and
 * the sweep-spec reader (experiments/) allocate through gar_malloc, gar_calloc,
 * gar_realloc and gar_free, which are the C library's functions unless a
 * fault hook is installed.  Then each allocation first asks the hook, which
 * answers true to make that one allocation fail (return NULL, as malloc
 * does when memory runs out; a failed gar_realloc leaves the block as it
 * was).  The memory itself always comes from the C library, so gar_free
 * frees what malloc, strdup or realpath returned, and memory allocated
 * before a hook was installed is freed as usual after.
 *
 * A hook may also tally the blocks handed out and freed (gar_alloc_held
 * counts the bytes held and their peak: how a test proves a reader's memory
 * bounded).  The default path costs one well-predicted test of a pointer.
 *
 * gar_alloc_fail_nth is the hook tests use: count the allocations and fail
 * the nth.  A test runs an operation with n = 1, 2, 3, ... until the hook
 * never fired (the operation needed fewer than n allocations), and checks
 * that every failed run ended in a coded error with nothing leaked or
 * half-written.  yajl's allocations are not hooked: yajl does not check
 * them (it would crash, not refuse).  SQLite's can be
 * (experiments/import/alloc_sqlite.h).
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

/* Told of each block a hooked allocation returned (`got` true) and of each
 * block gar_free releases (`got` false): what a counter of held bytes needs. */
typedef void (*gar_alloc_tally_fn)(void *context, void *block, bool got);

typedef struct gar_alloc_hook {
    gar_alloc_fault_fn should_fail; /* may be NULL: nothing fails */
    void *context;
    gar_alloc_tally_fn tally;       /* may be NULL: nothing counted */
} gar_alloc_hook;

/* The installed hook, or NULL (the default: nothing fails on purpose).
 * Read through the functions below; set with gar_alloc_set_hook. */
extern const gar_alloc_hook *gar_alloc_active_hook;

/* Installs `hook` (borrowed until replaced; NULL removes it). */
void gar_alloc_set_hook(const gar_alloc_hook *hook);

/* The hooked paths (alloc.c), taken only while a hook is installed. */
void *gar_alloc_hooked_malloc(size_t size);
void *gar_alloc_hooked_calloc(size_t count, size_t size);
void *gar_alloc_hooked_realloc(void *block, size_t size);
void gar_alloc_hooked_free(void *block);

static inline void *gar_malloc(size_t size)
{
    return gar_alloc_active_hook == NULL ? malloc(size) : gar_alloc_hooked_malloc(size);
}

static inline void *gar_calloc(size_t count, size_t size)
{
    return gar_alloc_active_hook == NULL ? calloc(count, size)
                                         : gar_alloc_hooked_calloc(count, size);
}

static inline void *gar_realloc(void *block, size_t size)
{
    return gar_alloc_active_hook == NULL ? realloc(block, size)
                                         : gar_alloc_hooked_realloc(block, size);
}

/* A block of `size` bytes for a long array filled front to back (a
 * sketch's exact values): aligned to GAR_ALLOC_LARGE_ALIGN and, where the
 * system has transparent huge pages, advised to take them, so that filling
 * it faults once per 2 MiB instead of once per 4 KiB page (the faults of a
 * million-wait replay's two 4 MB arrays were about a twentieth of its
 * time).  Asks the hook like gar_malloc; free it with gar_free.  NULL when
 * memory runs out. */
#define GAR_ALLOC_LARGE_ALIGN ((size_t)2 << 20)
void *gar_malloc_large(size_t size);

static inline void gar_free(void *block)
{
    if (gar_alloc_active_hook == NULL || block == NULL)
        free(block);
    else
        gar_alloc_hooked_free(block);
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

/* The held-bytes counter: the bytes of the blocks hooked allocations hold
 * (as the C library sized them), and their peak since it was made.  Fill
 * it with gar_alloc_held_make and install &counter->hook.  Blocks allocated
 * before it was installed and freed while it is count as negative, so take
 * `peak` relative to `held` at installation (which make sets to 0).  Needs
 * the C library to tell a block's size (glibc); gar_alloc_held_supported
 * says whether it does. */
typedef struct gar_alloc_held {
    gar_alloc_hook hook;
    int64_t held; /* bytes held now */
    int64_t peak; /* the most held at once */
} gar_alloc_held;

void gar_alloc_held_make(gar_alloc_held *counter);
bool gar_alloc_held_supported(void);

#endif
