/* experiments/sweep/results_runs.c — single stored runs read back
 * (results.h): a run by id or by its arm, replayed again (gar_results_rerun:
 * the figures it must reproduce), and the note counts. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "sweep/results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/bands.h>

#include "sweep/gar_source.h"
#include "sim/replay_metric_table.h"
#include "sweep/format.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

static const char run_columns[] =
    "SELECT r.id, r.trace, t.name, r.host, h.name, r.plan, r.estimator, r.mode, r.seed"
    " FROM runs r JOIN traces t ON t.trace = r.trace JOIN hosts h ON h.host = r.host"
    " WHERE r.status = 'ok' AND ";

static int read_key(gar_db *db, sqlite3_stmt *st, gar_run_key *out, gar_error *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return 0;
    if (rc != SQLITE_ROW)
        return gar_results_fault(db, "read a run of", err);
    memset(out, 0, sizeof *out);
    gar_short_names names;
    int named = gar_short_names_read(db, &names, err);
    if (named < 0)
        return named;
    char name[GAR_RESULTS_TEXT];
    out->id = sqlite3_column_int64(st, 0);
    gar_results_copy_text(st, 1, out->trace, sizeof out->trace);
    gar_results_copy_text(st, 2, name, sizeof name);
    gar_short_names_copy(&names, false, out->trace, name, out->trace_short,
                         sizeof out->trace_short);
    gar_results_copy_text(st, 3, out->host, sizeof out->host);
    gar_results_copy_text(st, 4, name, sizeof name);
    gar_short_names_copy(&names, true, out->host, name, out->host_short,
                         sizeof out->host_short);
    gar_short_names_free(&names);
    gar_results_copy_text(st, 5, out->plan, sizeof out->plan);
    gar_results_copy_text(st, 6, out->estimator, sizeof out->estimator);
    gar_results_copy_text(st, 7, out->mode, sizeof out->mode);
    out->seed = (uint64_t)sqlite3_column_int64(st, 8);
    return 1;
}

int gar_results_run(gar_db *db, int64_t id, gar_run_key *out, gar_error *err)
{
    char sql[512];
    gar_format(sql, sizeof sql, "%sr.id = ?1", run_columns);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "look a run up in", err);
    sqlite3_bind_int64(st, 1, id);
    int rc = read_key(db, st, out, err);
    sqlite3_finalize(st);
    return rc;
}

int gar_results_find_run(gar_db *db, const char *trace, const char *host, const char *mode,
                         const char *plan, const char *estimator, gar_run_key *out,
                         gar_error *err)
{
    char sql[768];
    gar_format(sql, sizeof sql,
             "%sr.trace = ?1 AND r.host = ?2 AND r.mode = ?3 AND r.plan = ?4 AND r.estimator = ?5"
             " ORDER BY r.seed LIMIT 1",
             run_columns);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "look a run up in", err);
    const char *texts[] = { trace, host, mode, plan, estimator };
    for (int i = 0; i < 5; i++)
        sqlite3_bind_text(st, i + 1, texts[i], -1, SQLITE_STATIC);
    int rc = read_key(db, st, out, err);
    sqlite3_finalize(st);
    return rc;
}

/* What a re-run needs of a stored run: its metrics that a re-run must
 * reproduce (GAR_METRIC_RERUN), and the build that made it. */
typedef struct stored_check {
    gar_replay_metrics metrics; /* those metrics only; the rest 0 */
    char version[64], commit[64];
} stored_check;

/* A stored metric read back by its TYPE (sim/replay_metric_table.h). */
static void read_COUNT(sqlite3_stmt *st, int column, uint64_t *out)
{
    *out = (uint64_t)sqlite3_column_int64(st, column);
}

static void read_FRACTION(sqlite3_stmt *st, int column, double *out)
{
    *out = sqlite3_column_double(st, column);
}

/* Whether the re-run's metrics `m` are the stored ones (those it must
 * reproduce). */
static bool reproduces(const gar_replay_metrics *m, const gar_replay_metrics *stored)
{
    bool same = true;
#define SAME_METRIC(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...)                                   \
    same = same && ((GAR_METRIC_USES(__VA_ARGS__) & GAR_METRIC_RERUN) == 0 ||                      \
                    m->FIELD == stored->FIELD);
    GAR_REPLAY_METRICS(SAME_METRIC, SAME_METRIC)
#undef SAME_METRIC
    return same;
}

