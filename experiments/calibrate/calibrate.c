/* experiments/calibrate/calibrate.c — each number of a host profile, measured with the
 * primitives a real wait on this host uses.  What each one is: calibrate.h. */
#define _POSIX_C_SOURCE 200809L

#include "calibrate/calibrate.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/emulated.h>
#include <gar/wait.h>
#include <gar/wait_inline.h>

#include "core/host_dist.h"
#include "core/nearest_rank.h"
#include "core/splitmix64.h"
#include "backends/hosts/cpu_pin.h"

#define US GAR_NS_PER_US
#define MS GAR_NS_PER_MS

/* Spreads of the waits measured, log-uniform between the two ends.  Sleeps
 * and blocks span the five lead bands (56 µs to 17.8 ms, in_lead_band): how
 * late a sleeping thread wakes depends on how long its CPU idled (a longer
 * idle is a deeper one, and on a virtual machine the vCPU itself may be
 * descheduled), so each lead gets its own distribution.  Parks and polls
 * spin, so their spreads are kept short. */
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

/* The levels every distribution lists (the profile format requires them). */
static const uint32_t required_levels[] = { 0, 500000, 900000, 990000, 1000000 };

/* ---- a seeded spread ------------------------------------------------------ */

/* Spread by splitmix64: the schedules only need to be spread, and the same
 * every run. */
static gar_dur_ns log_uniform(uint64_t *state, gar_dur_ns lo, gar_dur_ns hi)
{
    double u = (double)(gar_splitmix64(state) >> 11) * 0x1.0p-53;
    return (gar_dur_ns)((double)lo * exp(u * log((double)hi / (double)lo)));
}

/* ---- quantiles ------------------------------------------------------------ */

gar_dur_ns gar_calibrate_rank(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm)
{
    assert(n >= 1 && level_ppm <= 1000000);
    return gar_nearest_rank(sorted, n, level_ppm);
}

static int compare_ns(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return (x > y) - (x < y);
}

/* ---- fitting a distribution's points ------------------------------------ *
 *
 * The simulator interpolates linearly between the listed points, so where a
 * distribution bends sharply (a body of µs and a tail of ms, as preemption
 * makes) a fixed set of levels smears the tail over a whole band: p90 at
 * 80 µs and p99 at 4 ms would make one draw in ten land uniformly between
 * them.  So the points are chosen greedily, as a polyline is simplified:
 * start from the required levels, then add, up to GAR_HOST_QUANTILES_MAX,
 * the empirical point the fit is furthest from.  The distance is the error
 * in cumulative probability at that point's value (the quantity a KS
 * statistic reads); for the poll period it is measured on the share of time
 * spent in turns up to that level instead, because a poll wait's overshoot is
 * the rest of the turn its completion falls in — turns weigh by their length. */

typedef struct point {
    uint32_t level; /* ppm */
    gar_dur_ns value;
} point;

/* The empirical points of sorted v[0..n-1]: for each rank r, both ends of
 * the run of levels whose nearest-rank quantile is v[r-1] — the least level
 * above (r-1)/n and the greatest at most r/n — so the fit can follow a jump
 * between two values as a step, not a ramp.  Level 0 (the least value) and
 * level 10^6 (the largest) are among them.  mass[k] (time-weighted fits
 * only) is the time in the samples up to point k: those below its rank, and
 * at a run's upper end the sample itself.  A rank whose run holds no level
 * (more values than ppm) is skipped.  Returns the number of points, at most
 * 2n. */
static size_t empirical_points(const gar_dur_ns *v, size_t n, point *pts, double *mass)
{
    size_t k = 0;
    double below = 0;
    for (size_t r = 1; r <= n; r++) {
        uint64_t first = r == 1 ? 0 : (uint64_t)(r - 1) * 1000000 / n + 1;
        uint64_t last = (uint64_t)r * 1000000 / n;
        double after = below + (double)v[r - 1];
        if (first <= last && (k == 0 || first > pts[k - 1].level)) {
            pts[k] = (point){ (uint32_t)first, v[r - 1] };
            if (mass != NULL)
                mass[k] = below;
            k++;
        }
        if (first < last) {
            pts[k] = (point){ (uint32_t)last, v[r - 1] };
            if (mass != NULL)
                mass[k] = after;
            k++;
        }
        below = after;
    }
    assert(pts[k - 1].level == 1000000); /* the run of rank n ends at 10^6 */
    if (mass != NULL)
        mass[k - 1] = below;
    return k;
}

/* The chosen point at or below `level` (chosen[] sorted, chosen[0].level 0). */
static unsigned segment_of(const point *chosen, unsigned count, uint32_t level)
{
    unsigned i = 0;
    while (i + 1 < count && chosen[i + 1].level <= level)
        i++;
    return i;
}

/* The time mass below `level`: that of the empirical point at or below it. */
static double mass_at(const point *pts, const double *mass, size_t np, uint32_t level)
{
    size_t lo = 0, hi = np; /* the last point with pts[].level <= level */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (pts[mid].level <= level)
            lo = mid;
        else
            hi = mid;
    }
    return mass[lo];
}

/* How far the fit through `chosen` is from empirical point k: in cumulative
 * probability (the interpolation's level at the point's value against the
 * point's level), or, time-weighted, in the share of time (the empirical
 * time share against the chord between the segment's ends — where the
 * chord misses, the turns' lengths change, and a point there lets the
 * interpolation follow). */
static double fit_error(const point *chosen, unsigned count, const point *pts,
                        const double *mass, size_t np, double total, size_t k)
{
    unsigned i = segment_of(chosen, count, pts[k].level);
    if (i + 1 == count)
        return 0; /* the last point itself */
    const point a = chosen[i], b = chosen[i + 1];
    const double span = (double)(b.level - a.level);
    if (mass == NULL) {
        if (b.value == a.value)
            return 0;
        double at = (double)a.level + span * ((double)pts[k].value - (double)a.value) /
                                          ((double)b.value - (double)a.value);
        return fabs(at - (double)pts[k].level) / 1e6;
    }
    double ma = mass_at(pts, mass, np, a.level), mb = mass_at(pts, mass, np, b.level);
    double chord = ma + (mb - ma) * ((double)pts[k].level - (double)a.level) / span;
    return fabs(mass[k] - chord) / total;
}

