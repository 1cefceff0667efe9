/* experiments/import/import_rules.h — the mapping rules of import.h, written
 * once, over the lookups that either home of the records provides: the
 * in-memory arrays (import_lookup.c) or the spilled SQLite database
 * (import_spill.c).  Which op a synchronizing call waited for, on which
 * stream, and why a call makes no row are decided here only, so the two homes
 * cannot drift apart; each only answers "find this record".
 *
 * Internal to the importers; nothing here is thread-safe. */
#ifndef GAR_IMPORT_RULES_H
#define GAR_IMPORT_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "import/import_records.h"
#include "import/import_rows.h"
#include "sim/trace/trace.h"

/* Ops of one (process, device, stream): the in-memory mapping's runs of its
 * sorted op array (first, count); the spilled mapping lists the same runs, in
 * the same (process, device, stream) order, with first and count unused. */
typedef struct gar_import_run {
    uint32_t process, device, stream;
    size_t first, count;
} gar_import_run;

/* What the rules ask of the records' home.  Every lookup answers as the
 * sorted records would: among equal keys, the same record in either home.  A
 * lookup that fails (the database) keeps its failure in `ctx`, answers "none",
 * and its owner reports the failure after the call it was mapping. */
typedef struct gar_import_lookup {
    void *ctx;
    const gar_import *im;      /* options and processes */
    const gar_import_run *run; /* every run, in (process, device, stream) order */
    size_t runs;
    /* The start of the earliest call of (process, correlation): an op's
     * launch or an event's record.  False when there is none (or for
     * correlation 0). */
    bool (*call_start)(void *ctx, uint32_t process, uint64_t correlation, uint64_t *start);
    /* As call_start, with that call's end too. */
    bool (*call_span)(void *ctx, uint32_t process, uint64_t correlation, uint64_t *start,
                      uint64_t *end);
    /* The sync record of (process, correlation); false when none. */
    bool (*sync)(void *ctx, uint32_t process, uint64_t correlation, gar_import_sync *out);
    /* The op of (process, correlation); false when none. */
    bool (*op)(void *ctx, uint32_t process, uint64_t correlation, gar_import_op *out);
    /* The op of `run` that started last before `before` among those launched
     * no later than `launched_by`; an op whose launch is not in the trace ends
     * the search and is the answer.  False when there is none.  Fills at
     * least the op's process, correlation and end. */
    bool (*last_op)(void *ctx, const gar_import_run *run, uint64_t before, uint64_t launched_by,
                    gar_import_op *out);
    /* The device and stream of the op that `call`'s host thread launched last
     * before `call` began; false when the thread launched nothing before it. */
    bool (*last_launch)(void *ctx, const gar_import_call *call, uint32_t *device,
                        uint32_t *stream);
} gar_import_lookup;

/* The run of exactly (process, device, stream) among `runs` sorted runs, or
 * NULL. */
const gar_import_run *gar_import_exact_run(const gar_import_run *run, size_t runs,
                                           uint32_t process, uint32_t device, uint32_t stream);

/* Maps one host call: appends its row to `rows` when it waited for GPU work
 * (`step_rows` of the row is 1 when its stream was inferred), else counts why it
 * made none into `counts`; calls that do not synchronize are passed over.
 * Returns 0 or gar_import_rows_add's failure. */
int gar_import_map_call(const gar_import_lookup *lookup, const gar_import_call *call,
                        gar_import_rows *rows, gar_import_counts *counts, gar_error *err);

/* Maps one kernel with --wait-on kernel: appends the row of a host that
 * waits for it from its launch call's return, or counts why there is none
 * (no launch, inconsistent, no stream).  Ops that are not kernels are passed
 * over.  Returns 0 or gar_import_rows_add's failure. */
int gar_import_map_kernel(const gar_import_lookup *lookup, const gar_import_op *op,
                          gar_import_rows *rows, gar_import_counts *counts, gar_error *err);

/* The trace's stream id of a run: device × 65536 + stream for one process
 * (UINT32_MAX when an id is too large), the run's index in `runs` for
 * several. */
uint32_t gar_import_trace_stream(const gar_import *im, const gar_import_run *runs,
                                 const gar_import_run *run);

/* The point of a call of sync name `name` naming `named_stream` (a trace
 * stream id, UINT32_MAX for device-wide) in process index `process`. */
uint64_t gar_import_point(const gar_import *im, int name, uint32_t named_stream,
                          uint32_t process);

/* The point of a kernel wait: the FNV-1a-64 of the kernel's name
 * (`name_hash`) carried on over the four little-endian bytes of its trace
 * stream, then, with several processes, of the process id. */
uint64_t gar_import_kernel_point(const gar_import *im, uint64_t name_hash, uint32_t stream,
                                 uint32_t process);

#endif
