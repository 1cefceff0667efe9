/* experiments/verify/verifications.c — rows of the verifications table. */
#include "verify/verifications.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "core/nearest_rank.h"

#include "sweep/results.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

void gar_verification_cdf(const gar_dur_ns *sorted, size_t n,
                          gar_dur_ns out[GAR_VERIFY_CDF_LEVELS])
{
    /* Level k/200 = k * 5000 ppm. */
    for (unsigned k = 0; k < GAR_VERIFY_CDF_LEVELS; k++)
        out[k] = gar_nearest_rank(sorted, n, k * (1000000u / (GAR_VERIFY_CDF_LEVELS - 1)));
}

/* "n,n,...": 201 values.  Returns the heap text, or NULL without memory. */
static char *cdf_text(const gar_dur_ns *q)
{
    char *s = malloc(GAR_VERIFY_CDF_LEVELS * 21 + 1);
    if (s == NULL)
        return NULL;
    size_t len = 0;
    for (unsigned k = 0; k < GAR_VERIFY_CDF_LEVELS; k++)
        len += (size_t)sprintf(s + len, "%s%llu", k > 0 ? "," : "", (unsigned long long)q[k]);
    return s;
}

static bool cdf_parse(const char *text, gar_dur_ns *q)
{
    const char *p = text;
    for (unsigned k = 0; k < GAR_VERIFY_CDF_LEVELS; k++) {
        if (p == NULL || *p < '0' || *p > '9')
            return false;
        char *end;
        q[k] = strtoull(p, &end, 10);
        if (k + 1 < GAR_VERIFY_CDF_LEVELS && *end != ',')
            return false;
        if (k + 1 == GAR_VERIFY_CDF_LEVELS && *end != '\0')
            return false;
        p = end + 1;
    }
    return true;
}

int gar_verification_put(gar_db *db, const gar_verification *v, gar_error *err)
{
    static const char sql[] =
        "INSERT OR REPLACE INTO verifications (trace, trace_name, plan, plan_ran, estimator,"
        " waits, device, host_profile, seed, real_p50_ns, real_p90_ns, real_p99_ns,"
        " sim_p50_ns, sim_p90_ns, sim_p99_ns, ks_d, busy_real, busy_sim, verdict, tolerance,"
        " real_cdf, sim_cdf, gar_version, finished_unix, runs, real_min_p50_ns, real_max_p50_ns,"
        " real_min_p90_ns, real_max_p90_ns, real_min_p99_ns, real_max_p99_ns, position_p50,"
        " position_p90, position_p99, real_ks_d_max) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
        " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24,"
        " ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35)";
    sqlite3 *sqlite = gar_db_sqlite(db);
    char *real = cdf_text(v->real_cdf), *sim = cdf_text(v->sim_cdf);
    sqlite3_stmt *st = NULL;
    int rc = 0;
    if (real == NULL || sim == NULL)
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a verification", "exhausted");
    else if (sqlite3_prepare_v2(sqlite, sql, -1, &st, NULL) != SQLITE_OK)
        rc = gar_results_fault(db, "prepare storing a verification", err);
    if (rc == 0) {
        const char *texts[] = { v->trace, v->trace_name, v->plan, v->plan_ran, v->estimator };
        for (int i = 0; i < 5; i++)
            sqlite3_bind_text(st, 1 + i, texts[i], -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 6, (sqlite3_int64)v->waits);
        sqlite3_bind_text(st, 7, v->device, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 8, v->host_profile, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st, 9, (sqlite3_int64)v->seed);
        for (int i = 0; i < 3; i++) {
            sqlite3_bind_int64(st, 10 + i, (sqlite3_int64)v->real_q[i]);
            sqlite3_bind_int64(st, 13 + i, (sqlite3_int64)v->sim_q[i]);
        }
        sqlite3_bind_double(st, 16, v->ks_d);
        sqlite3_bind_double(st, 17, v->busy_real);
        sqlite3_bind_double(st, 18, v->busy_sim);
        sqlite3_bind_text(st, 19, v->verdict, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 20, v->tolerance, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 21, real, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 22, sim, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 23, GAR_VERSION, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 24, (sqlite3_int64)time(NULL));
        sqlite3_bind_int64(st, 25, v->runs > 0 ? (sqlite3_int64)v->runs : 1);
        for (int i = 0; i < 3; i++) {
            sqlite3_bind_int64(st, 26 + 2 * i, (sqlite3_int64)v->real_min[i]);
            sqlite3_bind_int64(st, 27 + 2 * i, (sqlite3_int64)v->real_max[i]);
            sqlite3_bind_text(st, 32 + i, v->position[i], -1, SQLITE_TRANSIENT);
        }
        sqlite3_bind_double(st, 35, v->real_ks_d_max);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = gar_results_fault(db, "db a verification", err);
    }
    sqlite3_finalize(st);
    free(real);
    free(sim);
    return rc;
}

