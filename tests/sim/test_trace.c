/* tests/sim/test_trace.c — gar-trace v1: round trips, and every refusal names
 * its file, line, column and fault. */
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

#include <zlib.h>

#include "sim/prng.h"
#include "sim/trace/trace.h"

#define HEADER "# gar-trace v1\npoint,submit_ns,start_ns,done_ns\n"
#define HEADER_RS "# gar-trace v1\npoint,submit_ns,start_ns,done_ns,rows,stream\n"

/* A valid trace of `n` rows on a few streams, with every column in use. */
static gar_trace make_trace(size_t n, unsigned columns, uint64_t seed)
{
    gar_trace t;
    gar_trace_init(&t);
    t.columns = columns;
    gar_prng g = gar_prng_seeded(seed);
    uint64_t start = 0, last_submit[4] = { 0 }, last_done[4] = { 0 };
    for (size_t i = 0; i < n; i++) {
        uint32_t stream = (columns & GAR_TRACE_HAS_STREAM) ? (uint32_t)gar_prng_below(&g, 4) : 0;
        start += gar_prng_below(&g, 5000);
        uint64_t submit = last_submit[stream] + gar_prng_below(&g, 1000);
        if (submit > start)
            start = submit;
        uint64_t done = submit + gar_prng_below(&g, 1u << 30);
        if (done < last_done[stream])
            done = last_done[stream];
        gar_trace_row row = {
            .point = gar_prng_next(&g),
            .submit_ns = submit,
            .start_ns = start,
            .done_ns = done,
            .step_rows = (columns & GAR_TRACE_HAS_STEP_ROWS) ? (uint32_t)gar_prng_next(&g) : 0,
            .stream = stream,
        };
        last_submit[stream] = submit;
        last_done[stream] = done;
        assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    }
    return t;
}

/* The canonical text of a trace, in a malloc'd buffer. */
static char *write_to_memory(const gar_trace *t, const char *comment, size_t *size)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, size);
    assert_non_null(f);
    assert_int_equal(gar_trace_write_stream(t, comment, f, "mem", NULL), 0);
    fclose(f);
    return buf;
}

static void round_trip_every_column_set(void **state)
{
    (void)state;
    const unsigned sets[] = { 0, GAR_TRACE_HAS_STEP_ROWS, GAR_TRACE_HAS_STREAM,
                              GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM };
    for (size_t s = 0; s < 4; s++) {
        gar_trace t = make_trace(3000, sets[s], 7 + s);
        assert_int_equal(gar_trace_check(&t, "made", NULL), 0);
        size_t size;
        char *text = write_to_memory(&t, "a comment\n\nsecond line", &size);
        gar_trace back;
        gar_error err;
        int rc = gar_trace_read_memory(&back, text, size, "mem", &err);
        if (rc != 0) {
            char msg[512];
            gar_error_format(&err, msg, sizeof msg);
            fail_msg("%s", msg);
        }
        assert_true(gar_trace_equal(&t, &back));
        /* Writing what was read gives the same bytes: the form is canonical. */
        size_t size2;
        char *text2 = write_to_memory(&back, "a comment\n\nsecond line", &size2);
        assert_int_equal(size, size2);
        assert_memory_equal(text, text2, size);
        free(text);
        free(text2);
        gar_trace_free(&t);
        gar_trace_free(&back);
    }
}

static void writer_writes_the_documented_text(void **state)
{
    (void)state;
    gar_trace t;
    gar_trace_init(&t);
    t.columns = GAR_TRACE_HAS_STEP_ROWS;
    gar_trace_row a = { 7, 0, 40000, 2040000, 16, 0 };
    gar_trace_row b = { 8, 2100000, 2140000, 2100000, 17, 0 };
    gar_trace_append(&t, &a, NULL);
    gar_trace_append(&t, &b, NULL);
    size_t size;
    char *text = write_to_memory(&t, "two steps", &size);
    assert_string_equal(text, "# gar-trace v1\n# two steps\npoint,submit_ns,start_ns,done_ns,rows\n"
                              "7,0,40000,2040000,16\n8,2100000,2140000,2100000,17\n");
    free(text);
    gar_trace_free(&t);
}

static void reader_takes_comments_crlf_and_defaults(void **state)
{
    (void)state;
    static const char text[] = "# gar-trace v1\r\n# made by hand\r\n"
                               "point,submit_ns,start_ns,done_ns,stream\r\n"
                               "1,0,10,20,3\r\n# between rows\r\n2,5,10,8,4\r\n";
    gar_trace t;
    assert_int_equal(gar_trace_read_memory(&t, text, sizeof text - 1, "crlf", NULL), 0);
    assert_int_equal(t.count, 2);
    assert_int_equal(t.columns, GAR_TRACE_HAS_STREAM);
    assert_int_equal(t.row[1].point, 2);
    assert_int_equal(t.row[1].done_ns, 8); /* done before start: finished before the wait */
    assert_int_equal(t.row[1].stream, 4);
    assert_int_equal(t.row[1].step_rows, 0);
    gar_trace_free(&t);
}

static void numbers_reach_their_type_limits(void **state)
{
    (void)state;
    static const char text[] = HEADER_RS "18446744073709551615,0,9223372036854775807,"
                                         "00000000000000000000000000000005,4294967295,4294967295\n";
    gar_trace t;
    assert_int_equal(gar_trace_read_memory(&t, text, sizeof text - 1, "max", NULL), 0);
    assert_int_equal(t.row[0].point, UINT64_MAX);
    assert_int_equal(t.row[0].start_ns, INT64_MAX);
    assert_int_equal(t.row[0].done_ns, 5);
    assert_int_equal(t.row[0].step_rows, UINT32_MAX);
    assert_int_equal(t.row[0].stream, UINT32_MAX);
    gar_trace_free(&t);
}

