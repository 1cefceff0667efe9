/* core/nearest_rank.h — the nearest-rank quantile of sorted values: the one
 * definition of "pN" that the simulator, calibration, verification and the
 * quantile estimator all report, so their numbers compare.
 *
 * Levels are in millionths (parts per million): 500000 is the median,
 * 1000000 the largest value, 0 the smallest.  Pure and allocation-free. */
#ifndef GAR_NEAREST_RANK_H
#define GAR_NEAREST_RANK_H

#include <stddef.h>
#include <stdint.h>

#include <gar/time.h>

/* The value of rank ceil(level_ppm * n / 10^6) (counting from 1) in
 * `sorted[0..n-1]`, which must be ascending; rank 0 (level 0) reads the
 * smallest.  Returns 0 when n is 0.  Levels above 10^6 read the largest
 * value.  Exact for n up to 1.8e13 (the product fits 64 bits). */
static inline gar_dur_ns gar_nearest_rank(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm);

/* Where that value sits: its 0-based index in the sorted values, for one
 * who selects it rather than sorting (n >= 1). */
static inline size_t gar_nearest_rank_index(size_t n, uint32_t level_ppm)
{
    uint64_t rank = ((uint64_t)level_ppm * n + 999999) / 1000000;
    if (rank > n)
        rank = n;
    return rank > 0 ? (size_t)rank - 1 : 0;
}

static inline gar_dur_ns gar_nearest_rank(const gar_dur_ns *sorted, size_t n, uint32_t level_ppm)
{
    return n == 0 ? 0 : sorted[gar_nearest_rank_index(n, level_ppm)];
}

#endif
