/* experiments/import/import_spill.h — the importers' records past their memory
 * budget: a temporary SQLite database and the mapping done over it.
 *
 * gar_import keeps its records in arrays until they would take more than the
 * record budget (import.h); then gar_import_spill_open moves them into a
 * private on-disk SQLite database (deleted when closed, and by SQLite at once
 * on Unix, so no exit path leaves it behind) and later records go there.  The
 * mapping then runs as indexed queries that give the same rows as the
 * in-memory mapping (import_map.c), with SQLite's page cache and sorter
 * bounded by GAR_IMPORT_SPILL_CACHE.
 *
 * Internal to the importers; nothing here is thread-safe. */
#ifndef GAR_IMPORT_SPILL_H
#define GAR_IMPORT_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "import.h"
#include "trace.h"

#define GAR_IMPORT_SPILL_CACHE (16u << 20) /* bytes of SQLite page cache */

/* Ops of one (process, device, stream): the in-memory mapping's runs of its
 * sorted op array (first, count); the spilled mapping lists the same runs, in
 * the same (process, device, stream) order, with first and count unused. */
typedef struct gar_import_run {
    uint32_t process, device, stream;
    size_t first, count;
} gar_import_run;

/* Moves `im`'s records into a new temporary database (im->spill) and frees
 * its arrays.  Returns 0, -GAR_E_IO or -GAR_E_CAPACITY (im unchanged then). */
int gar_import_spill_open(gar_import *im, gar_error *err);

/* Append one record to the database.  Return 0, -GAR_E_IO or -GAR_E_CAPACITY. */
int gar_import_spill_op(gar_import_spill *s, const gar_import_op *op, gar_error *err);
int gar_import_spill_call(gar_import_spill *s, const gar_import_call *call, gar_error *err);
int gar_import_spill_sync(gar_import_spill *s, const gar_import_sync *sync, gar_error *err);

/* The mapping over the database: appends one row per call that waited, as
 * the in-memory mapping does before ordering them (`rows` of a row is 1 when
 * its stream was inferred), fills `*runs` (owned by the caller, freed with
 * gar_free) and counts into `counts`.  Returns 0, -GAR_E_IO or -GAR_E_CAPACITY. */
int gar_import_spill_map(gar_import *im, gar_trace *rows, gar_import_run **runs, size_t *nruns,
                         gar_import_counts *counts, gar_error *err);

/* Closes and deletes the database; NULL is fine. */
void gar_import_spill_close(gar_import_spill *s);

/* Shared with the in-memory mapping (import_map.c). */
uint64_t gar_import_point(const gar_import *im, int name, uint32_t named_stream,
                          uint32_t process);
uint32_t gar_import_trace_stream(const gar_import *im, const gar_import_run *runs,
                                 const gar_import_run *run);

#endif
