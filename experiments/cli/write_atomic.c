/* experiments/cli/write_atomic.c — a whole buffer written through sim/trace/atomic_file.h. */
#define _POSIX_C_SOURCE 200809L

#include "cli/write_atomic.h"

#include "sim/trace/atomic_file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    gar_atomic_file file;
    int rc = gar_atomic_file_begin(&file, path, NULL, err);
    if (rc < 0)
        return rc;
    if (write_all(file.fd, data, len) != 0)
        rc = gar_error_set(err, GAR_E_IO, 3, file.temp, "write", strerror(errno));
    else
        rc = gar_atomic_file_sync(&file, err);
    if (rc == 0)
        rc = gar_atomic_file_commit(&file, NULL, err);
    return gar_atomic_file_end(&file, rc);
}

int gar_check_file_writable(const char *path, gar_error *err)
{
    if (path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_check_file_writable", "path",
                             "is NULL");
    if (path[0] == '\0') /* names no file, though a probe beside it could be made */
        return gar_error_set(err, GAR_E_IO, 3, path, "write", strerror(ENOENT));
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return gar_error_set(err, GAR_E_IO, 3, path, "write", strerror(EISDIR));
    gar_atomic_file file;
    int rc = gar_atomic_file_begin(&file, path, NULL, err);
    if (rc < 0)
        return rc;
    (void)gar_atomic_file_end(&file, -1); /* ends as a failure would: removes the probe */
    return 0;
}
