/* sim/trace/trace_stream.c — a trace read a block of rows at a time
 * (trace.h, gar_trace_stream): a plain regular file out of a mapping, a
 * gzip file or a pipe through a line buffer. */
#define _POSIX_C_SOURCE 200809L

#include "sim/trace/trace_reader.h"

#include <errno.h>
#include <string.h>

#include "sim/trace/alloc.h"
#include "sim/trace/mapped_text.h"
#include "sim/trace/unpack.h"

/* Rows a block is handed out at; a gzip block may run over by what 4 KiB
 * of compressed text inflate to. */
#define STREAM_BLOCK_ROWS 4096
#define STREAM_GZIP_STEP 4096

struct gar_trace_stream {
    gar_trace_reader rd;
    gar_trace_line_buffer lb;
    FILE *in;
    bool own_file;
    bool decided, gzip, ended;
    bool unpack_open; /* gzip: gar_unpack_end still to call */
    gar_unpack u;
    unsigned char *packed; /* gzip: compressed bytes read, not yet inflated */
    size_t packed_len, packed_at;
    char *name;
    /* A plain regular file is read out of a mapping (mapped_text.h), from
     * `map_at`, the first byte not yet read; the rest through `lb`. */
    bool mapped, map_drained; /* drained: the last window has been read */
    gar_mapped_text map;
    size_t map_at;
};

int gar_trace_stream_open(gar_trace_stream **out, const char *path, gar_error *err)
{
    if (out == NULL || path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_stream_open",
                             out == NULL ? "out" : "path", "is NULL");
    *out = NULL;
    bool from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "standard input" : path;
    gar_trace_stream *s = gar_calloc(1, sizeof *s);
    if (s != NULL) {
        s->name = gar_malloc(strlen(name) + 1);
        s->lb.buf = gar_malloc(GAR_TRACE_READ_BLOCK);
    }
    if (s == NULL || s->name == NULL || s->lb.buf == NULL) {
        if (s != NULL) {
            gar_free(s->name);
            gar_free(s->lb.buf);
        }
        gar_free(s);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace read buffer", "out of memory");
    }
    memcpy(s->name, name, strlen(name) + 1);
    if (from_stdin) {
        s->in = stdin;
    } else if ((s->in = fopen(path, "rb")) == NULL) {
        int rc = gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
        gar_free(s->name);
        gar_free(s->lb.buf);
        gar_free(s);
        return rc;
    } else {
        s->own_file = true;
        /* Mapped unless gzip (inflated through the buffer, as from a pipe). */
        s->mapped = gar_mapped_text_open(&s->map, fileno(s->in));
        size_t head = s->map.size < 2 ? s->map.size : 2;
        if (s->mapped && gar_trace_gzip_magic(gar_mapped_text_bytes(&s->map, 0, head), head)) {
            gar_mapped_text_close(&s->map);
            s->mapped = false;
        }
    }
    gar_trace_reader_init(&s->rd, s->name, err);
    s->lb.rd = &s->rd;
    *out = s;
    return 0;
}

unsigned gar_trace_stream_columns(const gar_trace_stream *s)
{
    return s->rd.trace.columns;
}

uint64_t gar_trace_stream_rows_before(const gar_trace_stream *s)
{
    return s->rd.rows_handed;
}

/* The end of the bytes: the last checks of the text. */
static int stream_at_end(gar_trace_stream *s)
{
    s->ended = true;
    if (ferror(s->in))
        return gar_trace_read_failed(s->rd.err, s->rd.name);
    int rc = 0;
    if (s->unpack_open) {
        s->unpack_open = false;
        rc = gar_unpack_end(&s->u, 0);
    }
    return rc < 0 ? rc : gar_trace_reader_finish(&s->rd, s->lb.held);
}

/* stream_fill for a mapped file: the windows the buffer would hold — each
 * GAR_TRACE_READ_BLOCK bytes from the first line not yet read, or to the end — read
 * where they lie, so that every line is read by the same path (plain row
 * or line reader), every refusal comes at the same place, and the end of
 * the text is seen at the same call. */
