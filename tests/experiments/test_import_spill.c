/* tests/experiments/test_import_spill.c — records past the memory budget: a
 * one-byte budget (GAR_IMPORT_RECORD_BUDGET) moves every profile's records to
 * the temporary database, and each fixture must map to the trace, counts and
 * legend the in-memory mapping gives; so must it with, besides, a one-row
 * budget for the mapped rows (GAR_IMPORT_ROW_BUDGET: every row a sorted run
 * on disk, merged back). */
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

/* One import: its return, trace, counts and legend. */
typedef struct result {
    int rc;
    gar_trace trace;
    gar_import_counts counts;
    gar_import_legend legend;
} result;

typedef struct source {
    const char *kind; /* "kineto" or "nsys" */
    const char *paths[3];
    size_t n;
    gar_import_options options;
} source;

static char db_path[4][64];

static void fixture(char *path, size_t size, const char *rel)
{
    const char *dir = getenv("GAR_FIXTURES");
    assert_non_null(dir);
    snprintf(path, size, "%s/%s", dir, rel);
}

/* An export built from a .sql fixture at `out`. */
static void make_db(const char *rel, const char *out)
{
    char path[1024];
    fixture(path, sizeof path, rel);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *sql = malloc((size_t)n + 1);
    assert_non_null(sql);
    assert_int_equal(fread(sql, 1, (size_t)n, f), (size_t)n);
    sql[n] = '\0';
    fclose(f);
    unlink(out);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(out, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    free(sql);
}

static void import(const source *src, const char *budget, result *r)
{
    if (budget != NULL)
        assert_int_equal(setenv("GAR_IMPORT_RECORD_BUDGET", budget, 1), 0);
    else
        assert_int_equal(unsetenv("GAR_IMPORT_RECORD_BUDGET"), 0);
    gar_error err;
    memset(r, 0, sizeof *r);
    if (strcmp(src->kind, "kineto") == 0) {
        char full[3][1024];
        const char *paths[3];
        for (size_t i = 0; i < src->n; i++) {
            fixture(full[i], sizeof full[i], src->paths[i]);
            paths[i] = full[i];
        }
        r->rc = gar_import_kineto_files(paths, src->n, &src->options, &r->trace, &r->counts,
                                        &r->legend, &err);
    } else {
        r->rc = gar_import_nsys_file_with(src->paths[0], &src->options, &r->trace, &r->counts,
                                          &r->legend, &err);
    }
    unsetenv("GAR_IMPORT_RECORD_BUDGET");
}

static void release(result *r)
{
    gar_trace_free(&r->trace);
    gar_import_legend_free(&r->legend);
}

/* `spilled` equals `mem` in every part. */
static void assert_equal_results(const result *spilled, const result *mem)
{
    assert_int_equal(spilled->rc, mem->rc);
    assert_memory_equal(&spilled->counts, &mem->counts, sizeof mem->counts);
    assert_int_equal(spilled->trace.count, mem->trace.count);
    assert_int_equal(spilled->trace.columns, mem->trace.columns);
    for (size_t i = 0; i < mem->trace.count; i++)
        assert_memory_equal(&spilled->trace.row[i], &mem->trace.row[i], sizeof *mem->trace.row);
    assert_int_equal(spilled->legend.processes, mem->legend.processes);
    if (mem->legend.processes > 0)
        assert_memory_equal(spilled->legend.process, mem->legend.process,
                            mem->legend.processes * sizeof *mem->legend.process);
    assert_int_equal(spilled->legend.streams, mem->legend.streams);
    for (size_t i = 0; i < mem->legend.streams; i++) {
        const gar_import_stream_name *a = &spilled->legend.stream[i], *b = &mem->legend.stream[i];
        assert_int_equal(a->id, b->id);
        assert_int_equal(a->process, b->process);
        assert_int_equal(a->device, b->device);
        assert_int_equal(a->stream, b->stream);
    }
}

/* The spilled import, and the one whose rows are sorted on disk too, equal
 * the in-memory one; returns the rows made. */
static size_t assert_same(const source *src)
{
    result mem, spilled, on_disk;
    import(src, NULL, &mem);
    import(src, "1", &spilled);
    assert_equal_results(&spilled, &mem);
    assert_int_equal(setenv("GAR_IMPORT_ROW_BUDGET", "40", 1), 0);
    import(src, "1", &on_disk);
    unsetenv("GAR_IMPORT_ROW_BUDGET");
    assert_equal_results(&on_disk, &mem);
    size_t rows = mem.trace.count;
    release(&mem);
    release(&spilled);
    release(&on_disk);
    return rows;
}

static void the_budget_decides_where_records_go(void **state)
{
    (void)state;
    gar_error err;
    gar_import_op op = { .start_ns = 1, .end_ns = 2, .correlation = 3 };
    gar_import im;

    unsetenv("GAR_IMPORT_RECORD_BUDGET");
    gar_import_init(&im);
    assert_int_equal(im.record_budget, GAR_IMPORT_RECORD_BUDGET);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(gar_import_add_op(&im, &op, &err), 0);
    assert_null(im.spill);
    assert_int_equal(im.ops, 1000);
    gar_import_free(&im);

    setenv("GAR_IMPORT_RECORD_BUDGET", "1", 1);
    gar_import_init(&im);
    assert_int_equal(im.record_budget, 1);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(gar_import_add_op(&im, &op, &err), 0);
    assert_non_null(im.spill);
    assert_int_equal(im.ops, 0);
    assert_null(im.op);
    gar_import_free(&im);

    /* Records held when the budget is passed move with the rest. */
    setenv("GAR_IMPORT_RECORD_BUDGET", "20000", 1);
    gar_import_init(&im);
    for (int i = 0; i < 256; i++)
        assert_int_equal(gar_import_add_op(&im, &op, &err), 0);
    assert_null(im.spill);
    assert_int_equal(gar_import_add_op(&im, &op, &err), 0);
    assert_non_null(im.spill);
    gar_import_free(&im);

    /* Not a number: the default. */
    setenv("GAR_IMPORT_RECORD_BUDGET", "lots", 1);
    gar_import_init(&im);
    assert_int_equal(im.record_budget, GAR_IMPORT_RECORD_BUDGET);
    gar_import_free(&im);
    unsetenv("GAR_IMPORT_RECORD_BUDGET");
}

static void kineto_fixtures_map_the_same(void **state)
{
    (void)state;
    const char *files[] = { "kineto/event_sync.json",    "kineto/float_ts.json",
                            "kineto/float_ts.json.gz",   "kineto/hip_array.json",
                            "kineto/train_pt20.json",    "kineto/train_pt21.json",
                            "kineto/pt18_runtime_kernel.json", "kineto/pt22_no_stream.json",
                            "kineto/pt25_relative.json", "kineto/early_return_copy.json" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        for (int mode = 0; mode < 3; mode++) { /* inferred, strict, kernels */
            source src = { .kind = "kineto", .paths = { files[i] }, .n = 1 };
            src.options.no_infer = mode == 1;
            src.options.wait_on = mode == 2 ? GAR_IMPORT_WAIT_ON_KERNEL : GAR_IMPORT_WAIT_ON_SYNC;
            assert_true(assert_same(&src) > 0);
        }
    }
}

static void inferred_streams_map_the_same(void **state)
{
    (void)state;
    /* The 2.0-era profile: 144 of its rows have an inferred stream. */
    source src = { .kind = "kineto", .paths = { "kineto/train_pt20.json" }, .n = 1 };
    result spilled;
    import(&src, "1", &spilled);
    assert_int_equal(spilled.rc, 0);
    assert_int_equal(spilled.counts.inferred_stream, 144);
    release(&spilled);
    assert_same(&src);
}

static void ranks_map_the_same(void **state)
{
    (void)state;
    for (int mode = 0; mode < 3; mode++) { /* inferred, strict, kernels */
        source src = { .kind = "kineto",
                       .paths = { "kineto/train_pt20.json", "kineto/train_pt21.json",
                                  "kineto/event_sync.json" },
                       .n = 3 };
        src.options.no_infer = mode == 1;
        src.options.wait_on = mode == 2 ? GAR_IMPORT_WAIT_ON_KERNEL : GAR_IMPORT_WAIT_ON_SYNC;
        assert_true(assert_same(&src) > 0);
    }
}

static void nsys_exports_map_the_same(void **state)
{
    (void)state;
    make_db("nsys/two_streams.sql", db_path[0]);
    make_db("nsys/two_processes.sql", db_path[1]);
    make_db("nsys/per_thread_stream.sql", db_path[2]);
    make_db("nsys/early_return_copy.sql", db_path[3]);
    for (int db = 0; db < 4; db++) {
        for (int mode = 0; mode < 3; mode++) { /* inferred, strict, kernels */
            source src = { .kind = "nsys", .paths = { db_path[db] }, .n = 1 };
            src.options.no_infer = mode == 1;
            src.options.wait_on = mode == 2 ? GAR_IMPORT_WAIT_ON_KERNEL : GAR_IMPORT_WAIT_ON_SYNC;
            assert_true(assert_same(&src) > 0);
        }
    }
    /* One process of two, and a process that is not there. */
    result mem;
    source all = { .kind = "nsys", .paths = { db_path[1] }, .n = 1 };
    import(&all, NULL, &mem);
    assert_int_equal(mem.rc, 0);
    assert_int_equal(mem.legend.processes, 2);
    source one = all;
    one.options.one_process = true;
    one.options.process = (uint32_t)mem.legend.process[1];
    release(&mem);
    assert_true(assert_same(&one) > 0);
    one.options.process = 4000000000u;
    assert_int_equal(assert_same(&one), 0);
}

static void a_profile_without_waits_is_refused_alike(void **state)
{
    (void)state;
    static const char json[] =
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0,"
        " \"tid\": 7, \"ts\": 10, \"dur\": 5, \"args\": {\"device\": 0, \"stream\": 7,"
        " \"correlation\": 1}}]}";
    gar_error err;
    gar_trace t;
    gar_import_counts c;
    setenv("GAR_IMPORT_RECORD_BUDGET", "1", 1);
    assert_int_equal(gar_import_kineto_memory(json, sizeof json - 1, "p", &t, &c, &err),
                     -GAR_E_INVALID_TRACE);
    unsetenv("GAR_IMPORT_RECORD_BUDGET");
    assert_int_equal(t.count, 0);
    assert_int_equal(c.sync_calls, 0);
}

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++)
        snprintf(db_path[i], sizeof db_path[i], "/tmp/gar-spill-%ld-%d.sqlite", (long)getpid(),
                 i);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < 4; i++)
        unlink(db_path[i]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_budget_decides_where_records_go),
        cmocka_unit_test(kineto_fixtures_map_the_same),
        cmocka_unit_test(inferred_streams_map_the_same),
        cmocka_unit_test(ranks_map_the_same),
        cmocka_unit_test(nsys_exports_map_the_same),
        cmocka_unit_test(a_profile_without_waits_is_refused_alike),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