/* Inserts p into chosen[] (sorted by level) unless its level is there. */
static bool choose(point *chosen, unsigned *count, point p)
{
    unsigned i = 0;
    while (i < *count && chosen[i].level < p.level)
        i++;
    if (i < *count && chosen[i].level == p.level)
        return false;
    memmove(&chosen[i + 1], &chosen[i], (*count - i) * sizeof *chosen);
    chosen[i] = p;
    (*count)++;
    return true;
}

/* Fits sorted v[0..n-1] into `out`, time-weighted or not.  Returns false
 * when memory runs out. */
static bool fit_dist(const gar_dur_ns *v, size_t n, bool time_weighted, gar_calibrated_dist *out)
{
    assert(n >= 1);
    point *pts = malloc(2 * n * sizeof *pts);
    double *mass = time_weighted ? malloc(2 * n * sizeof *mass) : NULL;
    if (pts == NULL || (time_weighted && mass == NULL)) {
        free(pts);
        free(mass);
        return false;
    }
    size_t np = empirical_points(v, n, pts, mass);
    double total = 0;
    if (time_weighted)
        for (size_t r = 0; r < n; r++)
            total += (double)v[r];
    if (time_weighted && total <= 0)
        total = 1;

    point chosen[GAR_HOST_QUANTILES_MAX];
    unsigned count = 0;
    for (size_t i = 0; i < sizeof required_levels / sizeof required_levels[0]; i++)
        choose(chosen, &count,
               (point){ required_levels[i], gar_calibrate_rank(v, n, required_levels[i]) });
    while (count < GAR_HOST_QUANTILES_MAX) {
        double worst = 0;
        size_t at = 0;
        for (size_t k = 0; k < np; k++) {
            double e = fit_error(chosen, count, pts, mass, np, total, k);
            if (e > worst) {
                worst = e;
                at = k;
            }
        }
        if (worst < 1e-4 || !choose(chosen, &count, pts[at]))
            break; /* within a hundredth of a percent everywhere: nothing left to gain */
    }
    out->dist.count = count;
    out->samples = n;
    for (unsigned i = 0; i < count; i++) {
        out->dist.level[i] = chosen[i].level;
        out->dist.value[i] = chosen[i].value;
    }
    free(pts);
    free(mass);
    return true;
}

static int no_memory(gar_error *err, const char *what)
{
    return gar_error_set(err, GAR_E_BACKEND, 2, what, strerror(ENOMEM));
}

/* ---- rounds and their spread ---------------------------------------------- */

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
            qsort(samples + begin, count, sizeof *samples, compare_ns);
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

/* Judges the rounds of samples[0..n-1] (left in their order: judged on a
 * copy in `scratch`) into two new spreads of `cal`, and narrows [*first,
 * *count) to the round the fit keeps (gar_calibrate_kept_round). */
static void judge_and_keep(const gar_dur_ns *samples, gar_dur_ns *scratch, size_t n,
                           const size_t *round_end, const char *key, bool time_weighted,
                           gar_calibration *cal, size_t *first, size_t *count);

/* A slot for one more spread of `cal` (the table has room for every one
 * the calibration takes). */
static gar_calibrate_spread *next_spreads(gar_calibration *cal, unsigned count)
{
    assert(cal->spreads + count <= GAR_CALIBRATE_SPREADS_MAX);
    gar_calibrate_spread *s = &cal->spread[cal->spreads];
    cal->spreads += count;
    return s;
}

static void judge_and_keep(const gar_dur_ns *samples, gar_dur_ns *scratch, size_t n,
                           const size_t *round_end, const char *key, bool time_weighted,
                           gar_calibration *cal, size_t *first, size_t *count)
{
    memcpy(scratch, samples, n * sizeof *scratch);
    gar_calibrate_spread *spread = next_spreads(cal, 2);
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

/* ---- slices --------------------------------------------------------------- *
 *
 * The calibration runs in CALIBRATION_SLICES slices, one after the other,
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

/* The round slice s belongs to. */
static unsigned round_of_slice(unsigned s)
{
    return s * GAR_CALIBRATE_ROUNDS / CALIBRATION_SLICES;
}

/* Slice s's share of n items: n split as evenly as integers allow. */
static size_t slice_share(size_t n, unsigned s)
{
    return n * (s + 1) / CALIBRATION_SLICES - n * s / CALIBRATION_SLICES;
}

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

/* Room for `capacity` samples; returns false when memory runs out. */
static bool set_init(sample_set *set, size_t capacity, bool by_lead)
{
    *set = (sample_set){ .capacity = capacity };
    set->v = malloc((capacity > 0 ? capacity : 1) * sizeof *set->v);
    set->lead = by_lead ? malloc(capacity > 0 ? capacity : 1) : NULL;
    return set->v != NULL && (!by_lead || set->lead != NULL);
}

static void set_free(sample_set *set)
{
    free(set->v);
    free(set->lead);
}

static void set_add(sample_set *set, gar_dur_ns v, unsigned lead)
{
    assert(set->count < set->capacity);
    if (set->lead != NULL)
        set->lead[set->count] = (uint8_t)lead;
    set->v[set->count++] = v;
}

/* Slice s is over: its round ends, so far, at the samples taken. */
static void set_end_slice(sample_set *set, unsigned s)
{
    set->round_end[round_of_slice(s)] = set->count;
}

/* ---- leads ---------------------------------------------------------------- */

unsigned gar_calibrate_lead_of(gar_dur_ns ns)
{
    return (unsigned)gar_host_lead_nearest(ns, (1u << GAR_HOST_LEADS) - 1);
}

/* A length drawn log-uniformly in lead k's band: from its lead over
 * 10^(1/4) to its lead times 10^(1/4), so the five bands meet near the
 * geometric midpoints of the leads (which are 3.16 and 3.33 apart). */
static gar_dur_ns in_lead_band(uint64_t *rng, unsigned k)
{
    const double quarter_decade = 1.7782794100389228; /* 10^(1/4) */
    double lead = (double)gar_host_lead_ns(k);
    return log_uniform(rng, (gar_dur_ns)(lead / quarter_decade),
                       (gar_dur_ns)(lead * quarter_decade));
}

/* The fewest samples a lead's own distribution is fitted from: fewer would
 * state a p99 from one or two wakes. */
#define LEAD_SAMPLES_MIN 100

/* Fits the kept samples v[0..n-1] (lead[i] their lead) into the pooled
 * distribution `base` and one per lead with enough samples, and judges
 * their rounds (round_end as gar_calibrate_judge_rounds) into `cal`.  Uses
 * v as scratch.  Returns 0 or the out-of-memory refusal. */
static int fit_by_lead(gar_dur_ns *v, const uint8_t *lead, size_t n, const size_t *round_end,
                       const char *key, gar_calibrated_dist *base,
                       gar_calibrated_dist at[GAR_HOST_LEADS], gar_calibration *cal,
                       gar_error *err)
{
    gar_dur_ns *part = malloc((n > 0 ? n : 1) * sizeof *part);
    if (part == NULL)
        return no_memory(err, "fitting by lead");
    size_t first, count;
    judge_and_keep(v, part, n, round_end, key, false, cal, &first, &count);
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
            qsort(part, m, sizeof *part, compare_ns);
            ok = fit_dist(part, m, false, &at[k]);
        }
    }
    free(part);
    if (ok) {
        qsort(v, count, sizeof *v, compare_ns);
        ok = fit_dist(v, count, false, base);
    }
    return ok ? 0 : no_memory(err, "fitting by lead");
}