static void streams_are_ordered_independently(void **state)
{
    (void)state;
    /* Stream 1 submits earlier than stream 0 did: fine, they are separate. */
    static const char text[] = HEADER_RS "1,10,10,30,0,0\n1,5,15,20,0,1\n1,11,16,31,0,0\n";
    gar_trace t;
    assert_int_equal(gar_trace_read_memory(&t, text, sizeof text - 1, "s", NULL), 0);
    assert_int_equal(t.count, 3);
    gar_trace_free(&t);
}

static const struct refusal {
    const char *text;
    const char *line, *column, *fault;
} refusals[] = {
    { "", "1", "1", "empty file" },
    { "# gar-trace v2\n", "1", "1", "unsupported version 'v2'" },
    { "point,submit_ns,start_ns,done_ns\n", "1", "1", "the first line must be" },
    { "# gar-trace v1\n", "2", "1", "no header row" },
    { HEADER, "3", "1", "no rows" },
    { HEADER "# only a comment\n", "4", "1", "no rows" },
    { "# gar-trace v1\npoint,submit_ns,start_ns\n1,0,0\n", "2", "4", "missing column 'done_ns'" },
    { "# gar-trace v1\npoint,submit_ns,start_ns,done_ns,colour\n", "2", "5",
      "unknown column 'colour'" },
    { "# gar-trace v1\nsubmit_ns,point,start_ns,done_ns\n", "2", "1", "expected column 'point'" },
    { "# gar-trace v1\npoint,submit_ns,start_ns,done_ns,stream,rows\n", "2", "6", "out of place" },
    { "# gar-trace v1\npoint,submit_ns,start_ns,done_ns,rows,rows\n", "2", "6", "out of place" },
    { "# gar-trace v1\npoint,submit_ns,start_ns,done_ns,rows,stream,rows\n", "2", "7",
      "too many columns" },
    { HEADER "1,0,x,5\n", "3", "3", "start_ns 'x' is not a decimal number" },
    { HEADER "1, 0,0,5\n", "3", "2", "not a decimal number" },
    { HEADER "1,0,0,5.0\n", "3", "4", "not a decimal number" },
    { HEADER "1,-5,0,5\n", "3", "2", "submit_ns '-5' is negative" },
    { HEADER "1,0,0,18446744073709551616\n", "3", "4", "out of range" },
    { HEADER "18446744073709551616,0,0,5\n", "3", "1", "point '18446744073709551616' is out of range" },
    { HEADER_RS "1,0,0,5,4294967296,0\n", "3", "5", "rows '4294967296' is out of range" },
    { HEADER_RS "1,0,0,5,0,4294967296\n", "3", "6", "stream '4294967296' is out of range" },
    { HEADER "1,0,0,9223372036854775808\n", "3", "4", "above the limit" },
    { HEADER "1,10,10,5\n", "3", "4", "done_ns 5 is before submit_ns 10" },
    { HEADER "1,10,5,20\n", "3", "3", "start_ns 5 is before submit_ns 10" },
    { HEADER_RS "1,10,10,20,0,0\n1,5,15,25,0,0\n", "4", "2",
      "submit_ns 5 is before stream 0's previous submit_ns 10" },
    { HEADER_RS "1,10,10,30,0,2\n1,12,15,25,0,2\n", "4", "4",
      "done_ns 25 is before stream 2's previous done_ns 30" },
    { HEADER_RS "1,10,20,30,0,0\n1,12,15,35,0,1\n", "4", "3",
      "start_ns 15 is before the previous row's start_ns 20" },
    { HEADER "1,,0,5\n", "3", "2", "empty field for submit_ns" },
    { HEADER "1,0,0,5,\n", "3", "5", "too many fields" },
    { HEADER "1,0,0,5,7\n", "3", "5", "too many fields (the header names 4)" },
    { HEADER "1,0,0\n", "3", "4", "missing field for done_ns" },
    { HEADER "\n1,0,0,5\n", "3", "1", "blank line" },
    { HEADER "1,0,0,5\n\n", "4", "1", "blank line" },
    { "# gar-trace v1\n\npoint,submit_ns,start_ns,done_ns\n", "2", "1", "blank line" },
    { HEADER "1,0,0,5\n1,0,0,6", "4", "1", "no newline" },
};

/* The same faults in rows of eight bytes or more, which the reader first
 * tries eight bytes at a time and, finding something amiss, reads again
 * field by field. */
static const struct refusal long_refusals[] = {
    { HEADER "12345678,0,x,5\n", "3", "3", "start_ns 'x' is not a decimal number" },
    { HEADER "1234567:,0,0,5\n", "3", "1", "its byte 7 is ':'" },
    { HEADER "12345678;0,0,5\n", "3", "1", "point '12345678;0' is not a decimal number" },
    { HEADER "12345678,0,0,5 \n", "3", "4", "done_ns '5 ' is not a decimal number" },
    { HEADER "12345678,0,0,\xff\n", "3", "4", "not a decimal number" },
    { HEADER "12345678,-5,0,5\n", "3", "2", "submit_ns '-5' is negative" },
    { HEADER "12345678,0,0,99999999999999999999\n", "3", "4", "out of range" },
    { HEADER "12345678,0,0,18446744073709551616\n", "3", "4", "out of range" },
    { HEADER_RS "12345678,0,0,5,4294967296,0\n", "3", "5", "rows '4294967296' is out of range" },
    { HEADER_RS "12345678,0,0,5,0,4294967296\n", "3", "6", "out of range" },
    { HEADER "12345678,0,0,9223372036854775808\n", "3", "4", "above the limit" },
    { HEADER "12345678,,0,5\n", "3", "2", "empty field for submit_ns" },
    { HEADER "12345678,0,0,5,\n", "3", "5", "too many fields" },
    { HEADER "12345678,0,0,5,7\n", "3", "5", "too many fields (the header names 4)" },
    { HEADER "12345678,0,0\n", "3", "4", "missing field for done_ns" },
    { HEADER "12345678,0,0,\n", "3", "4", "empty field for done_ns" },
    { HEADER "12345678,10,10,5\n", "3", "4", "done_ns 5 is before submit_ns 10" },
};

