/* experiments/import/alloc_sqlite.h — SQLite's allocations through the allocation
 * hook (sim/trace/alloc.h), so a test that fails the nth allocation fails
 * SQLite's too.
 *
 * SQLite takes its allocator once per process, before it initializes
 * (sqlite3_config(SQLITE_CONFIG_MALLOC)); gar does not route it by default,
 * so a run pays nothing.  A test calls gar_sqlite_use_alloc_hook() first,
 * before any other SQLite call.  Each block carries a small header with its
 * size (SQLite asks for it).  SQLite survives a failed allocation: the call
 * that needed it returns SQLITE_NOMEM, or, for its few optional ones (a
 * cache that could have been bigger), goes on without. */
#ifndef GAR_ALLOC_SQLITE_H
#define GAR_ALLOC_SQLITE_H

/* Routes SQLite's allocations through gar_malloc, gar_realloc and gar_free.
 * Returns 0, or -1 when SQLite refused (it was already in use). */
int gar_sqlite_use_alloc_hook(void);

#endif