static int read_sources(gar_db *db, const gar_run_key *key, char **trace_source,
                        char **host_text, stored_check *check, gar_error *err)
{
    char sql[1024];
    size_t n = (size_t)gar_format(sql, sizeof sql, "SELECT t.source, h.profile, r.gar_version, "
                                                   "r.source_commit");
#define RERUN_COLUMN(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...)                                  \
    if ((GAR_METRIC_USES(__VA_ARGS__) & GAR_METRIC_RERUN) != 0 && n < sizeof sql)                  \
        n += (size_t)gar_format(sql + n, sizeof sql - n, ", r." #NAME UNIT);
    GAR_REPLAY_METRICS(RERUN_COLUMN, RERUN_COLUMN)
#undef RERUN_COLUMN
    if (n < sizeof sql)
        gar_format(sql + n, sizeof sql - n,
                   " FROM runs r JOIN traces t ON t.trace = r.trace JOIN hosts h ON h.host = r.host"
                   " WHERE r.id = ?1");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "read a run's sources from", err);
    sqlite3_bind_int64(st, 1, key->id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return gar_results_fault(db, "read a run's sources from", err);
    }
    *trace_source = strdup((const char *)sqlite3_column_text(st, 0));
    *host_text = strdup((const char *)sqlite3_column_text(st, 1));
    gar_results_copy_text(st, 2, check->version, sizeof check->version);
    gar_results_copy_text(st, 3, check->commit, sizeof check->commit);
    int column = 4;
#define READ_RERUN(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...)                                    \
    if ((GAR_METRIC_USES(__VA_ARGS__) & GAR_METRIC_RERUN) != 0)                                    \
        read_##TYPE(st, column++, &check->metrics.FIELD);
    GAR_REPLAY_METRICS(READ_RERUN, READ_RERUN)
#undef READ_RERUN
    sqlite3_finalize(st);
    if (*trace_source == NULL || *host_text == NULL) {
        free(*trace_source);
        free(*host_text);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a re-run", "exhausted");
    }
    return 0;
}

int gar_results_rerun(gar_db *db, const gar_run_key *key, gar_replay_observer on_wait,
                      void *context, gar_error *err)
{
    char *source = NULL, *host_text = NULL;
    stored_check want;
    memset(&want, 0, sizeof want);
    int rc = read_sources(db, key, &source, &host_text, &want, err);
    if (rc < 0)
        return rc;
    gar_sweep_trace trace;
    gar_host_profile host;
    gar_bands bands;
    gar_estimator_spec estimator = gar_estimator_spec_default();
    rc = gar_sweep_trace_load(source, NULL, &trace, err);
    if (rc == 0 && strcmp(trace.hash, key->trace) != 0) {
        char why[160];
        gar_format(why, sizeof why, "its content hash is now %s, not the sweep's %s", trace.hash,
                 key->trace);
        rc = gar_error_set(err, GAR_E_IO, 3, source, "re-run the trace", why);
        gar_sweep_trace_free(&trace);
    }
    if (rc < 0) {
        free(source);
        free(host_text);
        return rc;
    }
    rc = gar_host_profile_parse(host_text, strlen(host_text), key->host_short, &host, err);
    if (rc == 0)
        rc = gar_bands_parse(key->plan, &bands, err);
    char ran[GAR_BANDS_LABEL_BYTES];
    if (rc == 0)
        gar_sweep_resolve(&bands, &host, &bands, ran, sizeof ran);
    if (rc == 0 && strcmp(key->estimator, GAR_SWEEP_NO_ESTIMATOR_LABEL) != 0)
        rc = gar_estimator_spec_parse(key->estimator, &estimator, err);
    int mode = gar_replay_mode_from_name(key->mode);
    gar_replay_metrics m = { 0 };
    if (rc == 0)
        rc = gar_sweep_replay(&trace, &bands, &estimator, &host,
                              mode < 0 ? GAR_REPLAY_OPEN : (gar_replay_mode)mode, key->seed,
                              on_wait, context, NULL, &m, NULL, err);
    if (rc == 0 && !reproduces(&m, &want.metrics)) {
        char what[64], why[400];
        gar_format(what, sizeof what, "re-run run %lld of", (long long)key->id);
        bool same_build = strcmp(want.version, GAR_VERSION) == 0 &&
                          strcmp(want.commit, GAR_SOURCE_COMMIT) == 0;
        if (same_build)
            gar_format(why, sizeof why,
                       "the replay no longer gives its stored metrics (the run was made by "
                       "this build of gar: was the row edited?)");
        else
            gar_format(why, sizeof why,
                       "the replay no longer gives its stored metrics (the run was made by gar "
                       "%s, source %s; this is gar %s, source %s)",
                       want.version, want.commit, GAR_VERSION, GAR_SOURCE_COMMIT);
        rc = gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), what, why);
        if (!same_build)
            rc = GAR_RESULTS_OTHER_BUILD;
    }
    gar_sweep_trace_free(&trace);
    free(source);
    free(host_text);
    return rc;
}

int gar_results_note_counts(gar_db *db, gar_results_note_count *out, size_t *count,
                            uint64_t *noted_runs, gar_error *err)
{
    static const char by_note[] = "SELECT note, count(*) FROM run_notes GROUP BY note"
                                  " ORDER BY count(*) DESC, note";
    static const char noted[] = "SELECT count(*) FROM (SELECT DISTINCT trace, plan, estimator,"
                                " host, mode, seed FROM run_notes)";
    *count = 0;
    *noted_runs = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), by_note, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "count the notes of", err);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *count < GAR_RESULTS_NOTES_MAX) {
        gar_results_note_count *n = &out[(*count)++];
        gar_results_copy_text(st, 0, n->note, sizeof n->note);
        n->runs = (uint64_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return gar_results_fault(db, "count the notes of", err);
    if (sqlite3_prepare_v2(gar_db_sqlite(db), noted, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "count the notes of", err);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *noted_runs = (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : gar_results_fault(db, "count the notes of", err);
}
