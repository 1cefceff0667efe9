/* experiments/import_nsys.c — Nsight Systems SQLite exports.
 *
 * Reads, with plain SELECTs on a read-only connection:
 *   CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET   GPU ops: start, end (ns),
 *       deviceId, streamId, correlationId; a copy is device-to-pageable-host
 *       when copyKind = 2 (DtoH) and dstKind = 1 (pageable), CUPTI's enums
 *   CUPTI_ACTIVITY_KIND_RUNTIME                    host calls: start, end,
 *       correlationId, nameId -> StringIds.value ("cudaMemcpy_v3020")
 *   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION            correlationId, deviceId,
 *       streamId (stream syncs; CUPTI writes -1 / 2^32-1 when none)
 * Nsight writes a table only when it has rows, so of the GPU-op tables at
 * least one must exist, and SYNCHRONIZATION is optional (without it a stream
 * sync is mapped only when the device has a single stream).  StringIds and
 * RUNTIME are required.  An event sync's stream is not in the export (the
 * record call's stream argument is not traced), so event syncs are mapped by
 * the single-stream rule too. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include "import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

static int refuse_table(gar_error *err, const char *path, const char *table, const char *fault)
{
    return gar_error_set(err, GAR_E_INVALID_TRACE, 4, path, table, "", fault); /* no column */
}

static int refuse_sqlite(gar_error *err, const char *path, const char *table, sqlite3 *db)
{
    int code = sqlite3_errcode(db);
    if (code == SQLITE_NOMEM)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for reading the export", "exhausted");
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
        return refuse_table(err, path, table, sqlite3_errmsg(db));
    if (code == SQLITE_ERROR) /* a missing column, or a wrong type of table */
        return refuse_table(err, path, table, sqlite3_errmsg(db));
    return gar_error_set(err, GAR_E_IO, 3, path, "query", sqlite3_errmsg(db));
}

/* 1 when the table exists, 0 when not, or a negated code. */
static int has_table(sqlite3 *db, const char *path, const char *table, gar_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return refuse_sqlite(err, path, "sqlite_master", db);
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    if (step == SQLITE_ROW)
        return 1;
    if (step == SQLITE_DONE)
        return 0;
    return refuse_sqlite(err, path, "sqlite_master", db);
}

/* An id column: a value in 0 .. 2^32-2, else GAR_IMPORT_ANY (NULL, -1, ...). */
static uint32_t id_column(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
        return GAR_IMPORT_ANY;
    sqlite3_int64 v = sqlite3_column_int64(st, col);
    return v >= 0 && v < (sqlite3_int64)UINT32_MAX ? (uint32_t)v : GAR_IMPORT_ANY;
}

static uint64_t u64_column(sqlite3_stmt *st, int col)
{
    sqlite3_int64 v = sqlite3_column_int64(st, col);
    return v > 0 ? (uint64_t)v : 0;
}

/* Where a query's rows go, one at a time: 0 to go on, or a negated code. */
typedef int (*row_fn)(sqlite3_stmt *st, const char *path, const char *table, void *sink,
                      gar_error *err);

/* Runs `sql` (which reads `table`) and hands each row to `row`; the one place
 * a statement is prepared, stepped and finalized.  Returns 0 or the first
 * negated code, from SQLite (naming the table) or from `row`. */
static int for_each_row(sqlite3 *db, const char *path, const char *table, const char *sql,
                        row_fn row, void *sink, gar_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        int rc = refuse_sqlite(err, path, table, db);
        sqlite3_finalize(st);
        return rc;
    }
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = row(st, path, table, sink, err);
    if (rc == 0 && step != SQLITE_DONE)
        rc = refuse_sqlite(err, path, table, db);
    sqlite3_finalize(st);
    return rc;
}

/* A row's start and end (columns 0 and 1), refused when negative or reversed. */
static int row_times(sqlite3_stmt *st, const char *path, const char *table, uint64_t *start,
                     uint64_t *end, gar_error *err)
{
    sqlite3_int64 s = sqlite3_column_int64(st, 0), e = sqlite3_column_int64(st, 1);
    if (s < 0 || e < s)
        return refuse_table(err, path, table, "a row with a negative time, or end before start");
    *start = (uint64_t)s;
    *end = (uint64_t)e;
    return 0;
}

/* A GPU op table's sink: the import, and whether rows carry a copy's kinds. */
typedef struct op_sink {
    gar_import *im;
    bool is_memcpy;
} op_sink;

static int add_op_row(sqlite3_stmt *st, const char *path, const char *table, void *sink,
                      gar_error *err)
{
    const op_sink *ops = sink;
    gar_import_op op = { 0, 0, u64_column(st, 4), id_column(st, 2), id_column(st, 3),
                         ops->is_memcpy && sqlite3_column_int64(st, 5) == 2 &&
                             sqlite3_column_int64(st, 6) == 1 };
    int rc = row_times(st, path, table, &op.start_ns, &op.end_ns, err);
    if (rc < 0)
        return rc;
    if (op.device == GAR_IMPORT_ANY || op.stream == GAR_IMPORT_ANY)
        return refuse_table(err, path, table, "a GPU op without a deviceId and streamId");
    rc = gar_import_add_op(ops->im, &op, err);
    return rc < 0 ? rc : 0;
}

