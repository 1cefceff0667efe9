/* tests/experiments/test_import_kineto.c — Kineto JSON to trace rows, on
 * fixtures whose every expected row was worked out by hand. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <zlib.h>

#include "import/import.h"

/* The documented point ids, computed outside gar (FNV-1a-64 of the name, then
 * the named stream's four little-endian bytes). */
#define P_MEMCPY_ASYNC_7 UINT64_C(8072867669459855690)
#define P_STREAM_SYNC_7 UINT64_C(4736720261508363923)
#define P_EVENT_SYNC_7 UINT64_C(15370667951839086975)
#define P_DEVICE_SYNC UINT64_C(514176635145694834)
#define P_STREAM_SYNC_13 UINT64_C(116036054755860985)
#define P_MEMCPY_7 UINT64_C(12265065995212719292)
#define P_HIP_DEVICE_SYNC UINT64_C(15998755891546634858)
#define P_EVENT_SYNC_13 UINT64_C(10773978913953557461)
/* --wait-on kernel: FNV-1a-64 of the kernel's name, then its stream's bytes. */
#define P_GEMM_7 UINT64_C(2478821943304894980)
#define P_ATTENTION_13 UINT64_C(3778856167153948852)
#define P_SOFTMAX_13 UINT64_C(6950522829843384516)

static char *fixture(const char *name)
{
    const char *dir = getenv("GAR_FIXTURES");
    assert_non_null(dir);
    char *path = malloc(strlen(dir) + strlen(name) + 16);
    sprintf(path, "%s/kineto/%s", dir, name);
    return path;
}

static gar_trace import_ok(const char *name, gar_import_counts *counts)
{
    char *path = fixture(name);
    gar_trace t;
    gar_error err;
    int rc = gar_import_kineto_file(path, &t, counts, &err);
    if (rc != 0) {
        char msg[512];
        gar_error_format(&err, msg, sizeof msg);
        fail_msg("%s: %s", name, msg);
    }
    free(path);
    return t;
}

static void assert_rows(const gar_trace *t, const gar_trace_row *want, size_t n)
{
    assert_int_equal(t->count, n);
    assert_int_equal(t->columns, GAR_TRACE_HAS_STREAM);
    for (size_t i = 0; i < n; i++) {
        const gar_trace_row *got = &t->row[i];
        if (memcmp(got, &want[i], sizeof *got) != 0)
            fail_msg("row %zu: got %llu,%llu,%llu,%llu,%u want %llu,%llu,%llu,%llu,%u", i,
                     (unsigned long long)got->point, (unsigned long long)got->submit_ns,
                     (unsigned long long)got->start_ns, (unsigned long long)got->done_ns,
                     got->stream, (unsigned long long)want[i].point,
                     (unsigned long long)want[i].submit_ns, (unsigned long long)want[i].start_ns,
                     (unsigned long long)want[i].done_ns, want[i].stream);
    }
}

/* Integer µs; a blocking async copy, a stream sync, an event sync that must
 * not wait for work launched after its record, a device sync, an ignored
 * event query and HtoD copy, and a sync on a stream with no work. */
static void event_sync_fixture_gives_the_worked_rows(void **state)
{
    (void)state;
    gar_import_counts c;
    gar_trace t = import_ok("event_sync.json", &c);
    const gar_trace_row want[] = {
        { P_MEMCPY_ASYNC_7, 0, 0, 94000, 0, 7 },
        { P_STREAM_SYNC_7, 100000, 110000, 107000, 0, 7 },
        { P_EVENT_SYNC_7, 170000, 185000, 680000, 0, 7 },
        { P_DEVICE_SYNC, 179000, 700000, 780000, 0, 7 },
    };
    assert_rows(&t, want, 4);
    assert_int_equal(c.sync_calls, 5);
    assert_int_equal(c.waits, 4);
    assert_int_equal(c.no_gpu_op, 1);
    assert_int_equal(c.no_stream + c.no_launch + c.inconsistent + c.out_of_order, 0);
    gar_trace_free(&t);
}

/* Decimal µs with ns digits at 1.7e15 µs (beyond a double's precision), an
 * exponent, two streams, a stream sync with no cuda_sync record (its stream
 * is unknown) and a device sync whose latest op has no launch in the trace. */
static void float_timestamps_keep_their_nanoseconds(void **state)
{
    (void)state;
    const gar_trace_row want[] = {
        { P_STREAM_SYNC_13, 0, 4500, 51000, 0, 13 },
        { P_MEMCPY_7, 59000, 59000, 69001, 0, 7 },
    };
    const char *names[] = { "float_ts.json", "float_ts.json.gz" };
    for (int i = 0; i < 2; i++) {
        /* Strict: the last stream sync has no cuda_sync and two streams exist. */
        char *path = fixture(names[i]);
        const char *paths[] = { path };
        gar_import_options strict = { .no_infer = true };
        gar_import_counts c;
        gar_trace t;
        assert_int_equal(gar_import_kineto_files(paths, 1, &strict, &t, &c, NULL, NULL), 0);
        assert_rows(&t, want, 2);
        assert_int_equal(c.sync_calls, 4);
        assert_int_equal(c.no_stream, 1);
        assert_int_equal(c.no_launch, 1);
        assert_int_equal(c.inferred_stream, 0);
        gar_trace_free(&t);
        free(path);
        /* Inferred: the same thread's last launch was the copy on stream 7. */
        const gar_trace_row inferred[] = {
            want[0], want[1], { P_STREAM_SYNC_7, 59000, 79000, 69001, 0, 7 },
        };
        t = import_ok(names[i], &c);
        assert_rows(&t, inferred, 3);
        assert_int_equal(c.no_stream, 0);
        assert_int_equal(c.inferred_stream, 1);
        gar_trace_free(&t);
    }
}

