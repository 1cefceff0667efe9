/* experiments/import/import_spill.c — records in a temporary SQLite database
 * and the mapping as queries over it (import_spill.h).  Each lookup here
 * mirrors one of import_map.c's, with the same order among equal keys. */
#include "import_spill.h"
#include "alloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

struct gar_import_spill {
    sqlite3 *db;
    sqlite3_stmt *put_op, *put_call, *put_sync;
    sqlite3_stmt *get_call, *get_sync, *get_op, *ops_before, *last_launch;
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
    sqlite3_stmt *st[] = { s->put_op, s->put_call, s->put_sync, s->get_call,
                           s->get_sync, s->get_op, s->ops_before, s->last_launch };
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
                   "CREATE TABLE op (process, device, stream, start, end_ns, corr, dtoh);"
                   "CREATE TABLE call (process, corr, start, end_ns, thread, name);"
                   "CREATE TABLE sync (process, corr, device, stream, event_stream, event_corr);"
                   "BEGIN;",
                   err);
    if (out == 0)
        out = prepare(s->db, "INSERT INTO op VALUES (?, ?, ?, ?, ?, ?, ?)", &s->put_op, err);
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

/* The mapping's state: the store and the runs, as import_map.c's mapper. */
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

/* The launch (or record) call of (process, correlation): the earliest, as
 * find_call.  Returns false when there is none. */
