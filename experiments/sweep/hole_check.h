/* experiments/sweep/hole_check.h — a trace text with a hole longer than a
 * line may be, refused from the file's layout before a byte of it is read.
 *
 * A sparse file (`truncate -s 4G`, a copy cut short and padded) reads its
 * holes as NUL bytes, and a run of NUL bytes longer than GAR_TRACE_LINE_MAX
 * holds no newline: the reader would refuse it as a line too long, but a
 * sweep first hashes the whole text for its cache (seconds a GB).  The
 * holes are found with lseek's SEEK_HOLE and SEEK_DATA, which read nothing.
 * Only the refusal the reader would give anyway is given early, so no file
 * the reader takes is refused: a gzip text (whose bytes are not lines) and
 * a file system that reports no holes are left to the reader. */
#ifndef GAR_HOLE_CHECK_H
#define GAR_HOLE_CHECK_H

#include <gar/error.h>

/* Returns 0 when the plain text at `path` has no hole longer than
 * GAR_TRACE_LINE_MAX bytes (or it cannot tell: not a regular file, not
 * openable, holes not reported), else -GAR_E_INVALID_TRACE naming `path`
 * and the hole's bytes. */
int gar_trace_hole_check(const char *path, gar_error *err);

#endif
