/* experiments/sweep/db_convert.h — the steps from an older schema version
 * (3 or 4) up to today's (db_convert.c).  For experiments/sweep/db*.c only. */
#ifndef GAR_DB_CONVERT_H
#define GAR_DB_CONVERT_H

#include <gar/error.h>

#include "sweep/db_base.h"

/* Converts the writer's `s` to today's schema version in one transaction,
 * a step at a time; a file already there (or converted meanwhile by
 * another process) is left as it is.  Returns 0, or -GAR_E_IO (rolled
 * back). */
int gar_db_convert_to_current(gar_db *s, gar_error *err);

#endif
