/* sim/trace/trace_origin.c — the "imported by" line of a trace's head
 * (trace_origin.h). */
#define _POSIX_C_SOURCE 200809L

#include "sim/trace/trace_origin.h"

#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "sim/trace/trace.h"

#define IMPORTED_BY "# imported by: gar import "

bool gar_trace_imported_sync(const char *path)
{
    if (path == NULL || strcmp(path, "-") == 0)
        return false;
    /* A pipe or FIFO was read once by the replay: opening it again would
     * wait for a writer that never comes. */
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    gzFile f = gzopen(path, "rb"); /* reads a plain file as it is */
    if (f == NULL)
        return false;
    char line[GAR_TRACE_LINE_MAX + 2];
    bool sync = false;
    /* The head is its comment lines; the first other line ends it. */
    while (gzgets(f, line, (int)sizeof line) != NULL && line[0] == '#') {
        if (strncmp(line, IMPORTED_BY, sizeof IMPORTED_BY - 1) == 0) {
            sync = strstr(line, " --wait-on kernel") == NULL;
            break;
        }
    }
    gzclose(f);
    return sync;
}
