/* experiments/sweep/db.c — the sweep database's handle (db.h): open,
 * close, meta, sources, snapshot; the schema, conversion, inserts and merge
 * live beside it (db_base.h names each file). */
#define _POSIX_C_SOURCE 200809L /* struct stat's st_ino */
#include "sweep/db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sweep/db_base.h"
#include "sweep/db_convert.h"
#include "sweep/db_insert.h"
#include "sweep/db_schema.h"
#include "sweep/gar_source.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

void gar_db_close(gar_db *db)
{
    if (db == NULL)
        return;
    sqlite3_finalize(db->has);
    sqlite3_finalize(db->insert);
    sqlite3_finalize(db->insert_stream);
    sqlite3_finalize(db->insert_param);
    sqlite3_finalize(db->insert_note);
    sqlite3_close(db->sqlite);
    free(db->path);
    free(db);
}

int gar_db_meta(gar_db *db, const char *key, char *buf, size_t size, gar_error *err)
{
    bool found;
    if (gar_db_read_meta(db->sqlite, "main", key, buf, size, &found) < 0)
        return gar_db_fault(err, db->path, "read meta", db->sqlite);
    return 0;
}

/* Puts the database in WAL mode.  The switch needs the file alone, and
 * SQLite answers "database is locked" at once, without waiting in its busy
 * handler, when waiting could deadlock: two processes opening one new file
 * together (two sweeps started at once), each switching it.  So a busy
 * answer is tried again, every few ms, for as long as the busy timeout. */
static int set_wal(gar_db *s, gar_error *err)
{
    enum { RETRY_MS = 5 };
    for (int waited_ms = 0;; waited_ms += RETRY_MS) {
        int rc = sqlite3_exec(s->sqlite, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
            waited_ms >= GAR_DB_BUSY_TIMEOUT_MS)
            return gar_db_fault(err, s->path, "set WAL mode on", s->sqlite);
        sqlite3_sleep(RETRY_MS);
    }
}

/* The db both opens start from: the arguments checked, `*out` cleared,
 * the path copied.  Returns 0 with `*s` set, or the refusal. */
static int db_new(const char *fn, const char *path, gar_db **out, gar_db **s, gar_error *err)
{
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, path == NULL ? "path" : "out",
                             "is NULL");
    *out = NULL;
    *s = calloc(1, sizeof **s);
    if (*s == NULL || ((*s)->path = malloc(strlen(path) + 1)) == NULL) {
        free(*s);
        *s = NULL;
        return gar_error_set(err, GAR_E_IO, 3, path, "open", "out of memory");
    }
    strcpy((*s)->path, path);
    return 0;
}

int gar_db_open(const char *path, bool create, gar_db **out, gar_error *err)
{
    gar_db *s = NULL;
    int rc = db_new("gar_db_open", path, out, &s, err);
    if (rc < 0)
        return rc;
    /* Refuse before changing anything: not even the journal mode of a file
     * that is not ours, or of another schema version. */
    rc = gar_db_check(path, create, "open", err);
    if (rc < 0) {
        gar_db_close(s);
        return rc;
    }
    /* Named by a URI, so that gar_db_merge can attach its inputs read-only. */
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_URI;
    char *uri = gar_db_path_uri(path, "");
    if (uri == NULL || sqlite3_open_v2(uri, &s->sqlite, flags, NULL) != SQLITE_OK) {
        rc = uri == NULL ? gar_error_set(err, GAR_E_IO, 3, path, "open", "out of memory")
                         : gar_db_fault(err, path, "open", s->sqlite);
        free(uri);
        gar_db_close(s);
        return rc;
    }
    free(uri);
    sqlite3_busy_timeout(s->sqlite, GAR_DB_BUSY_TIMEOUT_MS);
    rc = set_wal(s, err);
    if (rc == 0)
        rc = gar_db_exec(s, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
                         "set the pragmas of", err);
    if (rc == 0 && create)
        rc = gar_db_create_schema(s, err);
    if (rc == 0)
        rc = gar_db_convert_to_current(s, err);
    if (rc == 0)
        rc = gar_db_check_version(s->sqlite, "main", path, "open", err);
    if (rc == 0)
        rc = gar_db_prepare_statements(s, err);
    struct stat st;
    if (rc == 0 && stat(path, &st) != 0)
        rc = gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    if (rc < 0) {
        gar_db_close(s);
        return rc;
    }
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    *out = s;
    return 0;
}

