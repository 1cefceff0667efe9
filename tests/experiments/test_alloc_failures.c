/* tests/experiments/test_alloc_failures.c — every reader fails cleanly at
 * every allocation: the trace reader (plain and gzip), both importers
 * (Kineto, plain and gzip, records spilled and rows sorted on disk; Nsight
 * Systems, SQLite's own allocations included) and the
 * sweep-spec reader are run with the nth allocation failing
 * (sim/trace/alloc.h), for n = 1, 2, ... until one needs fewer than n.  Each
 * failed run must end in CapacityExceeded with its output empty; nothing
 * may leak (the ASan build's LeakSanitizer checks at exit).  The sweep
 * database's checks are failed the same way: a file that is not gar's is
 * never taken for gar's, and a version 3 one opened for reading keeps
 * every byte. */
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

#include <sqlite3.h>

#include "import/alloc_sqlite.h"
#include "import/import.h"
#include "sim/trace/alloc.h"
#include "sim/trace/trace.h"
#include "sweep/db.h"
#include "sweep/sweep_spec.h"

#define RUNS_MAX 200000 /* no reader here needs nearly this many allocations */

/* One reader under test: runs into its own output, says whether that output
 * is empty, compares it with a reference run's, and frees it. */
typedef struct reader {
    const char *what;
    const char *path;
    bool sqlite; /* SQLite may survive a failed optional allocation */
    int (*run)(struct reader *r, void *out, gar_error *err);
    bool (*empty)(const void *out);
    bool (*same)(const void *a, const void *b);
    void (*release)(void *out);
} reader;

static int read_trace(reader *r, void *out, gar_error *err)
{
    return gar_trace_read_file(out, r->path, err);
}

static int read_kineto(reader *r, void *out, gar_error *err)
{
    return gar_import_kineto_file(r->path, out, NULL, err);
}

static int read_nsys(reader *r, void *out, gar_error *err)
{
    return gar_import_nsys_file(r->path, out, NULL, err);
}

/* Two ranks (the same file twice) and the header's legend, which must be
 * empty after a refusal. */
static int read_kineto_ranks(reader *r, void *out, gar_error *err)
{
    const char *paths[] = { r->path, r->path };
    gar_import_legend legend;
    int rc = gar_import_kineto_files(paths, 2, NULL, out, NULL, &legend, err);
    assert_true(rc == 0 || (legend.process == NULL && legend.stream == NULL));
    gar_import_legend_free(&legend);
    return rc;
}

static int read_nsys_legend(reader *r, void *out, gar_error *err)
{
    gar_import_legend legend;
    int rc = gar_import_nsys_file_with(r->path, NULL, out, NULL, &legend, err);
    assert_true(rc == 0 || (legend.process == NULL && legend.stream == NULL));
    gar_import_legend_free(&legend);
    return rc;
}

static int read_spec(reader *r, void *out, gar_error *err)
{
    return gar_sweep_spec_load(r->path, out, err);
}

static bool trace_empty(const void *out)
{
    const gar_trace *t = out;
    return t->count == 0 && t->row == NULL;
}

static bool trace_same(const void *a, const void *b)
{
    const gar_trace *x = a, *y = b;
    return x->count == y->count && x->columns == y->columns &&
           memcmp(x->row, y->row, x->count * sizeof *x->row) == 0;
}

static void trace_release(void *out)
{
    gar_trace_free(out);
}

static bool spec_empty(const void *out)
{
    const gar_sweep_spec *s = out;
    return s->runs == 0 && s->traces == NULL && s->hosts == NULL && s->path == NULL &&
           s->swept == NULL;
}

static bool spec_same(const void *a, const void *b)
{
    const gar_sweep_spec *x = a, *y = b;
    return x->runs == y->runs && x->trace_count == y->trace_count &&
           trace_same(&x->traces[0].trace, &y->traces[0].trace);
}

static void spec_release(void *out)
{
    gar_sweep_spec_free(out);
}

static int read_size(reader *r, void *out, gar_error *err)
{
    return gar_sweep_size_load(r->path, out, err);
}

static bool size_empty(const void *out)
{
    const gar_sweep_size *s = out;
    return s->runs == 0 && s->swept == NULL && s->swept_count == 0;
}

static bool size_same(const void *a, const void *b)
{
    const gar_sweep_size *x = a, *y = b;
    return x->runs == y->runs && x->arms == y->arms && x->swept_count == y->swept_count;
}

static void size_release(void *out)
{
    gar_sweep_size_free(out);
}

/* Big enough for any output. */
typedef union output {
    gar_trace trace;
    gar_sweep_spec spec;
    gar_sweep_size size;
} output;

