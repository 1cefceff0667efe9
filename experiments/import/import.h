/* experiments/import/import.h — profiler traces into gar-trace v1.
 *
 * Two readers (a PyTorch profiler / Kineto Chrome-trace JSON, and an Nsight
 * Systems SQLite export) collect the same three kinds of record into a
 * gar_import; one mapping (gar_import_finish) turns them into one trace row per
 * host call that waited for GPU work.  Past GAR_IMPORT_RECORD_BUDGET bytes the
 * records move to a temporary SQLite database and the same mapping runs there
 * (import_spill.h), so the records' memory is bounded whatever the profile's
 * size.  Memory comes through the allocation hook (sim/alloc.h; yajl's own
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
 * names (stream sync: its stream; event sync: the event's stream; memcpy: the
 * copy's own stream), or — for a device sync — the latest-ending such op over
 * every stream of the device.  A stream or event sync without a sync record
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
 * Ownership: a gar_import owns its arrays (and its temporary database, once
 * its records spill); gar_import_free releases them.
 * Nothing here is thread-safe; use one gar_import per thread. */
#ifndef GAR_IMPORT_H
#define GAR_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "sim/trace.h"

#define GAR_IMPORT_ANY UINT32_MAX     /* device or stream not known */
#define GAR_IMPORT_ID_LIMIT 65536u    /* device and stream ids must be below this */
#define GAR_IMPORT_TOKEN_MAX (1u << 20) /* longest JSON token (string, number) accepted */

/* What a host call does, by its name. */
typedef enum gar_sync_kind {
    GAR_SYNC_NONE,         /* launches or other calls: looked up as launches */
    GAR_SYNC_STREAM,       /* waits for one stream */
    GAR_SYNC_EVENT,        /* waits for an event's stream */
    GAR_SYNC_DEVICE,       /* waits for every stream of the device */
    GAR_SYNC_MEMCPY,       /* a synchronous copy: waits for its own copy */
    GAR_SYNC_MEMCPY_ASYNC, /* waits only when its copy is device-to-pageable-host */
} gar_sync_kind;

/* A GPU op: a kernel, copy or memset. */
typedef struct gar_import_op {
    uint64_t start_ns, end_ns;
    uint64_t correlation; /* 0: none */
    uint64_t name_hash;   /* a kernel's name, FNV-1a-64, with --wait-on kernel; else 0 */
    uint32_t process;     /* index from gar_import_process */
    uint32_t device, stream;
    bool dtoh_pageable;   /* a device-to-pageable-host copy (blocks its caller) */
    bool kernel;          /* a kernel (not a copy or memset) */
} gar_import_op;

/* A host runtime or driver call. */
typedef struct gar_import_call {
    uint64_t start_ns, end_ns;
    uint64_t correlation; /* 0: none */
    uint64_t thread;      /* the host thread that made the call */
    uint32_t process;     /* index from gar_import_process */
    int name;             /* index of a synchronizing name (gar_import_sync_name), or -1 */
} gar_import_call;

/* What the profiler recorded about a synchronization (Kineto cuda_sync, Nsight
 * CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), joined to its call by correlation. */
typedef struct gar_import_sync {
    uint64_t correlation;
    uint32_t process;           /* index from gar_import_process */
    uint32_t device;            /* GAR_IMPORT_ANY when not recorded */
    uint32_t stream;            /* the stream synchronized, or GAR_IMPORT_ANY */
    uint32_t event_stream;      /* an event sync: the event's stream, or GAR_IMPORT_ANY */
    uint64_t event_correlation; /* an event sync: its record call's correlation, or 0 */
} gar_import_sync;

/* Why a synchronizing call (with --wait-on kernel: a kernel) made no row;
 * each is counted. */
typedef struct gar_import_counts {
    uint64_t sync_calls;   /* synchronizing calls found (--wait-on kernel: kernels) */
    uint64_t waits;        /* rows made */
    uint64_t no_gpu_op;    /* nothing on the awaited stream(s) to wait for */
    uint64_t no_stream;    /* the awaited stream is not recorded (or its id is too large) */
    uint64_t no_launch;    /* the awaited op's launch call is not in the trace */
    uint64_t inconsistent; /* the op ends before its launch began (clock skew) */
    uint64_t out_of_order; /* would make its stream's submit or done go backwards */
    uint64_t inferred_stream; /* rows made whose stream was inferred (of `waits`) */
} gar_import_counts;

/* What a row waits for (data/README.md, "What the host waits on"). */
typedef enum gar_import_wait_on {
    GAR_IMPORT_WAIT_ON_SYNC,   /* the synchronizing calls the profile recorded */
    GAR_IMPORT_WAIT_ON_KERNEL, /* a what-if: the end of every kernel, from its
                                * launch call's return */
} gar_import_wait_on;

/* How to map.  A zeroed struct is the default: synchronizing calls, infer
 * streams, every process. */
typedef struct gar_import_options {
    bool no_infer;     /* no stream inference: a sync without a stream record is skipped */
    bool one_process;  /* Nsight: import only the process whose pid is `process` */
    uint32_t process;
    gar_import_wait_on wait_on;
} gar_import_options;

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

/* Records past the budget (import_spill.h); opaque here. */
typedef struct gar_import_spill gar_import_spill;

/* Bytes of records a gar_import holds in memory; past it they move to a
 * temporary SQLite database and the mapping runs there, in bounded memory,
 * to the same trace (data/README.md, "Memory and speed").  The environment
 * variable GAR_IMPORT_RECORD_BUDGET (bytes, read by gar_import_init) sets
 * another budget: the tests use a tiny one to force the database on small
 * profiles. */
#define GAR_IMPORT_RECORD_BUDGET (32u << 20)

/* Bytes of mapped rows held in memory; past it they are sorted into runs in
 * a temporary file and merged (experiments/import/import_rows.h), so rows
 * too take bounded memory.  GAR_IMPORT_ROW_BUDGET in the environment (bytes,
 * read by gar_import_init) sets another, as for the records. */
#define GAR_IMPORT_ROW_BUDGET (32u << 20)

typedef struct gar_import {
    gar_import_op *op;
    size_t ops, ops_cap;
    gar_import_call *call;
    size_t calls, calls_cap;
    gar_import_sync *sync;
    size_t syncs, syncs_cap;
    uint64_t *process_id; /* the processes' ids, by index */
    size_t processes, processes_cap;
    gar_import_options options;
    size_t record_budget;    /* bytes of op, call and sync arrays before they spill */
    size_t row_budget;       /* bytes of mapped rows held before a sorted run is written */
    gar_import_spill *spill; /* NULL until the records spill */
} gar_import;

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

/* The index of a synchronizing call's name, or -1 for any other call.  A
 * trailing version suffix ("_v3020"), and before it a per-thread default
 * stream suffix ("_ptsz", "_ptds"), is ignored.  `len` bytes, no NUL needed. */
int gar_import_sync_name(const char *name, size_t len);

/* The kind and base name of a name index. */
gar_sync_kind gar_import_sync_kind(int name);
const char *gar_import_sync_base(int name);

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
