/* experiments/cli/write_atomic.h — writing a whole small file so that readers see
 * the old one or the new one, never a part (sim/trace/atomic_file.h does the
 * temporary file, sync and rename). */
#ifndef GAR_WRITE_ATOMIC_H
#define GAR_WRITE_ATOMIC_H

#include <stddef.h>

#include <gar/error.h>

/* Writes the `len` bytes at `data` into a temporary file beside `path`
 * (mode 0644), syncs it and renames it over `path`.  Returns 0, or -GAR_E_IO
 * (path, operation, system message) with `path` untouched and the temporary
 * file removed, or -GAR_E_CAPACITY when memory runs out. */
int gar_write_file_atomic(const char *path, const void *data, size_t len, gar_error *err);

/* Checks, before a long measurement, that gar_write_file_atomic could write
 * `path`: it is not empty nor a folder, and a temporary file can be created
 * beside it (one is, and removed at once).  Returns 0, or -GAR_E_IO (path,
 * operation, system message), or -GAR_E_CAPACITY.  A full disk may still
 * refuse the write itself. */
int gar_check_file_writable(const char *path, gar_error *err);

#endif
