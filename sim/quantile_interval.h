/* sim/quantile_interval.h — how sure a reported quantile is: a
 * distribution-free confidence interval from order statistics.
 *
 * Method.  Let x(1) <= ... <= x(n) be n values drawn independently from any
 * distribution F, and t its q-quantile (the least t with F(t) >= q).  The
 * number of values at or below t is binomial, B ~ Bin(n, F(t)) with
 * F(t) >= q; so x(l) <= t fails only when B <= l - 1, which has probability
 * at most P(Bin(n, q) <= l - 1).  Likewise x(u) >= t fails at most with
 * probability P(Bin(n, q) >= u).  With a = (1 - confidence) / 2 in each
 * tail, the interval [x(l), x(u)] takes the largest l with
 * P(Bin(n, q) <= l - 1) <= a and the least u with P(Bin(n, q) >= u) <= a,
 * and covers t with probability at least `confidence`, whatever F is (ties
 * included: they only raise the coverage).  Nothing is assumed of F: not
 * its shape, not even that it is continuous.
 *
 * When a bound does not exist.  Even l = 1 fails when
 * P(Bin(n, q) <= 0) = (1 - q)^n > a: too few values to bound t from below;
 * and u = n fails when P(Bin(n, q) >= n) = q^n > a: too few to bound it from
 * above.  At 95 %, a p99 has an upper bound from 368 values on, a p90 from
 * 36 and a p50 from 6 (lower bounds: from 1, 2 and 6).  Below that the end
 * is reported as absent, never as the largest value: the largest of 21
 * values says nothing about how far the p99 may lie above it.
 *
 * The binomial tails are summed exactly term by term in double precision,
 * outward from the bound and starting from a term computed in log space
 * (lgamma), so nothing under- or overflows at any n; the sum stops once the
 * terms left are provably below 1e-17 of it.  Its relative error is about
 * 1e-13 at a thousand values and 1e-7 at ten million (lgamma's rounding at
 * that size), which can move a bound only where a tail lies that close to
 * a itself.  The cost is a few tails of about sqrt(n) terms each (one
 * summed, then walked a term at a time): tens of microseconds at a million
 * values, once per run.  Pure: no allocation, no state. */
#ifndef GAR_SIM_QUANTILE_INTERVAL_H
#define GAR_SIM_QUANTILE_INTERVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/time.h>

#define GAR_CI_LEVEL_DEFAULT 0.95

/* P(Bin(n, p) <= k), for 0 <= p <= 1 (1 when k >= n). */
double gar_binomial_cdf(uint64_t n, double p, uint64_t k);

/* Where the ends of the interval sit among the sorted values: 0-based ranks
 * (rank r is the (r+1)-th smallest), each with whether it exists. */
typedef struct gar_interval_ranks {
    bool has_lo, has_hi;
    size_t lo, hi;
} gar_interval_ranks;

/* The ranks of the `confidence` interval (0 < confidence < 1) of the
 * quantile at `level_ppm` (millionths, 0 < level < 10^6, as
 * core/nearest_rank.h takes them) of n values.  Neither end exists when n is
 * 0.  Where both exist, lo <= the nearest rank's index <= hi. */
gar_interval_ranks gar_quantile_interval_ranks(size_t n, uint32_t level_ppm, double confidence);

/* An interval's ends as values (ns), each with whether it exists. */
typedef struct gar_quantile_interval {
    bool has_lo, has_hi;
    gar_dur_ns lo, hi;
} gar_quantile_interval;

/* The interval read off `sorted[0..n-1]`, ascending. */
gar_quantile_interval gar_quantile_interval_sorted(const gar_dur_ns *sorted, size_t n,
                                                   uint32_t level_ppm, double confidence);

/* The fewest values for which the quantile at `level_ppm` has an upper
 * bound at `confidence`: the least n with q^n <= (1 - confidence) / 2. */
size_t gar_quantile_interval_min_waits(uint32_t level_ppm, double confidence);

#endif
