/* experiments/import/alloc_sqlite.c — SQLite's memory methods over the allocation
 * hook (alloc_sqlite.h). */
#include "import/alloc_sqlite.h"

#include <stddef.h>
#include <string.h>

#include <sqlite3.h>

#include "sim/trace/alloc.h"

/* Each block: its size in a header as aligned as malloc's memory. */
#define HEADER sizeof(max_align_t)

static void *hooked_malloc(int n)
{
    if (n <= 0)
        return NULL;
    unsigned char *p = gar_malloc(HEADER + (size_t)n);
    if (p == NULL)
        return NULL;
    memcpy(p, &n, sizeof n);
    return p + HEADER;
}

static void hooked_free(void *block)
{
    if (block != NULL)
        gar_free((unsigned char *)block - HEADER);
}

static void *hooked_realloc(void *block, int n)
{
    if (block == NULL)
        return hooked_malloc(n);
    if (n <= 0)
        return NULL;
    unsigned char *p = gar_realloc((unsigned char *)block - HEADER, HEADER + (size_t)n);
    if (p == NULL)
        return NULL;
    memcpy(p, &n, sizeof n);
    return p + HEADER;
}

static int hooked_size(void *block)
{
    int n = 0;
    if (block != NULL)
        memcpy(&n, (unsigned char *)block - HEADER, sizeof n);
    return n;
}

static int hooked_roundup(int n)
{
    return (n + 7) & ~7;
}

static int hooked_init(void *context)
{
    (void)context;
    return SQLITE_OK;
}

static void hooked_shutdown(void *context)
{
    (void)context;
}

int gar_sqlite_use_alloc_hook(void)
{
    static const sqlite3_mem_methods methods = {
        hooked_malloc, hooked_free,  hooked_realloc,  hooked_size,
        hooked_roundup, hooked_init, hooked_shutdown, NULL,
    };
    if (sqlite3_shutdown() != SQLITE_OK ||
        sqlite3_config(SQLITE_CONFIG_MALLOC, &methods) != SQLITE_OK)
        return -1;
    return sqlite3_initialize() == SQLITE_OK ? 0 : -1;
}
