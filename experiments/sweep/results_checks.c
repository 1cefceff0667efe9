/* experiments/sweep/results_checks.c — what a sweep database must hold to be
 * read back (results.h): gar_results_check_rows (each ok run's required
 * metrics) and gar_results_check_sources (what a re-run of its runs needs). */
#define _POSIX_C_SOURCE 200809L
#include "sweep/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/replay_metric_table.h"
#include "sweep/format.h"

/* The metrics an ok run must have (GAR_METRIC_REQUIRED): their columns, and
 * how many. */
#define REQUIRED_COLUMN(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...)                               \
    (GAR_METRIC_USES(__VA_ARGS__) & GAR_METRIC_REQUIRED ? #NAME UNIT : NULL),
static const char *const required_columns[] = {
    GAR_REPLAY_METRICS(REQUIRED_COLUMN, REQUIRED_COLUMN)
};
#undef REQUIRED_COLUMN

int gar_results_check_rows(gar_db *db, gar_error *err)
{
    /* The columns the plots and the report read, and a re-run compares. */
    char sql[1024];
    size_t n = (size_t)gar_format(sql, sizeof sql, "SELECT id FROM runs WHERE status = 'ok' AND (0");
    for (size_t i = 0; i < sizeof required_columns / sizeof required_columns[0]; i++)
        if (required_columns[i] != NULL && n < sizeof sql)
            n += (size_t)gar_format(sql + n, sizeof sql - n, " OR %s IS NULL", required_columns[i]);
    if (n < sizeof sql)
        gar_format(sql + n, sizeof sql - n, ") ORDER BY id LIMIT 1");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "check the runs of", err);
    int rc = sqlite3_step(st);
    long long id = rc == SQLITE_ROW ? (long long)sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc != SQLITE_ROW)
        return gar_results_fault(db, "check the runs of", err);
    char what[64];
    gar_format(what, sizeof what, "read run %lld of", id);
    return gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), what,
                         "its status is 'ok' but its metrics are missing (a damaged or edited "
                         "database)");
}

/* Loads the trace of `source` and checks its hash is still `hash`. */
static int check_trace(gar_db *db, const char *hash, const char *source, gar_error *err)
{
    gar_sweep_trace trace;
    int rc = gar_sweep_trace_load(source, NULL, &trace, err);
    if (rc < 0)
        return rc;
    if (strcmp(trace.hash, hash) != 0) {
        char why[160];
        gar_format(why, sizeof why, "its content hash is now %s, not the sweep's %s", trace.hash,
                   hash);
        rc = gar_error_set(err, GAR_E_IO, 3, source, "re-run the trace", why);
    }
    gar_sweep_trace_free(&trace);
    (void)db;
    return rc;
}

int gar_results_check_sources(gar_db *db, const char *trace, gar_error *err)
{
    static const char traces_sql[] =
        "SELECT t.trace, t.source FROM traces t WHERE t.trace IN"
        " (SELECT DISTINCT trace FROM runs WHERE status = 'ok' AND (?1 IS NULL OR trace = ?1))"
        " ORDER BY t.trace";
    static const char hosts_sql[] =
        "SELECT h.host, h.name, h.profile FROM hosts h WHERE h.host IN"
        " (SELECT DISTINCT host FROM runs WHERE status = 'ok' AND (?1 IS NULL OR trace = ?1))"
        " ORDER BY h.host";
    sqlite3 *sqlite = gar_db_sqlite(db);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(sqlite, traces_sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "read the traces of", err);
    sqlite3_bind_text(st, 1, trace, -1, SQLITE_STATIC);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        char hash[GAR_RESULTS_TEXT];
        gar_results_copy_text(st, 0, hash, sizeof hash);
        const unsigned char *source = sqlite3_column_text(st, 1);
        char *copy = strdup(source != NULL ? (const char *)source : "");
        if (copy == NULL)
            rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a trace check", "exhausted");
        else
            rc = check_trace(db, hash, copy, err);
        free(copy);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = gar_results_fault(db, "read the traces of", err);
    sqlite3_finalize(st);
    if (rc < 0)
        return rc;
    if (sqlite3_prepare_v2(sqlite, hosts_sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "read the hosts of", err);
    sqlite3_bind_text(st, 1, trace, -1, SQLITE_STATIC);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        char name[GAR_RESULTS_TEXT], short_name[GAR_RESULTS_TEXT];
        gar_results_copy_text(st, 1, name, sizeof name);
        gar_results_short_name(name, short_name, sizeof short_name);
        const char *text = (const char *)sqlite3_column_text(st, 2);
        gar_host_profile host;
        rc = gar_host_profile_parse(text != NULL ? text : "", text != NULL ? strlen(text) : 0,
                                    short_name, &host, err);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = gar_results_fault(db, "read the hosts of", err);
    sqlite3_finalize(st);
    return rc;
}
