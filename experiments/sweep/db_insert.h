/* experiments/sweep/db_insert.h — a writer's prepared statements
 * (db_insert.c), behind gar_db_has, gar_db_insert and gar_db_add_params
 * (db.h).  For experiments/sweep/db*.c only. */
#ifndef GAR_DB_INSERT_H
#define GAR_DB_INSERT_H

#include <gar/error.h>

#include "sweep/db_base.h"

/* Prepares the key lookup and the inserts of runs, streams, parameters and
 * notes on `s`.  Returns 0, or -GAR_E_IO (gar_db_close finalizes what was
 * prepared). */
int gar_db_prepare_statements(gar_db *s, gar_error *err);

#endif
