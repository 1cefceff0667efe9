/* sim/leftover.h — temporary names that say which process owns them, and
 * removing those whose owner is gone.
 *
 * A command killed at the wrong moment (kill -9) leaves its temporary
 * files: a merge's database beside its output, a plot's staging folder
 * inside the output folder.  Their names carry the owner, "PID-HOST"
 * (gar_leftover_owner), so the next run into the same place can tell a
 * dead run's leftovers from a live run's work in progress: it removes an
 * entry only when HOST is this machine's name and no process PID runs here
 * (a folder shared between machines keeps another machine's entries).  A
 * process id reused by an unrelated process keeps its entry until that one
 * ends too: cleaning is safe rather than eager.
 *
 * Errors are not reported: cleaning is a courtesy that never fails a run. */
#ifndef GAR_SIM_LEFTOVER_H
#define GAR_SIM_LEFTOVER_H

#include <stddef.h>

#define GAR_LEFTOVER_OWNER_BYTES 96 /* "PID-HOST" and its NUL, at most */

/* This process's owner text, "PID-HOST" (HOST this machine's name with
 * every byte but letters, digits, '.', '_' and '-' written '_', at most 64
 * of them), into `out` (GAR_LEFTOVER_OWNER_BYTES). */
void gar_leftover_owner(char out[GAR_LEFTOVER_OWNER_BYTES]);

/* Removes from the folder `dir` every entry named `prefix` "PID-HOST-"
 * and six more bytes (mkstemp's or mkdtemp's), then optionally one of the
 * NULL-terminated `tails` (SQLite's "-wal", say), whose owner is gone as
 * above: a file, or a folder with the plain files in it.  Returns how many
 * entries it removed. */
size_t gar_leftover_clean(const char *dir, const char *prefix, const char *const *tails);

#endif
