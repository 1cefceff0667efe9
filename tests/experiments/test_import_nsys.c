/* tests/experiments/test_import_nsys.c — Nsight Systems SQLite exports, built
 * in the test from the .sql fixtures. */
#define _POSIX_C_SOURCE 200809L

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

#include "import.h"

#define P_STREAM_SYNC_7 UINT64_C(4736720261508363923)
#define P_MEMCPY_ASYNC_7 UINT64_C(8072867669459855690)
#define P_DEVICE_SYNC UINT64_C(514176635145694834)
#define P_EVENT_SYNC_7 UINT64_C(15370667951839086975)

static char db_path[64];

static char *read_fixture(const char *name)
{
    const char *dir = getenv("GAR_FIXTURES");
    assert_non_null(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/nsys/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *text = malloc((size_t)n + 1);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* A fresh database from SQL text, plus `extra` statements run after it. */
static void make_db(const char *sql, const char *extra)
{
    unlink(db_path);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    if (extra != NULL)
        assert_int_equal(sqlite3_exec(db, extra, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static int setup(void **state)
{
    (void)state;
    snprintf(db_path, sizeof db_path, "/tmp/gar-nsys-%ld.sqlite", (long)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(db_path);
    return 0;
}

static void two_streams_give_the_worked_rows(void **state)
{
    (void)state;
    char *sql = read_fixture("two_streams.sql");
    make_db(sql, NULL);
    free(sql);
    gar_trace t;
    gar_import_counts c;
    gar_error err;
    int rc = gar_import_nsys_file(db_path, &t, &c, &err);
    if (rc != 0) {
        char msg[512];
        gar_error_format(&err, msg, sizeof msg);
        fail_msg("%s", msg);
    }
    /* The event sync's stream is not in the export: its thread's last launch
     * before it (correlation 7 ... the kernel launched at 5700 on stream 7)
     * names it. */
    const gar_trace_row want[] = {
        { P_STREAM_SYNC_7, 0, 300, 4500, 0, 7 },
        { P_MEMCPY_ASYNC_7, 4700, 4700, 5000, 0, 7 },
        { P_DEVICE_SYNC, 5200, 5400, 8500, 0, 7 },
        { P_EVENT_SYNC_7, 5200, 8700, 8500, 0, 7 },
    };
    assert_int_equal(t.count, 4);
    assert_memory_equal(t.row, want, sizeof want);
    assert_int_equal(c.sync_calls, 4); /* the HtoD async copy is no wait */
    assert_int_equal(c.no_stream, 0);
    assert_int_equal(c.inferred_stream, 1);
    gar_trace_free(&t);

    /* Strict: the event sync is skipped, as no stream. */
    gar_import_options strict = { .no_infer = true };
    assert_int_equal(gar_import_nsys_file_with(db_path, &strict, &t, &c, NULL, NULL), 0);
    assert_int_equal(t.count, 3);
    assert_memory_equal(t.row, want, 3 * sizeof *want);
    assert_int_equal(c.no_stream, 1);
    assert_int_equal(c.inferred_stream, 0);
    gar_trace_free(&t);
}

static void missing_tables_are_named(void **state)
{
    (void)state;
    char *sql = read_fixture("two_streams.sql");
    static const struct {
        const char *drop;
        const char *table;
    } cases[] = {
        { "DROP TABLE StringIds", "StringIds" },
        { "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_RUNTIME" },
        { "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY",
          "CUPTI_ACTIVITY_KIND_KERNEL" },
        { "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN streamId",
          "CUPTI_ACTIVITY_KIND_KERNEL" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        make_db(sql, cases[i].drop);
        gar_trace t;
        gar_error err;
        assert_int_equal(gar_import_nsys_file(db_path, &t, NULL, &err), -GAR_E_INVALID_TRACE);
        assert_string_equal(err.argv[0], db_path);
        assert_string_equal(err.argv[1], cases[i].table);
        assert_int_equal(t.count, 0);
    }
    /* Without the optional tables the stream sync cannot be placed (two
     * streams) but the copy and the device sync still can. */
    make_db(sql, "DROP TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
    gar_trace t;
    gar_import_counts c;
    gar_import_options strict = { .no_infer = true };
    assert_int_equal(gar_import_nsys_file_with(db_path, &strict, &t, &c, NULL, NULL), 0);
    assert_int_equal(t.count, 2);
    assert_int_equal(c.no_stream, 2);
    gar_trace_free(&t);
    /* Inferred, both are placed on their thread's last launch's stream. */
    assert_int_equal(gar_import_nsys_file(db_path, &t, &c, NULL), 0);
    assert_int_equal(c.no_stream, 0);
    assert_int_equal(c.inferred_stream, 2);
    gar_trace_free(&t);
    free(sql);
}

static void bad_files_are_refused(void **state)
{
    (void)state;
    gar_trace t;
    gar_error err;
    assert_int_equal(gar_import_nsys_file("/nonexistent/r.sqlite", &t, NULL, &err), -GAR_E_IO);
    assert_string_equal(err.argv[1], "open");
    FILE *f = fopen(db_path, "wb");
    fputs("this is not a database, not even close; it is long enough to be read\n", f);
    fclose(f);
    assert_int_equal(gar_import_nsys_file(db_path, &t, NULL, &err), -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "not a database"));
    make_db("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start, end, correlationId, nameId,"
            " globalTid);"
            "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, streamId,"
            " correlationId, globalPid);"
            "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 5, 0, 7, 1, 0);",
            NULL);
    assert_int_equal(gar_import_nsys_file(db_path, &t, NULL, &err), -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "end before start"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_streams_give_the_worked_rows),
        cmocka_unit_test(missing_tables_are_named),
        cmocka_unit_test(bad_files_are_refused),
    };
    return cmocka_run_group_tests_name("import_nsys", tests, setup, teardown);
}