/* ---- fixed costs ---------------------------------------------------------- */

static gar_dur_ns median_of(gar_dur_ns *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_ns);
    return v[n / 2];
}

/* The cost of one call (ns, the median over batches), each round's median
 * written to round[]. */
static gar_dur_ns query_cost(gar_port port, gar_dur_ns round[GAR_CALIBRATE_ROUNDS])
{
    gar_dur_ns per_call[GAR_CALIBRATE_ROUNDS * COST_BATCHES], one[COST_BATCHES];
    for (unsigned b = 0; b < GAR_CALIBRATE_ROUNDS * COST_BATCHES; b++) {
        gar_mono_ns t0 = gar_posix_now();
        int sum = 0;
        for (unsigned i = 0; i < COST_CALLS; i++)
            sum += port.ops->query(port.ctx, NULL);
        gar_mono_ns t1 = gar_posix_now();
        assert(sum == 0); /* the item is pending throughout */
        (void)sum;
        per_call[b] = (t1 - t0 + COST_CALLS / 2) / COST_CALLS;
    }
    for (unsigned r = 0; r < GAR_CALIBRATE_ROUNDS; r++) {
        memcpy(one, per_call + r * COST_BATCHES, sizeof one);
        round[r] = median_of(one, COST_BATCHES);
    }
    return median_of(per_call, GAR_CALIBRATE_ROUNDS * COST_BATCHES);
}

static gar_dur_ns clock_cost(gar_dur_ns round[GAR_CALIBRATE_ROUNDS])
{
    gar_dur_ns per_call[GAR_CALIBRATE_ROUNDS * COST_BATCHES], one[COST_BATCHES];
    for (unsigned b = 0; b < GAR_CALIBRATE_ROUNDS * COST_BATCHES; b++) {
        gar_mono_ns t0 = gar_posix_now(), last = t0;
        for (unsigned i = 0; i < COST_CALLS; i++)
            last = gar_posix_now();
        per_call[b] = (last - t0 + COST_CALLS / 2) / COST_CALLS;
    }
    for (unsigned r = 0; r < GAR_CALIBRATE_ROUNDS; r++) {
        memcpy(one, per_call + r * COST_BATCHES, sizeof one);
        round[r] = median_of(one, COST_BATCHES);
    }
    return median_of(per_call, GAR_CALIBRATE_ROUNDS * COST_BATCHES);
}

/* ---- sleep overshoot ------------------------------------------------------ */

/* m sleeps into `set`, their lengths taking the lead bands in turn. */
static int measure_sleep(gar_idle idle, size_t m, uint64_t *rng, sample_set *set, gar_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < m && rc == 0; i++) {
        gar_dur_ns length = in_lead_band(rng, (unsigned)(set->issued++ % GAR_HOST_LEADS));
        gar_mono_ns now = gar_posix_now(), target = now + length;
        rc = idle.ops->sleep_until(idle.ctx, target, err);
        gar_mono_ns woke = gar_posix_now();
        if (rc == 0)
            set_add(set, gar_since(woke, target), gar_calibrate_lead_of(length));
    }
    return rc;
}

/* ---- wakes after a device's completion ------------------------------------ */

/* A device whose n items (one stream) complete one after another, item j
 * `length(j)` after item j-1: a waiter that starts on item j as soon as item
 * j-1 returned waits about that long before the completion.  Lengths are
 * log-uniform in [shortest, longest], or, with shortest 0, in the band of
 * lead (first + j) mod 5.  `due` (may be NULL) gets the schedule. */
static int start_spread_device_at(gar_idle idle, int device_cpu, size_t n, size_t first,
                                  uint64_t *rng, gar_dur_ns shortest, gar_dur_ns longest,
                                  gar_emulated_device **dev, gar_mono_ns *due, gar_error *err)
{
    gar_emulated_item *items = malloc(n * sizeof *items);
    if (items == NULL)
        return no_memory(err, "allocating a calibration schedule");
    gar_mono_ns at = gar_posix_now() + DEVICE_HEAD_START;
    for (size_t j = 0; j < n; j++) {
        at += shortest == 0 ? in_lead_band(rng, (unsigned)((first + j) % GAR_HOST_LEADS))
                            : log_uniform(rng, shortest, longest);
        items[j] = (gar_emulated_item){ .stream = 0, .done_at = at };
        if (due != NULL)
            due[j] = at;
    }
    int rc = gar_emulated_device_start(dev, items, n, idle, device_cpu, err);
    free(items);
    return rc;
}

