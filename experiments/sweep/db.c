/* experiments/sweep/db.c — the sweep database on SQLite. */
#define _POSIX_C_SOURCE 200809L /* struct stat's st_ino */
#include "sweep/db.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* strcasecmp */
#include <sys/stat.h>
#include <time.h>

#include "sweep/gar_source.h"
#include "sim/replay_metric_table.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

struct gar_db {
    sqlite3 *sqlite;
    sqlite3_stmt *has;
    sqlite3_stmt *insert;
    sqlite3_stmt *insert_stream;
    sqlite3_stmt *insert_param;
    sqlite3_stmt *insert_note;
    char *path;
    dev_t dev; /* the file's identity, to refuse merging it into itself */
    ino_t ino;
};

/* The metric columns (sim/replay_metric_table.h), in the order they are
 * bound: every metric, named as `gar replay --json` names it. */
#define METRIC_COLUMN(NAME, UNIT, ...) #NAME UNIT,
static const char *const metric_columns[] = { GAR_REPLAY_METRICS(METRIC_COLUMN, METRIC_COLUMN) };
#undef METRIC_COLUMN
enum { METRICS = sizeof metric_columns / sizeof metric_columns[0] };

/* Version 4's columns of each quantile's confidence interval, in the order
 * they are bound: the level, then for each quantile that carries one
 * (overshoot's and estimator error's p50, p90, p99) its lower and upper end
 * (NULL where no such bound exists at that many waits:
 * sim/quantile_interval.h). */
#define NO_INTERVAL(...)
#define INTERVAL_COLUMNS(NAME, UNIT, ...) #NAME "_lo" UNIT, #NAME "_hi" UNIT,
static const char *const interval_columns[] = {
    "ci_level", GAR_REPLAY_METRICS(NO_INTERVAL, INTERVAL_COLUMNS)
};
#undef INTERVAL_COLUMNS
enum { INTERVALS = sizeof interval_columns / sizeof interval_columns[0] };

/* Version 5's columns of what an auto plan chose (sim/replay.h), in the
 * order they are bound; NULL in a run without an auto plan, and in one made
 * before version 5. */
static const char *const auto_columns[] = {
    "auto_block", "auto_poll", "auto_flag", "auto_sleeps", "auto_late_wakes",
    "auto_over_budget_waits",
};
enum { AUTO_COLUMNS = sizeof auto_columns / sizeof auto_columns[0] };

/* A metric column's SQL type by the metric's TYPE. */
#define SQL_TYPE_COUNT "INTEGER"
#define SQL_TYPE_FRACTION "REAL"

/* Version 4's table of each run's notes: what went wrong, in words
 * (sim/replay_notes.h).  Created by a new database and by the step up from
 * version 3. */
static const char run_notes_table[] =
    "CREATE TABLE run_notes (\n"
    "  trace TEXT NOT NULL, plan TEXT NOT NULL, estimator TEXT NOT NULL,\n"
    "  host TEXT NOT NULL, mode TEXT NOT NULL, seed INTEGER NOT NULL, -- the run's key\n"
    "  note TEXT NOT NULL,     -- a short stable name: never_slept, late_wakes, ...\n"
    "  count INTEGER NOT NULL, -- how many waits (or runs of a plan) it concerns\n"
    "  worst_ns INTEGER,       -- the worst of them; NULL where not meaningful\n"
    "  message TEXT NOT NULL,  -- the line as gar replay prints it after 'note: '\n"
    "  PRIMARY KEY (trace, plan, estimator, host, mode, seed, note),\n"
    "  FOREIGN KEY (trace, plan, estimator, host, mode, seed)\n"
    "    REFERENCES runs (trace, plan, estimator, host, mode, seed))";

/* gar verify --sweep: each arm of a spec run for real on the machine and in
 * the simulator with that machine's profile (experiments/verify/verifications.h).
 * Version 4 added the real runs' envelope, the simulation's position in it
 * and two verdicts (verification_run_columns); the step up from version 3
 * rebuilds the table, since SQLite cannot change a CHECK in place. */
static const char verifications_table[] =
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
    "  verdict TEXT NOT NULL CHECK (verdict IN ('agree', 'disagree', 'biased',\n"
    "                                           'unjudgeable here')),\n"
    "  tolerance TEXT NOT NULL,  -- the tolerances judged by, as text\n"
    "  real_cdf TEXT NOT NULL,   -- overshoot ns at levels 0, 0.5, ..., 100 %, comma-separated\n"
    "  sim_cdf TEXT NOT NULL,\n"
    "  gar_version TEXT NOT NULL,\n"
    "  finished_unix INTEGER NOT NULL,\n"
    "  runs INTEGER NOT NULL,    -- real runs; more than one: the columns above pool them\n"
    "  real_min_p50_ns INTEGER NOT NULL, real_max_p50_ns INTEGER NOT NULL, -- the real\n"
    "  real_min_p90_ns INTEGER NOT NULL, real_max_p90_ns INTEGER NOT NULL, -- runs' envelope\n"
    "  real_min_p99_ns INTEGER NOT NULL, real_max_p99_ns INTEGER NOT NULL,\n"
    "  position_p50 TEXT NOT NULL, position_p90 TEXT NOT NULL, -- the simulation's: inside,\n"
    "  position_p99 TEXT NOT NULL, -- above all, below all, not judged\n"
    "  real_ks_d_max REAL NOT NULL, -- the widest KS distance between two real runs\n"
    "  UNIQUE (trace, plan, estimator, waits, device, host_profile, seed))";

/* What version 4 added to verifications, and what a version 3 row, made from
 * one real run, holds there: its one run is its envelope, and no position
 * was judged. */
static const char *const verification_run_columns[][2] = {
    { "runs", "1" },
    { "real_min_p50_ns", "real_p50_ns" }, { "real_max_p50_ns", "real_p50_ns" },
    { "real_min_p90_ns", "real_p90_ns" }, { "real_max_p90_ns", "real_p90_ns" },
    { "real_min_p99_ns", "real_p99_ns" }, { "real_max_p99_ns", "real_p99_ns" },
    { "position_p50", "'not judged'" }, { "position_p90", "'not judged'" },
    { "position_p99", "'not judged'" },
    { "real_ks_d_max", "0.0" },
};
enum { VERIFICATION_RUN_COLUMNS = sizeof verification_run_columns / sizeof verification_run_columns[0] };

/* The schema, version 4, one CREATE statement per table (and run_notes,
 * above).  A new table is a
 * new entry here (and in data/sweeps/README.md) and takes the next schema
 * version.  Durations are integer ns; busy_frac is a REAL. */
#define METRIC_DECLARATION(NAME, UNIT, FIELD, TYPE, ...) "  " #NAME UNIT " " SQL_TYPE_##TYPE ",\n"
#define INTERVAL_DECLARATIONS(NAME, UNIT, ...)                                                     \
    "  " #NAME "_lo" UNIT " INTEGER, " #NAME "_hi" UNIT " INTEGER,\n"
