/* experiments/calibrate/calibrate_fit.c — the calibration's arithmetic
 * (calibrate_fit.h): a seeded spread, quantiles, and the fit of a
 * distribution's points. */
#define _POSIX_C_SOURCE 200809L

#include "calibrate/calibrate_fit.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/nearest_rank.h"
#include "core/splitmix64.h"

/* The levels every distribution lists (the profile format requires them). */
static const uint32_t required_levels[] = { 0, 500000, 900000, 990000, 1000000 };

/* Spread by splitmix64: the schedules only need to be spread, and the same
 * every run. */
gar_dur_ns gar_cal_log_uniform(uint64_t *state, gar_dur_ns lo, gar_dur_ns hi)
{
    double u = (double)(gar_splitmix64(state) >> 11) * 0x1.0p-53;
    return (gar_dur_ns)((double)lo * exp(u * log((double)hi / (double)lo)));
}

gar_dur_ns gar_calibrate_rank(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm)
{
    assert(n >= 1 && level_ppm <= 1000000);
    return gar_nearest_rank(sorted, n, level_ppm);
}

int gar_cal_compare_ns(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return (x > y) - (x < y);
}

/* Fitting a distribution's points.  The simulator interpolates linearly
 * between the listed points, so where a distribution bends sharply (a body
 * of µs and a tail of ms, as preemption makes) a fixed set of levels smears
 * the tail over a whole band: p90 at 80 µs and p99 at 4 ms would make one
 * draw in ten land uniformly between them.  So the points are chosen
 * greedily, as a polyline is simplified: start from the required levels,
 * then add, up to GAR_HOST_QUANTILES_MAX, the empirical point the fit is
 * furthest from.  The distance is the error in cumulative probability at that
 * point's value (the quantity a KS statistic reads); for the poll period it
 * is measured on the share of time spent in turns up to that level instead,
 * because a poll wait's overshoot is the rest of the turn its completion
 * falls in — turns weigh by their length. */

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
bool gar_cal_fit_dist(const gar_dur_ns *v, size_t n, bool time_weighted, gar_calibrated_dist *out)
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

int gar_cal_no_memory(gar_error *err, const char *what)
{
    return gar_error_set(err, GAR_E_BACKEND, 2, what, strerror(ENOMEM));
}
