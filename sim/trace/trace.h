/* sim/trace/trace.h — gar-trace v1: the recorded waits a simulation replays.
 *
 * A trace is one row per wait: which call site waited (`point`), when its work
 * was enqueued (`submit_ns`), when the host began to wait (`start_ns`), when
 * the device finished (`done_ns`), and optionally the step's row count (`rows`,
 * for bands) and the stream (`stream`).  Times are integer nanoseconds from the
 * trace's origin.  The text format is documented in data/README.md; in short:
 *
 *     # gar-trace v1
 *     # any further comment lines
 *     point,submit_ns,start_ns,done_ns[,rows][,stream]
 *     7,0,40000,2040000,16,0
 *
 * Rules every trace obeys (the reader refuses a file that breaks one, and
 * gar_trace_check refuses such rows built in memory):
 *   - at least one row;
 *   - every time is at most GAR_TRACE_TIME_MAX, so differences fit an int64;
 *   - submit_ns <= start_ns and submit_ns <= done_ns (done may precede start:
 *     the work was finished before the host looked);
 *   - start_ns never decreases down the file: the file order is the host's
 *     order of waits, the order a replay takes them in;
 *   - per stream, submit_ns and done_ns never decrease: a stream runs its work
 *     in the order it was enqueued.
 *
 * In memory a trace is one array of fixed-size rows.  A replay reads every
 * field of each wait once, in order, so rows laid side by side are one
 * sequential stream through memory (40 bytes a wait, 40 MB for a million); a
 * struct of arrays would only pay off for scans of a single column.
 *
 * Ownership: a gar_trace owns its row array.  Make one with gar_trace_init (or
 * let a reader fill one) and release it with gar_trace_free.  Readers fill the
 * caller's trace only on success: on any refusal the trace is left empty, so
 * nothing half-loaded is ever used.  A reader's output trace is storage to
 * fill: what it held is overwritten, never freed, so free a used trace before
 * reading into it again.  Memory comes through the allocation hook
 * (alloc.h): when an allocation fails, a reader refuses with
 * GAR_E_CAPACITY and leaves its trace empty. */
#ifndef GAR_SIM_TRACE_H
#define GAR_SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <zlib.h>

#include <gar/error.h>

#include "sim/trace/atomic_file.h"

#define GAR_TRACE_MAGIC "# gar-trace v1"
#define GAR_TRACE_TIME_MAX ((uint64_t)INT64_MAX)
#define GAR_TRACE_LINE_MAX 8192 /* longest line a reader accepts, newline excluded */

/* Optional columns a trace carries (bit set).  GAR_TRACE_HAS_STEP_ROWS is the
 * `rows` column: without it every row's `step_rows` is 0; without
 * GAR_TRACE_HAS_STREAM every `stream` is 0. */
enum {
    GAR_TRACE_HAS_STEP_ROWS = 1u << 0,
    GAR_TRACE_HAS_STREAM = 1u << 1,
};

typedef struct gar_trace_row {
    uint64_t point;     /* call-site identity (a readback point key) */
    uint64_t submit_ns; /* work enqueued */
    uint64_t start_ns;  /* host began to wait */
    uint64_t done_ns;   /* device finished the work */
    uint32_t step_rows; /* the step's row count, which picks the band (the CSV's
                         * `rows` column); 0 when not recorded */
    uint32_t stream;    /* stream the work ran on; 0 when not recorded */
} gar_trace_row;

typedef struct gar_trace {
    gar_trace_row *row; /* `count` rows, owned */
    size_t count;
    size_t capacity;
    unsigned columns;   /* GAR_TRACE_HAS_* bits: the optional columns */
} gar_trace;

/* An empty trace with no optional columns.  Accepts NULL. */
void gar_trace_init(gar_trace *trace);

/* Frees the rows and leaves the trace empty (reusable).  Accepts NULL. */
void gar_trace_free(gar_trace *trace);

/* Makes room for at least `capacity` rows.  Returns 0, -GAR_E_INVALID_ARGUMENT
 * for a NULL trace, or -GAR_E_CAPACITY when memory runs out. */
int gar_trace_reserve(gar_trace *trace, size_t capacity, gar_error *err);

/* Appends a copy of `row` (growing the array geometrically).  No rule is
 * checked here: build the rows, then gar_trace_check them.  Returns 0,
 * -GAR_E_INVALID_ARGUMENT or -GAR_E_CAPACITY. */
