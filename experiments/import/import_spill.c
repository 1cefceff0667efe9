/* experiments/import/import_spill.c — records in a temporary SQLite database
 * and the mapping as queries over it (import_spill.h).  Each lookup here
 * answers as import_lookup.c's does, with the same order among equal keys; the
 * rules that use them are import_rules.c's. */
#include "import/import_spill.h"
#include "sim/trace/alloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

struct gar_import_spill {
    sqlite3 *db;
    sqlite3_stmt *put_op, *put_call, *put_sync;
    sqlite3_stmt *get_call, *get_span, *get_sync, *get_op, *ops_before, *last_launch;
    bool thread_index; /* call_thread built (only stream inference needs it) */
};

/* SQLite integers are signed: unsigned values are stored shifted by 2^63, so
 * that their order (times) and equality (ids) survive. */
static int64_t to_db(uint64_t v)
{
    return v >= (UINT64_C(1) << 63) ? (int64_t)(v - (UINT64_C(1) << 63))
                                    : (int64_t)v - INT64_MAX - 1;
}

static uint64_t from_db(int64_t v)
{
    return v >= 0 ? (uint64_t)v + (UINT64_C(1) << 63) : (uint64_t)(v + INT64_MAX + 1);
}

static int refuse(sqlite3 *db, int code, gar_error *err)
{
    if (code == SQLITE_NOMEM || db == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import record store", "out of memory");
    return gar_error_set(err, GAR_E_IO, 3, "import record store (temporary SQLite database)",
                         "write", sqlite3_errmsg(db));
}

static int exec(sqlite3 *db, const char *sql, gar_error *err)
{
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : refuse(db, rc, err);
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, gar_error *err)
{
    int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);
    return rc == SQLITE_OK ? 0 : refuse(db, rc, err);
}

/* Steps an insert and resets it. */
static int put(sqlite3 *db, sqlite3_stmt *st, gar_error *err)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : refuse(db, rc, err);
}

void gar_import_spill_close(gar_import_spill *s)
{
    if (s == NULL)
        return;
    sqlite3_stmt *st[] = { s->put_op,  s->put_call, s->put_sync,   s->get_call,    s->get_span,
                           s->get_sync, s->get_op,  s->ops_before, s->last_launch };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++)
        sqlite3_finalize(st[i]);
    sqlite3_close(s->db);
    gar_free(s);
}

int gar_import_spill_op(gar_import_spill *s, const gar_import_op *op, gar_error *err)
{
    sqlite3_stmt *st = s->put_op;
    sqlite3_bind_int64(st, 1, op->process);
    sqlite3_bind_int64(st, 2, op->device);
    sqlite3_bind_int64(st, 3, op->stream);
    sqlite3_bind_int64(st, 4, to_db(op->start_ns));
    sqlite3_bind_int64(st, 5, to_db(op->end_ns));
    sqlite3_bind_int64(st, 6, to_db(op->correlation));
    sqlite3_bind_int(st, 7, op->dtoh_pageable);
    sqlite3_bind_int64(st, 8, to_db(op->name_hash));
    sqlite3_bind_int(st, 9, op->kernel);
    return put(s->db, st, err);
}

int gar_import_spill_call(gar_import_spill *s, const gar_import_call *call, gar_error *err)
{
    sqlite3_stmt *st = s->put_call;
    sqlite3_bind_int64(st, 1, call->process);
    sqlite3_bind_int64(st, 2, to_db(call->correlation));
    sqlite3_bind_int64(st, 3, to_db(call->start_ns));
    sqlite3_bind_int64(st, 4, to_db(call->end_ns));
    sqlite3_bind_int64(st, 5, to_db(call->thread));
    sqlite3_bind_int(st, 6, call->name);
    return put(s->db, st, err);
}

int gar_import_spill_sync(gar_import_spill *s, const gar_import_sync *sync, gar_error *err)
{
    sqlite3_stmt *st = s->put_sync;
    sqlite3_bind_int64(st, 1, sync->process);
    sqlite3_bind_int64(st, 2, to_db(sync->correlation));
    sqlite3_bind_int64(st, 3, sync->device);
    sqlite3_bind_int64(st, 4, sync->stream);
    sqlite3_bind_int64(st, 5, sync->event_stream);
    sqlite3_bind_int64(st, 6, to_db(sync->event_correlation));
    return put(s->db, st, err);
}