gar_dur_ns gar_calibrate_seen_after(const gar_mono_ns *readings, size_t kept, bool all,
                                    gar_mono_ns done, gar_dur_ns less)
{
    size_t i = kept - 1;
    while (i > 0 && readings[i - 1] >= done) /* back to the first reading at or after done */
        i--;
    /* The wait's first reading is its start, before the completion (else it
     * was not kept); a first reading past it among the kept ones, when older
     * ones were dropped, may not be the first after the completion. */
    gar_mono_ns from = readings[i] >= done && (i > 0 || all) ? readings[i] : done;
    gar_dur_ns d = gar_since(readings[kept - 1], from);
    return d > less ? d - less : 0;
}

/* A poll wait's last clock readings (one after each of its actions), in a
 * ring: about 12 µs of turns, enough to reach back to the first reading
 * after the completion through the store's visibility. */
#define SEEN_READINGS 512
typedef struct seen_readings {
    gar_mono_ns at[SEEN_READINGS];
    uint64_t count; /* readings made; the ring keeps the last SEEN_READINGS */
} seen_readings;

static gar_mono_ns seen_readings_now(void *ctx)
{
    seen_readings *r = ctx;
    gar_mono_ns t = gar_posix_now();
    r->at[r->count++ % SEEN_READINGS] = t;
    return t;
}

/* The ring's readings oldest first into `out`; returns how many. */
static size_t seen_in_order(const seen_readings *r, gar_mono_ns out[SEEN_READINGS])
{
    size_t kept = r->count < SEEN_READINGS ? (size_t)r->count : SEEN_READINGS;
    for (size_t i = 0; i < kept; i++)
        out[i] = r->at[(r->count - kept + i) % SEEN_READINGS];
    return kept;
}

/* Stops a device (NULL: none started) and waits for its thread, keeping
 * nothing of its completions: one a measurement gave up on, or one whose
 * item stays pending. */
static void stop_device(gar_emulated_device *dev)
{
    if (dev != NULL) {
        gar_emulated_device_stop(dev, NULL);
        gar_emulated_device_finish(dev, NULL, NULL);
    }
}

/* A device whose one item stays pending for an hour, on `device_cpu`, and
 * the port of that item: the fixed costs and the poll loop are timed on it. */
static int start_pending_device(gar_idle idle, int device_cpu, gar_emulated_device **dev,
                                gar_port *pending, gar_error *err)
{
    const gar_emulated_item forever[1] = { { 0, gar_posix_now() + 3600 * GAR_NS_PER_S } };
    int rc = gar_emulated_device_start(dev, forever, 1, idle, device_cpu, err);
    if (rc == 0)
        gar_emulated_device_port(*dev, 0, pending, NULL);
    return rc;
}

/* Ends a wake measurement on `dev` (stopped and finished here): adds to
 * `set` returned[j] - completion of item j - less (or, with `seen`, from the
 * first of item j's clock readings at or after its completion:
 * gar_calibrate_seen_after) for the items whose wait really waited
 * (returned[j] != GAR_MONO_NEVER), each filed by the lead it waited (its
 * completion less called[j]; called NULL: no leads). */
static int collect_wakes(gar_emulated_device *dev, const gar_mono_ns *returned,
                         const seen_readings *seen, const gar_mono_ns *called, size_t m,
                         gar_dur_ns less, sample_set *set, gar_error *err)
{
    gar_mono_ns *done = malloc(m * sizeof *done);
    if (done == NULL) {
        stop_device(dev);
        return no_memory(err, "allocating the completion times");
    }
    gar_emulated_device_finish(dev, done, NULL);
    for (size_t j = 0; j < m; j++) {
        if (returned[j] == GAR_MONO_NEVER || done[j] == GAR_MONO_NEVER)
            continue;
        gar_dur_ns d = gar_since(returned[j], done[j]);
        if (seen != NULL) {
            gar_mono_ns in_order[SEEN_READINGS];
            size_t readings = seen_in_order(&seen[j], in_order);
            d = gar_calibrate_seen_after(in_order, readings, seen[j].count <= SEEN_READINGS,
                                         done[j], 0);
        }
        unsigned lead = called != NULL ? gar_calibrate_lead_of(gar_since(done[j], called[j])) : 0;
        set_add(set, d > less ? d - less : 0, lead);
    }
    free(done);
    return 0;
}

/* m blocking waits into `set`, on items as far apart as the lead bands. */
static int measure_block(gar_idle idle, int device_cpu, size_t m, uint64_t *rng,
                         sample_set *set, gar_error *err)
{
    if (m == 0)
        return 0;
    gar_mono_ns *returned = malloc(m * sizeof *returned);
    gar_mono_ns *called = malloc(m * sizeof *called);
    if (returned == NULL || called == NULL) {
        free(returned);
        free(called);
        return no_memory(err, "allocating the block samples");
    }
    gar_emulated_device *dev = NULL;
    int rc = start_spread_device_at(idle, device_cpu, m, set->issued, rng, 0, 0, &dev, NULL, err);
    set->issued += m;
    for (size_t j = 0; j < m && rc == 0; j++) {
        gar_port port;
        gar_emulated_device_port(dev, j, &port, NULL);
        returned[j] = GAR_MONO_NEVER;
        if (port.ops->query(port.ctx, NULL) == 1) /* already done: no wake to time */
            continue;
        called[j] = gar_posix_now();
        rc = port.ops->block(port.ctx, err);
        returned[j] = gar_posix_now();
    }
    if (rc < 0)
        stop_device(dev);
    else
        rc = collect_wakes(dev, returned, NULL, called, m, 0, set, err);
    free(returned);
    free(called);
    return rc;
}

