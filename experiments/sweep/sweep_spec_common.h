/* experiments/sweep/sweep_spec_common.h — the small helpers every part of
 * the sweep spec reader shares (sweep_spec_common.c, which also owns the
 * content hashes and run parameters of sweep_spec.h).  For
 * experiments/sweep/sweep_spec*.c only. */
#ifndef GAR_SWEEP_SPEC_COMMON_H
#define GAR_SWEEP_SPEC_COMMON_H

#include <stddef.h>

#include <gar/error.h>

/* A NUL-terminated copy of the `len` bytes at `text` (gar_malloc'd); NULL
 * without memory. */
char *gar_spec_copy_text(const char *text, size_t len);

/* Reads a plain decimal u64 (digits only, no sign or space, no overflow)
 * into `*out`.  Returns 0, or -1 for anything else. */
int gar_spec_parse_whole(const char *text, unsigned long long *out);

/* Sets `err` to the spec reader's GAR_E_CAPACITY for memory.  Returns
 * -GAR_E_CAPACITY. */
int gar_spec_out_of_memory(gar_error *err);

/* Adds " (FILE:LINE)" to the last argument of the refusal in `err`, so it
 * says where the spec asked for what was refused.  Returns `rc`. */
int gar_spec_located(gar_error *err, int rc, const char *file, unsigned line);

/* Sets `err` to GAR_E_INVALID_ARGUMENT for a fault of the spec's own
 * grammar at FILE:LINE, naming the keyword.  Returns -GAR_E_INVALID_ARGUMENT. */
int gar_spec_fault(gar_error *err, const char *file, unsigned line, const char *keyword,
                   const char *fault);

/* Reads the whole file at `path` ("-": standard input) of at most `limit`
 * bytes into `*text` (NUL-terminated, gar_malloc'd) and `*len`.  Returns 0,
 * -GAR_E_IO, -GAR_E_INVALID_ARGUMENT (too large) or -GAR_E_CAPACITY. */
int gar_spec_read_whole(const char *path, size_t limit, char **text, size_t *len,
                        gar_error *err);

/* `path` taken from `base_dir` unless it is absolute (gar_malloc'd); NULL
 * without memory. */
char *gar_spec_joined_path(const char *base_dir, const char *path);

#endif
