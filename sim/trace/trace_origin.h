/* sim/trace/trace_origin.h — what a trace's head says of where its rows came from.
 *
 * `gar import` writes the command that made a trace into the comment lines
 * at its head ("# imported by: gar import kineto trace.json.gz", then
 * " --wait-on kernel" when the rows are every kernel's end).  A replay with
 * too few waits for a p99 reads this to suggest the kernel rows (replay_
 * notes.h, gar_replay_notes_hint_kernels).  Only the head's comments are
 * read, plain or gzip-compressed; nothing here refuses a trace (the reader
 * in trace.h does that). */
#ifndef GAR_SIM_TRACE_ORIGIN_H
#define GAR_SIM_TRACE_ORIGIN_H

#include <stdbool.h>

/* Whether the trace file at `path` was imported from a profile's
 * synchronizing calls: a head comment "imported by: gar import ..." without
 * "--wait-on kernel".  false for "-" (standard input, already read), a file
 * that cannot be opened, or any other head. */
bool gar_trace_imported_sync(const char *path); /* false for anything but a regular file */

#endif
