/* sim/trace/trace_read.c — a whole trace read from memory, a stream or a
 * file, plain or gzip (trace.h), through the reader of trace_reader.h. */
#include "sim/trace/trace_reader.h"

#include <errno.h>
#include <string.h>

#include "sim/trace/alloc.h"
#include "sim/trace/unpack.h"

int gar_trace_read_memory(gar_trace *out, const void *data, size_t size, const char *name,
                          gar_error *err)
{
    if (out == NULL || (data == NULL && size > 0))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_read_memory",
                             out == NULL ? "out" : "data", "is NULL");
    gar_trace_reader rd;
    gar_trace_reader_init(&rd, name, err);
    int rc = 0;
    if (gar_trace_gzip_magic(data, size)) {
        gar_trace_line_buffer lb = { .rd = &rd, .buf = gar_malloc(GAR_TRACE_READ_BLOCK) };
        if (lb.buf == NULL)
            return gar_trace_reader_end(&rd,
                                        gar_error_set(err, GAR_E_CAPACITY, 2,
                                                      "trace read buffer", "out of memory"),
                                        out);
        gar_unpack u;
        gar_unpack_init(&u, gar_trace_feed_lines, &lb, rd.name, err);
        rc = gar_unpack_end(&u, gar_unpack_bytes(&u, data, size));
        if (rc == 0)
            rc = gar_trace_reader_finish(&rd, lb.held);
        gar_free(lb.buf);
        return gar_trace_reader_end(&rd, rc, out);
    }
    const char *end = (const char *)data + size;
    const char *p = gar_trace_read_lines(&rd, data, end, SIZE_MAX, &rc);
    if (rc == 0)
        rc = (size_t)(end - p) > GAR_TRACE_LINE_MAX
                 ? gar_trace_refuse_long_line(&rd)
                 : gar_trace_reader_finish(&rd, (size_t)(end - p));
    return gar_trace_reader_end(&rd, rc, out);
}

int gar_trace_read_failed(gar_error *err, const char *name)
{
    return gar_error_set(err, GAR_E_IO, 3, name, "read", strerror(errno != 0 ? errno : EIO));
}

/* The rest of a gzip stream whose first `got` bytes are in `first`: inflated
 * into a line buffer of its own. */
static int read_gzip_stream(gar_trace_reader *rd, FILE *in, unsigned char *first, size_t got)
{
    gar_trace_line_buffer lb = { .rd = rd, .buf = gar_malloc(GAR_TRACE_READ_BLOCK) };
    if (lb.buf == NULL)
        return gar_error_set(rd->err, GAR_E_CAPACITY, 2, "trace read buffer", "out of memory");
    gar_unpack u;
    gar_unpack_init(&u, gar_trace_feed_lines, &lb, rd->name, rd->err);
    int rc = 0;
    while (rc == 0 && got > 0) {
        rc = gar_unpack_bytes(&u, first, got);
        got = rc == 0 ? fread(first, 1, GAR_TRACE_READ_BLOCK, in) : 0;
    }
    if (rc == 0 && ferror(in))
        rc = gar_trace_read_failed(rd->err, rd->name);
    rc = gar_unpack_end(&u, rc);
    if (rc == 0)
        rc = gar_trace_reader_finish(rd, lb.held);
    gar_free(lb.buf);
    return rc;
}

int gar_trace_read_stream(gar_trace *out, FILE *in, const char *name, gar_error *err)
{
    if (out == NULL || in == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_read_stream",
                             out == NULL ? "out" : "in", "is NULL");
    gar_trace_reader rd;
    gar_trace_reader_init(&rd, name, err);
    gar_trace_line_buffer lb = { .rd = &rd, .buf = gar_malloc(GAR_TRACE_READ_BLOCK) };
    if (lb.buf == NULL)
        return gar_trace_reader_end(&rd,
                                    gar_error_set(err, GAR_E_CAPACITY, 2, "trace read buffer",
                                                  "out of memory"),
                                    out);
    errno = 0;
    size_t got = fread(lb.buf, 1, GAR_TRACE_READ_BLOCK, in);
    int rc;
    if (gar_trace_gzip_magic(lb.buf, got)) {
        rc = read_gzip_stream(&rd, in, (unsigned char *)lb.buf, got);
    } else {
        /* Plain text is read straight into the line buffer: no copy. */
        for (;;) {
            if (got == 0) {
                rc = ferror(in) ? gar_trace_read_failed(err, rd.name)
                                : gar_trace_reader_finish(&rd, lb.held);
                break;
            }
            rc = gar_trace_split_lines(&lb, got);
            if (rc < 0)
                break;
            got = fread(lb.buf + lb.held, 1, GAR_TRACE_READ_BLOCK - lb.held, in);
        }
    }
    gar_free(lb.buf);
    return gar_trace_reader_end(&rd, rc, out);
}

int gar_trace_read_file(gar_trace *out, const char *path, gar_error *err)
{
    if (out == NULL || path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_read_file",
                             out == NULL ? "out" : "path", "is NULL");
    gar_trace_init(out);
    if (strcmp(path, "-") == 0)
        return gar_trace_read_stream(out, stdin, "standard input", err);
    FILE *in = fopen(path, "rb");
    if (in == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    int rc = gar_trace_read_stream(out, in, path, err);
    fclose(in);
    return rc;
}
