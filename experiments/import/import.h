/* experiments/import/import.h — profiler traces into gar-trace v1.
 *
 * Two readers (a PyTorch profiler / Kineto Chrome-trace JSON, and an Nsight
 * Systems SQLite export) collect the same three kinds of record into a
 * gar_import; one mapping (gar_import_finish) turns them into one trace row per
 * host call that waited for GPU work.  Memory comes through the allocation
 * hook (sim/alloc.h; yajl's own excepted, as it does not check them): a
 * failed allocation is refused with GAR_E_CAPACITY and an empty trace.  The mapping, in full, is in
 * data/README.md ("Importing profiles"); in short:
 *
 *   start  = the synchronizing call's start (host clock)
 *   done   = the end of the last GPU op the call waited for
 *   submit = the start of the host call that launched that op (same correlation)
 *   stream = device × 65536 + the op's stream id
 *   point  = FNV-1a-64 of the call's name (version suffix dropped), then the
 *            four little-endian bytes of the stream the call names
 *            (0xFFFFFFFF for a device-wide sync)
 *
 * "The last GPU op the call waited for" is the op that started last, before
 * the call ended, among the ops launched no later than the call began (for an
 * event sync: no later than the event was recorded), on the stream the call
 * names (stream sync: its stream; event sync: the event's stream; memcpy: the
 * copy's own stream), or — for a device sync — the latest-ending such op over
 * every stream of the device.  Times are moved so that the earliest submit of
 * the trace is 0.
 *
 * Ownership: a gar_import owns its arrays; gar_import_free releases them.
 * Nothing here is thread-safe; use one gar_import per thread. */
#ifndef GAR_IMPORT_H
#define GAR_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "trace.h"

#define GAR_IMPORT_ANY UINT32_MAX     /* device or stream not known */
#define GAR_IMPORT_ID_LIMIT 65536u    /* device and stream ids must be below this */

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
    uint32_t device, stream;
    bool dtoh_pageable;   /* a device-to-pageable-host copy (blocks its caller) */
} gar_import_op;

/* A host runtime or driver call. */
typedef struct gar_import_call {
    uint64_t start_ns, end_ns;
    uint64_t correlation; /* 0: none */
    int name;             /* index of a synchronizing name (gar_import_sync_name), or -1 */
} gar_import_call;

/* What the profiler recorded about a synchronization (Kineto cuda_sync, Nsight
 * CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), joined to its call by correlation. */
typedef struct gar_import_sync {
    uint64_t correlation;
    uint32_t device;            /* GAR_IMPORT_ANY when not recorded */
    uint32_t stream;            /* the stream synchronized, or GAR_IMPORT_ANY */
    uint32_t event_stream;      /* an event sync: the event's stream, or GAR_IMPORT_ANY */
    uint64_t event_correlation; /* an event sync: its record call's correlation, or 0 */
} gar_import_sync;

/* Why a synchronizing call made no row; each is counted. */
typedef struct gar_import_counts {
    uint64_t sync_calls;   /* synchronizing calls found */
    uint64_t waits;        /* rows made */
    uint64_t no_gpu_op;    /* nothing on the awaited stream(s) to wait for */
    uint64_t no_stream;    /* the awaited stream is not recorded (or its id is too large) */
    uint64_t no_launch;    /* the awaited op's launch call is not in the trace */
    uint64_t inconsistent; /* the op ends before its launch began (clock skew) */
    uint64_t out_of_order; /* would make its stream's submit or done go backwards */
} gar_import_counts;

typedef struct gar_import {
    gar_import_op *op;
    size_t ops, ops_cap;
    gar_import_call *call;
    size_t calls, calls_cap;
    gar_import_sync *sync;
    size_t syncs, syncs_cap;
} gar_import;

void gar_import_init(gar_import *im);
void gar_import_free(gar_import *im);

/* Append one record.  Return 0 or -GAR_E_CAPACITY. */
int gar_import_add_op(gar_import *im, const gar_import_op *op, gar_error *err);
int gar_import_add_call(gar_import *im, const gar_import_call *call, gar_error *err);
int gar_import_add_sync(gar_import *im, const gar_import_sync *sync, gar_error *err);

/* The index of a synchronizing call's name, or -1 for any other call.  A
 * trailing version suffix ("_v3020") is ignored.  `len` bytes, no NUL needed. */
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

/* Kineto (PyTorch profiler) Chrome-trace JSON, plain or gzip-compressed (told
 * apart by content), streamed through yajl.  `out` as for gar_import_finish.  Returns 0, -GAR_E_IO,
 * -GAR_E_INVALID_TRACE or -GAR_E_CAPACITY.  Malformed JSON is refused with
 * its line and column (where yajl stopped: at the offending byte or just past
 * it); a kept event without usable times with "event N" (1-based, in the
 * events array) and the key. */
int gar_import_kineto_file(const char *path, gar_trace *out, gar_import_counts *counts,
                           gar_error *err);

/* As gar_import_kineto_file, from uncompressed JSON in memory. */
int gar_import_kineto_memory(const void *data, size_t size, const char *name, gar_trace *out,
                             gar_import_counts *counts, gar_error *err);

/* An Nsight Systems SQLite export (nsys export --type sqlite).  A missing
 * table is -GAR_E_INVALID_TRACE naming it; SQLite running out of memory is
 * -GAR_E_CAPACITY; other SQLite failures are -GAR_E_IO. */
int gar_import_nsys_file(const char *path, gar_trace *out, gar_import_counts *counts,
                         gar_error *err);

#endif
