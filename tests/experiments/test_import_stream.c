/* tests/experiments/test_import_stream.c — the import in bounded memory: rows
 * put in start order through sorted runs on disk (import_rows.h) come out as
 * a sort in memory would, and the peak of the bytes an import holds (counted
 * by the allocation hook) does not grow with the number of waits. */
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

#include "sim/trace/alloc.h"
#include "import/import.h"
#include "import/import_rows.h"
#include "sim/prng.h"

static int cmp_row(const void *x, const void *y)
{
    const gar_trace_row *a = x, *b = y;
    const uint64_t ka[5] = { a->start_ns, a->stream, a->submit_ns, a->done_ns, a->point };
    const uint64_t kb[5] = { b->start_ns, b->stream, b->submit_ns, b->done_ns, b->point };
    for (int i = 0; i < 5; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

typedef struct collected {
    gar_trace_row *row;
    size_t count;
} collected;

static int collect(void *context, const gar_trace_row *row)
{
    collected *c = context;
    c->row[c->count++] = *row;
    return 0;
}

/* Rows with many equal starts, in a random order, through sorters of
 * several budgets: each gives the order qsort gives, pass after pass. */
static void sorted_runs_merge_to_the_sort(void **state)
{
    (void)state;
    enum { N = 60000 };
    gar_trace_row *rows = malloc(N * sizeof *rows);
    gar_trace_row *want = malloc(N * sizeof *want);
    assert_non_null(rows);
    assert_non_null(want);
    gar_prng g = gar_prng_seeded(3);
    for (size_t i = 0; i < N; i++)
        rows[i] = (gar_trace_row){ .point = gar_prng_below(&g, 4),
                                   .submit_ns = gar_prng_below(&g, 50),
                                   .start_ns = gar_prng_below(&g, 3000),
                                   .done_ns = gar_prng_below(&g, 50),
                                   .step_rows = (uint32_t)i, /* rides along */
                                   .stream = (uint32_t)gar_prng_below(&g, 3) };
    memcpy(want, rows, N * sizeof *rows);
    qsort(want, N, sizeof *want, cmp_row);
    /* 1 row a run (the deepest merges), 7, a few thousand, and all in memory. */
    const size_t budgets[] = { 1, 7 * sizeof(gar_trace_row), 4000 * sizeof(gar_trace_row),
                               (size_t)N * sizeof(gar_trace_row) };
    collected got = { malloc(N * sizeof *got.row), 0 };
    assert_non_null(got.row);
    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
        gar_import_rows r;
        gar_import_rows_init(&r, budgets[b]);
        gar_error err;
        for (size_t i = 0; i < N; i++)
            assert_int_equal(gar_import_rows_add(&r, &rows[i], &err), 0);
        assert_true(r.runs <= GAR_IMPORT_ROWS_RUNS);
        for (int pass = 0; pass < 2; pass++) {
            got.count = 0;
            assert_int_equal(gar_import_rows_each(&r, collect, &got, &err), 0);
            assert_int_equal(got.count, N);
            for (size_t i = 0; i < N; i++)
                assert_int_equal(cmp_row(&got.row[i], &want[i]), 0);
        }
        /* Every row came once: the riders are a permutation. */
        uint8_t *seen = calloc(N, 1);
        for (size_t i = 0; i < N; i++) {
            assert_true(got.row[i].step_rows < N);
            assert_int_equal(seen[got.row[i].step_rows]++, 0);
        }
        free(seen);
        gar_import_rows_free(&r);
    }
    free(got.row);
    free(rows);
    free(want);
}

/* A Kineto profile of `steps` steps (a kernel launched, then a stream sync
 * waiting for it), written to `path`. */
static void write_profile(const char *path, size_t steps)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"traceEvents\":[", f);
    for (size_t i = 0; i < steps; i++) {
        unsigned long long t = 1000 + 100 * (unsigned long long)i, corr = 2 * i + 1;
        fprintf(f,
                "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                "\"pid\":1,\"tid\":1,\"ts\":%llu,\"dur\":4,\"args\":{\"correlation\":%llu}},"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"step\",\"pid\":0,\"tid\":7,"
                "\"ts\":%llu,\"dur\":40,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%llu}},"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\","
                "\"pid\":1,\"tid\":1,\"ts\":%llu,\"dur\":50,\"args\":{\"correlation\":%llu}},"
                "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,"
                "\"tid\":7,\"ts\":%llu,\"dur\":45,\"args\":{\"device\":0,\"stream\":7,"
                "\"correlation\":%llu}}",
                i > 0 ? "," : "", t, corr, t + 5, corr, t + 6, corr + 1, t + 7, corr + 1);
    }
    fputs("]}\n", f);
    assert_int_equal(fclose(f), 0);
}

