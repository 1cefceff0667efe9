/* sim/trace/atomic_file.h — replacing a file whole: write a temporary file beside
 * it, sync it, rename it over the old one.  Readers see the old file or the
 * new one, never a part; a failure leaves the old file as it was and removes
 * the temporary one.
 *
 * The one recipe of gar's file writers: traces (trace_write.c), whole small files
 * such as calibrated host profiles (experiments/cli/write_atomic.h) and merged
 * databases (gar merge).  Plots and reports stage a whole folder instead
 * (experiments/report/plot.h).
 *
 * Use: begin; write to `fd` (or hand it to fdopen, then set fd to -1 after
 * fclose); sync; commit when all went well; end always.  Errors name the
 * file, the operation and the system's message; the temporary file's name
 * is allocated through gar_malloc (sim/trace/alloc.h), so the fault hook reaches
 * it.  One gar_atomic_file per writer; not shared between threads. */
#ifndef GAR_SIM_ATOMIC_FILE_H
#define GAR_SIM_ATOMIC_FILE_H

#include <gar/error.h>

typedef struct gar_atomic_file {
    const char *path; /* the file replaced (borrowed from the caller) */
    char *temp;       /* the temporary file beside it (owned until end) */
    int fd;           /* open for writing, or -1 once closed */
    int lock_fd;      /* holds the temporary file's lock until end (leftover.h), or -1 */
} gar_atomic_file;

/* Creates the temporary file `path` + `suffix` (NULL: ".tmp.XXXXXX"; the
 * suffix ends in XXXXXX, which mkstemp makes unique), mode 0644, open for
 * writing at f->fd, and locked as its owner's until end, so that no other
 * run takes it for a killed run's leftover (leftover.h).  Returns 0; or
 * -GAR_E_IO (path, "create a temporary file beside", the system's message)
 * or -GAR_E_CAPACITY (memory for the name), with nothing created and
 * nothing for end to do (end may still be called). */
int gar_atomic_file_begin(gar_atomic_file *f, const char *path, const char *suffix,
                          gar_error *err);

/* Flushes the temporary file to the disk (a full disk may refuse only now).
 * Returns 0 or -GAR_E_IO (temp, "sync", message). */
int gar_atomic_file_sync(gar_atomic_file *f, gar_error *err);

/* Closes f->fd if open (then -1).  Returns 0 or -GAR_E_IO (temp, "close",
 * message); the descriptor is released either way. */
int gar_atomic_file_close(gar_atomic_file *f, gar_error *err);

/* Closes as gar_atomic_file_close, then renames the temporary file onto the
 * path.  Returns 0, or the close's error, or -GAR_E_IO (path, `what`, message)
 * where `what` (NULL: "rename a temporary file onto") says which rename. */
int gar_atomic_file_commit(gar_atomic_file *f, const char *what, gar_error *err);

/* Releases everything: closes f->fd if still open, removes the temporary
 * file when `rc` < 0 (a commit that succeeded leaves nothing to remove),
 * then releases its lock and frees its name.  Returns `rc`, so a writer ends with
 * `return gar_atomic_file_end(&f, rc);`. */
int gar_atomic_file_end(gar_atomic_file *f, int rc);

#endif