static void every_allocation_fails_cleanly(reader *r)
{
    output reference, out;
    gar_error err;
    int rc = r->run(r, &reference, &err);
    if (rc != 0)
        fail_msg("%s: the reference run failed: %d %s", r->what, rc, err.argv[0]);
    uint64_t n = 1, failed = 0;
    for (; n < RUNS_MAX; n++) {
        gar_alloc_fail_nth counter;
        gar_alloc_fail_nth_make(&counter, n);
        gar_alloc_set_hook(&counter.hook);
        memset(&out, 0x5a, sizeof out);
        rc = r->run(r, &out, &err);
        gar_alloc_set_hook(NULL);
        if (!gar_alloc_fail_nth_fired(&counter)) {
            assert_int_equal(rc, 0); /* every allocation done, none failed */
            assert_true(r->same(&out, &reference));
            r->release(&out);
            break;
        }
        if (rc == 0) {
            /* Only SQLite goes on without an allocation (an optional one),
             * and then the result is whole. */
            if (!r->sqlite)
                fail_msg("%s: allocation %llu failed and the read still succeeded", r->what,
                         (unsigned long long)n);
            assert_true(r->same(&out, &reference));
            r->release(&out);
            continue;
        }
        if (rc != -GAR_E_CAPACITY || err.code != GAR_E_CAPACITY)
            fail_msg("%s: allocation %llu failed, and the read ended with %d (%s), not "
                     "CapacityExceeded", r->what, (unsigned long long)n, -rc, err.argv[0]);
        if (!r->empty(&out))
            fail_msg("%s: allocation %llu failed and left output behind", r->what,
                     (unsigned long long)n);
        failed++;
    }
    assert_true(n < RUNS_MAX);
    assert_true(failed > 0); /* the hook reached the reader at all */
    r->release(&reference);
    printf("%s: %llu allocations, each failed once, every failure coded\n", r->what,
           (unsigned long long)(n - 1));
}

static char fixture[1024];

static const char *fixture_path(const char *sub)
{
    const char *dir = getenv("GAR_FIXTURES");
    assert_non_null(dir);
    snprintf(fixture, sizeof fixture, "%s/%s", dir, sub);
    return fixture;
}

