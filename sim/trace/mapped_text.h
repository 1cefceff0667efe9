/* sim/trace/mapped_text.h — a regular file's bytes, read where the page cache
 * holds them.
 *
 * The streamed trace reader (trace_stream.c) parses a plain text file out of a
 * read-only mapping of it, where it copied the file a block at a time
 * into a buffer of its own with read(): that copy was about a twentieth of
 * a million-wait replay's CPU time.  The file is mapped a window of a few
 * MiB at a time, each unmapped when the reader moves past it, so what the
 * process maps of the file (and what a sanitizer shadows of it) stays a
 * few MiB however long the file is.
 *
 * Only a regular file of at least one byte is mapped: anything else (a
 * pipe, a terminal, an empty file) gets false from gar_mapped_text_open,
 * and its reader copies it as before.  The size is the file's when it was
 * opened: bytes appended later are not read.  A file cut short by another
 * process while it is read would end this one with SIGBUS: each window is
 * guarded (mapped_guard.h), so its bytes past the new end read as zeros,
 * and gar_mapped_text_cut says so; the reader must ask it after reading a
 * window and refuse what it read. */
#ifndef GAR_SIM_MAPPED_TEXT_H
#define GAR_SIM_MAPPED_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gar_mapped_text {
    int fd;             /* the file (borrowed: its opener closes it) */
    size_t size;        /* its bytes when opened */
    const char *window; /* the mapped window, or NULL */
    size_t from, len;   /* the window's first byte in the file, and its length */
    int guard;          /* the window's guarded range (mapped_guard.h) */
} gar_mapped_text;

/* Readies the file open on `fd` (which must stay open while it is read).
 * True with `m` filled and its first bytes mapped; false (nothing mapped)
 * for anything but a non-empty regular file, or when the mapping is
 * refused. */
bool gar_mapped_text_open(gar_mapped_text *m, int fd);

/* The `len` bytes from `offset` of the file (offset + len <= size), mapped
 * until the next call, which may move the window on: bytes before `offset`
 * are not to be read again.  NULL, errno set, when a new window cannot be
 * mapped or the window was cut (gar_mapped_text_cut). */
const char *gar_mapped_text_bytes(gar_mapped_text *m, size_t offset, size_t len);

/* Whether the file was found cut short while the current window was read:
 * what was read of it since it was handed out is not the file's. */
bool gar_mapped_text_cut(const gar_mapped_text *m);

/* Unmaps it (an unopened or closed one: nothing). */
void gar_mapped_text_close(gar_mapped_text *m);

#endif