static bool find_call(spill_mapper *m, uint32_t process, uint64_t correlation, uint64_t *start)
{
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

static bool find_sync(spill_mapper *m, uint32_t process, uint64_t correlation,
                      gar_import_sync *out)
{
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

static bool find_op(spill_mapper *m, uint32_t process, uint64_t correlation, gar_import_op *out)
{
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

static int cmp_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

/* The run of exactly (process, device, stream): an op's own run, as run_of. */
static const gar_import_run *exact_run(const spill_mapper *m, uint32_t process, uint32_t device,
                                       uint32_t stream)
{
    size_t lo = 0, hi = m->runs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gar_import_run *r = &m->run[mid];
        int c = cmp_u32(r->process, process);
        if (c == 0)
            c = cmp_u32(r->device, device);
        if (c == 0)
            c = cmp_u32(r->stream, stream);
        if (c == 0)
            return r;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* As import_map.c's find_run: any device for GAR_IMPORT_ANY. */
static const gar_import_run *find_run(const spill_mapper *m, uint32_t process, uint32_t device,
                                      uint32_t stream)
{
    if (device == GAR_IMPORT_ANY) {
        for (size_t i = 0; i < m->runs; i++)
            if (m->run[i].process == process && m->run[i].stream == stream)
                return &m->run[i];
        return NULL;
    }
    return exact_run(m, process, device, stream);
}

static const gar_import_run *only_run(const spill_mapper *m, uint32_t process, uint32_t device)
{
    const gar_import_run *found = NULL;
    for (size_t i = 0; i < m->runs; i++) {
        if (m->run[i].process != process ||
            (device != GAR_IMPORT_ANY && m->run[i].device != device))
            continue;
        if (found != NULL)
            return NULL;
        found = &m->run[i];
    }
    return found;
}

/* As inferred_run: the run of the op launched last by the call's thread
 * before the call began.  The index it needs is built on first use. */
static const gar_import_run *inferred_run(spill_mapper *m, const gar_import_call *call)
{
    if (!m->s->thread_index) {
        if ((m->failed = exec(m->s->db,
                              "CREATE INDEX call_thread ON call (process, thread, start, corr)",
                              m->err)) < 0)
            return NULL;
        m->s->thread_index = true;
    }
    sqlite3_stmt *st = m->s->last_launch;
    sqlite3_bind_int64(st, 1, call->process);
    sqlite3_bind_int64(st, 2, to_db(call->thread));
    sqlite3_bind_int64(st, 3, to_db(call->start_ns));
    const gar_import_run *run = NULL;
    if (row_of(m, st))
        run = exact_run(m, call->process, (uint32_t)sqlite3_column_int64(st, 0),
                        (uint32_t)sqlite3_column_int64(st, 1));
    sqlite3_reset(st);
    return run;
}

/* As last_op: the op of `run` that started last before `before` among those
 * launched no later than `launched_by`. */
static bool last_op(spill_mapper *m, const gar_import_run *run, uint64_t before,
                    uint64_t launched_by, gar_import_op *out)
{
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

typedef struct awaited {
    bool has_op;
    gar_import_op op;
    const gar_import_run *run;
    const gar_import_run *named;
    bool inferred;
} awaited;

/* As import_map.c's find_awaited. */
static bool find_awaited(spill_mapper *m, const gar_import_call *call, awaited *out,
                         gar_import_counts *counts)
{
    gar_sync_kind kind = gar_import_sync_kind(call->name);
    gar_import_sync sync = { 0 };
    bool has_sync = find_sync(m, call->process, call->correlation, &sync);
    uint32_t device = has_sync ? sync.device : GAR_IMPORT_ANY;
    const gar_import_run *run = NULL;
    uint64_t launched_by = call->start_ns;
    memset(out, 0, sizeof *out);

    switch (kind) {
    case GAR_SYNC_MEMCPY:
    case GAR_SYNC_MEMCPY_ASYNC: {
        gar_import_op copy = { 0 };
        bool has_copy = find_op(m, call->process, call->correlation, &copy);
        if (kind == GAR_SYNC_MEMCPY_ASYNC && (!has_copy || !copy.dtoh_pageable))
            return false;
        counts->sync_calls++;
        if (!has_copy) {
            counts->no_gpu_op++;
            return true;
        }
        run = exact_run(m, copy.process, copy.device, copy.stream);
        break;
    }
    case GAR_SYNC_STREAM:
    case GAR_SYNC_EVENT: {
        counts->sync_calls++;
        uint32_t stream = GAR_IMPORT_ANY;
        if (has_sync)
            stream = kind == GAR_SYNC_EVENT && sync.event_stream != GAR_IMPORT_ANY
                         ? sync.event_stream
                         : sync.stream;
        uint64_t recorded;
        if (kind == GAR_SYNC_EVENT && has_sync && sync.event_correlation != 0 &&
            find_call(m, call->process, sync.event_correlation, &recorded) &&
            recorded < launched_by)
            launched_by = recorded;
        if (stream != GAR_IMPORT_ANY) {
            run = find_run(m, call->process, device, stream);
        } else {
            run = only_run(m, call->process, device);
            if (run == NULL && !m->im->options.no_infer) {
                run = inferred_run(m, call);
                out->inferred = run != NULL;
            }
        }
        if (run == NULL) {
            if (stream == GAR_IMPORT_ANY)
                counts->no_stream++;
            else
                counts->no_gpu_op++;
            return true;
        }
        break;
    }
    case GAR_SYNC_DEVICE: {
        counts->sync_calls++;
        for (size_t i = 0; i < m->runs; i++) {
            if (m->run[i].process != call->process ||
                (device != GAR_IMPORT_ANY && m->run[i].device != device))
                continue;
            gar_import_op op = { 0 };
            if (last_op(m, &m->run[i], call->end_ns, launched_by, &op) &&
                (!out->has_op || op.end_ns > out->op.end_ns)) {
                out->has_op = true;
                out->op = op;
                out->run = &m->run[i];
            }
        }
        if (!out->has_op)
            counts->no_gpu_op++;
        return true;
    }
    case GAR_SYNC_NONE:
        return false;
    }
    out->has_op = last_op(m, run, call->end_ns, launched_by, &out->op);
    if (!out->has_op)
        counts->no_gpu_op++;
    out->run = run;
    out->named = run;
    return true;
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

static int map_calls(spill_mapper *m, gar_trace *rows, gar_import_counts *counts)
{
    sqlite3_stmt *st = NULL;
    int out = prepare(m->s->db,
                      "SELECT process, corr, start, end_ns, thread, name FROM call"
                      " WHERE name >= 0",
                      &st, m->err);
    while (out == 0 && m->failed == 0 && row_of(m, st)) {
        gar_import_call call = {
            .process = (uint32_t)sqlite3_column_int64(st, 0),
            .correlation = from_db(sqlite3_column_int64(st, 1)),
            .start_ns = from_db(sqlite3_column_int64(st, 2)),
            .end_ns = from_db(sqlite3_column_int64(st, 3)),
            .thread = from_db(sqlite3_column_int64(st, 4)),
            .name = sqlite3_column_int(st, 5),
        };
        awaited aw;
        if (!find_awaited(m, &call, &aw, counts) || !aw.has_op)
            continue;
        uint64_t submit;
        if (!find_call(m, aw.op.process, aw.op.correlation, &submit)) {
            counts->no_launch++;
            continue;
        }
        uint32_t stream = gar_import_trace_stream(m->im, m->run, aw.run);
        if (stream == UINT32_MAX) {
            counts->no_stream++;
            continue;
        }
        if (aw.op.end_ns < submit) {
            counts->inconsistent++;
            continue;
        }
        uint32_t named =
            aw.named != NULL ? gar_import_trace_stream(m->im, m->run, aw.named) : UINT32_MAX;
        gar_trace_row row = {
            .point = gar_import_point(m->im, call.name, named, call.process),
            .submit_ns = submit,
            .start_ns = call.start_ns,
            .done_ns = aw.op.end_ns,
            .rows = aw.inferred ? 1 : 0,
            .stream = stream,
        };
        out = gar_trace_append(rows, &row, m->err);
    }
    sqlite3_finalize(st);
    return out < 0 ? out : m->failed;
}

int gar_import_spill_map(gar_import *im, gar_trace *rows, gar_import_run **runs, size_t *nruns,
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
                   "CREATE INDEX call_corr ON call (process, corr, start);"
                   "CREATE INDEX sync_corr ON sync (process, corr);",
                   err);
    if (out == 0)
        out = prepare(s->db,
                      "SELECT start FROM call WHERE process = ? AND corr = ?"
                      " ORDER BY start LIMIT 1",
                      &s->get_call, err);
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
        out = map_calls(&m, rows, counts);
    *runs = m.run;
    *nruns = m.runs;
    return out;
}