int gar_verifications_each(gar_db *db,
                           int (*fn)(void *ctx, const gar_verification *v, gar_error *err),
                           void *ctx, gar_error *err)
{
    char runs[512], sql[1024];
    sqlite3 *sqlite = gar_db_sqlite(db);
    sqlite3_stmt *st = NULL;
    /* A database made before the table existed has no verifications. */
    sqlite3_stmt *probe = NULL;
    bool has_table = false;
    if (sqlite3_prepare_v2(sqlite, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name ="
                               " 'verifications'", -1, &probe, NULL) != SQLITE_OK)
        return gar_results_fault(db, "look for the verifications", err);
    has_table = sqlite3_step(probe) == SQLITE_ROW;
    sqlite3_finalize(probe);
    if (!has_table)
        return 0;
    /* A version 3 file read as it is lacks the runs' columns: their values. */
    if (gar_db_verification_run_columns(db, runs, sizeof runs) != 0)
        return gar_results_fault(db, "read the verifications", err);
    snprintf(sql, sizeof sql,
             "SELECT trace, trace_name, plan, plan_ran, estimator, waits, device, host_profile,"
             " seed, real_p50_ns, real_p90_ns, real_p99_ns, sim_p50_ns, sim_p90_ns, sim_p99_ns,"
             " ks_d, busy_real, busy_sim, verdict, tolerance, real_cdf, sim_cdf, gar_version, %s"
             " FROM verifications ORDER BY trace_name, trace, id",
             runs);
    if (sqlite3_prepare_v2(sqlite, sql, -1, &st, NULL) != SQLITE_OK)
        return gar_results_fault(db, "read the verifications", err);
    gar_verification *v = malloc(sizeof *v);
    int rc = v == NULL ? gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a verification",
                                       "exhausted")
                       : 0;
    int step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        memset(v, 0, sizeof *v);
        gar_results_copy_text(st, 0, v->trace, sizeof v->trace);
        gar_results_copy_text(st, 1, v->trace_name, sizeof v->trace_name);
        gar_results_copy_text(st, 2, v->plan, sizeof v->plan);
        gar_results_copy_text(st, 3, v->plan_ran, sizeof v->plan_ran);
        gar_results_copy_text(st, 4, v->estimator, sizeof v->estimator);
        v->waits = (uint64_t)sqlite3_column_int64(st, 5);
        gar_results_copy_text(st, 6, v->device, sizeof v->device);
        gar_results_copy_text(st, 7, v->host_profile, sizeof v->host_profile);
        v->seed = (uint64_t)sqlite3_column_int64(st, 8);
        for (int i = 0; i < 3; i++) {
            v->real_q[i] = (gar_dur_ns)sqlite3_column_int64(st, 9 + i);
            v->sim_q[i] = (gar_dur_ns)sqlite3_column_int64(st, 12 + i);
        }
        v->ks_d = sqlite3_column_double(st, 15);
        v->busy_real = sqlite3_column_double(st, 16);
        v->busy_sim = sqlite3_column_double(st, 17);
        const unsigned char *verdict = sqlite3_column_text(st, 18);
        v->agree = verdict != NULL && strcmp((const char *)verdict, "agree") == 0;
        gar_results_copy_text(st, 18, v->verdict, sizeof v->verdict);
        gar_results_copy_text(st, 19, v->tolerance, sizeof v->tolerance);
        if (!cdf_parse((const char *)sqlite3_column_text(st, 20), v->real_cdf) ||
            !cdf_parse((const char *)sqlite3_column_text(st, 21), v->sim_cdf)) {
            rc = gar_error_set(err, GAR_E_IO, 3, gar_db_path(db), "read a verification",
                               "its CDF text is not 201 comma-separated whole numbers");
            break;
        }
        gar_results_copy_text(st, 22, v->gar_version, sizeof v->gar_version);
        v->runs = (unsigned)sqlite3_column_int64(st, 23);
        for (int i = 0; i < 3; i++) {
            v->real_min[i] = (gar_dur_ns)sqlite3_column_int64(st, 24 + 2 * i);
            v->real_max[i] = (gar_dur_ns)sqlite3_column_int64(st, 25 + 2 * i);
            gar_results_copy_text(st, 30 + i, v->position[i], sizeof v->position[i]);
        }
        v->real_ks_d_max = sqlite3_column_double(st, 33);
        rc = fn(ctx, v, err);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = gar_results_fault(db, "read the verifications", err);
    sqlite3_finalize(st);
    free(v);
    return rc;
}
