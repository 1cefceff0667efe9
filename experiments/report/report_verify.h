/* experiments/report/report_verify.h — the report's "Simulation vs this machine"
 * section: the database's verifications (gar verify --sweep) as a table,
 * and for each a chart of its real and simulated overshoot CDFs. */
#ifndef GAR_REPORT_VERIFY_H
#define GAR_REPORT_VERIFY_H

#include <stdio.h>

#include <gar/error.h>

#include "report/plot.h"
#include "sweep/db.h"

/* Draws the verify-N plots into `dir` (the staging folder while `files`
 * stages: they appear with the rest of the report), adding them to `files`,
 * and writes the section's HTML to `html`; writes nothing when the database
 * holds no verification.  Returns 0, -GAR_E_IO (the database, gnuplot,
 * files) or -GAR_E_CAPACITY (no memory). */
int gar_report_verifications(gar_db *db, const char *dir, gar_plot_files *files,
                             FILE *html, gar_error *err);

#endif
