/* experiments/store.c — the sweep database on SQLite. */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gar_source.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

struct gar_store {
    sqlite3 *db;
    sqlite3_stmt *has;
    sqlite3_stmt *insert;
    char *path;
};

/* The metric columns, named as `gar replay --json` names the metrics, in the
 * order they are bound. */
static const char *const metric_columns[] = {
    "waits",
    "overshoot_p50_ns", "overshoot_p90_ns", "overshoot_p99_ns", "overshoot_max_ns",
    "wait_ns", "busy_ns", "parked_ns", "asleep_ns", "busy_frac", "makespan_ns",
    "sleeps", "parks", "queries", "polls", "backstop_queries",
    "kinds_blocked", "kinds_immediate", "kinds_late", "kinds_parked",
    "predictions",
    "estimator_error_p50_ns", "estimator_error_p90_ns", "estimator_error_p99_ns",
    "estimator_error_max_ns",
};
enum { METRICS = sizeof metric_columns / sizeof metric_columns[0] };

/* The schema, version 1.  Durations are integer ns; busy_frac is a REAL. */
static const char schema_sql[] =
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
    "CREATE TABLE traces (\n"
    "  trace TEXT PRIMARY KEY,  -- content hash, 16 hex digits\n"
    "  name TEXT NOT NULL,      -- as the spec wrote it\n"
    "  source TEXT NOT NULL,    -- absolute path, or the gen: call\n"
    "  waits INTEGER NOT NULL);\n"
    "CREATE TABLE hosts (\n"
    "  host TEXT PRIMARY KEY,   -- content hash of the parsed profile\n"
    "  name TEXT NOT NULL,\n"
    "  source TEXT NOT NULL,    -- absolute path when recorded\n"
    "  profile TEXT NOT NULL);  -- the profile's text\n"
    "CREATE TABLE runs (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  trace TEXT NOT NULL REFERENCES traces(trace),\n"
    "  trace_name TEXT NOT NULL,\n"
    "  plan TEXT NOT NULL,      -- as the spec asked for it\n"
    "  plan_ran TEXT NOT NULL,  -- as the host ran it: resolved, naming a fallback\n"
    "  estimator TEXT NOT NULL,\n"
    "  host TEXT NOT NULL REFERENCES hosts(host),\n"
    "  host_name TEXT NOT NULL,\n"
    "  mode TEXT NOT NULL CHECK (mode IN ('open', 'closed')),\n"
    "  seed INTEGER NOT NULL,\n"
    "  status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),\n"
    "  error_code INTEGER,      -- failed: the gar error code\n"
    "  error TEXT,              -- failed: its message\n"
    "  waits INTEGER,\n"
    "  overshoot_p50_ns INTEGER, overshoot_p90_ns INTEGER,\n"
    "  overshoot_p99_ns INTEGER, overshoot_max_ns INTEGER,\n"
    "  wait_ns INTEGER, busy_ns INTEGER, parked_ns INTEGER, asleep_ns INTEGER,\n"
    "  busy_frac REAL, makespan_ns INTEGER,\n"
    "  sleeps INTEGER, parks INTEGER, queries INTEGER, polls INTEGER,\n"
    "  backstop_queries INTEGER,\n"
    "  kinds_blocked INTEGER, kinds_immediate INTEGER, kinds_late INTEGER,\n"
    "  kinds_parked INTEGER,\n"
    "  predictions INTEGER,\n"
    "  estimator_error_p50_ns INTEGER, estimator_error_p90_ns INTEGER,\n"
    "  estimator_error_p99_ns INTEGER, estimator_error_max_ns INTEGER,\n"
    "  run_ns INTEGER NOT NULL,        -- wall time of the replay\n"
    "  finished_unix INTEGER NOT NULL, -- when the row was written\n"
    "  UNIQUE (trace, plan, estimator, host, mode, seed));\n"
    /* gar verify --sweep: each arm of a spec run for real on the machine and
     * in the simulator with that machine's profile (experiments/verifications.h). */
    "CREATE TABLE verifications (\n"
    "  id INTEGER PRIMARY KEY,\n"
    "  trace TEXT NOT NULL,      -- content hash of the trace's first `waits` rows\n"
    "  trace_name TEXT NOT NULL,\n"
    "  plan TEXT NOT NULL,       -- as the spec asked for it\n"
    "  plan_ran TEXT NOT NULL,   -- as this machine ran it (names a fallback)\n"
    "  estimator TEXT NOT NULL,\n"
    "  waits INTEGER NOT NULL,\n"
    "  device TEXT NOT NULL,     -- emulated, cuda\n"
    "  host_profile TEXT NOT NULL, -- content hash of the simulator's profile\n"
    "  seed INTEGER NOT NULL,    -- the simulator's\n"
    "  real_p50_ns INTEGER NOT NULL, real_p90_ns INTEGER NOT NULL,\n"
    "  real_p99_ns INTEGER NOT NULL,\n"
    "  sim_p50_ns INTEGER NOT NULL, sim_p90_ns INTEGER NOT NULL, sim_p99_ns INTEGER NOT NULL,\n"
    "  ks_d REAL NOT NULL,       -- plain two-sample KS distance of the overshoots\n"
    "  busy_real REAL NOT NULL, busy_sim REAL NOT NULL,\n"
    "  verdict TEXT NOT NULL CHECK (verdict IN ('agree', 'disagree')),\n"
    "  tolerance TEXT NOT NULL,  -- the tolerances judged by, as text\n"
    "  real_cdf TEXT NOT NULL,   -- overshoot ns at levels 0, 0.5, ..., 100 %, comma-separated\n"
    "  sim_cdf TEXT NOT NULL,\n"
    "  gar_version TEXT NOT NULL,\n"
    "  finished_unix INTEGER NOT NULL,\n"
    "  UNIQUE (trace, plan, estimator, waits, device, host_profile, seed));\n";