int gar_db_open_read(const char *path, gar_db **out, gar_error *err)
{
    gar_db *s = NULL;
    int rc = db_new("gar_db_open_read", path, out, &s, err);
    if (rc < 0)
        return rc;
    rc = gar_db_check(path, false, "open", err);
    if (rc >= 0 && gar_db_open_read_only(path, &s->sqlite) != SQLITE_OK)
        rc = gar_db_fault(err, path, "open", s->sqlite);
    /* Checked again on the handle read from: the file may have been replaced. */
    if (rc >= 0)
        rc = gar_db_check_version(s->sqlite, "main", path, "open", err);
    struct stat st;
    if (rc >= 0 && stat(path, &st) != 0)
        rc = gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    if (rc < 0) {
        gar_db_close(s);
        return rc;
    }
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    *out = s;
    return 0;
}

int gar_db_put_sources(gar_db *s, const gar_sweep_spec *spec, gar_error *err)
{
    int rc = gar_db_exec(s, "BEGIN IMMEDIATE", "begin recording the sources in", err);
    if (rc < 0)
        return rc;
    sqlite3_stmt *tr = NULL, *ho = NULL;
    if (sqlite3_prepare_v2(s->sqlite,
                           "INSERT OR IGNORE INTO traces (trace, name, source, waits) "
                           "VALUES (?1, ?2, ?3, ?4)",
                           -1, &tr, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->sqlite,
                           "INSERT OR IGNORE INTO hosts (host, name, source, profile) "
                           "VALUES (?1, ?2, ?3, ?4)",
                           -1, &ho, NULL) != SQLITE_OK)
        rc = gar_db_fault(err, s->path, "prepare the sources insert", s->sqlite);
    for (size_t i = 0; rc == 0 && i < spec->trace_count; i++) {
        const gar_sweep_trace *t = &spec->traces[i];
        sqlite3_bind_text(tr, 1, t->hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(tr, 2, t->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(tr, 3, t->source, -1, SQLITE_STATIC);
        sqlite3_bind_int64(tr, 4, (sqlite3_int64)t->trace.count);
        if (sqlite3_step(tr) != SQLITE_DONE)
            rc = gar_db_fault(err, s->path, "record a trace in", s->sqlite);
        sqlite3_reset(tr);
    }
    for (size_t i = 0; rc == 0 && i < spec->host_count; i++) {
        const gar_sweep_host *h = &spec->hosts[i];
        sqlite3_bind_text(ho, 1, h->hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 2, h->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 3, h->source, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 4, h->text, -1, SQLITE_STATIC);
        if (sqlite3_step(ho) != SQLITE_DONE)
            rc = gar_db_fault(err, s->path, "record a host in", s->sqlite);
        sqlite3_reset(ho);
    }
    sqlite3_finalize(tr);
    sqlite3_finalize(ho);
    if (rc < 0) {
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return gar_db_exec(s, "COMMIT", "commit the sources to", err);
}

int gar_db_snapshot(const char *path, const char *into, gar_error *err)
{
    int rc = gar_db_check(path, false, "copy", err);
    if (rc < 0)
        return rc;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        rc = gar_db_fault(err, path, "open to copy", db);
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "VACUUM INTO ?1", -1, &st, NULL) != SQLITE_OK) {
        rc = gar_db_fault(err, path, "copy", db);
    } else {
        sqlite3_bind_text(st, 1, into, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = gar_db_fault(err, path, "copy", db);
    }
    sqlite3_finalize(st);
    /* The last connection to close checkpoints the log into the file and
     * removes it. */
    sqlite3_close(db);
    return rc;
}

int gar_db_other_builds(gar_db *s, uint64_t *runs, gar_error *err)
{
    sqlite3_stmt *st = NULL;
    *runs = 0;
    if (sqlite3_prepare_v2(s->sqlite,
                           "SELECT count(*) FROM runs WHERE gar_version IS NOT ?1"
                           " OR source_commit IS NOT ?2",
                           -1, &st, NULL) != SQLITE_OK)
        return gar_db_fault(err, s->path, "count the runs of other builds in", s->sqlite);
    sqlite3_bind_text(st, 1, GAR_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, GAR_SOURCE_COMMIT, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *runs = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW
               ? 0
               : gar_db_fault(err, s->path, "count the runs of other builds in", s->sqlite);
}
