/* experiments/sweep/results.c — reading a sweep database back: the helpers
 * every reader shares, the arms in a fixed order with their figures, and the
 * builds that made the runs.  The checks of what a database holds are
 * results_checks.c; single runs, their re-runs and the notes results_runs.c. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "sweep/results.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/bands.h>

#include "sim/replay_metric_table.h"
#include "sweep/format.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

int gar_results_fault(gar_db *db, const char *doing, gar_error *err)
{
    return gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), doing,
                         sqlite3_errmsg(gar_db_sqlite(db)));
}

void gar_results_copy_text(sqlite3_stmt *st, int column, char *out, size_t size)
{
    const unsigned char *text = sqlite3_column_text(st, column);
    gar_format(out, size, "%s", text != NULL ? (const char *)text : "");
}

int gar_results_any(gar_db *db, const char *sql, const char *doing, gar_error *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, doing, err);
    int rc = sqlite3_step(st);
    int found = rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? found : gar_results_fault(db, doing, err);
}

/* ---- plans and estimators in a fixed order ------------------------------ */

typedef struct plan_entry {
    char label[GAR_RESULTS_PLAN_TEXT];
    char base[GAR_RESULTS_TEXT - 8]; /* the short name before numbering */
    char short_name[GAR_RESULTS_TEXT];
    unsigned klass; /* block, block+predict, poll, ..., then bands */
} plan_entry;

static void describe_plan(const char *label, plan_entry *e)
{
    gar_format(e->label, sizeof e->label, "%s", label);
    gar_bands bands;
    if (gar_bands_parse(label, &bands, NULL) < 0) {
        gar_format(e->base, sizeof e->base, "%s", label);
        e->klass = 100;
        return;
    }
    size_t n = 0;
    if (bands.count > 1)
        n += (size_t)gar_format(e->base, sizeof e->base, "bands ");
    for (uint32_t b = 0; b < bands.count && n < sizeof e->base; b++) {
        const gar_plan *p = &bands.band[b].plan;
        if (b > 0)
            n += (size_t)gar_format(e->base + n, sizeof e->base - n, "|%u:",
                                  (unsigned)bands.band[b].first_rows);
        if (n < sizeof e->base)
            n += (size_t)gar_format(e->base + n, sizeof e->base - n, "%s%s",
                                  gar_park_name(p->park), p->predict ? "+predict" : "");
    }
    const gar_plan *first = &bands.band[0].plan;
    e->klass = bands.count > 1 ? 10 : (unsigned)first->park * 2 + (first->predict ? 1 : 0);
}

static int compare_plans(const void *a, const void *b)
{
    const plan_entry *x = a, *y = b;
    if (x->klass != y->klass)
        return x->klass < y->klass ? -1 : 1;
    return strcmp(x->label, y->label);
}

static int compare_estimators(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    bool xn = strcmp(x, GAR_SWEEP_NO_ESTIMATOR_LABEL) == 0;
    bool yn = strcmp(y, GAR_SWEEP_NO_ESTIMATOR_LABEL) == 0;
    if (xn != yn)
        return xn ? -1 : 1;
    return strcmp(x, y);
}

static int compare_arms(const void *a, const void *b)
{
    const gar_arm_summary *x = a, *y = b;
    int c;
    if ((c = strcmp(x->trace_short, y->trace_short)) != 0 || (c = strcmp(x->trace, y->trace)) != 0 ||
        (c = strcmp(x->host_short, y->host_short)) != 0 || (c = strcmp(x->host, y->host)) != 0 ||
        (c = strcmp(x->mode, y->mode)) != 0)
        return c;
    if (x->plan_rank != y->plan_rank)
        return x->plan_rank < y->plan_rank ? -1 : 1;
    if (x->estimator_rank != y->estimator_rank)
        return x->estimator_rank < y->estimator_rank ? -1 : 1;
    return 0;
}

/* Ranks the distinct plans and estimators of the arms and names each plan
 * shortly, numbering short names that two plans share. */
