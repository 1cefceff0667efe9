/* experiments/report/plot.h — a sweep database drawn as PNGs by gnuplot.
 *
 * Each plot is a gnuplot script (NAME.gp) and its data (NAME.dat) written
 * into the output folder, where gnuplot is run on the script to make
 * NAME.png; script and data stay beside the picture so a researcher can
 * tweak and re-run them (`cd DIR && gnuplot NAME.gp`).  The kinds, each in
 * its own file:
 *
 *   pareto-HOST-MODE   (plot_pareto.c) busy CPU fraction against p99
 *                      overshoot, one point per arm (plan, estimator; mean
 *                      over seeds, error bars the intervals the report
 *                      ranks by: report.h), the Pareto frontier drawn, one
 *                      panel per trace, the legend in a strip under them
 *                      sized to its entries; arms drawn on one point are
 *                      ringed and tagged (plot_coincident.h) and listed in
 *                      the file's `listing`
 *   param-NAME-HOST-MODE  (plot_param.c) p99 overshoot and busy CPU against
 *                      a swept parameter, one line per plan family /
 *                      estimator, bars from the least to the greatest run
 *                      of a point
 *   cdf-TRACE-HOST-MODE  (plot_cdf.c) the overshoot CDF of each plan on one
 *                      trace (log overshoot) beside its tail, the share of
 *                      waits with at least that overshoot on log-log axes
 *   prediction-RUN     (plot_prediction.c) one run's prediction against the
 *                      true residual, wait by wait
 *   verify-N           (plot_verify.c) a verification's real and simulated
 *                      overshoot CDFs
 *   auto-HOST-MODE     (plot_auto.c) busy CPU against the p99 budget, auto
 *                      beside the fixed plans, a panel per trace
 *
 * They share: plot_draw.h (a plot's files written, gnuplot run, the PNG
 * listed), plot_layout.h (every size in pixels, the terminal, the grid of
 * panels, the legend strip), plot_arms.h (which arms a plot draws, log
 * floors, the plans it shows), plot_style.h (colours and dashes),
 * plot_waits.h (a stored run's waits, re-run), and plot_stage.c (the output
 * folder and staging, below).
 *
 * A plot draws every arm, trace and estimator it is given, whatever their
 * number; only the plans (or lines) it tells apart by style are bounded, by
 * GAR_PLOT_STYLES a plot, and more are refused with GAR_E_CAPACITY before a
 * file is written (plot_arms.h).  Nothing is left out silently.
 *
 * Plans are named among the plans a plot shows (plan_names.h) and coloured
 * by their label, one colour a plan across a command's plots (plot_style.h);
 * names are escaped for the quotes they sit in (gnuplot_text.h).
 *
 * The CDF and the prediction plot need every wait's numbers, which the database does not keep:
 * they re-run the stored run with the replay's per-wait observer
 * (gar_results_rerun), which refuses when the replay no longer reproduces the
 * stored metrics of a run this build made; a run another build made (an
 * older database) is left out of its plot instead (a plot left with no
 * plan is not drawn), and the files say which figure lacks it and why.  A
 * CDF uses, for each plan, the run with the least seed; plans with predict
 * use the estimator `adl` (or the first one stored).
 *
 * gnuplot (with the pngcairo terminal) must be on PATH: without it every
 * entry point refuses with GAR_E_IO naming gnuplot, before writing anything.
 * A PNG counts as drawn only when gnuplot exits 0 and the file is a whole
 * PNG (its signature first, its IEND chunk last): gnuplot can exit 0 with a
 * picture cut short by a full disk.  Every write is checked, and a failure
 * is GAR_E_IO naming the file and the system's reason. */
#ifndef GAR_PLOT_H
#define GAR_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "report/plot_style.h"
#include "sweep/db.h"
#include "sweep/results.h"

#define GAR_PLOT_NAME_BYTES 256
#define GAR_PLOT_LACKING_MAX 64

/* The PNGs a call wrote, in order, with a caption each (for reports). */
typedef struct gar_plot_file {
    char png[GAR_PLOT_NAME_BYTES];   /* file name inside the output folder */
    char caption[512];
    char trace[GAR_RESULTS_TEXT];    /* the trace's hash ("" for every trace) */
    char host[GAR_RESULTS_TEXT];     /* the host's hash */
    /* NULL, or lines of text (each ending '\n') naming the arms a pareto
     * plot draws on one point, one ringed group a line: "TRACE TAG (N arms
     * at p99 .., busy ..): ARM; ARM".  Owned: gar_plot_files_free. */
    char *listing;
} gar_plot_file;

typedef struct gar_plot_files {
    size_t count, capacity;
    gar_plot_file *file; /* grown as plots are drawn; owned: gar_plot_files_free */
    /* Staging (gar_plot_stage_begin): every file is written into `stage`, a
     * fresh folder inside `dir`, and moved into `dir` only by
     * gar_plot_stage_commit.  Zeroed (calloc), the plots go straight to the
     * `dir` each call names. */
    char dir[4096];
    char stage[4200];
    int made_dir; /* 1: `dir` did not exist and was made (removed on abort) */
    int stage_lock; /* while `stage` is set: the lock on its marker (sim/trace/leftover.h) */
    /* The command's colours: one per plan (or line) across all its plots
     * (plot_style.h). */
    gar_plot_palette palette;
    /* The figures left out, each in words with why: a per-wait figure of a
     * run that another build of gar made and this build's replay does not
     * reproduce (GAR_RESULTS_OTHER_BUILD).  At most GAR_PLOT_LACKING_MAX
     * kept; `lacking_more` counts the rest. */
    size_t lacking_count, lacking_more;
    char lacking[GAR_PLOT_LACKING_MAX][1024];
} gar_plot_files;

