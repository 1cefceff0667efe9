/* experiments/report/plot_waits.h — every wait of a stored run, for the
 * plots that need them (the CDF, the prediction plot), and which run of an
 * arm such a plot shows.
 *
 * The database keeps no per-wait figures: the run is re-run with the
 * replay's per-wait observer (gar_results_rerun), which refuses when the
 * replay no longer reproduces the stored metrics of a run this build made;
 * a run another build made is left out instead, and said (plot.h). */
#ifndef GAR_PLOT_WAITS_H
#define GAR_PLOT_WAITS_H

#include <stdbool.h>
#include <stddef.h>

#include <gar/error.h>

#include "report/plot.h"

/* One run's waits, in trace order. */
typedef struct gar_plot_waits {
    size_t count, capacity;
    double *overshoot_us;
    double *truth_us;
    double *prediction_us; /* NaN where there was none */
    bool failed;           /* out of memory */
} gar_plot_waits;

/* Re-runs `key` into `log`.  Returns 0 with the run's waits, or
 * GAR_RESULTS_OTHER_BUILD (noted in `files` as what `figure` lacks; no
 * waits kept), or a refusal (negated code; GAR_E_CAPACITY without memory). */
int gar_plot_rerun(gar_db *db, const gar_run_key *key, gar_plot_waits *log,
                   gar_plot_files *files, const char *figure, gar_error *err);

/* Frees the waits and empties `log`. */
void gar_plot_waits_free(gar_plot_waits *log);

/* The estimator a per-plan plot uses for `like`'s plan (same trace, host
 * and mode) when it has predict: adl when stored, else the first stored.
 * NULL when no usable arm has one. */
const char *gar_plot_estimator(const gar_arm_list *arms, const gar_arm_summary *like);

#endif
