/* sim/trace/whole_file.c — a small file read whole (whole_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "sim/trace/whole_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sim/trace/alloc.h"

int gar_whole_file_read(const char *path, size_t limit, char **text, size_t *len,
                        gar_error *err)
{
    bool from_stdin = strcmp(path, "-") == 0;
    if (from_stdin)
        path = "standard input";
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (f == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    char *buf = gar_malloc(limit + 1);
    if (buf == NULL) {
        if (!from_stdin)
            fclose(f);
        return GAR_WHOLE_FILE_NO_MEMORY;
    }
    /* One byte past the limit tells a file at the limit from a longer one. */
    errno = 0;
    size_t n = fread(buf, 1, limit + 1, f);
    int failed = ferror(f) ? (errno != 0 ? errno : EIO) : 0; /* EISDIR: a folder */
    if (!from_stdin)
        fclose(f);
    if (failed || n > limit) {
        gar_free(buf);
        return failed ? gar_error_set(err, GAR_E_IO, 3, path, "read", strerror(failed))
                      : GAR_WHOLE_FILE_TOO_LARGE;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