static void bare_event_array_and_hip_names(void **state)
{
    (void)state;
    gar_trace t = import_ok("hip_array.json", NULL);
    const gar_trace_row want[] = { { P_HIP_DEVICE_SYNC, 0, 3000, 35500, 0, 0 } };
    assert_rows(&t, want, 1);
    gar_trace_free(&t);
}

/* A real profiler trace, when the environment points at one. */
static void an_external_trace_imports(void **state)
{
    (void)state;
    const char *path = getenv("GAR_KINETO_TRACE");
    if (path == NULL || path[0] == '\0')
        skip();
    gar_trace t;
    gar_error err;
    assert_int_equal(gar_import_kineto_file(path, &t, NULL, &err), 0);
    assert_true(t.count > 0);
    gar_trace_free(&t);
}

/* Two devices, both with a stream 7: a device sync waits only for its own
 * device, and the row's stream says which (device × 65536 + stream).  A
 * stream sync does not wait for an op another thread launched after the sync
 * began; of two overlapping syncs from two threads, the one that would move
 * its stream backwards is out of order; an op that ends before its launch
 * (clock skew) is inconsistent. */
static void devices_threads_and_skips(void **state)
{
    (void)state;
#define RT(ts, dur, name, corr)                                                                   \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts  \
    ",\"dur\":" #dur ",\"args\":{\"correlation\":" #corr "}},"
#define K(ts, dur, dev, corr)                                                                     \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":" #dev ",\"tid\":7,\"ts\":" #ts       \
    ",\"dur\":" #dur ",\"args\":{\"device\":" #dev ",\"stream\":7,\"correlation\":" #corr "}},"
#define SYNC(dev, stream, corr)                                                                   \
    "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"s\",\"pid\":0,\"tid\":0,\"ts\":0,\"dur\":0,"   \
    "\"args\":{\"device\":" #dev ",\"stream\":" #stream ",\"correlation\":" #corr "}},"
    static const char text[] =
        "{\"traceEvents\":["
        RT(10, 1, "cudaLaunchKernel", 1) K(20, 10, 1, 1)
        RT(11, 1, "cudaLaunchKernel", 2) K(25, 50, 0, 2)
        RT(15, 20, "cudaDeviceSynchronize", 3) SYNC(1, -1, 3)
        RT(40, 40, "cudaStreamSynchronize", 4) SYNC(0, 7, 4)
        RT(45, 1, "cudaLaunchKernel", 5) K(76, 2, 0, 5)
        RT(90, 1, "cudaLaunchKernel", 8) K(105, 5, 0, 8)
        RT(95, 1, "cudaLaunchKernel", 9) K(150, 40, 0, 9)
        RT(100, 100, "cudaStreamSynchronize", 6) SYNC(0, 7, 6)
        RT(110, 5, "cudaStreamSynchronize", 7) SYNC(0, 7, 7)
        RT(300, 1, "cudaLaunchKernel", 10) K(290, 5, 0, 10)
        RT(301, 10, "cudaStreamSynchronize", 11) SYNC(0, 7, 11)
        "{}]}";
#undef RT
#undef K
#undef SYNC
    gar_trace t;
    gar_import_counts c;
    gar_error err;
    assert_int_equal(gar_import_kineto_memory(text, sizeof text - 1, "mem", &t, &c, &err), 0);
    const gar_trace_row want[] = {
        { P_DEVICE_SYNC, 0, 5000, 20000, 0, 65536 + 7 },
        { P_STREAM_SYNC_7, 1000, 30000, 65000, 0, 7 }, /* the op launched at 11, not 45 */
        { P_STREAM_SYNC_7, 85000, 90000, 180000, 0, 7 },
    };
    assert_rows(&t, want, 3);
    assert_int_equal(c.sync_calls, 5);
    assert_int_equal(c.inconsistent, 1);
    assert_int_equal(c.out_of_order, 1);
    assert_int_equal(c.no_gpu_op + c.no_stream + c.no_launch, 0);
    gar_trace_free(&t);
}

static int import_text(const char *text, gar_error *err)
{
    gar_trace t;
    int rc = gar_import_kineto_memory(text, strlen(text), "mem.json", &t, NULL, err);
    if (rc == 0)
        gar_trace_free(&t);
    else
        assert_int_equal(t.count, 0);
    return rc;
}