static int map_fill(gar_trace_stream *s)
{
    gar_trace_reader *rd = &s->rd;
    while (rd->trace.count < STREAM_BLOCK_ROWS) {
        size_t left = s->map.size - s->map_at;
        if (s->map_drained) { /* as a read that finds nothing more */
            s->ended = true;
            return gar_trace_reader_finish(rd, left);
        }
        size_t window = left < GAR_TRACE_READ_BLOCK ? left : GAR_TRACE_READ_BLOCK;
        const char *text = gar_mapped_text_bytes(&s->map, s->map_at, window);
        size_t unfinished;
        int rc = text != NULL ? gar_trace_read_window(rd, text, window, &unfinished) : 0;
        /* Cut short as it was read, its bytes past the end read as zeros:
         * whatever the window gave, the file is refused. */
        if (gar_mapped_text_cut(&s->map))
            return gar_error_set(rd->err, GAR_E_IO, 3, rd->name, "read",
                                 "the file was cut short while it was read (another"
                                 " process truncated it)");
        if (text == NULL)
            return gar_trace_read_failed(rd->err, rd->name);
        if (rc < 0)
            return rc;
        s->map_at += window - unfinished;
        s->map_drained = window == left;
    }
    return 0;
}

/* Reads on until the block holds STREAM_BLOCK_ROWS rows or the text ends. */
static int stream_fill(gar_trace_stream *s)
{
    gar_trace_reader *rd = &s->rd;
    if (s->mapped)
        return map_fill(s);
    if (!s->decided) {
        errno = 0;
        size_t got = fread(s->lb.buf, 1, GAR_TRACE_READ_BLOCK, s->in);
        s->decided = true;
        if (gar_trace_gzip_magic(s->lb.buf, got)) {
            s->gzip = true;
            s->packed = gar_malloc(GAR_TRACE_READ_BLOCK);
            if (s->packed == NULL)
                return gar_error_set(rd->err, GAR_E_CAPACITY, 2, "trace read buffer",
                                     "out of memory");
            memcpy(s->packed, s->lb.buf, got);
            s->packed_len = got;
            gar_unpack_init(&s->u, gar_trace_feed_lines, &s->lb, rd->name, rd->err);
            s->unpack_open = true;
        } else if (got == 0) {
            return stream_at_end(s);
        } else {
            int rc = gar_trace_split_lines(&s->lb, got);
            if (rc < 0)
                return rc;
        }
    }
    while (rd->trace.count < STREAM_BLOCK_ROWS) {
        if (s->gzip) {
            if (s->packed_at == s->packed_len) {
                s->packed_len = fread(s->packed, 1, GAR_TRACE_READ_BLOCK, s->in);
                s->packed_at = 0;
                if (s->packed_len == 0)
                    return stream_at_end(s);
            }
            /* A few KiB at a time: what they inflate to stays a block's worth. */
            size_t step = s->packed_len - s->packed_at;
            if (step > STREAM_GZIP_STEP)
                step = STREAM_GZIP_STEP;
            int rc = gar_unpack_bytes(&s->u, s->packed + s->packed_at, step);
            if (rc < 0)
                return rc;
            s->packed_at += step;
        } else {
            size_t got = fread(s->lb.buf + s->lb.held, 1, GAR_TRACE_READ_BLOCK - s->lb.held, s->in);
            if (got == 0)
                return stream_at_end(s);
            int rc = gar_trace_split_lines(&s->lb, got);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int gar_trace_stream_next(gar_trace_stream *s, const gar_trace_row **rows, size_t *count)
{
    gar_trace_reader *rd = &s->rd;
    rd->rows_handed += rd->trace.count;
    rd->trace.count = 0;
    if (s->ended)
        return 0;
    int rc = stream_fill(s);
    if (rc < 0) {
        s->ended = true;
        rd->trace.count = 0;
        return rc;
    }
    *rows = rd->trace.row;
    *count = rd->trace.count;
    return rd->trace.count > 0 ? 1 : 0;
}

int gar_trace_stream_source(void *context, const gar_trace_row **rows, size_t *count,
                            gar_error *err)
{
    (void)err;
    return gar_trace_stream_next(context, rows, count);
}

int gar_trace_cursor_source(void *context, const gar_trace_row **rows, size_t *count,
                            gar_error *err)
{
    (void)err;
    gar_trace_cursor *c = context;
    if (c->next >= c->trace->count)
        return 0;
    size_t left = c->trace->count - c->next;
    *rows = c->trace->row + c->next;
    *count = left < STREAM_BLOCK_ROWS ? left : STREAM_BLOCK_ROWS;
    c->next += *count;
    return 1;
}

void gar_trace_stream_close(gar_trace_stream *s)
{
    if (s == NULL)
        return;
    if (s->unpack_open)
        gar_unpack_end(&s->u, -1);
    if (s->own_file)
        fclose(s->in);
    if (s->mapped)
        gar_mapped_text_close(&s->map);
    gar_trace_order_free(&s->rd.rules);
    gar_trace_free(&s->rd.trace);
    gar_free(s->packed);
    gar_free(s->lb.buf);
    gar_free(s->name);
    gar_free(s);
}

