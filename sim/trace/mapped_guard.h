/* sim/trace/mapped_guard.h — reading a mapped file that another process cuts
 * short.
 *
 * A page of a file mapping that lies past the file's end (the file was
 * truncated after it was mapped) raises SIGBUS when read, which would end
 * the process with no word.  A reader registers each mapping it reads
 * with gar_mapped_guard_add; a SIGBUS in a registered range, in whatever
 * thread, replaces the range from the faulting page to its end with pages
 * of zeros, marks the range cut, and lets the read go on: it reads zeros.
 * The reader asks gar_mapped_guard_cut after its reads and refuses what it
 * read (error 12, naming the file) when the range was cut.  So a reader
 * must take zero bytes without harm (the trace parser refuses them; the
 * replay runs on zero rows, in bounded time) and check before using what
 * it read.
 *
 * A SIGBUS outside every range is left as it was: the handler found there
 * before (a sanitizer's) is called, or the default action, which ends the
 * process, is restored and the access runs again.  The handler is
 * installed, process-wide, by gar_mapped_guard_add, which puts it back
 * where another action was set since (and calls that one for faults
 * outside every range).
 *
 * Every function is safe from any thread; ranges live in a fixed table
 * (GAR_MAPPED_GUARD_SLOTS); a range that finds it full goes unguarded, as
 * every range did before. */
#ifndef GAR_SIM_MAPPED_GUARD_H
#define GAR_SIM_MAPPED_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#define GAR_MAPPED_GUARD_SLOTS 256
#define GAR_MAPPED_GUARD_NONE (-1)

/* Guards the `len` bytes of a mapping at `start` (page-aligned, as mmap
 * returns it).  Returns the range's slot, or GAR_MAPPED_GUARD_NONE when
 * the table is full or the handler could not be installed. */
int gar_mapped_guard_add(const void *start, size_t len);

/* Whether a read of the range in `slot` hit a page past the file's end
 * since it was added (GAR_MAPPED_GUARD_NONE: false). */
bool gar_mapped_guard_cut(int slot);

/* Stops guarding the range in `slot`; call it before unmapping the range
 * (GAR_MAPPED_GUARD_NONE: nothing). */
void gar_mapped_guard_remove(int slot);

#endif
