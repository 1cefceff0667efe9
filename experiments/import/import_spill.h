/* experiments/import/import_spill.h — the importers' records past their memory
 * budget: a temporary SQLite database and the mapping done over it.
 *
 * gar_import keeps its records in arrays until they would take more than the
 * record budget (import.h); then gar_import_spill_open moves them into a
 * private on-disk SQLite database (deleted when closed, and by SQLite at once
 * on Unix, so no exit path leaves it behind) and later records go there.  The
 * mapping's rules (import_rules.h) then look records up with indexed queries
 * that answer as the in-memory arrays do (import_lookup.c), with SQLite's page
 * cache and sorter bounded by GAR_IMPORT_SPILL_CACHE.
 *
 * Internal to the importers; nothing here is thread-safe. */
#ifndef GAR_IMPORT_SPILL_H
#define GAR_IMPORT_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "import/import_records.h"
#include "import/import_rows.h"
#include "import/import_rules.h"
#include "sim/trace/trace.h"

#define GAR_IMPORT_SPILL_CACHE (16u << 20) /* bytes of SQLite page cache */

/* Moves `im`'s records into a new temporary database (im->spill) and frees
 * its arrays.  Returns 0, -GAR_E_IO or -GAR_E_CAPACITY (im unchanged then). */
int gar_import_spill_open(gar_import *im, gar_error *err);

/* Append one record to the database.  Return 0, -GAR_E_IO or -GAR_E_CAPACITY. */
int gar_import_spill_op(gar_import_spill *s, const gar_import_op *op, gar_error *err);
int gar_import_spill_call(gar_import_spill *s, const gar_import_call *call, gar_error *err);
int gar_import_spill_sync(gar_import_spill *s, const gar_import_sync *sync, gar_error *err);

/* The mapping over the database: appends one row per call that waited, as
 * the in-memory mapping does before ordering them (`step_rows` of a row is 1 when
 * its stream was inferred), fills `*runs` (owned by the caller, freed with
 * gar_free) and counts into `counts`.  Returns 0, -GAR_E_IO or -GAR_E_CAPACITY. */
int gar_import_spill_map(gar_import *im, gar_import_rows *rows, gar_import_run **runs, size_t *nruns,
                         gar_import_counts *counts, gar_error *err);

/* Closes and deletes the database; NULL is fine. */
void gar_import_spill_close(gar_import_spill *s);

#endif
