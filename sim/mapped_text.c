/* sim/mapped_text.c — a regular file mapped read-only, its read pages
 * handed back behind the reader (mapped_text.h). */
#define _DEFAULT_SOURCE /* MADV_DONTNEED */
#include "sim/mapped_text.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Read pages are handed back in runs of this many bytes: one call per run,
 * and at most this much of the file held besides the page being read. */
#define RELEASE_RUN ((size_t)4 << 20)

bool gar_mapped_text_open(gar_mapped_text *m, int fd)
{
    *m = (gar_mapped_text){ NULL, 0, 0 };
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (unsigned long long)st.st_size > (size_t)-1)
        return false;
    void *bytes = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (bytes == MAP_FAILED)
        return false;
    m->bytes = bytes;
    m->size = (size_t)st.st_size;
    return true;
}

void gar_mapped_text_release(gar_mapped_text *m, size_t read)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t upto = read / page * page;
    if (upto < m->released + RELEASE_RUN)
        return;
    /* The pages stay in the page cache; only this process lets go of
     * them.  Advice: where it is not taken, the file stays mapped whole. */
    (void)madvise((void *)(m->bytes + m->released), upto - m->released, MADV_DONTNEED);
    m->released = upto;
}

void gar_mapped_text_close(gar_mapped_text *m)
{
    if (m->bytes != NULL)
        munmap((void *)m->bytes, m->size);
    *m = (gar_mapped_text){ NULL, 0, 0 };
}