static void bad_json_is_refused_with_its_place(void **state)
{
    (void)state;
    gar_error err;
    assert_int_equal(import_text("{\"traceEvents\": [\n  {\"ph\": \"X\",, }\n]}", &err),
                     -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[0], "mem.json");
    assert_string_equal(err.argv[1], "2");
    assert_non_null(strstr(err.argv[3], "parse error"));

    assert_int_equal(import_text("{\"traceEvents\": [", &err), -GAR_E_INVALID_TRACE);
    assert_int_equal(import_text("{\"other\": 1}", &err), -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "no traceEvents"));
    assert_int_equal(import_text("{\"traceEvents\": []}", &err), -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "no host call waited"));

    const char *no_ts = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"dur\": 3,"
                        " \"args\": {\"stream\": 7, \"device\": 0}}]}";
    assert_int_equal(import_text(no_ts, &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], "event 1");
    assert_string_equal(err.argv[2], "ts");
    const char *neg = "{\"traceEvents\": [{}, {\"ph\": \"X\", \"cat\": \"cuda_runtime\","
                      " \"name\": \"cudaDeviceSynchronize\", \"ts\": -4, \"dur\": 3}]}";
    assert_int_equal(import_text(neg, &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], "event 2");
    assert_non_null(strstr(err.argv[3], "negative"));
    const char *huge = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1e30,"
                       " \"dur\": 3}]}";
    assert_int_equal(import_text(huge, &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[2], "ts");
    /* An id out of range is named by its own field, not the other one's. */
    const char *big_device = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1,"
                             " \"dur\": 3, \"args\": {\"stream\": 7, \"device\": 4294967296}}]}";
    assert_int_equal(import_text(big_device, &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[2], "args.device");
    const char *big_stream = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1,"
                             " \"dur\": 3, \"args\": {\"stream\": 4294967296, \"device\": 0}}]}";
    assert_int_equal(import_text(big_stream, &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[2], "args.stream");
    /* Events that are not kept may carry any numbers. */
    const char *odd = "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"ts\": -1e999,"
                      " \"dur\": 3.5e40}]}";
    assert_int_equal(import_text(odd, &err), -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "no host call waited"));
}

/* Appends `n` steps (launch, kernel, stream sync with its record) as JSON
 * events to `out`, 1 ms apart, with decimal timestamps. */
static size_t write_steps(char *out, size_t cap, int n)
{
    size_t len = (size_t)snprintf(out, cap, "{\"traceEvents\": [\n");
    for (int i = 0; i < n && len < cap; i++) {
        double t = 1700000000000000.0 + 1000.0 * i;
        int c = 2 * i + 1;
        len += (size_t)snprintf(out + len, cap - len,
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
            "\"tid\":1,\"ts\":%.3f,\"dur\":4.25,\"args\":{\"correlation\":%d}},\n"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":%.3f,"
            "\"dur\":900.125,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}},\n"
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":1,"
            "\"tid\":1,\"ts\":%.3f,\"dur\":906,\"args\":{\"correlation\":%d}},\n"
            "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,"
            "\"ts\":%.3f,\"dur\":905,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}%s\n",
            t, c, t + 10.5, c, t + 5.0, c + 1, t + 6.0, c + 1, i + 1 < n ? "," : "");
    }
    len += (size_t)snprintf(out + len, cap - len, "]}\n");
    return len;
}

/* Many blocks, from a file plain and gzip-compressed, and from memory. */
static void a_long_profile_streams_through_blocks(void **state)
{
    (void)state;
    const int n = 3000;
    size_t cap = (size_t)n * 700 + 64;
    char *json = malloc(cap);
    size_t len = write_steps(json, cap, n);
    assert_true(len < cap && len > 256 * 1024);

    char plain[] = "/tmp/gar-kineto-XXXXXX";
    int fd = mkstemp(plain);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, json, len), (ssize_t)len);
    close(fd);
    char packed[64];
    snprintf(packed, sizeof packed, "%s.gz", plain);
    gzFile gz = gzopen(packed, "wb");
    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, json, (unsigned)len), (int)len);
    assert_int_equal(gzclose(gz), Z_OK);

    gar_trace a, b, c;
    assert_int_equal(gar_import_kineto_file(plain, &a, NULL, NULL), 0);
    assert_int_equal(gar_import_kineto_file(packed, &b, NULL, NULL), 0);
    assert_int_equal(gar_import_kineto_memory(json, len, "mem", &c, NULL, NULL), 0);
    assert_int_equal(a.count, (size_t)n);
    assert_true(gar_trace_equal(&a, &b));
    assert_true(gar_trace_equal(&a, &c));
    for (int i = 0; i < n; i++) {
        const gar_trace_row *r = &a.row[i];
        assert_int_equal(r->submit_ns, (uint64_t)i * 1000000);
        assert_int_equal(r->start_ns, (uint64_t)i * 1000000 + 5000);
        assert_int_equal(r->done_ns, (uint64_t)i * 1000000 + 910625);
    }

    /* A fault far into the text is placed by line and column. */
    char *broken = malloc(len + 1);
    memcpy(broken, json, len);
    size_t at = len / 2;
    while (broken[at] != '\n')
        at++;
    broken[at + 1] = '#'; /* the first byte of a line well past the first block */
    size_t line = 1;
    for (size_t i = 0; i <= at; i++)
        line += broken[i] == '\n';
    gar_error err;
    gar_trace_free(&c); /* `out` is storage to fill: what it held is the caller's to free */
    assert_int_equal(gar_import_kineto_memory(broken, len, "mem", &c, NULL, &err),
                     -GAR_E_INVALID_TRACE);
    char want_line[32];
    snprintf(want_line, sizeof want_line, "%zu", line);
    assert_string_equal(err.argv[1], want_line);
    /* yajl stops at the offending byte or just past it. */
    assert_true(strcmp(err.argv[2], "1") == 0 || strcmp(err.argv[2], "2") == 0);

    unlink(plain);
    unlink(packed);
    free(broken);
    free(json);
    gar_trace_free(&a);
    gar_trace_free(&b);
    gar_trace_free(&c);
}