static int rank_arms(gar_arm_list *list, gar_error *err)
{
    size_t n = list->count;
    plan_entry *plans = calloc(n > 0 ? n : 1, sizeof *plans);
    const char **estimators = calloc(n > 0 ? n : 1, sizeof *estimators);
    if (plans == NULL || estimators == NULL) {
        free(plans);
        free(estimators);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the results", "exhausted");
    }
    size_t np = 0, ne = 0;
    for (size_t i = 0; i < n; i++) {
        const gar_arm_summary *a = &list->arm[i];
        bool seen = false;
        for (size_t j = 0; j < np && !seen; j++)
            seen = strcmp(plans[j].label, a->plan) == 0;
        if (!seen)
            describe_plan(a->plan, &plans[np++]);
        seen = false;
        for (size_t j = 0; j < ne && !seen; j++)
            seen = strcmp(estimators[j], a->estimator) == 0;
        if (!seen)
            estimators[ne++] = a->estimator;
    }
    qsort(plans, np, sizeof *plans, compare_plans);
    qsort(estimators, ne, sizeof *estimators, compare_estimators);
    /* Two plans of one short name (two margins, say) become "name#1", "name#2". */
    for (size_t j = 0; j < np; j++) {
        unsigned before = 0, all = 0;
        for (size_t k = 0; k < np; k++) {
            if (strcmp(plans[k].base, plans[j].base) != 0)
                continue;
            all++;
            before += k < j;
        }
        if (all > 1)
            gar_format(plans[j].short_name, sizeof plans[j].short_name, "%s#%u", plans[j].base,
                     before + 1);
        else
            gar_format(plans[j].short_name, sizeof plans[j].short_name, "%s", plans[j].base);
    }
    for (size_t i = 0; i < n; i++) {
        gar_arm_summary *a = &list->arm[i];
        for (size_t j = 0; j < np; j++)
            if (strcmp(plans[j].label, a->plan) == 0) {
                a->plan_rank = (unsigned)j;
                gar_format(a->plan_short, sizeof a->plan_short, "%s", plans[j].short_name);
            }
        for (size_t j = 0; j < ne; j++)
            if (strcmp(estimators[j], a->estimator) == 0)
                a->estimator_rank = (unsigned)j;
    }
    free(plans);
    free(estimators);
    return 0;
}

int gar_results_has_intervals(gar_db *db, gar_error *err)
{
    return gar_results_any(db,
                           "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'ci_level'",
                           "read the columns of", err);
}

/* ---- an arm's figures, as the metric table marks them ------------------- */

/* The table's metrics, numbered in its order: METRIC_waits, ... */
#define METRIC_NUMBER(NAME, ...) METRIC_##NAME,
enum { GAR_REPLAY_METRICS(METRIC_NUMBER, METRIC_NUMBER) METRIC_COUNT };
#undef METRIC_NUMBER

/* A metric's columns in the runs table, and what it is used for. */
typedef struct arm_metric {
    const char *column;
    const char *low, *high; /* its interval's ends (a Q row); NULL for an X row */
    unsigned uses;
} arm_metric;

