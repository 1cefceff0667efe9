/* experiments/report/report_notes.c — run_notes and failed runs, read back. */
#include "report/report_notes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/format.h"
#include "report/plan_names.h"
#include "sweep/short_names.h"
#include "sweep/sweep_spec.h"

/* What a failed read of the notes was doing, as its refusal says. */
static const char reading[] = "read the notes of";

/* Whether the database has the table run_notes. */
static int has_notes(gar_db *db, gar_error *err)
{
    return gar_results_any(db,
                           "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                           " AND name = 'run_notes'",
                           reading, err);
}

int gar_report_notes_read(gar_db *db, gar_report_notes *out, gar_error *err)
{
    memset(out, 0, sizeof *out);
    int stored = has_notes(db, err);
    if (stored < 0)
        return stored;
    out->stored = stored == 1;
    static const char failed[] =
        "SELECT r.trace, t.name, r.host, h.name, r.mode, r.plan, r.estimator, r.seed,"
        " 'failed' AS note, 1, NULL, 'the run failed: error ' || coalesce(r.error_code, '?')"
        " || ': ' || coalesce(r.error, '')"
        " FROM runs r JOIN traces t ON t.trace = r.trace JOIN hosts h ON h.host = r.host"
        " WHERE r.status = 'failed'";
    static const char notes[] =
        " UNION ALL SELECT n.trace, t.name, n.host, h.name, n.mode, n.plan, n.estimator,"
        " n.seed, n.note, n.count, n.worst_ns, n.message"
        " FROM run_notes n JOIN traces t ON t.trace = n.trace JOIN hosts h ON h.host = n.host";
    static const char order[] = " ORDER BY 2, 4, 5, 6, 7, 8, 9";
    char sql[sizeof failed + sizeof notes + sizeof order];
    gar_format(sql, sizeof sql, "%s%s%s", failed, out->stored ? notes : "", order);
    gar_short_names names;
    int named = gar_short_names_read(db, &names, err);
    if (named < 0)
        return named;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK) {
        gar_short_names_free(&names);
        return gar_results_fault(db, reading, err);
    }
    size_t capacity = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->count == capacity) {
            capacity = capacity > 0 ? 2 * capacity : 64;
            gar_report_note *bigger = realloc(out->note, capacity * sizeof *bigger);
            if (bigger == NULL) {
                sqlite3_finalize(st);
                gar_short_names_free(&names);
                gar_report_notes_free(out);
                return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the notes", "exhausted");
            }
            out->note = bigger;
        }
        gar_report_note *n = &out->note[out->count++];
        memset(n, 0, sizeof *n);
        char name[GAR_RESULTS_TEXT];
        gar_results_copy_text(st, 0, n->trace, sizeof n->trace);
        gar_results_copy_text(st, 1, name, sizeof name);
        gar_short_names_copy(&names, false, n->trace, name, n->trace_short,
                             sizeof n->trace_short);
        gar_results_copy_text(st, 2, n->host, sizeof n->host);
        gar_results_copy_text(st, 3, name, sizeof name);
        gar_short_names_copy(&names, true, n->host, name, n->host_short,
                             sizeof n->host_short);
        gar_results_copy_text(st, 4, n->mode, sizeof n->mode);
        gar_results_copy_text(st, 5, n->plan, sizeof n->plan);
        gar_results_copy_text(st, 6, n->estimator, sizeof n->estimator);
        n->seed = (uint64_t)sqlite3_column_int64(st, 7);
        gar_results_copy_text(st, 8, n->note, sizeof n->note);
        n->count = (uint64_t)sqlite3_column_int64(st, 9);
        n->has_worst = sqlite3_column_type(st, 10) != SQLITE_NULL;
        n->worst_ns = sqlite3_column_int64(st, 10);
        gar_results_copy_text(st, 11, n->message, sizeof n->message);
    }
    sqlite3_finalize(st);
    gar_short_names_free(&names);
    if (rc != SQLITE_DONE) {
        gar_report_notes_free(out);
        return gar_results_fault(db, reading, err);
    }
    return 0;
}

