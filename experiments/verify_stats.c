/* experiments/verify_stats.c — KS statistic, quantiles, ratios, tolerances. */
#include "verify_stats.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/nearest_rank.h>

double gar_ks_statistic(const gar_dur_ns *a, size_t na, const gar_dur_ns *b, size_t nb,
                        gar_dur_ns resolution)
{
    assert(a != NULL && b != NULL && na >= 1 && nb >= 1);
    /* F_a(x) - F_b(x) = (i * nb - j * na) / (na * nb) after stepping past
     * every value <= x in both: kept as integers, so D is exact.  A value
     * below the resolution counts as the resolution. */
    size_t i = 0, j = 0;
    uint64_t best = 0;
    while (i < na && j < nb) {
        gar_dur_ns x = a[i] < b[j] ? a[i] : b[j];
        if (x < resolution)
            x = resolution;
        while (i < na && a[i] <= x)
            i++;
        while (j < nb && b[j] <= x)
            j++;
        uint64_t fa = (uint64_t)i * nb, fb = (uint64_t)j * na;
        uint64_t d = fa > fb ? fa - fb : fb - fa;
        if (d > best)
            best = d;
    }
    /* Once one sample is used up the distance only shrinks towards 0. */
    return (double)best / ((double)na * (double)nb);
}

double gar_ks_critical(size_t na, size_t nb, double alpha)
{
    assert(na >= 1 && nb >= 1 && alpha > 0 && alpha < 1);
    double c = sqrt(-log(alpha / 2) / 2);
    return c * sqrt(((double)na + (double)nb) / ((double)na * (double)nb));
}

gar_dur_ns gar_verify_quantile(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm)
{
    return gar_nearest_rank(sorted, n, level_ppm);
}

double gar_verify_ratio(gar_dur_ns real, gar_dur_ns sim)
{
    if (sim == 0)
        return real == 0 ? 1.0 : INFINITY;
    return (double)real / (double)sim;
}

gar_verify_tolerance gar_verify_tolerance_default(void)
{
    return (gar_verify_tolerance){
        .ks_d_max = 0.25,
        .ratio_min = 0.5,
        .ratio_max = 2.0,
        .abs_ns = 20 * GAR_NS_PER_US,
        .tail_waits_min = 10,
        .band_z = 2.0,
        .busy_diff_max = 0.15,
    };
}

/* A whole decimal or a decimal fraction, nothing else ("0.25", "2", ".5"
 * refused: a digit first). */
static bool parse_number(const char *text, double *out)
{
    if (text[0] < '0' || text[0] > '9')
        return false;
    char *end;
    double v = strtod(text, &end);
    if (*end != '\0' || !isfinite(v))
        return false;
    for (const char *p = text; *p != '\0'; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.'))
            return false; /* no exponents, signs or hex: plain decimals */
    *out = v;
    return true;
}

int gar_verify_tolerance_set(gar_verify_tolerance *tol, const char *text, const char *verb,
                             gar_error *err)
{
    assert(tol != NULL && text != NULL);
    char what[256];
    const char *eq = strchr(text, '=');
    double v = 0;
    if (eq == NULL || !parse_number(eq + 1, &v)) {
        snprintf(what, sizeof what, "--tolerance '%s' is not KEY=NUMBER", text);
        return gar_error_set(err, GAR_E_USAGE, 2, verb, what);
    }
    size_t key_len = (size_t)(eq - text);
    const struct {
        const char *key;
        double lo, hi;
        bool whole;
    } keys[] = {
        { "ks_d", 0, 1, false },           { "ratio_min", 1e-9, 1, false },
        { "ratio_max", 1, 1e9, false },    { "abs_us", 0, 1e7, true },
        { "tail_waits", 1, 1e9, true },    { "busy_diff", 0, 1, false },
        { "band_z", 0, 10, false },
    };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (strlen(keys[k].key) != key_len || strncmp(text, keys[k].key, key_len) != 0)
            continue;
        if (v < keys[k].lo || v > keys[k].hi || (keys[k].whole && v != floor(v))) {
            snprintf(what, sizeof what, "--tolerance %s must be %s %g to %g, found '%s'",
                     keys[k].key, keys[k].whole ? "a whole number" : "a number", keys[k].lo,
                     keys[k].hi, eq + 1);
            return gar_error_set(err, GAR_E_USAGE, 2, verb, what);
        }
        switch (k) {
        case 0: tol->ks_d_max = v; break;
        case 1: tol->ratio_min = v; break;
        case 2: tol->ratio_max = v; break;
        case 3: tol->abs_ns = (gar_dur_ns)v * GAR_NS_PER_US; break;
        case 4: tol->tail_waits_min = (uint64_t)v; break;
        case 5: tol->busy_diff_max = v; break;
        default: tol->band_z = v; break;
        }
        return 0;
    }
    snprintf(what, sizeof what,
             "--tolerance '%s' names no tolerance (ks_d, ratio_min, ratio_max, abs_us, "
             "tail_waits, busy_diff, band_z)",
             text);
    return gar_error_set(err, GAR_E_USAGE, 2, verb, what);
}

bool gar_verify_quantile_judged(const gar_verify_tolerance *tol, size_t n, uint32_t level_ppm)
{
    /* n * (1 - level) >= tail, in integers: n * (10^6 - ppm) >= tail * 10^6. */
    return (uint64_t)n * (1000000u - level_ppm) >= tol->tail_waits_min * 1000000u;
}

bool gar_verify_quantile_agrees(const gar_verify_tolerance *tol, gar_dur_ns real,
                                gar_dur_ns sim)
{
    gar_dur_ns diff = real > sim ? real - sim : sim - real;
    if (diff <= tol->abs_ns)
        return true;
    double r = gar_verify_ratio(real, sim);
    return r >= tol->ratio_min && r <= tol->ratio_max;
}

void gar_verify_level_band(const gar_verify_tolerance *tol, size_t na, size_t nb,
                           uint32_t level_ppm, uint32_t *lo, uint32_t *hi)
{
    assert(na >= 1 && nb >= 1 && level_ppm <= 1000000);
    double q = (double)level_ppm / 1e6;
    double half = tol->band_z * sqrt(q * (1 - q) * (1.0 / (double)na + 1.0 / (double)nb));
    double l = floor((q - half) * 1e6 + 0.5), h = floor((q + half) * 1e6 + 0.5);
    *lo = l < 0 ? 0 : (uint32_t)l;
    *hi = h > 1e6 ? 1000000u : (uint32_t)h;
}

bool gar_verify_agrees_with_band(const gar_verify_tolerance *tol, gar_dur_ns value,
                                 gar_dur_ns band_lo, gar_dur_ns band_hi)
{
    assert(band_lo <= band_hi);
    if (value >= band_lo && value <= band_hi)
        return true;
    /* Outside: the nearest end of the band is the best match there is. */
    return gar_verify_quantile_agrees(tol, value, value < band_lo ? band_lo : band_hi);
}