static const char *const schema_tables[] = {
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",

    "CREATE TABLE traces (\n"
    "  trace TEXT PRIMARY KEY,  -- content hash, 16 hex digits\n"
    "  name TEXT NOT NULL,      -- as the spec wrote it\n"
    "  source TEXT NOT NULL,    -- absolute path, or the gen: call\n"
    "  waits INTEGER NOT NULL)",

    "CREATE TABLE hosts (\n"
    "  host TEXT PRIMARY KEY,   -- content hash of the parsed profile\n"
    "  name TEXT NOT NULL,\n"
    "  source TEXT NOT NULL,    -- absolute path when recorded\n"
    "  profile TEXT NOT NULL)   -- the profile's text",

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
    /* The metrics, one column each, as sim/replay_metric_table.h lists them
     * (NULL in a failed run). */
    GAR_REPLAY_METRICS(METRIC_DECLARATION, METRIC_DECLARATION)
    "  run_ns INTEGER NOT NULL,        -- wall time of the replay\n"
    "  finished_unix INTEGER NOT NULL, -- when the row was written\n"
    "  gar_version TEXT NOT NULL,      -- the gar that ran it (version 2 on)\n"
    "  source_commit TEXT NOT NULL,    -- and the source it was built from\n"
    /* Version 4: the confidence intervals, as interval_columns lists them
     * (ALTER TABLE puts them in the same place in a version 3 file). */
    "  ci_level REAL,                  -- the intervals' confidence (0.95)\n"
    GAR_REPLAY_METRICS(NO_INTERVAL, INTERVAL_DECLARATIONS)
    /* Version 5: what an auto plan chose, as auto_columns lists them (NULL
     * for a fixed plan; ALTER TABLE puts them here in an older file). */
    "  auto_block INTEGER, auto_poll INTEGER, auto_flag INTEGER, -- waits by park chosen\n"
    "  auto_sleeps INTEGER,            -- waits given a sleep\n"
    "  auto_late_wakes INTEGER,        -- late wakes the rule learnt from\n"
    "  auto_over_budget_waits INTEGER, -- waits whose overshoot exceeded B\n"
    "  UNIQUE (trace, plan, estimator, host, mode, seed))",

    /* Each run's swept parameters (version 3 on): a spec's brace groups. */
    "CREATE TABLE run_params (\n"
    "  trace TEXT NOT NULL, plan TEXT NOT NULL, estimator TEXT NOT NULL,\n"
    "  host TEXT NOT NULL, mode TEXT NOT NULL, seed INTEGER NOT NULL, -- the run's key\n"
    "  name TEXT NOT NULL,   -- margin_us, block_wake_ns* (a what-if factor), plan, ...\n"
    "  value TEXT NOT NULL,  -- as the range expanded it\n"
    "  number REAL,          -- the value as a number; NULL when it is none\n"
    "  PRIMARY KEY (trace, plan, estimator, host, mode, seed, name),\n"
    "  FOREIGN KEY (trace, plan, estimator, host, mode, seed)\n"
    "    REFERENCES runs (trace, plan, estimator, host, mode, seed))",

    verifications_table,

    /* Version 3: each ok run's streams, so a user sees which stream's waits
     * dominate.  Keyed by the run's key, not its id: a merge renumbers ids. */
    "CREATE TABLE run_streams (\n"
    "  trace TEXT NOT NULL, plan TEXT NOT NULL, estimator TEXT NOT NULL,\n"
    "  host TEXT NOT NULL, mode TEXT NOT NULL, seed INTEGER NOT NULL, -- the run's key\n"
    "  stream INTEGER NOT NULL,  -- the stream id as the trace names it\n"
    "  waits INTEGER NOT NULL,\n"
    "  overshoot_p50_ns INTEGER NOT NULL, overshoot_p99_ns INTEGER NOT NULL,\n"
    "  overshoot_max_ns INTEGER NOT NULL,\n"
    "  busy_ns INTEGER NOT NULL,\n"
    "  PRIMARY KEY (trace, plan, estimator, host, mode, seed, stream),\n"
    "  FOREIGN KEY (trace, plan, estimator, host, mode, seed)\n"
    "    REFERENCES runs (trace, plan, estimator, host, mode, seed))",

    run_notes_table,
};
#undef METRIC_DECLARATION
#undef INTERVAL_DECLARATIONS
enum { SCHEMA_TABLES = sizeof schema_tables / sizeof schema_tables[0] };

/* How long a connection waits for another's lock before giving up. */
enum { BUSY_TIMEOUT_MS = 10000 };

/* The insert's parameters: 1..14 the key and outcome, then the metrics,
 * then the gar version and source commit, then the intervals, then auto's
 * choices. */
enum {
    METRIC_PARAMETER = 15,
    VERSION_PARAMETER = METRIC_PARAMETER + METRICS,
    INTERVAL_PARAMETER = VERSION_PARAMETER + 2,
    AUTO_PARAMETER = INTERVAL_PARAMETER + INTERVALS,
    LAST_PARAMETER = AUTO_PARAMETER + AUTO_COLUMNS - 1,
};

static const char key_where[] =
    "trace = ?1 AND plan = ?2 AND estimator = ?3 AND host = ?4 AND mode = ?5 AND seed = ?6";

static int db_fault(gar_error *err, const char *path, const char *doing, sqlite3 *db)
{
    return gar_error_set(err, GAR_E_IO, 3, path, doing,
                         db != NULL ? sqlite3_errmsg(db) : "out of memory");
}

