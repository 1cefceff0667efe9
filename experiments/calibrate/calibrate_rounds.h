/* experiments/calibrate/calibrate_rounds.h — how the calibration's samples
 * are gathered and judged (calibrate_rounds.c): slices, rounds and their
 * spread, the sample sets the slices fill, and the lead bands.
 * calibrate_rounds.c also owns gar_calibrate_rounds_disagree,
 * gar_calibrate_judge_rounds, gar_calibrate_kept_round and
 * gar_calibrate_lead_of (calibrate.h).  For experiments/calibrate/ only. */
#ifndef GAR_CALIBRATE_ROUNDS_H
#define GAR_CALIBRATE_ROUNDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calibrate/calibrate.h"

/* The calibration runs in CALIBRATION_SLICES slices, one after the other,
 * each measuring its share of every distribution in turn (the poll loop,
 * the store's visibility, the sleeps, the blocks, the parks), so that each
 * distribution's samples are spread over the whole run rather than taken in
 * one stretch of it: on a virtual machine the cost of a store crossing to
 * another CPU, or of a wake, moves from one second to the next with where
 * the vCPUs run, and a distribution measured in a few contiguous seconds
 * states the stretch it met (sim/README.md, "What any model could score
 * here").  Round r of a distribution is its samples from the r-th third of
 * the slices. */
#define CALIBRATION_SLICES 12
_Static_assert(CALIBRATION_SLICES % GAR_CALIBRATE_ROUNDS == 0, "rounds of whole slices");

/* One distribution's samples as the slices add them: the values, the lead
 * each is filed under (lead NULL: not split by lead), and where each round
 * ends (as gar_calibrate_judge_rounds takes it).  `issued` counts the items
 * asked for, kept or not, so that the lead bands take turns across slices. */
typedef struct sample_set {
    gar_dur_ns *v;
    uint8_t *lead;
    size_t count, capacity, issued;
    size_t round_end[GAR_CALIBRATE_ROUNDS];
} sample_set;

/* The round slice s belongs to. */
unsigned gar_cal_round_of_slice(unsigned s);

/* Slice s's share of n items: n split as evenly as integers allow. */
size_t gar_cal_slice_share(size_t n, unsigned s);

/* Room for `capacity` samples (with a lead each when `by_lead`).  Returns
 * false when memory runs out. */
bool gar_cal_set_init(sample_set *set, size_t capacity, bool by_lead);
void gar_cal_set_free(sample_set *set);

/* Adds sample `v`, filed under lead band `lead`. */
void gar_cal_set_add(sample_set *set, gar_dur_ns v, unsigned lead);

/* Slice s is over: its round ends, so far, at the samples taken. */
void gar_cal_set_end_slice(sample_set *set, unsigned s);

/* A slot for `count` more spreads of `cal` (the table has room for every
 * one the calibration takes). */
gar_calibrate_spread *gar_cal_next_spreads(gar_calibration *cal, unsigned count);

/* Judges the rounds of samples[0..n-1] (left in their order: judged on a
 * copy in `scratch`) into two new spreads of `cal`, and narrows [*first,
 * *count) to the round the fit keeps (gar_calibrate_kept_round). */
void gar_cal_judge_and_keep(const gar_dur_ns *samples, gar_dur_ns *scratch, size_t n,
                            const size_t *round_end, const char *key, bool time_weighted,
                            gar_calibration *cal, size_t *first, size_t *count);

/* A length drawn log-uniformly in lead band k (around its lead, the bands
 * meeting near the geometric midpoints of the leads). */
gar_dur_ns gar_cal_in_lead_band(uint64_t *rng, unsigned k);

/* Fits the kept samples v[0..n-1] (lead[i] their lead) into the pooled
 * distribution `base` and one per lead with enough samples, and judges
 * their rounds into `cal`.  Uses v as scratch.  Returns 0 or the
 * out-of-memory refusal. */
int gar_cal_fit_by_lead(gar_dur_ns *v, const uint8_t *lead, size_t n, const size_t *round_end,
                        const char *key, gar_calibrated_dist *base,
                        gar_calibrated_dist at[GAR_HOST_LEADS], gar_calibration *cal,
                        gar_error *err);

#endif
