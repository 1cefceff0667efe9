/* sim/trace/whole_file.h — a small file (a host profile, a sweep spec) read
 * whole into memory, from a path or from standard input.
 *
 * The reader knows nothing of what the file holds, so it leaves the two
 * refusals whose words belong to the caller (too large, out of memory) to
 * the caller, and names the file and the operation in the rest. */
#ifndef GAR_SIM_WHOLE_FILE_H
#define GAR_SIM_WHOLE_FILE_H

#include <stddef.h>

#include <gar/error.h>

/* What gar_whole_file_read returns, besides 0 and a negative gar error,
 * for the caller to refuse in its own words. */
enum {
    GAR_WHOLE_FILE_TOO_LARGE = 1, /* more than `limit` bytes */
    GAR_WHOLE_FILE_NO_MEMORY = 2, /* the buffer could not be had */
};

/* Reads `path` ("-": standard input, named "standard input" in errors;
 * left open) whole into a NUL-terminated buffer of gar_malloc's, the
 * caller's to free, at `*text`, and its length (terminator not counted) at
 * `*len`.  Returns 0; GAR_WHOLE_FILE_TOO_LARGE or GAR_WHOLE_FILE_NO_MEMORY
 * with nothing kept and `err` untouched; or GAR_E_IO, naming the file, when
 * it cannot be opened or read (a folder reads as EISDIR). */
int gar_whole_file_read(const char *path, size_t limit, char **text, size_t *len,
                        gar_error *err);

#endif