/* Rows of eight bytes or more that are read eight bytes at a time: numbers
 * of 8 and 16 digits (whole chunks), at the end of the line and not, the
 * longest numbers taken that way (19 digits, 9 for rows and stream), and
 * one over, which goes the long way and still reads. */
static void long_rows_read_their_numbers(void **state)
{
    (void)state;
    static const char text[] = HEADER_RS "12345678,0,1234567812345678,1234567812345678,8,9\n"
                                         "9999999999999999999,1,1234567812345678,"
                                         "9223372036854775807,999999999,999999999\n"
                                         "18446744073709551615,2,1234567812345679,"
                                         "9223372036854775807,1,0000000001\r\n";
    gar_trace t;
    assert_int_equal(gar_trace_read_memory(&t, text, sizeof text - 1, "long", NULL), 0);
    assert_int_equal(t.count, 3);
    assert_int_equal(t.row[0].point, 12345678);
    assert_int_equal(t.row[0].start_ns, UINT64_C(1234567812345678));
    assert_int_equal(t.row[0].done_ns, UINT64_C(1234567812345678));
    assert_int_equal(t.row[0].step_rows, 8);
    assert_int_equal(t.row[0].stream, 9);
    assert_int_equal(t.row[1].point, UINT64_C(9999999999999999999));
    assert_int_equal(t.row[1].submit_ns, 1);
    assert_int_equal(t.row[1].done_ns, INT64_MAX);
    assert_int_equal(t.row[1].step_rows, 999999999);
    assert_int_equal(t.row[1].stream, 999999999);
    assert_int_equal(t.row[2].point, UINT64_MAX);
    assert_int_equal(t.row[2].start_ns, UINT64_C(1234567812345679));
    assert_int_equal(t.row[2].stream, 1);
    gar_trace_free(&t);
}

static void expect_refusals(const struct refusal *table, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const struct refusal *r = &table[i];
        gar_trace t;
        t.count = 99; /* must come back empty */
        gar_error err;
        gar_error_clear(&err);
        int rc = gar_trace_read_memory(&t, r->text, strlen(r->text), "bad.csv", &err);
        if (rc != -GAR_E_INVALID_TRACE || strcmp(err.argv[1], r->line) != 0 ||
            strcmp(err.argv[2], r->column) != 0 || strstr(err.argv[3], r->fault) == NULL) {
            char msg[512];
            gar_error_format(&err, msg, sizeof msg);
            fail_msg("case %zu: rc %d, got '%s', want line %s column %s '%s'", i, rc, msg,
                     r->line, r->column, r->fault);
        }
        assert_string_equal(err.argv[0], "bad.csv");
        assert_int_equal(t.count, 0);
        assert_null(t.row);
    }
}

static void every_refusal_names_line_column_and_fault(void **state)
{
    (void)state;
    expect_refusals(refusals, sizeof refusals / sizeof refusals[0]);
}

static void long_rows_are_refused_as_short_ones(void **state)
{
    (void)state;
    expect_refusals(long_refusals, sizeof long_refusals / sizeof long_refusals[0]);
}

static void a_line_too_long_is_refused(void **state)
{
    (void)state;
    size_t n = GAR_TRACE_LINE_MAX + 100;
    char *text = malloc(n + 64);
    strcpy(text, "# gar-trace v1\n#");
    size_t at = strlen(text);
    memset(text + at, 'x', n);
    strcpy(text + at + n, "\n");
    gar_error err;
    gar_trace t;
    assert_int_equal(gar_trace_read_memory(&t, text, strlen(text), "long", &err),
                     -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], "2");
    assert_non_null(strstr(err.argv[3], "line longer than"));
    FILE *f = tmpfile();
    fputs(text, f);
    rewind(f);
    assert_int_equal(gar_trace_read_stream(&t, f, "long", &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], "2");
    fclose(f);
    free(text);
}

/* The stream reader cuts lines across its blocks: the same trace must come
 * back whatever the block boundaries split. */
static void stream_reader_matches_memory_reader(void **state)
{
    (void)state;
    gar_trace t = make_trace(50000, GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM, 99);
    FILE *f = tmpfile();
    assert_int_equal(gar_trace_write_stream(&t, NULL, f, "tmp", NULL), 0);
    rewind(f);
    gar_trace back;
    assert_int_equal(gar_trace_read_stream(&back, f, "tmp", NULL), 0);
    assert_true(gar_trace_equal(&t, &back));
    fclose(f);
    gar_trace_free(&back);

    /* A refusal deep in a file reports the right line. */
    f = tmpfile();
    gar_trace_write_stream(&t, NULL, f, "tmp", NULL);
    fputs("1,0,0,x\n", f);
    rewind(f);
    gar_error err;
    assert_int_equal(gar_trace_read_stream(&back, f, "tmp", &err), -GAR_E_INVALID_TRACE);
    char line[32];
    snprintf(line, sizeof line, "%zu", t.count + 3);
    assert_string_equal(err.argv[1], line);
    assert_int_equal(back.count, 0);
    fclose(f);
    gar_trace_free(&t);
}

/* Reads `path` block by block into a trace; returns the stream's last
 * answer (0 at a good end, or the refusal), with the largest block seen. */