/* The sink of the bounded import: counts rows and checks their order. */
typedef struct counter {
    uint64_t rows, last_start;
    bool begun;
} counter;

static int count_begin(void *context, const gar_import_counts *counts, gar_import_legend *legend,
                       gar_error *err)
{
    (void)counts;
    (void)legend;
    (void)err;
    ((counter *)context)->begun = true;
    return 0;
}

static int count_row(void *context, const gar_trace_row *row, gar_error *err)
{
    (void)err;
    counter *c = context;
    assert_true(c->begun);
    assert_true(row->start_ns >= c->last_start);
    c->last_start = row->start_ns;
    c->rows++;
    return 0;
}

/* Peak bytes held while importing `path`: streamed to the counting sink, or
 * (`whole`) collected into a trace in memory. */
static int64_t import_peak(const char *path, bool whole, uint64_t *rows)
{
    gar_alloc_held held;
    gar_alloc_held_make(&held);
    gar_error err;
    gar_import_counts counts;
    counter c = { 0, 0, false };
    gar_trace trace;
    gar_alloc_set_hook(&held.hook);
    int rc;
    if (whole) {
        rc = gar_import_kineto_files(&path, 1, NULL, &trace, &counts, NULL, &err);
    } else {
        const gar_import_sink sink = { count_begin, count_row, &c };
        rc = gar_import_kineto_files_to(&path, 1, NULL, &sink, &counts, &err);
    }
    gar_alloc_set_hook(NULL);
    assert_int_equal(rc, 0);
    *rows = whole ? trace.count : c.rows;
    assert_int_equal(*rows, counts.waits);
    if (whole)
        gar_trace_free(&trace);
    return held.peak;
}

static void import_memory_does_not_grow_with_waits(void **state)
{
    (void)state;
    if (!gar_alloc_held_supported())
        skip();
    char dir[] = "/tmp/gar-import-stream-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char small[256], large[256];
    snprintf(small, sizeof small, "%s/small.json", dir);
    snprintf(large, sizeof large, "%s/large.json", dir);
    write_profile(small, 20000);
    write_profile(large, 200000);
    /* Budgets far below both profiles, so both spill their records and merge
     * their rows' runs in more than one round (what the bound covers). */
    setenv("GAR_IMPORT_RECORD_BUDGET", "65536", 1);
    setenv("GAR_IMPORT_ROW_BUDGET", "16384", 1);
    uint64_t rows_small, rows_large;
    int64_t peak_small = import_peak(small, false, &rows_small);
    int64_t peak_large = import_peak(large, false, &rows_large);
    assert_int_equal(rows_small, 20000);
    assert_int_equal(rows_large, 200000);
    print_message("streamed: peak %lld bytes for 20000 waits, %lld for 200000\n",
                  (long long)peak_small, (long long)peak_large);
    assert_true(peak_large * 10 <= peak_small * 11); /* 10x the waits, within 10 % */
    /* The same import collected whole does grow with the waits: what the
     * bound above rules out (40 bytes a row). */
    int64_t whole_large = import_peak(large, true, &rows_large);
    print_message("collected whole: peak %lld bytes for 200000 waits\n", (long long)whole_large);
    assert_true(whole_large > 200000 * 40);
    assert_true(whole_large > 4 * peak_large);
    unsetenv("GAR_IMPORT_RECORD_BUDGET");
    unsetenv("GAR_IMPORT_ROW_BUDGET");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sorted_runs_merge_to_the_sort),
        cmocka_unit_test(import_memory_does_not_grow_with_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
