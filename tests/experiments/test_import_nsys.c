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

#include "import/import.h"

#define P_STREAM_SYNC_7 UINT64_C(4736720261508363923)
#define P_MEMCPY_ASYNC_7 UINT64_C(8072867669459855690)
#define P_DEVICE_SYNC UINT64_C(514176635145694834)
#define P_EVENT_SYNC_7 UINT64_C(15370667951839086975)
#define P_STREAM_SYNC_13 UINT64_C(116036054755860985)
#define P_MEMCPY_7 UINT64_C(12265065995212719292)
/* --wait-on kernel: FNV-1a-64 of the demangled name, then the stream's bytes. */
#define P_GEMM_KERNEL_7 UINT64_C(5790093507316341374)
#define P_GEMM_KERNEL_13 UINT64_C(1193404469430811860)

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

/* A per-thread default stream build: CUPTI names the calls
 * cudaStreamSynchronize_ptsz_v7000 and cudaMemcpy_ptds_v7000, which are the
 * same waits; the device sync's record says "no stream" with 2^32 - 1. */
static void per_thread_stream_names_are_the_same_calls(void **state)
{
    (void)state;
    char *sql = read_fixture("per_thread_stream.sql");
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
    const gar_trace_row want[] = {
        { P_STREAM_SYNC_7, 0, 450, 3500, 0, 7 },
        { P_MEMCPY_7, 6400, 6400, 7000, 0, 7 },
        { P_DEVICE_SYNC, 6400, 7200, 7000, 0, 7 },
    };
    assert_int_equal(t.count, 3);
    assert_memory_equal(t.row, want, sizeof want);
    assert_int_equal(c.sync_calls, 3);
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

/* Two processes whose correlation ids and stream ids collide: each joins only
 * its own records, streams are numbered per (process, device, stream), and
 * --process keeps one process with its plain stream ids. */
static void two_processes_keep_their_ids(void **state)
{
    (void)state;
    char *sql = read_fixture("two_processes.sql");
    make_db(sql, NULL);
    free(sql);
    gar_trace t;
    gar_import_counts c;
    gar_import_legend legend;
    gar_error err;
    assert_int_equal(gar_import_nsys_file_with(db_path, NULL, &t, &c, &legend, &err), 0);
    /* Worked by hand from the fixture (origin: the first launch, at 500). */
    static const struct {
        uint64_t submit, start, done;
        uint32_t stream;
    } want[] = {
        { 200, 260, 8500, 3 },  /* pid 200: sync of 13 */
        { 0, 300, 4500, 0 },    /* pid 100: sync of 7 */
        { 4700, 4850, 5500, 1 }, /* pid 100: inferred 13 */
        { 8700, 8760, 9400, 2 }, /* pid 200: device sync, last on 7 */
    };
    assert_int_equal(t.count, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(t.row[i].submit_ns, want[i].submit);
        assert_int_equal(t.row[i].start_ns, want[i].start);
        assert_int_equal(t.row[i].done_ns, want[i].done);
        assert_int_equal(t.row[i].stream, want[i].stream);
        for (size_t j = 0; j < i; j++)
            assert_true(t.row[i].point != t.row[j].point);
    }
    assert_int_equal(c.inferred_stream, 1);
    assert_int_equal(legend.processes, 2);
    assert_int_equal(legend.process[0], 100);
    assert_int_equal(legend.process[1], 200);
    assert_int_equal(legend.streams, 4);
    assert_int_equal(legend.stream[3].process, 200);
    assert_int_equal(legend.stream[3].stream, 13);
    gar_import_legend_free(&legend);
    gar_trace_free(&t);

    gar_import_options one = { .one_process = true, .process = 100 };
    assert_int_equal(gar_import_nsys_file_with(db_path, &one, &t, &c, &legend, &err), 0);
    const gar_trace_row only[] = {
        { P_STREAM_SYNC_7, 0, 300, 4500, 0, 7 },
        { P_STREAM_SYNC_13, 4700, 4850, 5500, 0, 13 },
    };
    assert_int_equal(t.count, 2);
    assert_memory_equal(t.row, only, sizeof only);
    assert_int_equal(legend.processes, 1);
    assert_int_equal(legend.streams, 0);
    gar_import_legend_free(&legend);
    gar_trace_free(&t);

    one.process = 300;
    assert_int_equal(gar_import_nsys_file_with(db_path, &one, &t, &c, &legend, &err),
                     -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "process 300 is not in the export"));
    assert_int_equal(t.count, 0);
}

