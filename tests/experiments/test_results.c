/* tests/experiments/test_results.c — a swept run read back: which metrics an
 * ok run must hold (gar_results_check_rows), which a re-run must reproduce
 * (gar_results_rerun) and which an arm's summary carries
 * (gar_results_arms), metric by metric, as the replay metric table
 * (sim/replay_metric_table.h) marks them. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep/db.h"
#include "sim/replay_metric_table.h"
#include "sweep/results.h"
#include "sweep/sweep_run.h"
#include "sweep/sweep_spec.h"
#include "db_files.h"

typedef struct fixture {
    char dir[64];
    char path[96];
    gar_db *db;
    gar_run_key key; /* the one run */
} fixture;

static const char *message_of(const gar_error *err)
{
    static char text[1024];
    gar_error_message(err, text, sizeof text);
    return text;
}

static void exec_sql(gar_db *db, const char *sql)
{
    char *why = NULL;
    if (sqlite3_exec(gar_db_sqlite(db), sql, NULL, NULL, &why) != SQLITE_OK)
        fail_msg("%s: %s", sql, why != NULL ? why : "?");
}

/* One run of a generated trace, swept into a new database, found again. */
static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    snprintf(f.dir, sizeof f.dir, "/tmp/gar-results-XXXXXX");
    assert_non_null(mkdtemp(f.dir));
    snprintf(f.path, sizeof f.path, "%s/r.db", f.dir);
    static const char text[] =
        "gar-sweep v1\ntrace gen:jitter:waits=60,seed=3\n"
        "plan poll+predict:margin_us=20,min_sleep_us=10,max_sleep_us=100000,window=8\n"
        "estimator adl\nhost hosts/dev-vm.host\nmode open\nseed 1\n";
    gar_sweep_spec spec;
    gar_error err;
    if (gar_sweep_spec_parse(text, strlen(text), "t.sweep", GAR_DATA_DIR, &spec, &err) != 0)
        fail_msg("%s", message_of(&err));
    gar_sweep_options o = { .jobs = 1, .shard = 0, .shards = 1, .progress = NULL };
    gar_sweep_stats stats;
    if (gar_db_open(f.path, true, &f.db, &err) != 0 ||
        gar_db_put_sources(f.db, &spec, &err) != 0 ||
        gar_sweep_execute(&spec, f.db, &o, &stats, &err) != 0)
        fail_msg("%s", message_of(&err));
    gar_sweep_spec_free(&spec);
    assert_int_equal(stats.ok, 1);
    gar_db_close(f.db);
    /* Read back as the plots and the report read: read-only. */
    if (gar_db_open_read(f.path, &f.db, &err) != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(gar_results_run(f.db, 1, &f.key, NULL), 1);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gar_db_close(f->db);
    remove_db_files(f->path);
    rmdir(f->dir);
    return 0;
}

/* The database reopened for writing, the statement run, reopened to read. */
static void edit(fixture *f, const char *sql)
{
    gar_db_close(f->db);
    assert_int_equal(gar_db_open(f->path, false, &f->db, NULL), 0);
    exec_sql(f->db, sql);
    gar_db_close(f->db);
    assert_int_equal(gar_db_open_read(f->path, &f->db, NULL), 0);
}

/* Every metric of the table, its column and what it is used for. */
typedef struct metric_use {
    const char *column;
    unsigned uses;
} metric_use;

