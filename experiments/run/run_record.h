/* experiments/run/run_record.h — a run's waits as a gar trace (`gar run
 * --record FILE`), so the run is replayed, swept and verified with the tools
 * that read traces; and beside it what the run itself did, for
 * `gar verify --trace-of-run`.
 *
 * The trace (data/README.md, gar-trace v1, with the stream column): one row
 * per wait of every process, in order of start, times from the earliest:
 *   start   when the wait began;
 *   done    the work's completion as the runtime's timing event placed it;
 *           where none is known (a device-wide wait, an event without
 *           timing, a wait left to the real call), the wait's end, which
 *           the work cannot have been after;
 *   submit  the earlier of start and done (the launch is not seen);
 *   stream  process × 65 536 + the process's stream number;
 *   point   FNV-1a-64 over the call's name and the stream's four
 *           little-endian bytes, as the importers make it.
 * A stream's done times never decrease (a timing event read against a new
 * anchor may place one a few ns before its predecessor: it is moved up).
 *
 * The outcome file FILE.outcome (gar-run-outcome v1): a `# plan: P` line,
 * the header `end_ns,cpu_ns,taken`, then one line per trace row in the same
 * order: the wait's end on the trace's clock, the waiting thread's CPU time,
 * and 1 when gar's plan ran it (0: the real call ran it).
 *
 * Both files are written atomically (a temporary file renamed into place). */
#ifndef GAR_RUN_RECORD_H
#define GAR_RUN_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "run/run_logs.h"
#include "sim/trace/trace.h"

/* One outcome row. */
typedef struct gar_run_outcome {
    uint64_t end_ns, cpu_ns;
    bool taken;
} gar_run_outcome;

/* Writes the trace to `path` and the outcomes to `path`.outcome; `comment`
 * (may be NULL) goes into the trace's header.  Returns 0, or a negated code
 * (-GAR_E_IO, -GAR_E_CAPACITY, -GAR_E_INVALID_TRACE for a run with no wait)
 * with nothing left at either path. */
int gar_run_record_write(const gar_run_logs *logs, const char *path, const char *comment,
                         gar_error *err);

/* Reads `path`.outcome for a trace of `rows` rows: the plan into `plan`
 * (`plan_size` bytes) and the rows into a new array *out.  Returns 0, or
 * -GAR_E_IO (no such file) or -GAR_E_INVALID_TRACE (a malformed line, or
 * not `rows` rows: names the file and line). */
int gar_run_outcome_read(const char *trace_path, size_t rows, char *plan, size_t plan_size,
                         gar_run_outcome **out, gar_error *err);

#endif
