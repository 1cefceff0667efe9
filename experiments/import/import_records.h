/* experiments/import/import_records.h — what the importers collect from a
 * profile: GPU ops, host calls and synchronization records, the counts of
 * why a call made no row, the mapping's options, and the gar_import that
 * holds the records (in arrays, or spilled to SQLite past a budget).
 *
 * Types only.  The mapping's parts (import_rules.h, import_spill.h) and its
 * entry points (import.h) all build on these, so they sit below every one of
 * them: each part of the importers includes this header, never import.h,
 * and the dependency runs one way, import_map -> import_spill ->
 * import_rules -> import_records. */
#ifndef GAR_IMPORT_RECORDS_H
#define GAR_IMPORT_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GAR_IMPORT_ANY UINT32_MAX     /* device or stream not known */
#define GAR_IMPORT_ID_LIMIT 65536u    /* device and stream ids must be below this */

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
    uint64_t returned_early;  /* a copy call that returned before its copy ended: the
                               * host did not wait for it (GAR_IMPORT_EARLY_RETURN_NS) */
    /* Calls whose correlation id an earlier call of their process (rank)
     * has too: kept (real producers write them), each op joined to the
     * first of them to start. */
    uint64_t duplicate_correlation;
} gar_import_counts;

/* A copy call (cudaMemcpy, a pageable device-to-host cudaMemcpyAsync) is a
 * wait only when it returned after its copy ended.  The profilers' host and
 * GPU clocks agree to about a microsecond (a cuda_sync record ends 0-1 us
 * before its call returns; a kernel can start a microsecond before its launch
 * call is seen to return), so a call that returned more than five times that
 * before its copy's end did not block on the copy. */
#define GAR_IMPORT_EARLY_RETURN_NS 5000u

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

#endif