#define METRIC_USE(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...)                                    \
    { #NAME UNIT, GAR_METRIC_USES(__VA_ARGS__) },
static const metric_use metric_uses[] = { GAR_REPLAY_METRICS(METRIC_USE, METRIC_USE) };
#undef METRIC_USE
enum { METRICS = sizeof metric_uses / sizeof metric_uses[0] };

/* Every quantile of the table (a Q row): its interval's end columns. */
typedef struct quantile_ends {
    const char *low, *high;
    unsigned uses;
} quantile_ends;

#define NOT_A_QUANTILE(NAME, ...)
#define QUANTILE_ENDS(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES, ...)                           \
    { #NAME "_lo" UNIT, #NAME "_hi" UNIT, USES },
static const quantile_ends quantiles[] = { GAR_REPLAY_METRICS(NOT_A_QUANTILE, QUANTILE_ENDS) };
#undef NOT_A_QUANTILE
#undef QUANTILE_ENDS
enum { QUANTILES = sizeof quantiles / sizeof quantiles[0] };

/* The stored run re-runs as it was stored, and its rows are whole. */
static void the_stored_run_reproduces(void **state)
{
    fixture *f = *state;
    gar_error err;
    if (gar_results_check_rows(f->db, &err) != 0 ||
        gar_results_rerun(f->db, &f->key, NULL, NULL, &err) != 0)
        fail_msg("%s", message_of(&err));
}

/* A run another build made that the replay does not reproduce is no
 * refusal: the re-run says so (GAR_RESULTS_OTHER_BUILD), naming both
 * builds, so a plot leaves that run's per-wait figure out. */
static void a_run_of_another_build_that_differs_is_told_apart(void **state)
{
    fixture *f = *state;
    edit(f, "UPDATE runs SET gar_version = '0.0.9', source_commit = 'older', "
            "overshoot_p99_ns = overshoot_p99_ns + 1");
    gar_error err;
    int rc = gar_results_rerun(f->db, &f->key, NULL, NULL, &err);
    bool names_both = rc == GAR_RESULTS_OTHER_BUILD &&
                      strstr(message_of(&err), "made by gar 0.0.9, source older; this is gar ");
    edit(f, "UPDATE runs SET overshoot_p99_ns = overshoot_p99_ns - 1");
    int back = gar_results_rerun(f->db, &f->key, NULL, NULL, &err);
    /* Made by this build again (its meta names it), as the other tests want. */
    edit(f, "UPDATE runs SET gar_version = (SELECT value FROM meta WHERE key = 'gar_version'), "
            "source_commit = (SELECT value FROM meta WHERE key = 'source_commit')");
    assert_int_equal(rc, GAR_RESULTS_OTHER_BUILD);
    assert_true(names_both);
    /* The same run, reproduced, is simply re-run, whichever build made it. */
    assert_int_equal(back, 0);
}

/* Each metric changed in the stored row, one at a time: the re-run refuses
 * the row exactly when the table says a re-run must reproduce that metric,
 * naming the run; the others it leaves alone. */
static void a_rerun_checks_the_metrics_the_table_marks(void **state)
{
    fixture *f = *state;
    unsigned checked = 0;
    for (size_t i = 0; i < METRICS; i++) {
        const char *column = metric_uses[i].column;
        char sql[256];
        /* A count one more; a fraction doubled (undone exactly below). */
        snprintf(sql, sizeof sql,
                 "UPDATE runs SET %s = CASE typeof(%s) WHEN 'real' THEN %s * 2 ELSE %s + 1 END",
                 column, column, column, column);
        edit(f, sql);
        gar_error err;
        int rc = gar_results_rerun(f->db, &f->key, NULL, NULL, &err);
        if (metric_uses[i].uses & GAR_METRIC_RERUN) {
            checked++;
            if (rc != -GAR_E_IO)
                fail_msg("%s edited: the re-run gave %d, not a refusal", column, rc);
            assert_non_null(strstr(message_of(&err), "no longer gives its stored metrics"));
            assert_non_null(strstr(message_of(&err), "re-run run 1 of"));
        } else if (rc != 0) {
            fail_msg("%s edited, which a re-run does not check: %s", column, message_of(&err));
        }
        snprintf(sql, sizeof sql,
                 "UPDATE runs SET %s = CASE typeof(%s) WHEN 'real' THEN %s / 2 ELSE %s - 1 END",
                 column, column, column, column);
        edit(f, sql);
    }
    /* The metrics a re-run has always compared, and only those. */
    assert_int_equal(checked, 6);
    static const char *const rerun[] = { "waits", "overshoot_p50_ns", "overshoot_p99_ns",
                                         "overshoot_max_ns", "busy_ns", "queries" };
    for (size_t k = 0; k < sizeof rerun / sizeof rerun[0]; k++) {
        bool found = false;
        for (size_t i = 0; i < METRICS; i++)
            found |= strcmp(metric_uses[i].column, rerun[k]) == 0 &&
                     (metric_uses[i].uses & GAR_METRIC_RERUN) != 0;
        if (!found)
            fail_msg("a re-run no longer checks %s", rerun[k]);
    }
}

/* Each metric emptied in the stored ok row, one at a time: the database is
 * refused (naming the run) exactly when the table says an ok run must hold
 * that metric. */
static void an_ok_row_must_hold_the_metrics_the_table_requires(void **state)
{
    fixture *f = *state;
    unsigned required = 0;
    for (size_t i = 0; i < METRICS; i++) {
        const char *column = metric_uses[i].column;
        char sql[256];
        snprintf(sql, sizeof sql,
                 "CREATE TEMP TABLE kept AS SELECT %s AS v FROM runs;"
                 "UPDATE runs SET %s = NULL",
                 column, column);
        gar_db_close(f->db);
        assert_int_equal(gar_db_open(f->path, false, &f->db, NULL), 0);
        exec_sql(f->db, sql);
        gar_error err;
        int rc = gar_results_check_rows(f->db, &err);
        if (metric_uses[i].uses & GAR_METRIC_REQUIRED) {
            required++;
            if (rc != -GAR_E_IO)
                fail_msg("%s NULL: gave %d, not a refusal", column, rc);
            assert_non_null(strstr(message_of(&err), "read run 1 of"));
            assert_non_null(strstr(message_of(&err), "its metrics are missing"));
        } else if (rc != 0) {
            fail_msg("%s NULL, which no reader needs: %s", column, message_of(&err));
        }
        snprintf(sql, sizeof sql, "UPDATE runs SET %s = (SELECT v FROM kept); DROP TABLE kept",
                 column);
        exec_sql(f->db, sql);
        gar_db_close(f->db);
        assert_int_equal(gar_db_open_read(f->path, &f->db, NULL), 0);
    }
    /* waits, overshoot p50, p99 and max, busy_ns, busy_frac, queries. */
    assert_int_equal(required, 7);
    assert_int_equal(gar_results_check_rows(f->db, NULL), 0);
}

/* A value no figure of the one run has, to be found again in its arm. */
#define MARK 987654

/* Whether a figure of the arm's summary is `value`. */
static bool arm_shows(const gar_arm_summary *a, double value)
{
    const double figures[] = {
        a->busy_frac,  a->p50_ns,     a->p90_ns,     a->p99_ns,     a->max_ns,
        a->p50_min_ns, a->p50_max_ns, a->p90_min_ns, a->p90_max_ns, a->p99_min_ns,
        a->p99_max_ns, a->busy_min,   a->busy_max,   (double)a->waits,
        a->p50_lo_ns,  a->p50_hi_ns,  a->p90_lo_ns,  a->p90_hi_ns,  a->p99_lo_ns,
        a->p99_hi_ns,
    };
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (figures[i] == value)
            return true;
    return false;
}

/* The one arm, as the database holds it now. */
static gar_arm_summary the_arm(gar_db *db)
{
    gar_arm_list arms;
    gar_error err;
    if (gar_results_arms(db, &arms, &err) != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(arms.count, 1);
    gar_arm_summary a = arms.arm[0];
    gar_arm_list_free(&arms);
    return a;
}

/* Each metric set to MARK in the stored row, one at a time: the arm's
 * summary shows MARK exactly when the table says an arm carries that
 * metric (the query names its column and a field keeps it); a carried
 * quantile's interval ends, set to MARK and MARK + 1, show as the arm's. */
static void an_arm_summary_carries_the_metrics_the_table_marks(void **state)
{
    fixture *f = *state;
    gar_db_close(f->db);
    assert_int_equal(gar_db_open(f->path, false, &f->db, NULL), 0);
    gar_arm_summary before = the_arm(f->db);
    assert_true(before.has_ci);
    assert_false(arm_shows(&before, MARK) || arm_shows(&before, MARK + 1));
    unsigned carried = 0;
    for (size_t i = 0; i < METRICS; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "BEGIN; UPDATE runs SET %s = %d", metric_uses[i].column, MARK);
        exec_sql(f->db, sql);
        gar_arm_summary a = the_arm(f->db);
        exec_sql(f->db, "ROLLBACK");
        bool flagged = (metric_uses[i].uses & GAR_METRIC_ARM) != 0;
        carried += flagged;
        if (flagged != arm_shows(&a, MARK))
            fail_msg("%s set to %d: the arm %s it, but the table says an arm %s it",
                     metric_uses[i].column, MARK, flagged ? "does not show" : "shows",
                     flagged ? "carries" : "does not carry");
    }
    unsigned enveloped = 0;
    for (size_t i = 0; i < QUANTILES; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "BEGIN; UPDATE runs SET %s = %d, %s = %d", quantiles[i].low,
                 MARK, quantiles[i].high, MARK + 1);
        exec_sql(f->db, sql);
        gar_arm_summary a = the_arm(f->db);
        exec_sql(f->db, "ROLLBACK");
        bool flagged = (quantiles[i].uses & GAR_METRIC_ARM) != 0;
        enveloped += flagged;
        if (flagged != (arm_shows(&a, MARK) && arm_shows(&a, MARK + 1)) ||
            (!flagged && (arm_shows(&a, MARK) || arm_shows(&a, MARK + 1))))
            fail_msg("%s and %s set: the arm's interval ends %s them", quantiles[i].low,
                     quantiles[i].high, flagged ? "are not" : "show");
    }
    /* The metrics an arm has always carried: waits, overshoot p50, p90,
     * p99 and max, busy_frac; the three quantiles with their intervals. */
    assert_int_equal(carried, 6);
    assert_int_equal(enveloped, 3);
    static const char *const arm[] = { "waits", "overshoot_p50_ns", "overshoot_p90_ns",
                                       "overshoot_p99_ns", "overshoot_max_ns", "busy_frac" };
    for (size_t k = 0; k < sizeof arm / sizeof arm[0]; k++) {
        bool found = false;
        for (size_t i = 0; i < METRICS; i++)
            found |= strcmp(metric_uses[i].column, arm[k]) == 0 &&
                     (metric_uses[i].uses & GAR_METRIC_ARM) != 0;
        if (!found)
            fail_msg("an arm no longer carries %s", arm[k]);
    }
    gar_db_close(f->db);
    assert_int_equal(gar_db_open_read(f->path, &f->db, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_stored_run_reproduces),
        cmocka_unit_test(a_rerun_checks_the_metrics_the_table_marks),
        cmocka_unit_test(a_run_of_another_build_that_differs_is_told_apart),
        cmocka_unit_test(an_ok_row_must_hold_the_metrics_the_table_requires),
        cmocka_unit_test(an_arm_summary_carries_the_metrics_the_table_marks),
    };
    return cmocka_run_group_tests_name("results", tests, setup, teardown);
}
