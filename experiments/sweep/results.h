/* experiments/sweep/results.h — a sweep database read back for plots and reports.
 *
 * An arm's summary is the mean, over its seeds, of the runs of one (trace,
 * host, mode, plan, estimator) that succeeded, with the least and the most
 * seed's figure beside it.  Failed runs are counted, not averaged.  Arms
 * come in a fixed order: by trace name, host name, mode, then plan (block,
 * poll, flag, each without then with predict, then bands, ties by label)
 * and estimator ("-" first, then by label).
 *
 * Which metrics a summary carries comes from the replay metric table
 * (sim/replay_metric_table.h): its rows flagged GAR_METRIC_ARM.  The query
 * reads each one's mean, least and most over the ok seeds (and a
 * quantile's interval envelope), and results.c's arm_places says which
 * field below keeps each figure; a figure no field keeps is read and
 * dropped.
 *
 * Re-running a stored run (gar_results_rerun) replays it again with a
 * per-wait observer, from the trace's recorded source and the host profile
 * text the database keeps, and checks that the replay reproduces the stored
 * metrics — so a plot drawn from per-wait data always matches the numbers
 * beside it, or is not drawn: refused when this very build made the run
 * (the row was edited), left out and said when another build made it (an
 * older database: its stored figures stand, its per-wait figures cannot be
 * had from this build's replay). */
#ifndef GAR_RESULTS_H
#define GAR_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "sim/replay.h"
#include "sweep/db.h"
#include "sweep/short_names.h"

#define GAR_RESULTS_TEXT GAR_SHORT_NAME_TEXT /* bytes for a hash, name or label, NUL included */
#define GAR_RESULTS_PLAN_TEXT 800

typedef struct gar_arm_summary {
    char trace[GAR_RESULTS_TEXT];       /* content hash */
    char trace_short[GAR_RESULTS_TEXT]; /* "steady": file name without folder and extension */
    char host[GAR_RESULTS_TEXT];
    char host_short[GAR_RESULTS_TEXT];
    char mode[16];
    char plan[GAR_RESULTS_PLAN_TEXT];
    char plan_short[GAR_RESULTS_TEXT];  /* "flag+predict", "bands block|32:flag+predict" */
    char plan_ran[GAR_RESULTS_PLAN_TEXT]; /* the plan as the host ran it (names a fallback) */
    char estimator[GAR_RESULTS_TEXT];
    unsigned plan_rank;                 /* the plan's place among the database's plans */
    unsigned estimator_rank;            /* the estimator's place among its estimators */
    uint64_t runs, failed;
    /* The figures of the GAR_METRIC_ARM metrics (busy_frac, overshoot
     * p50, p90, p99 and max, waits), as results.c's arm_places puts them. */
    double busy_frac;                   /* mean over the arm's ok runs */
    double p50_ns, p90_ns, p99_ns, max_ns; /* mean over the ok runs of each quantile */
    /* The spread over the ok seeds: the least and the most seed's figure. */
    double p50_min_ns, p50_max_ns, p90_min_ns, p90_max_ns, p99_min_ns, p99_max_ns;
    double busy_min, busy_max;
    uint64_t waits;                     /* waits in one run (the trace's), least over ok seeds */
    /* Each quantile's 95 % order-statistic interval over the ok seeds: the
     * least lower end and the greatest upper end of the seeds' intervals.
     * Only where every ok run stored them (has_ci: made by a gar of schema 4
     * on); an end no seed's waits can give is 0 (lower) or INFINITY (upper). */
    bool has_ci;
    double p50_lo_ns, p50_hi_ns, p90_lo_ns, p90_hi_ns, p99_lo_ns, p99_hi_ns;
} gar_arm_summary;

typedef struct gar_arm_list {
    gar_arm_summary *arm;
    size_t count;
} gar_arm_list;

/* Whether the database's runs carry 95 % intervals (schema 4 on: the
 * column runs.ci_level).  Returns 1, 0, or -GAR_E_IO. */
int gar_results_has_intervals(gar_db *db, gar_error *err);

/* Reads every arm's summary.  Returns 0 (free the list) or -GAR_E_IO. */
int gar_results_arms(gar_db *db, gar_arm_list *out, gar_error *err);
void gar_arm_list_free(gar_arm_list *list);

/* gar_results_short_name, and the names made unique: sweep/short_names.h. */