static int read_in_blocks(const char *path, gar_trace *into, gar_error *err, size_t *largest)
{
    gar_trace_stream *s;
    int rc = gar_trace_stream_open(&s, path, err);
    if (rc < 0)
        return rc;
    gar_trace_init(into);
    *largest = 0;
    const gar_trace_row *rows;
    size_t count;
    while ((rc = gar_trace_stream_next(s, &rows, &count)) > 0) {
        assert_int_equal(gar_trace_stream_rows_before(s), into->count);
        for (size_t i = 0; i < count; i++)
            assert_int_equal(gar_trace_append(into, &rows[i], NULL), 0);
        *largest = count > *largest ? count : *largest;
    }
    into->columns = gar_trace_stream_columns(s);
    if (rc < 0) /* a refused stream stays at its end */
        assert_int_equal(gar_trace_stream_next(s, &rows, &count), 0);
    gar_trace_stream_close(s);
    return rc;
}

/* The streamed reader hands out, a block at a time, exactly the rows the
 * whole-file reader reads, plain or gzip, and refuses what it refuses at
 * the same place, after handing out the good rows before it. */
static void blocks_are_the_file_in_order(void **state)
{
    (void)state;
    gar_trace t = make_trace(30000, GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM, 5);
    char plain[] = "/tmp/gar-trace-blocks-XXXXXX";
    int fd = mkstemp(plain);
    assert_true(fd >= 0);
    close(fd);
    char packed[64];
    snprintf(packed, sizeof packed, "%s.gz", plain);
    assert_int_equal(gar_trace_write_file(&t, "blocks", plain, NULL), 0);
    assert_int_equal(gar_trace_write_file(&t, "blocks", packed, NULL), 0);
    const char *paths[] = { plain, packed };
    for (unsigned k = 0; k < 2; k++) {
        gar_trace back;
        gar_error err;
        size_t largest;
        assert_int_equal(read_in_blocks(paths[k], &back, &err, &largest), 0);
        assert_true(gar_trace_equal(&t, &back));
        assert_true(largest < t.count); /* it came in blocks, not whole */
        gar_trace_free(&back);
    }

    /* A bad last row: the rows before it come, then the refusal, at its line. */
    FILE *f = fopen(plain, "a");
    assert_non_null(f);
    fputs("1,0,0,x\n", f);
    fclose(f);
    gar_trace back;
    gar_error err;
    size_t largest;
    assert_int_equal(read_in_blocks(plain, &back, &err, &largest), -GAR_E_INVALID_TRACE);
    char line[32];
    snprintf(line, sizeof line, "%zu", t.count + 4); /* magic, comment, header */
    assert_string_equal(err.argv[1], line);
    assert_true(back.count > 0 && back.count <= t.count);
    gar_trace_free(&back);

    /* An empty file and a missing one are refused as the file reader does. */
    f = fopen(plain, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(read_in_blocks(plain, &back, &err, &largest), -GAR_E_INVALID_TRACE);
    gar_trace_free(&back);
    unlink(plain);
    unlink(packed);
    assert_int_equal(read_in_blocks(plain, &back, &err, &largest), -GAR_E_IO);

    /* The cursor hands out a trace in memory the same way. */
    gar_trace_cursor cursor = { &t, 0 };
    const gar_trace_row *rows;
    size_t count, seen = 0;
    while (gar_trace_cursor_source(&cursor, &rows, &count, NULL) > 0) {
        assert_ptr_equal(rows, t.row + seen);
        seen += count;
    }
    assert_int_equal(seen, t.count);
    gar_trace_free(&t);
}

/* A plain file is read out of a mapping (mapped_text.h), a pipe or a
 * gzip file through the buffer: the same rows must come, and the same
 * refusal at the same line and column, wherever a fault falls against the
 * 64 KiB windows both read: a line too long inside a window and across
 * one, a last line without its newline, short or too long, a text of
 * exactly one window, CRLF lines.  The copying reader is the whole-file
 * reader (gar_trace_read_stream on the open file), which reads the same
 * windows through stdio. */
static void a_mapped_file_reads_as_the_copied_one(void **state)
{
    (void)state;
    size_t size;
    gar_trace t = make_trace(20000, GAR_TRACE_HAS_STREAM, 17);
    char *good = write_to_memory(&t, NULL, &size);
    gar_trace_free(&t);
    const size_t window = 8 * GAR_TRACE_LINE_MAX; /* the readers' block */
    /* Each case: the good text cut at `cut` bytes, then `tail` (a line of
     * `long_line` x's first when that is not 0). */
    const struct {
        size_t cut;
        size_t long_line;
        const char *tail;
    } cases[] = {
        { SIZE_MAX, 0, "" },                          /* all of it */
        { SIZE_MAX, 0, "1,5,5,5,0" },                 /* a last row without its newline */
        { SIZE_MAX, GAR_TRACE_LINE_MAX + 9, "" },     /* a last line too long, no newline */
        { SIZE_MAX, 70000, "" },                      /* longer than a window */
        { 100000, GAR_TRACE_LINE_MAX + 1, "\n" },    /* too long, inside the text */
        { window - 50, GAR_TRACE_LINE_MAX + 1, "\n" }, /* too long, across a window */
        { window - 9000, 20000, "\n" },              /* too long already at the window's end */
        { window - 1, 0, "\n" },                     /* exactly one window */
        { 300000, 0, "1,2,3,x\n" },                   /* a bad row after a window's end */
        { 3000, 0, "1,9,9,9,0\r\n1,9,9,9,0\r\n" }, /* CRLF rows */
    };
    char path[] = "/tmp/gar-trace-mapped-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t cut = cases[k].cut < size ? cases[k].cut : size;
        /* Cut at a line's end, so the tail starts a line. */
        while (cut > 0 && good[cut - 1] != '\n')
            cut--;
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(good, 1, cut, f), cut);
        for (size_t i = 0; i < cases[k].long_line; i++)
            fputc('x', f);
        fputs(cases[k].tail, f);
        fclose(f);

        gar_trace mapped, copied;
        gar_error err_mapped, err_copied;
        size_t largest;
        int rc_mapped = read_in_blocks(path, &mapped, &err_mapped, &largest);
        f = fopen(path, "rb");
        assert_non_null(f);
        int rc_copied = gar_trace_read_stream(&copied, f, path, &err_copied);
        fclose(f);
        assert_int_equal(rc_mapped, rc_copied);
        if (rc_copied == 0) {
            assert_true(gar_trace_equal(&mapped, &copied));
        } else {
            assert_int_equal(err_mapped.code, err_copied.code);
            for (unsigned a = 0; a < err_copied.argc; a++)
                assert_string_equal(err_mapped.argv[a], err_copied.argv[a]);
        }
        gar_trace_free(&mapped);
        gar_trace_free(&copied);
    }
    unlink(path);
    free(good);
}

