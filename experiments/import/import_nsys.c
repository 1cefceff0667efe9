/* experiments/import/import_nsys.c — Nsight Systems SQLite exports.
 *
 * Reads, with plain SELECTs on a read-only connection:
 *   CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET   GPU ops: start, end (ns),
 *       deviceId, streamId, correlationId; a copy is device-to-pageable-host
 *       when copyKind = 2 (DtoH) and dstKind = 1 (pageable), CUPTI's enums
 *   CUPTI_ACTIVITY_KIND_RUNTIME                    host calls: start, end,
 *       correlationId, nameId -> StringIds.value ("cudaMemcpy_v3020")
 *   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION            correlationId, deviceId,
 *       streamId (stream syncs; CUPTI writes -1 / 2^32-1 when none)
 * With --wait-on kernel, a kernel's name is read too: demangledName (else
 * shortName) -> StringIds.value.
 * Nsight writes a table only when it has rows, so of the GPU-op tables at
 * least one must exist, and SYNCHRONIZATION is optional (without it a stream
 * sync is mapped only when the device has a single stream).  StringIds and
 * RUNTIME are required.  An event sync's stream is not in the export (the
 * record call's stream argument is not traced), so event syncs are mapped by
 * the single-stream rule too (or inferred, see import.h).
 *
 * Every process in the export is read: a row's process is the pid in its
 * globalPid (GPU ops, syncs) or globalTid (runtime calls), bits 24..47 of
 * Nsight's serialized ids, and correlation and stream ids are joined only
 * within a process.  Columns are read strictly: a time must be a non-negative
 * INTEGER, an id an INTEGER in its range (NULL only where it means "none"), so
 * a TEXT '4321xyz' or a NULL start is refused, never read as 4321 or 0.  The
 * tables may be views. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include "import/import.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "import/content_hash.h"

/* A fault of a table as a whole. */
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

