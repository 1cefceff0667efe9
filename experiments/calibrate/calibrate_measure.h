/* experiments/calibrate/calibrate_measure.h — what the calibration measures
 * on this host and how long (calibrate_measure.c): the fixed costs of a
 * query and a clock read, sleeps, blocks and parks, each on the primitives
 * a real wait uses.  calibrate_measure.c also owns gar_calibrate_seen_after
 * (calibrate.h).  For experiments/calibrate/ only. */
#ifndef GAR_CALIBRATE_MEASURE_H
#define GAR_CALIBRATE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/emulated.h>
#include <gar/port.h>

#include "calibrate/calibrate.h"
#include "calibrate/calibrate_rounds.h"

#define US GAR_NS_PER_US
#define MS GAR_NS_PER_MS

/* Spreads of the waits measured, log-uniform between the two ends.  Sleeps
 * and blocks span the five lead bands (56 µs to 17.8 ms,
 * gar_cal_in_lead_band): how late a sleeping thread wakes depends on how
 * long its CPU idled (a longer idle is a deeper one, and on a virtual
 * machine the vCPU itself may be descheduled), so each lead gets its own
 * distribution.  Parks and polls spin, so their spreads are kept short. */
#define PARK_LEAD_SHORTEST (20 * US)
#define PARK_LEAD_LONGEST (1 * MS)
#define POLL_BURST_SHORTEST (100 * US)
#define POLL_BURST_LONGEST (5 * MS)
#define POLL_GAP (100 * US) /* the host's own work between two waits */
#define POLL_LEAD (300 * US) /* a visibility poll starts this long before the completion */
#define POLL_RUN_NS (2 * GAR_NS_PER_S)
#define POLL_RUN_QUICK_NS (200 * MS)
#define COST_BATCHES 64
#define COST_CALLS 1000
#define DEVICE_HEAD_START (5 * MS) /* from starting a device to its first item */
#define POLL_SAMPLE_EVERY 64         /* poll turns kept: one in this many */
#define POLL_SAMPLES_MAX (1u << 20)  /* and at most this many: a ppm still holds a turn */

_Static_assert(GAR_CALIBRATE_ROUNDS == 3, "the profile's round lines list three");

/* The cost of one query of `port` (ns, the median over batches), each
 * round's median written to round[]. */
gar_dur_ns gar_cal_query_cost(gar_port port, gar_dur_ns round[GAR_CALIBRATE_ROUNDS]);

/* Likewise, the cost of one clock read. */
gar_dur_ns gar_cal_clock_cost(gar_dur_ns round[GAR_CALIBRATE_ROUNDS]);

/* m sleeps into `set`, their lengths taking the lead bands in turn.
 * Returns 0 or the refusal. */
int gar_cal_measure_sleep(gar_idle idle, size_t m, uint64_t *rng, sample_set *set,
                          gar_error *err);

/* Stops a device (NULL: none started) and waits for its thread, keeping
 * nothing of its completions. */
void gar_cal_stop_device(gar_emulated_device *dev);

/* Starts a device on `device_cpu` whose one item stays pending for an hour,
 * into `*dev` and the item's port `*pending`.  Returns 0 or the refusal. */
int gar_cal_start_pending_device(gar_idle idle, int device_cpu, gar_emulated_device **dev,
                                 gar_port *pending, gar_error *err);

/* m blocking waits into `set`, on items as far apart as the lead bands.
 * Returns 0 or the refusal. */
int gar_cal_measure_block(gar_idle idle, int device_cpu, size_t m, uint64_t *rng,
                          sample_set *set, gar_error *err);

/* m parks (as a flag wait issues them) or, with `poll`, m poll waits run by
 * the inline driver, into `set`; each wake less `less`.  Returns 0 or the
 * refusal. */
int gar_cal_measure_seen(gar_idle idle, int device_cpu, size_t m, uint64_t *rng, bool poll,
                         gar_dur_ns less, sample_set *set, gar_error *err);

#endif
