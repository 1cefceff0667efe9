/* sim/host_profile.c — a host profile read from its file (host_profile.h). */
#define _POSIX_C_SOURCE 200809L
#include "sim/host_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILE_BYTES_MAX (1u << 20) /* a profile is a few hundred bytes */

int gar_host_profile_read_text(const char *path, char **text, size_t *len, gar_error *err)
{
    if (path == NULL || text == NULL || len == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_host_profile_read_text",
                             path == NULL ? "path" : text == NULL ? "text" : "len", "is NULL");
    /* "-" is standard input, as for traces and sweep specs: a profile made
     * on the fly (`gar calibrate | gar replay ... --host -`) needs no file. */
    bool from_stdin = strcmp(path, "-") == 0;
    if (from_stdin)
        path = "standard input";
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (f == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    char *buf = malloc(FILE_BYTES_MAX + 1);
    if (buf == NULL) {
        if (!from_stdin)
            fclose(f);
        return gar_error_set(err, GAR_E_IO, 3, path, "read", "out of memory");
    }
    errno = 0;
    size_t n = fread(buf, 1, FILE_BYTES_MAX + 1, f);
    int read_failed = ferror(f) ? (errno != 0 ? errno : EIO) : 0; /* EISDIR: a folder */
    if (!from_stdin)
        fclose(f);
    int rc = 0;
    if (read_failed)
        rc = gar_error_set(err, GAR_E_IO, 3, path, "read", strerror(read_failed));
    else if (n > FILE_BYTES_MAX)
        rc = gar_error_set(err, GAR_E_INVALID_HOST_PROFILE, 3, path, "1",
                           "larger than 1 MiB: not a host profile");
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

int gar_host_profile_load(const char *path, gar_host_profile *out, gar_error *err)
{
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_host_profile_load",
                             path == NULL ? "path" : "out", "is NULL");
    char *text;
    size_t len;
    int rc = gar_host_profile_read_text(path, &text, &len, err);
    if (rc < 0)
        return rc;
    rc = gar_host_profile_parse(text, len, strcmp(path, "-") == 0 ? "standard input" : path, out,
                                err);
    free(text);
    return rc;
}
