/* experiments/sweep/db_base.h — the inside of a gar_db (db.h), shared by the
 * files that make up the sweep database, and the SQLite plumbing they all
 * stand on (db_base.c).  Not for callers outside experiments/sweep/db*.c:
 * they use db.h.
 *
 * The database is split by concern, each file over the ones before it:
 *   db_base.c     this plumbing: faults, exec, meta, URIs, read-only opens
 *   db_schema.c   the schema: its columns and tables, gar_db_check, creation
 *   db_convert.c  the steps up from an older schema version
 *   db_insert.c   the prepared statements, gar_db_has, the inserts
 *   db_merge.c    gar_db_merge, gar_db_same_file
 *   db.c          the handle: open, close, meta, sources, snapshot */
#ifndef GAR_DB_BASE_H
#define GAR_DB_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <sqlite3.h>

#include <gar/error.h>

#include "sweep/db.h"

struct gar_db {
    sqlite3 *sqlite;
    sqlite3_stmt *has;
    sqlite3_stmt *insert;
    sqlite3_stmt *insert_stream;
    sqlite3_stmt *insert_param;
    sqlite3_stmt *insert_note;
    char *path;
    dev_t dev; /* the file's identity, to refuse merging it into itself */
    ino_t ino;
};

/* How long a connection waits for another's lock before giving up. */
enum { GAR_DB_BUSY_TIMEOUT_MS = 10000 };

/* Sets `err` to GAR_E_IO naming `path`, what was being done and SQLite's
 * message (`db` NULL: out of memory).  Returns -GAR_E_IO. */
int gar_db_fault(gar_error *err, const char *path, const char *doing, sqlite3 *db);

/* Runs `sql` on `s`.  Returns 0, or gar_db_fault's -GAR_E_IO. */
int gar_db_exec(gar_db *s, const char *sql, const char *doing, gar_error *err);

/* Reads the meta value `key` of the database `db` (main or an attached
 * `schema`) into `buf` ("" and `*found` false when absent).  Returns 0, or
 * -1 on a fault. */
int gar_db_read_meta(sqlite3 *db, const char *schema, const char *key, char *buf, size_t size,
                     bool *found);

/* The schema version of `schema` in `db` as a number: 0 when it is not one. */
long gar_db_schema_version_of(sqlite3 *db, const char *schema);

/* Returns 0 for a schema version this gar reads, or -GAR_E_IO naming it. */
int gar_db_check_version(sqlite3 *db, const char *schema, const char *path, const char *doing,
                         gar_error *err);

/* `path` as a SQLite URI ending in `query`, allocated (free it); NULL
 * without memory. */
char *gar_db_path_uri(const char *path, const char *query);

/* The URI that reads `path` read-only (immutable unless a live WAL lies
 * beside it), allocated; NULL without memory. */
char *gar_db_read_only_uri(const char *path);

/* Opens `path` read-only into `*db` (close it, even on a fault).  Returns
 * SQLite's code. */
int gar_db_open_read_only(const char *path, sqlite3 **db);

#endif
