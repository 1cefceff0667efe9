/* sim/trace/trace_reader.h — the trace reader's inside, shared by the files
 * that read, check and write gar-trace v1 (trace_order.c, trace_lines.c,
 * trace_rows.c, trace_read.c, trace_stream.c, trace_write.c).  Private to
 * sim/trace/: every other file reads and writes traces through trace.h.
 *
 * One reader serves files, streams and memory: the stream reader hands it
 * whole lines out of a block buffer, the memory reader out of the caller's
 * bytes.  A plain row (digits and commas) is parsed where it lies and
 * written straight into the row array (trace_rows.c); every other line goes
 * to the line-at-a-time reader (trace_lines.c), which reads it from scratch
 * and says what is wrong with it, so both give the same rows and the same
 * refusals.  Every int function returns 0 or a negative coded error (set in
 * the reader's or the caller's gar_error). */
#ifndef GAR_SIM_TRACE_READER_H
#define GAR_SIM_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/trace/trace.h"

/* The columns in their one canonical order; the optional two may be left out. */
enum { COL_POINT, COL_SUBMIT, COL_START, COL_DONE, COL_ROWS, COL_STREAM, COL_COUNT };
extern const char *const gar_trace_column_name[COL_COUNT]; /* "point", ... (trace_order.c) */

/* ---- the ordering rules, shared by the reader, the writer and gar_trace_check ---- */

/* The last submit and done seen on each stream: open addressing on the stream
 * id, with the last stream hit cached because rows of one stream come in runs. */
typedef struct gar_trace_stream_last {
    uint32_t stream;
    bool used;
    uint64_t submit_ns;
    uint64_t done_ns;
} gar_trace_stream_last;

typedef struct gar_trace_order {
    gar_trace_stream_last *slot; /* owned, through the allocation hook */
    size_t slots;                /* a power of two */
    size_t used;
    gar_trace_stream_last *recent;
    bool any_row;
    uint64_t last_start_ns;
} gar_trace_order;

void gar_trace_order_init(gar_trace_order *r);
void gar_trace_order_free(gar_trace_order *r); /* and back to empty */
/* Checks one row against the rules and records it.  `line` is where it came
 * from (a file line, or a row number).  0, or the refusal naming the rule. */
int gar_trace_order_admit(gar_trace_order *r, const gar_trace_row *row, unsigned columns,
                          const char *name, uint64_t line, gar_error *err);
/* Sets error InvalidTrace for `name` at `line` and `column` (1-based),
 * `fault` saying what is wrong; returns the error. */
int gar_trace_refuse(gar_error *err, const char *name, uint64_t line, unsigned column,
                     const char *fault);
/* 1-based position of a column in a header holding `columns`. */
unsigned gar_trace_column_position(unsigned columns, int col);

/* ---- the reader (trace_lines.c) ---- */

typedef enum gar_trace_reader_state { WANT_MAGIC, WANT_HEADER, WANT_ROWS } gar_trace_reader_state;

typedef struct gar_trace_reader {
    const char *name;
    gar_error *err;
    uint64_t line; /* number of the line being read, from 1 */
    gar_trace_reader_state state;
    int field_col[COL_COUNT]; /* the column of each field position */
    unsigned fields;          /* fields per row, from the header */
    gar_trace_order rules;
    gar_trace trace;
    uint64_t rows_handed; /* a streamed read: rows handed out in earlier blocks */
} gar_trace_reader;

/* 10^k for a chunk of k digits. */
static const uint64_t gar_trace_power_of_ten[9] = { 1,       10,       100,      1000,
                                                    10000,   100000,   1000000,  10000000,
                                                    100000000 };

/* `name` (NULL: "trace") is borrowed for the reader's life. */
void gar_trace_reader_init(gar_trace_reader *rd, const char *name, gar_error *err);
/* One line, without its '\n' (a '\r' before it is dropped). */
int gar_trace_reader_line(gar_trace_reader *rd, const char *p, size_t n);
/* Ends a read: `tail` bytes were left after the last newline. */
int gar_trace_reader_finish(gar_trace_reader *rd, size_t tail);
/* Hands the trace to `out` when rc is 0; frees everything otherwise.
 * Returns rc. */
int gar_trace_reader_end(gar_trace_reader *rd, int rc, gar_trace *out);
/* The refusal of the next line: longer than GAR_TRACE_LINE_MAX. */
int gar_trace_refuse_long_line(gar_trace_reader *rd);

/* ---- lines out of the text (trace_rows.c) ---- */

#define GAR_TRACE_READ_BLOCK (8 * GAR_TRACE_LINE_MAX) /* 64 KiB: under malloc's mmap threshold */

/* Whole lines out of a block buffer of GAR_TRACE_READ_BLOCK bytes; an
 * unfinished line waits at its front for the next bytes. */
typedef struct gar_trace_line_buffer {
    gar_trace_reader *rd;
    char *buf;
    size_t held; /* bytes of an unfinished line at the front of buf */
} gar_trace_line_buffer;

/* Reads the whole lines from `p` up to `end` until the block holds `stop`
 * rows or more; returns where it stopped.  *rc is 0, or a refusal. */
const char *gar_trace_read_lines(gar_trace_reader *rd, const char *p, const char *end,
                                 size_t stop, int *rc);
/* Reads the whole lines of a window of `len` bytes; *unfinished the bytes
 * of a line without its newline left at its end. */
int gar_trace_read_window(gar_trace_reader *rd, const char *text, size_t len,
                          size_t *unfinished);
/* Reads the lines of buf's first held + `added` bytes and keeps the rest. */
int gar_trace_split_lines(gar_trace_line_buffer *lb, size_t added);
/* The consumer of inflated text (unpack.h): `context` a line buffer. */
int gar_trace_feed_lines(void *context, const unsigned char *bytes, size_t len);

/* ---- whole reads (trace_read.c) ---- */

/* Whether `data` starts as a gzip member does. */
static inline bool gar_trace_gzip_magic(const void *data, size_t size)
{
    const unsigned char *b = data;
    return size >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/* Sets error IO "read" for `name` from errno (EIO when unset); returns it. */
int gar_trace_read_failed(gar_error *err, const char *name);

#endif
