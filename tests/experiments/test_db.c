/* tests/experiments/test_db.c — the sweep database: its schema and meta,
 * one row per key, failed runs, merges that refuse another version, and
 * version 3 files read and converted. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep/db.h"
#include "sweep/results.h"
#include "db_files.h"

typedef struct fixture {
    char dir[64];
    char a[96], b[96], c[96];
} fixture;

static int setup(void **state)
{
    static fixture f;
    snprintf(f.dir, sizeof f.dir, "/tmp/gar-db-XXXXXX");
    assert_non_null(mkdtemp(f.dir));
    snprintf(f.a, sizeof f.a, "%s/a.db", f.dir);
    snprintf(f.b, sizeof f.b, "%s/b.db", f.dir);
    snprintf(f.c, sizeof f.c, "%s/c.db", f.dir);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove_db_files(f->a);
    remove_db_files(f->b);
    remove_db_files(f->c);
    rmdir(f->dir);
    return 0;
}

static gar_replay_metrics metrics(uint64_t p99)
{
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    m.waits = 10;
    m.overshoot_ns.p99 = p99;
    m.busy_ns = 5;
    m.wait_ns = 10;
    m.busy_frac = 0.5;
    return m;
}

static gar_db_run run_of(uint64_t seed, const gar_replay_metrics *m)
{
    gar_db_run r = { .trace = "00000000000000aa", .trace_name = "t.csv", .plan = "poll",
                     .estimator = "-", .host = "00000000000000bb", .host_name = "h.host",
                     .mode = "open", .seed = seed, .failure = NULL, .metrics = m,
                     .run_ns = 123 };
    return r;
}

static void seed_sources(gar_db *s)
{
    assert_int_equal(sqlite3_exec(gar_db_sqlite(s),
                                  "INSERT INTO traces VALUES ('00000000000000aa','t.csv','/t.csv',10);"
                                  "INSERT INTO hosts VALUES ('00000000000000bb','h.host','/h','x')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
}

static int64_t count(gar_db *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(gar_db_sqlite(s), sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static void a_new_database_has_its_schema_and_meta(void **state)
{
    fixture *f = *state;
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->a, false, &s, NULL), -GAR_E_IO); /* not created */
    assert_int_equal(gar_db_open(f->a, true, &s, NULL), 0);
    char v[64];
    assert_int_equal(gar_db_meta(s, "schema_version", v, sizeof v, NULL), 0);
    assert_string_equal(v, "5");
    assert_int_equal(gar_db_meta(s, "gar_version", v, sizeof v, NULL), 0);
    assert_true(strlen(v) > 0);
    assert_int_equal(gar_db_meta(s, "source_commit", v, sizeof v, NULL), 0);
    assert_true(strlen(v) > 0);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(gar_db_sqlite(s), "PRAGMA journal_mode", -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    gar_db_close(s);
}

/* The runs table of schema version 5, written out here by hand: every
 * column's name and declared type, in order.  Its metric and interval
 * columns are made from the replay metric table; an edit of that table
 * that would change them is a new schema version, not this one. */
static void the_runs_table_is_schema_version_5s(void **state)
{
    fixture *f = *state;
    static const char want[] =
        "id INTEGER,trace TEXT,trace_name TEXT,plan TEXT,plan_ran TEXT,estimator TEXT,"
        "host TEXT,host_name TEXT,mode TEXT,seed INTEGER,status TEXT,error_code INTEGER,"
        "error TEXT,waits INTEGER,overshoot_p50_ns INTEGER,overshoot_p90_ns INTEGER,"
        "overshoot_p99_ns INTEGER,overshoot_max_ns INTEGER,wait_ns INTEGER,busy_ns INTEGER,"
        "parked_ns INTEGER,asleep_ns INTEGER,busy_frac REAL,makespan_ns INTEGER,"
        "sleeps INTEGER,parks INTEGER,queries INTEGER,polls INTEGER,backstop_queries INTEGER,"
        "kinds_blocked INTEGER,kinds_immediate INTEGER,kinds_late INTEGER,"
        "kinds_parked INTEGER,predictions INTEGER,estimator_error_p50_ns INTEGER,"
        "estimator_error_p90_ns INTEGER,estimator_error_p99_ns INTEGER,"
        "estimator_error_max_ns INTEGER,run_ns INTEGER,finished_unix INTEGER,"
        "gar_version TEXT,source_commit TEXT,ci_level REAL,overshoot_p50_lo_ns INTEGER,"
        "overshoot_p50_hi_ns INTEGER,overshoot_p90_lo_ns INTEGER,overshoot_p90_hi_ns INTEGER,"
        "overshoot_p99_lo_ns INTEGER,overshoot_p99_hi_ns INTEGER,"
        "estimator_error_p50_lo_ns INTEGER,estimator_error_p50_hi_ns INTEGER,"
        "estimator_error_p90_lo_ns INTEGER,estimator_error_p90_hi_ns INTEGER,"
        "estimator_error_p99_lo_ns INTEGER,estimator_error_p99_hi_ns INTEGER,"
        "auto_block INTEGER,auto_poll INTEGER,auto_flag INTEGER,auto_sleeps INTEGER,"
        "auto_late_wakes INTEGER,auto_over_budget_waits INTEGER";
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->a, true, &s, NULL), 0);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(gar_db_sqlite(s),
                                        "SELECT group_concat(name || ' ' || type, ',') FROM "
                                        "(SELECT name, type FROM pragma_table_info('runs') "
                                        "ORDER BY cid)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), want);
    sqlite3_finalize(st);
    gar_db_close(s);
}

