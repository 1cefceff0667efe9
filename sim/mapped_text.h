/* sim/mapped_text.h — a regular file's bytes, read where the page cache
 * holds them.
 *
 * The streamed trace reader (trace.c) parses a plain text file out of a
 * read-only mapping of it, where it copied the file a block at a time
 * into a buffer of its own with read(): that copy was about a twentieth of
 * a million-wait replay's CPU time.  The reader hands back the pages it
 * has read as it moves on (gar_mapped_text_release), so what the process
 * holds of the file stays a few MiB however long the file is.
 *
 * Only a regular file of at least one byte is mapped: anything else (a
 * pipe, a terminal, an empty file) gets false from gar_mapped_text_open,
 * and its reader copies it as before.  The mapping is of the file as it
 * was opened: bytes appended later are not read, and a file cut short by
 * another process while it is read ends this one with SIGBUS, as with any
 * mapped reader (the sweep's trace cache is read the same way). */
#ifndef GAR_SIM_MAPPED_TEXT_H
#define GAR_SIM_MAPPED_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gar_mapped_text {
    const char *bytes; /* the file's `size` bytes, read-only */
    size_t size;
    size_t released;   /* the bytes before this were handed back */
} gar_mapped_text;

/* Maps the file open on `fd` (which may be closed after).  True with `m`
 * filled; false (nothing mapped) for anything but a non-empty regular
 * file, or when the mapping is refused. */
bool gar_mapped_text_open(gar_mapped_text *m, int fd);

/* Says that the bytes before `read` will not be read again: their pages
 * are handed back once some MiB of them gather. */
void gar_mapped_text_release(gar_mapped_text *m, size_t read);

/* Unmaps it (an unopened or closed one: nothing). */
void gar_mapped_text_close(gar_mapped_text *m);

#endif