int gar_import_spill_open(gar_import *im, gar_error *err)
{
    gar_import_spill *s = gar_calloc(1, sizeof *s);
    if (s == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import record store", "out of memory");
    /* "": a private database in SQLite's temporary directory ($SQLITE_TMPDIR,
     * $TMPDIR, /var/tmp, /usr/tmp, /tmp), created when first written to and
     * unlinked as soon as it is created. */
    int rc = sqlite3_open_v2("", &s->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    char pragmas[160];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = FILE;"
             " PRAGMA cache_size = -%u;",
             GAR_IMPORT_SPILL_CACHE >> 10);
    int out = rc == SQLITE_OK ? 0 : refuse(s->db, rc, err);
    if (out == 0)
        out = exec(s->db, pragmas, err);
    if (out == 0)
        out = exec(s->db,
                   "CREATE TABLE op (process, device, stream, start, end_ns, corr, dtoh, name, kernel);"
                   "CREATE TABLE call (process, corr, start, end_ns, thread, name);"
                   "CREATE TABLE sync (process, corr, device, stream, event_stream, event_corr);"
                   "BEGIN;",
                   err);
    if (out == 0)
        out = prepare(s->db, "INSERT INTO op VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", &s->put_op, err);
    if (out == 0)
        out = prepare(s->db, "INSERT INTO call VALUES (?, ?, ?, ?, ?, ?)", &s->put_call, err);
    if (out == 0)
        out = prepare(s->db, "INSERT INTO sync VALUES (?, ?, ?, ?, ?, ?)", &s->put_sync, err);
    for (size_t i = 0; out == 0 && i < im->ops; i++)
        out = gar_import_spill_op(s, &im->op[i], err);
    for (size_t i = 0; out == 0 && i < im->calls; i++)
        out = gar_import_spill_call(s, &im->call[i], err);
    for (size_t i = 0; out == 0 && i < im->syncs; i++)
        out = gar_import_spill_sync(s, &im->sync[i], err);
    if (out < 0) {
        gar_import_spill_close(s);
        return out;
    }
    gar_free(im->op);
    gar_free(im->call);
    gar_free(im->sync);
    im->op = NULL;
    im->call = NULL;
    im->sync = NULL;
    im->ops = im->ops_cap = im->calls = im->calls_cap = im->syncs = im->syncs_cap = 0;
    im->spill = s;
    return 0;
}

/* The mapping's state: the store and the runs, as import_lookup.c's gar_import_mapper. */
typedef struct spill_mapper {
    gar_import *im;
    gar_import_spill *s;
    gar_import_run *run;
    size_t runs;
    gar_error *err;
    int failed; /* a query's failure (< 0), kept until the caller sees it */
} spill_mapper;

/* Steps a lookup: true with a row, false without (or on failure, kept). */
static bool row_of(spill_mapper *m, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        return true;
    if (rc != SQLITE_DONE && m->failed == 0)
        m->failed = refuse(m->s->db, rc, m->err);
    return false;
}

/* The lookups the rules ask for (import_rules.h), as queries; `ctx` is the
 * spill_mapper.  The launch (or record) call of (process, correlation): the
 * earliest, as in memory. */
static bool find_call(void *ctx, uint32_t process, uint64_t correlation, uint64_t *start)
{
    spill_mapper *m = ctx;
    if (correlation == 0)
        return false;
    sqlite3_stmt *st = m->s->get_call;
    sqlite3_bind_int64(st, 1, process);
    sqlite3_bind_int64(st, 2, to_db(correlation));
    bool found = row_of(m, st);
    if (found)
        *start = from_db(sqlite3_column_int64(st, 0));
    sqlite3_reset(st);
    return found;
}

/* As find_call, with the call's end too. */
static bool find_span(void *ctx, uint32_t process, uint64_t correlation, uint64_t *start,
                      uint64_t *end)
{
    spill_mapper *m = ctx;
    if (correlation == 0)
        return false;
    sqlite3_stmt *st = m->s->get_span;
    sqlite3_bind_int64(st, 1, process);
    sqlite3_bind_int64(st, 2, to_db(correlation));
    bool found = row_of(m, st);
    if (found) {
        *start = from_db(sqlite3_column_int64(st, 0));
        *end = from_db(sqlite3_column_int64(st, 1));
    }
    sqlite3_reset(st);
    return found;
}

static bool find_sync(void *ctx, uint32_t process, uint64_t correlation, gar_import_sync *out)
{
    spill_mapper *m = ctx;
    if (correlation == 0)
        return false;
    sqlite3_stmt *st = m->s->get_sync;
    sqlite3_bind_int64(st, 1, process);
    sqlite3_bind_int64(st, 2, to_db(correlation));
    bool found = row_of(m, st);
    if (found)
        *out = (gar_import_sync){
            .correlation = correlation,
            .process = process,
            .device = (uint32_t)sqlite3_column_int64(st, 0),
            .stream = (uint32_t)sqlite3_column_int64(st, 1),
            .event_stream = (uint32_t)sqlite3_column_int64(st, 2),
            .event_correlation = from_db(sqlite3_column_int64(st, 3)),
        };
    sqlite3_reset(st);
    return found;
}

static bool find_op(void *ctx, uint32_t process, uint64_t correlation, gar_import_op *out)
{
    spill_mapper *m = ctx;
    if (correlation == 0)
        return false;
    sqlite3_stmt *st = m->s->get_op;
    sqlite3_bind_int64(st, 1, process);
    sqlite3_bind_int64(st, 2, to_db(correlation));
    bool found = row_of(m, st);
    if (found)
        *out = (gar_import_op){
            .process = process,
            .correlation = correlation,
            .device = (uint32_t)sqlite3_column_int64(st, 0),
            .stream = (uint32_t)sqlite3_column_int64(st, 1),
            .start_ns = from_db(sqlite3_column_int64(st, 2)),
            .end_ns = from_db(sqlite3_column_int64(st, 3)),
            .dtoh_pageable = sqlite3_column_int(st, 4) != 0,
        };
    sqlite3_reset(st);
    return found;
}

/* The device and stream of the op launched last by the call's thread before
 * the call began.  The index it needs is built on first use. */
static bool last_launch(void *ctx, const gar_import_call *call, uint32_t *device,
                        uint32_t *stream)
{
    spill_mapper *m = ctx;
    if (!m->s->thread_index) {
        if ((m->failed = exec(m->s->db,
                              "CREATE INDEX call_thread ON call (process, thread, start, corr)",
                              m->err)) < 0)
            return false;
        m->s->thread_index = true;
    }
    sqlite3_stmt *st = m->s->last_launch;
    sqlite3_bind_int64(st, 1, call->process);
    sqlite3_bind_int64(st, 2, to_db(call->thread));
    sqlite3_bind_int64(st, 3, to_db(call->start_ns));
    bool found = row_of(m, st);
    if (found) {
        *device = (uint32_t)sqlite3_column_int64(st, 0);
        *stream = (uint32_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_reset(st);
    return found;
}

/* The op of `run` that started last before `before` among those launched no
 * later than `launched_by` (or without a launch in the trace). */
static bool last_op(void *ctx, const gar_import_run *run, uint64_t before, uint64_t launched_by,
                    gar_import_op *out)
{
    spill_mapper *m = ctx;
    sqlite3_stmt *st = m->s->ops_before;
    sqlite3_bind_int64(st, 1, run->process);
    sqlite3_bind_int64(st, 2, run->device);
    sqlite3_bind_int64(st, 3, run->stream);
    sqlite3_bind_int64(st, 4, to_db(before));
    bool found = false;
    while (!found && row_of(m, st)) {
        *out = (gar_import_op){
            .process = run->process,
            .device = run->device,
            .stream = run->stream,
            .start_ns = from_db(sqlite3_column_int64(st, 0)),
            .end_ns = from_db(sqlite3_column_int64(st, 1)),
            .correlation = from_db(sqlite3_column_int64(st, 2)),
        };
        uint64_t launch;
        found = !find_call(m, out->process, out->correlation, &launch) || launch <= launched_by;
    }
    sqlite3_reset(st);
    return found;
}

/* The runs, in (process, device, stream) order. */
static int list_runs(spill_mapper *m)
{
    sqlite3_stmt *st = NULL;
    int out = prepare(m->s->db,
                      "SELECT DISTINCT process, device, stream FROM op"
                      " ORDER BY process, device, stream",
                      &st, m->err);
    size_t cap = 0;
    while (out == 0 && row_of(m, st)) {
        if (m->runs == cap) {
            size_t want = cap == 0 ? 64 : cap * 2;
            gar_import_run *grown = gar_realloc(m->run, want * sizeof *grown);
            if (grown == NULL) {
                out = gar_error_set(m->err, GAR_E_CAPACITY, 2, "import tables", "out of memory");
                break;
            }
            m->run = grown;
            cap = want;
        }
        m->run[m->runs++] = (gar_import_run){ (uint32_t)sqlite3_column_int64(st, 0),
                                              (uint32_t)sqlite3_column_int64(st, 1),
                                              (uint32_t)sqlite3_column_int64(st, 2), 0, 0 };
    }
    sqlite3_finalize(st);
    return out < 0 ? out : m->failed;
}

/* The lookups over the database, for the rules. */
static gar_import_lookup lookup_of(spill_mapper *m)
{
    return (gar_import_lookup){
        .ctx = m,
        .im = m->im,
        .run = m->run,
        .runs = m->runs,
        .call_start = find_call,
        .call_span = find_span,
        .sync = find_sync,
        .op = find_op,
        .last_op = last_op,
        .last_launch = last_launch,
    };
}

/* --wait-on kernel: one row per kernel, in the in-memory mapping's op order
 * (process, device, stream, start, end, correlation) so that rows equal in
 * every field come the same way. */
static int map_kernels(spill_mapper *m, gar_import_rows *rows, gar_import_counts *counts)
{
    sqlite3_stmt *st = NULL;
    int out = prepare(m->s->db,
                      "SELECT process, device, stream, start, end_ns, corr, name FROM op"
                      " WHERE kernel = 1",
                      &st, m->err);
    gar_import_lookup lookup = lookup_of(m);
    while (out == 0 && m->failed == 0 && row_of(m, st)) {
        gar_import_op op = {
            .process = (uint32_t)sqlite3_column_int64(st, 0),
            .device = (uint32_t)sqlite3_column_int64(st, 1),
            .stream = (uint32_t)sqlite3_column_int64(st, 2),
            .start_ns = from_db(sqlite3_column_int64(st, 3)),
            .end_ns = from_db(sqlite3_column_int64(st, 4)),
            .correlation = from_db(sqlite3_column_int64(st, 5)),
            .name_hash = from_db(sqlite3_column_int64(st, 6)),
            .kernel = true,
        };
        out = gar_import_map_kernel(&lookup, &op, rows, counts, m->err);
    }
    sqlite3_finalize(st);
    return out < 0 ? out : m->failed;
}

/* Into `*count`: the calls whose correlation id an earlier call of their
 * process has too (gar_import_counts). */
static int count_duplicate_correlations(sqlite3 *db, uint64_t *count, gar_error *err)
{
    sqlite3_stmt *st = NULL;
    int out = prepare(db,
                      "SELECT count(*) - (SELECT count(*) FROM (SELECT 1 FROM call"
                      " WHERE corr <> ?1 GROUP BY process, corr)) FROM call WHERE corr <> ?1",
                      &st, err);
    if (out == 0) {
        sqlite3_bind_int64(st, 1, to_db(0));
        int rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
            *count = (uint64_t)sqlite3_column_int64(st, 0);
        else
            out = refuse(db, rc, err);
    }
    sqlite3_finalize(st);
    return out;
}

static int map_calls(spill_mapper *m, gar_import_rows *rows, gar_import_counts *counts)
{
    sqlite3_stmt *st = NULL;
    int out = prepare(m->s->db,
                      "SELECT process, corr, start, end_ns, thread, name FROM call"
                      " WHERE name >= 0",
                      &st, m->err);
    gar_import_lookup lookup = lookup_of(m);
    while (out == 0 && m->failed == 0 && row_of(m, st)) {
        gar_import_call call = {
            .process = (uint32_t)sqlite3_column_int64(st, 0),
            .correlation = from_db(sqlite3_column_int64(st, 1)),
            .start_ns = from_db(sqlite3_column_int64(st, 2)),
            .end_ns = from_db(sqlite3_column_int64(st, 3)),
            .thread = from_db(sqlite3_column_int64(st, 4)),
            .name = sqlite3_column_int(st, 5),
        };
        out = gar_import_map_call(&lookup, &call, rows, counts, m->err);
    }
    sqlite3_finalize(st);
    return out < 0 ? out : m->failed;
}

int gar_import_spill_map(gar_import *im, gar_import_rows *rows, gar_import_run **runs, size_t *nruns,
                         gar_import_counts *counts, gar_error *err)
{
    gar_import_spill *s = im->spill;
    spill_mapper m = { .im = im, .s = s, .err = err };
    *runs = NULL;
    *nruns = 0;
    /* Each index is built once, after the inserts: a sort, not a B-tree
     * grown one row at a time.  The covering columns spare table reads. */
    int out = exec(s->db,
                   "COMMIT;"
                   "CREATE INDEX op_stream ON op (process, device, stream, start, end_ns, corr);"
                   "CREATE INDEX op_corr ON op (process, corr, device, stream, start, end_ns, dtoh);"
                   "CREATE INDEX call_corr ON call (process, corr, start, end_ns);"
                   "CREATE INDEX sync_corr ON sync (process, corr);",
                   err);
    if (out == 0)
        out = prepare(s->db,
                      "SELECT start FROM call WHERE process = ? AND corr = ?"
                      " ORDER BY start LIMIT 1",
                      &s->get_call, err);
    if (out == 0)
        out = prepare(s->db,
                      "SELECT start, end_ns FROM call WHERE process = ? AND corr = ?"
                      " ORDER BY start, end_ns LIMIT 1",
                      &s->get_span, err);
    if (out == 0)
        out = prepare(s->db,
                      "SELECT device, stream, event_stream, event_corr FROM sync"
                      " WHERE process = ? AND corr = ? LIMIT 1",
                      &s->get_sync, err);
    if (out == 0)
        out = prepare(s->db,
                      "SELECT device, stream, start, end_ns, dtoh FROM op"
                      " WHERE process = ? AND corr = ? LIMIT 1",
                      &s->get_op, err);
    if (out == 0)
        out = prepare(s->db,
                      "SELECT start, end_ns, corr FROM op"
                      " WHERE process = ?1 AND device = ?2 AND stream = ?3 AND start < ?4"
                      " ORDER BY process DESC, device DESC, stream DESC, start DESC,"
                      " end_ns DESC, corr DESC",
                      &s->ops_before, err);
    if (out == 0)
        out = prepare(s->db,
                      "SELECT o.device, o.stream FROM call AS c"
                      " JOIN op AS o ON o.process = c.process AND o.corr = c.corr"
                      " WHERE c.process = ?1 AND c.thread = ?2 AND c.start < ?3"
                      " AND c.corr <> ?4"
                      " ORDER BY c.process DESC, c.thread DESC, c.start DESC, c.corr DESC"
                      " LIMIT 1",
                      &s->last_launch, err);
    if (out == 0)
        sqlite3_bind_int64(s->last_launch, 4, to_db(0));
    if (out == 0)
        out = list_runs(&m);
    if (out == 0)
        out = count_duplicate_correlations(s->db, &counts->duplicate_correlation, err);
    if (out == 0)
        out = im->options.wait_on == GAR_IMPORT_WAIT_ON_KERNEL ? map_kernels(&m, rows, counts)
                                                               : map_calls(&m, rows, counts);
    *runs = m.run;
    *nruns = m.runs;
    return out;
}