/* Every metric of an ok run lands in its own column: each given a value of
 * its own here, field by field, and read back by column name. */
static void every_metric_lands_in_its_column(void **state)
{
    fixture *f = *state;
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->a, true, &s, NULL), 0);
    seed_sources(s);
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    m.waits = 101;
    m.overshoot_ns = (gar_replay_quantiles){ 102, 103, 104, 105 };
    m.wait_ns = 106;
    m.busy_ns = 107;
    m.parked_ns = 108;
    m.asleep_ns = 109;
    m.busy_frac = 0.25;
    m.makespan_ns = 110;
    m.sleeps = 111;
    m.parks = 112;
    m.queries = 113;
    m.polls = 114;
    m.backstop_queries = 115;
    m.blocked = 116;
    m.immediate = 117;
    m.late = 118;
    m.parked = 119;
    m.predictions = 120;
    m.estimator_error_ns = (gar_replay_quantiles){ 121, 122, 123, 124 };
    m.ci_level = 0.9;
    m.overshoot_ci.p50 = (gar_quantile_interval){ .has_lo = true, .lo = 125 };
    m.overshoot_ci.p90 = (gar_quantile_interval){ .has_hi = true, .hi = 126 };
    m.overshoot_ci.p99 = (gar_quantile_interval){ .has_lo = true, .lo = 127, .has_hi = true,
                                                  .hi = 128 };
    m.estimator_error_ci.p50 = (gar_quantile_interval){ .has_lo = true, .lo = 129,
                                                        .has_hi = true, .hi = 130 };
    m.estimator_error_ci.p99 = (gar_quantile_interval){ .has_hi = true, .hi = 131 };
    gar_db_run r = run_of(1, &m);
    assert_int_equal(gar_db_insert(s, &r, NULL), 1);
    static const struct {
        const char *column;
        int64_t value; /* -1: NULL */
    } want[] = {
        { "waits", 101 }, { "overshoot_p50_ns", 102 }, { "overshoot_p90_ns", 103 },
        { "overshoot_p99_ns", 104 }, { "overshoot_max_ns", 105 }, { "wait_ns", 106 },
        { "busy_ns", 107 }, { "parked_ns", 108 }, { "asleep_ns", 109 },
        { "makespan_ns", 110 }, { "sleeps", 111 }, { "parks", 112 }, { "queries", 113 },
        { "polls", 114 }, { "backstop_queries", 115 }, { "kinds_blocked", 116 },
        { "kinds_immediate", 117 }, { "kinds_late", 118 }, { "kinds_parked", 119 },
        { "predictions", 120 }, { "estimator_error_p50_ns", 121 },
        { "estimator_error_p90_ns", 122 }, { "estimator_error_p99_ns", 123 },
        { "estimator_error_max_ns", 124 },
        { "overshoot_p50_lo_ns", 125 }, { "overshoot_p50_hi_ns", -1 },
        { "overshoot_p90_lo_ns", -1 }, { "overshoot_p90_hi_ns", 126 },
        { "overshoot_p99_lo_ns", 127 }, { "overshoot_p99_hi_ns", 128 },
        { "estimator_error_p50_lo_ns", 129 }, { "estimator_error_p50_hi_ns", 130 },
        { "estimator_error_p90_lo_ns", -1 }, { "estimator_error_p90_hi_ns", -1 },
        { "estimator_error_p99_lo_ns", -1 }, { "estimator_error_p99_hi_ns", 131 },
    };
    char sql[160];
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        snprintf(sql, sizeof sql, "SELECT coalesce(%s, -1) FROM runs", want[i].column);
        if (count(s, sql) != want[i].value)
            fail_msg("%s holds %lld, not %lld", want[i].column, (long long)count(s, sql),
                     (long long)want[i].value);
    }
    assert_int_equal(count(s, "SELECT busy_frac = 0.25 AND ci_level = 0.9 AND "
                              "typeof(busy_frac) = 'real' FROM runs"),
                     1);
    gar_db_close(s);
}

