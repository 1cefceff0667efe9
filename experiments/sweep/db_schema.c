/* experiments/sweep/db_schema.c — the sweep database's schema
 * (db_schema.h): its columns and CREATE statements, what an older version
 * lacks, gar_db_check (db.h) and the making of a new file. */
#define _POSIX_C_SOURCE 200809L /* struct stat */
#include "sweep/db_schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h> /* strcasecmp */
#include <time.h>

#include "sweep/gar_source.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

/* The metric columns (sim/replay_metric_table.h), in the order they are
 * bound: every metric, named as `gar replay --json` names it. */
#define METRIC_COLUMN(NAME, UNIT, ...) #NAME UNIT,
const char *const gar_db_metric_columns[] = { GAR_REPLAY_METRICS(METRIC_COLUMN, METRIC_COLUMN) };
#undef METRIC_COLUMN

/* Version 4's columns of each quantile's confidence interval, in the order
 * they are bound: the level, then for each quantile that carries one
 * (overshoot's and estimator error's p50, p90, p99) its lower and upper end
 * (NULL where no such bound exists at that many waits:
 * sim/quantile_interval.h). */
#define NO_INTERVAL(...)
#define INTERVAL_COLUMNS(NAME, UNIT, ...) #NAME "_lo" UNIT, #NAME "_hi" UNIT,
const char *const gar_db_interval_columns[] = {
    "ci_level", GAR_REPLAY_METRICS(NO_INTERVAL, INTERVAL_COLUMNS)
};
#undef INTERVAL_COLUMNS

/* Version 5's columns of what an auto plan chose (sim/replay.h), in the
 * order they are bound; NULL in a run without an auto plan, and in one made
 * before version 5. */
const char *const gar_db_auto_columns[] = {
    "auto_block", "auto_poll", "auto_flag", "auto_sleeps", "auto_late_wakes",
    "auto_over_budget_waits",
};

/* A metric column's SQL type by the metric's TYPE. */
#define SQL_TYPE_COUNT "INTEGER"
#define SQL_TYPE_FRACTION "REAL"

/* Version 4's table of each run's notes: what went wrong, in words
 * (sim/replay_notes.h).  Created by a new database and by the step up from
 * version 3. */
const char gar_db_run_notes_table[] =
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
 * and two verdicts (gar_db_verification_run_column_pairs); the step up from version 3
 * rebuilds the table, since SQLite cannot change a CHECK in place. */
const char gar_db_verifications_table[] =
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
const char *const gar_db_verification_run_column_pairs[][2] = {
    { "runs", "1" },
    { "real_min_p50_ns", "real_p50_ns" }, { "real_max_p50_ns", "real_p50_ns" },
    { "real_min_p90_ns", "real_p90_ns" }, { "real_max_p90_ns", "real_p90_ns" },
    { "real_min_p99_ns", "real_p99_ns" }, { "real_max_p99_ns", "real_p99_ns" },
    { "position_p50", "'not judged'" }, { "position_p90", "'not judged'" },
    { "position_p99", "'not judged'" },
    { "real_ks_d_max", "0.0" },
};

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
    /* Version 4: the confidence intervals, as gar_db_interval_columns lists them
     * (ALTER TABLE puts them in the same place in a version 3 file). */
    "  ci_level REAL,                  -- the intervals' confidence (0.95)\n"
    GAR_REPLAY_METRICS(NO_INTERVAL, INTERVAL_DECLARATIONS)
    /* Version 5: what an auto plan chose, as gar_db_auto_columns lists them (NULL
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

    gar_db_verifications_table,

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

    gar_db_run_notes_table,
};
#undef METRIC_DECLARATION
#undef INTERVAL_DECLARATIONS
enum { SCHEMA_TABLES = sizeof schema_tables / sizeof schema_tables[0] };

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
    for (size_t i = 0; i < GAR_DB_INTERVALS; i++)
        if (strcmp(gar_db_interval_columns[i], column) == 0)
            return true;
    return false;
}

static bool is_auto_column(const char *column)
{
    for (size_t i = 0; i < GAR_DB_AUTO_COLUMNS; i++)
        if (strcmp(gar_db_auto_columns[i], column) == 0)
            return true;
    return false;
}

bool gar_db_is_verification_run_column(const char *column)
{
    for (size_t i = 0; i < GAR_DB_VERIFICATION_RUN_COLUMNS; i++)
        if (strcmp(gar_db_verification_run_column_pairs[i][0], column) == 0)
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
    { 4, "verifications", gar_db_is_verification_run_column },
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
    bool fault =
        gar_db_read_meta(db, "main", "schema_version", text, sizeof text, &found_version) < 0;
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
    int rc = gar_db_open_read_only(path, &db);
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
    rc = gar_db_check_version(db, "main", path, doing, err);
    if (rc == 0)
        rc = check_tables(db, path, doing, err);
    sqlite3_close(db);
    return rc < 0 ? rc : 1;
}

int gar_db_create_schema(gar_db *s, gar_error *err)
{
    int rc = gar_db_exec(s, "BEGIN IMMEDIATE", "begin creating the schema", err);
    if (rc < 0)
        return rc;
    /* Another process may have created it, or another program written
     * tables of its own, since we looked. */
    sqlite3_stmt *st = NULL;
    size_t tables = 0;
    bool exists = false;
    char first[128];
    if (list_tables(s->sqlite, &tables, &exists, first, sizeof first) < 0) {
        rc = gar_db_fault(err, s->path, "read the tables of", s->sqlite);
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
            rc = gar_db_exec(s, schema_tables[i], "create the schema", err);
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
            rc = gar_db_fault(err, s->path, "write meta", s->sqlite);
        for (size_t i = 0; rc == 0 && i < sizeof rows / sizeof rows[0]; i++) {
            sqlite3_bind_text(st, 1, rows[i][0], -1, SQLITE_STATIC);
            sqlite3_bind_text(st, 2, rows[i][1], -1, SQLITE_STATIC);
            if (sqlite3_step(st) != SQLITE_DONE)
                rc = gar_db_fault(err, s->path, "write meta", s->sqlite);
            sqlite3_reset(st);
        }
        sqlite3_finalize(st);
        if (rc < 0) {
            sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
            return rc;
        }
    }
    return gar_db_exec(s, "COMMIT", "commit the schema", err);
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
    for (size_t i = 0; i < GAR_DB_VERIFICATION_RUN_COLUMNS; i++) {
        int w = snprintf(buf + n, size - n, "%s%s", i ? ", " : "",
                         gar_db_verification_run_column_pairs[i][has ? 0 : 1]);
        if (w < 0 || (size_t)w >= size - n)
            return -1;
        n += (size_t)w;
    }
    return 0;
}