#define ARM_METRIC(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...)                                    \
    { #NAME UNIT, NULL, NULL, GAR_METRIC_USES(__VA_ARGS__) },
#define ARM_QUANTILE(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES, ...)                            \
    { #NAME UNIT, #NAME "_lo" UNIT, #NAME "_hi" UNIT, USES },
static const arm_metric arm_metrics[METRIC_COUNT] = {
    GAR_REPLAY_METRICS(ARM_METRIC, ARM_QUANTILE)
};
#undef ARM_METRIC
#undef ARM_QUANTILE

/* The figures the query gives of each metric the table flags
 * GAR_METRIC_ARM, one column each, in this order: the mean over the arm's
 * ok seeds, the least and the most seed's figure, and for a quantile the
 * least lower end and the greatest upper end of the seeds' intervals. */
typedef enum arm_figure { ARM_MEAN, ARM_LEAST, ARM_MOST, ARM_LOW, ARM_HIGH, ARM_FIGURES } arm_figure;

/* Where a summary keeps one figure: not at all, in a double or in a count. */
typedef enum arm_kind { ARM_NOT_KEPT, ARM_DOUBLE, ARM_COUNT } arm_kind;
typedef struct arm_place {
    size_t offset; /* in gar_arm_summary */
    arm_kind kind;
} arm_place;

/* The place of a gar_arm_summary field, its kind told by its type. */
#define KEPT(FIELD)                                                                                \
    {                                                                                              \
        offsetof(gar_arm_summary, FIELD),                                                          \
            _Generic(((gar_arm_summary *)NULL)->FIELD, double: ARM_DOUBLE, uint64_t: ARM_COUNT)   \
    }
#define SPREAD(MEAN, LEAST, MOST)                                                                  \
    [ARM_MEAN] = KEPT(MEAN), [ARM_LEAST] = KEPT(LEAST), [ARM_MOST] = KEPT(MOST)
#define ENDS(LOW, HIGH) [ARM_LOW] = KEPT(LOW), [ARM_HIGH] = KEPT(HIGH)

/* Where the summary (results.h) keeps each figure of the metrics flagged
 * GAR_METRIC_ARM; a figure not named here the query gives and nothing
 * keeps (the mean of a run's waits, which every seed shares). */
static const arm_place arm_places[METRIC_COUNT][ARM_FIGURES] = {
    [METRIC_waits] = { [ARM_LEAST] = KEPT(waits) },
    [METRIC_overshoot_p50] = { SPREAD(p50_ns, p50_min_ns, p50_max_ns), ENDS(p50_lo_ns, p50_hi_ns) },
    [METRIC_overshoot_p90] = { SPREAD(p90_ns, p90_min_ns, p90_max_ns), ENDS(p90_lo_ns, p90_hi_ns) },
    [METRIC_overshoot_p99] = { SPREAD(p99_ns, p99_min_ns, p99_max_ns), ENDS(p99_lo_ns, p99_hi_ns) },
    [METRIC_overshoot_max] = { [ARM_MEAN] = KEPT(max_ns) },
    [METRIC_busy_frac] = { SPREAD(busy_frac, busy_min, busy_max) },
};
#undef KEPT
#undef SPREAD
#undef ENDS

/* The columns of an arm before its figures: trace, trace name, host, host
 * name, mode, plan, estimator, runs, failed runs, the plan as run. */
enum { ARM_KEY_COLUMNS = 10 };

/* Writes the query of the arms into sql[size]: the key columns, each
 * GAR_METRIC_ARM metric's figures in the table's order, then whether the
 * arm has intervals.  Without them (has_ci false: a database of schema 3)
 * the interval ends are NULL.  Returns the query's length (size or more:
 * cut short). */
static size_t arm_query(bool has_ci, char *sql, size_t size)
{
    size_t n = (size_t)gar_format(
        sql, size,
        "SELECT r.trace, t.name, r.host, h.name, r.mode, r.plan, r.estimator, count(*),"
        " sum(r.status = 'failed'), max(r.plan_ran)");
    /* Failed runs have no metrics: avg, min and max see the ok ones. */
    for (size_t m = 0; m < METRIC_COUNT && n < size; m++) {
        const arm_metric *metric = &arm_metrics[m];
        if ((metric->uses & GAR_METRIC_ARM) == 0)
            continue;
        n += (size_t)gar_format(sql + n, size - n, ", avg(r.%s), min(r.%s), max(r.%s)",
                                metric->column, metric->column, metric->column);
        if (metric->low == NULL || n >= size)
            continue;
        /* The envelope of the ok seeds' intervals: the least lower end (a
         * missing one is 0) and the greatest upper end (NULL when any seed
         * has none: unbounded). */
        if (has_ci)
            n += (size_t)gar_format(
                sql + n, size - n,
                ", min(CASE WHEN r.status = 'ok' THEN coalesce(r.%s, 0) END),"
                " CASE WHEN sum(r.status = 'ok' AND r.%s IS NULL) > 0 THEN NULL"
                " ELSE max(r.%s) END",
                metric->low, metric->high, metric->high);
        else
            n += (size_t)gar_format(sql + n, size - n, ", NULL, NULL");
    }
    /* An arm has intervals when every ok run of it has them: a database
     * converted from version 3 keeps its older runs without. */
    if (n < size)
        n += (size_t)gar_format(
            sql + n, size - n, "%s",
            has_ci ? ", sum(r.status = 'ok' AND r.ci_level IS NULL) = 0 AND sum(r.status = 'ok') > 0"
                   : ", 0");
    if (n < size)
        n += (size_t)gar_format(
            sql + n, size - n,
            " FROM runs r JOIN traces t ON t.trace = r.trace JOIN hosts h ON h.host = r.host"
            " GROUP BY r.trace, r.host, r.mode, r.plan, r.estimator");
    return n;
}

/* Reads the figures of the row `st` from column `column` on into `a`,
 * each where arm_places puts it: an interval's missing lower end is 0, its
 * missing upper end INFINITY.  Returns the column after them. */
static int read_arm_figures(sqlite3_stmt *st, int column, gar_arm_summary *a)
{
    for (size_t m = 0; m < METRIC_COUNT; m++) {
        if ((arm_metrics[m].uses & GAR_METRIC_ARM) == 0)
            continue;
        int figures = arm_metrics[m].low != NULL ? ARM_FIGURES : ARM_LOW;
        for (int f = 0; f < figures; f++, column++) {
            arm_place place = arm_places[m][f];
            char *at = (char *)a + place.offset;
            if (place.kind == ARM_COUNT) {
                uint64_t count = (uint64_t)sqlite3_column_int64(st, column);
                memcpy(at, &count, sizeof count);
            } else if (place.kind == ARM_DOUBLE) {
                double value = sqlite3_column_type(st, column) == SQLITE_NULL
                                   ? (f == ARM_HIGH ? INFINITY : 0)
                                   : sqlite3_column_double(st, column);
                memcpy(at, &value, sizeof value);
            }
        }
    }
    return column;
}

int gar_results_arms(gar_db *db, gar_arm_list *out, gar_error *err)
{
    out->arm = NULL;
    out->count = 0;
    int has_ci = gar_results_has_intervals(db, err);
    if (has_ci < 0)
        return has_ci;
    char sql[4096];
    if (arm_query(has_ci != 0, sql, sizeof sql) >= sizeof sql)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "the query of the arms", "4096 bytes");
    gar_short_names names;
    int named = gar_short_names_read(db, &names, err);
    if (named < 0)
        return named;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK) {
        gar_short_names_free(&names);
        return gar_results_fault(db, "read the arms of", err);
    }
    size_t capacity = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->count == capacity) {
            capacity = capacity > 0 ? 2 * capacity : 64;
            gar_arm_summary *bigger = realloc(out->arm, capacity * sizeof *bigger);
            if (bigger == NULL) {
                sqlite3_finalize(st);
                gar_arm_list_free(out);
                gar_short_names_free(&names);
                return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the results",
                                     "exhausted");
            }
            out->arm = bigger;
        }
        gar_arm_summary *a = &out->arm[out->count++];
        memset(a, 0, sizeof *a);
        char name[GAR_RESULTS_TEXT];
        gar_results_copy_text(st, 0, a->trace, sizeof a->trace);
        gar_results_copy_text(st, 1, name, sizeof name);
        gar_short_names_copy(&names, false, a->trace, name, a->trace_short,
                             sizeof a->trace_short);
        gar_results_copy_text(st, 2, a->host, sizeof a->host);
        gar_results_copy_text(st, 3, name, sizeof name);
        gar_short_names_copy(&names, true, a->host, name, a->host_short, sizeof a->host_short);
        gar_results_copy_text(st, 4, a->mode, sizeof a->mode);
        gar_results_copy_text(st, 5, a->plan, sizeof a->plan);
        gar_results_copy_text(st, 6, a->estimator, sizeof a->estimator);
        a->runs = (uint64_t)sqlite3_column_int64(st, 7);
        a->failed = (uint64_t)sqlite3_column_int64(st, 8);
        gar_results_copy_text(st, 9, a->plan_ran, sizeof a->plan_ran);
        int after = read_arm_figures(st, ARM_KEY_COLUMNS, a);
        a->has_ci = sqlite3_column_int(st, after) != 0;
    }
    sqlite3_finalize(st);
    gar_short_names_free(&names);
    if (rc != SQLITE_DONE) {
        gar_arm_list_free(out);
        return gar_results_fault(db, "read the arms of", err);
    }
    if ((rc = rank_arms(out, err)) < 0) {
        gar_arm_list_free(out);
        return rc;
    }
    if (out->count > 1) /* no runs: no array to sort (qsort wants one even for 0) */
        qsort(out->arm, out->count, sizeof *out->arm, compare_arms);
    return 0;
}

void gar_arm_list_free(gar_arm_list *list)
{
    if (list == NULL)
        return;
    free(list->arm);
    list->arm = NULL;
    list->count = 0;
}

int gar_results_builds(gar_db *db, gar_results_build *out, size_t *count, bool *more,
                       gar_error *err)
{
    static const char sql[] = "SELECT gar_version, source_commit, count(*) FROM runs"
                              " GROUP BY gar_version, source_commit"
                              " ORDER BY count(*) DESC, gar_version, source_commit";
    *count = 0;
    *more = false;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(gar_db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "read the builds of", err);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*count == GAR_RESULTS_BUILDS_MAX) {
            *more = true;
            continue;
        }
        gar_results_build *b = &out[(*count)++];
        gar_results_copy_text(st, 0, b->version, sizeof b->version);
        gar_results_copy_text(st, 1, b->commit, sizeof b->commit);
        b->runs = (uint64_t)sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : gar_results_fault(db, "read the builds of", err);
}
