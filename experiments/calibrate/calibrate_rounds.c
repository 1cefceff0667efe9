/* experiments/calibrate/calibrate_rounds.c — rounds and their spread,
 * slices, the sample sets they fill, and the lead bands
 * (calibrate_rounds.h). */
#define _POSIX_C_SOURCE 200809L

#include "calibrate/calibrate_rounds.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/host_dist.h"
#include "calibrate/calibrate_fit.h"

bool gar_calibrate_rounds_disagree(const gar_dur_ns *round, unsigned rounds)
{
    assert(round != NULL && rounds >= 1);
    gar_dur_ns lo = round[0], hi = round[0];
    for (unsigned r = 1; r < rounds; r++) {
        lo = round[r] < lo ? round[r] : lo;
        hi = round[r] > hi ? round[r] : hi;
    }
    return hi - lo > GAR_CALIBRATE_NOISE_ABS_NS &&
           (double)(hi - lo) > GAR_CALIBRATE_NOISE_REL * (double)lo;
}

/* The time-weighted quantile of sorted v[0..n-1]: the least value such
 * that the samples up to it hold `level_ppm` of their total. */
static gar_dur_ns time_weighted_rank(const gar_dur_ns *v, size_t n, uint32_t level_ppm)
{
    double total = 0, want, sum = 0;
    for (size_t i = 0; i < n; i++)
        total += (double)v[i];
    want = total * level_ppm / 1e6;
    for (size_t i = 0; i < n; i++) {
        sum += (double)v[i];
        if (sum >= want)
            return v[i];
    }
    return v[n - 1];
}

bool gar_calibrate_judge_rounds(gar_dur_ns *samples, const size_t *round_end, const char *key,
                                bool time_weighted, gar_calibrate_spread out[2])
{
    static const uint32_t levels[2] = { 500000, 900000 };
    size_t begin = 0;
    for (unsigned k = 0; k < 2; k++)
        snprintf(out[k].what, sizeof out[k].what, "%s p%u", key, levels[k] / 10000);
    for (unsigned r = 0; r < GAR_CALIBRATE_ROUNDS; r++) {
        size_t end = round_end[r], count = end > begin ? end - begin : 0;
        if (count > 0)
            qsort(samples + begin, count, sizeof *samples, gar_cal_compare_ns);
        for (unsigned k = 0; k < 2; k++)
            out[k].round[r] = count == 0   ? 0
                              : time_weighted ? time_weighted_rank(samples + begin, count, levels[k])
                                              : gar_calibrate_rank(samples + begin, count, levels[k]);
        if (end > begin)
            begin = end;
    }
    bool any = false;
    for (unsigned k = 0; k < 2; k++) {
        out[k].noisy = gar_calibrate_rounds_disagree(out[k].round, GAR_CALIBRATE_ROUNDS);
        any = any || out[k].noisy;
    }
    return any;
}

unsigned gar_calibrate_kept_round(const gar_calibrate_spread spread[2],
                                  const size_t round_end[GAR_CALIBRATE_ROUNDS])
{
    if (!spread[0].noisy && !spread[1].noisy)
        return GAR_CALIBRATE_ROUNDS;
    unsigned best = GAR_CALIBRATE_ROUNDS;
    size_t begin = 0;
    for (unsigned r = 0; r < GAR_CALIBRATE_ROUNDS; r++) {
        size_t end = round_end[r];
        if (end > begin &&
            (best == GAR_CALIBRATE_ROUNDS || spread[1].round[r] < spread[1].round[best] ||
             (spread[1].round[r] == spread[1].round[best] &&
              spread[0].round[r] < spread[0].round[best])))
            best = r;
        if (end > begin)
            begin = end;
    }
    return best;
}


/* A slot for one more spread of `cal` (the table has room for every one
 * the calibration takes). */
gar_calibrate_spread *gar_cal_next_spreads(gar_calibration *cal, unsigned count)
{
    assert(cal->spreads + count <= GAR_CALIBRATE_SPREADS_MAX);
    gar_calibrate_spread *s = &cal->spread[cal->spreads];
    cal->spreads += count;
    return s;
}

void gar_cal_judge_and_keep(const gar_dur_ns *samples, gar_dur_ns *scratch, size_t n,
                            const size_t *round_end, const char *key, bool time_weighted,
                            gar_calibration *cal, size_t *first, size_t *count)
{
    memcpy(scratch, samples, n * sizeof *scratch);
    gar_calibrate_spread *spread = gar_cal_next_spreads(cal, 2);
    cal->noisy |= gar_calibrate_judge_rounds(scratch, round_end, key, time_weighted, spread);
    unsigned kept = cal->keep_quietest ? gar_calibrate_kept_round(spread, round_end)
                                       : GAR_CALIBRATE_ROUNDS;
    spread[0].kept = spread[1].kept = kept;
    *first = 0;
    *count = n;
    if (kept < GAR_CALIBRATE_ROUNDS) {
        *first = kept == 0 ? 0 : round_end[kept - 1];
        *count = round_end[kept] - *first;
    }
}


