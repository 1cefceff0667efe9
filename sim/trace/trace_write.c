/* sim/trace/trace_write.c — the trace writer (trace.h): rows checked
 * against the ordering rules, formatted by hand into blocks, plain or
 * gzip, into a stream or atomically into a file. */
#define _POSIX_C_SOURCE 200809L

#include "sim/trace/trace_reader.h"

#include <errno.h>
#include <string.h>

#include "sim/trace/alloc.h"
#include "sim/trace/atomic_file.h"
#include "sim/trace/leftover.h"
#include "sim/trace/unpack.h"

/* Appends `value` in decimal at `p`; returns the end. */
static char *put_u64(char *p, uint64_t value)
{
    char digits[20];
    int n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

enum { WRITE_BLOCK = 1 << 16, ROW_TEXT_MAX = 6 * 21 };

static int write_failed(gar_error *err, const char *name)
{
    return gar_error_set(err, GAR_E_IO, 3, name, "write", strerror(errno != 0 ? errno : EIO));
}

/* Sends `n` bytes of text to the output: straight, or through deflate with
 * `flush` (Z_NO_FLUSH, or Z_FINISH to end the gzip member). */
static int put_bytes(gar_trace_writer *w, const char *bytes, size_t n, int flush)
{
    if (!w->gzip) {
        errno = 0;
        return n == 0 || fwrite(bytes, 1, n, w->out) == n ? 0 : write_failed(w->err, w->where);
    }
    w->z.next_in = (unsigned char *)bytes; /* zlib's API is not const */
    w->z.avail_in = (uInt)n;
    int zr;
    do {
        w->z.next_out = w->packed;
        w->z.avail_out = WRITE_BLOCK;
        zr = deflate(&w->z, flush);
        size_t made = WRITE_BLOCK - w->z.avail_out;
        errno = 0;
        if (made > 0 && fwrite(w->packed, 1, made, w->out) != made)
            return write_failed(w->err, w->where);
        if (zr == Z_STREAM_ERROR)
            return gar_error_set(w->err, GAR_E_IO, 3, w->where, "compress",
                                 w->z.msg != NULL ? w->z.msg : "deflate failed");
    } while (w->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
    return 0;
}

static int put_text(gar_trace_writer *w, const char *text)
{
    return put_bytes(w, text, strlen(text), Z_NO_FLUSH);
}

/* The magic, comment and header lines, through the output like the rows. */
static int put_head(gar_trace_writer *w, const char *comment)
{
    int rc = put_text(w, GAR_TRACE_MAGIC "\n");
    for (const char *p = comment; rc == 0 && p != NULL && *p != '\0';) {
        const char *nl = strchr(p, '\n');
        size_t n = nl != NULL ? (size_t)(nl - p) : strlen(p);
        rc = put_text(w, n > 0 ? "# " : "#");
        if (rc == 0)
            rc = put_bytes(w, p, n, Z_NO_FLUSH);
        if (rc == 0)
            rc = put_text(w, "\n");
        p += n;
        if (*p == '\n')
            p++;
    }
    if (rc == 0)
        rc = put_text(w, "point,submit_ns,start_ns,done_ns");
    if (rc == 0 && (w->columns & GAR_TRACE_HAS_STEP_ROWS))
        rc = put_text(w, ",rows");
    if (rc == 0 && (w->columns & GAR_TRACE_HAS_STREAM))
        rc = put_text(w, ",stream");
    if (rc == 0)
        rc = put_text(w, "\n");
    return rc;
}

static void writer_release(gar_trace_writer *w)
{
    if (w->rules != NULL)
        gar_trace_order_free(w->rules);
    gar_free(w->rules);
    gar_free(w->block);
    gar_free(w->packed);
    if (w->z_ready)
        deflateEnd(&w->z);
    w->rules = NULL;
    w->block = NULL;
    w->packed = NULL;
    w->z_ready = false;
}

static int writer_start(gar_trace_writer *w, const char *comment, gar_error *err)
{
    if (w->columns & ~(unsigned)(GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_writer", "columns",
                             "has unknown bits");
    w->rules = gar_malloc(sizeof *w->rules);
    if (w->rules != NULL)
        gar_trace_order_init(w->rules);
    w->block = gar_malloc(WRITE_BLOCK);
    w->packed = w->gzip ? gar_malloc(WRITE_BLOCK) : NULL;
    if (w->rules == NULL || w->block == NULL || (w->gzip && w->packed == NULL))
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace write buffer", "out of memory");
    if (w->gzip) {
        w->z.zalloc = gar_unpack_zalloc;
        w->z.zfree = gar_unpack_zfree;
        /* 16 + window bits: a gzip member (header and CRC), as gzip writes.
         * The fastest level: on decimal rows it writes about three times
         * faster than the default level for a file about a quarter larger
         * (bench_trace), and an import of 10^8 waits is bound by writing. */
        if (deflateInit2(&w->z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK)
            return gar_error_set(err, GAR_E_CAPACITY, 2, "gzip compression", "out of memory");
        w->z_ready = true;
    }
    return put_head(w, comment);
}

bool gar_trace_path_is_gzip(const char *path)
{
    size_t n = path != NULL ? strlen(path) : 0;
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

int gar_trace_writer_stream(gar_trace_writer *w, FILE *out, const char *name, bool gzip,
                            unsigned columns, const char *comment, gar_error *err)
{
    memset(w, 0, sizeof *w);
    w->file.fd = -1;
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_writer_stream", "out",
                             "is NULL");
    w->out = out;
    w->name = name != NULL ? name : "trace";
    w->where = w->name;
    w->err = err;
    w->gzip = gzip;
    w->columns = columns;
    int rc = writer_start(w, comment, err);
    if (rc < 0)
        writer_release(w);
    return rc;
}

int gar_trace_writer_file(gar_trace_writer *w, const char *path, unsigned columns,
                          const char *comment, gar_error *err)
{
    memset(w, 0, sizeof *w);
    w->file.fd = -1;
    if (path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_writer_file", "path",
                             "is NULL");
    w->name = path;
    w->err = err;
    w->gzip = gar_trace_path_is_gzip(path);
    w->columns = columns;
    w->atomic = true;
    /* What killed writers of this path left: a trace's text or a gzip
     * member, named as its temporary file is, no longer locked. */
    static const char *const trace_starts[] = { GAR_TRACE_MAGIC "\n", "\x1f\x8b", NULL };
    gar_leftover_clean_beside(path, ".tmp.", trace_starts);
    int rc = gar_atomic_file_begin(&w->file, path, NULL, err);
    if (rc < 0)
        return rc;
    w->where = w->file.temp;
    w->out = fdopen(w->file.fd, "wb");
    if (w->out == NULL)
        rc = gar_error_set(err, GAR_E_IO, 3, w->file.temp, "open", strerror(errno));
    else
        rc = writer_start(w, comment, err);
    /* The head goes out now, so a writer killed later leaves a file that
     * says what it is (leftover.h). */
    if (rc == 0 && fflush(w->out) != 0)
        rc = write_failed(err, w->where);
    if (rc < 0)
        gar_trace_writer_end(w, rc);
    return rc;
}

int gar_trace_writer_row(gar_trace_writer *w, const gar_trace_row *row)
{
    uint64_t number = w->rows + 1;
    int rc;
    if (!(w->columns & GAR_TRACE_HAS_STEP_ROWS) && row->step_rows != 0)
        rc = gar_trace_refuse(w->err, w->name, number, 5,
                              "rows is set but the trace has no rows column");
    else if (!(w->columns & GAR_TRACE_HAS_STREAM) && row->stream != 0)
        rc = gar_trace_refuse(w->err, w->name, number,
                              gar_trace_column_position(w->columns, COL_STREAM),
                              "stream is set but the trace has no stream column");
    else
        rc = gar_trace_order_admit(w->rules, row, w->columns, w->name, number, w->err);
    if (rc < 0)
        return rc;
    /* Rows are formatted by hand into a block: a million rows is a few dozen
     * writes instead of six million conversions through printf. */
    char *p = w->block + w->used;
    p = put_u64(p, row->point);
    *p++ = ',';
    p = put_u64(p, row->submit_ns);
    *p++ = ',';
    p = put_u64(p, row->start_ns);
    *p++ = ',';
    p = put_u64(p, row->done_ns);
    if (w->columns & GAR_TRACE_HAS_STEP_ROWS) {
        *p++ = ',';
        p = put_u64(p, row->step_rows);
    }
    if (w->columns & GAR_TRACE_HAS_STREAM) {
        *p++ = ',';
        p = put_u64(p, row->stream);
    }
    *p++ = '\n';
    w->used = (size_t)(p - w->block);
    w->rows = number;
    if (w->used > WRITE_BLOCK - ROW_TEXT_MAX) {
        rc = put_bytes(w, w->block, w->used, Z_NO_FLUSH);
        w->used = 0;
    }
    return rc;
}

int gar_trace_writer_finish(gar_trace_writer *w)
{
    if (w->rows == 0)
        return gar_trace_refuse(w->err, w->name, 1, 1, "no rows (an empty trace)");
    int rc = put_bytes(w, w->block, w->used, w->gzip ? Z_FINISH : Z_NO_FLUSH);
    w->used = 0;
    errno = 0;
    if (rc == 0 && fflush(w->out) != 0)
        rc = write_failed(w->err, w->where);
    if (rc == 0 && w->atomic) {
        rc = gar_atomic_file_sync(&w->file, w->err);
        errno = 0;
        int closed = fclose(w->out);
        w->out = NULL;
        w->file.fd = -1; /* fclose closed it */
        if (closed != 0 && rc == 0)
            rc = gar_error_set(w->err, GAR_E_IO, 3, w->file.temp, "close", strerror(errno));
        if (rc == 0)
            rc = gar_atomic_file_commit(&w->file, NULL, w->err);
    }
    return rc;
}

int gar_trace_writer_end(gar_trace_writer *w, int rc)
{
    writer_release(w);
    if (w->atomic) {
        if (w->out != NULL) {
            fclose(w->out);
            w->file.fd = -1;
        }
        w->out = NULL;
        w->atomic = false;
        return gar_atomic_file_end(&w->file, rc);
    }
    return rc;
}

/* Every row of `trace` through a writer begun on `w`. */
static int write_rows(gar_trace_writer *w, const gar_trace *trace)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < trace->count; i++)
        rc = gar_trace_writer_row(w, &trace->row[i]);
    if (rc == 0)
        rc = gar_trace_writer_finish(w);
    return gar_trace_writer_end(w, rc);
}

int gar_trace_write_stream(const gar_trace *trace, const char *comment, FILE *out,
                           const char *name, gar_error *err)
{
    if (trace == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_write_stream",
                             trace == NULL ? "trace" : "out", "is NULL");
    if (name == NULL)
        name = "trace";
    /* Checked before anything is written. */
    int rc = gar_trace_check(trace, name, err);
    if (rc < 0)
        return rc;
    gar_trace_writer w;
    rc = gar_trace_writer_stream(&w, out, name, false, trace->columns, comment, err);
    return rc < 0 ? rc : write_rows(&w, trace);
}

int gar_trace_write_file(const gar_trace *trace, const char *comment, const char *path,
                         gar_error *err)
{
    if (trace == NULL || path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_write_file",
                             trace == NULL ? "trace" : "path", "is NULL");
    /* Checked before anything touches the file system. */
    int rc = gar_trace_check(trace, path, err);
    if (rc < 0)
        return rc;
    gar_trace_writer w;
    rc = gar_trace_writer_file(&w, path, trace->columns, comment, err);
    return rc < 0 ? rc : write_rows(&w, trace);
}