void gar_report_notes_free(gar_report_notes *notes)
{
    free(notes->note);
    notes->note = NULL;
    notes->count = 0;
}

bool gar_report_note_of(const gar_report_note *n, const gar_arm_summary *a)
{
    return strcmp(n->trace, a->trace) == 0 && strcmp(n->host, a->host) == 0 &&
           strcmp(n->mode, a->mode) == 0 && strcmp(n->plan, a->plan) == 0 &&
           strcmp(n->estimator, a->estimator) == 0;
}

/* The distinct plans of the arms of (trace, host, mode) that note `n` is
 * of, which its arm is named among. */
static size_t group_plans(const gar_arm_list *arms, const gar_report_note *n, const char **plans,
                          size_t max)
{
    size_t count = 0;
    for (size_t i = 0; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (strcmp(a->trace, n->trace) != 0 || strcmp(a->host, n->host) != 0 ||
            strcmp(a->mode, n->mode) != 0)
            continue;
        bool seen = false;
        for (size_t j = 0; j < count && !seen; j++)
            seen = strcmp(plans[j], a->plan) == 0;
        if (!seen && count < max)
            plans[count++] = a->plan;
    }
    return count;
}

/* In a version 4 file, how many of its ok runs were made before version 4
 * (no ci_level: converted from version 3, or merged from such a file), and
 * so took no notes, into `*older` of `*total`.  Returns 0 or -GAR_E_IO. */
static int runs_without_notes(gar_db *db, uint64_t *older, uint64_t *total,
                              gar_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db),
                           "SELECT count(*) FILTER (WHERE ci_level IS NULL), count(*) FROM runs"
                           " WHERE status = 'ok'",
                           -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, reading, err);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *older = (uint64_t)sqlite3_column_int64(st, 0);
        *total = (uint64_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : gar_results_fault(db, reading, err);
}

int gar_report_list_notes(gar_db *db, FILE *out, gar_error *err)
{
    gar_arm_list arms = { NULL, 0 };
    gar_report_notes notes = { NULL, 0, false };
    int rc = gar_results_arms(db, &arms, err);
    if (rc == 0)
        rc = gar_report_notes_read(db, &notes, err);
    const char *plans[256];
    for (size_t i = 0; rc == 0 && i < notes.count; i++) {
        const gar_report_note *n = &notes.note[i];
        char name[GAR_RESULTS_TEXT * 2];
        size_t count = group_plans(&arms, n, plans, 256);
        gar_arm_name_among(n->plan, n->estimator, plans, count, name, sizeof name);
        fprintf(out, "note: %s | %s | %s | %s | seed %llu | %s | %llu wait%s", n->trace_short,
                n->host_short, n->mode, name, (unsigned long long)n->seed, n->note,
                (unsigned long long)n->count, n->count == 1 ? "" : "s");
        if (n->has_worst)
            fprintf(out, ", worst %lld ns", (long long)n->worst_ns);
        fprintf(out, " | %s\n", n->message);
    }
    if (rc == 0)
        fprintf(out, "notes: %zu\n", notes.count);
    /* A count of 0 from runs that could not hold a note would read as "all well". */
    uint64_t older = 0, total = 0;
    if (rc == 0 && !notes.stored)
        fprintf(out, "notes_stored: no (a schema version 3 database: its runs were made "
                     "before gar stored notes, so only failed runs are listed)\n");
    else if (rc == 0 && (rc = runs_without_notes(db, &older, &total, err)) == 0 && older > 0)
        fprintf(out, "notes_stored: not for %llu of %llu ok runs (made by a gar before schema "
                     "version 4, which took no notes)\n",
                (unsigned long long)older, (unsigned long long)total);
    gar_report_notes_free(&notes);
    gar_arm_list_free(&arms);
    return rc;
}
