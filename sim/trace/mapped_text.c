/* sim/trace/mapped_text.c — a regular file mapped read-only a window at a time
 * (mapped_text.h). */
#include "sim/trace/mapped_text.h"

#include "sim/trace/mapped_guard.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A window spans this many bytes past the page its reader starts in (less
 * at the file's end): one mapping and one unmapping a window, and at most
 * this much of the file mapped at once. */
#define WINDOW_RUN ((size_t)4 << 20)

/* Maps the window holding [offset, offset + len): from the page of
 * `offset` on.  False, errno set, when the mapping is refused. */
static bool map_window(gar_mapped_text *m, size_t offset, size_t len)
{
    if (m->window != NULL) {
        gar_mapped_guard_remove(m->guard);
        munmap((void *)m->window, m->len);
        m->window = NULL;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t from = offset / page * page;
    size_t want = offset - from + (len > WINDOW_RUN ? len : WINDOW_RUN);
    size_t left = m->size - from;
    size_t span = want < left ? want : left;
    void *bytes = mmap(NULL, span, PROT_READ, MAP_PRIVATE, m->fd, (off_t)from);
    if (bytes == MAP_FAILED)
        return false;
    m->window = bytes;
    m->from = from;
    m->len = span;
    m->guard = gar_mapped_guard_add(bytes, span);
    return true;
}

bool gar_mapped_text_open(gar_mapped_text *m, int fd)
{
    *m = (gar_mapped_text){ .fd = fd, .guard = GAR_MAPPED_GUARD_NONE };
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (unsigned long long)st.st_size > (size_t)-1)
        return false;
    m->size = (size_t)st.st_size;
    if (!map_window(m, 0, 0)) {
        *m = (gar_mapped_text){ .fd = fd, .guard = GAR_MAPPED_GUARD_NONE };
        return false;
    }
    return true;
}

const char *gar_mapped_text_bytes(gar_mapped_text *m, size_t offset, size_t len)
{
    if (gar_mapped_guard_cut(m->guard)) { /* kept, so that gar_mapped_text_cut says so */
        errno = EIO;
        return NULL;
    }
    if (m->window == NULL || offset < m->from || offset + len > m->from + m->len)
        if (!map_window(m, offset, len))
            return NULL;
    return m->window + (offset - m->from);
}

bool gar_mapped_text_cut(const gar_mapped_text *m)
{
    return gar_mapped_guard_cut(m->guard);
}

void gar_mapped_text_close(gar_mapped_text *m)
{
    if (m->window != NULL) {
        gar_mapped_guard_remove(m->guard);
        munmap((void *)m->window, m->len);
    }
    *m = (gar_mapped_text){ .fd = -1, .guard = GAR_MAPPED_GUARD_NONE };
}
