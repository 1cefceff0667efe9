/* sim/trace/leftover.h — temporary files and staging folders that prove whose
 * they are, and removing those a killed run left.
 *
 * A command killed at the wrong moment (kill -9) leaves its temporary
 * files: a trace's `FILE.tmp.XXXXXX` beside it, a merge's database, a
 * trace cache being built, a plot's staging folder inside the output
 * folder.  The next run into the same place removes them, under two rules:
 *
 *   - Ownership is a lock, never a process id.  A writer holds an
 *     exclusive flock on its temporary file, and a staging folder's owner
 *     one on the marker file inside it, from the moment the name can be
 *     seen to its removal or rename; the kernel drops it when the owner
 *     dies, however.  An entry whose lock is held is live, whichever PID
 *     namespace, container or user holds it; one whose lock cannot be
 *     taken for another reason (a file system without locks) is kept too.
 *     (A folder shared between machines needs locks that reach them all,
 *     as NFS's do.)
 *   - Only what gar made is touched.  A file counts as gar's when its name
 *     carries gar's owner tag (prefix "PID-HOST-XXXXXX", gar_leftover_owner;
 *     HOST this machine's: another machine's entries in a shared folder are
 *     its own to clean) or, for names without it, when it begins with the
 *     bytes gar writes first (a trace's magic line, gzip's header).  A folder counts only
 *     with gar's marker in it (GAR_LEFTOVER_MARKER, its text exactly
 *     gar's): a folder without one is never entered, whatever its name,
 *     and of one with it only the plain files go (a folder inside stays,
 *     and so does the folder then).
 *
 * Errors are not reported by the cleaners: cleaning is a courtesy that
 * never fails a run. */
#ifndef GAR_SIM_LEFTOVER_H
#define GAR_SIM_LEFTOVER_H

#include <stddef.h>

#define GAR_LEFTOVER_OWNER_BYTES 96 /* "PID-HOST" and its NUL, at most */
#define GAR_LEFTOVER_MARKER ".gar-owner" /* in a staging folder: gar made it */

/* This process's owner text, "PID-HOST" (HOST this machine's name with
 * every byte but letters, digits, '.', '_' and '-' written '_', at most 64
 * of them), into `out` (GAR_LEFTOVER_OWNER_BYTES): the tag of gar's
 * temporary names, which says to a person who made one (the lock, not the
 * PID, says whether it is still at work). */
void gar_leftover_owner(char out[GAR_LEFTOVER_OWNER_BYTES]);

/* Claims the temporary file open at `fd` (just created) for this process:
 * an exclusive flock, held by a close-on-exec descriptor of its own that
 * the caller closes only once the file is renamed or removed (closing
 * `fd` keeps it).  Returns that descriptor, or -1 where the file system
 * has no locks (the file is then never judged abandoned). */
int gar_leftover_claim_file(int fd);

/* Makes a staging folder from `template` (mkdtemp's: it ends in XXXXXX and
 * is rewritten) with gar's marker inside, locked from before the marker
 * takes its name.  Returns the lock's descriptor (close-on-exec; keep it
 * open while the folder is in use, then gar_leftover_drop_folder), or -1
 * with errno set and nothing left behind. */
int gar_leftover_make_folder(char *template);

/* Removes a folder made by gar_leftover_make_folder once the caller has
 * emptied it: its marker, then the folder (where nothing else is left in
 * it), then the lock `lock_fd` is released. */
void gar_leftover_drop_folder(const char *folder, int lock_fd);

/* Removes from the folder `dir` every file named `prefix` "PID-HOST-" and
 * six more bytes (mkstemp's), HOST this machine's, whose lock no one holds, with its companions
 * named as it is plus one of the NULL-terminated `tails` (SQLite's "-wal",
 * say); a companion whose file is gone is kept.  Returns how many files
 * (companions not counted) it removed. */
size_t gar_leftover_clean(const char *dir, const char *prefix, const char *const *tails);

/* As gar_leftover_clean for files named `prefix` and exactly six more
 * bytes (no owner tag: an older gar's names, or a writer's whose name
 * must stay short), which count as gar's only when they begin with one
 * of the NULL-terminated `signatures`. */
size_t gar_leftover_clean_signed(const char *dir, const char *prefix,
                                 const char *const *signatures);

/* gar_leftover_clean_signed in the folder of `path` (".", "/" or its
 * leading part) for the names `path`'s last part + `tag` + six bytes:
 * what writers of `path` killed before their rename left beside it. */
size_t gar_leftover_clean_beside(const char *path, const char *tag,
                                 const char *const *signatures);

/* gar_leftover_clean in the folder of `path` for the names `path`'s last
 * part + `tag` + "PID-HOST-" and six bytes, with their `tails`: what
 * writers of `path` that sign their names with their owner left beside it.
 * Returns how many files it removed (0 when memory runs out). */
size_t gar_leftover_clean_owned_beside(const char *path, const char *tag,
                                       const char *const *tails);

/* Removes from `dir` every folder named `prefix` and at least six more
 * bytes that holds gar's marker, unlocked: its plain files, the marker,
 * the folder.  Returns how many folders it removed. */
size_t gar_leftover_clean_folders(const char *dir, const char *prefix);

#endif
