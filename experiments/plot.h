/* experiments/plot.h — a sweep database drawn as PNGs by gnuplot.
 *
 * Each plot is a gnuplot script (NAME.gp) and its data (NAME.dat) written
 * into the output folder, where gnuplot is run on the script to make
 * NAME.png; script and data stay beside the picture so a researcher can
 * tweak and re-run them (`cd DIR && gnuplot NAME.gp`).  Three kinds:
 *
 *   pareto-HOST-MODE   busy CPU fraction against p99 overshoot, one point per
 *                      arm (plan, estimator; mean over seeds), the Pareto
 *                      frontier drawn, one panel per trace
 *   cdf-TRACE-HOST-MODE  the overshoot CDF of each plan on one trace
 *   prediction-RUN     one run's prediction against the true residual, wait
 *                      by wait
 *
 * The last two need every wait's numbers, which the database does not keep:
 * they re-run the stored run with the replay's per-wait observer
 * (gar_results_rerun), which refuses when the replay no longer reproduces the
 * stored metrics.  A CDF uses, for each plan, the run with the least seed;
 * plans with predict use the estimator `adl` (or the first one stored).
 *
 * gnuplot (with the pngcairo terminal) must be on PATH: without it every
 * entry point refuses with GAR_E_IO naming gnuplot, before writing anything. */
#ifndef GAR_PLOT_H
#define GAR_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "results.h"
#include "store.h"

#define GAR_PLOT_FILES_MAX 128
#define GAR_PLOT_NAME_BYTES 256

/* The PNGs a call wrote, in order, with a caption each (for reports). */
typedef struct gar_plot_file {
    char png[GAR_PLOT_NAME_BYTES];   /* file name inside the output folder */
    char caption[512];
    char trace[GAR_RESULTS_TEXT];    /* the trace's hash ("" for every trace) */
    char host[GAR_RESULTS_TEXT];     /* the host's hash */
} gar_plot_file;

typedef struct gar_plot_files {
    size_t count;
    gar_plot_file file[GAR_PLOT_FILES_MAX];
} gar_plot_files;

/* Refuses with GAR_E_IO ("gnuplot", "run", why) when no gnuplot is on PATH. */
int gar_plot_check_gnuplot(gar_error *err);

/* One pareto-HOST-MODE plot per host and mode of `arms`. */
int gar_plot_pareto(const gar_arm_list *arms, const char *dir, gar_plot_files *files,
                    gar_error *err);

/* The CDF plot of the trace with content hash `trace`, one per host and mode. */
int gar_plot_cdf(gar_store *store, const gar_arm_list *arms, const char *trace, const char *dir,
                 gar_plot_files *files, gar_error *err);

/* The prediction plot of one run. */
int gar_plot_prediction(gar_store *store, const gar_run_key *run, const char *dir,
                        gar_plot_files *files, gar_error *err);

/* The run a prediction plot shows by default for `trace`: on its first host
 * and mode, the first plan with predict (flag before poll, bands last) under
 * `adl` (or the first estimator), least seed.  Returns 1 with `out`, 0 when
 * the trace has no run with predict, or -GAR_E_IO. */
int gar_plot_pick_prediction_run(gar_store *store, const gar_arm_list *arms, const char *trace,
                                 gar_run_key *out, gar_error *err);

/* One verification's plot, verify-N (N its 1-based place in the report):
 * the real and the simulated overshoot CDFs on one chart (log overshoot
 * axis), from the 201 stored quantiles of each. */
struct gar_verification;
int gar_plot_verification(const struct gar_verification *v, unsigned n, const char *dir,
                          gar_plot_files *files, gar_error *err);

/* Finds a trace of `arms` by short name, name or hash (prefix of at least 4
 * hex digits).  NULL `which` picks the first.  Returns the arm index of its
 * first arm, or -1 when none matches. */
long gar_plot_find_trace(const gar_arm_list *arms, const char *which);

/* Creates `dir` (one level) when missing.  Returns 0 or -GAR_E_IO. */
int gar_plot_make_dir(const char *dir, gar_error *err);

#endif