static void check_refuses_what_the_reader_refuses(void **state)
{
    (void)state;
    gar_trace t;
    gar_trace_init(&t);
    gar_error err;
    assert_int_equal(gar_trace_check(&t, "mem", &err), -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "empty trace"));
    gar_trace_row a = { 1, 10, 20, 30, 0, 0 }, b = { 1, 5, 25, 35, 0, 0 };
    gar_trace_append(&t, &a, NULL);
    gar_trace_append(&t, &b, NULL);
    assert_int_equal(gar_trace_check(&t, "mem", &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[1], "2");
    assert_string_equal(err.argv[2], "2");
    /* A value in a column the trace does not have would be lost on write. */
    t.row[1].submit_ns = 15;
    t.row[1].step_rows = 3;
    assert_int_equal(gar_trace_check(&t, "mem", &err), -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[2], "5");
    t.columns = GAR_TRACE_HAS_STEP_ROWS;
    assert_int_equal(gar_trace_check(&t, "mem", &err), 0);
    /* The writer refuses a broken trace and writes nothing. */
    t.row[1].start_ns = 1;
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_int_equal(gar_trace_write_stream(&t, NULL, f, "mem", &err), -GAR_E_INVALID_TRACE);
    fclose(f);
    assert_int_equal(size, 0);
    free(buf);
    gar_trace_free(&t);
}

static void file_io_is_atomic_and_coded(void **state)
{
    (void)state;
    char dir[] = "/tmp/gar-trace-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/t.csv", dir);
    gar_error err;
    gar_trace t;
    assert_int_equal(gar_trace_read_file(&t, path, &err), -GAR_E_IO);
    assert_string_equal(err.argv[0], path);
    assert_string_equal(err.argv[1], "open");
    assert_non_null(strstr(err.argv[2], "No such file"));

    gar_trace good = make_trace(100, GAR_TRACE_HAS_STREAM, 3);
    assert_int_equal(gar_trace_write_file(&good, "c", path, &err), 0);
    assert_int_equal(gar_trace_read_file(&t, path, &err), 0);
    assert_true(gar_trace_equal(&good, &t));
    gar_trace_free(&t);

    /* A broken trace leaves the old file whole and no temporary behind. */
    gar_trace bad = make_trace(10, 0, 4);
    bad.row[5].start_ns = 0;
    bad.row[5].submit_ns = 1;
    assert_int_equal(gar_trace_write_file(&bad, NULL, path, &err), -GAR_E_INVALID_TRACE);
    assert_int_equal(gar_trace_read_file(&t, path, &err), 0);
    assert_true(gar_trace_equal(&good, &t));
    gar_trace_free(&t);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
    assert_int_equal(system(cmd), 0);

    snprintf(path, sizeof path, "%s/no/such/dir/t.csv", dir);
    assert_int_equal(gar_trace_write_file(&good, NULL, path, &err), -GAR_E_IO);
    assert_string_equal(err.argv[0], path);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    gar_trace_free(&good);
    gar_trace_free(&bad);
}

/* ---- compressed traces ---- */

/* `n` bytes of text as one gzip member, compressed here with zlib directly
 * (not by the writer under test).  Appended to *buf (realloc'd) at *size. */
static void gzip_append(char **buf, size_t *size, const char *text, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t bound = deflateBound(&z, (uLong)n);
    *buf = realloc(*buf, *size + bound);
    assert_non_null(*buf);
    z.next_in = (unsigned char *)text;
    z.avail_in = (uInt)n;
    z.next_out = (unsigned char *)*buf + *size;
    z.avail_out = (uInt)bound;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *size += bound - z.avail_out;
    deflateEnd(&z);
}

/* The text of a gzip member, inflated here with zlib directly. */
static char *gunzip_whole(const char *data, size_t size, size_t *out_size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    size_t cap = 1u << 20, used = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)size;
    int zr;
    do {
        if (used == cap) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        z.next_out = (unsigned char *)out + used;
        z.avail_out = (uInt)(cap - used);
        zr = inflate(&z, Z_NO_FLUSH);
        used = cap - z.avail_out;
    } while (zr == Z_OK);
    assert_int_equal(zr, Z_STREAM_END);
    assert_int_equal(z.avail_in, 0); /* one member, nothing after it */
    inflateEnd(&z);
    *out_size = used;
    return out;
}