static void io_failures_are_coded(void **state)
{
    (void)state;
    gar_trace t;
    gar_error err;
    assert_int_equal(gar_import_kineto_file("/nonexistent/x.json", &t, NULL, &err), -GAR_E_IO);
    assert_string_equal(err.argv[1], "open");
    /* A gzip file cut in half. */
    char *path = fixture("float_ts.json.gz");
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    char cut[] = "/tmp/gar-cut-XXXXXX";
    int fd = mkstemp(cut);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, n / 2), (ssize_t)(n / 2));
    close(fd);
    int rc = gar_import_kineto_file(cut, &t, NULL, &err);
    unlink(cut);
    free(path);
    assert_true(rc == -GAR_E_IO || rc == -GAR_E_INVALID_TRACE);
    assert_int_equal(t.count, 0);
}

static bool has_row(const gar_trace *t, const gar_trace_row *row)
{
    for (size_t i = 0; i < t->count; i++)
        if (memcmp(&t->row[i], row, sizeof *row) == 0)
            return true;
    return false;
}

/* A PyTorch 2.0-era training run (no cuda_sync events; see
 * make_train_profiles.py) and the same run as 2.1 records it: inference
 * keeps at least 90% of the synchronizing calls, and every row it makes is
 * the row the sync records give. */
static void a_pre_2_1_profile_keeps_its_waits(void **state)
{
    (void)state;
    gar_import_counts c20, c21, strict;
    gar_trace t20 = import_ok("train_pt20.json", &c20);
    gar_trace t21 = import_ok("train_pt21.json", &c21);
    assert_int_equal(c21.sync_calls, 178);
    assert_int_equal(c21.waits, 178);
    assert_int_equal(c21.inferred_stream, 0);
    assert_int_equal(c20.sync_calls, 178);
    assert_true(c20.waits * 10 >= c20.sync_calls * 9);
    assert_int_equal(c20.waits, 174);
    assert_int_equal(c20.inferred_stream, 144); /* 6 stream/event syncs a step, 24 steps */
    assert_int_equal(c20.no_stream, 4);         /* the logger thread launched nothing */
    for (size_t i = 0; i < t20.count; i++)
        assert_true(has_row(&t21, &t20.row[i]));
    gar_trace_free(&t20);

    /* Strict, only the blocking copies and the device syncs remain. */
    char *path = fixture("train_pt20.json");
    const char *paths[] = { path };
    gar_import_options no_infer = { .no_infer = true };
    assert_int_equal(gar_import_kineto_files(paths, 1, &no_infer, &t20, &strict, NULL, NULL), 0);
    assert_int_equal(strict.waits, 30);
    assert_int_equal(strict.no_stream, 148);
    free(path);
    gar_trace_free(&t20);
    gar_trace_free(&t21);
}

/* Two ranks' files (the same run twice, so every correlation id and stream
 * collides) make one trace: each rank's rows are its own, on its own
 * streams, at its own points. */
static void ranks_are_kept_apart(void **state)
{
    (void)state;
    gar_import_counts one, two;
    gar_trace single = import_ok("train_pt21.json", &one);
    char *path = fixture("train_pt21.json");
    const char *paths[] = { path, path };
    gar_trace t;
    gar_import_legend legend;
    gar_error err;
    assert_int_equal(gar_import_kineto_files(paths, 2, NULL, &t, &two, &legend, &err), 0);
    free(path);
    assert_int_equal(t.count, 2 * single.count);
    assert_int_equal(two.sync_calls, 2 * one.sync_calls);
    assert_int_equal(legend.processes, 2);
    assert_int_equal(legend.process[0], 0);
    assert_int_equal(legend.process[1], 1);
    assert_int_equal(legend.streams, 12); /* six streams a rank */
    for (size_t i = 0; i < legend.streams; i++) {
        assert_int_equal(legend.stream[i].id, i);
        assert_int_equal(legend.stream[i].process, i / 6);
    }
    /* Rows of rank 0 are on streams 0..5, of rank 1 on 6..11; the two sets
     * of points do not meet; each rank has as many rows as alone. */
    size_t rank1 = 0;
    for (size_t i = 0; i < t.count; i++) {
        assert_true(t.row[i].stream < 12);
        bool r1 = t.row[i].stream >= 6;
        rank1 += r1;
        for (size_t j = 0; j < i; j++)
            if ((t.row[j].stream >= 6) != r1)
                assert_true(t.row[j].point != t.row[i].point);
    }
    assert_int_equal(rank1, single.count);
    gar_import_legend_free(&legend);
    gar_trace_free(&t);
    gar_trace_free(&single);
}

/* An id that does not fit its type is refused, naming the event and key,
 * never wrapped, truncated or replaced by pid/tid. */