/* m parks (as a flag wait issues them) or, with `poll`, m poll waits run by
 * the inline driver, into `set`; each wake less `less`. */
static int measure_seen(gar_idle idle, int device_cpu, size_t m, uint64_t *rng, bool poll,
                        gar_dur_ns less, sample_set *set, gar_error *err)
{
    if (m == 0)
        return 0;
    gar_mono_ns *returned = malloc(m * sizeof *returned);
    gar_mono_ns *due = malloc(m * sizeof *due);
    gar_mono_ns *before = malloc(m * sizeof *before); /* the completion before each */
    seen_readings *seen = poll ? malloc(m * sizeof *seen) : NULL; /* each wait's last readings */
    if (returned == NULL || due == NULL || before == NULL || (poll && seen == NULL)) {
        free(returned);
        free(due);
        free(before);
        free(seen);
        return no_memory(err, "allocating the park samples");
    }
    gar_emulated_device *dev = NULL;
    gar_mono_ns started = gar_posix_now();
    /* Polls: the device idles as long as the lead bands between stores (a
     * device thread woken from a longer idle takes longer from its clock
     * reading to the store), while the poller sleeps to POLL_LEAD before each
     * completion and polls from there: a poll of milliseconds would be
     * preempted far more often than a wait's, and a preempted poller is the
     * poll turn's tail, not the store's visibility.  Parks: 20 µs to 1 ms. */
    int rc = poll ? start_spread_device_at(idle, device_cpu, m, set->issued, rng, 0, 0, &dev,
                                           due, err)
                  : start_spread_device_at(idle, device_cpu, m, set->issued, rng,
                                           PARK_LEAD_SHORTEST, PARK_LEAD_LONGEST, &dev, NULL, err);
    set->issued += m;
    const gar_plan poll_plan = { .park = GAR_PARK_POLL };
    /* Before its first item, the device idled from its start. */
    for (size_t j = 0; poll && rc >= 0 && j < m; j++)
        before[j] = j > 0 ? due[j - 1] : started;
    for (size_t j = 0; j < m && rc >= 0; j++) {
        gar_port port;
        gar_emulated_device_port(dev, j, &port, NULL);
        returned[j] = GAR_MONO_NEVER;
        if (poll) {
            if (gar_posix_now() + POLL_LEAD < due[j] &&
                (rc = idle.ops->sleep_until(idle.ctx, due[j] - POLL_LEAD, err)) < 0)
                break;
            seen_readings *readings = &seen[j];
            readings->count = 0;
            gar_wait_report report;
            const gar_clock clock = { .now = seen_readings_now, .ctx = readings };
            rc = gar_wait_inline(&poll_plan, false, 0, GAR_MONO_NEVER, port, clock, idle, &report,
                                 err);
            if (rc == 0 && report.kind == GAR_WAIT_KIND_PARKED) /* it saw the work pending */
                returned[j] = readings->at[(readings->count - 1) % SEEN_READINGS];
        } else {
            gar_descriptor word;
            port.ops->arm(port.ctx, &word, NULL);
            if (gar_descriptor_reached(&word))
                continue;
            do /* bounded parks, as a flag wait issues them, until the word moves */
                rc = port.ops->park(port.ctx, &word, gar_posix_now() + PARK_LEAD_LONGEST, err);
            while (rc == 0);
            if (rc > 0)
                returned[j] = gar_posix_now();
        }
    }
    if (rc < 0)
        stop_device(dev);
    else
        rc = collect_wakes(dev, returned, poll ? seen : NULL, poll ? before : NULL, m, less, set,
                           err);
    free(returned);
    free(due);
    free(before);
    free(seen);
    return rc;
}

/* ---- the poll loop -------------------------------------------------------- */

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

/* Kept turns go into a buffer allocated and touched before the loop: a
 * reallocation or a first touch of a page inside a turn would be timed as
 * part of it (a copy of megabytes, a page fault of microseconds). */
static void record_turn(turn_record *r, gar_dur_ns d)
{
    if (r->seen++ % POLL_SAMPLE_EVERY != 0 || r->count == r->capacity)
        return;
    r->turns[r->count++] = d;
}

/* The inline driver's clock: every reading after the first of a wait ends
 * one turn of its loop. */
static gar_mono_ns turn_clock_now(void *ctx)
{
    turn_record *r = ctx;
    gar_mono_ns t = gar_posix_now();
    if (r->started)
        record_turn(r, t - r->prev);
    r->prev = t;
    r->started = true;
    return t;
}

/* A record with room for every kept turn, touched before the loop; NULL
 * when memory runs out. */
static turn_record *turn_record_new(void)
{
    turn_record *r = calloc(1, sizeof *r);
    if (r != NULL) {
        r->capacity = POLL_SAMPLES_MAX;
        r->turns = malloc(r->capacity * sizeof *r->turns);
        if (r->turns == NULL) {
            free(r);
            return NULL;
        }
        memset(r->turns, 0, r->capacity * sizeof *r->turns);
    }
    return r;
}

static void turn_record_free(turn_record *r)
{
    if (r != NULL)
        free(r->turns);
    free(r);
}

/* Poll loops as waits run them, for `run_ns` of spinning, into `r`: the
 * inline driver itself, in waits as long as bursts of GPU work, on an item
 * of a device of its own that stays pending (each wait ends at its
 * deadline), the host sleeping between them.  (A scheduler treats a thread
 * that spins for seconds on end unlike one that spins for a wait and sleeps:
 * the first is preempted far more, and would be charged to every simulated
 * poll.) */