/* A wrong type or NULL is refused where a time or id is read, naming the
 * table, the row and the column. */
static void columns_are_read_strictly(void **state)
{
    (void)state;
    char *sql = read_fixture("two_streams.sql");
    static const struct {
        const char *change;
        const char *where, *column, *fault;
    } cases[] = {
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = '4321xyz' WHERE correlationId = 1",
          "CUPTI_ACTIVITY_KIND_KERNEL row 1", "start", "TEXT" },
        /* (copied without its NOT NULL constraints first) */
        { "CREATE TABLE r AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME;"
          "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;"
          "ALTER TABLE r RENAME TO CUPTI_ACTIVITY_KIND_RUNTIME;"
          "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = NULL WHERE correlationId = 2",
          "CUPTI_ACTIVITY_KIND_RUNTIME row 2", "start", "NULL" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 5000.5 WHERE correlationId = 1",
          "CUPTI_ACTIVITY_KIND_KERNEL row 1", "end", "REAL" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 'seven' WHERE correlationId = 4",
          "CUPTI_ACTIVITY_KIND_KERNEL row 2", "streamId", "TEXT" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET streamId = 4294967296 WHERE correlationId = 4",
          "CUPTI_ACTIVITY_KIND_KERNEL row 2", "streamId", "range" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET deviceId = -1 WHERE correlationId = 4",
          "CUPTI_ACTIVITY_KIND_KERNEL row 2", "deviceId", "negative" },
        { "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = 'x' WHERE start = 500",
          "CUPTI_ACTIVITY_KIND_RUNTIME row 1", "correlationId", "TEXT" },
        { "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = -5 WHERE start = 500",
          "CUPTI_ACTIVITY_KIND_RUNTIME row 1", "correlationId", "negative" },
        { "UPDATE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION SET streamId = 7.5 WHERE correlationId = 2",
          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION row 1", "streamId", "REAL" },
        { "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET globalPid = NULL WHERE correlationId = 1",
          "CUPTI_ACTIVITY_KIND_KERNEL row 1", "globalPid", "NULL" },
        { "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = 'DtoH' WHERE correlationId = 3",
          "CUPTI_ACTIVITY_KIND_MEMCPY row 1", "copyKind", "TEXT" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        make_db(sql, cases[i].change);
        gar_trace t;
        gar_error err;
        assert_int_equal(gar_import_nsys_file(db_path, &t, NULL, &err), -GAR_E_INVALID_TRACE);
        assert_string_equal(err.argv[1], cases[i].where);
        assert_string_equal(err.argv[2], cases[i].column);
        if (strstr(err.argv[3], cases[i].fault) == NULL)
            fail_msg("case %zu: '%s' does not say '%s'", i, err.argv[3], cases[i].fault);
        assert_int_equal(t.count, 0);
    }
    /* A NULL correlation is "none", as before: the row is read. */
    make_db(sql, "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET correlationId = NULL WHERE start = 900");
    gar_trace t;
    assert_int_equal(gar_import_nsys_file(db_path, &t, NULL, NULL), 0);
    gar_trace_free(&t);
    free(sql);
}

/* An export whose tables are views (as a filtered export may be) reads the same. */
static void views_are_read_as_tables(void **state)
{
    (void)state;
    char *sql = read_fixture("two_streams.sql");
    make_db(sql, NULL);
    gar_trace want;
    assert_int_equal(gar_import_nsys_file(db_path, &want, NULL, NULL), 0);
    make_db(sql, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL RENAME TO kernels;"
                 "CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM kernels;"
                 "ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME RENAME TO runtime;"
                 "CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT * FROM runtime;");
    free(sql);
    gar_trace t;
    gar_error err;
    int rc = gar_import_nsys_file(db_path, &t, NULL, &err);
    if (rc != 0) {
        char msg[512];
        gar_error_format(&err, msg, sizeof msg);
        fail_msg("%s", msg);
    }
    assert_true(gar_trace_equal(&t, &want));
    gar_trace_free(&t);
    gar_trace_free(&want);
}

/* --wait-on kernel: one row per kernel from its launch's return, at a
 * point of its demangled name (shortName when the export has no
 * demangledName column) and stream. */
static void kernel_waits_from_an_export(void **state)
{
    (void)state;
    char *sql = read_fixture("two_streams.sql");
    make_db(sql, NULL);
    gar_import_options kernels = { .wait_on = GAR_IMPORT_WAIT_ON_KERNEL };
    gar_trace t;
    gar_import_counts c;
    assert_int_equal(gar_import_nsys_file_with(db_path, &kernels, &t, &c, NULL, NULL), 0);
    const gar_trace_row want[] = {
        { P_GEMM_KERNEL_7, 0, 200, 4500, 0, 7 },
        { P_GEMM_KERNEL_13, 400, 450, 2500, 0, 13 },
        { P_GEMM_KERNEL_7, 5200, 5300, 8500, 0, 7 },
    };
    assert_int_equal(t.count, 3);
    assert_memory_equal(t.row, want, sizeof want);
    assert_int_equal(c.sync_calls, 3);
    gar_trace_free(&t);
    /* Without demangledName the short name (the same here) is hashed. */
    make_db(sql, "ALTER TABLE CUPTI_ACTIVITY_KIND_KERNEL DROP COLUMN demangledName");
    free(sql);
    assert_int_equal(gar_import_nsys_file_with(db_path, &kernels, &t, &c, NULL, NULL), 0);
    assert_int_equal(t.count, 3);
    assert_memory_equal(t.row, want, sizeof want);
    gar_trace_free(&t);
}

/* The Kineto fixture early_return_copy.json as an export: copy calls that
 * returned more than GAR_IMPORT_EARLY_RETURN_NS before their copy ended are
 * skipped as returned early; the rest wait for their own copy. */
static void copies_that_returned_early_are_no_waits(void **state)
{
    (void)state;
    char *sql = read_fixture("early_return_copy.sql");
    make_db(sql, NULL);
    free(sql);
    gar_trace t;
    gar_import_counts c;
    assert_int_equal(gar_import_nsys_file(db_path, &t, &c, NULL), 0);
    const gar_trace_row want[] = {
        { P_STREAM_SYNC_7, 0, 10000, 982000, 0, 7 },
        { P_MEMCPY_ASYNC_7, 1100000, 1100000, 1492000, 0, 7 },
        { P_MEMCPY_ASYNC_7, 1580000, 1580000, 1595000, 0, 7 },
        { P_MEMCPY_7, 1980000, 1980000, 2035000, 0, 7 },
    };
    assert_int_equal(t.count, 4);
    assert_memory_equal(t.row, want, sizeof want);
    assert_int_equal(c.sync_calls, 7);
    assert_int_equal(c.returned_early, 3);
    assert_int_equal(c.no_gpu_op + c.no_stream + c.no_launch + c.inconsistent + c.out_of_order,
                     0);
    gar_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_streams_give_the_worked_rows),
        cmocka_unit_test(per_thread_stream_names_are_the_same_calls),
        cmocka_unit_test(kernel_waits_from_an_export),
        cmocka_unit_test(missing_tables_are_named),
        cmocka_unit_test(bad_files_are_refused),
        cmocka_unit_test(two_processes_keep_their_ids),
        cmocka_unit_test(columns_are_read_strictly),
        cmocka_unit_test(views_are_read_as_tables),
        cmocka_unit_test(copies_that_returned_early_are_no_waits),
    };
    return cmocka_run_group_tests_name("import_nsys", tests, setup, teardown);
}
