/* experiments/sweep/db_convert.c — an older sweep database (schema version
 * 3 or 4) brought up to today's, a step at a time (db_convert.h). */
#include "sweep/db_convert.h"

#include <stdio.h>
#include <stdlib.h>

#include "sweep/db_schema.h"

/* Version 3's verifications as version 4 holds them (inside the
 * conversion's transaction): the table is made anew from today's statement
 * and each row copied, its one real run standing for the envelope
 * (gar_db_verification_run_column_pairs).  A file with no verifications table (made
 * before it existed) gets today's, empty. */
static int rebuild_verifications(gar_db *s, gar_error *err)
{
    static const char doing[] = "convert (schema version 3 to 4) the verifications of";
    sqlite3_stmt *st = NULL;
    char *columns = NULL, *sql = NULL;
    int rc = 0;
    bool existed = false;
    if (sqlite3_prepare_v2(s->sqlite, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                  "name = 'verifications'", -1, &st, NULL) != SQLITE_OK)
        return gar_db_fault(err, s->path, doing, s->sqlite);
    existed = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (existed)
        rc = gar_db_exec(s, "ALTER TABLE verifications RENAME TO verifications_v3", doing, err);
    if (rc == 0)
        rc = gar_db_exec(s, gar_db_verifications_table, doing, err);
    if (rc < 0 || !existed)
        return rc;
    /* The old columns, by name, then the new ones with their version 3 values. */
    size_t size = 4096;
    columns = calloc(1, size);
    sql = calloc(1, 2 * size + 256);
    if (columns == NULL || sql == NULL) {
        free(columns);
        free(sql);
        return gar_error_set(err, GAR_E_IO, 3, s->path, doing, "out of memory");
    }
    char *values = sql + size + 128; /* the SELECT list, built beside */
    size_t nc = 0, nv = 0;
    if (sqlite3_prepare_v2(s->sqlite, "SELECT name FROM pragma_table_info('verifications_v3')", -1,
                           &st, NULL) != SQLITE_OK)
        rc = gar_db_fault(err, s->path, doing, s->sqlite);
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (name == NULL || gar_db_is_verification_run_column(name))
            continue;
        nc += (size_t)snprintf(columns + nc, size - nc, "%s\"%s\"", nc ? ", " : "", name);
        nv += (size_t)snprintf(values + nv, size - nv, "%s\"%s\"", nv ? ", " : "", name);
        if (nc >= size || nv >= size)
            rc = gar_error_set(err, GAR_E_IO, 3, s->path, doing, "too many columns");
    }
    sqlite3_finalize(st);
    for (size_t i = 0; rc == 0 && i < GAR_DB_VERIFICATION_RUN_COLUMNS; i++) {
        nc += (size_t)snprintf(columns + nc, size - nc, ", %s",
                               gar_db_verification_run_column_pairs[i][0]);
        nv += (size_t)snprintf(values + nv, size - nv, ", %s",
                               gar_db_verification_run_column_pairs[i][1]);
        if (nc >= size || nv >= size)
            rc = gar_error_set(err, GAR_E_IO, 3, s->path, doing, "too many columns");
    }
    if (rc == 0) {
        char *copy = malloc(3 * size);
        if (copy == NULL)
            rc = gar_error_set(err, GAR_E_IO, 3, s->path, doing, "out of memory");
        else {
            snprintf(copy, 3 * size, "INSERT INTO verifications (%s) SELECT %s FROM verifications_v3",
                     columns, values);
            rc = gar_db_exec(s, copy, doing, err);
            free(copy);
        }
    }
    if (rc == 0)
        rc = gar_db_exec(s, "DROP TABLE verifications_v3", doing, err);
    free(columns);
    free(sql);
    return rc;
}

/* Version 3 to 4, inside the conversion's transaction: the runs gain the
 * interval columns (NULL: their runs were made without them), the
 * run_notes table is created (empty: no notes were taken) and the
 * verifications rebuilt. */
static int step_3_to_4(gar_db *s, gar_error *err)
{
    static const char doing[] = "convert (schema version 3 to 4)";
    char sql[160];
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < GAR_DB_INTERVALS; i++) {
        snprintf(sql, sizeof sql, "ALTER TABLE runs ADD COLUMN %s %s", gar_db_interval_columns[i],
                 i == 0 ? "REAL" : "INTEGER");
        rc = gar_db_exec(s, sql, doing, err);
    }
    if (rc == 0)
        rc = gar_db_exec(s, gar_db_run_notes_table, doing, err);
    if (rc == 0)
        rc = rebuild_verifications(s, err);
    return rc;
}

/* Version 4 to 5, likewise: the runs gain the auto columns (NULL: their
 * runs were made without them). */
static int step_4_to_5(gar_db *s, gar_error *err)
{
    char sql[160];
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < GAR_DB_AUTO_COLUMNS; i++) {
        snprintf(sql, sizeof sql, "ALTER TABLE runs ADD COLUMN %s INTEGER", gar_db_auto_columns[i]);
        rc = gar_db_exec(s, sql, "convert (schema version 4 to 5)", err);
    }
    return rc;
}

/* Converts an older file (version 3 or 4) to today's version in one
 * transaction, a step at a time.  A file another process converted
 * meanwhile is left as it is.  Only the writers call it: a reader never
 * changes a file. */
int gar_db_convert_to_current(gar_db *s, gar_error *err)
{
    long v = gar_db_schema_version_of(s->sqlite, "main");
    if (v < GAR_DB_SCHEMA_OLDEST || v >= GAR_DB_SCHEMA_VERSION)
        return 0;
    int rc = gar_db_exec(s, "BEGIN IMMEDIATE", "begin converting (to today's schema version)", err);
    if (rc < 0)
        return rc;
    v = gar_db_schema_version_of(s->sqlite, "main");
    if (rc == 0 && v == 3 && (rc = step_3_to_4(s, err)) == 0)
        v = 4;
    if (rc == 0 && v == 4 && (rc = step_4_to_5(s, err)) == 0)
        v = 5;
    if (rc == 0) {
        char sql[96];
        snprintf(sql, sizeof sql, "UPDATE meta SET value = '%ld' WHERE key = 'schema_version'",
                 v);
        rc = gar_db_exec(s, sql, "convert (to today's schema version)", err);
    }
    if (rc == 0)
        return gar_db_exec(s, "COMMIT", "commit the conversion (to today's schema version) of",
                           err);
    sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}
