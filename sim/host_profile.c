/* sim/host_profile.c — a host profile read from its file (host_profile.h). */
#define _POSIX_C_SOURCE 200809L
#include "host_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_BYTES_MAX (1u << 20) /* a profile is a few hundred bytes */

int gar_host_profile_load(const char *path, gar_host_profile *out, gar_error *err)
{
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_host_profile_load",
                             path == NULL ? "path" : "out", "is NULL");
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    char *buf = malloc(FILE_BYTES_MAX + 1);
    if (buf == NULL) {
        fclose(f);
        return gar_error_set(err, GAR_E_IO, 3, path, "read", "out of memory");
    }
    errno = 0;
    size_t n = fread(buf, 1, FILE_BYTES_MAX + 1, f);
    int read_failed = ferror(f) ? (errno != 0 ? errno : EIO) : 0; /* EISDIR: a folder */
    fclose(f);
    int rc;
    if (read_failed)
        rc = gar_error_set(err, GAR_E_IO, 3, path, "read", strerror(read_failed));
    else if (n > FILE_BYTES_MAX)
        rc = gar_error_set(err, GAR_E_INVALID_HOST_PROFILE, 3, path, "1",
                           "larger than 1 MiB: not a host profile");
    else
        rc = gar_host_profile_parse(buf, n, path, out, err);
    free(buf);
    return rc;
}
