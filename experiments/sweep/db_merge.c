/* experiments/sweep/db_merge.c — gar_db_merge and gar_db_same_file (db.h):
 * another sweep database's rows brought into this one, refusing a run both
 * hold with other results. */
#define _POSIX_C_SOURCE 200809L /* struct stat's st_ino */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sweep/db_base.h"
#include "sweep/db_schema.h"

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
    for (size_t i = 0; i < GAR_DB_METRICS; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", separator, prefix,
                              gar_db_metric_columns[i]);
    for (size_t i = 0; intervals && i < GAR_DB_INTERVALS; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", separator, prefix,
                              gar_db_interval_columns[i]);
    for (size_t i = 0; autos && i < GAR_DB_AUTO_COLUMNS; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s", separator, prefix,
                              gar_db_auto_columns[i]);
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
        return gar_db_fault(err, path, "list the tables of", db);
    int rc = 0;
    static char sql[16384];
    while (rc == 0 && sqlite3_step(tables) == SQLITE_ROW) {
        keyed_table t;
        int keyed = describe_keyed_table(db, (const char *)sqlite3_column_text(tables, 0), &t);
        if (keyed < 0) {
            rc = gar_db_fault(err, path, "read the columns of", db);
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
            rc = gar_db_fault(err, path, "compare the runs of", db);
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
 * (gar_db_verification_run_column_pairs).  Writes "EXPR AS name, ..." into `select` and
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
            for (size_t i = 0; i < GAR_DB_VERIFICATION_RUN_COLUMNS; i++)
                if (strcmp(gar_db_verification_run_column_pairs[i][0], name) == 0)
                    expr = gar_db_verification_run_column_pairs[i][1];
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
        return gar_db_fault(err, path, "read the verification columns of", s->sqlite);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->sqlite,
                           "SELECT name FROM pragma_table_info('verifications', 'main') "
                           "WHERE name <> 'id' ORDER BY cid",
                           -1, &st, NULL) != SQLITE_OK)
        return gar_db_fault(err, path, "read the verification columns of", s->sqlite);
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
        return gar_db_fault(err, path, "compare the verifications of", s->sqlite);
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
        return gar_db_fault(err, path, "merge the verifications of", s->sqlite);
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
        return gar_db_fault(err, path, "merge the newer columns of", s->sqlite);
    return 0;
}

/* Attaches the database at `path` as "src", read-only (gar_db_read_only_uri:
 * an input in a read-only folder merges like any other, and none is
 * changed), after checking it on its own, so ATTACH neither creates a
 * missing file nor meets a foreign one.  Returns 0, or -GAR_E_IO (nothing
 * attached). */
static int attach_input(gar_db *s, const char *path, gar_error *err)
{
    int rc = gar_db_same_file(s, path, err);
    if (rc == 1)
        return gar_error_set(err, GAR_E_IO, 3, path, "merge",
                             "is the output database itself (a database cannot be merged into "
                             "itself)");
    if (rc < 0)
        return rc;
    if ((rc = gar_db_check(path, false, "merge", err)) < 0)
        return rc;
    char *uri = gar_db_read_only_uri(path);
    if (uri == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "attach", "out of memory");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->sqlite, "ATTACH DATABASE ?1 AS src", -1, &st, NULL) != SQLITE_OK) {
        free(uri);
        return gar_db_fault(err, path, "attach", s->sqlite);
    }
    sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    free(uri);
    if (rc != SQLITE_DONE)
        return gar_db_fault(err, path, "attach", s->sqlite);
    return 0;
}

/* The key of a run, as the merge's statements name it. */
static const char run_key_columns[] = "trace, plan, estimator, host, mode, seed";

/* Inside the merge: a key both files hold must carry the same results.  A
 * version 3 input (`v4` false) has no intervals and no notes: its runs are
 * compared on what they have.  Returns 0, or -GAR_E_IO (naming how many
 * runs differ). */
static int check_runs_agree(gar_db *s, const char *path, bool v4, bool v5, gar_error *err)
{
    char differ[4096], sql[8192];
    size_t n = 0;
    static const char *const compared[] = { "plan_ran", "status", "error_code", "error" };
    for (size_t i = 0; i < sizeof compared / sizeof compared[0]; i++)
        n += (size_t)snprintf(differ + n, sizeof differ - n, "%sa.%s IS NOT b.%s",
                              i > 0 ? " OR " : "", compared[i], compared[i]);
    for (size_t i = 0; i < GAR_DB_METRICS; i++)
        n += (size_t)snprintf(differ + n, sizeof differ - n, " OR a.%s IS NOT b.%s",
                              gar_db_metric_columns[i], gar_db_metric_columns[i]);
    /* Intervals only where both runs have them: a run made before
     * version 4 (ci_level NULL) is compared on what it has. */
    if (v4)
        n += (size_t)snprintf(differ + n, sizeof differ - n,
                              " OR (a.ci_level IS NOT NULL AND b.ci_level IS NOT NULL AND (0");
    for (size_t i = 0; v4 && i < GAR_DB_INTERVALS; i++)
        n += (size_t)snprintf(differ + n, sizeof differ - n, " OR a.%s IS NOT b.%s",
                              gar_db_interval_columns[i], gar_db_interval_columns[i]);
    if (v4)
        n += (size_t)snprintf(differ + n, sizeof differ - n, "))");
    /* Auto's choices likewise, where both runs stored them (a run made
     * before version 5 has them NULL, as a fixed plan's run does). */
    for (size_t i = 0; v5 && i < GAR_DB_AUTO_COLUMNS; i++)
        n += (size_t)snprintf(differ + n, sizeof differ - n,
                              " OR (a.%s IS NOT NULL AND b.%s IS NOT NULL AND a.%s <> b.%s)",
                              gar_db_auto_columns[i], gar_db_auto_columns[i],
                              gar_db_auto_columns[i], gar_db_auto_columns[i]);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM src.runs a JOIN main.runs b USING (%s) WHERE %s",
             run_key_columns, differ);
    uint64_t conflicts = 0;
    if (count_of(s->sqlite, sql, &conflicts) < 0)
        return gar_db_fault(err, path, "compare the runs of", s->sqlite);
    if (conflicts > 0) {
        char why[160];
        snprintf(why, sizeof why,
                 "%llu of its runs are in the output with other results (made by another gar?)",
                 (unsigned long long)conflicts);
        return gar_error_set(err, GAR_E_IO, 3, path, "merge", why);
    }
    return 0;
}