int gar_trace_append(gar_trace *trace, const gar_trace_row *row, gar_error *err);

/* Checks every rule above.  A broken rule is -GAR_E_INVALID_TRACE with `name`
 * as the file, the 1-based row number as the line, and the column's 1-based
 * position in the canonical header as the column; unknown bits in `columns`
 * are -GAR_E_INVALID_ARGUMENT.  Returns 0 for a good trace. */
int gar_trace_check(const gar_trace *trace, const char *name, gar_error *err);

/* Reads a gar-trace v1 file, plain or gzip-compressed (told apart by content,
 * so the name need not end in .gz; several gzip members are one text, as
 * sim/trace/unpack.h reads them); the path "-" is standard input.  `out` need not
 * be initialised; on success it holds the trace (free it), on failure it is
 * empty.  Returns 0, -GAR_E_INVALID_TRACE (file, line, column, fault: the
 * line of the uncompressed text; a corrupt, cut-short or trailing-garbage
 * gzip is "byte N" of the compressed file), -GAR_E_IO (path, operation,
 * system message), -GAR_E_CAPACITY or -GAR_E_INVALID_ARGUMENT.  The file is
 * streamed in blocks; nothing is allocated per row or per field. */
int gar_trace_read_file(gar_trace *out, const char *path, gar_error *err);

/* As gar_trace_read_file, from an open stream; `name` names it in errors.
 * Reads to the end of the stream; does not close it. */
int gar_trace_read_stream(gar_trace *out, FILE *in, const char *name, gar_error *err);

/* As gar_trace_read_file, from `size` bytes in memory (no NUL needed),
 * plain or gzip. */
int gar_trace_read_memory(gar_trace *out, const void *data, size_t size, const char *name,
                          gar_error *err);

/* A trace read block by block, in bounded memory: the reader of
 * gar_trace_read_file, handing out its rows a few thousand at a time (every
 * rule checked as they come) instead of keeping them all.  For a replay of a
 * trace too long to hold.
 *
 * Use: gar_trace_stream_open (a path, "-" for standard input, plain or
 * gzip); gar_trace_stream_next until it returns 0 (the end, every rule and
 * the text's end checked) or a refusal; gar_trace_stream_close always.  The
 * `err` given to open must outlive the stream: refusals are written there,
 * with the same codes, lines and columns as gar_trace_read_file's.  A
 * refusal may come after rows were handed out (a bad row half-way): a
 * caller that must not act on half a trace keeps what it made of the rows
 * until next returned 0.  Memory: a 64 KiB block, a block of rows, zlib's
 * state and the per-stream order table, through the allocation hook.  A
 * plain regular file is read where the page cache holds it, through a
 * read-only mapping of a few MiB of it at a time (mapped_text.h), and
 * parsed in the same 64 KiB windows the block would hold. */
typedef struct gar_trace_stream gar_trace_stream;

/* Opens `path` ("-": standard input, not closed at the end).  Returns 0 with
 * *out set, -GAR_E_IO, -GAR_E_CAPACITY or -GAR_E_INVALID_ARGUMENT. */
int gar_trace_stream_open(gar_trace_stream **out, const char *path, gar_error *err);

/* The next rows: returns 1 with *rows (valid until the next call) and
 * *count (at least 1) set, 0 at the end of a good trace, or a negative gar
 * error (then every later call returns 0). */
int gar_trace_stream_next(gar_trace_stream *s, const gar_trace_row **rows, size_t *count);

/* The optional columns (GAR_TRACE_HAS_* bits), known once a block came. */
unsigned gar_trace_stream_columns(const gar_trace_stream *s);

/* Rows handed out before the current block. */
uint64_t gar_trace_stream_rows_before(const gar_trace_stream *s);

/* gar_trace_stream_next in the shape of a replay's row source
 * (replay.h, gar_replay_rows_fn): `context` is the stream; its refusals go
 * to the error given at open, not to `err`. */
int gar_trace_stream_source(void *context, const gar_trace_row **rows, size_t *count,
                            gar_error *err);

/* Closes the file and releases everything.  Accepts NULL. */
void gar_trace_stream_close(gar_trace_stream *s);

/* A trace in memory handed out the same way, a few thousand rows at a
 * time from row `next` on: gar_trace_cursor_source is a row source
 * (replay.h) whose context is a cursor.  Never fails. */