static int exec(gar_db *s, const char *sql, const char *doing, gar_error *err)
{
    if (sqlite3_exec(s->sqlite, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fault(err, s->path, doing, s->sqlite);
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

int gar_db_meta(gar_db *db, const char *key, char *buf, size_t size, gar_error *err)
{
    bool found;
    if (read_meta(db->sqlite, "main", key, buf, size, &found) < 0)
        return db_fault(err, db->path, "read meta", db->sqlite);
    return 0;
}

/* The schema version of `schema` in `db` as a number: 0 when it is not one. */
static long schema_version_of(sqlite3 *db, const char *schema)
{
    char version[32];
    bool found;
    if (read_meta(db, schema, "schema_version", version, sizeof version, &found) < 0 || !found)
        return 0;
    char *end = NULL;
    long v = strtol(version, &end, 10);
    return end != version && *end == '\0' && v >= 1 ? v : 0;
}

/* Refuses a database of a schema version this gar neither reads nor
 * converts, naming both, and what to do with an older one.  Version 3 is
 * read: gar_db_open converts it (add_intervals_and_notes). */
static int check_version(sqlite3 *db, const char *schema, const char *path, const char *doing,
                         gar_error *err)
{
    char version[32];
    bool found;
    if (read_meta(db, schema, "schema_version", version, sizeof version, &found) < 0 || !found)
        return gar_error_set(err, GAR_E_IO, 3, path, doing,
                             "not a gar sweep database (no meta schema_version)");
    long v = schema_version_of(db, schema);
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
static char *path_uri(const char *path, const char *query)
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
static char *read_only_uri(const char *path)
{
    char *wal = malloc(strlen(path) + 5);
    if (wal == NULL)
        return NULL;
    sprintf(wal, "%s-wal", path);
    struct stat ws;
    bool live = stat(wal, &ws) == 0 && ws.st_size > 0;
    free(wal);
    return path_uri(path, live ? "?mode=ro" : "?mode=ro&immutable=1");
}

/* Opens `path` for reading only (read_only_uri: a read-only file or
 * folder reads as well), into `*db` (close it, even on a fault).  Returns
 * SQLite's code (SQLITE_NOMEM with `*db` NULL: no memory for the URI). */
static int open_read_only(const char *path, sqlite3 **db)
{
    *db = NULL;
    char *uri = read_only_uri(path);
    if (uri == NULL)
        return SQLITE_NOMEM;
    int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    free(uri);
    if (rc == SQLITE_OK)
        sqlite3_busy_timeout(*db, BUSY_TIMEOUT_MS);
    return rc;
}

/* The tables of the open database `db`: how many, the first that is not
 * gar's meta (into `first`), and whether meta is one. */
static int list_tables(sqlite3 *db, size_t *count, bool *has_meta, char *first, size_t size)
{
    sqlite3_stmt *st = NULL;
    *count = 0;
    *has_meta = false;
    first[0] = '\0';
    if (sqlite3_prepare_v2(db,
                           "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
                           " ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        (*count)++;
        if (name != NULL && strcmp(name, "meta") == 0)
            *has_meta = true;
        else if (first[0] == '\0')
            snprintf(first, size, "%s", name != NULL ? name : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Whether `column` is one of runs' interval columns (added in version 4);
 * of runs' auto columns (version 5); of verifications' run columns
 * (version 4). */
static bool is_interval_column(const char *column)
{
    for (size_t i = 0; i < INTERVALS; i++)
        if (strcmp(interval_columns[i], column) == 0)
            return true;
    return false;
}

static bool is_auto_column(const char *column)
{
    for (size_t i = 0; i < AUTO_COLUMNS; i++)
        if (strcmp(auto_columns[i], column) == 0)
            return true;
    return false;
}

static bool is_verification_run_column(const char *column)
{
    for (size_t i = 0; i < VERIFICATION_RUN_COLUMNS; i++)
        if (strcmp(verification_run_columns[i][0], column) == 0)
            return true;
    return false;
}

/* What a database of an older schema version that gar still reads lacks of
 * today's schema, one line per table (is_added NULL: the whole table) or set
 * of columns: such a database is gar's without it (gar_db_open converts
 * it, and a reader shows what it lacks as absent).  Each line: the first
 * version that has it, the table, which of its columns came then.  The
 * { 0 } line ends the list. */
static const struct schema_absence {
    int since_version;
    const char *table;
    bool (*is_added)(const char *column);
} schema_absences[] = {
    { 4, "runs", is_interval_column },
    { 4, "run_notes", NULL },
    { 4, "verifications", is_verification_run_column },
    { 5, "runs", is_auto_column },
    { 0, NULL, NULL },
};

static bool absent_in_version(int version, const char *table, const char *column)
{
    for (const struct schema_absence *a = schema_absences; a->table != NULL; a++) {
        if (version >= a->since_version || strcmp(a->table, table) != 0)
            continue;
        if (a->is_added == NULL || (column != NULL && a->is_added(column)))
            return true;
    }
    return false;
}

/* Whether `db` has the table `table`: 1, 0, or -1 on a fault. */
static int has_table(sqlite3 *db, const char *table)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* A column of `table` in `db` by name: 1 with its declared type into
 * `type`, 0 when the table has no such column, -1 on a fault. */
static int column_type(sqlite3 *db, const char *table, const char *column, char *type,
                       size_t size)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT type FROM pragma_table_info(?1) WHERE name = ?2", -1,
                           &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        snprintf(type, size, "%s", t != NULL ? t : "");
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* Checks that the database `db` holds every table of gar's schema with
 * gar's columns and their types, as schema_tables makes them (less what its
 * schema version lacks, schema_absences): a file with a gar meta table but
 * not gar's tables is another program's.  Extra tables and columns are
 * allowed.  Returns 0, or -GAR_E_IO (path, doing, what is missing). */
static int check_tables(sqlite3 *db, const char *path, const char *doing, gar_error *err)
{
    char text[32];
    bool found_version;
    bool fault = read_meta(db, "main", "schema_version", text, sizeof text, &found_version) < 0;
    int version = found_version ? atoi(text) : 0;
    sqlite3 *want = NULL; /* today's schema, made as a new database makes it */
    sqlite3_stmt *tables = NULL, *columns = NULL;
    char why[400] = "";
    fault = fault ||
            sqlite3_open_v2(":memory:", &want, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK;
    for (size_t i = 0; !fault && i < SCHEMA_TABLES; i++)
        fault = sqlite3_exec(want, schema_tables[i], NULL, NULL, NULL) != SQLITE_OK;
    fault = fault ||
            sqlite3_prepare_v2(want,
                               "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid",
                               -1, &tables, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(want, "SELECT name, type FROM pragma_table_info(?1)", -1,
                               &columns, NULL) != SQLITE_OK;
    int step = SQLITE_DONE;
    while (!fault && why[0] == '\0' && (step = sqlite3_step(tables)) == SQLITE_ROW) {
        const char *table = (const char *)sqlite3_column_text(tables, 0);
        fault = table == NULL;
        if (fault || absent_in_version(version, table, NULL))
            continue;
        int present = has_table(db, table);
        fault = present < 0;
        if (present == 0)
            snprintf(why, sizeof why, "lacks gar's table '%s'", table);
        fault = fault || sqlite3_bind_text(columns, 1, table, -1, SQLITE_TRANSIENT) != SQLITE_OK;
        int column_step = SQLITE_DONE;
        while (present == 1 && !fault && why[0] == '\0' &&
               (column_step = sqlite3_step(columns)) == SQLITE_ROW) {
            const char *column = (const char *)sqlite3_column_text(columns, 0);
            const char *type = (const char *)sqlite3_column_text(columns, 1);
            fault = column == NULL || type == NULL;
            if (fault || absent_in_version(version, table, column))
                continue;
            char has[64];
            int found = column_type(db, table, column, has, sizeof has);
            fault = found < 0;
            if (found == 0)
                snprintf(why, sizeof why, "lacks gar's column '%s.%s'", table, column);
            else if (found == 1 && strcasecmp(has, type) != 0)
                snprintf(why, sizeof why, "declares column '%s.%s' as '%.40s' where gar's is '%s'",
                         table, column, has, type);
        }
        /* A step that stopped short (out of memory) checked nothing. */
        fault = fault || (why[0] == '\0' && column_step != SQLITE_DONE);
        sqlite3_reset(columns);
    }
    fault = fault || (why[0] == '\0' && step != SQLITE_DONE);
    sqlite3_finalize(tables);
    sqlite3_finalize(columns);
    sqlite3_close(want);
    if (fault)
        return gar_error_set(err, GAR_E_IO, 3, path, doing,
                             "cannot compare its tables with gar's schema (out of memory, or "
                             "the file cannot be read)");
    if (why[0] == '\0')
        return 0;
    char message[600];
    snprintf(message, sizeof message,
             "not a gar sweep database: its meta says schema version %d, but it %s; gar "
             "changes nothing in it (give a new file)",
             version, why);
    return gar_error_set(err, GAR_E_IO, 3, path, doing, message);
}

int gar_db_check(const char *path, bool may_be_new, const char *doing, gar_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT && may_be_new)
            return 0;
        return gar_error_set(err, GAR_E_IO, 3, path, doing, strerror(errno));
    }
    if (!S_ISREG(st.st_mode))
        return gar_error_set(err, GAR_E_IO, 3, path, doing, "not a regular file");
    if (st.st_size == 0) {
        if (may_be_new)
            return 0;
        return gar_error_set(err, GAR_E_IO, 3, path, doing,
                             "an empty file, not a gar sweep database");
    }
    sqlite3 *db = NULL;
    int rc = open_read_only(path, &db);
    if (rc == SQLITE_NOMEM && db == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, doing, "out of memory");
    size_t tables = 0;
    bool has_meta = false;
    char first[128];
    if (rc == SQLITE_OK)
        rc = list_tables(db, &tables, &has_meta, first, sizeof first) == 0 ? SQLITE_OK
                                                                             : SQLITE_ERROR;
    if (rc != SQLITE_OK) {
        char why[300];
        snprintf(why, sizeof why, "not a gar sweep database (%s)",
                 db != NULL ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return gar_error_set(err, GAR_E_IO, 3, path, doing, why);
    }
    if (tables == 0) {
        sqlite3_close(db);
        if (may_be_new)
            return 0;
        return gar_error_set(err, GAR_E_IO, 3, path, doing,
                             "holds no tables: not a gar sweep database");
    }
    if (!has_meta) {
        sqlite3_close(db);
        char why[300];
        snprintf(why, sizeof why,
                 "not a gar sweep database: it holds another program's tables ('%.100s'%s), "
                 "and gar changes nothing in it (give a new file)",
                 first, tables > 1 ? " and more" : "");
        return gar_error_set(err, GAR_E_IO, 3, path, doing, why);
    }
    rc = check_version(db, "main", path, doing, err);
    if (rc == 0)
        rc = check_tables(db, path, doing, err);
    sqlite3_close(db);
    return rc < 0 ? rc : 1;
}

static int create_schema(gar_db *s, gar_error *err)
{
    int rc = exec(s, "BEGIN IMMEDIATE", "begin creating the schema", err);
    if (rc < 0)
        return rc;
    /* Another process may have created it, or another program written
     * tables of its own, since we looked. */
    sqlite3_stmt *st = NULL;
    size_t tables = 0;
    bool exists = false;
    char first[128];
    if (list_tables(s->sqlite, &tables, &exists, first, sizeof first) < 0) {
        rc = db_fault(err, s->path, "read the tables of", s->sqlite);
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    if (!exists && tables > 0) {
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
        return gar_error_set(err, GAR_E_IO, 3, s->path, "open",
                             "not a gar sweep database: it holds another program's tables");
    }
    if (!exists) {
        for (size_t i = 0; rc == 0 && i < SCHEMA_TABLES; i++)
            rc = exec(s, schema_tables[i], "create the schema", err);
        if (rc < 0) {
            sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
        char version[16], created[32];
        snprintf(version, sizeof version, "%d", GAR_DB_SCHEMA_VERSION);
        snprintf(created, sizeof created, "%lld", (long long)time(NULL));
        const char *rows[][2] = {
            { "schema_version", version },
            { "gar_version", GAR_VERSION },
            { "source_commit", GAR_SOURCE_COMMIT },
            { "created_unix", created },
        };
        if (sqlite3_prepare_v2(s->sqlite, "INSERT INTO meta (key, value) VALUES (?1, ?2)", -1, &st,
                               NULL) != SQLITE_OK)
            rc = db_fault(err, s->path, "write meta", s->sqlite);
        for (size_t i = 0; rc == 0 && i < sizeof rows / sizeof rows[0]; i++) {
            sqlite3_bind_text(st, 1, rows[i][0], -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, rows[i][1], -1, SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE)
                rc = db_fault(err, s->path, "write meta", s->sqlite);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
        if (rc < 0) {
            sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
    }
    return exec(s, "COMMIT", "commit the schema", err);
}

int gar_db_verification_run_columns(gar_db *db, char *buf, size_t size)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->sqlite, "SELECT count(*) FROM pragma_table_info('verifications') "
                                      "WHERE name = 'runs'", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int has = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    if (has < 0)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < VERIFICATION_RUN_COLUMNS; i++) {
        int w = snprintf(buf + n, size - n, "%s%s", i ? ", " : "",
                         verification_run_columns[i][has ? 0 : 1]);
        if (w < 0 || (size_t)w >= size - n)
            return -1;
        n += (size_t)w;
    }
    return 0;
}

/* Version 3's verifications as version 4 holds them (inside the
 * conversion's transaction): the table is made anew from today's statement
 * and each row copied, its one real run standing for the envelope
 * (verification_run_columns).  A file with no verifications table (made
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
        return db_fault(err, s->path, doing, s->sqlite);
    existed = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (existed)
        rc = exec(s, "ALTER TABLE verifications RENAME TO verifications_v3", doing, err);
    if (rc == 0)
        rc = exec(s, verifications_table, doing, err);
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
        rc = db_fault(err, s->path, doing, s->sqlite);
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        if (name == NULL || is_verification_run_column(name))
            continue;
        nc += (size_t)snprintf(columns + nc, size - nc, "%s\"%s\"", nc ? ", " : "", name);
        nv += (size_t)snprintf(values + nv, size - nv, "%s\"%s\"", nv ? ", " : "", name);
        if (nc >= size || nv >= size)
            rc = gar_error_set(err, GAR_E_IO, 3, s->path, doing, "too many columns");
    }
    sqlite3_finalize(st);
    for (size_t i = 0; rc == 0 && i < VERIFICATION_RUN_COLUMNS; i++) {
        nc += (size_t)snprintf(columns + nc, size - nc, ", %s", verification_run_columns[i][0]);
        nv += (size_t)snprintf(values + nv, size - nv, ", %s", verification_run_columns[i][1]);
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
            rc = exec(s, copy, doing, err);
            free(copy);
        }
    }
    if (rc == 0)
        rc = exec(s, "DROP TABLE verifications_v3", doing, err);
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
    for (size_t i = 0; rc == 0 && i < INTERVALS; i++) {
        snprintf(sql, sizeof sql, "ALTER TABLE runs ADD COLUMN %s %s", interval_columns[i],
                 i == 0 ? "REAL" : "INTEGER");
        rc = exec(s, sql, doing, err);
    }
    if (rc == 0)
        rc = exec(s, run_notes_table, doing, err);
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
    for (size_t i = 0; rc == 0 && i < AUTO_COLUMNS; i++) {
        snprintf(sql, sizeof sql, "ALTER TABLE runs ADD COLUMN %s INTEGER", auto_columns[i]);
        rc = exec(s, sql, "convert (schema version 4 to 5)", err);
    }
    return rc;
}

/* Converts an older file (version 3 or 4) to today's version in one
 * transaction, a step at a time.  A file another process converted
 * meanwhile is left as it is.  Only the writers call it: a reader never
 * changes a file. */
static int convert_to_current(gar_db *s, gar_error *err)
{
    long v = schema_version_of(s->sqlite, "main");
    if (v < GAR_DB_SCHEMA_OLDEST || v >= GAR_DB_SCHEMA_VERSION)
        return 0;
    int rc = exec(s, "BEGIN IMMEDIATE", "begin converting (to today's schema version)", err);
    if (rc < 0)
        return rc;
    v = schema_version_of(s->sqlite, "main");
    if (rc == 0 && v == 3 && (rc = step_3_to_4(s, err)) == 0)
        v = 4;
    if (rc == 0 && v == 4 && (rc = step_4_to_5(s, err)) == 0)
        v = 5;
    if (rc == 0) {
        char sql[96];
        snprintf(sql, sizeof sql, "UPDATE meta SET value = '%ld' WHERE key = 'schema_version'",
                 v);
        rc = exec(s, sql, "convert (to today's schema version)", err);
    }
    if (rc == 0)
        return exec(s, "COMMIT", "commit the conversion (to today's schema version) of", err);
    sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

static int prepare_statements(gar_db *s, gar_error *err)
{
    char sql[4096];
    snprintf(sql, sizeof sql, "SELECT 1 FROM runs WHERE %s", key_where);
    if (sqlite3_prepare_v2(s->sqlite, sql, -1, &s->has, NULL) != SQLITE_OK)
        return db_fault(err, s->path, "prepare the key lookup", s->sqlite);
    int n = snprintf(sql, sizeof sql,
                     "INSERT INTO runs (trace, trace_name, plan, estimator, host, host_name, mode, "
                     "seed, status, error_code, error, run_ns, finished_unix, plan_ran");
    for (size_t i = 0; i < METRICS; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", %s", metric_columns[i]);
    n += snprintf(sql + n, sizeof sql - (size_t)n, ", gar_version, source_commit");
    for (size_t i = 0; i < INTERVALS; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", %s", interval_columns[i]);
    for (size_t i = 0; i < AUTO_COLUMNS; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", %s", auto_columns[i]);
    n += snprintf(sql + n, sizeof sql - (size_t)n, ") VALUES (?1");
    for (size_t i = 2; i <= LAST_PARAMETER; i++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, ", ?%zu", i);
    snprintf(sql + n, sizeof sql - (size_t)n,
             ") ON CONFLICT (trace, plan, estimator, host, mode, seed) DO NOTHING");
    if (sqlite3_prepare_v2(s->sqlite, sql, -1, &s->insert, NULL) != SQLITE_OK)
        return db_fault(err, s->path, "prepare the insert", s->sqlite);
    if (sqlite3_prepare_v2(s->sqlite,
                           "INSERT INTO run_streams (trace, plan, estimator, host, mode, seed, "
                           "stream, waits, overshoot_p50_ns, overshoot_p99_ns, "
                           "overshoot_max_ns, busy_ns) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                           -1, &s->insert_stream, NULL) != SQLITE_OK)
        return db_fault(err, s->path, "prepare the streams insert", s->sqlite);
    if (sqlite3_prepare_v2(s->sqlite,
                           "INSERT OR IGNORE INTO run_params (trace, plan, estimator, host, mode, "
                           "seed, name, value, number) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                           -1, &s->insert_param, NULL) != SQLITE_OK)
        return db_fault(err, s->path, "prepare the parameter insert", s->sqlite);
    if (sqlite3_prepare_v2(s->sqlite,
                           "INSERT INTO run_notes (trace, plan, estimator, host, mode, seed, "
                           "note, count, worst_ns, message) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                           -1, &s->insert_note, NULL) != SQLITE_OK)
        return db_fault(err, s->path, "prepare the notes insert", s->sqlite);
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
            waited_ms >= BUSY_TIMEOUT_MS)
            return db_fault(err, s->path, "set WAL mode on", s->sqlite);
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
    char *uri = path_uri(path, "");
    if (uri == NULL || sqlite3_open_v2(uri, &s->sqlite, flags, NULL) != SQLITE_OK) {
        rc = uri == NULL ? gar_error_set(err, GAR_E_IO, 3, path, "open", "out of memory")
                         : db_fault(err, path, "open", s->sqlite);
        free(uri);
        gar_db_close(s);
        return rc;
    }
    free(uri);
    sqlite3_busy_timeout(s->sqlite, BUSY_TIMEOUT_MS);
    rc = set_wal(s, err);
    if (rc == 0)
        rc = exec(s, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON",
                  "set the pragmas of", err);
    if (rc == 0 && create)
        rc = create_schema(s, err);
    if (rc == 0)
        rc = convert_to_current(s, err);
    if (rc == 0)
        rc = check_version(s->sqlite, "main", path, "open", err);
    if (rc == 0)
        rc = prepare_statements(s, err);
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
    if (rc >= 0 && open_read_only(path, &s->sqlite) != SQLITE_OK)
        rc = db_fault(err, path, "open", s->sqlite);
    /* Checked again on the handle read from: the file may have been replaced. */
    if (rc >= 0)
        rc = check_version(s->sqlite, "main", path, "open", err);
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
    int rc = exec(s, "BEGIN IMMEDIATE", "begin recording the sources in", err);
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
        rc = db_fault(err, s->path, "prepare the sources insert", s->sqlite);
    for (size_t i = 0; rc == 0 && i < spec->trace_count; i++) {
        const gar_sweep_trace *t = &spec->traces[i];
        sqlite3_bind_text(tr, 1, t->hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(tr, 2, t->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(tr, 3, t->source, -1, SQLITE_STATIC);
        sqlite3_bind_int64(tr, 4, (sqlite3_int64)t->trace.count);
        if (sqlite3_step(tr) != SQLITE_DONE)
            rc = db_fault(err, s->path, "record a trace in", s->sqlite);
        sqlite3_reset(tr);
    }
    for (size_t i = 0; rc == 0 && i < spec->host_count; i++) {
        const gar_sweep_host *h = &spec->hosts[i];
        sqlite3_bind_text(ho, 1, h->hash, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 2, h->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 3, h->source, -1, SQLITE_STATIC);
        sqlite3_bind_text(ho, 4, h->text, -1, SQLITE_STATIC);
        if (sqlite3_step(ho) != SQLITE_DONE)
            rc = db_fault(err, s->path, "record a host in", s->sqlite);
        sqlite3_reset(ho);
    }
    sqlite3_finalize(tr);
    sqlite3_finalize(ho);
    if (rc < 0) {
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return exec(s, "COMMIT", "commit the sources to", err);
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
    return db_fault(err, s->path, "look a run up in", s->sqlite);
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
            return db_fault(err, s->path, "store a run's streams in", s->sqlite);
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
            return db_fault(err, s->path, "store a run's parameters in", s->sqlite);
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
            return db_fault(err, s->path, "store a run's notes in", s->sqlite);
    }
    return 0;
}

static int insert_run(gar_db *s, const gar_db_run *r, gar_error *err);

int gar_db_add_params(gar_db *s, const gar_db_run *const *runs, size_t count, gar_error *err)
{
    int rc = exec(s, "BEGIN IMMEDIATE", "begin storing run parameters in", err);
    for (size_t i = 0; rc == 0 && i < count; i++)
        rc = insert_params(s, runs[i], err);
    if (rc == 0)
        rc = exec(s, "COMMIT", "commit run parameters to", err);
    if (rc < 0)
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int gar_db_insert(gar_db *s, const gar_db_run *r, gar_error *err)
{
    /* The run, its streams and its parameters land together or not at all. */
    if (exec(s, "BEGIN IMMEDIATE", "begin storing a run in", err) < 0)
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
        rc = exec(s, "COMMIT", "commit a run to", err);
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
        GAR_REPLAY_METRICS(NO_INTERVAL, BIND_INTERVAL)
#undef BIND_INTERVAL
        /* What an auto plan chose; NULL (cleared above) for a fixed plan. */
        const gar_auto_counts *c = &m->auto_counts;
        if (c->waits > 0) {
            const uint64_t chose[AUTO_COLUMNS] = { c->block,  c->poll, c->flag,
                                                   c->sleeps, c->late, m->auto_over_budget_waits };
            for (size_t i = 0; i < AUTO_COLUMNS; i++)
                sqlite3_bind_int64(st, AUTO_PARAMETER + (int)i, as_integer(chose[i]));
        }
    }
    sqlite3_bind_text(st, VERSION_PARAMETER, GAR_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, VERSION_PARAMETER + 1, GAR_SOURCE_COMMIT, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return db_fault(err, s->path, "store a run in", s->sqlite);
    return sqlite3_changes(s->sqlite) == 1 ? 1 : 0;
}

/* ---- merge -------------------------------------------------------------- */

int gar_db_same_file(const gar_db *s, const char *path, gar_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        return gar_error_set(err, GAR_E_IO, 3, path, "look at", strerror(errno));
    }
    return st.st_dev == s->dev && st.st_ino == s->ino ? 1 : 0;
}

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

/* The columns a merge copies: all but id (each file numbers its own rows)
 * and the two timing columns (when and how fast it ran); the intervals only
 * from a version 4 input (a version 3 one has none), auto's choices only
 * from a version 5 one. */
static size_t result_columns(char *buf, size_t size, const char *prefix, const char *separator,
                             bool intervals, bool autos)
{
    static const char *const fixed[] = { "plan_ran", "status", "error_code", "error" };
    size_t n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", n > 0 ? separator : "", prefix,
                              fixed[i]);
    for (size_t i = 0; i < METRICS; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", separator, prefix, metric_columns[i]);
    for (size_t i = 0; intervals && i < INTERVALS; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", separator, prefix,
                              interval_columns[i]);
    for (size_t i = 0; autos && i < AUTO_COLUMNS; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", separator, prefix, auto_columns[i]);
    return n;
}

/* Tables keyed by a run whose rows a stored run may gain later: a run
 * another spec stored first gets this spec's parameters too
 * (gar_db_add_params), so two files may hold different sets of them for
 * one run; only a parameter both hold must agree. */
static const char *const extendable_tables[] = { "run_params" };

/* Tables keyed by a run that a run made before schema version 4 (no
 * ci_level: a version 3 file's, or one converted from it) has no rows in: a
 * row only the other file holds is no conflict when this file's run was
 * made so. */
static const char *const since_v4_tables[] = { "run_notes" };

/* Appends `text` to `buf` (`*n` used of `size`); false when it is full. */
static bool append(char *buf, size_t size, size_t *n, const char *text)
{
    size_t len = strlen(text);
    if (*n + len + 1 > size)
        return false;
    memcpy(buf + *n, text, len + 1);
    *n += len;
    return true;
}

/* A table keyed by a run, as the merge compares it: SQL pieces over the
 * columns both files have, `a` a row of one and `b` of the other. */
typedef struct keyed_table {
    char name[64];
    char where_same_pk[2048];   /* a.PK1 = b.PK1 AND ... */
    char differ[4096];          /* a.C1 IS NOT b.C1 OR ... (the other columns) */
    char same_run[512];         /* r.trace = a.trace AND ... (the run's key) */
    bool extendable;
    bool since_v4;              /* in since_v4_tables */
} keyed_table;

/* Fills `t` for the main file's table `name`: 1 when it is keyed by a run
 * (holds the run key's six columns), 0 when not, -1 on a fault. */
static int describe_keyed_table(sqlite3 *db, const char *name, keyed_table *t)
{
    static const char *const run_key[] = { "trace", "plan", "estimator", "host", "mode", "seed" };
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    for (size_t i = 0; i < sizeof extendable_tables / sizeof extendable_tables[0]; i++)
        t->extendable |= strcmp(name, extendable_tables[i]) == 0;
    for (size_t i = 0; i < sizeof since_v4_tables / sizeof since_v4_tables[0]; i++)
        t->since_v4 |= strcmp(name, since_v4_tables[i]) == 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT name, pk FROM pragma_table_info(?1, 'main') WHERE name IN "
                           "(SELECT name FROM pragma_table_info(?1, 'src')) ORDER BY cid",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    size_t key_columns = 0, npk = 0, ndiffer = 0, nrun = 0;
    bool fits = true;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *column = (const char *)sqlite3_column_text(st, 0);
        char piece[200];
        bool in_key = false;
        for (size_t i = 0; i < sizeof run_key / sizeof run_key[0]; i++)
            in_key |= strcmp(column, run_key[i]) == 0;
        if (in_key) {
            key_columns++;
            snprintf(piece, sizeof piece, "%sr.\"%s\" = a.\"%s\"", nrun > 0 ? " AND " : "",
                     column, column);
            fits &= append(t->same_run, sizeof t->same_run, &nrun, piece);
        }
        if (sqlite3_column_int(st, 1) > 0) {
            snprintf(piece, sizeof piece, "%sa.\"%s\" = b.\"%s\"", npk > 0 ? " AND " : "", column,
                     column);
            fits &= append(t->where_same_pk, sizeof t->where_same_pk, &npk, piece);
        } else {
            snprintf(piece, sizeof piece, "%sa.\"%s\" IS NOT b.\"%s\"", ndiffer > 0 ? " OR " : "",
                     column, column);
            fits &= append(t->differ, sizeof t->differ, &ndiffer, piece);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE || !fits)
        return -1;
    return key_columns == sizeof run_key / sizeof run_key[0] && npk > 0 && strcmp(name, "runs") != 0;
}

/* Every table keyed by a run besides `runs` (run_streams, run_params, and
 * any the schema adds): for each run both files hold, a row both hold (by
 * the table's primary key) must agree in every column, and a row one holds
 * must be in the other too (except in the extendable tables).  Returns 0,
 * or -GAR_E_IO naming the table and how many rows differ. */
static int compare_keyed_tables(sqlite3 *db, const char *path, gar_error *err)
{
    sqlite3_stmt *tables = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT name FROM main.sqlite_master WHERE type = 'table' "
                           "AND name IN (SELECT name FROM src.sqlite_master WHERE type = 'table') "
                           "ORDER BY rowid",
                           -1, &tables, NULL) != SQLITE_OK)
        return db_fault(err, path, "list the tables of", db);
    int rc = 0;
    static char sql[16384];
    while (rc == 0 && sqlite3_step(tables) == SQLITE_ROW) {
        keyed_table t;
        int keyed = describe_keyed_table(db, (const char *)sqlite3_column_text(tables, 0), &t);
        if (keyed < 0) {
            rc = db_fault(err, path, "read the columns of", db);
            break;
        }
        if (keyed == 0)
            continue;
        uint64_t differ = 0, missing = 0;
        int n = snprintf(sql, sizeof sql,
                         "SELECT count(*) FROM src.\"%s\" a JOIN main.\"%s\" b ON %s WHERE %s",
                         t.name, t.name, t.where_same_pk, t.differ[0] != '\0' ? t.differ : "0");
        bool fault = n >= (int)sizeof sql || count_of(db, sql, &differ) < 0;
        for (int side = 0; !fault && !t.extendable && side < 2; side++) {
            const char *one = side == 0 ? "src" : "main", *other = side == 0 ? "main" : "src";
            uint64_t m = 0;
            /* Both files hold a since_v4 table only at version 4, so both have ci_level. */
            n = snprintf(sql, sizeof sql,
                         "SELECT count(*) FROM %s.\"%s\" a WHERE EXISTS (SELECT 1 FROM %s.runs r "
                         "WHERE %s%s) AND NOT EXISTS (SELECT 1 FROM %s.\"%s\" b WHERE %s)",
                         one, t.name, other, t.same_run,
                         t.since_v4 ? " AND r.ci_level IS NOT NULL" : "", other, t.name,
                         t.where_same_pk);
            fault = n >= (int)sizeof sql || count_of(db, sql, &m) < 0;
            missing += m;
        }
        if (fault) {
            rc = db_fault(err, path, "compare the runs of", db);
        } else if (differ + missing > 0) {
            char why[300];
            snprintf(why, sizeof why,
                     "holds runs that are in the output with other results in table '%s' (rows "
                     "that differ: %llu, rows in one file only: %llu; made by another gar?)",
                     t.name, (unsigned long long)differ, (unsigned long long)missing);
            rc = gar_error_set(err, GAR_E_IO, 3, path, "merge", why);
        }
    }
    sqlite3_finalize(tables);
    return rc;
}

/* The input's verifications as today's table holds them: for each column of
 * main.verifications but id, the input's own column, or, for what version 4
 * added that a version 3 input lacks, the value its conversion would give
 * (verification_run_columns).  Writes "EXPR AS name, ..." into `select` and
 * the names into `names`.  Returns 0, or -1 on a fault or when they do not
 * fit. */
static int verification_columns(sqlite3 *db, char *select, size_t select_size, char *names,
                                size_t names_size)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT m.name, s.name IS NOT NULL FROM "
                           "pragma_table_info('verifications', 'main') m LEFT JOIN "
                           "pragma_table_info('verifications', 'src') s USING (name) "
                           "WHERE m.name <> 'id' ORDER BY m.cid",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    size_t ns = 0, nn = 0;
    bool fits = true;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const char *expr = NULL;
        if (sqlite3_column_int(st, 1) == 0) {
            for (size_t i = 0; i < VERIFICATION_RUN_COLUMNS; i++)
                if (strcmp(verification_run_columns[i][0], name) == 0)
                    expr = verification_run_columns[i][1];
            if (expr == NULL) { /* a column no version of the input can lack */
                sqlite3_finalize(st);
                return -1;
            }
        }
        char piece[256];
        snprintf(piece, sizeof piece, "%s%s AS \"%s\"", ns > 0 ? ", " : "",
                 expr != NULL ? expr : name, name);
        fits &= append(select, select_size, &ns, piece);
        snprintf(piece, sizeof piece, "%s\"%s\"", nn > 0 ? ", " : "", name);
        fits &= append(names, names_size, &nn, piece);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE && fits ? 0 : -1;
}

/* Brings the input's verifications (inside the merge's transaction), with
 * the rule of the other tables: a key (trace, plan, estimator, waits,
 * device, host_profile, seed) both files hold must carry the same results
 * — every column but the row's id, its trace's name and the gar and time
 * that made it — or the merge is refused; a key only the input holds is
 * added.  Returns 0 with `*added`, or -GAR_E_IO. */
static int merge_verifications(gar_db *s, const char *path, uint64_t *added, gar_error *err)
{
    static const char key[] = "trace, plan, estimator, waits, device, host_profile, seed";
    static const char *const not_compared[] = { "trace", "plan", "estimator", "waits", "device",
                                                "host_profile", "seed", "trace_name",
                                                "gar_version", "finished_unix" };
    static char select[4096], names[2048], differ[4096], sql[16384];
    *added = 0;
    if (verification_columns(s->sqlite, select, sizeof select, names, sizeof names) < 0)
        return db_fault(err, path, "read the verification columns of", s->sqlite);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->sqlite,
                           "SELECT name FROM pragma_table_info('verifications', 'main') "
                           "WHERE name <> 'id' ORDER BY cid",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fault(err, path, "read the verification columns of", s->sqlite);
    size_t nd = 0;
    bool fits = append(differ, sizeof differ, &nd, "0");
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        bool compared = true;
        for (size_t i = 0; i < sizeof not_compared / sizeof not_compared[0]; i++)
            compared &= strcmp(name, not_compared[i]) != 0;
        char piece[200];
        snprintf(piece, sizeof piece, " OR a.\"%s\" IS NOT b.\"%s\"", name, name);
        if (compared)
            fits &= append(differ, sizeof differ, &nd, piece);
    }
    sqlite3_finalize(st);
    int n = snprintf(sql, sizeof sql,
                     "SELECT count(*) FROM (SELECT %s FROM src.verifications) a "
                     "JOIN main.verifications b USING (%s) WHERE %s",
                     select, key, differ);
    uint64_t conflicts = 0;
    if (!fits || n >= (int)sizeof sql || count_of(s->sqlite, sql, &conflicts) < 0)
        return db_fault(err, path, "compare the verifications of", s->sqlite);
    if (conflicts > 0) {
        char why[240];
        snprintf(why, sizeof why,
                 "%llu of its verifications are in the output with other results (the same "
                 "arm verified twice on one machine profile: keep one of the files' rows)",
                 (unsigned long long)conflicts);
        return gar_error_set(err, GAR_E_IO, 3, path, "merge", why);
    }
    n = snprintf(sql, sizeof sql,
                 "INSERT INTO main.verifications (%s) SELECT %s FROM src.verifications "
                 "WHERE true ORDER BY id ON CONFLICT (%s) DO NOTHING",
                 names, select, key);
    if (n >= (int)sizeof sql || sqlite3_exec(s->sqlite, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fault(err, path, "merge the verifications of", s->sqlite);
    *added = (uint64_t)sqlite3_changes(s->sqlite);
    return 0;
}

/* Inside the merge: the output's runs whose `names[0]` is NULL (made before
 * the version that added those columns) take all of `names` from the same
 * run in the input where it has them.  Returns 0 or -GAR_E_IO. */
static int gain_columns(gar_db *s, const char *path, const char *const *names, size_t count,
                        gar_error *err)
{
    static const char same_run[] =
        "s.trace = m.trace AND s.plan = m.plan AND s.estimator = m.estimator AND "
        "s.host = m.host AND s.mode = m.mode AND s.seed = m.seed";
    char columns[1024], src_columns[1024], sql[4096];
    size_t n = 0, k = 0;
    for (size_t i = 0; i < count; i++) {
        n += (size_t)snprintf(columns + n, sizeof columns - n, "%s%s", i > 0 ? ", " : "",
                              names[i]);
        k += (size_t)snprintf(src_columns + k, sizeof src_columns - k, "%ss.%s",
                              i > 0 ? ", " : "", names[i]);
    }
    snprintf(sql, sizeof sql,
             "UPDATE main.runs AS m SET (%s) = (SELECT %s FROM src.runs s WHERE %s) "
             "WHERE m.%s IS NULL AND EXISTS (SELECT 1 FROM src.runs s WHERE %s AND "
             "s.%s IS NOT NULL)",
             columns, src_columns, same_run, names[0], same_run, names[0]);
    if (sqlite3_exec(s->sqlite, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fault(err, path, "merge the newer columns of", s->sqlite);
    return 0;
}

int gar_db_merge(gar_db *s, const char *path, gar_db_merge_stats *stats, gar_error *err)
{
    memset(stats, 0, sizeof *stats);
    /* Check it on its own first, read-only, so ATTACH neither creates a
     * missing file nor meets a foreign one. */
    int rc = gar_db_same_file(s, path, err);
    if (rc == 1)
        return gar_error_set(err, GAR_E_IO, 3, path, "merge",
                             "is the output database itself (a database cannot be merged into "
                             "itself)");
    if (rc < 0)
        return rc;
    if ((rc = gar_db_check(path, false, "merge", err)) < 0)
        return rc;

    /* Attached read-only (read_only_uri): an input in a read-only folder
     * merges like any other, and none is changed. */
    char *uri = read_only_uri(path);
    if (uri == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "attach", "out of memory");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->sqlite, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) != SQLITE_OK) {
        free(uri);
        return db_fault(err, path, "attach", s->sqlite);
    }
    sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    free(uri);
    if (rc != SQLITE_DONE)
        return db_fault(err, path, "attach", s->sqlite);

    char columns[2048], differ[4096], key[] = "trace, plan, estimator, host, mode, seed";
    char sql[8192];
    /* A version 3 input has no intervals and no notes: its runs come
     * without them, and are compared on what they have. */
    const bool v4 = schema_version_of(s->sqlite, "src") >= 4;
    const bool v5 = schema_version_of(s->sqlite, "src") >= 5;
    rc = exec(s, "BEGIN IMMEDIATE", "begin the merge into", err);
    if (rc == 0 && count_of(s->sqlite, "SELECT count(*) FROM src.runs", &stats->runs) < 0)
        rc = db_fault(err, path, "count the runs of", s->sqlite);
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
        /* Intervals only where both runs have them: a run made before
         * version 4 (ci_level NULL) is compared on what it has. */
        if (v4)
            n += (size_t)snprintf(differ + n, sizeof differ - n,
                                  " OR (a.ci_level IS NOT NULL AND b.ci_level IS NOT NULL AND (0");
        for (size_t i = 0; v4 && i < INTERVALS; i++)
            n += (size_t)snprintf(differ + n, sizeof differ - n, " OR a.%s IS NOT b.%s",
                                  interval_columns[i], interval_columns[i]);
        if (v4)
            n += (size_t)snprintf(differ + n, sizeof differ - n, "))");
        /* Auto's choices likewise, where both runs stored them (a run made
         * before version 5 has them NULL, as a fixed plan's run does). */
        for (size_t i = 0; v5 && i < AUTO_COLUMNS; i++)
            n += (size_t)snprintf(differ + n, sizeof differ - n,
                                  " OR (a.%s IS NOT NULL AND b.%s IS NOT NULL AND a.%s <> b.%s)",
                                  auto_columns[i], auto_columns[i], auto_columns[i],
                                  auto_columns[i]);
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM src.runs a JOIN main.runs b USING (%s) WHERE %s", key,
                 differ);
        uint64_t conflicts = 0;
        if (count_of(s->sqlite, sql, &conflicts) < 0) {
            rc = db_fault(err, path, "compare the runs of", s->sqlite);
        } else if (conflicts > 0) {
            char why[160];
            snprintf(why, sizeof why,
                     "%llu of its runs are in the output with other results (made by another gar?)",
                     (unsigned long long)conflicts);
            rc = gar_error_set(err, GAR_E_IO, 3, path, "merge", why);
        }
    }
    if (rc == 0)
        rc = compare_keyed_tables(s->sqlite, path, err);
    if (rc == 0)
        rc = exec(s,
                  "INSERT OR IGNORE INTO main.traces SELECT trace, name, source, waits "
                  "FROM src.traces;"
                  "INSERT OR IGNORE INTO main.hosts SELECT host, name, source, profile "
                  "FROM src.hosts",
                  "merge the traces and hosts into", err);
    if (rc == 0) {
        result_columns(columns, sizeof columns, "", ", ", v4, v5);
        snprintf(sql, sizeof sql,
                 "INSERT INTO main.runs (%s, trace_name, host_name, run_ns, finished_unix, "
                 "gar_version, source_commit, %s) "
                 "SELECT %s, trace_name, host_name, run_ns, finished_unix, "
                 "gar_version, source_commit, %s FROM src.runs "
                 "WHERE true ORDER BY id ON CONFLICT (%s) DO NOTHING",
                 key, columns, key, columns, key);
        if (sqlite3_exec(s->sqlite, sql, NULL, NULL, NULL) != SQLITE_OK)
            rc = db_fault(err, path, "merge the runs of", s->sqlite);
        else
            stats->added = (uint64_t)sqlite3_changes(s->sqlite);
    }
    /* A run the output holds made before version 4 gains the intervals
     * the input's same run has (their results are the same), and below its
     * notes; one made before version 5 gains auto's choices: which file
     * came first does not change the merge. */
    if (rc == 0 && v4)
        rc = gain_columns(s, path, interval_columns, INTERVALS, err);
    if (rc == 0 && v5)
        rc = gain_columns(s, path, auto_columns, AUTO_COLUMNS, err);
    /* A run both files hold has the same results, the same streams
     * included (compare_keyed_tables): only the new runs' rows are new. */
    if (rc == 0)
        rc = exec(s, "INSERT OR IGNORE INTO main.run_streams SELECT * FROM src.run_streams",
                  "merge the run streams into", err);
    /* A run both files hold has the same value for a parameter both name
     * (compare_keyed_tables); the parameters only one of them names (another
     * spec swept it) come together. */
    if (rc == 0)
        rc = exec(s,
                  "INSERT OR IGNORE INTO main.run_params (trace, plan, estimator, host, mode, "
                  "seed, name, value, number) SELECT trace, plan, estimator, host, mode, seed, "
                  "name, value, number FROM src.run_params",
                  "merge the run parameters into", err);
    /* Notes, like streams, follow from the run: only the new runs' are new. */
    if (rc == 0 && v4)
        rc = exec(s,
                  "INSERT OR IGNORE INTO main.run_notes (trace, plan, estimator, host, mode, "
                  "seed, note, count, worst_ns, message) SELECT trace, plan, estimator, host, "
                  "mode, seed, note, count, worst_ns, message FROM src.run_notes",
                  "merge the run notes into", err);
    if (rc == 0)
        rc = merge_verifications(s, path, &stats->verifications_added, err);
    if (rc == 0)
        rc = exec(s, "COMMIT", "commit the merge into", err);
    else
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(s->sqlite, "DETACH DATABASE src", NULL, NULL, NULL);
    if (rc == 0)
        stats->present = stats->runs - stats->added;
    return rc;
}

int gar_db_snapshot(const char *path, const char *into, gar_error *err)
{
    int rc = gar_db_check(path, false, "copy", err);
    if (rc < 0)
        return rc;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        rc = db_fault(err, path, "open to copy", db);
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "VACUUM INTO ?1", -1, &st, NULL) != SQLITE_OK) {
        rc = db_fault(err, path, "copy", db);
    } else {
        sqlite3_bind_text(st, 1, into, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = db_fault(err, path, "copy", db);
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
        return db_fault(err, s->path, "count the runs of other builds in", s->sqlite);
    sqlite3_bind_text(st, 1, GAR_VERSION, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, GAR_SOURCE_COMMIT, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *runs = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : db_fault(err, s->path, "count the runs of other builds in", s->sqlite);
}
