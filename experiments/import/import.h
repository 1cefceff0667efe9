/* experiments/import/import.h — profiler traces into gar-trace v1.
 *
 * Two readers (a PyTorch profiler / Kineto Chrome-trace JSON, and an Nsight
 * Systems SQLite export) collect the same three kinds of record into a
 * gar_import; one mapping (gar_import_finish) turns them into one trace row per
 * host call that waited for GPU work.  Past GAR_IMPORT_RECORD_BUDGET bytes the
 * records move to a temporary SQLite database and the same mapping runs there
 * (import_spill.h), so the records' memory is bounded whatever the profile's
 * size.  Memory comes through the allocation hook (sim/trace/alloc.h; yajl's own
 * excepted, as it does not check them): a failed allocation is refused with
 * GAR_E_CAPACITY and an empty trace.  The mapping, in full, is in
 * data/README.md ("Importing profiles"); in short:
 *
 *   start  = the synchronizing call's start (host clock)
 *   done   = the end of the last GPU op the call waited for
 *   submit = the start of the host call that launched that op (same correlation)
 *   stream = device × 65536 + the op's stream id (one process); with several
 *            processes or ranks, the index of the (process, device, stream)
 *            in that order, listed in the trace's header (gar_import_legend)
 *   point  = FNV-1a-64 of the call's name (version suffix dropped), then the
 *            four little-endian bytes of the stream the call names
 *            (0xFFFFFFFF for a device-wide sync), then, with several
 *            processes, the four little-endian bytes of the process id
 *
 * "The last GPU op the call waited for" is the op that started last, before
 * the call ended, among the ops launched no later than the call began (for an
 * event sync: no later than the event was recorded), on the stream the call
 * names (stream sync: its stream; event sync: the event's stream), or — for
 * a device sync — the latest-ending such op over every stream of the device.
 * A copy call waits for its own copy, and only when it returned no more than
 * GAR_IMPORT_EARLY_RETURN_NS before the copy ended (else it is counted as
 * returned_early: the host did not wait).  A stream or event sync without a sync record
 * naming its stream takes the device's only stream, else (unless
 * `no_infer`) the stream of the op most recently launched by the same host
 * thread before the call (counted as inferred_stream).  Correlation ids and
 * streams are qualified by process: records of different processes never
 * join.  Times are moved so that the earliest submit of the trace is 0.
 *
 * With options.wait_on = GAR_IMPORT_WAIT_ON_KERNEL the rows are a what-if
 * instead: one per kernel whose launch call is in the trace, as if the host
 * waited for it right after launching it:
 *
 *   submit = the launch call's start     start = the launch call's end
 *   done   = the kernel's end            stream = as above
 *   point  = FNV-1a-64 of the kernel's name, then its stream's four
 *            little-endian bytes (then the process id's, with several)
 *
 * The records and the gar_import that holds them are in import_records.h,
 * the names of synchronizing calls in import_sync_names.h; this header is the
 * importers' whole interface and includes both.
 *
 * Ownership: a gar_import owns its arrays (and its temporary database, once
 * its records spill); gar_import_free releases them.
 * Nothing here is thread-safe; use one gar_import per thread. */
#ifndef GAR_IMPORT_H
#define GAR_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "import/import_records.h"
#include "import/import_sync_names.h"
#include "sim/trace/trace.h"

#define GAR_IMPORT_TOKEN_MAX (1u << 20) /* longest JSON token (string, number) accepted */

/* A qualified stream of a several-process trace: what trace stream `id` is. */
typedef struct gar_import_stream_name {
    uint32_t id;
    uint64_t process; /* the process's id (Nsight pid, Kineto rank) */
    uint32_t device, stream;
} gar_import_stream_name;

/* What the header of an imported trace lists: the processes (ids in the order
 * of their indices) and, with more than one, the qualified streams.  Owned
 * arrays; gar_import_legend_free releases them. */
typedef struct gar_import_legend {
    uint64_t *process;
    size_t processes;
    gar_import_stream_name *stream;
    size_t streams;
} gar_import_legend;

void gar_import_legend_free(gar_import_legend *legend);

void gar_import_init(gar_import *im);
void gar_import_free(gar_import *im);

/* The index of the process with id `id` (registered on first sight; the
 * readers see few processes, so this is a short scan).  Returns 0 and sets
 * `*index`, or -GAR_E_CAPACITY. */
int gar_import_process(gar_import *im, uint64_t id, uint32_t *index, gar_error *err);

/* Append one record.  Return 0 or -GAR_E_CAPACITY. */
int gar_import_add_op(gar_import *im, const gar_import_op *op, gar_error *err);
int gar_import_add_call(gar_import *im, const gar_import_call *call, gar_error *err);
int gar_import_add_sync(gar_import *im, const gar_import_sync *sync, gar_error *err);

/* Maps the records to a trace (see above).  `name` names the source in
 * errors.  `out` is storage to fill, as for every trace reader: whatever it
 * held is overwritten, not freed, so free a used trace before passing it
 * again.  It is filled on success and left empty on failure; `counts`
 * (may be NULL) is filled either way.  Returns 0, -GAR_E_INVALID_TRACE when no
 * call waited for GPU work, or -GAR_E_CAPACITY. */