static void ids_that_do_not_fit_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *args;
        const char *key, *fault;
    } cases[] = {
        { "\"correlation\": 18446744073709551628", "args.correlation", "not an integer" },
        { "\"correlation\": -3", "args.correlation", "negative" },
        { "\"correlation\": \"12\"", "args.correlation", "not a JSON integer" },
        { "\"stream\": 1180591620717411303424", "args.stream", "not an integer" },
        { "\"stream\": \"7\"", "args.stream", "not a JSON integer" },
        { "\"stream\": 7.5", "args.stream", "not an integer" },
        { "\"stream\": 7e0", "args.stream", "not an integer" },
        { "\"stream\": true", "args.stream", "not a JSON integer" },
        { "\"stream\": null", "args.stream", "not a JSON integer" },
        { "\"stream\": [7]", "args.stream", "not a JSON integer" },
        { "\"stream\": -1", "args.stream", "negative" },
        { "\"stream\": 4294967295", "args.stream", "past 2^32 - 2" },
        { "\"device\": {\"id\": 0}", "args.device", "not a JSON integer" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"pid\": 0,"
                 " \"tid\": 7, \"ts\": 1, \"dur\": 3, \"args\": {%s}}]}",
                 cases[i].args);
        gar_error err;
        assert_int_equal(import_text(text, &err), -GAR_E_INVALID_TRACE);
        assert_string_equal(err.argv[1], "event 1");
        assert_string_equal(err.argv[2], cases[i].key);
        if (strstr(err.argv[3], cases[i].fault) == NULL)
            fail_msg("case %zu: '%s' does not say '%s'", i, err.argv[3], cases[i].fault);
    }
    /* The largest ids that fit are read as they are. */
    const char *fits =
        "{\"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,"
        "\"ts\":1,\"dur\":1,\"args\":{\"correlation\":18446744073709551615}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":2,\"dur\":5,\"args\":{\"device\":0,"
        "\"stream\":4294967294,\"correlation\":18446744073709551615}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"tid\":1,"
        "\"ts\":3,\"dur\":5,\"args\":{\"correlation\":7}}]}";
    gar_trace t;
    gar_import_counts c;
    assert_int_equal(gar_import_kineto_memory(fits, strlen(fits), "m", &t, &c, NULL),
                     -GAR_E_INVALID_TRACE); /* the stream id is past the trace's 65536 */
    assert_int_equal(c.no_stream, 1);
    /* A cuda_sync's -1 means none. */
    const char *none = "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"ts\":0,"
                       "\"dur\":0,\"args\":{\"stream\":-1,\"wait_on_stream\":-1,"
                       "\"wait_on_cuda_event_record_corr_id\":-1,\"correlation\":3}}]}";
    gar_error err;
    assert_int_equal(import_text(none, &err), -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "no host call waited"));
}

/* A JSON text with a `len`-byte token of `fill` (a string when `quoted`) as
 * an ignored args value on line 3. */
static char *with_long_token(size_t len, char fill, bool quoted, size_t *size)
{
    const char *head =
        "{\"traceEvents\": [\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,"
        "\"ts\":1,\"dur\":1,\"args\":{\"correlation\":1}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":2,\"dur\":5,\"args\":{\"note\": ";
    const char *tail =
        ", \"device\":0,\"stream\":7,\"correlation\":1}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"tid\":1,"
        "\"ts\":3,\"dur\":5,\"args\":{\"correlation\":2}}]}\n";
    size_t n = strlen(head) + len + 2 + strlen(tail);
    char *text = malloc(n + 1);
    size_t at = (size_t)sprintf(text, "%s", head);
    if (quoted)
        text[at++] = '"';
    memset(text + at, fill, len);
    at += len;
    if (quoted)
        text[at++] = '"';
    at += (size_t)sprintf(text + at, "%s", tail);
    *size = at;
    return text;
}

/* A string or number longer than 1 MiB is refused at its start (line 3, the
 * column after "note": ); one of exactly 1 MiB is read. */
static void tokens_past_1_mib_are_refused(void **state)
{
    (void)state;
    const size_t column = strlen("{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":2,\"dur\":5,"
                                 "\"args\":{\"note\": ") + 1;
    char want_column[24];
    snprintf(want_column, sizeof want_column, "%zu", column);
    static const struct {
        char fill;
        bool quoted;
        const char *what;
    } kinds[] = { { 'a', true, "string" }, { '7', false, "number" } };
    for (size_t k = 0; k < 2; k++) {
        size_t size;
        /* A quoted token's length counts its quotes. */
        size_t fits = GAR_IMPORT_TOKEN_MAX - (kinds[k].quoted ? 2 : 0);
        char *text = with_long_token(fits, kinds[k].fill, kinds[k].quoted, &size);
        gar_trace t;
        gar_error err;
        int rc = gar_import_kineto_memory(text, size, "long.json", &t, NULL, &err);
        if (rc != 0) {
            char msg[512];
            gar_error_format(&err, msg, sizeof msg);
            fail_msg("%s: %s", kinds[k].what, msg);
        }
        assert_int_equal(t.count, 1);
        gar_trace_free(&t);
        free(text);

        text = with_long_token(fits + 1, kinds[k].fill, kinds[k].quoted, &size);
        assert_int_equal(gar_import_kineto_memory(text, size, "long.json", &t, NULL, &err),
                         -GAR_E_INVALID_TRACE);
        assert_string_equal(err.argv[0], "long.json");
        assert_string_equal(err.argv[1], "3");
        assert_string_equal(err.argv[2], want_column);
        assert_non_null(strstr(err.argv[3], kinds[k].what));
        assert_non_null(strstr(err.argv[3], "longer than 1048576 bytes"));
        assert_int_equal(t.count, 0);
        free(text);
    }
    /* Escaped quotes do not end a string early. */
    size_t size;
    char *text = with_long_token(GAR_IMPORT_TOKEN_MAX, '\\', true, &size);
    gar_error err;
    gar_trace t;
    assert_int_equal(gar_import_kineto_memory(text, size, "long.json", &t, NULL, &err),
                     -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], "3");
    assert_string_equal(err.argv[2], want_column);
    free(text);
}

