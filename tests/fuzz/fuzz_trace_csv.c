/* tests/fuzz/fuzz_trace_csv.c — any bytes as a gar-trace v1 file.
 *
 * Properties: a refusal is InvalidTrace naming the file, a line and a column
 * (positive decimals) — or, for a fault of gzip data, "byte N" and no column —
 * and a one-line fault, and leaves the trace empty; the stream reader (blocks
 * from a FILE) answers exactly as the memory reader; an accepted trace passes
 * the checker, and writing it and reading it back gives the same trace, whose
 * text is then a fixed point of write(read(...)); and an accepted gzip input,
 * written gzip-compressed by the streaming writer, reads back the same. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim/trace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool positive_decimal(const char *s)
{
    if (*s < '1' || *s > '9')
        return false;
    for (; *s != '\0'; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* "byte N", N a positive decimal: where a gzip fault is placed. */
static bool byte_place(const char *s)
{
    return strncmp(s, "byte ", 5) == 0 && positive_decimal(s + 5);
}

/* The trace as one gzip member, by the streaming writer. */
static char *write_gzip(const gar_trace *t, size_t *size)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, size);
    FUZZ_CHECK(f != NULL);
    gar_trace_writer w;
    FUZZ_CHECK(gar_trace_writer_stream(&w, f, "fuzz.gz", true, t->columns, "fuzz", NULL) == 0);
    for (size_t i = 0; i < t->count; i++)
        FUZZ_CHECK(gar_trace_writer_row(&w, &t->row[i]) == 0);
    FUZZ_CHECK(gar_trace_writer_end(&w, gar_trace_writer_finish(&w)) == 0);
    FUZZ_CHECK(fclose(f) == 0);
    return buf;
}

static char *write_text(const gar_trace *t, size_t *size)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, size);
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(gar_trace_write_stream(t, "fuzz", f, "fuzz", NULL) == 0);
    FUZZ_CHECK(fclose(f) == 0);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gar_trace t;
    gar_error err;
    int rc = gar_trace_read_memory(&t, data, size, "fuzz.csv", &err);

    if (size > 0) {
        /* The same bytes through the block reader. */
        FILE *f = fmemopen((void *)data, size, "rb");
        FUZZ_CHECK(f != NULL);
        gar_trace s;
        gar_error serr;
        int src = gar_trace_read_stream(&s, f, "fuzz.csv", &serr);
        fclose(f);
        FUZZ_CHECK(src == rc);
        if (rc == 0)
            FUZZ_CHECK(gar_trace_equal(&s, &t));
        else {
            FUZZ_CHECK(serr.code == err.code && serr.argc == err.argc);
            for (unsigned i = 0; i < err.argc; i++)
                FUZZ_CHECK(strcmp(serr.argv[i], err.argv[i]) == 0);
        }
        gar_trace_free(&s);
    }

    if (rc != 0) {
        if (rc == -GAR_E_CAPACITY)
            return 0;
        fuzz_check_refusal(rc, &err, GAR_E_INVALID_TRACE, 4);
        FUZZ_CHECK(strcmp(err.argv[0], "fuzz.csv") == 0);
        if (byte_place(err.argv[1]))
            FUZZ_CHECK(err.argv[2][0] == '\0');
        else
            FUZZ_CHECK(positive_decimal(err.argv[1]) && positive_decimal(err.argv[2]));
        FUZZ_CHECK(t.count == 0 && t.row == NULL);
        return 0;
    }

    FUZZ_CHECK(t.count > 0);
    FUZZ_CHECK(gar_trace_check(&t, "fuzz", NULL) == 0);
    size_t n1, n2;
    char *text1 = write_text(&t, &n1);
    gar_trace back;
    FUZZ_CHECK(gar_trace_read_memory(&back, text1, n1, "again", NULL) == 0);
    FUZZ_CHECK(gar_trace_equal(&t, &back));
    char *text2 = write_text(&back, &n2);
    FUZZ_CHECK(n1 == n2 && memcmp(text1, text2, n1) == 0);
    gar_trace_free(&back);
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        /* Only for gzip inputs: deflate's state is a quarter MiB a call. */
        char *packed = write_gzip(&t, &n2);
        FUZZ_CHECK(gar_trace_read_memory(&back, packed, n2, "again.gz", NULL) == 0);
        FUZZ_CHECK(gar_trace_equal(&t, &back));
        free(packed);
        gar_trace_free(&back);
    }
    free(text1);
    free(text2);
    gar_trace_free(&back);
    gar_trace_free(&t);
    return 0;
}