static const char key_where[] =
    "trace = ?1 AND plan = ?2 AND estimator = ?3 AND host = ?4 AND mode = ?5 AND seed = ?6";

static int db_fault(gar_error *err, const char *path, const char *doing, sqlite3 *db)
{
    return gar_error_set(err, GAR_E_IO, 3, path, doing,
                         db != NULL ? sqlite3_errmsg(db) : "out of memory");
}

static int exec(gar_store *s, const char *sql, const char *doing, gar_error *err)
{
    if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fault(err, s->path, doing, s->db);
    return 0;
}

sqlite3 *gar_store_db(gar_store *store)
{
    return store->db;
}

const char *gar_store_path(const gar_store *store)
{
    return store->path;
}

void gar_store_close(gar_store *store)
{
    if (store == NULL)
        return;
    sqlite3_finalize(store->has);
    sqlite3_finalize(store->insert);
    sqlite3_close(store->db);
    free(store->path);
    free(store);
}

/* A meta value of the database `db` (main or an attached `schema`). */
static int read_meta(sqlite3 *db, const char *schema, const char *key, char *buf, size_t size,
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

int gar_store_meta(gar_store *store, const char *key, char *buf, size_t size, gar_error *err)
{
    bool found;
    if (read_meta(store->db, "main", key, buf, size, &found) < 0)
        return db_fault(err, store->path, "read meta", store->db);
    return 0;
}

/* Refuses a database of another schema version, naming both. */
static int check_version(sqlite3 *db, const char *schema, const char *path, const char *doing,
                         gar_error *err)
{
    char version[32];
    bool found;
    if (read_meta(db, schema, "schema_version", version, sizeof version, &found) < 0 || !found)
        return gar_error_set(err, GAR_E_IO, 3, path, doing,
                             "not a gar sweep database (no meta schema_version)");
    char want[32];
    snprintf(want, sizeof want, "%d", GAR_STORE_SCHEMA_VERSION);
    if (strcmp(version, want) != 0) {
        char why[160];
        snprintf(why, sizeof why, "its schema version is %s; this gar reads schema version %s",
                 version, want);
        return gar_error_set(err, GAR_E_IO, 3, path, doing, why);
    }
    return 0;
}

static int create_schema(gar_store *s, gar_error *err)
{
    int rc = exec(s, "BEGIN IMMEDIATE", "begin creating the schema", err);
    if (rc < 0)
        return rc;
    /* Another process may have created it since we looked. */
    sqlite3_stmt *st = NULL;
    bool exists = false;
    if (sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_master WHERE name = 'meta'", -1, &st,
                           NULL) == SQLITE_OK)
        exists = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!exists) {
        if ((rc = exec(s, schema_sql, "create the schema", err)) < 0) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
        char version[16], created[32];
        snprintf(version, sizeof version, "%d", GAR_STORE_SCHEMA_VERSION);
        snprintf(created, sizeof created, "%lld", (long long)time(NULL));
        const char *rows[][2] = {
            { "schema_version", version },
            { "gar_version", GAR_VERSION },
            { "source_commit", GAR_SOURCE_COMMIT },
            { "created_unix", created },
        };
        if (sqlite3_prepare_v2(s->db, "INSERT INTO meta (key, value) VALUES (?1, ?2)", -1, &st,
                               NULL) != SQLITE_OK)
            rc = db_fault(err, s->path, "write meta", s->db);
        for (size_t i = 0; rc == 0 && i < sizeof rows / sizeof rows[0]; i++) {
            sqlite3_bind_text(st, 1, rows[i][0], -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, rows[i][1], -1, SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE)
                rc = db_fault(err, s->path, "write meta", s->db);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
        if (rc < 0) {
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
    }
    return exec(s, "COMMIT", "commit the schema", err);
}

static int prepare_statements(gar_store *s, gar_error *err)
{
    char sql[2048];
    snprintf(sql, sizeof sql, "SELECT 1 FROM runs WHERE %s", key_where);
    if (sqlite3_prepare_v2(s->db, sql, -1, &s->has, NULL) != SQLITE_OK)
        return db_fault(err, s->path, "prepare the key lookup", s->db);
    int n = snprintf(sql, sizeof sql,
                     "INSERT INTO runs (trace, trace_name, plan, estimator, host, host_name, mode, "
                     "seed, status, error_code, error, run_ns, finished_unix, plan_ran");
    for (size_t i = 0; i < METRICS; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", %s", metric_columns[i]);
    n += snprintf(sql + n, sizeof sql - (size_t)n, ") VALUES (?1");
    for (size_t i = 2; i <= 14 + METRICS; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", ?%zu", i);
    snprintf(sql + n, sizeof sql - (size_t)n,
             ") ON CONFLICT (trace, plan, estimator, host, mode, seed) DO NOTHING");
    if (sqlite3_prepare_v2(s->db, sql, -1, &s->insert, NULL) != SQLITE_OK)
        return db_fault(err, s->path, "prepare the insert", s->db);
    return 0;
}

int gar_store_open(const char *path, bool create, gar_store **out, gar_error *err)
{
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_store_open",
                             path == NULL ? "path" : "out", "is NULL");
    *out = NULL;
    gar_store *s = calloc(1, sizeof *s);
    if (s == NULL || (s->path = malloc(strlen(path) + 1)) == NULL) {
        free(s);
        return gar_error_set(err, GAR_E_IO, 3, path, "open", "out of memory");
    }
    strcpy(s->path, path);
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    int rc;
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        rc = db_fault(err, path, "open", s->db);
        gar_store_close(s);
        return rc;
    }
    sqlite3_busy_timeout(s->db, 10000);
    rc = exec(s, "PRAGMA journal_mode = WAL", "set WAL mode on", err);
    if (rc == 0)
        rc = exec(s, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
                  "set the pragmas of", err);
    if (rc == 0 && create)
        rc = create_schema(s, err);
    if (rc == 0)
        rc = check_version(s->db, "main", path, "open", err);
    if (rc == 0)
        rc = prepare_statements(s, err);
    if (rc < 0) {
        gar_store_close(s);
        return rc;
    }
    *out = s;
    return 0;
}