int gar_import_finish(gar_import *im, const char *name, gar_trace *out,
                      gar_import_counts *counts, gar_error *err);

/* Where mapped rows go, so that they need not all be held: begin is called
 * once, after the mapping, with the final counts and the header's legend
 * (begin may take the legend's arrays, zeroing it), then row for each row in
 * the trace's order (start order, times moved to the origin).  A negative
 * return stops the import and is returned. */
typedef struct gar_import_sink {
    int (*begin)(void *context, const gar_import_counts *counts, gar_import_legend *legend,
                 gar_error *err);
    int (*row)(void *context, const gar_trace_row *row, gar_error *err);
    void *context;
} gar_import_sink;

/* As gar_import_finish, to a sink: memory is bounded by the record and row
 * budgets, not by the number of rows.  `counts` (may be NULL) is filled
 * either way.  Returns 0, the sink's failure, -GAR_E_INVALID_TRACE when no
 * call waited for GPU work (before begin), -GAR_E_IO (the rows' temporary
 * file) or -GAR_E_CAPACITY. */
int gar_import_finish_to(gar_import *im, const char *name, const gar_import_sink *sink,
                         gar_import_counts *counts, gar_error *err);

/* The sink that collects the rows into a trace (and takes the legend when
 * `legend` is not NULL): make it, import to it, then end it with the
 * import's return, which checks the trace (or empties it on failure). */
typedef struct gar_import_to_trace {
    gar_trace *out;
    gar_import_legend *legend;
} gar_import_to_trace;

gar_import_sink gar_import_trace_sink(gar_import_to_trace *t, gar_trace *out,
                                      gar_import_legend *legend);
int gar_import_trace_sink_end(gar_import_to_trace *t, const char *name, int rc, gar_error *err);

/* As gar_import_finish, and fills `legend` (may be NULL; empty on failure). */
int gar_import_finish_legend(gar_import *im, const char *name, gar_trace *out,
                             gar_import_counts *counts, gar_import_legend *legend,
                             gar_error *err);

/* Kineto (PyTorch profiler) Chrome-trace JSON, plain or gzip-compressed (told
 * apart by content), streamed through yajl.  `out` as for gar_import_finish.  Returns 0, -GAR_E_IO,
 * -GAR_E_INVALID_TRACE or -GAR_E_CAPACITY.  Malformed JSON is refused with
 * its line and column (where yajl stopped: at the offending byte or just past
 * it), as is a token longer than GAR_IMPORT_TOKEN_MAX (at the token's
 * start); a kept event without usable times, or with an id that is not an
 * integer of its type's range, with "event N" (1-based, in the events array)
 * and the key; a key read here given twice in an event, or a second
 * traceEvents, likewise.  A gzip file may hold several members (one text);
 * corrupt, cut-short or trailing non-member bytes are refused with "byte N"
 * (1-based, in the compressed file).  The path "-" is standard input (named
 * "standard input" in errors). */
int gar_import_kineto_file(const char *path, gar_trace *out, gar_import_counts *counts,
                           gar_error *err);

/* Several Kineto files, one per rank (rank = position in `paths`), into one
 * trace: each file's correlation ids and streams are its own (the legend
 * names rank-qualified streams when n > 1).  `options` may be NULL (defaults);
 * `legend` may be NULL.  Same returns as gar_import_kineto_file. */
int gar_import_kineto_files(const char *const *paths, size_t n, const gar_import_options *options,
                            gar_trace *out, gar_import_counts *counts, gar_import_legend *legend,
                            gar_error *err);

/* As gar_import_kineto_files, to a sink (the legend goes to its begin). */
int gar_import_kineto_files_to(const char *const *paths, size_t n,
                               const gar_import_options *options, const gar_import_sink *sink,
                               gar_import_counts *counts, gar_error *err);

/* As gar_import_kineto_file, from JSON in memory, plain or gzip-compressed. */
int gar_import_kineto_memory(const void *data, size_t size, const char *name, gar_trace *out,
                             gar_import_counts *counts, gar_error *err);

/* An Nsight Systems SQLite export (nsys export --type sqlite).  A missing
 * table, a column of the wrong type, or NULL where a time or id is needed is
 * -GAR_E_INVALID_TRACE naming the table; SQLite running out of memory is
 * -GAR_E_CAPACITY; other SQLite failures are -GAR_E_IO. */
int gar_import_nsys_file(const char *path, gar_trace *out, gar_import_counts *counts,
                         gar_error *err);

/* As gar_import_nsys_file, with options (NULL: defaults) and the legend (may
 * be NULL).  With options->one_process, a pid not in the export is
 * -GAR_E_INVALID_TRACE. */
int gar_import_nsys_file_with(const char *path, const gar_import_options *options,
                              gar_trace *out, gar_import_counts *counts,
                              gar_import_legend *legend, gar_error *err);

/* As gar_import_nsys_file_with, to a sink (the legend goes to its begin). */
int gar_import_nsys_file_to(const char *path, const gar_import_options *options,
                            const gar_import_sink *sink, gar_import_counts *counts,
                            gar_error *err);

#endif
