/* experiments/report/report_notes.h — the diagnostics of a sweep's runs, for
 * the report to flag beside the arms and for `gar report --notes` to list.
 *
 * A note is one thing worth knowing about one run: a short stable name
 * (never_slept, rarely_slept, late_wakes, backstop_hits, fallback,
 * few_waits, ...), how many waits it concerns, the worst of them where that
 * has a size, and a line for people.  The sweep stores them in run_notes
 * (schema 4 on); a failed run is a note too ("failed", its error), so an
 * older database still lists its failed seeds. */
#ifndef GAR_REPORT_NOTES_H
#define GAR_REPORT_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gar/error.h>

#include "sweep/db.h"
#include "sweep/results.h"

typedef struct gar_report_note {
    char trace[GAR_RESULTS_TEXT];       /* content hash */
    char trace_short[GAR_RESULTS_TEXT];
    char host[GAR_RESULTS_TEXT];
    char host_short[GAR_RESULTS_TEXT];
    char mode[16];
    char plan[GAR_RESULTS_PLAN_TEXT];
    char estimator[GAR_RESULTS_TEXT];
    uint64_t seed;
    char note[48];                      /* never_slept, failed, ... */
    uint64_t count;                     /* waits it concerns (failed: 1) */
    bool has_worst;
    int64_t worst_ns;                   /* the worst of them, where it has a size */
    char message[512];
} gar_report_note;

typedef struct gar_report_notes {
    gar_report_note *note; /* by trace name, host name, mode, plan, estimator, seed, note */
    size_t count;
    bool stored;           /* the database has run_notes (schema 4 on) */
} gar_report_notes;

/* Reads every note of the database, failed runs included.  Returns 0
 * (free with gar_report_notes_free) or -GAR_E_IO / -GAR_E_CAPACITY. */
int gar_report_notes_read(gar_db *db, gar_report_notes *out, gar_error *err);
void gar_report_notes_free(gar_report_notes *notes);

/* Prints every note of the database on `out`, one line each,
 *   note: TRACE | HOST | MODE | ARM | seed S | NAME | N waits[, worst W] | MESSAGE
 * (ARM named among its group's plans, as the report names it), then
 * "notes: COUNT", and "notes_stored: no (...)" for a version 3 file, which
 * holds none, or "notes_stored: not for N of M ok runs (...)" for a file
 * holding runs made before version 4.  Returns 0 or the reading's refusal. */
int gar_report_list_notes(gar_db *db, FILE *out, gar_error *err);

/* Whether note `n` is of the arm `a`'s runs. */
bool gar_report_note_of(const gar_report_note *n, const gar_arm_summary *a);

#endif
