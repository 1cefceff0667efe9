/* experiments/import/import_lookup.h — the mapping over records held in
 * memory (import_lookup.c): the arrays sorted into tables, the lookups the
 * rules ask for (import_rules.h) answered over them, and the rows collected.
 * Records spilled to SQLite have their own (import_spill.h).  For
 * experiments/import/import_map.c only. */
#ifndef GAR_IMPORT_LOOKUP_H
#define GAR_IMPORT_LOOKUP_H

#include <stddef.h>

#include <gar/error.h>

#include "import/import_records.h"
#include "import/import_rows.h"
#include "import/import_rules.h"

/* The in-memory records and the tables built over them. */
typedef struct gar_import_mapper {
    gar_import *im;
    gar_import_run *run;
    size_t runs;
    const gar_import_op **by_corr; /* ops sorted by (process, correlation) */
    size_t by_corr_count;
    const gar_import_call **launch; /* calls that launched an op, by thread and start */
    size_t launches;
} gar_import_mapper;

/* Sorts the records of m->im into tables, then maps them (each call that
 * waited, or each kernel with --wait-on kernel) into `trace`, counting in
 * `counts` why a call made no row; m->run gets the streams met (free it).
 * Returns 0, or the refusal (-GAR_E_CAPACITY, an over-long trace's). */
int gar_import_collect_rows(gar_import_mapper *m, gar_import_rows *trace,
                            gar_import_counts *counts, gar_error *err);

#endif
