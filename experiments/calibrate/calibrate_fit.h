/* experiments/calibrate/calibrate_fit.h — the calibration's arithmetic
 * (calibrate_fit.c): a seeded log-uniform spread, and the fitting of sorted
 * samples into a distribution at the levels a profile lists.  calibrate_fit.c
 * also owns gar_calibrate_rank (calibrate.h).  For experiments/calibrate/
 * only. */
#ifndef GAR_CALIBRATE_FIT_H
#define GAR_CALIBRATE_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calibrate/calibrate.h"

/* A length drawn log-uniformly in [lo, hi] from the splitmix64 `*state`:
 * the schedules only need to be spread, and the same every run. */
gar_dur_ns gar_cal_log_uniform(uint64_t *state, gar_dur_ns lo, gar_dur_ns hi);

/* qsort's order of two gar_dur_ns: -1, 0 or 1. */
int gar_cal_compare_ns(const void *a, const void *b);

/* Fits sorted v[0..n-1] into `out`, time-weighted or not.  Returns false
 * when memory runs out. */
bool gar_cal_fit_dist(const gar_dur_ns *v, size_t n, bool time_weighted,
                      gar_calibrated_dist *out);

/* Sets `err` to GAR_E_BACKEND: no memory for `what`.  Returns -GAR_E_BACKEND. */
int gar_cal_no_memory(gar_error *err, const char *what);

#endif