/* A trace's canonical text through the streaming writer, gzip-compressed. */
static char *write_gzip_to_memory(const gar_trace *t, const char *comment, size_t *size)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, size);
    assert_non_null(f);
    gar_error err;
    gar_trace_writer w;
    assert_int_equal(gar_trace_writer_stream(&w, f, "mem.gz", true, t->columns, comment, &err),
                     0);
    for (size_t i = 0; i < t->count; i++)
        assert_int_equal(gar_trace_writer_row(&w, &t->row[i]), 0);
    assert_int_equal(gar_trace_writer_end(&w, gar_trace_writer_finish(&w)), 0);
    fclose(f);
    return buf;
}

static void gzip_traces_read_as_their_text(void **state)
{
    (void)state;
    gar_trace t = make_trace(20000, GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM, 11);
    size_t plain_size, packed_size;
    char *plain = write_to_memory(&t, "packed", &plain_size);
    char *packed = write_gzip_to_memory(&t, "packed", &packed_size);
    assert_true(packed_size < plain_size / 2);
    /* The writer's gzip is the plain text, as zlib itself reads it. */
    size_t unpacked_size;
    char *unpacked = gunzip_whole(packed, packed_size, &unpacked_size);
    assert_int_equal(unpacked_size, plain_size);
    assert_memory_equal(unpacked, plain, plain_size);
    free(unpacked);

    gar_error err;
    gar_trace back;
    assert_int_equal(gar_trace_read_memory(&back, packed, packed_size, "m.gz", &err), 0);
    assert_true(gar_trace_equal(&t, &back));
    gar_trace_free(&back);
    FILE *f = fmemopen(packed, packed_size, "rb");
    assert_non_null(f);
    assert_int_equal(gar_trace_read_stream(&back, f, "s.gz", &err), 0);
    fclose(f);
    assert_true(gar_trace_equal(&t, &back));
    gar_trace_free(&back);

    /* Several members, split mid-line, are one text (as `cat a.gz b.gz`). */
    char *two = NULL;
    size_t two_size = 0;
    size_t cut = plain_size / 3 + 5;
    gzip_append(&two, &two_size, plain, cut);
    gzip_append(&two, &two_size, plain + cut, plain_size - cut);
    assert_int_equal(gar_trace_read_memory(&back, two, two_size, "two.gz", &err), 0);
    assert_true(gar_trace_equal(&t, &back));
    gar_trace_free(&back);
    f = fmemopen(two, two_size, "rb");
    assert_int_equal(gar_trace_read_stream(&back, f, "two.gz", &err), 0);
    fclose(f);
    assert_true(gar_trace_equal(&t, &back));
    gar_trace_free(&back);

    free(two);
    free(plain);
    free(packed);
    gar_trace_free(&t);
}

/* Reads `data` both ways and checks both refuse alike: the code, the file,
 * the place (line, column) and a fragment of the fault. */
static void expect_refusal(const char *data, size_t size, const char *line, const char *column,
                           const char *fault)
{
    gar_error err;
    gar_trace t;
    assert_int_equal(gar_trace_read_memory(&t, data, size, "bad.gz", &err), -GAR_E_INVALID_TRACE);
    assert_int_equal(t.count, 0);
    assert_string_equal(err.argv[0], "bad.gz");
    assert_string_equal(err.argv[1], line);
    assert_string_equal(err.argv[2], column);
    if (strstr(err.argv[3], fault) == NULL)
        fail_msg("fault '%s' lacks '%s'", err.argv[3], fault);
    FILE *f = fmemopen((void *)data, size, "rb");
    assert_non_null(f);
    assert_int_equal(gar_trace_read_stream(&t, f, "bad.gz", &err), -GAR_E_INVALID_TRACE);
    fclose(f);
    assert_string_equal(err.argv[1], line);
    assert_string_equal(err.argv[2], column);
}

static void gzip_faults_are_refused_at_their_place(void **state)
{
    (void)state;
    char *gz = NULL;
    size_t size = 0;
    const char text[] = HEADER "1,0,10,20\n2,5,30,40\n";
    gzip_append(&gz, &size, text, sizeof text - 1);
    char where[32];

    /* Cut short: the member never ends. */
    snprintf(where, sizeof where, "byte %zu", size - 4 + 1);
    expect_refusal(gz, size - 4, where, "", "cut short");
    /* Bytes after the member that are no member. */
    char *trailing = malloc(size + 3);
    memcpy(trailing, gz, size);
    memcpy(trailing + size, "xyz", 3);
    snprintf(where, sizeof where, "byte %zu", size + 1);
    expect_refusal(trailing, size + 3, where, "", "not another gzip member");
    free(trailing);
    /* A corrupt member: its CRC no longer matches. */
    char *corrupt = malloc(size);
    memcpy(corrupt, gz, size);
    corrupt[size - 6] ^= 0x55;
    gar_error err;
    gar_trace t;
    assert_int_equal(gar_trace_read_memory(&t, corrupt, size, "bad.gz", &err),
                     -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[1], "byte "));
    assert_non_null(strstr(err.argv[3], "corrupt gzip data"));
    free(corrupt);
    free(gz);

    /* A fault of the text is placed by the uncompressed line and column. */
    gz = NULL;
    size = 0;
    const char bad_row[] = HEADER "1,0,10,20\n# a comment\n2,5,x0,40\n";
    gzip_append(&gz, &size, bad_row, sizeof bad_row - 1);
    expect_refusal(gz, size, "5", "3", "not a decimal number");
    free(gz);
}

