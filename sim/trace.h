/* sim/trace.h — gar-trace v1: the recorded waits a simulation replays.
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

#include <gar/error.h>

#define GAR_TRACE_MAGIC "# gar-trace v1"
#define GAR_TRACE_TIME_MAX ((uint64_t)INT64_MAX)
#define GAR_TRACE_LINE_MAX 8192 /* longest line a reader accepts, newline excluded */

/* Optional columns a trace carries (bit set).  Without GAR_TRACE_HAS_ROWS every
 * row's `rows` is 0; without GAR_TRACE_HAS_STREAM every `stream` is 0. */
enum {
    GAR_TRACE_HAS_ROWS = 1u << 0,
    GAR_TRACE_HAS_STREAM = 1u << 1,
};

typedef struct gar_trace_row {
    uint64_t point;     /* call-site identity (a readback point key) */
    uint64_t submit_ns; /* work enqueued */
    uint64_t start_ns;  /* host began to wait */
    uint64_t done_ns;   /* device finished the work */
    uint32_t rows;      /* the step's row count (bands); 0 when not recorded */
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

/* Reads a gar-trace v1 file.  `out` need not be initialised; on success it
 * holds the trace (free it), on failure it is empty.  Returns 0,
 * -GAR_E_INVALID_TRACE (file, line, column, fault), -GAR_E_IO (path, operation,
 * system message), -GAR_E_CAPACITY or -GAR_E_INVALID_ARGUMENT.  The file is
 * streamed in blocks; nothing is allocated per row or per field. */
int gar_trace_read_file(gar_trace *out, const char *path, gar_error *err);

/* As gar_trace_read_file, from an open stream; `name` names it in errors.
 * Reads to the end of the stream; does not close it. */
int gar_trace_read_stream(gar_trace *out, FILE *in, const char *name, gar_error *err);

/* As gar_trace_read_file, from `size` bytes in memory (no NUL needed). */
int gar_trace_read_memory(gar_trace *out, const void *data, size_t size, const char *name,
                          gar_error *err);

/* Writes the canonical text of a trace: the magic line, one "# " line per
 * line of `comment` (NULL for none), the header naming the trace's columns,
 * then the rows in decimal.  The trace is checked first and a broken one is
 * refused (nothing written).  `name` names the stream in errors.  Returns 0,
 * -GAR_E_INVALID_TRACE or -GAR_E_IO. */
int gar_trace_write_stream(const gar_trace *trace, const char *comment, FILE *out,
                           const char *name, gar_error *err);

/* Writes the canonical text to `path` atomically: into a temporary file beside
 * it, flushed and synced, then renamed over `path`.  On failure `path` is
 * untouched and the temporary file removed.  Same returns as
 * gar_trace_write_stream. */
int gar_trace_write_file(const gar_trace *trace, const char *comment, const char *path,
                         gar_error *err);

/* True when both traces hold the same columns and rows. */
bool gar_trace_equal(const gar_trace *a, const gar_trace *b);

#endif
