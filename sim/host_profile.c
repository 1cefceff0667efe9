/* sim/host_profile.c — a host profile read from its file (host_profile.h). */
#define _POSIX_C_SOURCE 200809L
#include "sim/host_profile.h"

#include <stdlib.h>
#include <string.h>

#include "sim/trace/whole_file.h"

#define FILE_BYTES_MAX (1u << 20) /* a profile is a few hundred bytes */

int gar_host_profile_read_text(const char *path, char **text, size_t *len, gar_error *err)
{
    if (path == NULL || text == NULL || len == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_host_profile_read_text",
                             path == NULL ? "path" : text == NULL ? "text" : "len", "is NULL");
    /* "-" is standard input, as for traces and sweep specs: a profile made
     * on the fly (`gar calibrate | gar replay ... --host -`) needs no file. */
    int rc = gar_whole_file_read(path, FILE_BYTES_MAX, text, len, err);
    const char *name = strcmp(path, "-") == 0 ? "standard input" : path;
    if (rc == GAR_WHOLE_FILE_NO_MEMORY)
        return gar_error_set(err, GAR_E_IO, 3, name, "read", "out of memory");
    if (rc == GAR_WHOLE_FILE_TOO_LARGE)
        return gar_error_set(err, GAR_E_INVALID_HOST_PROFILE, 3, name, "1",
                             "larger than 1 MiB: not a host profile");
    return rc;
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