static void the_trace_reader(void **state)
{
    (void)state;
    reader r = { "trace reader", GAR_DATA_DIR "/traces/steady.csv", false, read_trace,
                 trace_empty, trace_same, trace_release };
    every_allocation_fails_cleanly(&r);

    /* The same trace gzip-compressed: zlib's state and the line buffer come
     * through the hook too. */
    char dir[] = "/tmp/gar-alloc-gz-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], cmd[300];
    snprintf(path, sizeof path, "%s/steady.csv.gz", dir);
    gar_trace t;
    gar_error err;
    assert_int_equal(gar_trace_read_file(&t, GAR_DATA_DIR "/traces/steady.csv", &err), 0);
    assert_int_equal(gar_trace_write_file(&t, NULL, path, &err), 0);
    gar_trace_free(&t);
    reader gz = { "trace reader, gzip", path, false, read_trace, trace_empty, trace_same,
                  trace_release };
    every_allocation_fails_cleanly(&gz);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void the_kineto_importer(void **state)
{
    (void)state;
    const char *fixtures[] = { "kineto/event_sync.json", "kineto/float_ts.json.gz" };
    for (size_t i = 0; i < 2; i++) {
        reader r = { fixtures[i], fixture_path(fixtures[i]), false, read_kineto, trace_empty,
                     trace_same, trace_release };
        every_allocation_fails_cleanly(&r);
    }
    reader ranks = { "two ranks", fixture_path("kineto/event_sync.json"), false,
                     read_kineto_ranks, trace_empty, trace_same, trace_release };
    every_allocation_fails_cleanly(&ranks);

    /* Again with every record in the temporary database (a one-byte budget),
     * whose SQLite allocations go through the hook too. */
    assert_int_equal(setenv("GAR_IMPORT_RECORD_BUDGET", "1", 1), 0);
    reader spilled = { "event_sync.json, spilled", fixture_path("kineto/event_sync.json"), true,
                       read_kineto, trace_empty, trace_same, trace_release };
    every_allocation_fails_cleanly(&spilled);
    reader spilled_ranks = { "two ranks, spilled", fixture_path("kineto/event_sync.json"), true,
                             read_kineto_ranks, trace_empty, trace_same, trace_release };
    every_allocation_fails_cleanly(&spilled_ranks);
    unsetenv("GAR_IMPORT_RECORD_BUDGET");

    /* And with a row budget of one row: every row a sorted run on disk,
     * merged back (the merge's buffers through the hook). */
    assert_int_equal(setenv("GAR_IMPORT_ROW_BUDGET", "40", 1), 0);
    reader rows = { "train_pt21.json, rows on disk", fixture_path("kineto/train_pt21.json"),
                    false, read_kineto, trace_empty, trace_same, trace_release };
    every_allocation_fails_cleanly(&rows);
    unsetenv("GAR_IMPORT_ROW_BUDGET");
}

static void nsys_fixture(const char *name, int (*run)(reader *, void *, gar_error *))
{
    char sql_path[1024];
    snprintf(sql_path, sizeof sql_path, "%s", fixture_path(name));
    FILE *f = fopen(sql_path, "rb");
    assert_non_null(f);
    static char sql[1 << 16];
    size_t n = fread(sql, 1, sizeof sql - 1, f);
    fclose(f);
    sql[n] = '\0';
    char db_path[64];
    snprintf(db_path, sizeof db_path, "/tmp/gar-alloc-%ld.sqlite", (long)getpid());
    unlink(db_path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    reader r = { name, db_path, true, run, trace_empty, trace_same, trace_release };
    every_allocation_fails_cleanly(&r);
    unlink(db_path);
}

static void the_nsys_importer(void **state)
{
    (void)state;
    nsys_fixture("nsys/two_streams.sql", read_nsys);
    nsys_fixture("nsys/two_processes.sql", read_nsys_legend);
}

static void the_sweep_spec_reader(void **state)
{
    (void)state;
    char dir[] = "/tmp/gar-alloc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/a.sweep", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "gar-sweep v1\n"
               "trace gen:steady:waits=40,seed=1,gap_us=50 %s/traces/steady.csv\n"
               "plan block poll flag:park_us=100,backstop_us=1000\n"
               "plan poll+predict:margin_us={50..100..50},min_sleep_us=20,max_sleep_us=50000,"
               "window=8\n"
               "estimator adl half-min\n"
               "host %s/hosts/dev-vm.host %s/hosts/waitpkg.host\n"
               "host %s/hosts/dev-vm.host@block_wake_ns*{1.5,2}\n"
               "mode open closed\n"
               "seed 1 2\n",
            GAR_DATA_DIR, GAR_DATA_DIR, GAR_DATA_DIR, GAR_DATA_DIR);
    assert_int_equal(fclose(f), 0);
    reader r = { "sweep spec reader", path, false, read_spec, spec_empty, spec_same,
                 spec_release };
    every_allocation_fails_cleanly(&r);
    reader sizer = { "sweep spec sizer (--dry-run)", path, false, read_size, size_empty,
                     size_same, size_release };
    every_allocation_fails_cleanly(&sizer);
    remove(path);
    rmdir(dir);
}

/* A file with gar's meta but not gar's tables is refused whatever
 * allocation fails while it is checked: a failure is never taken for a
 * match, and the file keeps every byte. */
static void a_database_that_is_not_gars_is_refused_at_every_failure(void **state)
{
    (void)state;
    char dir[] = "/tmp/gar-alloc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/x.db", dir);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
                                  "CREATE TABLE meta (key TEXT, value TEXT);"
                                  "INSERT INTO meta VALUES ('schema_version', '3');"
                                  "CREATE TABLE customer (name TEXT)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    static unsigned char before[65536], after[65536];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t size = fread(before, 1, sizeof before, f);
    fclose(f);
    uint64_t n = 1;
    for (; n < RUNS_MAX; n++) {
        gar_alloc_fail_nth counter;
        gar_alloc_fail_nth_make(&counter, n);
        gar_db *database = NULL;
        gar_error err;
        gar_alloc_set_hook(&counter.hook);
        int rc = gar_db_open(path, true, &database, &err);
        gar_alloc_set_hook(NULL);
        if (rc == 0)
            fail_msg("allocation %llu failed and the file was taken for gar's",
                     (unsigned long long)n);
        assert_null(database);
        f = fopen(path, "rb");
        assert_non_null(f);
        assert_int_equal(fread(after, 1, sizeof after, f), size);
        fclose(f);
        assert_memory_equal(before, after, size);
        if (!gar_alloc_fail_nth_fired(&counter)) {
            assert_non_null(strstr(err.argv[2], "lacks gar's table 'traces'"));
            break;
        }
    }
    assert_true(n > 1 && n < RUNS_MAX);
    printf("database check of a file that is not gar's: %llu allocations, each failed once, "
           "never taken for gar's\n",
           (unsigned long long)(n - 1));
    remove(path);
    rmdir(dir);
}