int gar_store_put_sources(gar_store *s, const gar_sweep_spec *spec, gar_error *err)
{
    int rc = exec(s, "BEGIN IMMEDIATE", "begin recording the sources in", err);
    if (rc < 0)
        return rc;
    sqlite3_stmt *tr = NULL, *ho = NULL;
    if (sqlite3_prepare_v2(s->db,
                           "INSERT OR IGNORE INTO traces (trace, name, source, waits) "
                           "VALUES (?1, ?2, ?3, ?4)",
                           -1, &tr, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(s->db,
                           "INSERT OR IGNORE INTO hosts (host, name, source, profile) "
                           "VALUES (?1, ?2, ?3, ?4)",
                           -1, &ho, NULL) != SQLITE_OK)
        rc = db_fault(err, s->path, "prepare the sources insert", s->db);
    for (size_t i = 0; rc == 0 && i < spec->trace_count; i++) {
        const gar_sweep_trace *t = &spec->traces[i];
        sqlite3_bind_text(tr, 1, t->hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(tr, 2, t->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(tr, 3, t->source, -1, SQLITE_STATIC);
        sqlite3_bind_int64(tr, 4, (sqlite3_int64)t->trace.count);
        if (sqlite3_step(tr) != SQLITE_DONE)
            rc = db_fault(err, s->path, "record a trace in", s->db);
        sqlite3_reset(tr);
    }
    for (size_t i = 0; rc == 0 && i < spec->host_count; i++) {
        const gar_sweep_host *h = &spec->hosts[i];
        sqlite3_bind_text(ho, 1, h->hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 2, h->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 3, h->source, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 4, h->text, -1, SQLITE_STATIC);
        if (sqlite3_step(ho) != SQLITE_DONE)
            rc = db_fault(err, s->path, "record a host in", s->db);
        sqlite3_reset(ho);
    }
    sqlite3_finalize(tr);
    sqlite3_finalize(ho);
    if (rc < 0) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return exec(s, "COMMIT", "commit the sources to", err);
}

static void bind_key(sqlite3_stmt *st, const gar_store_run *r)
{
    sqlite3_bind_text(st, 1, r->trace, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->plan, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->estimator, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, r->host, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, r->mode, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)r->seed);
}

int gar_store_has(gar_store *s, const gar_store_run *key, gar_error *err)
{
    bind_key(s->has, key);
    int rc = sqlite3_step(s->has);
    sqlite3_reset(s->has);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return db_fault(err, s->path, "look a run up in", s->db);
}

/* SQLite integers are signed 64-bit; no simulated duration comes near 2^63,
 * but a saturated one is stored as the largest rather than wrapped. */
static sqlite3_int64 as_integer(uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? INT64_MAX : (sqlite3_int64)v;
}

int gar_store_insert(gar_store *s, const gar_store_run *r, gar_error *err)
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
        const gar_replay_metrics *m = r->metrics;
        const uint64_t values[METRICS] = {
            m->waits,
            m->overshoot_ns.p50, m->overshoot_ns.p90, m->overshoot_ns.p99, m->overshoot_ns.max,
            m->wait_ns, m->busy_ns, m->parked_ns, m->asleep_ns, 0 /* busy_frac */, m->makespan_ns,
            m->sleeps, m->parks, m->queries, m->polls, m->backstop_queries,
            m->blocked, m->immediate, m->late, m->parked,
            m->predictions,
            m->estimator_error_ns.p50, m->estimator_error_ns.p90, m->estimator_error_ns.p99,
            m->estimator_error_ns.max,
        };
        for (int i = 0; i < METRICS; i++) {
            if (strcmp(metric_columns[i], "busy_frac") == 0)
                sqlite3_bind_double(st, 15 + i, m->busy_frac);
            else
                sqlite3_bind_int64(st, 15 + i, as_integer(values[i]));
        }
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_fault(err, s->path, "store a run in", s->db);
    return sqlite3_changes(s->db) == 1 ? 1 : 0;
}

/* ---- merge -------------------------------------------------------------- */

static int count_of(sqlite3 *db, const char *sql, uint64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *out = (uint64_t)sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/* The columns a merge copies and compares: all but id (each file numbers its
 * own rows) and the two timing columns (when and how fast it ran). */
static size_t result_columns(char *buf, size_t size, const char *prefix, const char *separator)
{
    static const char *const fixed[] = { "plan_ran", "status", "error_code", "error" };
    size_t n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", n > 0 ? separator : "", prefix,
                              fixed[i]);
    for (size_t i = 0; i < METRICS; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", separator, prefix, metric_columns[i]);
    return n;
}

int gar_store_merge(gar_store *s, const char *path, gar_store_merge_stats *stats, gar_error *err)
{
    memset(stats, 0, sizeof *stats);
    /* Open it on its own first, read-only, to check it without ATTACH creating
     * a missing file. */
    sqlite3 *in = NULL;
    if (sqlite3_open_v2(path, &in, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = db_fault(err, path, "open for merging", in);
        sqlite3_close(in);
        return rc;
    }
    int rc = check_version(in, "main", path, "merge", err);
    sqlite3_close(in);
    if (rc < 0)
        return rc;

    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) != SQLITE_OK)
        return db_fault(err, path, "attach", s->db);
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return db_fault(err, path, "attach", s->db);

    char columns[2048], differ[4096], key[] = "trace, plan, estimator, host, mode, seed";
    char sql[8192];
    rc = exec(s, "BEGIN IMMEDIATE", "begin the merge into", err);
    if (rc == 0 && count_of(s->db, "SELECT count(*) FROM src.runs", &stats->runs) < 0)
        rc = db_fault(err, path, "count the runs of", s->db);
    if (rc == 0) {
        /* A key both files hold must carry the same results. */
        size_t n = 0;
        static const char *const compared[] = { "plan_ran", "status", "error_code", "error" };
        for (size_t i = 0; i < sizeof compared / sizeof compared[0]; i++)
            n += (size_t)snprintf(differ + n, sizeof differ - n, "%sa.%s IS NOT b.%s",
                                  i > 0 ? " OR " : "", compared[i], compared[i]);
        for (size_t i = 0; i < METRICS; i++)
            n += (size_t)snprintf(differ + n, sizeof differ - n, " OR a.%s IS NOT b.%s",
                                  metric_columns[i], metric_columns[i]);
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM src.runs a JOIN main.runs b USING (%s) WHERE %s", key,
                 differ);
        uint64_t conflicts = 0;
        if (count_of(s->db, sql, &conflicts) < 0) {
            rc = db_fault(err, path, "compare the runs of", s->db);
        } else if (conflicts > 0) {
            char why[160];
            snprintf(why, sizeof why,
                     "%llu of its runs are in the output with other results (made by another gar?)",
                     (unsigned long long)conflicts);
            rc = gar_error_set(err, GAR_E_IO, 3, path, "merge", why);
        }
    }
    if (rc == 0)
        rc = exec(s,
                  "INSERT OR IGNORE INTO main.traces SELECT trace, name, source, waits "
                  "FROM src.traces;"
                  "INSERT OR IGNORE INTO main.hosts SELECT host, name, source, profile "
                  "FROM src.hosts",
                  "merge the traces and hosts into", err);
    if (rc == 0) {
        result_columns(columns, sizeof columns, "", ", ");
        snprintf(sql, sizeof sql,
                 "INSERT INTO main.runs (%s, trace_name, host_name, run_ns, finished_unix, %s) "
                 "SELECT %s, trace_name, host_name, run_ns, finished_unix, %s FROM src.runs "
                 "WHERE true ORDER BY id ON CONFLICT (%s) DO NOTHING",
                 key, columns, key, columns, key);
        if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
            rc = db_fault(err, path, "merge the runs of", s->db);
        else
            stats->added = (uint64_t)sqlite3_changes(s->db);
    }
    if (rc == 0)
        rc = exec(s, "COMMIT", "commit the merge into", err);
    else
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(s->db, "DETACH DATABASE src", NULL, NULL, NULL);
    if (rc == 0)
        stats->present = stats->runs - stats->added;
    return rc;
}