/* What real producers write, one fixture each (data/README.md, "What the
 * producers write"). */
static void producers_conventions_are_read(void **state)
{
    (void)state;
    /* PyTorch 2.1-2.3: a cuda_sync's "no stream" is 2^32 - 1, as stream and
     * tid of the event sync and of the device-wide sync. */
    gar_import_counts c;
    gar_trace t = import_ok("pt22_no_stream.json", &c);
    const gar_trace_row pt22[] = {
        { P_STREAM_SYNC_7, 0, 12000, 110000, 0, 7 },
        { P_EVENT_SYNC_13, 6000, 122000, 170000, 0, 13 }, /* not the kernel launched after the record */
        { P_DEVICE_SYNC, 118000, 180000, 185000, 0, 13 },
    };
    assert_rows(&t, pt22, 3);
    assert_int_equal(c.sync_calls, 3);
    assert_int_equal(c.inferred_stream, 0);
    gar_trace_free(&t);

    /* PyTorch 1.8-1.9: Runtime / Kernel / Memcpy categories, tids as strings;
     * each thread's stream sync follows that thread's own last launch. */
    t = import_ok("pt18_runtime_kernel.json", &c);
    const gar_trace_row pt18[] = {
        { P_MEMCPY_ASYNC_7, 6000, 6000, 63000, 0, 7 },
        { P_STREAM_SYNC_7, 6000, 68000, 63000, 0, 7 },
        { P_STREAM_SYNC_13, 0, 73000, 90000, 0, 13 },
    };
    assert_rows(&t, pt18, 3);
    assert_int_equal(c.sync_calls, 3);
    assert_int_equal(c.inferred_stream, 2);
    gar_trace_free(&t);

    /* PyTorch 2.4 on: times relative to baseTimeNanoseconds, with ns
     * digits; displayTimeUnit is for viewers; a cuda_sync's tid of -1 is
     * written as 1. */
    t = import_ok("pt25_relative.json", &c);
    const gar_trace_row pt25[] = { { P_DEVICE_SYNC, 0, 3750, 25251, 0, 7 } };
    assert_rows(&t, pt25, 1);
    gar_trace_free(&t);
}

/* A key the reader reads, given twice, is refused with the event and key
 * (or, for traceEvents, the line and column): JSON readers differ on which
 * value counts.  A repeated key that is not read changes nothing. */
