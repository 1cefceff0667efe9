/* experiments/calibrate/calibrate_poll.h — the poll loop measured as waits
 * run it, and the fits of the turns and of the wakes (calibrate_poll.c).
 * For experiments/calibrate/ only. */
#ifndef GAR_CALIBRATE_POLL_H
#define GAR_CALIBRATE_POLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calibrate/calibrate.h"
#include "calibrate/calibrate_rounds.h"

/* Poll turns, one in POLL_SAMPLE_EVERY: uniform in expectation, and few
 * enough that one part per million of them (the finest level a profile
 * states) is about one turn, so the top segment between the two largest is
 * not smeared over thousands of turns. */
typedef struct turn_record {
    gar_dur_ns *turns;
    size_t count, capacity;
    uint64_t seen;
    size_t round_end[GAR_CALIBRATE_ROUNDS];
    gar_mono_ns prev;   /* the clock's last reading in this wait */
    bool started;       /* a reading was taken in this wait */
} turn_record;

/* A record with room for every kept turn, touched before the loop; NULL
 * when memory runs out. */
turn_record *gar_cal_turn_record_new(void);
void gar_cal_turn_record_free(turn_record *r);

/* Poll loops as waits run them, for `run_ns` of spinning, into `r`.
 * Returns 0 or the refusal. */
int gar_cal_measure_poll(gar_idle idle, int device_cpu, gar_dur_ns run_ns, uint64_t *rng,
                         turn_record *r, gar_error *err);

/* Fits the recorded turns into cal->poll_period, less what the simulator
 * charges apart (`charged_apart`), and their mean.  Returns 0 or the
 * refusal. */
int gar_cal_fit_poll(turn_record *r, gar_dur_ns charged_apart, gar_calibration *cal,
                     gar_error *err);

/* Fits a wake measurement's samples into `base` (and, split by lead, `at`;
 * NULL: not split), judging their rounds as `key`.  Returns 0, or the
 * refusal of a measurement none of whose waits saw its work pending. */
int gar_cal_fit_wakes(sample_set *set, const char *key, gar_calibrated_dist *base,
                      gar_calibrated_dist *at, gar_calibration *cal, gar_error *err);

#endif