static int measure_poll(gar_idle idle, int device_cpu, gar_dur_ns run_ns, uint64_t *rng,
                        turn_record *r, gar_error *err)
{
    gar_emulated_device *dev;
    gar_port pending;
    int rc = start_pending_device(idle, device_cpu, &dev, &pending, err);
    if (rc < 0)
        return rc;
    const gar_plan poll = { .park = GAR_PARK_POLL };
    const gar_clock clock = { .now = turn_clock_now, .ctx = r };
    for (gar_dur_ns spun = 0; spun < run_ns;) {
        gar_dur_ns burst = log_uniform(rng, POLL_BURST_SHORTEST, POLL_BURST_LONGEST);
        gar_mono_ns start = gar_posix_now();
        r->started = false;
        gar_error wait_err;
        rc = gar_wait_inline(&poll, false, 0, start + burst, pending, clock, idle, NULL,
                             &wait_err);
        if (rc != -GAR_E_WAIT_DEADLINE) { /* the work never completes */
            rc = gar_error_set(err, GAR_E_BACKEND, 2, "timing the poll loop",
                               "a poll wait on work that stays pending did not time out");
            break;
        }
        rc = 0;
        spun += gar_since(gar_posix_now(), start);
        if ((rc = idle.ops->sleep_until(idle.ctx, gar_posix_now() + POLL_GAP, err)) < 0)
            break;
    }
    stop_device(dev);
    return rc;
}

/* Fits the recorded turns into cal->poll_period, less what the simulator
 * charges apart (`charged_apart`: a query and a clock read), and their mean. */
static int fit_poll(turn_record *r, gar_dur_ns charged_apart, gar_calibration *cal,
                    gar_error *err)
{
    if (r->count == 0)
        return gar_error_set(err, GAR_E_BACKEND, 2, "timing the poll loop", "no turn recorded");
    size_t first = 0, count = r->count;
    gar_dur_ns *copy = malloc(r->count * sizeof *copy);
    if (copy == NULL)
        return no_memory(err, "judging the poll rounds");
    judge_and_keep(r->turns, copy, r->count, r->round_end, "poll turn by time", true, cal,
                   &first, &count);
    free(copy);
    qsort(r->turns + first, count, sizeof *r->turns, compare_ns);
    /* Fitted on whole turns (the time they take); listed less what the
     * simulator charges apart. */
    if (!fit_dist(r->turns + first, count, true, &cal->poll_period))
        return no_memory(err, "fitting the poll turns");
    gar_calibrated_dist *out = &cal->poll_period;
    gar_host_dist *d = &out->dist;
    for (unsigned i = 0; i < d->count; i++)
        d->value[i] = d->value[i] > charged_apart + 1 ? d->value[i] - charged_apart : 1;
    /* The turns the kept rounds saw (one in POLL_SAMPLE_EVERY is kept). */
    out->samples = count == r->count ? r->seen : (uint64_t)count * POLL_SAMPLE_EVERY;
    double sum = 0;
    for (size_t i = first; i < first + count; i++)
        sum += (double)r->turns[i];
    cal->poll_turn_mean_ns = (gar_dur_ns)(sum / (double)count + 0.5);
    return 0;
}

/* Fits a wake measurement's samples into `base` (and, split by lead, `at`;
 * NULL: not split), judging their rounds as `key`.  Refuses a measurement
 * none of whose waits saw its work pending. */
static int fit_wakes(sample_set *set, const char *key, gar_calibrated_dist *base,
                     gar_calibrated_dist *at, gar_calibration *cal, gar_error *err)
{
    if (set->count == 0) /* every wait found its work done: the machine is far too loaded */
        return gar_error_set(err, GAR_E_BACKEND, 2, "measuring wake latencies",
                             "no wait saw its work pending");
    if (at != NULL)
        return fit_by_lead(set->v, set->lead, set->count, set->round_end, key, base, at, cal,
                           err);
    gar_dur_ns *copy = malloc(set->count * sizeof *copy);
    if (copy == NULL)
        return no_memory(err, "judging the rounds");
    size_t first, count;
    judge_and_keep(set->v, copy, set->count, set->round_end, key, false, cal, &first, &count);
    free(copy);
    qsort(set->v + first, count, sizeof *set->v, compare_ns);
    return fit_dist(set->v + first, count, false, base) ? 0
                                                        : no_memory(err, "fitting the wakes");
}

/* ---- the whole run -------------------------------------------------------- */

static int measure_all(const gar_calibrate_options *options, size_t n, int waiter_cpu,
                       int device_cpu, gar_mono_ns began, gar_calibration *out, gar_error *err);

int gar_calibrate_run(const gar_calibrate_options *options, gar_calibration *out,
                      gar_error *err)
{
    static const gar_calibrate_options defaults = { 0 };
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_calibrate_run", "out",
                             "is NULL");
    if (options == NULL)
        options = &defaults;
    if (options->samples > GAR_CALIBRATE_SAMPLES_MAX) {
        char what[64];
        snprintf(what, sizeof what, "is above %u", GAR_CALIBRATE_SAMPLES_MAX);
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_calibrate_run",
                             "options->samples", what);
    }
    size_t n = options->samples != 0 ? options->samples
               : options->quick      ? GAR_CALIBRATE_SAMPLES_QUICK
                                     : GAR_CALIBRATE_SAMPLES_DEFAULT;
    const gar_mono_ns began = gar_posix_now();

    /* The waiter (this thread) and the devices on CPUs of their own, for the
     * run; the thread's own set is put back after. */
    gar_cpu_saved affinity;
    gar_cpu_save(&affinity);
    int waiter_cpu, device_cpu;
    if (gar_cpu_split(&waiter_cpu, &device_cpu) && gar_cpu_pin_self(waiter_cpu, NULL) < 0)
        waiter_cpu = device_cpu = -1;
    gar_calibration *cal = calloc(1, sizeof *cal);
    int rc = cal == NULL ? no_memory(err, "allocating the calibration")
                         : measure_all(options, n, waiter_cpu, device_cpu, began, cal, err);
    gar_cpu_restore(&affinity);
    if (rc == 0)
        *out = *cal;
    free(cal);
    return rc;
}

/* The fixed costs: a status query (on a device's item that stays
 * pending) and a clock read, each the median of its batches. */
