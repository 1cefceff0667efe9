/* experiments/sweep/hole_check.c — a hole longer than a line refused
 * before the text is read (hole_check.h). */
#define _GNU_SOURCE /* SEEK_HOLE, SEEK_DATA */
#include "sweep/hole_check.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/trace/trace.h" /* GAR_TRACE_LINE_MAX */

/* Whether the file open at `fd` starts with gzip's magic bytes. */
static bool is_gzip(int fd)
{
    unsigned char magic[2];
    return pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic && magic[0] == 0x1f &&
           magic[1] == 0x8b;
}

int gar_trace_hole_check(const char *path, gar_error *err)
{
#if defined(SEEK_HOLE) && defined(SEEK_DATA)
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0; /* the reader says why */
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !is_gzip(fd)) {
        /* Each hole in turn, from where the data before it ends to where
         * the next data starts (the end of the file when none does). */
        for (off_t at = 0; at < st.st_size;) {
            off_t hole = lseek(fd, at, SEEK_HOLE);
            if (hole < 0 || hole >= st.st_size)
                break;
            off_t data = lseek(fd, hole, SEEK_DATA);
            if (data < 0)
                data = st.st_size;
            if (data - hole > GAR_TRACE_LINE_MAX) {
                char fault[240];
                snprintf(fault, sizeof fault,
                         "bytes %lld to %lld are a hole (a sparse file, read as NUL bytes): a "
                         "line longer than %d bytes",
                         (long long)hole, (long long)data, GAR_TRACE_LINE_MAX);
                rc = gar_error_set(err, GAR_E_INVALID_TRACE, 4, path, "", "", fault);
                break;
            }
            at = data;
        }
    }
    close(fd);
    return rc;
#else
    (void)path;
    (void)err;
    return 0;
#endif
}
