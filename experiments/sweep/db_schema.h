/* experiments/sweep/db_schema.h — the sweep database's schema (db_schema.c
 * owns it): the runs columns named by the metric table, the CREATE
 * statements, the check that a file is a gar database (gar_db_check, db.h)
 * and the making of a new one.  For experiments/sweep/db*.c only. */
#ifndef GAR_DB_SCHEMA_H
#define GAR_DB_SCHEMA_H

#include <stdbool.h>

#include <gar/error.h>

#include "sim/replay_metric_table.h"
#include "sweep/db_base.h"

/* How many of each column list there is, counted from the metric table. */
#define GAR_DB_COUNT_NONE(...)
#define GAR_DB_COUNT_ONE(...) +1
#define GAR_DB_COUNT_TWO(...) +2
enum {
    GAR_DB_METRICS = 0 GAR_REPLAY_METRICS(GAR_DB_COUNT_ONE, GAR_DB_COUNT_ONE),
    GAR_DB_INTERVALS = 1 GAR_REPLAY_METRICS(GAR_DB_COUNT_NONE, GAR_DB_COUNT_TWO),
    GAR_DB_AUTO_COLUMNS = 6,
    GAR_DB_VERIFICATION_RUN_COLUMNS = 11,
};

/* The runs columns of the metrics, in the order they are bound; of the
 * confidence intervals (version 4: ci_level, then each quantile's lower and
 * upper end); of what an auto plan chose (version 5). */
extern const char *const gar_db_metric_columns[GAR_DB_METRICS];
extern const char *const gar_db_interval_columns[GAR_DB_INTERVALS];
extern const char *const gar_db_auto_columns[GAR_DB_AUTO_COLUMNS];

/* What version 4 added to verifications: each column's name, and what a
 * version 3 row holds there. */
extern const char *const gar_db_verification_run_column_pairs[GAR_DB_VERIFICATION_RUN_COLUMNS][2];

/* The CREATE statements of run_notes and of verifications, as today's
 * schema has them. */
extern const char gar_db_run_notes_table[];
extern const char gar_db_verifications_table[];

/* Whether `column` is one of the verification columns version 4 added. */
bool gar_db_is_verification_run_column(const char *column);

/* Creates the schema and its meta rows in the just-opened `s`, unless
 * another process did.  Returns 0, or -GAR_E_IO (another program's tables
 * included). */
int gar_db_create_schema(gar_db *s, gar_error *err);

#endif
