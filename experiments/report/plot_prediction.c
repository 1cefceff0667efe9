/* experiments/report/plot_prediction.c — prediction-RUN: one run's
 * prediction against the true residual, wait by wait (plot.h). */
#include "report/plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/gnuplot_text.h"
#include "report/plot_draw.h"
#include "report/plot_layout.h"
#include "report/plot_waits.h"
#include "sweep/format.h"

/* The reach of the figures drawn, and how many waits had a prediction. */
typedef struct prediction_extent {
    double lo, hi;
    size_t predicted;
} prediction_extent;

/* The data file: a row per wait of `log`. */
static prediction_extent prediction_data(FILE *dat, const gar_run_key *run,
                                         const gar_plot_waits *log)
{
    prediction_extent e = { INFINITY, 0, 0 };
    fprintf(dat, "# gar plot data: run %lld, trace %s, host %s, plan %s, estimator %s, %s loop,"
                 " seed %llu.\n# wait true_residual_us prediction_us (NaN: no prediction)\n",
            (long long)run->id, run->trace_short, run->host_short, run->plan, run->estimator,
            run->mode, (unsigned long long)run->seed);
    for (size_t k = 0; k < log->count; k++) {
        double t = log->truth_us[k], p = log->prediction_us[k];
        fprintf(dat, "%zu %.6g %.6g\n", k, t, p);
        if (t > 0) {
            e.lo = fmin(e.lo, t);
            e.hi = fmax(e.hi, t);
        }
        if (!isnan(p) && p > 0) {
            e.predicted++;
            e.lo = fmin(e.lo, p);
            e.hi = fmax(e.hi, p);
        }
    }
    return e;
}

/* The script: the true residual as a line, the predictions as points. */
static void prediction_script(FILE *gp, const gar_plot_paths *pf, const gar_run_key *run,
                              const prediction_extent *e)
{
    char trace[GAR_RESULTS_TEXT * 2], host[GAR_RESULTS_TEXT * 2], plan[GAR_RESULTS_PLAN_TEXT * 2],
        est[GAR_RESULTS_TEXT * 2];
    gar_gnuplot_double(run->trace_short, trace, sizeof trace);
    gar_gnuplot_double(run->host_short, host, sizeof host);
    gar_gnuplot_double(run->plan, plan, sizeof plan);
    gar_gnuplot_double(run->estimator, est, sizeof est);
    bool log_y = e->hi > 0 && e->lo < INFINITY && e->hi / e->lo > 30;
    fprintf(gp,
            "# gar plot: one run's prediction against the true residual, wait by wait.\n"
            "# Data: %s.  Re-draw: gnuplot %s\n",
            pf->dat, pf->gp);
    gar_plot_terminal(gp, GAR_PREDICTION_W_PX, GAR_PREDICTION_H_PX, pf->png);
    fprintf(gp,
            "set title \"Prediction against the true residual: run %lld, trace %s, host %s,"
            " estimator %s, seed %llu\\n{/*0.8 plan %s}\" font ',13'\n"
            "set xlabel 'wait (trace row)'\n"
            "set ylabel 'time from the wait''s start (µs%s)'\n"
            "%s"
            "set format y '%%g'\n"
            "set grid\n"
            "set key top right box opaque\n"
            "plot '%s' using 1:2 with lines lw 1 lc rgb '#999999' title 'true residual', \\\n"
            "     '' using 1:3 with points pt 7 ps 0.35 lc rgb '#d55e00' title 'prediction (%zu waits)'\n",
            (long long)run->id, trace, host, est, (unsigned long long)run->seed, plan,
            log_y ? ", log" : "", log_y ? "set logscale y\n" : "set yrange [0:*]\n", pf->dat,
            e->predicted);
}

int gar_plot_prediction(gar_db *db, const gar_run_key *run, const char *dir,
                        gar_plot_files *files, gar_error *err)
{
    dir = gar_plot_out_dir(files, dir);
    int rc = gar_plot_check_gnuplot(err);
    if (rc < 0)
        return rc;
    gar_plot_waits log;
    char figure[GAR_RESULTS_PLAN_TEXT + 3 * GAR_RESULTS_TEXT];
    gar_format(figure, sizeof figure, "the prediction plot of run %lld (plan %s, estimator %s, "
               "trace %s, host %s)", (long long)run->id, run->plan, run->estimator,
               run->trace_short, run->host_short);
    if ((rc = gar_plot_rerun(db, run, &log, files, figure, err)) != 0)
        return rc < 0 ? rc : 0; /* a run another build made: left out, and said */
    char base[GAR_PLOT_NAME_BYTES - 16];
    gar_format(base, sizeof base, "prediction-%lld", (long long)run->id);
    gar_plot_paths pf;
    gar_plot_paths_name(&pf, base);
    FILE *dat = gar_plot_open_data(dir, &pf, err);
    prediction_extent e = { 0, 0, 0 };
    size_t waits = log.count;
    if (dat != NULL)
        e = prediction_data(dat, run, &log);
    gar_plot_waits_free(&log);
    FILE *gp = dat != NULL ? gar_plot_script_after_data(dir, dat, &pf, err) : NULL;
    if (gp == NULL)
        return -GAR_E_IO;
    prediction_script(gp, &pf, run, &e);
    /* A run whose estimator never predicted draws no point: say so, not
     * leave an empty plot to be read as predictions hidden under the line. */
    char none[160] = "";
    if (e.predicted == 0)
        gar_format(none, sizeof none,
                   " None of its %zu waits had a prediction (its notes in the table say why).",
                   waits);
    return gar_plot_draw_and_list(dir, gp, &pf, files, run->trace, run->host, err,
             "Run %lld (trace %s, host %s, plan %s, estimator %s, seed %llu): the estimator's "
             "prediction for each wait against the residual the wait really had.%s",
             (long long)run->id, run->trace_short, run->host_short, run->plan, run->estimator,
             (unsigned long long)run->seed, none);
}