static void a_key_is_stored_once_and_failures_too(void **state)
{
    fixture *f = *state;
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->a, true, &s, NULL), 0);
    seed_sources(s);
    gar_replay_metrics m = metrics(7);
    gar_db_run r = run_of(1, &m);
    assert_int_equal(gar_db_has(s, &r, NULL), 0);
    assert_int_equal(gar_db_insert(s, &r, NULL), 1);
    assert_int_equal(gar_db_has(s, &r, NULL), 1);
    assert_int_equal(gar_db_insert(s, &r, NULL), 0); /* already there: nothing changes */
    gar_error failure;
    gar_error_set(&failure, GAR_E_DEVICE_FAULT, 1, "a lost store");
    gar_db_run bad = run_of(2, &m);
    bad.failure = &failure;
    assert_int_equal(gar_db_insert(s, &bad, NULL), 1);
    assert_int_equal(count(s, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(count(s, "SELECT overshoot_p99_ns FROM runs WHERE seed = 1"), 7);
    assert_int_equal(count(s, "SELECT error_code FROM runs WHERE status = 'failed'"),
                     GAR_E_DEVICE_FAULT);
    assert_int_equal(count(s, "SELECT count(*) FROM runs WHERE seed = 2 AND waits IS NULL"), 1);
    gar_db_close(s);
}

/* An ok run's streams are stored with it, under its key; a failed run has
 * none; a run whose streams cannot all be stored is not stored at all; a
 * merge brings the new runs' streams along. */
static void runs_keep_their_streams_and_merges_bring_them(void **state)
{
    fixture *f = *state;
    gar_db *a = NULL, *c = NULL;
    assert_int_equal(gar_db_open(f->a, true, &a, NULL), 0);
    assert_int_equal(gar_db_open(f->c, true, &c, NULL), 0);
    seed_sources(a);
    seed_sources(c);
    gar_replay_stream two[2] = {
        { .stream = 70000, .waits = 6, .overshoot_ns = { 1, 2, 3, 4 }, .busy_ns = 3 },
        { .stream = 4, .waits = 4, .overshoot_ns = { 5, 6, 7, 8 }, .busy_ns = 2 },
    };
    gar_replay_streams streams = { two, 2 };
    gar_replay_metrics m = metrics(7);
    gar_db_run r = run_of(1, &m);
    r.streams = &streams;
    assert_int_equal(gar_db_insert(a, &r, NULL), 1);
    assert_int_equal(gar_db_insert(a, &r, NULL), 0); /* already there: no second rows */
    assert_int_equal(count(a, "SELECT count(*) FROM run_streams"), 2);
    assert_int_equal(count(a, "SELECT waits * 1000 + overshoot_p99_ns * 100 + overshoot_p50_ns "
                              "* 10 + busy_ns FROM run_streams WHERE stream = 70000 AND seed = 1 "
                              "AND plan = 'poll' AND mode = 'open'"),
                     6000 + 300 + 10 + 3);
    assert_int_equal(count(a, "SELECT overshoot_max_ns FROM run_streams WHERE stream = 4"), 8);

    gar_error failure;
    gar_error_set(&failure, GAR_E_DEVICE_FAULT, 1, "a lost store");
    gar_db_run bad = run_of(2, &m);
    bad.failure = &failure;
    bad.streams = &streams;
    assert_int_equal(gar_db_insert(a, &bad, NULL), 1);
    assert_int_equal(count(a, "SELECT count(*) FROM run_streams WHERE seed = 2"), 0);

    /* A stream named twice breaks the table's key: the run goes with it. */
    gar_replay_stream twice[2] = { two[1], two[1] };
    gar_replay_streams broken = { twice, 2 };
    gar_db_run r3 = run_of(3, &m);
    r3.streams = &broken;
    gar_error err;
    assert_int_equal(gar_db_insert(a, &r3, &err), -GAR_E_IO);
    assert_int_equal(count(a, "SELECT count(*) FROM runs WHERE seed = 3"), 0);
    assert_int_equal(count(a, "SELECT count(*) FROM run_streams WHERE seed = 3"), 0);

    gar_db_run r4 = run_of(4, &m);
    r4.streams = &streams;
    assert_int_equal(gar_db_insert(c, &r, NULL), 1);
    assert_int_equal(gar_db_insert(c, &r4, NULL), 1);
    gar_db_close(c);
    gar_db_merge_stats st;
    assert_int_equal(gar_db_merge(a, f->c, &st, NULL), 0);
    assert_int_equal(st.added, 1);
    assert_int_equal(count(a, "SELECT count(*) FROM run_streams"), 4);
    assert_int_equal(count(a, "SELECT count(*) FROM run_streams WHERE seed = 4"), 2);
    gar_db_close(a);
}

static void merge_adds_the_new_and_refuses_other_versions(void **state)
{
    fixture *f = *state;
    gar_db *a = NULL, *b = NULL;
    assert_int_equal(gar_db_open(f->a, true, &a, NULL), 0);
    assert_int_equal(gar_db_open(f->b, true, &b, NULL), 0);
    seed_sources(a);
    seed_sources(b);
    gar_replay_metrics m = metrics(7);
    gar_db_run r1 = run_of(1, &m), r2 = run_of(2, &m);
    assert_int_equal(gar_db_insert(a, &r1, NULL), 1);
    assert_int_equal(gar_db_insert(b, &r1, NULL), 1);
    assert_int_equal(gar_db_insert(b, &r2, NULL), 1);
    gar_db_merge_stats st;
    assert_int_equal(gar_db_merge(a, f->b, &st, NULL), 0);
    assert_int_equal(st.runs, 2);
    assert_int_equal(st.added, 1);
    assert_int_equal(st.present, 1);
    assert_int_equal(count(a, "SELECT count(*) FROM runs"), 2);

    /* The same key with other results: refused, nothing copied. */
    gar_replay_metrics other = metrics(8);
    gar_db_run r3 = run_of(3, &m), r1_other = run_of(1, &other);
    assert_int_equal(sqlite3_exec(gar_db_sqlite(b), "DELETE FROM runs", NULL, NULL, NULL),
                     SQLITE_OK);
    assert_int_equal(gar_db_insert(b, &r1_other, NULL), 1);
    assert_int_equal(gar_db_insert(b, &r3, NULL), 1);
    gar_error err;
    assert_int_equal(gar_db_merge(a, f->b, &st, &err), -GAR_E_IO);
    assert_int_equal(count(a, "SELECT count(*) FROM runs"), 2);

    /* Another schema version: refused, naming the file and both versions. */
    assert_int_equal(sqlite3_exec(gar_db_sqlite(b),
                                  "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    gar_db_close(b);
    assert_int_equal(gar_db_merge(a, f->b, &st, &err), -GAR_E_IO);
    char text[512];
    gar_error_message(&err, text, sizeof text);
    assert_non_null(strstr(text, f->b));
    assert_non_null(strstr(text, "version is 99"));
    assert_non_null(strstr(text, "schema versions 3 to 5"));
    /* And opened directly, too. */
    assert_int_equal(gar_db_open(f->b, true, &b, &err), -GAR_E_IO);
    gar_db_close(a);
}

/* The whole file's bytes, to prove a refusal changed none. */
static size_t slurp(const char *path, unsigned char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, size, f);
    fclose(f);
    return n;
}

static void plain_database(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void another_programs_database_is_refused_and_left_as_it_was(void **state)
{
    fixture *f = *state;
    plain_database(f->a, "CREATE TABLE songs (title TEXT); INSERT INTO songs VALUES ('x')");
    static unsigned char before[65536], after[65536];
    size_t n = slurp(f->a, before, sizeof before);
    assert_int_equal(before[19], 1); /* rollback journal, not WAL */
    gar_db *s = NULL;
    gar_error err;
    for (int create = 0; create < 2; create++) {
        assert_int_equal(gar_db_open(f->a, create == 1, &s, &err), -GAR_E_IO);
        assert_null(s);
        char text[512];
        gar_error_message(&err, text, sizeof text);
        assert_non_null(strstr(text, "not a gar sweep database"));
        assert_non_null(strstr(text, "songs"));
        assert_int_equal(slurp(f->a, after, sizeof after), n);
        assert_memory_equal(before, after, n);
    }
    char side[128];
    snprintf(side, sizeof side, "%s-wal", f->a);
    assert_int_equal(access(side, F_OK), -1); /* nothing made beside it either */

    /* Not SQLite at all: refused, unchanged. */
    static const char text[] = "just some text, long enough to look like a header of something\n";
    FILE *t = fopen(f->b, "w");
    assert_non_null(t);
    fputs(text, t);
    fclose(t);
    assert_int_equal(gar_db_open(f->b, true, &s, &err), -GAR_E_IO);
    assert_int_equal(slurp(f->b, after, sizeof after), strlen(text));
    assert_memory_equal(after, text, strlen(text));

    /* An empty SQLite database has nothing to lose: it becomes gar's. */
    plain_database(f->c, "PRAGMA user_version = 0");
    assert_int_equal(gar_db_open(f->c, true, &s, &err), 0);
    gar_db_close(s);
}

static void every_run_records_the_gar_that_ran_it(void **state)
{
    fixture *f = *state;
    gar_db *a = NULL, *b = NULL;
    assert_int_equal(gar_db_open(f->a, true, &a, NULL), 0);
    assert_int_equal(gar_db_open(f->b, true, &b, NULL), 0);
    seed_sources(a);
    seed_sources(b);
    gar_replay_metrics m = metrics(7);
    gar_db_run r1 = run_of(1, &m), r2 = run_of(2, &m);
    assert_int_equal(gar_db_insert(a, &r1, NULL), 1);
    char version[64];
    assert_int_equal(gar_db_meta(a, "gar_version", version, sizeof version, NULL), 0);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM runs WHERE gar_version = '%s' AND source_commit = "
             "(SELECT value FROM meta WHERE key = 'source_commit')",
             version);
    assert_int_equal(count(a, sql), 1);
    /* A run made by another gar keeps its version through a merge. */
    assert_int_equal(gar_db_insert(b, &r2, NULL), 1);
    assert_int_equal(sqlite3_exec(gar_db_sqlite(b),
                                  "UPDATE runs SET gar_version = '0.0.9', source_commit = 'abc'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    gar_db_close(b);
    gar_db_merge_stats st;
    assert_int_equal(gar_db_merge(a, f->b, &st, NULL), 0);
    assert_int_equal(count(a, "SELECT count(*) FROM runs WHERE seed = 2 AND gar_version = "
                              "'0.0.9' AND source_commit = 'abc'"),
                     1);
    assert_int_equal(count(a, "SELECT count(DISTINCT gar_version) FROM runs"), 2);
    gar_db_close(a);
}

static void a_version_1_database_is_refused_saying_what_to_do(void **state)
{
    fixture *f = *state;
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->a, true, &s, NULL), 0);
    assert_int_equal(sqlite3_exec(gar_db_sqlite(s),
                                  "UPDATE meta SET value = '1' WHERE key = 'schema_version'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    gar_db_close(s);
    gar_error err;
    assert_int_equal(gar_db_open(f->a, true, &s, &err), -GAR_E_IO);
    char text[1024];
    gar_error_message(&err, text, sizeof text);
    assert_non_null(strstr(text, "its schema version is 1; this gar reads schema versions 3 to 5"));
    assert_non_null(strstr(text, "sweep again into a new file"));

    /* Version 2 had no run_streams: refused too, saying so. */
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->a, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(gar_db_open(f->a, true, &s, &err), -GAR_E_IO);
    gar_error_message(&err, text, sizeof text);
    assert_non_null(strstr(text, "its schema version is 2; this gar reads schema versions 3 to 5"));
    assert_non_null(strstr(text, "no per-stream counts"));
}

/* An ok run's intervals land in their columns, an absent end as NULL; its
 * notes in run_notes under its key (worst NULL where it has none); a
 * failed run has neither; a merge brings the new runs' notes. */
static void runs_keep_their_intervals_and_notes(void **state)
{
    fixture *f = *state;
    gar_db *a = NULL, *c = NULL;
    assert_int_equal(gar_db_open(f->a, true, &a, NULL), 0);
    assert_int_equal(gar_db_open(f->c, true, &c, NULL), 0);
    seed_sources(a);
    seed_sources(c);
    gar_replay_metrics m = metrics(7);
    m.ci_level = 0.95;
    m.overshoot_ci.p50 = (gar_quantile_interval){ true, true, 3, 9 };
    m.overshoot_ci.p99 = (gar_quantile_interval){ true, false, 6, 0 };
    m.estimator_error_ci.p90 = (gar_quantile_interval){ false, true, 0, 11 };
    gar_replay_notes notes = { .count = 2 };
    notes.note[0] = (gar_replay_note){ .name = "late_wakes", .count = 2, .has_worst = true,
                                       .worst_ns = 22500000, .message = "2 predicted sleeps" };
    notes.note[1] = (gar_replay_note){ .name = "few_waits", .count = 10,
                                       .message = "10 waits are too few" };
    gar_db_run r = run_of(1, &m);
    r.notes = &notes;
    assert_int_equal(gar_db_insert(a, &r, NULL), 1);
    assert_int_equal(count(a, "SELECT count(*) FROM runs WHERE ci_level = 0.95 AND "
                              "overshoot_p50_lo_ns = 3 AND overshoot_p50_hi_ns = 9 AND "
                              "overshoot_p90_lo_ns IS NULL AND overshoot_p90_hi_ns IS NULL AND "
                              "overshoot_p99_lo_ns = 6 AND overshoot_p99_hi_ns IS NULL AND "
                              "estimator_error_p90_lo_ns IS NULL AND "
                              "estimator_error_p90_hi_ns = 11"),
                     1);
    assert_int_equal(count(a, "SELECT worst_ns FROM run_notes WHERE note = 'late_wakes' AND "
                              "count = 2 AND seed = 1 AND plan = 'poll' AND message = "
                              "'2 predicted sleeps'"),
                     22500000);
    assert_int_equal(count(a, "SELECT count(*) FROM run_notes WHERE note = 'few_waits' AND "
                              "worst_ns IS NULL"),
                     1);
    gar_error failure;
    gar_error_set(&failure, GAR_E_DEVICE_FAULT, 1, "a lost store");
    gar_db_run bad = run_of(2, &m);
    bad.failure = &failure;
    bad.notes = &notes;
    assert_int_equal(gar_db_insert(a, &bad, NULL), 1);
    assert_int_equal(count(a, "SELECT count(*) FROM run_notes WHERE seed = 2"), 0);
    assert_int_equal(count(a, "SELECT count(*) FROM runs WHERE seed = 2 AND ci_level IS NULL"),
                     1);

    gar_db_run r4 = run_of(4, &m);
    r4.notes = &notes;
    assert_int_equal(gar_db_insert(c, &r, NULL), 1);
    assert_int_equal(gar_db_insert(c, &r4, NULL), 1);
    gar_db_close(c);
    gar_db_merge_stats st;
    assert_int_equal(gar_db_merge(a, f->c, &st, NULL), 0);
    assert_int_equal(st.added, 1);
    assert_int_equal(st.present, 1);
    assert_int_equal(count(a, "SELECT count(*) FROM run_notes"), 4);
    assert_int_equal(count(a, "SELECT overshoot_p50_hi_ns FROM runs WHERE seed = 4"), 9);
    gar_db_close(a);
}

/* The version 5 columns, as a version 4 file lacked them. */
static const char *const v5_columns[] = {
    "auto_block", "auto_poll", "auto_flag", "auto_sleeps", "auto_late_wakes",
    "auto_over_budget_waits",
};

/* Turns the closed gar database at `path` into the version 4 file an older
 * gar would have written: no auto columns, version 4. */
static void make_version_4(const char *path)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char sql[128];
    for (size_t i = 0; i < sizeof v5_columns / sizeof v5_columns[0]; i++) {
        snprintf(sql, sizeof sql, "ALTER TABLE runs DROP COLUMN %s", v5_columns[i]);
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    assert_int_equal(sqlite3_exec(db, "UPDATE meta SET value = '4' WHERE key = 'schema_version'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
}

/* The version 4 columns, as a version 3 file lacked them. */
static const char *const v4_columns[] = {
    "ci_level",
    "overshoot_p50_lo_ns", "overshoot_p50_hi_ns", "overshoot_p90_lo_ns",
    "overshoot_p90_hi_ns", "overshoot_p99_lo_ns", "overshoot_p99_hi_ns",
    "estimator_error_p50_lo_ns", "estimator_error_p50_hi_ns", "estimator_error_p90_lo_ns",
    "estimator_error_p90_hi_ns", "estimator_error_p99_lo_ns", "estimator_error_p99_hi_ns",
};

/* Turns the closed gar database at `path` into the version 3 file an older
 * gar would have written: no interval columns, no run_notes, version 3. */
static void make_version_3(const char *path)
{
    make_version_4(path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char sql[128];
    for (size_t i = 0; i < sizeof v4_columns / sizeof v4_columns[0]; i++) {
        snprintf(sql, sizeof sql, "ALTER TABLE runs DROP COLUMN %s", v4_columns[i]);
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    assert_int_equal(sqlite3_exec(db,
                                  "DROP TABLE run_notes;"
                                  "UPDATE meta SET value = '3' WHERE key = 'schema_version'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    /* Version 3's verifications, as it made them, with one row of one real run. */
    assert_int_equal(
        sqlite3_exec(db,
                     "DROP TABLE verifications;"
                     "CREATE TABLE verifications (id INTEGER PRIMARY KEY, trace TEXT NOT NULL,"
                     " trace_name TEXT NOT NULL, plan TEXT NOT NULL, plan_ran TEXT NOT NULL,"
                     " estimator TEXT NOT NULL, waits INTEGER NOT NULL, device TEXT NOT NULL,"
                     " host_profile TEXT NOT NULL, seed INTEGER NOT NULL,"
                     " real_p50_ns INTEGER NOT NULL, real_p90_ns INTEGER NOT NULL,"
                     " real_p99_ns INTEGER NOT NULL, sim_p50_ns INTEGER NOT NULL,"
                     " sim_p90_ns INTEGER NOT NULL, sim_p99_ns INTEGER NOT NULL,"
                     " ks_d REAL NOT NULL, busy_real REAL NOT NULL, busy_sim REAL NOT NULL,"
                     " verdict TEXT NOT NULL CHECK (verdict IN ('agree', 'disagree')),"
                     " tolerance TEXT NOT NULL, real_cdf TEXT NOT NULL, sim_cdf TEXT NOT NULL,"
                     " gar_version TEXT NOT NULL, finished_unix INTEGER NOT NULL,"
                     " UNIQUE (trace, plan, estimator, waits, device, host_profile, seed));"
                     "INSERT INTO verifications VALUES (1, 't', 'steady', 'poll', 'poll', 'adl',"
                     " 100, 'emulated', 'h', 0, 500, 900, 1200, 510, 950, 1300, 0.08, 1.0, 1.0,"
                     " 'agree', 'ks_d=0.15', '0', '0', '0.1.0', 1)",
                     NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(db);
}

/* A version 3 file is merged as an input as it is (its runs without
 * intervals or notes, compared on what they have), and opened it is
 * converted in one step: the columns and table added, its runs kept, new
 * runs stored whole. */
static void a_version_3_database_is_read_and_converted(void **state)
{
    fixture *f = *state;
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->b, true, &s, NULL), 0);
    seed_sources(s);
    gar_replay_metrics m = metrics(7);
    gar_db_run r1 = run_of(1, &m), r2 = run_of(2, &m);
    assert_int_equal(gar_db_insert(s, &r1, NULL), 1);
    assert_int_equal(gar_db_insert(s, &r2, NULL), 1);
    gar_db_close(s);
    make_version_3(f->b);
    assert_int_equal(gar_db_check(f->b, false, "open", NULL), 1);

    /* Merged into a version 4 file that holds r1 already: r2 is added. */
    gar_db *a = NULL;
    assert_int_equal(gar_db_open(f->a, true, &a, NULL), 0);
    seed_sources(a);
    assert_int_equal(gar_db_insert(a, &r1, NULL), 1);
    gar_db_merge_stats st;
    assert_int_equal(gar_db_merge(a, f->b, &st, NULL), 0);
    assert_int_equal(st.added, 1);
    assert_int_equal(st.present, 1);
    assert_int_equal(count(a, "SELECT count(*) FROM runs WHERE seed = 2 AND ci_level IS NULL "
                              "AND overshoot_p99_ns = 7"),
                     1);
    gar_db_close(a);

    /* Opened: converted, its runs as they were. */
    assert_int_equal(gar_db_open(f->b, false, &s, NULL), 0);
    char v[16];
    assert_int_equal(gar_db_meta(s, "schema_version", v, sizeof v, NULL), 0);
    assert_string_equal(v, "5");
    assert_int_equal(count(s, "SELECT count(*) FROM runs WHERE overshoot_p99_ns = 7 AND "
                              "ci_level IS NULL AND overshoot_p99_hi_ns IS NULL"),
                     2);
    assert_int_equal(count(s, "SELECT count(*) FROM run_notes"), 0);
    /* Its verification kept, its one real run standing for the envelope. */
    assert_int_equal(count(s, "SELECT count(*) FROM verifications WHERE runs = 1 AND "
                              "real_min_p90_ns = 900 AND real_max_p90_ns = 900 AND "
                              "position_p50 = 'not judged' AND verdict = 'agree' AND "
                              "real_ks_d_max = 0"),
                     1);
    gar_db_run r3 = run_of(3, &m);
    assert_int_equal(gar_db_insert(s, &r3, NULL), 1);
    assert_int_equal(count(s, "SELECT count(*) FROM runs"), 3);
    gar_db_close(s);
    /* Opened again: nothing more to do. */
    assert_int_equal(gar_db_open(f->b, false, &s, NULL), 0);
    assert_int_equal(count(s, "SELECT count(*) FROM pragma_table_info('runs') WHERE name = "
                              "'overshoot_p99_lo_ns'"),
                     1);
    gar_db_close(s);
}

/* An auto plan's run stores what it chose (a fixed plan's: NULL); a version
 * 4 file is read as it is, converted by a writer, and a merge carries the
 * choices: into a new file, and onto the same run made before version 5. */
static void auto_choices_are_stored_converted_and_merged(void **state)
{
    fixture *f = *state;
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->b, true, &s, NULL), 0);
    seed_sources(s);
    gar_replay_metrics fixed = metrics(7), chosen = metrics(8);
    chosen.auto_counts = (gar_auto_counts){ .waits = 10, .block = 1, .poll = 2, .flag = 7,
                                            .sleeps = 6, .late = 3, .over_budget = 4 };
    chosen.auto_over_budget_waits = 5;
    gar_db_run r1 = run_of(1, &fixed), r2 = run_of(2, &chosen);
    r2.plan = "auto:p99_us=20";
    assert_int_equal(gar_db_insert(s, &r1, NULL), 1);
    assert_int_equal(gar_db_insert(s, &r2, NULL), 1);
    static const char stored[] =
        "SELECT count(*) FROM runs WHERE seed = 2 AND auto_block = 1 AND auto_poll = 2 AND "
        "auto_flag = 7 AND auto_sleeps = 6 AND auto_late_wakes = 3 AND "
        "auto_over_budget_waits = 5";
    assert_int_equal(count(s, stored), 1);
    assert_int_equal(count(s, "SELECT count(*) FROM runs WHERE seed = 1 AND auto_block IS NULL "
                              "AND auto_over_budget_waits IS NULL"),
                     1);
    gar_db_close(s);

    /* Merged into a new file: the choices come along. */
    assert_int_equal(gar_db_open(f->a, true, &s, NULL), 0);
    gar_db_merge_stats st;
    assert_int_equal(gar_db_merge(s, f->b, &st, NULL), 0);
    assert_int_equal(st.added, 2);
    assert_int_equal(count(s, stored), 1);
    gar_db_close(s);

    /* The same runs in a version 4 file, merged first into a third: its
     * runs gain the choices from the version 5 input. */
    remove_db_files(f->c);
    assert_int_equal(gar_db_open(f->c, true, &s, NULL), 0);
    assert_int_equal(gar_db_merge(s, f->b, &st, NULL), 0);
    gar_db_close(s);
    make_version_4(f->c);
    gar_db *reader = NULL;
    assert_int_equal(gar_db_open_read(f->c, &reader, NULL), 0); /* read as it is */
    char v[16];
    assert_int_equal(gar_db_meta(reader, "schema_version", v, sizeof v, NULL), 0);
    assert_string_equal(v, "4");
    gar_db_close(reader);
    assert_int_equal(gar_db_open(f->c, false, &s, NULL), 0); /* a writer converts it */
    assert_int_equal(gar_db_meta(s, "schema_version", v, sizeof v, NULL), 0);
    assert_string_equal(v, "5");
    assert_int_equal(count(s, "SELECT count(*) FROM runs WHERE auto_block IS NULL"), 2);
    assert_int_equal(gar_db_merge(s, f->b, &st, NULL), 0);
    assert_int_equal(st.present, 2);
    assert_int_equal(count(s, stored), 1);
    gar_db_close(s);
}

static void a_database_is_not_merged_into_itself(void **state)
{
    fixture *f = *state;
    gar_db *a = NULL;
    assert_int_equal(gar_db_open(f->a, true, &a, NULL), 0);
    gar_db_merge_stats st;
    gar_error err;
    char text[512];
    assert_int_equal(gar_db_merge(a, f->a, &st, &err), -GAR_E_IO);
    gar_error_message(&err, text, sizeof text);
    assert_non_null(strstr(text, "itself"));
    assert_int_equal(link(f->a, f->c), 0); /* the same file under another name */
    assert_int_equal(gar_db_merge(a, f->c, &st, &err), -GAR_E_IO);
    gar_error_message(&err, text, sizeof text);
    assert_non_null(strstr(text, "itself"));
    gar_db_close(a);
}

/* Refuses `path` as not gar's (opening, with and without create) naming
 * `why`, and leaves every byte of it as it was. */
static void refused_unchanged(const char *path, const char *why)
{
    static unsigned char before[262144], after[262144];
    size_t n = slurp(path, before, sizeof before);
    gar_db *s = NULL;
    gar_error err;
    char text[1024];
    for (int create = 0; create < 2; create++) {
        assert_int_equal(gar_db_open(path, create == 1, &s, &err), -GAR_E_IO);
        assert_null(s);
        gar_error_message(&err, text, sizeof text);
        assert_non_null(strstr(text, "not a gar sweep database"));
        assert_non_null(strstr(text, why));
        assert_int_equal(slurp(path, after, sizeof after), n);
        assert_memory_equal(before, after, n);
    }
    assert_int_equal(gar_db_check(path, true, "open", &err), -GAR_E_IO);
}

/* A gar meta table is not enough: a database is gar's only with all of
 * gar's tables and their columns, and anything less is refused before a
 * pragma or a write (plot and report would otherwise switch it to WAL). */
static void a_file_with_gar_meta_but_not_gar_tables_is_refused_unchanged(void **state)
{
    fixture *f = *state;
    plain_database(f->a, "CREATE TABLE meta (key TEXT, value TEXT);"
                         "INSERT INTO meta VALUES ('schema_version', '3');"
                         "CREATE TABLE customer (name TEXT)");
    refused_unchanged(f->a, "lacks gar's table 'traces'");

    /* A gar database with one column gone, or of another type: not gar's. */
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->b, true, &s, NULL), 0);
    gar_db_close(s);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(f->b, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE;"
                                      "ALTER TABLE run_streams DROP COLUMN busy_ns",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    refused_unchanged(f->b, "lacks gar's column 'run_streams.busy_ns'");

    assert_int_equal(gar_db_open(f->c, true, &s, NULL), 0);
    gar_db_close(s);
    assert_int_equal(sqlite3_open(f->c, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE;"
                                      "ALTER TABLE hosts RENAME TO hosts_old;"
                                      "CREATE TABLE hosts (host BLOB PRIMARY KEY, name TEXT, "
                                      "source TEXT, profile TEXT)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    refused_unchanged(f->c, "declares column 'hosts.host' as 'BLOB' where gar's is 'TEXT'");
}

/* Stores run 1 (two streams, parameter margin_us=50) into a fresh `path`,
 * then changes it by `sql`. */
static void one_run_changed(const char *path, const char *sql)
{
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(path, true, &s, NULL), 0);
    seed_sources(s);
    gar_replay_stream two[2] = {
        { .stream = 1, .waits = 6, .overshoot_ns = { 1, 2, 3, 4 }, .busy_ns = 3 },
        { .stream = 2, .waits = 4, .overshoot_ns = { 5, 6, 7, 8 }, .busy_ns = 2 },
    };
    gar_replay_streams streams = { two, 2 };
    gar_sweep_param margin = { .name = "margin_us", .value = "50" };
    gar_replay_metrics m = metrics(7);
    gar_db_run r = run_of(1, &m);
    r.streams = &streams;
    r.params = &margin;
    r.param_count = 1;
    assert_int_equal(gar_db_insert(s, &r, NULL), 1);
    assert_int_equal(sqlite3_exec(gar_db_sqlite(s), sql, NULL, NULL, NULL), SQLITE_OK);
    gar_db_close(s);
}

/* A run both files hold must agree in every table keyed by a run, not in
 * `runs` alone: a stream's row that differs, or is in one file only,
 * refuses the merge, naming the table, and changes nothing; a parameter
 * only one file names (another spec swept the run) is joined, but one both
 * name must agree. */
static void merge_compares_every_table_of_a_run(void **state)
{
    fixture *f = *state;
    static const struct {
        const char *change;
        const char *refusal; /* NULL: merged */
    } cases[] = {
        { "SELECT 1", NULL },
        { "UPDATE run_streams SET busy_ns = 99 WHERE stream = 2",
          "other results in table 'run_streams' (rows that differ: 1, rows in one file only: 0" },
        { "DELETE FROM run_streams WHERE stream = 2",
          "other results in table 'run_streams' (rows that differ: 0, rows in one file only: 1" },
        { "UPDATE run_params SET value = '60', number = 60",
          "other results in table 'run_params' (rows that differ: 1" },
        { "INSERT INTO run_params SELECT trace, plan, estimator, host, mode, seed, 'window', "
          "'8', 8 FROM runs",
          NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        teardown(state);
        assert_non_null(mkdtemp(strcpy(f->dir, "/tmp/gar-db-XXXXXX")));
        snprintf(f->a, sizeof f->a, "%s/a.db", f->dir);
        snprintf(f->b, sizeof f->b, "%s/b.db", f->dir);
        snprintf(f->c, sizeof f->c, "%s/c.db", f->dir);
        one_run_changed(f->a, "SELECT 1");
        one_run_changed(f->b, cases[i].change);
        gar_db *a = NULL;
        assert_int_equal(gar_db_open(f->a, false, &a, NULL), 0);
        gar_db_merge_stats st;
        gar_error err;
        int rc = gar_db_merge(a, f->b, &st, &err);
        if (cases[i].refusal == NULL) {
            assert_int_equal(rc, 0);
            assert_int_equal(st.present, 1);
        } else {
            assert_int_equal(rc, -GAR_E_IO);
            char text[1024];
            gar_error_message(&err, text, sizeof text);
            assert_non_null(strstr(text, cases[i].refusal));
            assert_int_equal(count(a, "SELECT count(*) FROM run_params WHERE value = '50'"), 1);
        }
        assert_int_equal(count(a, "SELECT count(*) FROM run_streams WHERE busy_ns != 99"), 2);
        assert_int_equal(count(a, "SELECT count(*) FROM run_params"),
                         i == sizeof cases / sizeof cases[0] - 1 ? 2 : 1);
        gar_db_close(a);
    }
}

/* A database with no runs (a shard that got none) has no arms: an empty
 * list, with nothing sorted (sanitizers see a NULL array handed to qsort). */
static void a_database_without_runs_has_no_arms(void **state)
{
    fixture *f = *state;
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(f->a, true, &s, NULL), 0);
    gar_arm_list arms = { NULL, 7 };
    assert_int_equal(gar_results_arms(s, &arms, NULL), 0);
    assert_int_equal(arms.count, 0);
    gar_arm_list_free(&arms);
    gar_db_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_new_database_has_its_schema_and_meta, setup, teardown),
        cmocka_unit_test_setup_teardown(the_runs_table_is_schema_version_5s, setup, teardown),
        cmocka_unit_test_setup_teardown(auto_choices_are_stored_converted_and_merged, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(every_metric_lands_in_its_column, setup, teardown),
        cmocka_unit_test_setup_teardown(a_key_is_stored_once_and_failures_too, setup, teardown),
        cmocka_unit_test_setup_teardown(runs_keep_their_streams_and_merges_bring_them, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(merge_adds_the_new_and_refuses_other_versions, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(another_programs_database_is_refused_and_left_as_it_was,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(every_run_records_the_gar_that_ran_it, setup, teardown),
        cmocka_unit_test_setup_teardown(a_version_1_database_is_refused_saying_what_to_do, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(runs_keep_their_intervals_and_notes, setup, teardown),
        cmocka_unit_test_setup_teardown(a_version_3_database_is_read_and_converted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_database_is_not_merged_into_itself, setup, teardown),
        cmocka_unit_test_setup_teardown(a_database_without_runs_has_no_arms, setup, teardown),
        cmocka_unit_test_setup_teardown(merge_compares_every_table_of_a_run, setup, teardown),
        cmocka_unit_test_setup_teardown(
            a_file_with_gar_meta_but_not_gar_tables_is_refused_unchanged, setup, teardown),
    };
    return cmocka_run_group_tests_name("db", tests, NULL, NULL);
}
