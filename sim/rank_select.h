/* sim/rank_select.h — the values at a few ranks of an unsorted array,
 * without sorting it.
 *
 * A replay reports the nearest-rank p50, p90 and p99 of a million
 * overshoots; sorting them all cost more than a tenth of simulating them.
 * Selection by most-significant-digit radix finds the 11-bit digit of each
 * wanted rank from one histogram, keeps only the values in those digits'
 * buckets, and goes on within them: linear in n, with one histogram and one
 * gather over the values a level, and the levels' work shrinking with the
 * buckets.  Exact: the values it gives are those a full sort would put at
 * the ranks. */
#ifndef GAR_SIM_RANK_SELECT_H
#define GAR_SIM_RANK_SELECT_H

#include <stddef.h>
#include <stdint.h>

#define GAR_RANK_SELECT_MAX 16 /* ranks one call may ask for */

/* Sets out[j] to the value of 0-based rank ranks[j] of v[0..n-1] (the
 * ranks[j]-th smallest, counting from 0), for j < k.  The ranks ascend (ties
 * allowed) and are below n; 1 <= k <= GAR_RANK_SELECT_MAX.  v is reordered
 * and tmp (n values) overwritten. */
void gar_rank_select(uint64_t *v, uint64_t *tmp, size_t n, const size_t *ranks, unsigned k,
                     uint64_t *out);

#endif