typedef struct gar_trace_cursor {
    const gar_trace *trace; /* borrowed */
    size_t next;            /* the first row not yet handed out */
} gar_trace_cursor;

int gar_trace_cursor_source(void *context, const gar_trace_row **rows, size_t *count,
                            gar_error *err);

/* A trace written row by row, in bounded memory: the canonical text (the
 * magic line, one "# " line per line of the comment, the header naming the
 * columns, then the rows in decimal), plain or as one gzip member.  Each row
 * is checked against the rules above as it comes, so a writer never puts out
 * a trace the reader would refuse.
 *
 * Use: begin with gar_trace_writer_file or _stream; gar_trace_writer_row for
 * each row, in order; gar_trace_writer_finish when all went well;
 * gar_trace_writer_end always.  A file is written atomically (atomic_file.h):
 * it appears whole at finish or not at all.  Errors name `name` (the path,
 * or the stream's name) with the 1-based row number as the line; a write
 * fault names the temporary file.  Memory (a 64 KiB block, zlib's state and
 * the per-stream order table) comes through the allocation hook. */
typedef struct gar_trace_writer {
    FILE *out;
    const char *name;  /* in rule errors (borrowed) */
    const char *where; /* in write errors: the temporary file, or `name` */
    gar_error *err;
    unsigned columns;
    bool gzip;
    bool atomic;       /* writing a temporary file beside `name` */
    bool z_ready;
    uint64_t rows;     /* rows written so far */
    struct gar_trace_order *rules; /* the rules' state (trace_order.c; owned) */
    char *block;       /* formatted rows waiting (owned) */
    size_t used;
    unsigned char *packed; /* deflate's output block (owned) */
    z_stream z;
    gar_atomic_file file; /* when atomic */
} gar_trace_writer;

/* Whether a path names a compressed trace: it ends in ".gz". */
bool gar_trace_path_is_gzip(const char *path);

/* Begins writing `path` (gzip when gar_trace_path_is_gzip) with `columns`
 * (GAR_TRACE_HAS_* bits) and `comment` (NULL for none): the head is written
 * now.  Returns 0, -GAR_E_IO, -GAR_E_CAPACITY or -GAR_E_INVALID_ARGUMENT;
 * on failure nothing is left behind and end need not be called. */
int gar_trace_writer_file(gar_trace_writer *w, const char *path, unsigned columns,
                          const char *comment, gar_error *err);

/* As gar_trace_writer_file, onto an open stream (not closed here); `gzip`
 * says whether to compress.  A failure part-way leaves what was written. */
int gar_trace_writer_stream(gar_trace_writer *w, FILE *out, const char *name, bool gzip,
                            unsigned columns, const char *comment, gar_error *err);

/* Checks and writes one row.  Returns 0, -GAR_E_INVALID_TRACE (the row
 * breaks a rule), -GAR_E_IO or -GAR_E_CAPACITY. */
int gar_trace_writer_row(gar_trace_writer *w, const gar_trace_row *row);

/* Ends the text (refusing a trace of no rows), flushes it and, for a file,
 * syncs it and renames it into place.  Same returns as gar_trace_writer_row. */
int gar_trace_writer_finish(gar_trace_writer *w);

/* Releases the writer; a file not finished is removed.  Returns `rc`. */
int gar_trace_writer_end(gar_trace_writer *w, int rc);

/* Writes a whole trace through a writer on a stream (never compressed).  The
 * trace is checked first and a broken one is refused (nothing written).
 * `name` names the stream in errors.  Returns 0, -GAR_E_INVALID_TRACE or
 * -GAR_E_IO. */
int gar_trace_write_stream(const gar_trace *trace, const char *comment, FILE *out,
                           const char *name, gar_error *err);

/* Writes a whole trace to `path` atomically, gzip when the name ends in
 * ".gz": checked first, then into a temporary file beside it, flushed and
 * synced, then renamed over `path`.  On failure `path` is untouched and the
 * temporary file removed.  Same returns as gar_trace_write_stream. */
int gar_trace_write_file(const gar_trace *trace, const char *comment, const char *path,
                         gar_error *err);

/* True when both traces hold the same columns and rows. */
bool gar_trace_equal(const gar_trace *a, const gar_trace *b);

#endif