static int read_ops(sqlite3 *db, const char *path, const char *table, bool is_memcpy,
                    gar_import *im, gar_error *err)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT start, end, deviceId, streamId, correlationId%s FROM %s",
             is_memcpy ? ", copyKind, dstKind" : "", table);
    op_sink sink = { im, is_memcpy };
    return for_each_row(db, path, table, sql, add_op_row, &sink, err);
}

static int add_call_row(sqlite3_stmt *st, const char *path, const char *table, void *sink,
                        gar_error *err)
{
    gar_import_call call = { 0, 0, u64_column(st, 2), -1 };
    int rc = row_times(st, path, table, &call.start_ns, &call.end_ns, err);
    if (rc < 0)
        return rc;
    const unsigned char *name = sqlite3_column_text(st, 3);
    if (name != NULL)
        call.name = gar_import_sync_name((const char *)name, (size_t)sqlite3_column_bytes(st, 3));
    if (call.correlation == 0 && call.name < 0)
        return 0;
    rc = gar_import_add_call(sink, &call, err);
    return rc < 0 ? rc : 0;
}

static int read_calls(sqlite3 *db, const char *path, gar_import *im, gar_error *err)
{
    return for_each_row(db, path, "CUPTI_ACTIVITY_KIND_RUNTIME",
                        "SELECT r.start, r.end, r.correlationId, s.value"
                        " FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r"
                        " LEFT JOIN StringIds AS s ON s.id = r.nameId",
                        add_call_row, im, err);
}

static int add_sync_row(sqlite3_stmt *st, const char *path, const char *table, void *sink,
                        gar_error *err)
{
    (void)path;
    (void)table;
    gar_import_sync sync = { u64_column(st, 0), id_column(st, 1), id_column(st, 2),
                             GAR_IMPORT_ANY, 0 };
    if (sync.correlation == 0)
        return 0;
    int rc = gar_import_add_sync(sink, &sync, err);
    return rc < 0 ? rc : 0;
}

static int read_syncs(sqlite3 *db, const char *path, gar_import *im, gar_error *err)
{
    return for_each_row(db, path, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                        "SELECT correlationId, deviceId, streamId"
                        " FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                        add_sync_row, im, err);
}

static int read_export(sqlite3 *db, const char *path, gar_import *im, gar_error *err)
{
    static const char *const required[] = { "StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME" };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        int has = has_table(db, path, required[i], err);
        if (has < 0)
            return has;
        if (has == 0)
            return refuse_table(err, path, required[i],
                                "the table is missing (export with CUDA tracing on)");
    }
    static const struct {
        const char *table;
        bool is_memcpy;
    } op_tables[] = {
        { "CUPTI_ACTIVITY_KIND_KERNEL", false },
        { "CUPTI_ACTIVITY_KIND_MEMCPY", true },
        { "CUPTI_ACTIVITY_KIND_MEMSET", false },
    };
    int op_tables_found = 0;
    for (size_t i = 0; i < sizeof op_tables / sizeof op_tables[0]; i++) {
        int has = has_table(db, path, op_tables[i].table, err);
        if (has < 0)
            return has;
        if (has == 0)
            continue;
        op_tables_found++;
        int rc = read_ops(db, path, op_tables[i].table, op_tables[i].is_memcpy, im, err);
        if (rc < 0)
            return rc;
    }
    if (op_tables_found == 0)
        return refuse_table(err, path, "CUPTI_ACTIVITY_KIND_KERNEL",
                            "the table is missing, and so are _MEMCPY and _MEMSET"
                            " (no GPU work in the export)");
    int rc = read_calls(db, path, im, err);
    if (rc < 0)
        return rc;
    int has = has_table(db, path, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", err);
    if (has <= 0)
        return has;
    return read_syncs(db, path, im, err);
}

int gar_import_nsys_file(const char *path, gar_trace *out, gar_import_counts *counts,
                         gar_error *err)
{
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_nsys_file",
                             path == NULL ? "path" : "out", "is NULL");
    gar_trace_init(out);
    if (counts != NULL)
        memset(counts, 0, sizeof *counts);
    /* SQLite says "unable to open database file" of a missing file and
     * "disk I/O error" of a folder; the system's words say which. */
    struct stat st;
    if (stat(path, &st) != 0)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    if (S_ISDIR(st.st_mode))
        return gar_error_set(err, GAR_E_IO, 3, path, "read", strerror(EISDIR));
    sqlite3 *db = NULL;
    int opened = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (opened != SQLITE_OK) {
        int rc = db == NULL || opened == SQLITE_NOMEM
                     ? gar_error_set(err, GAR_E_CAPACITY, 2, "memory for reading the export",
                                     "exhausted")
                     : gar_error_set(err, GAR_E_IO, 3, path, "open", sqlite3_errmsg(db));
        sqlite3_close(db);
        return rc;
    }
    gar_import im;
    gar_import_init(&im);
    int rc = read_export(db, path, &im, err);
    sqlite3_close(db);
    if (rc == 0)
        rc = gar_import_finish(&im, path, out, counts, err);
    gar_import_free(&im);
    return rc;
}