static void duplicate_keys_are_refused(void **state)
{
    (void)state;
#define KERNEL_WITH(args) \
    "{\"traceEvents\": [{}, {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 3, " args "}]}"
    static const struct {
        const char *text, *key;
    } refused[] = {
        { KERNEL_WITH("\"args\": {\"device\": 0, \"stream\": 7, \"stream\": 9}"), "args.stream" },
        { KERNEL_WITH("\"args\": {\"correlation\": 1, \"correlation\": 1}"), "args.correlation" },
        { KERNEL_WITH("\"ts\": 2, \"args\": {\"device\": 0, \"stream\": 7}"), "ts" },
        { KERNEL_WITH("\"args\": {}, \"args\": {\"device\": 0, \"stream\": 7}"), "args" },
        { "{\"traceEvents\": [{}, {\"cat\": \"cpu_op\", \"cat\": \"kernel\"}]}", "cat" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        gar_error err;
        assert_int_equal(import_text(refused[i].text, &err), -GAR_E_INVALID_TRACE);
        assert_string_equal(err.argv[1], "event 2");
        assert_string_equal(err.argv[2], refused[i].key);
        assert_non_null(strstr(err.argv[3], "given twice"));
    }
#undef KERNEL_WITH
    /* A repeated key that is not read, or a read one in an event not kept. */
    const char *harmless =
        "{\"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"ts\":1,\"ts\":2,\"dur\":1,\"args\":{\"External id\":1,"
        "\"External id\":1,\"stream\":1,\"stream\":2}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,"
        "\"ts\":1,\"dur\":1,\"args\":{\"correlation\":1,\"cbid\":211,\"cbid\":211}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"ts\":2,\"dur\":5,\"args\":{\"device\":0,"
        "\"stream\":7,\"correlation\":1,\"grid\":[1,1,1],\"grid\":[2,1,1]}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"tid\":1,"
        "\"ts\":3,\"dur\":5,\"args\":{\"correlation\":2}}]}";
    gar_error err;
    assert_int_equal(import_text(harmless, &err), 0);
    /* A second traceEvents: placed by line and column, just past the key. */
    const char *two = "{\"traceEvents\": [],\n \"traceEvents\": []}";
    assert_int_equal(import_text(two, &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], "2");
    assert_string_equal(err.argv[2], "15");
    assert_non_null(strstr(err.argv[3], "second traceEvents"));
}

/* `n` bytes gzip-compressed, as one member; `*size` its length. */
static unsigned char *gzip_of(const void *data, size_t n, size_t *size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)n) + 16;
    unsigned char *out = malloc(cap);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *size = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static char *read_all(const char *name, size_t *size)
{
    char *path = fixture(name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *text = malloc(1 << 16);
    *size = fread(text, 1, 1 << 16, f);
    fclose(f);
    free(path);
    return text;
}

/* gzip: several members are one text (as gzip reads them); bytes after the
 * last member that do not begin another, a member cut short, and corrupt
 * data are refused at their byte of the compressed file. */
static void gzip_members_and_what_follows_them(void **state)
{
    (void)state;
    size_t plain_size;
    char *plain = read_all("event_sync.json", &plain_size);
    gar_trace want;
    assert_int_equal(gar_import_kineto_memory(plain, plain_size, "p", &want, NULL, NULL), 0);

    size_t half = plain_size / 2, a_size, b_size;
    unsigned char *a = gzip_of(plain, half, &a_size);
    unsigned char *b = gzip_of(plain + half, plain_size - half, &b_size);
    unsigned char *buf = malloc(a_size + b_size + 16);
    memcpy(buf, a, a_size);
    memcpy(buf + a_size, b, b_size);
    gar_trace t;
    gar_error err;
    assert_int_equal(gar_import_kineto_memory(buf, a_size + b_size, "two.gz", &t, NULL, &err), 0);
    assert_true(gar_trace_equal(&t, &want));
    gar_trace_free(&t);

    /* The same, from a file. */
    char path[] = "/tmp/gar-gz-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, a_size + b_size), (ssize_t)(a_size + b_size));
    close(fd);
    assert_int_equal(gar_import_kineto_file(path, &t, NULL, &err), 0);
    assert_true(gar_trace_equal(&t, &want));
    gar_trace_free(&t);

    static const struct {
        const char *tail;
        size_t len;
    } tails[] = { { "junk", 4 }, { "\0\0\0\0", 4 }, { "\x1f", 1 }, { "\x1f\x8c", 2 },
                  { "\n", 1 } };
    size_t whole_size;
    unsigned char *whole = gzip_of(plain, plain_size, &whole_size);
    char at[32];
    snprintf(at, sizeof at, "byte %zu", whole_size + 1);
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        memcpy(buf, whole, whole_size);
        memcpy(buf + whole_size, tails[i].tail, tails[i].len);
        assert_int_equal(gar_import_kineto_memory(buf, whole_size + tails[i].len, "t.gz", &t,
                                                  NULL, &err),
                         -GAR_E_INVALID_TRACE);
        assert_string_equal(err.argv[1], at);
        assert_non_null(strstr(err.argv[3], "not another gzip member"));
        assert_int_equal(t.count, 0);
    }
    /* From a file too: the shell's `gzip -t` calls this trailing garbage. */
    memcpy(buf, whole, whole_size);
    memcpy(buf + whole_size, "junk", 4);
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, whole_size + 4), (ssize_t)(whole_size + 4));
    close(fd);
    assert_int_equal(gar_import_kineto_file(path, &t, NULL, &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], at);
    unlink(path);

    /* Cut short, and corrupt. */
    assert_int_equal(gar_import_kineto_memory(whole, whole_size - 3, "cut.gz", &t, NULL, &err),
                     -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "cut short"));
    memcpy(buf, whole, whole_size);
    buf[whole_size - 6] ^= 0x55; /* the CRC-32 of the trailer */
    assert_int_equal(gar_import_kineto_memory(buf, whole_size, "crc.gz", &t, NULL, &err),
                     -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "corrupt gzip data"));

    free(whole);
    free(buf);
    free(a);
    free(b);
    free(plain);
    gar_trace_free(&want);
}

/* --wait-on kernel: one row per kernel, waited for from its launch call's
 * return (submit = the launch's start, start = its end, done = the kernel's
 * end), at a point of the kernel's name and stream; sync calls make none. */
