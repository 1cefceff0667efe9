/* experiments/verify/verify_stats.c — KS statistic, quantiles, ratios, tolerances. */
#include "verify/verify_stats.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nearest_rank.h"

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
        .ks_d_max = 0.15,
        .ks_d_block_max = 0.25,
        .ratio_min = 0.8,
        .ratio_max = 1.25,
        .abs_ns = 1 * GAR_NS_PER_US,
        .tail_waits_min = 10,
        .band_z = 2.0,
        .busy_diff_max = 0.05,
        .edge_rel = 0.1,
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
        { "band_z", 0, 10, false },        { "ks_d_block", 0, 1, false },
        { "edge", 0, 1, false },
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
        case 6: tol->band_z = v; break;
        case 7: tol->ks_d_block_max = v; break;
        default: tol->edge_rel = v; break;
        }
        return 0;
    }
    snprintf(what, sizeof what,
             "--tolerance '%s' names no tolerance (ks_d, ks_d_block, ratio_min, ratio_max, "
             "abs_us, tail_waits, busy_diff, band_z, edge)",
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

const char *gar_verify_check_name(gar_verify_check check)
{
    return check == GAR_CHECK_PASS ? "pass" : check == GAR_CHECK_FAIL ? "fail" : "not judged";
}

static int compare_ns(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return (x > y) - (x < y);
}

void gar_verify_compare(const gar_verify_tolerance *tol, bool blocks, gar_dur_ns *real,
                        gar_dur_ns *sim, size_t n, double busy_real, double busy_sim,
                        gar_verify_comparison *out)
{
    assert(tol != NULL && real != NULL && sim != NULL && n >= 1 && out != NULL);
    qsort(real, n, sizeof *real, compare_ns);
    qsort(sim, n, sizeof *sim, compare_ns);
    static const struct {
        const char *key;
        uint32_t level;
    } levels[4] = { { "overshoot_p50_ns", 500000 }, { "overshoot_p90_ns", 900000 },
                    { "overshoot_p99_ns", 990000 }, { "overshoot_max_ns", 1000000 } };
    gar_verify_comparison c;
    memset(&c, 0, sizeof c);
    c.agree = true;
    for (unsigned k = 0; k < 4; k++) {
        gar_verify_quantile_row *q = &c.q[k];
        q->key = levels[k].key;
        q->level_ppm = levels[k].level;
        q->real = gar_verify_quantile(real, n, q->level_ppm);
        q->sim = gar_verify_quantile(sim, n, q->level_ppm);
        /* p50 and p90 value to value; the tail over its sampling band. */
        gar_verify_tolerance at = *tol;
        if (q->level_ppm <= 900000)
            at.band_z = 0;
        uint32_t lo, hi;
        gar_verify_level_band(&at, n, n, q->level_ppm, &lo, &hi);
        q->real_band[0] = gar_verify_quantile(real, n, lo);
        q->real_band[1] = gar_verify_quantile(real, n, hi);
        q->sim_band[0] = gar_verify_quantile(sim, n, lo);
        q->sim_band[1] = gar_verify_quantile(sim, n, hi);
        if (!gar_verify_quantile_judged(tol, n, q->level_ppm))
            q->check = GAR_CHECK_NOT_JUDGED;
        else
            q->check = gar_verify_agrees_with_band(tol, q->real, q->sim_band[0], q->sim_band[1]) ||
                               gar_verify_agrees_with_band(tol, q->sim, q->real_band[0],
                                                           q->real_band[1])
                           ? GAR_CHECK_PASS
                           : GAR_CHECK_FAIL;
        c.agree = c.agree && q->check != GAR_CHECK_FAIL;
    }
    c.ks_d = gar_ks_statistic(real, n, sim, n, 0);
    c.ks_d_max = blocks ? tol->ks_d_block_max : tol->ks_d_max;
    c.ks_critical = gar_ks_critical(n, n, 0.05);
    c.ks_check = c.ks_d <= c.ks_d_max ? GAR_CHECK_PASS : GAR_CHECK_FAIL;
    c.busy_real = busy_real;
    c.busy_sim = busy_sim;
    c.busy_diff = fabs(busy_real - busy_sim);
    c.busy_check = c.busy_diff <= tol->busy_diff_max ? GAR_CHECK_PASS : GAR_CHECK_FAIL;
    c.agree = c.agree && c.ks_check == GAR_CHECK_PASS && c.busy_check == GAR_CHECK_PASS;
    *out = c;
}

int gar_verify_tolerance_text(const gar_verify_tolerance *tol, char *buf, size_t size)
{
    return snprintf(buf, size,
                    "plain ks_d<=%g (<=%g with a blocking band); overshoot p50 and p90 real/sim "
                    "in [%g, %g] or within %llu ns; p99 likewise over a sampling band of %g "
                    "standard errors; quantiles judged with >=%llu waits above; busy_frac "
                    "diff<=%g; with several runs, within %g of the real runs' envelope",
                    tol->ks_d_max, tol->ks_d_block_max, tol->ratio_min, tol->ratio_max,
                    (unsigned long long)tol->abs_ns, tol->band_z,
                    (unsigned long long)tol->tail_waits_min, tol->busy_diff_max, tol->edge_rel);
}

bool gar_verify_bands_block(const gar_bands *bands)
{
    for (uint32_t i = 0; i < bands->count; i++)
        if (bands->band[i].plan.park == GAR_PARK_BLOCK)
            return true;
    return false;
}

bool gar_verify_arm_blocks(const gar_bands *bands, uint64_t blocked, uint64_t waits)
{
    if (gar_verify_bands_block(bands))
        return true;
    bool is_auto = false;
    for (uint32_t i = 0; i < bands->count; i++)
        is_auto |= bands->band[i].plan.park == GAR_PARK_AUTO;
    return is_auto && waits > 0 && blocked >= waits - blocked;
}