static void streaming_writer_is_atomic(void **state)
{
    (void)state;
    char dir[] = "/tmp/gar-trace-gz-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], cmd[512];
    snprintf(path, sizeof path, "%s/t.csv.gz", dir);
    assert_true(gar_trace_path_is_gzip(path));
    assert_false(gar_trace_path_is_gzip("t.csv"));
    gar_trace good = make_trace(5000, GAR_TRACE_HAS_STREAM, 5);
    gar_error err;
    assert_int_equal(gar_trace_write_file(&good, "c", path, &err), 0);
    gar_trace back;
    assert_int_equal(gar_trace_read_file(&back, path, &err), 0);
    assert_true(gar_trace_equal(&good, &back));
    gar_trace_free(&back);

    /* A row that breaks a rule part-way: refused with its row number, the
     * old file left whole and no temporary file behind. */
    gar_trace_writer w;
    assert_int_equal(gar_trace_writer_file(&w, path, GAR_TRACE_HAS_STREAM, NULL, &err), 0);
    for (size_t i = 0; i < 3000; i++)
        assert_int_equal(gar_trace_writer_row(&w, &good.row[i]), 0);
    gar_trace_row late = good.row[0]; /* starts before row 3000 */
    assert_int_equal(gar_trace_writer_end(&w, gar_trace_writer_row(&w, &late)),
                     -GAR_E_INVALID_TRACE);
    assert_string_equal(err.argv[0], path);
    assert_string_equal(err.argv[1], "3001");
    assert_int_equal(gar_trace_read_file(&back, path, &err), 0);
    assert_true(gar_trace_equal(&good, &back));
    gar_trace_free(&back);
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
    assert_int_equal(system(cmd), 0);

    /* A writer given no row refuses to finish: a trace has rows. */
    assert_int_equal(gar_trace_writer_file(&w, path, 0, NULL, &err), 0);
    assert_int_equal(gar_trace_writer_end(&w, gar_trace_writer_finish(&w)),
                     -GAR_E_INVALID_TRACE);
    assert_non_null(strstr(err.argv[3], "no rows"));
    assert_int_equal(system(cmd), 0);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    gar_trace_free(&good);
}