/* 1 when the table (or a view of that name) exists, 0 when not, or a negated code. */
static int has_table(sqlite3 *db, const char *path, const char *table, gar_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT 1 FROM sqlite_master"
                           " WHERE type IN ('table', 'view') AND name = ?1",
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

/* One query's rows, read in turn, with what a refusal names. */
typedef struct rows {
    sqlite3_stmt *st;
    const char *path, *table;
    const char *const *column; /* the selected columns' names */
    uint64_t row;              /* 1-based */
    gar_import *im;
    gar_error *err;
    bool is_memcpy;
    bool is_kernel;
    const char *name_column;   /* --wait-on kernel: the kernel table's name column, else NULL */
    uint64_t last_pid;         /* a one-entry cache of the process index */
    uint32_t last_process;
    bool have_last;
} rows;

static int refuse_cell(rows *r, int col, const char *fault)
{
    char where[96];
    snprintf(where, sizeof where, "%s row %llu", r->table, (unsigned long long)r->row);
    return gar_error_set(r->err, GAR_E_INVALID_TRACE, 4, r->path, where, r->column[col], fault);
}

static const char *type_name(int type)
{
    switch (type) {
    case SQLITE_FLOAT:
        return "a REAL where an INTEGER is needed";
    case SQLITE_TEXT:
        return "TEXT where an INTEGER is needed";
    case SQLITE_BLOB:
        return "a BLOB where an INTEGER is needed";
    default:
        return "NULL where an INTEGER is needed";
    }
}

/* An INTEGER cell in min .. max; NULL gives `null_value` when `null_ok`. */
static int int_cell(rows *r, int col, sqlite3_int64 min, sqlite3_int64 max, bool null_ok,
                    sqlite3_int64 null_value, sqlite3_int64 *out)
{
    int type = sqlite3_column_type(r->st, col);
    if (type == SQLITE_NULL && null_ok) {
        *out = null_value;
        return 0;
    }
    if (type != SQLITE_INTEGER)
        return refuse_cell(r, col, type_name(type));
    sqlite3_int64 v = sqlite3_column_int64(r->st, col);
    if (v < min || v > max)
        return refuse_cell(r, col, v < 0 ? "a negative value" : "a value past its type's range");
    *out = v;
    return 0;
}

/* A time (ns): a non-negative INTEGER, never NULL. */
static int time_cell(rows *r, int col, uint64_t *out)
{
    sqlite3_int64 v = 0; /* read below even when refused */
    int rc = int_cell(r, col, 0, INT64_MAX, false, 0, &v);
    *out = (uint64_t)v;
    return rc;
}

/* A row's start and end (columns 0 and 1), refused when reversed. */
static int row_times(rows *r, uint64_t *start, uint64_t *end)
{
    int rc = time_cell(r, 0, start);
    if (rc == 0)
        rc = time_cell(r, 1, end);
    if (rc == 0 && *end < *start)
        rc = refuse_cell(r, 1, "end before start");
    return rc;
}

/* A device or stream id: 0 .. 2^32-2; with `none_ok`, -1, 2^32-1 and NULL
 * mean none (GAR_IMPORT_ANY), as CUPTI writes them. */
static int id32_cell(rows *r, int col, bool none_ok, uint32_t *out)
{
    sqlite3_int64 v = 0; /* read below even when refused */
    int rc = int_cell(r, col, none_ok ? -1 : 0, none_ok ? UINT32_MAX : UINT32_MAX - 1, none_ok,
                      -1, &v);
    *out = v < 0 || v == UINT32_MAX ? GAR_IMPORT_ANY : (uint32_t)v;
    return rc;
}

/* A correlation id: a non-negative INTEGER; NULL (or 0) is none. */
static int correlation_cell(rows *r, int col, uint64_t *out)
{
    sqlite3_int64 v = 0; /* read below even when refused */
    int rc = int_cell(r, col, 0, INT64_MAX, true, 0, &v);
    *out = (uint64_t)v;
    return rc;
}

/* The process of a row from its serialized globalPid or globalTid: the pid
 * is bits 24..47.  Sets *skip for a row of a process not asked for. */
static int process_cell(rows *r, int col, uint32_t *process, uint64_t *whole, bool *skip)
{
    sqlite3_int64 v = 0; /* read below even when refused */
    int rc = int_cell(r, col, 0, INT64_MAX, false, 0, &v);
    if (rc < 0)
        return rc;
    *whole = (uint64_t)v;
    uint64_t pid = ((uint64_t)v >> 24) & 0xFFFFFF;
    const gar_import_options *o = &r->im->options;
    *skip = o->one_process && pid != o->process;
    if (*skip)
        return 0;
    if (r->have_last && r->last_pid == pid) {
        *process = r->last_process;
        return 0;
    }
    rc = gar_import_process(r->im, pid, process, r->err);
    if (rc == 0) {
        r->have_last = true;
        r->last_pid = pid;
        r->last_process = *process;
    }
    return rc;
}

/* Where a query's rows go, one at a time: 0 to go on, or a negated code. */
typedef int (*row_fn)(rows *r);

/* Runs `sql` (which reads `r->table`) and hands each row to `row`; the one
 * place a statement is prepared, stepped and finalized.  Returns 0 or the
 * first negated code, from SQLite (naming the table) or from `row`. */
static int for_each_row(sqlite3 *db, rows *r, const char *sql, row_fn row)
{
    if (sqlite3_prepare_v2(db, sql, -1, &r->st, NULL) != SQLITE_OK) {
        int rc = refuse_sqlite(r->err, r->path, r->table, db);
        sqlite3_finalize(r->st);
        return rc;
    }
    int step, rc = 0;
    while (rc == 0 && (step = sqlite3_step(r->st)) == SQLITE_ROW) {
        r->row++;
        rc = row(r);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = refuse_sqlite(r->err, r->path, r->table, db);
    sqlite3_finalize(r->st);
    r->st = NULL;
    return rc;
}

static int add_op_row(rows *r)
{
    gar_import_op op = { 0 };
    uint64_t whole;
    bool skip = false;
    sqlite3_int64 copy_kind = 0, dst_kind = 0;
    int rc = row_times(r, &op.start_ns, &op.end_ns);
    if (rc == 0)
        rc = id32_cell(r, 2, false, &op.device);
    if (rc == 0)
        rc = id32_cell(r, 3, false, &op.stream);
    if (rc == 0)
        rc = correlation_cell(r, 4, &op.correlation);
    if (rc == 0)
        rc = process_cell(r, 5, &op.process, &whole, &skip);
    if (rc == 0 && r->is_memcpy) {
        rc = int_cell(r, 6, INT32_MIN, INT32_MAX, true, 0, &copy_kind);
        if (rc == 0)
            rc = int_cell(r, 7, INT32_MIN, INT32_MAX, true, 0, &dst_kind);
    }
    if (rc == 0 && r->name_column != NULL) {
        int type = sqlite3_column_type(r->st, 6);
        if (type != SQLITE_NULL && type != SQLITE_TEXT)
            rc = refuse_cell(r, 6, "a name that is not TEXT");
        const unsigned char *name = rc == 0 ? sqlite3_column_text(r->st, 6) : NULL;
        op.name_hash = gar_hash_bytes(GAR_HASH_OFFSET, name != NULL ? name : (const unsigned char *)"",
                                      name != NULL ? (size_t)sqlite3_column_bytes(r->st, 6) : 0);
    }
    if (rc < 0 || skip)
        return rc;
    op.dtoh_pageable = copy_kind == 2 && dst_kind == 1;
    op.kernel = r->is_kernel;
    rc = gar_import_add_op(r->im, &op, r->err);
    return rc < 0 ? rc : 0;
}

static int read_ops(sqlite3 *db, rows *r)
{
    static const char *const columns[] = { "start",         "end",       "deviceId",
                                           "streamId",      "correlationId", "globalPid",
                                           "copyKind",      "dstKind" };
    const char *const named[] = { "start",    "end",           "deviceId",
                                  "streamId", "correlationId", "globalPid",
                                  r->name_column };
    char sql[384];
    if (r->name_column != NULL)
        snprintf(sql, sizeof sql,
                 "SELECT o.start, o.end, o.deviceId, o.streamId, o.correlationId, o.globalPid,"
                 " s.value FROM %s AS o LEFT JOIN StringIds AS s ON s.id = o.%s",
                 r->table, r->name_column);
    else
        snprintf(sql, sizeof sql,
                 "SELECT start, end, deviceId, streamId, correlationId, globalPid%s FROM %s",
                 r->is_memcpy ? ", copyKind, dstKind" : "", r->table);
    r->column = r->name_column != NULL ? named : columns;
    return for_each_row(db, r, sql, add_op_row);
}

/* Whether `table` has `column` (a query naming it compiles). */
static bool has_column(sqlite3 *db, const char *table, const char *column)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT %s FROM %s LIMIT 0", column, table);
    sqlite3_stmt *st = NULL;
    bool has = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK;
    sqlite3_finalize(st);
    return has;
}

static int add_call_row(rows *r)
{
    gar_import_call call = { .name = -1 };
    bool skip = false;
    int rc = row_times(r, &call.start_ns, &call.end_ns);
    if (rc == 0)
        rc = correlation_cell(r, 2, &call.correlation);
    if (rc == 0)
        rc = process_cell(r, 4, &call.process, &call.thread, &skip);
    if (rc < 0 || skip)
        return rc;
    int type = sqlite3_column_type(r->st, 3);
    if (type != SQLITE_NULL && type != SQLITE_TEXT)
        return refuse_cell(r, 3, "a name that is not TEXT");
    const unsigned char *name = sqlite3_column_text(r->st, 3);
    if (name != NULL)
        call.name = gar_import_sync_name((const char *)name,
                                         (size_t)sqlite3_column_bytes(r->st, 3));
    if (call.correlation == 0 && call.name < 0)
        return 0;
    rc = gar_import_add_call(r->im, &call, r->err);
    return rc < 0 ? rc : 0;
}

static int read_calls(sqlite3 *db, rows *r)
{
    static const char *const columns[] = { "start", "end", "correlationId", "nameId",
                                           "globalTid" };
    r->table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    r->column = columns;
    return for_each_row(db, r,
                        "SELECT r.start, r.end, r.correlationId, s.value, r.globalTid"
                        " FROM CUPTI_ACTIVITY_KIND_RUNTIME AS r"
                        " LEFT JOIN StringIds AS s ON s.id = r.nameId",
                        add_call_row);
}

static int add_sync_row(rows *r)
{
    gar_import_sync sync = { .event_stream = GAR_IMPORT_ANY };
    uint64_t whole;
    bool skip = false;
    int rc = correlation_cell(r, 0, &sync.correlation);
    if (rc == 0)
        rc = id32_cell(r, 1, true, &sync.device);
    if (rc == 0)
        rc = id32_cell(r, 2, true, &sync.stream);
    if (rc == 0)
        rc = process_cell(r, 3, &sync.process, &whole, &skip);
    if (rc < 0 || skip || sync.correlation == 0)
        return rc;
    rc = gar_import_add_sync(r->im, &sync, r->err);
    return rc < 0 ? rc : 0;
}

static int read_syncs(sqlite3 *db, rows *r)
{
    static const char *const columns[] = { "correlationId", "deviceId", "streamId",
                                           "globalPid" };
    r->table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
    r->column = columns;
    return for_each_row(db, r,
                        "SELECT correlationId, deviceId, streamId, globalPid"
                        " FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                        add_sync_row);
}

/* A fresh row reader over `table`. */
static rows rows_of(const char *path, const char *table, gar_import *im, gar_error *err)
{
    return (rows){ .path = path, .table = table, .im = im, .err = err };
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
        bool is_memcpy, is_kernel;
    } op_tables[] = {
        { "CUPTI_ACTIVITY_KIND_KERNEL", false, true },
        { "CUPTI_ACTIVITY_KIND_MEMCPY", true, false },
        { "CUPTI_ACTIVITY_KIND_MEMSET", false, false },
    };
    int op_tables_found = 0;
    for (size_t i = 0; i < sizeof op_tables / sizeof op_tables[0]; i++) {
        int has = has_table(db, path, op_tables[i].table, err);
        if (has < 0)
            return has;
        if (has == 0)
            continue;
        op_tables_found++;
        rows r = rows_of(path, op_tables[i].table, im, err);
        r.is_memcpy = op_tables[i].is_memcpy;
        r.is_kernel = op_tables[i].is_kernel;
        /* A kernel's point hashes its name: the demangled one, as Kineto
         * writes it, where the export has it. */
        if (r.is_kernel && im->options.wait_on == GAR_IMPORT_WAIT_ON_KERNEL)
            r.name_column = has_column(db, r.table, "demangledName") ? "demangledName"
                                                                     : "shortName";
        int rc = read_ops(db, &r);
        if (rc < 0)
            return rc;
    }
    if (op_tables_found == 0)
        return refuse_table(err, path, "CUPTI_ACTIVITY_KIND_KERNEL",
                            "the table is missing, and so are _MEMCPY and _MEMSET"
                            " (no GPU work in the export)");
    rows calls = rows_of(path, NULL, im, err);
    int rc = read_calls(db, &calls);
    if (rc < 0)
        return rc;
    int has = has_table(db, path, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", err);
    if (has < 0)
        return has;
    if (has > 0) {
        rows syncs = rows_of(path, NULL, im, err);
        rc = read_syncs(db, &syncs);
        if (rc < 0)
            return rc;
    }
    if (im->options.one_process && im->processes == 0) {
        char fault[96];
        snprintf(fault, sizeof fault, "process %u is not in the export",
                 (unsigned)im->options.process);
        return refuse_table(err, path, "globalPid", fault);
    }
    return 0;
}

int gar_import_nsys_file_to(const char *path, const gar_import_options *options,
                            const gar_import_sink *sink, gar_import_counts *counts,
                            gar_error *err)
{
    if (counts != NULL)
        memset(counts, 0, sizeof *counts);
    if (path == NULL || sink == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_nsys_file",
                             path == NULL ? "path" : "sink", "is NULL");
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
    if (options != NULL)
        im.options = *options;
    int rc = read_export(db, path, &im, err);
    sqlite3_close(db);
    if (rc == 0)
        rc = gar_import_finish_to(&im, path, sink, counts, err);
    gar_import_free(&im);
    return rc;
}

int gar_import_nsys_file_with(const char *path, const gar_import_options *options,
                              gar_trace *out, gar_import_counts *counts,
                              gar_import_legend *legend, gar_error *err)
{
    if (legend != NULL)
        memset(legend, 0, sizeof *legend);
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_nsys_file",
                             path == NULL ? "path" : "out", "is NULL");
    gar_import_to_trace t;
    gar_import_sink sink = gar_import_trace_sink(&t, out, legend);
    int rc = gar_import_nsys_file_to(path, options, &sink, counts, err);
    return gar_import_trace_sink_end(&t, path, rc, err);
}

int gar_import_nsys_file(const char *path, gar_trace *out, gar_import_counts *counts,
                         gar_error *err)
{
    return gar_import_nsys_file_with(path, NULL, out, counts, NULL, err);
}