static int measure_costs(gar_idle idle, gar_calibration *cal, gar_error *err)
{
    gar_emulated_device *dev;
    gar_port pending;
    int rc = start_pending_device(idle, cal->device_cpu, &dev, &pending, err);
    if (rc < 0)
        return rc;
    gar_calibrate_spread *costs = next_spreads(cal, 2);
    snprintf(costs[0].what, sizeof costs[0].what, "clock_ns");
    snprintf(costs[1].what, sizeof costs[1].what, "query_ns");
    cal->clock_ns = clock_cost(costs[0].round);
    cal->query_ns = query_cost(pending, costs[1].round);
    for (unsigned k = 0; k < 2; k++) {
        costs[k].noisy = gar_calibrate_rounds_disagree(costs[k].round, GAR_CALIBRATE_ROUNDS);
        costs[k].kept = GAR_CALIBRATE_ROUNDS; /* a median of every batch: pooled */
        cal->noisy |= costs[k].noisy;
    }
    stop_device(dev);
    return 0;
}

/* The wake measurements' samples, filled slice by slice. */
typedef struct wake_sets {
    sample_set visible, sleep, block, park;
} wake_sets;

/* Slice s of the measurements (the slices section above): the poll loop,
 * then the store's visibility, the sleeps, the blocks and the parks, each
 * its share of its count. */
static int measure_slice(gar_idle idle, int device_cpu, unsigned s, size_t n,
                         gar_dur_ns poll_run_ns, gar_dur_ns clock_ns, uint64_t *rng,
                         turn_record *turns, wake_sets *w, gar_error *err)
{
    int rc = measure_poll(idle, device_cpu, poll_run_ns / CALIBRATION_SLICES, rng, turns, err);
    turns->round_end[round_of_slice(s)] = turns->count;
    /* A poll wait's end is the completion, the rest of the turn it fell in,
     * the visibility paid from the first query after it, and the clock read
     * after.  The simulator draws the turn itself (from the poll turns, a
     * long one as often as the completion falls into one), so visibility
     * is measured from the first query that starts after the completion: a
     * poller preempted across the completion is the turn's tail, and
     * counting it here too would count it twice. */
    if (rc == 0)
        rc = measure_seen(idle, device_cpu, slice_share((n + 1) / 2, s), rng, true, clock_ns,
                          &w->visible, err);
    if (rc == 0)
        rc = measure_sleep(idle, slice_share(n, s), rng, &w->sleep, err);
    if (rc == 0)
        rc = measure_block(idle, device_cpu, slice_share(n, s), rng, &w->block, err);
    if (rc == 0)
        rc = measure_seen(idle, device_cpu, slice_share(n, s), rng, false, 0, &w->park, err);
    set_end_slice(&w->visible, s);
    set_end_slice(&w->sleep, s);
    set_end_slice(&w->block, s);
    set_end_slice(&w->park, s);
    return rc;
}

/* The measurements, on the thread as placed, into `cal` (zeroed). */
static int measure_all(const gar_calibrate_options *options, size_t n, int waiter_cpu,
                       int device_cpu, gar_mono_ns began, gar_calibration *cal, gar_error *err)
{
    gar_posix_host host;
    int rc = gar_posix_host_init(&host, NULL, err);
    if (rc < 0)
        return rc;
    gar_idle idle = gar_posix_host_idle(&host);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);

    cal->keep_quietest = options->keep_quietest;
    cal->word_wait = caps.word_wait;
    cal->park = host.report.park;
    cal->timer_slack = host.report.timer_slack;
    cal->waiter_cpu = waiter_cpu;
    cal->device_cpu = device_cpu;
    uint64_t rng = UINT64_C(0x6761722063616c69); /* any fixed seed: "gar cali" */
    if ((rc = measure_costs(idle, cal, err)) < 0)
        return rc;

    turn_record *turns = turn_record_new();
    wake_sets w;
    bool have = set_init(&w.visible, (n + 1) / 2, true);
    have = set_init(&w.sleep, n, true) && have;
    have = set_init(&w.block, n, true) && have;
    have = set_init(&w.park, n, false) && have;
    if (turns == NULL || !have)
        rc = no_memory(err, "allocating the samples");
    gar_dur_ns poll_run = options->quick ? POLL_RUN_QUICK_NS : POLL_RUN_NS;
    for (unsigned s = 0; s < CALIBRATION_SLICES && rc == 0; s++)
        rc = measure_slice(idle, cal->device_cpu, s, n, poll_run, cal->clock_ns, &rng, turns, &w,
                           err);
    /* Fitted in the order the profile lists their rounds. */
    if (rc == 0)
        rc = fit_poll(turns, cal->query_ns + cal->clock_ns, cal, err);
    if (rc == 0)
        rc = fit_wakes(&w.visible, "store_visible_ns", &cal->store_visible,
                       cal->store_visible_at, cal, err);
    if (rc == 0)
        rc = fit_wakes(&w.sleep, "sleep_overshoot_ns", &cal->sleep_overshoot,
                       cal->sleep_overshoot_at, cal, err);
    if (rc == 0)
        rc = fit_wakes(&w.block, "block_wake_ns", &cal->block_wake, cal->block_wake_at, cal, err);
    if (rc == 0)
        rc = fit_wakes(&w.park, "park_wake_ns", &cal->park_wake, NULL, cal, err);
    turn_record_free(turns);
    set_free(&w.visible);
    set_free(&w.sleep);
    set_free(&w.block);
    set_free(&w.park);
    cal->elapsed_ns = gar_since(gar_posix_now(), began);
    return rc;
}

/* ---- the profile text ----------------------------------------------------- */

/* "p50", "p99.9", "p99.9999": the level in its shortest form. */
static int level_text(uint32_t ppm, char *buf, size_t size)
{
    unsigned whole = ppm / 10000, frac = ppm % 10000, digits = 4;
    if (frac == 0)
        return snprintf(buf, size, "p%u", whole);
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    return snprintf(buf, size, "p%u.%0*u", whole, (int)digits, frac);
}

