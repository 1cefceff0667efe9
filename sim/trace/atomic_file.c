/* sim/trace/atomic_file.c — temporary file, sync, rename (atomic_file.h). */
#define _POSIX_C_SOURCE 200809L

#include "sim/trace/atomic_file.h"

#include "sim/trace/alloc.h"
#include "sim/trace/leftover.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates and locks the temporary file `temp` (its XXXXXX rewritten):
 * the descriptor, or -1 with errno set. */
static int create_locked(char *temp, size_t suffix_at, int *lock_fd)
{
    /* A cleaner may take a name in the moment before its lock is held and
     * remove it: the file, locked, is then found unlinked and made anew. */
    for (int tries = 0; tries < 8; tries++) {
        memcpy(temp + suffix_at - 6, "XXXXXX", 6);
        int fd = mkstemp(temp);
        if (fd < 0)
            return -1;
        *lock_fd = gar_leftover_claim_file(fd);
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_nlink > 0)
            return fd;
        if (*lock_fd >= 0)
            close(*lock_fd);
        *lock_fd = -1;
        close(fd);
    }
    errno = EEXIST;
    return -1;
}

int gar_atomic_file_begin(gar_atomic_file *f, const char *path, const char *suffix,
                          gar_error *err)
{
    *f = (gar_atomic_file){ .path = path, .temp = NULL, .fd = -1, .lock_fd = -1 };
    if (suffix == NULL)
        suffix = ".tmp.XXXXXX";
    size_t n = strlen(path), s = strlen(suffix);
    char *temp = gar_malloc(n + s + 1);
    if (temp == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "path buffer", "out of memory");
    memcpy(temp, path, n);
    memcpy(temp + n, suffix, s + 1);
    int fd = create_locked(temp, n + s, &f->lock_fd);
    if (fd < 0) {
        int rc = gar_error_set(err, GAR_E_IO, 3, path, "create a temporary file beside",
                               strerror(errno));
        gar_free(temp);
        return rc;
    }
    /* mkstemp makes the file private; what gar writes is data for anyone. */
    (void)fchmod(fd, 0644);
    f->temp = temp;
    f->fd = fd;
    return 0;
}

int gar_atomic_file_sync(gar_atomic_file *f, gar_error *err)
{
    if (fsync(f->fd) != 0)
        return gar_error_set(err, GAR_E_IO, 3, f->temp, "sync", strerror(errno));
    return 0;
}

int gar_atomic_file_close(gar_atomic_file *f, gar_error *err)
{
    if (f->fd < 0)
        return 0;
    int rc = close(f->fd);
    f->fd = -1;
    if (rc != 0)
        return gar_error_set(err, GAR_E_IO, 3, f->temp, "close", strerror(errno));
    return 0;
}

int gar_atomic_file_commit(gar_atomic_file *f, const char *what, gar_error *err)
{
    int rc = gar_atomic_file_close(f, err);
    if (rc < 0)
        return rc;
    if (rename(f->temp, f->path) != 0)
        return gar_error_set(err, GAR_E_IO, 3, f->path,
                             what != NULL ? what : "rename a temporary file onto",
                             strerror(errno));
    return 0;
}

int gar_atomic_file_end(gar_atomic_file *f, int rc)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    if (rc < 0 && f->temp != NULL)
        unlink(f->temp);
    if (f->temp != NULL && f->lock_fd >= 0)
        close(f->lock_fd); /* after the rename or the removal: never seen unlocked */
    f->lock_fd = -1;
    gar_free(f->temp);
    f->temp = NULL;
    return rc;
}