/* A version 3 database opened for reading (plot, report) with the nth
 * allocation failing: opened, or refused with a coded error, and in
 * either case the file keeps every byte and nothing is made beside it.
 * The open first checks the file (gar_db_check, some fifteen thousand
 * allocations on a whole gar schema, each failed by the test above on
 * its own path); failing every one of them here too would take minutes
 * under the sanitizers, so n starts a hundred before the check's count. */
static void a_version_3_database_read_at_every_failure_keeps_every_byte(void **state)
{
    (void)state;
    char dir[] = "/tmp/gar-alloc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], side[160];
    snprintf(path, sizeof path, "%s/v3.db", dir);
    gar_db *database = NULL;
    gar_error err;
    assert_int_equal(gar_db_open(path, true, &database, &err), 0);
    gar_db_close(database);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    static const char *const v4_columns[] = {
        "ci_level", "overshoot_p50_lo_ns", "overshoot_p50_hi_ns", "overshoot_p90_lo_ns",
        "overshoot_p90_hi_ns", "overshoot_p99_lo_ns", "overshoot_p99_hi_ns",
        "estimator_error_p50_lo_ns", "estimator_error_p50_hi_ns", "estimator_error_p90_lo_ns",
        "estimator_error_p90_hi_ns", "estimator_error_p99_lo_ns", "estimator_error_p99_hi_ns",
    };
    char sql[128];
    for (size_t i = 0; i < sizeof v4_columns / sizeof v4_columns[0]; i++) {
        snprintf(sql, sizeof sql, "ALTER TABLE runs DROP COLUMN %s", v4_columns[i]);
        assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    }
    assert_int_equal(sqlite3_exec(db,
                                  "DROP TABLE run_notes; UPDATE meta SET value = '3' "
                                  "WHERE key = 'schema_version'; PRAGMA journal_mode = DELETE",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    static unsigned char before[262144], after[262144];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t size = fread(before, 1, sizeof before, f);
    fclose(f);
    assert_true(size > 0 && size < sizeof before);
    gar_alloc_fail_nth count;
    gar_alloc_fail_nth_make(&count, UINT64_MAX);
    gar_alloc_set_hook(&count.hook);
    assert_int_equal(gar_db_check(path, false, "open", &err), 1);
    gar_alloc_set_hook(NULL);
    uint64_t first = count.asked > 100 ? count.asked - 100 : 1, n = first;
    for (; n < RUNS_MAX; n++) {
        gar_alloc_fail_nth counter;
        gar_alloc_fail_nth_make(&counter, n);
        database = NULL;
        gar_alloc_set_hook(&counter.hook);
        int rc = gar_db_open_read(path, &database, &err);
        gar_alloc_set_hook(NULL);
        bool fired = gar_alloc_fail_nth_fired(&counter);
        if (rc < 0) {
            assert_true(fired);
            assert_null(database);
            assert_int_equal(err.code, GAR_E_IO);
        } else {
            char version[8];
            assert_int_equal(gar_db_meta(database, "schema_version", version, sizeof version,
                                         &err),
                             0);
            assert_string_equal(version, "3");
        }
        gar_db_close(database);
        f = fopen(path, "rb");
        assert_non_null(f);
        assert_int_equal(fread(after, 1, sizeof after, f), size);
        fclose(f);
        assert_memory_equal(before, after, size);
        for (int k = 0; k < 3; k++) {
            snprintf(side, sizeof side, "%s%s", path, (const char *[]){ "-wal", "-shm",
                                                                     "-journal" }[k]);
            if (access(side, F_OK) == 0)
                fail_msg("allocation %llu failed and %s was made", (unsigned long long)n, side);
        }
        if (!fired)
            break;
    }
    assert_true(n > first + 100 && n < RUNS_MAX);
    printf("read-only open of a version 3 database: allocations %llu to %llu each failed "
           "once, the file never changed\n",
           (unsigned long long)first, (unsigned long long)(n - 1));
    remove(path);
    rmdir(dir);
}

int main(void)
{
    /* Before SQLite is used at all: its allocations go through the hook. */
    if (gar_sqlite_use_alloc_hook() != 0) {
        fprintf(stderr, "SQLite refused the allocation hook\n");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_trace_reader),
        cmocka_unit_test(the_kineto_importer),
        cmocka_unit_test(the_nsys_importer),
        cmocka_unit_test(the_sweep_spec_reader),
        cmocka_unit_test(a_database_that_is_not_gars_is_refused_at_every_failure),
        cmocka_unit_test(a_version_3_database_read_at_every_failure_keeps_every_byte),
    };
    return cmocka_run_group_tests_name("alloc_failures", tests, NULL, NULL);
}