typedef struct cursor {
    char *buf;
    size_t size, len;
} cursor;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(cursor *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = c->len < c->size ? c->size - c->len : 0;
    int n = vsnprintf(room > 0 ? c->buf + c->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        c->len += (size_t)n;
}

static void put_dist(cursor *c, const char *key, const gar_calibrated_dist *d)
{
    put(c, "%s", key);
    for (unsigned i = 0; i < d->dist.count; i++) {
        char level[16];
        level_text(d->dist.level[i], level, sizeof level);
        put(c, " %s=%llu", level, (unsigned long long)d->dist.value[i]);
    }
    put(c, "\n");
}

static void put_leads(cursor *c, const char *key, const gar_calibrated_dist *at)
{
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        if (at[k].samples == 0)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%s@%s", key, gar_host_lead_name(k));
        put(c, "# %llu of them lasted nearest %s:\n", (unsigned long long)at[k].samples,
            gar_host_lead_name(k));
        put_dist(c, name, &at[k]);
    }
}

size_t gar_calibration_format(const gar_calibration *cal, char *buf, size_t size)
{
    assert(cal != NULL && (buf != NULL || size == 0));
    cursor c = { buf, size, 0 };
    if (size > 0)
        buf[0] = '\0';
    put(&c, "gar-host v1\n");
    put(&c, "# Measured by gar calibrate in %.1f s, in %u slices (%u rounds).  All values in ns.\n",
        (double)cal->elapsed_ns / 1e9, CALIBRATION_SLICES, GAR_CALIBRATE_ROUNDS);
    if (cal->timer_slack.known)
        put(&c, "# Timer slack of the measuring thread: %llu ns.\n",
            (unsigned long long)cal->timer_slack.ns);
    else
        put(&c, "# Timer slack: unknown (%s).\n",
            cal->timer_slack.why != NULL ? cal->timer_slack.why : "not read");
    if (cal->waiter_cpu >= 0)
        put(&c, "# The waiter ran on CPU %d, the emulated device on CPU %d.\n", cal->waiter_cpu,
            cal->device_cpu);
    else
        put(&c, "# The waiter and the emulated device ran unpinned.\n");
    for (unsigned i = 0; i < cal->spreads; i++)
        if (cal->spread[i].noisy)
            put(&c, "# noisy: %s: the rounds gave %llu, %llu, %llu (more than %.0f %% and %u ns "
                    "apart); measure again on a quiet machine\n",
                cal->spread[i].what, (unsigned long long)cal->spread[i].round[0],
                (unsigned long long)cal->spread[i].round[1],
                (unsigned long long)cal->spread[i].round[2], GAR_CALIBRATE_NOISE_REL * 100,
                GAR_CALIBRATE_NOISE_ABS_NS);
    /* Each distribution fitted from one round says which (its p90 spread,
     * the second of its pair, names it). */
    for (unsigned i = 0; i < cal->spreads; i++) {
        const gar_calibrate_spread *sp = &cal->spread[i];
        size_t len = strlen(sp->what), key_len = len > 4 ? len - 4 : 0; /* less " p90" */
        if (sp->kept < GAR_CALIBRATE_ROUNDS && len > 4 && strcmp(sp->what + key_len, " p90") == 0)
            put(&c, "# kept: %.*s: round %u of %u alone, the quietest (its p90 %llu ns the "
                    "least), as its rounds disagree\n",
                (int)key_len, sp->what, sp->kept + 1, GAR_CALIBRATE_ROUNDS,
                (unsigned long long)sp->round[sp->kept]);
    }
    put(&c, "\n# The emulated device's status query, and gar_posix_now: medians of %u\n"
            "# batches of %u calls.\n", GAR_CALIBRATE_ROUNDS * COST_BATCHES, COST_CALLS);
    put(&c, "query_ns %llu\nclock_ns %llu\n", (unsigned long long)cal->query_ns,
        (unsigned long long)cal->clock_ns);
    put(&c, "\n# The host's park: %s.\n", cal->park != NULL ? cal->park : "?");
    put(&c, "word_wait %s\n", cal->word_wait ? "yes" : "no");
    put(&c, "\n# clock_nanosleep to an absolute target, sleeps of 56 us to 17.8 ms: %llu sleeps.\n",
        (unsigned long long)cal->sleep_overshoot.samples);
    put_dist(&c, "sleep_overshoot_ns", &cal->sleep_overshoot);
    put_leads(&c, "sleep_overshoot_ns", cal->sleep_overshoot_at);
    put(&c, "\n# The emulated device's blocking wait, from the completion to the return,\n"
            "# blocked 56 us to 17.8 ms before: %llu wakes.\n",
        (unsigned long long)cal->block_wake.samples);
    put_dist(&c, "block_wake_ns", &cal->block_wake);
    put_leads(&c, "block_wake_ns", cal->block_wake_at);
    put(&c, "\n# The host's park on the line, from the store to the return: %llu wakes.\n",
        (unsigned long long)cal->park_wake.samples);
    put_dist(&c, "park_wake_ns", &cal->park_wake);
    put(&c, "\n# Poll waits run by the inline driver, from the completion to the wait's\n"
            "# last clock reading, less clock_ns and half a mean turn (of %llu ns): %llu\n"
            "# waits; by lead, the time the device idled before the store.\n",
        (unsigned long long)cal->poll_turn_mean_ns, (unsigned long long)cal->store_visible.samples);
    put_dist(&c, "store_visible_ns", &cal->store_visible);
    put_leads(&c, "store_visible_ns", cal->store_visible_at);
    put(&c, "\n# One turn of the inline driver's poll loop less a query and a clock read:\n"
            "# %llu turns.\n", (unsigned long long)cal->poll_period.samples);
    put_dist(&c, "poll_period_ns", &cal->poll_period);
    put(&c, "\n# Each measurement's rounds (p50 and p90; the fixed costs' medians):\n");
    for (unsigned i = 0; i < cal->spreads; i++)
        put(&c, "#   %-26s %llu %llu %llu\n", cal->spread[i].what,
            (unsigned long long)cal->spread[i].round[0],
            (unsigned long long)cal->spread[i].round[1],
            (unsigned long long)cal->spread[i].round[2]);
    return c.len;
}
