/* experiments/sweep/db_insert.c — a writer's prepared statements and what
 * runs through them: gar_db_has, gar_db_insert, gar_db_add_params (db.h),
 * each run its own transaction. */
#include "sweep/db_insert.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sweep/db_schema.h"
#include "sweep/gar_source.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

/* The insert's parameters: 1..14 the key and outcome, then the metrics,
 * then the gar version and source commit, then the intervals, then auto's
 * choices. */
enum {
    METRIC_PARAMETER = 15,
    VERSION_PARAMETER = METRIC_PARAMETER + GAR_DB_METRICS,
    INTERVAL_PARAMETER = VERSION_PARAMETER + 2,
    AUTO_PARAMETER = INTERVAL_PARAMETER + GAR_DB_INTERVALS,
    LAST_PARAMETER = AUTO_PARAMETER + GAR_DB_AUTO_COLUMNS - 1,
};

static const char key_where[] =
    "trace = ?1 AND plan = ?2 AND estimator = ?3 AND host = ?4 AND mode = ?5 AND seed = ?6";

int gar_db_prepare_statements(gar_db *s, gar_error *err)
{
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT 1 FROM runs WHERE %s", key_where);
    if (sqlite3_prepare_v2(s->sqlite, sql, -1, &s->has, NULL) != SQLITE_OK)
        return gar_db_fault(err, s->path, "prepare the key lookup", s->sqlite);
    int n = snprintf(sql, sizeof sql,
                     "INSERT INTO runs (trace, trace_name, plan, estimator, host, host_name, mode, "
                     "seed, status, error_code, error, run_ns, finished_unix, plan_ran");
    for (size_t i = 0; i < GAR_DB_METRICS; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", %s", gar_db_metric_columns[i]);
    n += snprintf(sql + n, sizeof sql - (size_t)n, ", gar_version, source_commit");
    for (size_t i = 0; i < GAR_DB_INTERVALS; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", %s", gar_db_interval_columns[i]);
    for (size_t i = 0; i < GAR_DB_AUTO_COLUMNS; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", %s", gar_db_auto_columns[i]);
    n += snprintf(sql + n, sizeof sql - (size_t)n, ") VALUES (?1");
    for (size_t i = 2; i <= LAST_PARAMETER; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", ?%zu", i);
    snprintf(sql + n, sizeof sql - (size_t)n,
             ") ON CONFLICT (trace, plan, estimator, host, mode, seed) DO NOTHING");
    if (sqlite3_prepare_v2(s->sqlite, sql, -1, &s->insert, NULL) != SQLITE_OK)
        return gar_db_fault(err, s->path, "prepare the insert", s->sqlite);
    if (sqlite3_prepare_v2(s->sqlite,
                           "INSERT INTO run_streams (trace, plan, estimator, host, mode, seed, "
                           "stream, waits, overshoot_p50_ns, overshoot_p99_ns, "
                           "overshoot_max_ns, busy_ns) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                           -1, &s->insert_stream, NULL) != SQLITE_OK)
        return gar_db_fault(err, s->path, "prepare the streams insert", s->sqlite);
    if (sqlite3_prepare_v2(s->sqlite,
                           "INSERT OR IGNORE INTO run_params (trace, plan, estimator, host, mode, "
                           "seed, name, value, number) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                           -1, &s->insert_param, NULL) != SQLITE_OK)
        return gar_db_fault(err, s->path, "prepare the parameter insert", s->sqlite);
    if (sqlite3_prepare_v2(s->sqlite,
                           "INSERT INTO run_notes (trace, plan, estimator, host, mode, seed, "
                           "note, count, worst_ns, message) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                           -1, &s->insert_note, NULL) != SQLITE_OK)
        return gar_db_fault(err, s->path, "prepare the notes insert", s->sqlite);
    return 0;
}

static void bind_key(sqlite3_stmt *st, const gar_db_run *r)
{
    sqlite3_bind_text(st, 1, r->trace, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->plan, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->estimator, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, r->host, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, r->mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)r->seed);
}

int gar_db_has(gar_db *s, const gar_db_run *key, gar_error *err)
{
    bind_key(s->has, key);
    int rc = sqlite3_step(s->has);
    sqlite3_reset(s->has);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return gar_db_fault(err, s->path, "look a run up in", s->sqlite);
}

/* SQLite integers are signed 64-bit; no simulated duration comes near 2^63,
 * but a saturated one is stored as the largest rather than wrapped. */
static sqlite3_int64 as_integer(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)v;
}

/* A metric's bind by its TYPE (sim/replay_metric_table.h). */
static void bind_COUNT(sqlite3_stmt *st, int parameter, uint64_t v)
{
    sqlite3_bind_int64(st, parameter, as_integer(v));
}

static void bind_FRACTION(sqlite3_stmt *st, int parameter, double v)
{
    sqlite3_bind_double(st, parameter, v);
}

/* An interval's end, or NULL (left unbound) when it has none. */
static void bind_end(sqlite3_stmt *st, int parameter, bool present, gar_dur_ns v)
{
    if (present)
        sqlite3_bind_int64(st, parameter, as_integer(v));
}

/* The run_streams rows of run `r`, inside the caller's transaction. */
static int insert_streams(gar_db *s, const gar_db_run *r, gar_error *err)
{
    sqlite3_stmt *st = s->insert_stream;
    for (size_t k = 0; k < r->streams->count; k++) {
        const gar_replay_stream *one = &r->streams->stream[k];
        bind_key(st, r);
        sqlite3_bind_int64(st, 7, (sqlite3_int64)one->stream);
        sqlite3_bind_int64(st, 8, as_integer(one->waits));
        sqlite3_bind_int64(st, 9, as_integer(one->overshoot_ns.p50));
        sqlite3_bind_int64(st, 10, as_integer(one->overshoot_ns.p99));
        sqlite3_bind_int64(st, 11, as_integer(one->overshoot_ns.max));
        sqlite3_bind_int64(st, 12, as_integer(one->busy_ns));
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return gar_db_fault(err, s->path, "store a run's streams in", s->sqlite);
    }
    return 0;
}

/* The value as a number when the whole text is one. */
static bool as_number(const char *text, double *out)
{
    if (text[0] == '\0' || strspn(text, "0123456789.-+eE") != strlen(text))
        return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || errno != 0 || v != v)
        return false;
    *out = v;
    return true;
}

/* The run_params rows of run `r`, inside the caller's transaction. */
static int insert_params(gar_db *s, const gar_db_run *r, gar_error *err)
{
    sqlite3_stmt *st = s->insert_param;
    for (size_t i = 0; i < r->param_count; i++) {
        sqlite3_clear_bindings(st);
        bind_key(st, r);
        sqlite3_bind_text(st, 7, r->params[i].name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 8, r->params[i].value, -1, SQLITE_STATIC);
        double number;
        if (as_number(r->params[i].value, &number))
            sqlite3_bind_double(st, 9, number);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return gar_db_fault(err, s->path, "store a run's parameters in", s->sqlite);
    }
    return 0;
}

/* The run_notes rows of run `r`, inside the caller's transaction. */
static int insert_notes(gar_db *s, const gar_db_run *r, gar_error *err)
{
    sqlite3_stmt *st = s->insert_note;
    for (size_t k = 0; k < r->notes->count; k++) {
        const gar_replay_note *note = &r->notes->note[k];
        sqlite3_clear_bindings(st); /* worst_ns NULL unless bound */
        bind_key(st, r);
        sqlite3_bind_text(st, 7, note->name, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, as_integer(note->count));
        if (note->has_worst)
            sqlite3_bind_int64(st, 9, as_integer(note->worst_ns));
        sqlite3_bind_text(st, 10, note->message, -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return gar_db_fault(err, s->path, "store a run's notes in", s->sqlite);
    }
    return 0;
}

static int insert_run(gar_db *s, const gar_db_run *r, gar_error *err);

int gar_db_add_params(gar_db *s, const gar_db_run *const *runs, size_t count, gar_error *err)
{
    int rc = gar_db_exec(s, "BEGIN IMMEDIATE", "begin storing run parameters in", err);
    for (size_t i = 0; rc == 0 && i < count; i++)
        rc = insert_params(s, runs[i], err);
    if (rc == 0)
        rc = gar_db_exec(s, "COMMIT", "commit run parameters to", err);
    if (rc < 0)
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int gar_db_insert(gar_db *s, const gar_db_run *r, gar_error *err)
{
    /* The run, its streams and its parameters land together or not at all. */
    if (gar_db_exec(s, "BEGIN IMMEDIATE", "begin storing a run in", err) < 0)
        return -GAR_E_IO;
    int added = insert_run(s, r, err);
    int rc = added;
    if (added == 1 && r->failure == NULL && r->streams != NULL)
        rc = insert_streams(s, r, err);
    if (added == 1 && rc >= 0 && r->failure == NULL && r->notes != NULL)
        rc = insert_notes(s, r, err);
    if (added == 1 && rc >= 0)
        rc = insert_params(s, r, err);
    if (rc >= 0)
        rc = gar_db_exec(s, "COMMIT", "commit a run to", err);
    if (rc < 0) {
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return added;
}

/* The runs row of `r`, inside the caller's transaction.  Returns 1 when
 * inserted, 0 when its key was already there, or -GAR_E_IO. */
static int insert_run(gar_db *s, const gar_db_run *r, gar_error *err)
{
    sqlite3_stmt *st = s->insert;
    sqlite3_clear_bindings(st); /* a failed run leaves the metrics NULL */
    sqlite3_bind_text(st, 1, r->trace, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->trace_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->plan, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, r->estimator, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, r->host, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, r->host_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, r->mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 8, (sqlite3_int64)r->seed);
    char message[1024];
    if (r->failure != NULL) {
        gar_error_message(r->failure, message, sizeof message);
        sqlite3_bind_text(st, 9, "failed", -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 10, r->failure->code);
        sqlite3_bind_text(st, 11, message, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_text(st, 9, "ok", -1, SQLITE_STATIC);
    }
    sqlite3_bind_int64(st, 12, as_integer(r->run_ns));
    sqlite3_bind_int64(st, 13, (sqlite3_int64)time(NULL));
    sqlite3_bind_text(st, 14, r->plan_ran != NULL ? r->plan_ran : r->plan, -1, SQLITE_STATIC);
    if (r->failure == NULL) {
        /* The metrics, each by its type; the intervals' absent ends stay
         * NULL (cleared above). */
        const gar_replay_metrics *m = r->metrics;
        int p = METRIC_PARAMETER;
#define BIND_METRIC(NAME, UNIT, FIELD, TYPE, ...) bind_##TYPE(st, p++, m->FIELD);
        GAR_REPLAY_METRICS(BIND_METRIC, BIND_METRIC)
#undef BIND_METRIC
        p = INTERVAL_PARAMETER;
        sqlite3_bind_double(st, p++, m->ci_level);
#define BIND_INTERVAL(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES, CI, ...)                       \
        bind_end(st, p++, m->CI.has_lo, m->CI.lo);                                                 \
        bind_end(st, p++, m->CI.has_hi, m->CI.hi);
        GAR_REPLAY_METRICS(GAR_DB_COUNT_NONE, BIND_INTERVAL)
#undef BIND_INTERVAL
        /* What an auto plan chose; NULL (cleared above) for a fixed plan. */
        const gar_auto_counts *c = &m->auto_counts;
        if (c->waits > 0) {
            const uint64_t chose[GAR_DB_AUTO_COLUMNS] = { c->block,  c->poll, c->flag,
                                                   c->sleeps, c->late, m->auto_over_budget_waits };
            for (size_t i = 0; i < GAR_DB_AUTO_COLUMNS; i++)
                sqlite3_bind_int64(st, AUTO_PARAMETER + (int)i, as_integer(chose[i]));
        }
    }
    sqlite3_bind_text(st, VERSION_PARAMETER, GAR_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, VERSION_PARAMETER + 1, GAR_SOURCE_COMMIT, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return gar_db_fault(err, s->path, "store a run in", s->sqlite);
    return sqlite3_changes(s->sqlite) == 1 ? 1 : 0;
}
