/* experiments/report/plot_waits.c — a stored run's waits, re-run for the
 * per-wait plots, and the runs those plots show. */
#include "report/plot_waits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/plot_arms.h"
#include "sweep/format.h"
#include "sweep/sweep_spec.h"

static void log_wait(void *context, const gar_replay_wait *w)
{
    gar_plot_waits *log = context;
    if (log->failed)
        return;
    if (log->count == log->capacity) {
        size_t cap = log->capacity > 0 ? 2 * log->capacity : 4096;
        double *a = realloc(log->overshoot_us, cap * sizeof *a);
        if (a != NULL)
            log->overshoot_us = a;
        double *b = realloc(log->truth_us, cap * sizeof *b);
        if (b != NULL)
            log->truth_us = b;
        double *c = realloc(log->prediction_us, cap * sizeof *c);
        if (c != NULL)
            log->prediction_us = c;
        if (a == NULL || b == NULL || c == NULL) {
            log->failed = true;
            return;
        }
        log->capacity = cap;
    }
    log->overshoot_us[log->count] = (double)w->overshoot_ns / 1000.0;
    log->truth_us[log->count] = (double)w->truth_ns / 1000.0;
    log->prediction_us[log->count] = w->predicted ? (double)w->prediction_ns / 1000.0 : NAN;
    log->count++;
}

void gar_plot_waits_free(gar_plot_waits *log)
{
    free(log->overshoot_us);
    free(log->truth_us);
    free(log->prediction_us);
    memset(log, 0, sizeof *log);
}

int gar_plot_rerun(gar_db *db, const gar_run_key *key, gar_plot_waits *log,
                   gar_plot_files *files, const char *figure, gar_error *err)
{
    memset(log, 0, sizeof *log);
    int rc = gar_results_rerun(db, key, log_wait, log, err);
    if (rc == 0 && log->failed)
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a run's waits", "exhausted");
    if (rc == GAR_RESULTS_OTHER_BUILD) {
        char why[1024];
        gar_error_message(err, why, sizeof why);
        if (files->lacking_count < GAR_PLOT_LACKING_MAX)
            gar_format(files->lacking[files->lacking_count++], sizeof files->lacking[0],
                       "%s: %s", figure, why);
        else
            files->lacking_more++;
    }
    if (rc != 0)
        gar_plot_waits_free(log);
    return rc;
}

long gar_plot_find_trace(const gar_arm_list *arms, const char *which)
{
    for (size_t i = 0; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (which == NULL || strcmp(a->trace_short, which) == 0 ||
            (strlen(which) >= 4 && strncmp(a->trace, which, strlen(which)) == 0))
            return (long)i;
    }
    return -1;
}

const char *gar_plot_estimator(const gar_arm_list *arms, const gar_arm_summary *like)
{
    const char *first = NULL;
    for (size_t i = 0; i < arms->count; i++) {
        const gar_arm_summary *a = &arms->arm[i];
        if (strcmp(a->trace, like->trace) != 0 || strcmp(a->host, like->host) != 0 ||
            strcmp(a->mode, like->mode) != 0 || strcmp(a->plan, like->plan) != 0 ||
            !gar_plot_arm_usable(a))
            continue;
        if (strcmp(a->estimator, "adl") == 0)
            return a->estimator;
        if (first == NULL)
            first = a->estimator;
    }
    return first;
}

int gar_plot_pick_prediction_run(gar_db *db, const gar_arm_list *arms, const char *trace,
                                 gar_run_key *out, gar_error *err)
{
    /* Arms are in plan order (flag+predict before bands); take the first
     * single plan with predict, else any arm with an estimator. */
    const gar_arm_summary *pick = NULL;
    for (int pass = 0; pass < 2 && pick == NULL; pass++)
        for (size_t i = 0; i < arms->count && pick == NULL; i++) {
            const gar_arm_summary *a = &arms->arm[i];
            if (strcmp(a->trace, trace) != 0 || !gar_plot_arm_usable(a) ||
                strcmp(a->estimator, GAR_SWEEP_NO_ESTIMATOR_LABEL) == 0)
                continue;
            if (pass == 0 && (strchr(a->plan, ';') != NULL || strncmp(a->plan, "flag", 4) != 0))
                continue;
            const char *est = gar_plot_estimator(arms, a);
            if (est != NULL && strcmp(est, a->estimator) == 0)
                pick = a;
        }
    if (pick == NULL)
        return 0;
    return gar_results_find_run(db, pick->trace, pick->host, pick->mode, pick->plan,
                                pick->estimator, out, err);
}
