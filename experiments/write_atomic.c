/* experiments/write_atomic.c — temporary file, sync, rename. */
#define _POSIX_C_SOURCE 200809L

#include "write_atomic.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char suffix[] = ".tmp.XXXXXX";

/* Writes all of `data`, resuming after short writes and signals. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

int gar_write_file_atomic(const char *path, const void *data, size_t len, gar_error *err)
{
    if (path == NULL || (data == NULL && len > 0))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_write_file_atomic",
                             path == NULL ? "path" : "data", "is NULL");
    size_t n = strlen(path);
    char *temp = malloc(n + sizeof suffix);
    if (temp == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "path buffer", "out of memory");
    memcpy(temp, path, n);
    memcpy(temp + n, suffix, sizeof suffix);
    int fd = mkstemp(temp);
    if (fd < 0) {
        int rc = gar_error_set(err, GAR_E_IO, 3, path, "create a temporary file beside",
                               strerror(errno));
        free(temp);
        return rc;
    }
    int rc = 0;
    (void)fchmod(fd, 0644); /* mkstemp makes it private; the file is data for anyone */
    if (write_all(fd, data, len) != 0)
        rc = gar_error_set(err, GAR_E_IO, 3, temp, "write", strerror(errno));
    else if (fsync(fd) != 0)
        rc = gar_error_set(err, GAR_E_IO, 3, temp, "sync", strerror(errno));
    if (close(fd) != 0 && rc == 0)
        rc = gar_error_set(err, GAR_E_IO, 3, temp, "close", strerror(errno));
    if (rc == 0 && rename(temp, path) != 0)
        rc = gar_error_set(err, GAR_E_IO, 3, path, "rename a temporary file onto",
                           strerror(errno));
    if (rc < 0)
        unlink(temp);
    free(temp);
    return rc;
}
