/* sim/quantile_interval.c — order-statistic confidence intervals
 * (quantile_interval.h). */
#include "sim/quantile_interval.h"

#include <math.h>

#include "core/nearest_rank.h"

/* log(n!).  Not lgamma: it sets the global signgam, a data race between
 * the sweep's workers.  Below 32 the logs are summed; from 32 on, Stirling's
 * series to its n^-7 term, whose next term (1/(1188 n^9)) is below 3e-17. */
static double log_factorial(uint64_t n)
{
    if (n < 32) {
        double sum = 0.0;
        for (uint64_t i = 2; i <= n; i++)
            sum += log((double)i);
        return sum;
    }
    const double x = (double)n, r = 1.0 / x, r2 = r * r;
    const double half_log_2pi = 0.91893853320467274178; /* log(2 pi) / 2 */
    return x * log(x) - x + 0.5 * log(x) + half_log_2pi +
           r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 / 1680.0)));
}

/* log P(Bin(n, p) = k), 0 < p < 1, k <= n. */
static double log_pmf(uint64_t n, double p, uint64_t k)
{
    double dn = (double)n, dk = (double)k;
    return log_factorial(n) - log_factorial(k) - log_factorial(n - k) + dk * log(p) +
           (dn - dk) * log1p(-p);
}

/* P(Bin(n, p) <= k) for k below (n + 1) p, where every term below k is
 * smaller than the one above it: summed downward from k, stopping once the
 * rest (a geometric series of ratio at most the current one) is
 * negligible. */
static double lower_tail(uint64_t n, double p, uint64_t k)
{
    double term = exp(log_pmf(n, p, k));
    double sum = term;
    const double odds = (1.0 - p) / p;
    for (uint64_t j = k; j > 0 && term > 0.0; j--) {
        /* pmf(j - 1) / pmf(j) */
        double ratio = (double)j / (double)(n - j + 1) * odds;
        term *= ratio;
        sum += term;
        if (ratio < 1.0 && term * ratio / (1.0 - ratio) < 1e-17 * sum)
            break;
    }
    return sum > 1.0 ? 1.0 : sum;
}

double gar_binomial_cdf(uint64_t n, double p, uint64_t k)
{
    if (k >= n || p <= 0.0)
        return 1.0;
    if (p >= 1.0)
        return 0.0;
    /* Above the mode the terms rise toward it: sum the other tail instead,
     * P(B <= k) = 1 - P(n - B <= n - k - 1) with n - B ~ Bin(n, 1 - p). */
    if ((double)k < ((double)n + 1.0) * p)
        return lower_tail(n, p, k);
    double rest = lower_tail(n, 1.0 - p, n - k - 1);
    return rest >= 1.0 ? 0.0 : 1.0 - rest;
}

/* The largest l in 1..n (1-based) with P(Bin(n, p) <= l - 1) <= a, or 0
 * when even l = 1 fails.  From a k0 surely below the answer (a few
 * deviations under the mean, halved until its tail is at most a), the tail
 * is summed once and then walked up a term at a time, each term from the
 * one before: about three deviations' worth of terms in all, where a binary
 * search would sum a tail at each of log2(n) steps. */
static size_t lower_order(size_t n, double p, double a)
{
    if (gar_binomial_cdf(n, p, 0) > a)
        return 0;
    double mean = (double)n * p, sd = sqrt(mean * (1.0 - p));
    double below = mean - (2.0 + sqrt(-2.0 * log(a))) * sd; /* past the normal z of a */
    uint64_t k = below > 0.0 ? (uint64_t)below : 0;
    double tail;
    while ((tail = gar_binomial_cdf(n, p, k)) > a)
        k /= 2; /* k = 0 passes: checked above */
    double term = exp(log_pmf(n, p, k)), odds = p / (1.0 - p);
    while (k + 1 < n) {
        term *= (double)(n - k) / (double)(k + 1) * odds; /* pmf(k + 1) */
        if (tail + term > a)
            break;
        tail += term;
        k++;
    }
    return (size_t)k + 1;
}

gar_interval_ranks gar_quantile_interval_ranks(size_t n, uint32_t level_ppm, double confidence)
{
    gar_interval_ranks r = { false, false, 0, 0 };
    if (n == 0 || level_ppm == 0 || level_ppm >= 1000000u || !(confidence > 0.0) ||
        !(confidence < 1.0))
        return r;
    const double q = (double)level_ppm / 1e6, a = (1.0 - confidence) / 2.0;
    size_t l = lower_order(n, q, a);
    if (l > 0) {
        r.has_lo = true;
        r.lo = l - 1;
    }
    /* The least u with P(B >= u) <= a: with B' = n - B ~ Bin(n, 1 - q),
     * P(B >= u) = P(B' <= n - u), so n + 1 - u is the lower order of B'. */
    size_t m = lower_order(n, 1.0 - q, a);
    if (m > 0) {
        r.has_hi = true;
        r.hi = n - m; /* u - 1 = n - m, 0-based */
    }
    /* The nearest rank lies inside whatever the rounding of q did. */
    size_t point = gar_nearest_rank_index(n, level_ppm);
    if (r.has_lo && r.lo > point)
        r.lo = point;
    if (r.has_hi && r.hi < point)
        r.hi = point;
    return r;
}

gar_quantile_interval gar_quantile_interval_sorted(const gar_dur_ns *sorted, size_t n,
                                                   uint32_t level_ppm, double confidence)
{
    gar_interval_ranks r = gar_quantile_interval_ranks(n, level_ppm, confidence);
    return (gar_quantile_interval){ .has_lo = r.has_lo, .has_hi = r.has_hi,
                                    .lo = r.has_lo ? sorted[r.lo] : 0,
                                    .hi = r.has_hi ? sorted[r.hi] : 0 };
}

size_t gar_quantile_interval_min_waits(uint32_t level_ppm, double confidence)
{
    if (level_ppm == 0 || level_ppm >= 1000000u || !(confidence > 0.0) || !(confidence < 1.0))
        return 0;
    const double q = (double)level_ppm / 1e6, a = (1.0 - confidence) / 2.0;
    /* q^n <= a  <=>  n >= log(a) / log(q); stepped to be exact at the edge. */
    size_t n = (size_t)floor(log(a) / log(q));
    if (n < 1)
        n = 1;
    while (n > 1 && pow(q, (double)(n - 1)) <= a)
        n--;
    while (pow(q, (double)n) > a)
        n++;
    return n;
}