/* One build of gar that made runs of a database (schema version 2 on). */
typedef struct gar_results_build {
    char version[64];
    char commit[64];
    uint64_t runs;
} gar_results_build;

#define GAR_RESULTS_BUILDS_MAX 16

/* The builds (gar version and source commit) that made the database's runs,
 * most runs first, at most GAR_RESULTS_BUILDS_MAX of them (`*more` set when
 * there were others).  Returns 0 with `*count`, or -GAR_E_IO. */
int gar_results_builds(gar_db *db, gar_results_build *out, size_t *count, bool *more,
                       gar_error *err);

/* Refuses (-GAR_E_IO naming the database and the run) an 'ok' run without
 * its metrics: the means would silently leave it out.  Returns 0 or the
 * refusal. */
int gar_results_check_rows(gar_db *db, gar_error *err);

/* Checks what a re-run of the runs of `trace` (a content hash; NULL: every
 * trace with runs) will need, before anything is drawn: each trace loads
 * from its recorded source with the same content hash, and each host
 * profile those runs used parses.  Returns 0, or the refusal a re-run would
 * meet (-GAR_E_IO for a trace gone or changed, the parser's code for a bad
 * profile). */
int gar_results_check_sources(gar_db *db, const char *trace, gar_error *err);

/* A stored run's key. */
typedef struct gar_run_key {
    int64_t id;
    char trace[GAR_RESULTS_TEXT];
    char trace_short[GAR_RESULTS_TEXT];
    char host[GAR_RESULTS_TEXT];
    char host_short[GAR_RESULTS_TEXT];
    char plan[GAR_RESULTS_PLAN_TEXT];
    char estimator[GAR_RESULTS_TEXT];
    char mode[16];
    uint64_t seed;
} gar_run_key;

/* The run with `id`.  Returns 1 with `out`, 0 when there is none (or it
 * failed: only ok runs are re-run), or -GAR_E_IO. */
int gar_results_run(gar_db *db, int64_t id, gar_run_key *out, gar_error *err);

/* The ok run of (trace, host, mode, plan, estimator) with the least seed.
 * Same returns. */
int gar_results_find_run(gar_db *db, const char *trace, const char *host, const char *mode,
                         const char *plan, const char *estimator, gar_run_key *out,
                         gar_error *err);

/* gar_results_rerun's answer for a run another build of gar made whose
 * stored metrics this build's replay does not reproduce. */
#define GAR_RESULTS_OTHER_BUILD 1

/* Replays the stored run `key` again, handing each wait to `on_wait`, and
 * checks the result against the stored row.  Returns 0;
 * GAR_RESULTS_OTHER_BUILD, with `err` saying which build made the run (the
 * waits handed over are not the stored run's: drop them); -GAR_E_IO when
 * the trace's source is gone or changed, or the replay does not reproduce
 * the stored metrics of a run this build made; or a parse/replay refusal. */
int gar_results_rerun(gar_db *db, const gar_run_key *key, gar_replay_observer on_wait,
                      void *context, gar_error *err);

/* ---- reading the database, for every reader of it ---------------------- */

/* Refuses a failed read of `db`: -GAR_E_IO naming the database, what was
 * being done (`doing`, "read the arms of") and SQLite's message.  Returns
 * the negated code, so a reader can end with `return gar_results_fault(...)`. */
int gar_results_fault(gar_db *db, const char *doing, gar_error *err);

/* Copies text column `column` of the current row of `st` into `out` (`size`
 * bytes, cut to fit, NUL-terminated); NULL reads as "". */
void gar_results_copy_text(sqlite3_stmt *st, int column, char *out, size_t size);

/* Runs `sql`, a query whose one row is one count, on `db`.  Returns 1
 * when the count is above 0, 0 when it is not, or gar_results_fault's
 * -GAR_E_IO naming `doing`. */
int gar_results_any(gar_db *db, const char *sql, const char *doing, gar_error *err);

/* How many runs carry each note (run_notes), most first, ties by name. */
typedef struct gar_results_note_count {
    char note[32];
    uint64_t runs;
} gar_results_note_count;

#define GAR_RESULTS_NOTES_MAX 16

/* The database's note counts, at most GAR_RESULTS_NOTES_MAX of them, and
 * how many runs have any note at all.  Returns 0 with `*count` and
 * `*noted_runs`, or -GAR_E_IO. */
int gar_results_note_counts(gar_db *db, gar_results_note_count *out, size_t *count,
                            uint64_t *noted_runs, gar_error *err);

#endif