/* Gives every plan of `arms` its colour in `files`' palette, in the
 * database's plan order, so a plan's colour does not depend on which plot
 * met it first.  The plot calls do it too; a report does it before its
 * auto plots, whose poll and block then match. */
void gar_plot_palette_seed(gar_plot_files *files, const gar_arm_list *arms);

/* Frees `files` (calloc'd) with the listings its plots hold; NULL is a no-op. */
void gar_plot_files_free(gar_plot_files *files);

/* Output, all or nothing: one command's files (scripts, data, PNGs, a
 * report) appear together or not at all.  gar_plot_stage_begin creates
 * `dir` when missing and a staging folder `.gar-stage-PID-HOST-XXXXXX`
 * inside it (so the final renames stay on one file system), holding gar's
 * marker, locked while the run lasts (sim/trace/leftover.h): begin first removes
 * the staging folders there whose marker no one holds, a killed run's
 * leftovers (a folder without the marker is never touched).  The plot calls then write
 * there, whatever `dir` they are given.  gar_plot_stage_commit syncs every
 * staged file and renames each into `dir` (replacing older files of the
 * same name), then removes the staging folder; only a failing rename, after
 * everything was complete, can leave a part.  gar_plot_stage_abort removes
 * the staging folder with its files, and `dir` when begin made it.
 * Begin and commit return 0 or -GAR_E_IO (path, operation, why). */
int gar_plot_stage_begin(const char *dir, gar_plot_files *files, gar_error *err);
int gar_plot_stage_commit(gar_plot_files *files, gar_error *err);
void gar_plot_stage_abort(gar_plot_files *files);

/* The folder files of this command are written into now: the staging
 * folder while staging, else `dir`. */
const char *gar_plot_out_dir(const gar_plot_files *files, const char *dir);

/* Refuses with GAR_E_IO ("gnuplot", "run", why) when no gnuplot is on PATH. */
int gar_plot_check_gnuplot(gar_error *err);

/* One pareto-HOST-MODE plot per host and mode of `arms`. */
int gar_plot_pareto(const gar_arm_list *arms, const char *dir, gar_plot_files *files,
                    gar_error *err);

/* One param-NAME-HOST-MODE plot per swept numeric parameter (run_params),
 * profile and mode where it takes two values or more: p99 overshoot and
 * busy CPU against the value, one line per plan family / estimator family,
 * each point the mean over the ok runs with that value (seeds, traces and
 * the other swept values).  HOST is the profile's short name: what-if
 * variants of one profile share a plot.  Draws nothing for a database
 * without swept parameters.  Returns 0, -GAR_E_IO or -GAR_E_CAPACITY. */
int gar_plot_params(gar_db *db, const char *dir, gar_plot_files *files, gar_error *err);

/* The CDF plot of the trace with content hash `trace`, one per host and mode. */
int gar_plot_cdf(gar_db *db, const gar_arm_list *arms, const char *trace, const char *dir,
                 gar_plot_files *files, gar_error *err);

/* The prediction plot of one run. */
int gar_plot_prediction(gar_db *db, const gar_run_key *run, const char *dir,
                        gar_plot_files *files, gar_error *err);

/* The run a prediction plot shows by default for `trace`: on its first host
 * and mode, the first plan with predict (flag before poll, bands last) under
 * `adl` (or the first estimator), least seed.  Returns 1 with `out`, 0 when
 * the trace has no run with predict, or -GAR_E_IO. */
int gar_plot_pick_prediction_run(gar_db *db, const gar_arm_list *arms, const char *trace,
                                 gar_run_key *out, gar_error *err);

/* One verification's plot, verify-N (N its 1-based place in the report):
 * the real and the simulated overshoot CDFs on one chart (log overshoot
 * axis), from the 201 stored quantiles of each. */
struct gar_verification;
int gar_plot_verification(const struct gar_verification *v, unsigned n, const char *dir,
                          gar_plot_files *files, gar_error *err);

/* One auto-HOST-MODE plot per host and mode of `goals` (auto_goals.h), a
 * panel per trace: busy CPU against the budget (both log), auto's beside
 * the ex-post best fixed arm's (where one meets the budget), poll's and
 * block's, each that trace's own: traces are never averaged, their
 * workloads being unlike.  Returns 0, -GAR_E_IO or -GAR_E_CAPACITY. */
struct gar_auto_goals;
/* Gives auto's two series (auto, the best fixed arm) the palette's first
 * colours: before the plans are seeded, their colours then stay apart from
 * every plan's in the first sixteen.  gar_plot_auto_budgets does it too. */
void gar_plot_auto_palette(gar_plot_files *files);
int gar_plot_auto_budgets(const struct gar_auto_goals *goals, const char *dir,
                          gar_plot_files *files, gar_error *err);

/* Finds a trace of `arms` by short name, name or hash (prefix of at least 4
 * hex digits).  NULL `which` picks the first.  Returns the arm index of its
 * first arm, or -1 when none matches. */
long gar_plot_find_trace(const gar_arm_list *arms, const char *which);

/* Creates `dir` (one level) when missing.  Returns 0 or -GAR_E_IO. */
int gar_plot_make_dir(const char *dir, gar_error *err);

#endif