/* Inside the merge, once the input agrees with the output: copies its
 * traces, hosts, runs (counting the new ones into stats->added) and the
 * rows that follow from them.  Returns 0, or -GAR_E_IO. */
static int copy_rows(gar_db *s, const char *path, bool v4, bool v5, gar_db_merge_stats *stats,
                     gar_error *err)
{
    char columns[2048], sql[8192];
    int rc = gar_db_exec(s,
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
                 run_key_columns, columns, run_key_columns, columns, run_key_columns);
        if (sqlite3_exec(s->sqlite, sql, NULL, NULL, NULL) != SQLITE_OK)
            rc = gar_db_fault(err, path, "merge the runs of", s->sqlite);
        else
            stats->added = (uint64_t)sqlite3_changes(s->sqlite);
    }
    /* A run the output holds made before version 4 gains the intervals
     * the input's same run has (their results are the same), and below its
     * notes; one made before version 5 gains auto's choices: which file
     * came first does not change the merge. */
    if (rc == 0 && v4)
        rc = gain_columns(s, path, gar_db_interval_columns, GAR_DB_INTERVALS, err);
    if (rc == 0 && v5)
        rc = gain_columns(s, path, gar_db_auto_columns, GAR_DB_AUTO_COLUMNS, err);
    /* A run both files hold has the same results, the same streams
     * included (compare_keyed_tables): only the new runs' rows are new. */
    if (rc == 0)
        rc = gar_db_exec(s, "INSERT OR IGNORE INTO main.run_streams SELECT * FROM src.run_streams",
                         "merge the run streams into", err);
    /* A run both files hold has the same value for a parameter both name
     * (compare_keyed_tables); the parameters only one of them names (another
     * spec swept it) come together. */
    if (rc == 0)
        rc = gar_db_exec(s,
                         "INSERT OR IGNORE INTO main.run_params (trace, plan, estimator, host, "
                         "mode, seed, name, value, number) SELECT trace, plan, estimator, host, "
                         "mode, seed, name, value, number FROM src.run_params",
                         "merge the run parameters into", err);
    /* Notes, like streams, follow from the run: only the new runs' are new. */
    if (rc == 0 && v4)
        rc = gar_db_exec(s,
                         "INSERT OR IGNORE INTO main.run_notes (trace, plan, estimator, host, "
                         "mode, seed, note, count, worst_ns, message) SELECT trace, plan, "
                         "estimator, host, mode, seed, note, count, worst_ns, message "
                         "FROM src.run_notes",
                         "merge the run notes into", err);
    if (rc == 0)
        rc = merge_verifications(s, path, &stats->verifications_added, err);
    return rc;
}

int gar_db_merge(gar_db *s, const char *path, gar_db_merge_stats *stats, gar_error *err)
{
    memset(stats, 0, sizeof *stats);
    int rc = attach_input(s, path, err);
    if (rc < 0)
        return rc;
    const bool v4 = gar_db_schema_version_of(s->sqlite, "src") >= 4;
    const bool v5 = gar_db_schema_version_of(s->sqlite, "src") >= 5;
    rc = gar_db_exec(s, "BEGIN IMMEDIATE", "begin the merge into", err);
    if (rc == 0 && count_of(s->sqlite, "SELECT count(*) FROM src.runs", &stats->runs) < 0)
        rc = gar_db_fault(err, path, "count the runs of", s->sqlite);
    if (rc == 0)
        rc = check_runs_agree(s, path, v4, v5, err);
    if (rc == 0)
        rc = compare_keyed_tables(s->sqlite, path, err);
    if (rc == 0)
        rc = copy_rows(s, path, v4, v5, stats, err);
    if (rc == 0)
        rc = gar_db_exec(s, "COMMIT", "commit the merge into", err);
    else
        sqlite3_exec(s->sqlite, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(s->sqlite, "DETACH DATABASE src", NULL, NULL, NULL);
    if (rc == 0)
        stats->present = stats->runs - stats->added;
    return rc;
}
