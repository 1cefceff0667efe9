/* experiments/sweep/short_names.h — the short names a database's traces and
 * hosts go by in file names, plots and pages ("steady", "dev-vm"), unique
 * within the database.
 *
 * A short name is gar_results_short_name of the name the spec wrote (its
 * file name without folder and extension).  Two traces (or two hosts) of
 * other content whose short names are the same — `ma/gpu.host` and
 * `mb/gpu.host`, two `host -` profiles merged — would write each other's
 * plot files; each of them gets the first GAR_SHORT_NAME_HASH_DIGITS hex
 * digits of its content hash after a '-' ("gpu-1a2b3c4d"), so every
 * database names each of its traces and hosts once.  A name no other
 * shares stays as it was. */
#ifndef GAR_SHORT_NAMES_H
#define GAR_SHORT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include <gar/error.h>

#include "sweep/db.h"

#define GAR_SHORT_NAME_HASH_DIGITS 8
#define GAR_SHORT_NAME_TEXT 192 /* bytes for a hash or name, NUL included */

/* "steady" from "../traces/steady.csv"; a gen call keeps its text.  Then
 * every byte but [A-Za-z0-9._+-] becomes '_', so the result names files.
 * Not unique: see gar_short_names_read. */
void gar_results_short_name(const char *name, char *out, size_t size);

typedef struct gar_short_name {
    bool host;                          /* a host's (else a trace's) */
    char hash[GAR_SHORT_NAME_TEXT];        /* content hash */
    char name[GAR_SHORT_NAME_TEXT];        /* unique within the database */
    char source[1024];                  /* where it came from: the path read, the gen:
                                         * call, "standard input" (cut to fit) */
} gar_short_name;

typedef struct gar_short_names {
    gar_short_name *at;
    size_t count;
} gar_short_names;

/* Reads every trace and host of `db` and names each.  Returns 0 (free
 * them), -GAR_E_IO (a failed read) or -GAR_E_CAPACITY. */
int gar_short_names_read(gar_db *db, gar_short_names *out, gar_error *err);

/* The short name of the trace (host false) or host with content hash
 * `hash`; NULL when the database has none such. */
const char *gar_short_names_of(const gar_short_names *names, bool host, const char *hash);

/* Its source (the traces' or hosts' `source` column); NULL likewise. */
const char *gar_short_names_source(const gar_short_names *names, bool host, const char *hash);

void gar_short_names_free(gar_short_names *names);

/* Copies the short name of `hash` into `out` (`size` bytes): the unique one
 * from `names`, or, for a hash it lacks, gar_results_short_name of `name`. */
void gar_short_names_copy(const gar_short_names *names, bool host, const char *hash,
                          const char *name, char *out, size_t size);

#endif
