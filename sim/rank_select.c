/* sim/rank_select.c — MSD radix selection (rank_select.h). */
#include "sim/rank_select.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#define DIGIT_BITS 11u
#define DIGIT_VALUES (1u << DIGIT_BITS)
/* Below this many values, insertion sort beats another histogram. */
#define SMALL 48

static void insertion_sort(uint64_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static unsigned top_bit(uint64_t x)
{
    unsigned b = 0;
    while (x >>= 1)
        b++;
    return b;
}

void gar_rank_select(uint64_t *v, uint64_t *tmp, size_t n, const size_t *ranks, unsigned k,
                     uint64_t *out)
{
    assert(n > 0 && k >= 1 && k <= GAR_RANK_SELECT_MAX && ranks[k - 1] < n);
    if (n <= SMALL) {
        insertion_sort(v, n);
        for (unsigned j = 0; j < k; j++)
            out[j] = v[ranks[j]];
        return;
    }
    uint64_t least = v[0], most = v[0];
    for (size_t i = 1; i < n; i++) {
        least = v[i] < least ? v[i] : least;
        most = v[i] > most ? v[i] : most;
    }
    if (least == most) {
        for (unsigned j = 0; j < k; j++)
            out[j] = least;
        return;
    }
    /* Bits above the highest where least and most differ are the same in
     * every value: the digit is the DIGIT_BITS below and at that bit. */
    unsigned high = top_bit(least ^ most);
    unsigned shift = high + 1 > DIGIT_BITS ? high + 1 - DIGIT_BITS : 0;
    const uint64_t mask = DIGIT_VALUES - 1;
    size_t count[DIGIT_VALUES] = { 0 };
    for (size_t i = 0; i < n; i++)
        count[(v[i] >> shift) & mask]++;

    /* Each rank's bucket, and where each wanted bucket goes in tmp (in
     * digit order, so the buckets' ranks stay ascending): count[d] turns
     * into that place for a wanted bucket, its size kept by the ranks. */
    unsigned bucket[GAR_RANK_SELECT_MAX];
    size_t below[GAR_RANK_SELECT_MAX], size[GAR_RANK_SELECT_MAX];
    uint8_t wanted[DIGIT_VALUES] = { 0 };
    size_t before = 0, gathered = 0;
    unsigned j = 0;
    for (unsigned d = 0; d < DIGIT_VALUES && j < k; d++) {
        size_t in = count[d], end = before + in;
        if (ranks[j] < end) {
            wanted[d] = 1;
            count[d] = gathered;
            gathered += in;
            for (; j < k && ranks[j] < end; j++) {
                bucket[j] = d;
                below[j] = before;
                size[j] = in;
            }
        }
        before = end;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)((v[i] >> shift) & mask);
        if (wanted[d])
            tmp[count[d]++] = v[i];
    }
    /* Each wanted bucket in turn, with its ranks made local; v serves as
     * its scratch.  count[d] is now the bucket's end in tmp. */
    for (unsigned first = 0; first < k;) {
        unsigned d = bucket[first], last = first;
        while (last + 1 < k && bucket[last + 1] == d)
            last++;
        size_t at = count[d] - size[first];
        size_t local[GAR_RANK_SELECT_MAX];
        for (unsigned r = first; r <= last; r++)
            local[r - first] = ranks[r] - below[r];
        if (shift == 0) { /* the digit was the last bits: the bucket is one value */
            for (unsigned r = first; r <= last; r++)
                out[r] = tmp[at];
        } else {
            gar_rank_select(tmp + at, v + at, size[first], local, last - first + 1, out + first);
        }
        first = last + 1;
    }
}