static void kernel_waits_are_a_what_if(void **state)
{
    (void)state;
    gar_import_options kernels = { .wait_on = GAR_IMPORT_WAIT_ON_KERNEL };
    char *path = fixture("pt22_no_stream.json");
    const char *paths[] = { path };
    gar_trace t;
    gar_import_counts c;
    assert_int_equal(gar_import_kineto_files(paths, 1, &kernels, &t, &c, NULL, NULL), 0);
    free(path);
    const gar_trace_row want[] = {
        { P_GEMM_7, 0, 5000, 110000, 0, 7 },
        { P_ATTENTION_13, 6000, 10000, 170000, 0, 13 },
        { P_SOFTMAX_13, 118000, 121000, 185000, 0, 13 },
    };
    assert_rows(&t, want, 3);
    assert_int_equal(c.sync_calls, 3); /* the kernels */
    assert_int_equal(c.waits, 3);
    gar_trace_free(&t);

    /* A kernel whose launch is not in the trace makes no row. */
    path = fixture("float_ts.json");
    paths[0] = path;
    assert_int_equal(gar_import_kineto_files(paths, 1, &kernels, &t, &c, NULL, NULL), 0);
    free(path);
    assert_int_equal(c.sync_calls, 3);
    assert_int_equal(c.waits, 2);
    assert_int_equal(c.no_launch, 1);
    gar_trace_free(&t);

    /* The training profile: 624 kernels, where its host waited 178 times. */
    path = fixture("train_pt21.json");
    paths[0] = path;
    assert_int_equal(gar_import_kineto_files(paths, 1, &kernels, &t, &c, NULL, NULL), 0);
    free(path);
    assert_int_equal(c.waits, 624);
    assert_int_equal(c.waits, t.count);
    gar_trace_free(&t);
}

/* A copy call is a wait only when it returned after its copy ended (within
 * the clock slop, GAR_IMPORT_EARLY_RETURN_NS): an async device-to-pageable
 * copy queued behind a long kernel that returned 974 us early, one that
 * returned 5.001 us early and a pageable cudaMemcpy that returned once its
 * data was staged are skipped as returned early; a blocking async copy, one
 * that returned exactly 5 us before its copy's end, and a blocking cudaMemcpy
 * are waits, each for its own copy. */
static void copies_that_returned_early_are_no_waits(void **state)
{
    (void)state;
    gar_import_counts c;
    gar_trace t = import_ok("early_return_copy.json", &c);
    const gar_trace_row want[] = {
        { P_STREAM_SYNC_7, 0, 10000, 982000, 0, 7 },
        { P_MEMCPY_ASYNC_7, 1100000, 1100000, 1492000, 0, 7 },
        { P_MEMCPY_ASYNC_7, 1580000, 1580000, 1595000, 0, 7 },
        { P_MEMCPY_7, 1980000, 1980000, 2035000, 0, 7 },
    };
    assert_rows(&t, want, 4);
    assert_int_equal(c.sync_calls, 7);
    assert_int_equal(c.waits, 4);
    assert_int_equal(c.returned_early, 3);
    assert_int_equal(c.no_gpu_op + c.no_stream + c.no_launch + c.inconsistent + c.out_of_order,
                     0);
    gar_trace_free(&t);
}

/* A profile whose only copy returned early has no wait: the refusal counts
 * why and names --wait-on kernel, which makes a what-if trace of it. */
static void no_wait_refusal_suggests_kernel_waits(void **state)
{
    (void)state;
    static const char text[] =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1,"
        " \"tid\": 1, \"ts\": 0, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7,"
        " \"ts\": 10, \"dur\": 990, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}},\n"
        "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": 1,"
        " \"tid\": 1, \"ts\": 20, \"dur\": 8, \"args\": {\"correlation\": 2}},\n"
        "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pageable)\","
        " \"pid\": 0, \"tid\": 7, \"ts\": 1000, \"dur\": 2,"
        " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 2}}\n"
        "]}\n";
    gar_error err;
    gar_trace t;
    gar_import_counts c;
    assert_int_equal(gar_import_kineto_memory(text, sizeof text - 1, "mem.json", &t, &c, &err),
                     -GAR_E_INVALID_TRACE);
    assert_int_equal(c.returned_early, 1);
    assert_non_null(strstr(err.argv[3], "returned early 1"));
    assert_non_null(strstr(err.argv[3], "--wait-on kernel"));
    /* With no synchronizing call at all, the same suggestion. */
    gar_error none;
    assert_int_equal(import_text("{\"traceEvents\": [\n"
                                 "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\":"
                                 " \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 0,"
                                 " \"dur\": 5, \"args\": {\"correlation\": 1}}\n]}\n",
                                 &none),
                     -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(none.argv[3], "--wait-on kernel"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(event_sync_fixture_gives_the_worked_rows),
        cmocka_unit_test(float_timestamps_keep_their_nanoseconds),
        cmocka_unit_test(bare_event_array_and_hip_names),
        cmocka_unit_test(an_external_trace_imports),
        cmocka_unit_test(devices_threads_and_skips),
        cmocka_unit_test(bad_json_is_refused_with_its_place),
        cmocka_unit_test(a_long_profile_streams_through_blocks),
        cmocka_unit_test(io_failures_are_coded),
        cmocka_unit_test(a_pre_2_1_profile_keeps_its_waits),
        cmocka_unit_test(ranks_are_kept_apart),
        cmocka_unit_test(ids_that_do_not_fit_are_refused),
        cmocka_unit_test(tokens_past_1_mib_are_refused),
        cmocka_unit_test(producers_conventions_are_read),
        cmocka_unit_test(duplicate_keys_are_refused),
        cmocka_unit_test(gzip_members_and_what_follows_them),
        cmocka_unit_test(kernel_waits_are_a_what_if),
        cmocka_unit_test(copies_that_returned_early_are_no_waits),
        cmocka_unit_test(no_wait_refusal_suggests_kernel_waits),
    };
    return cmocka_run_group_tests_name("import_kineto", tests, NULL, NULL);
}
