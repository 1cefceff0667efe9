/* experiments/import/import_rows.h — an import's trace rows, put in start
 * order in bounded memory.
 *
 * The mapping makes rows in call order; a trace wants them by the wait's
 * start.  Rows gather in an array of at most the row budget's bytes; when it
 * fills, it is sorted and written out as a run to a temporary file (removed
 * at once, so no exit path leaves it behind), and at the end the runs are
 * merged.  Merges take at most GAR_IMPORT_ROWS_FAN_IN runs at a time: when
 * that many runs of one size class lie at the end of the list they are merged
 * into one run of the next class, so the list and the merge's buffers are
 * bounded whatever the number of rows (a row is rewritten once per class,
 * log base fan-in of the runs).  Memory: the budget (import.h's
 * GAR_IMPORT_ROW_BUDGET), plus the merge buffers (fan-in ×
 * GAR_IMPORT_ROWS_READ rows, 640 KiB) while runs are merged.
 *
 * The order is the import's: start, then stream, submit, done, point (the
 * `rows` field rides along, uncompared).  Memory comes through the
 * allocation hook.  Internal to the importers; not thread-safe. */
#ifndef GAR_IMPORT_ROWS_H
#define GAR_IMPORT_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gar/error.h>

#include "sim/trace/trace.h"

#define GAR_IMPORT_ROWS_FAN_IN 16         /* runs merged at once */
#define GAR_IMPORT_ROWS_READ 1024         /* rows read from a run at a time */
#define GAR_IMPORT_ROWS_RUNS 128          /* runs listed at most: 16^8 budgets of rows */

typedef struct gar_import_rows_run {
    uint64_t first; /* row index in the file */
    uint64_t count;
    unsigned level; /* how many merges made it */
} gar_import_rows_run;

typedef struct gar_import_rows {
    gar_trace_row *row; /* rows not yet in a run (owned) */
    size_t count, cap;  /* cap: the budget in rows, at least one */
    size_t grown;       /* the array's size so far (it grows to cap) */
    FILE *file;         /* the runs, once one is written */
    uint64_t file_rows; /* rows in the file */
    gar_import_rows_run run[GAR_IMPORT_ROWS_RUNS];
    size_t runs;
    uint64_t total;     /* rows added */
    bool sorted;        /* no run written, and `row` sorted */
} gar_import_rows;

/* Empty, holding at most `budget` bytes of rows before writing a run. */
void gar_import_rows_init(gar_import_rows *r, size_t budget);

/* Adds one row.  Returns 0, -GAR_E_IO (the temporary file) or -GAR_E_CAPACITY. */
int gar_import_rows_add(gar_import_rows *r, const gar_trace_row *row, gar_error *err);

/* Calls each(context, row) for every row, in order; may be called again for
 * another pass (no more rows may be added once it was).  A negative return
 * of `each` stops the pass and is returned.  Returns 0, that, -GAR_E_IO or
 * -GAR_E_CAPACITY. */
int gar_import_rows_each(gar_import_rows *r, int (*each)(void *context, const gar_trace_row *row),
                         void *context, gar_error *err);

/* Frees the rows and closes (deletes) the file.  NULL is fine. */
void gar_import_rows_free(gar_import_rows *r);

#endif