static void arguments_are_checked(void **state)
{
    (void)state;
    gar_error err;
    assert_int_equal(gar_trace_read_memory(NULL, "", 0, "x", &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_trace_read_file(NULL, "x", &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_trace_append(NULL, NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_trace_check(NULL, "x", &err), -GAR_E_INVALID_ARGUMENT);
    gar_trace t;
    gar_trace_init(&t);
    assert_int_equal(gar_trace_write_stream(&t, NULL, NULL, "x", &err), -GAR_E_INVALID_ARGUMENT);
    t.columns = 4;
    assert_int_equal(gar_trace_check(&t, "x", &err), -GAR_E_INVALID_ARGUMENT);
    gar_trace_free(&t);
    gar_trace_free(NULL);
}

/* The text of `t` with each of its rows from `bad` on replaced by `row`
 * (NULL: kept) and every line ended by `eol`, in a malloc'd string. */
static char *text_with_row(const gar_trace *t, size_t bad, const char *row, const char *eol)
{
    size_t room = 256 + t->count * 160 + strlen(row);
    char *text = malloc(room), *p = text;
    p += sprintf(p, "# gar-trace v1%s# rows read eight bytes at a time%spoint,submit_ns,start_ns,"
                    "done_ns%s%s%s", eol, eol,
                 (t->columns & GAR_TRACE_HAS_STEP_ROWS) ? ",rows" : "",
                 (t->columns & GAR_TRACE_HAS_STREAM) ? ",stream" : "", eol);
    for (size_t i = 0; i < t->count; i++) {
        const gar_trace_row *r = &t->row[i];
        if (i == bad) {
            p += sprintf(p, "%s%s", row, eol);
            continue;
        }
        p += sprintf(p, "%llu,%llu,%llu,%llu", (unsigned long long)r->point,
                     (unsigned long long)r->submit_ns, (unsigned long long)r->start_ns,
                     (unsigned long long)r->done_ns);
        if (t->columns & GAR_TRACE_HAS_STEP_ROWS)
            p += sprintf(p, ",%u", r->step_rows);
        if (t->columns & GAR_TRACE_HAS_STREAM)
            p += sprintf(p, ",%u", r->stream);
        p += sprintf(p, "%s", eol);
    }
    return text;
}

/* Reads `text` from memory and through the block reader: both give `rc`
 * with the same error, or the same trace.  Returns the memory reader's. */
static int read_both(const char *text, gar_trace *t, gar_error *err)
{
    int rc = gar_trace_read_memory(t, text, strlen(text), "fast.csv", err);
    FILE *f = tmpfile();
    assert_non_null(f);
    fputs(text, f);
    rewind(f);
    gar_trace s;
    gar_error serr;
    assert_int_equal(gar_trace_read_stream(&s, f, "fast.csv", &serr), rc);
    fclose(f);
    if (rc == 0) {
        assert_true(gar_trace_equal(&s, t));
    } else {
        for (unsigned k = 0; k < 4; k++)
            assert_string_equal(serr.argv[k], err->argv[k]);
    }
    gar_trace_free(&s);
    return rc;
}

/* Plain rows (digits and commas, '\n' after the last field) are read
 * straight out of the text, every other line by the line reader; a CRLF
 * file is read by the line reader alone.  So the same trace in both line
 * endings, with one row somewhere in its middle made odd in one of many
 * ways, gives the same trace or the same refusal (line, column, fault) —
 * whichever reader took the rows around it. */
static void plain_rows_read_as_the_line_reader_reads_them(void **state)
{
    (void)state;
    /* What the odd row is, `%s` standing for a good row's field. */
    static const char *const odd[] = {
        "", "#", "# a comment", " ", ",", "1,2,3", "1,2,3,4,5,6,7",
        "-1,0,0,0", "1x,0,0,0", "0,,0,0", "01,0,0,0",
        "00000000000000000001,0,0,0", "000000000000000000001,0,0,0",
        "18446744073709551615,0,0,0", "18446744073709551616,0,0,0",
        "1,9223372036854775807,9223372036854775807,9223372036854775807",
        "1,9223372036854775808,9223372036854775808,9223372036854775808",
        "1,9999999999999999999,9999999999999999999,9999999999999999999",
        "1,12345678,1234567,12345678", "1,0,12345678,1",
        "1,0,0,0,4294967295,4294967295", "1,0,0,0,4294967296,0", "1,0,0,0,0,4294967296",
        "1,0,0,0,0000000001,0000000001", "1,0,0,0,1234567890,1",
        "7,99999999999999,99999999999999,99999999999999,1,0",
        "7,99999999999999,99999999999999,99999999999999,1,1",
        "7,99999999999999,99999999999999,99999999999999,1,2",
        "7,1,99999999999999,99999999999999,1,3",
        "1,2,3,4\t", "1 ,2,3,4", "1,2,3,4,",
    };
    static const unsigned column_sets[] = { 0, GAR_TRACE_HAS_STEP_ROWS, GAR_TRACE_HAS_STREAM,
                                            GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM };
    gar_prng g = gar_prng_seeded(29);
    size_t refused = 0, read = 0;
    for (size_t c = 0; c < sizeof column_sets / sizeof column_sets[0]; c++) {
        gar_trace good = make_trace(300, column_sets[c], 700 + c);
        enum { DERIVED = 6 };
        size_t cases = sizeof odd / sizeof odd[0];
        for (size_t k = 0; k < 2 * cases + DERIVED; k++) {
            /* Each odd row as the first row (whose times need not follow
             * any) and in the middle; then rows that break one ordering
             * rule alone, made from the row before them. */
            size_t at = k < cases ? 0 : 3 + (size_t)gar_prng_below(&g, 290);
            char row[256];
            if (k < 2 * cases) {
                snprintf(row, sizeof row, "%s", odd[k % cases]);
            } else {
                const gar_trace_row *prev = &good.row[at - 1];
                uint64_t submit = prev->submit_ns, start = prev->start_ns, done = prev->done_ns;
                switch (k - 2 * cases) {
                case 0: /* start before submit */
                    submit = start + 1;
                    done = (done > submit ? done : submit) + 1;
                    break;
                case 1: /* done before submit */
                    submit = done + 10;
                    start = start > submit ? start : submit;
                    break;
                case 2: /* start before the previous start */
                    start = start > submit ? start - 1 : start;
                    break;
                case 3: /* submit before the stream's previous one */
                    submit = submit > 0 ? submit - 1 : submit;
                    break;
                case 4: /* done before the stream's previous one */
                    done = done > submit ? done - 1 : done;
                    break;
                default: /* every time past the limit */
                    submit = start = done = UINT64_C(1) << 63;
                    break;
                }
                int n = snprintf(row, sizeof row, "%llu,%llu,%llu,%llu",
                                 (unsigned long long)prev->point, (unsigned long long)submit,
                                 (unsigned long long)start, (unsigned long long)done);
                if (good.columns & GAR_TRACE_HAS_STEP_ROWS)
                    n += snprintf(row + n, sizeof row - (size_t)n, ",%u", prev->step_rows);
                if (good.columns & GAR_TRACE_HAS_STREAM)
                    snprintf(row + n, sizeof row - (size_t)n, ",%u", prev->stream);
            }
            char *lf = text_with_row(&good, at, row, "\n");
            char *crlf = text_with_row(&good, at, row, "\r\n");
            gar_trace a, b;
            gar_error ea, eb;
            int ra = read_both(lf, &a, &ea), rb = read_both(crlf, &b, &eb);
            assert_int_equal(ra, rb);
            if (ra == 0) {
                assert_true(gar_trace_equal(&a, &b));
                read++;
            } else {
                for (unsigned i = 0; i < 4; i++)
                    assert_string_equal(ea.argv[i], eb.argv[i]);
                refused++;
            }
            gar_trace_free(&a);
            gar_trace_free(&b);
            free(lf);
            free(crlf);
        }
        /* The whole trace, good, reads back as it was. */
        char *lf = text_with_row(&good, SIZE_MAX, "", "\n");
        gar_trace a;
        gar_error ea;
        assert_int_equal(read_both(lf, &a, &ea), 0);
        assert_true(gar_trace_equal(&a, &good));
        gar_trace_free(&a);
        free(lf);
        gar_trace_free(&good);
    }
    /* Both outcomes were met, many times. */
    assert_true(refused > 150);
    assert_true(read > 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_every_column_set),
        cmocka_unit_test(writer_writes_the_documented_text),
        cmocka_unit_test(reader_takes_comments_crlf_and_defaults),
        cmocka_unit_test(numbers_reach_their_type_limits),
        cmocka_unit_test(streams_are_ordered_independently),
        cmocka_unit_test(every_refusal_names_line_column_and_fault),
        cmocka_unit_test(long_rows_read_their_numbers),
        cmocka_unit_test(plain_rows_read_as_the_line_reader_reads_them),
        cmocka_unit_test(long_rows_are_refused_as_short_ones),
        cmocka_unit_test(a_line_too_long_is_refused),
        cmocka_unit_test(stream_reader_matches_memory_reader),
        cmocka_unit_test(blocks_are_the_file_in_order),
        cmocka_unit_test(a_mapped_file_reads_as_the_copied_one),
        cmocka_unit_test(check_refuses_what_the_reader_refuses),
        cmocka_unit_test(file_io_is_atomic_and_coded),
        cmocka_unit_test(gzip_traces_read_as_their_text),
        cmocka_unit_test(gzip_faults_are_refused_at_their_place),
        cmocka_unit_test(streaming_writer_is_atomic),
        cmocka_unit_test(arguments_are_checked),
    };
    return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
