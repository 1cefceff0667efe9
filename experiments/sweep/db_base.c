/* experiments/sweep/db_base.c — the SQLite plumbing the sweep database's
 * files stand on (db_base.h): faults, exec, meta values, schema versions,
 * URIs and read-only opens. */
#define _POSIX_C_SOURCE 200809L /* struct stat */
#include "sweep/db_base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int gar_db_fault(gar_error *err, const char *path, const char *doing, sqlite3 *db)
{
    return gar_error_set(err, GAR_E_IO, 3, path, doing,
                         db != NULL ? sqlite3_errmsg(db) : "out of memory");
}

int gar_db_exec(gar_db *s, const char *sql, const char *doing, gar_error *err)
{
    if (sqlite3_exec(s->sqlite, sql, NULL, NULL, NULL) != SQLITE_OK)
        return gar_db_fault(err, s->path, doing, s->sqlite);
    return 0;
}

sqlite3 *gar_db_sqlite(gar_db *db)
{
    return db->sqlite;
}

const char *gar_db_path(const gar_db *db)
{
    return db->path;
}

/* A meta value of the database `db` (main or an attached `schema`). */
int gar_db_read_meta(sqlite3 *db, const char *schema, const char *key, char *buf, size_t size,
                     bool *found)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT value FROM %s.meta WHERE key = ?1", schema);
    sqlite3_stmt *st = NULL;
    *found = false;
    if (size > 0)
        buf[0] = '\0';
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
        *found = true;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The schema version of `schema` in `db` as a number: 0 when it is not one. */
long gar_db_schema_version_of(sqlite3 *db, const char *schema)
{
    char version[32];
    bool found;
    if (gar_db_read_meta(db, schema, "schema_version", version, sizeof version, &found) < 0 ||
        !found)
        return 0;
    char *end = NULL;
    long v = strtol(version, &end, 10);
    return end != version && *end == '\0' && v >= 1 ? v : 0;
}

/* Refuses a database of a schema version this gar neither reads nor
 * converts, naming both, and what to do with an older one.  Version 3 is
 * read: gar_db_open converts it (add_intervals_and_notes). */
int gar_db_check_version(sqlite3 *db, const char *schema, const char *path, const char *doing,
                         gar_error *err)
{
    char version[32];
    bool found;
    if (gar_db_read_meta(db, schema, "schema_version", version, sizeof version, &found) < 0 ||
        !found)
        return gar_error_set(err, GAR_E_IO, 3, path, doing,
                             "not a gar sweep database (no meta schema_version)");
    long v = gar_db_schema_version_of(db, schema);
    if (v >= GAR_DB_SCHEMA_OLDEST && v <= GAR_DB_SCHEMA_VERSION)
        return 0;
    char why[480];
    snprintf(why, sizeof why,
             "its schema version is %s; this gar reads schema versions %d to %d%s", version,
             GAR_DB_SCHEMA_OLDEST, GAR_DB_SCHEMA_VERSION,
             v == 0 || v > GAR_DB_SCHEMA_VERSION ? ""
             : v == 1
                 ? " (an older database is not converted: it does not record which gar "
                   "made each run; sweep again into a new file with this gar, or read "
                   "it with the gar that made it)"
                 : " (an older database is not converted: it has no per-stream counts "
                   "and does not record each run's swept parameters; sweep again into a "
                   "new file with this gar, or read it with the gar that made it)");
    return gar_error_set(err, GAR_E_IO, 3, path, doing, why);
}

/* Percent-escapes `path` into a SQLite URI ending in `query` ("" or
 * "?KEY=VALUE..."), allocated (free it); NULL without memory. */
char *gar_db_path_uri(const char *path, const char *query)
{
    size_t n = strlen(path);
    char *uri = malloc(3 * n + strlen(query) + 8);
    if (uri == NULL)
        return NULL;
    size_t k = (size_t)sprintf(uri, "file:");
    /* "file://x" would name a host: a path starting with "//" is written
     * as the same path with one leading slash, under an empty authority. */
    if (path[0] == '/' && path[1] == '/') {
        k += (size_t)sprintf(uri + k, "//");
        while (path[1] == '/')
            path++;
    }
    for (const char *p = path; *p != '\0'; p++) {
        if (*p == '%' || *p == '?' || *p == '#')
            k += (size_t)sprintf(uri + k, "%%%02X", (unsigned char)*p);
        else
            uri[k++] = *p;
    }
    sprintf(uri + k, "%s", query);
    return uri;
}

/* The URI naming `path` read-only, and immutable (read without locks or
 * side files, so reading a file creates or changes nothing beside it)
 * unless a non-empty write-ahead log lies beside it: that holds pages the
 * file itself does not have yet (a writer is at work, or one died), read
 * through it.  NULL without memory. */
char *gar_db_read_only_uri(const char *path)
{
    char *wal = malloc(strlen(path) + 5);
    if (wal == NULL)
        return NULL;
    sprintf(wal, "%s-wal", path);
    struct stat ws;
    bool live = stat(wal, &ws) == 0 && ws.st_size > 0;
    free(wal);
    return gar_db_path_uri(path, live ? "?mode=ro" : "?mode=ro&immutable=1");
}

/* Opens `path` for reading only (gar_db_read_only_uri: a read-only file or
 * folder reads as well), into `*db` (close it, even on a fault).  Returns
 * SQLite's code (SQLITE_NOMEM with `*db` NULL: no memory for the URI). */
int gar_db_open_read_only(const char *path, sqlite3 **db)
{
    *db = NULL;
    char *uri = gar_db_read_only_uri(path);
    if (uri == NULL)
        return SQLITE_NOMEM;
    int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc == SQLITE_OK)
        sqlite3_busy_timeout(*db, GAR_DB_BUSY_TIMEOUT_MS);
    return rc;
}