/* The round slice s belongs to. */
unsigned gar_cal_round_of_slice(unsigned s)
{
    return s * GAR_CALIBRATE_ROUNDS / CALIBRATION_SLICES;
}

/* Slice s's share of n items: n split as evenly as integers allow. */
size_t gar_cal_slice_share(size_t n, unsigned s)
{
    return n * (s + 1) / CALIBRATION_SLICES - n * s / CALIBRATION_SLICES;
}


/* Room for `capacity` samples; returns false when memory runs out. */
bool gar_cal_set_init(sample_set *set, size_t capacity, bool by_lead)
{
    *set = (sample_set){ .capacity = capacity };
    set->v = malloc((capacity > 0 ? capacity : 1) * sizeof *set->v);
    set->lead = by_lead ? malloc(capacity > 0 ? capacity : 1) : NULL;
    return set->v != NULL && (!by_lead || set->lead != NULL);
}

void gar_cal_set_free(sample_set *set)
{
    free(set->v);
    free(set->lead);
}

void gar_cal_set_add(sample_set *set, gar_dur_ns v, unsigned lead)
{
    assert(set->count < set->capacity);
    if (set->lead != NULL)
        set->lead[set->count] = (uint8_t)lead;
    set->v[set->count++] = v;
}

/* Slice s is over: its round ends, so far, at the samples taken. */
void gar_cal_set_end_slice(sample_set *set, unsigned s)
{
    set->round_end[gar_cal_round_of_slice(s)] = set->count;
}

unsigned gar_calibrate_lead_of(gar_dur_ns ns)
{
    return (unsigned)gar_host_lead_nearest(ns, (1u << GAR_HOST_LEADS) - 1);
}

/* A length drawn log-uniformly in lead k's band: from its lead over
 * 10^(1/4) to its lead times 10^(1/4), so the five bands meet near the
 * geometric midpoints of the leads (which are 3.16 and 3.33 apart). */
gar_dur_ns gar_cal_in_lead_band(uint64_t *rng, unsigned k)
{
    const double quarter_decade = 1.7782794100389228; /* 10^(1/4) */
    double lead = (double)gar_host_lead_ns(k);
    return gar_cal_log_uniform(rng, (gar_dur_ns)(lead / quarter_decade),
                               (gar_dur_ns)(lead * quarter_decade));
}

/* The fewest samples a lead's own distribution is fitted from: fewer would
 * state a p99 from one or two wakes. */
#define LEAD_SAMPLES_MIN 100

/* Fits the kept samples v[0..n-1] (lead[i] their lead) into the pooled
 * distribution `base` and one per lead with enough samples, and judges
 * their rounds (round_end as gar_calibrate_judge_rounds) into `cal`.  Uses
 * v as scratch.  Returns 0 or the out-of-memory refusal. */
int gar_cal_fit_by_lead(gar_dur_ns *v, const uint8_t *lead, size_t n, const size_t *round_end,
                        const char *key, gar_calibrated_dist *base,
                        gar_calibrated_dist at[GAR_HOST_LEADS], gar_calibration *cal,
                        gar_error *err)
{
    gar_dur_ns *part = malloc((n > 0 ? n : 1) * sizeof *part);
    if (part == NULL)
        return gar_cal_no_memory(err, "fitting by lead");
    size_t first, count;
    gar_cal_judge_and_keep(v, part, n, round_end, key, false, cal, &first, &count);
    v += first;
    lead += first;
    bool ok = true;
    for (unsigned k = 0; k < GAR_HOST_LEADS && ok; k++) {
        size_t m = 0;
        for (size_t i = 0; i < count; i++)
            if (lead[i] == k)
                part[m++] = v[i];
        memset(&at[k], 0, sizeof at[k]);
        if (m >= LEAD_SAMPLES_MIN) {
            qsort(part, m, sizeof *part, gar_cal_compare_ns);
            ok = gar_cal_fit_dist(part, m, false, &at[k]);
        }
    }
    free(part);
    if (ok) {
        qsort(v, count, sizeof *v, gar_cal_compare_ns);
        ok = gar_cal_fit_dist(v, count, false, base);
    }
    return ok ? 0 : gar_cal_no_memory(err, "fitting by lead");
}
