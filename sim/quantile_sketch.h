/* sim/quantile_sketch.h — one metric's values, kept for its quantiles in
 * bounded memory.
 *
 * A replay reports nearest-rank quantiles of every wait's overshoot and
 * estimator error.  Up to a fixed number of values (`limit`, by default
 * GAR_SKETCH_EXACT_MAX) the sketch keeps them all, and the quantiles are
 * exact (rank_select.h selects them from `value`).  Past the limit it moves
 * them into a log-linear histogram and counts every later value there, so
 * its memory no longer grows with the values:
 *
 *   - a value below 2^11 (2 048) has a bucket of its own: exact;
 *   - a value v >= 2^11 with highest bit e falls in one of 1 024 buckets of
 *     width 2^(e-10) between 2^e and 2^(e+1): a bucket is at most 2^-10 of
 *     the smallest value in it wide.
 *
 * A quantile read from the histogram is its bucket's midpoint (kept within
 * the least and largest value seen, which are exact), so it lies within half
 * a bucket, 2^-11 (0.049 %) of the true value: the documented bound is
 * GAR_SKETCH_RELATIVE_ERROR, 0.1 %.  Buckets are counted in groups of one
 * power of two (8 KiB each, allocated when a value first falls in it), so a
 * histogram holds at most 54 groups, 440 KiB, whatever the count.
 *
 * Ownership: a sketch owns its value array and its groups; init, then add,
 * then read; reset keeps the value array's room for the next run; free
 * releases everything.  Memory comes through the allocation hook (alloc.h).
 * Not thread-safe: one run fills one sketch. */
#ifndef GAR_SIM_QUANTILE_SKETCH_H
#define GAR_SIM_QUANTILE_SKETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GAR_SKETCH_EXACT_MAX ((size_t)500000) /* values a sketch keeps exactly */
#define GAR_SKETCH_SUB_BITS 10                  /* a bucket is 2^-10 of its power of two */
#define GAR_SKETCH_LINEAR (UINT64_C(1) << (GAR_SKETCH_SUB_BITS + 1)) /* 2048: exact below */
#define GAR_SKETCH_GROUPS (64 - GAR_SKETCH_SUB_BITS)                 /* 0: linear; 1..53 */
#define GAR_SKETCH_RELATIVE_ERROR 0.001 /* documented bound on a histogram quantile */

typedef struct gar_quantile_sketch {
    uint64_t *value;   /* the values while exact: `count` of them, room for `capacity` */
    size_t capacity;
    size_t expected;   /* room taken in one step when `capacity` fills (expect) */
    size_t limit;      /* exact up to this many values */
    bool histogram;    /* past the limit: the values are counted in `group` */
    uint64_t count;    /* values added */
    uint64_t min, max; /* exact, whichever mode */
    uint64_t *group[GAR_SKETCH_GROUPS]; /* histogram: the counts of each group's buckets */
    uint64_t group_count[GAR_SKETCH_GROUPS];
} gar_quantile_sketch;

/* An inclusive range of values: where a rank's value lies. */
typedef struct gar_sketch_bucket {
    uint64_t lo, hi;
} gar_sketch_bucket;

/* An empty sketch, exact up to `limit` values (0: GAR_SKETCH_EXACT_MAX). */
void gar_quantile_sketch_init(gar_quantile_sketch *sk, size_t limit);

/* Empties it for a new run, keeping the value array's room. */
void gar_quantile_sketch_reset(gar_quantile_sketch *sk);

/* Makes room for `n` exact values (at most the limit) now, so that adding
 * them neither copies the values nor touches pages twice, as growing by
 * doubling does.  False when memory runs out (nothing changed: the sketch
 * grows as it fills, as before). */
bool gar_quantile_sketch_reserve(gar_quantile_sketch *sk, size_t n);

/* Expects up to `n` exact values (at most the limit): room for them as
 * gar_quantile_sketch_reserve makes it, except that room of 2 MiB or more
 * comes in two steps: GAR_SKETCH_FIRST_ROOM values now, and all `n`, in a
 * block that takes huge pages (gar_malloc_large), when those fill.  A run
 * that stays short touches only what it fills, in small pages; a long one
 * copies half a megabyte once and faults its values in 2 MiB at a time.
 * False when memory runs out (as reserve). */
#define GAR_SKETCH_FIRST_ROOM ((size_t)1 << 16)
bool gar_quantile_sketch_expect(gar_quantile_sketch *sk, size_t n);

/* Makes `dst` (initialised; what it held is released) hold what `src`
 * holds: its limit, mode, values or counts.  False when memory runs out
 * (`dst` is then empty, with src's limit). */
bool gar_quantile_sketch_copy(gar_quantile_sketch *dst, const gar_quantile_sketch *src);

/* Releases its memory; it is empty after.  Accepts NULL. */
void gar_quantile_sketch_free(gar_quantile_sketch *sk);

/* The histogram group and the bucket within it that count `v`: group 0
 * holds 0 .. GAR_SKETCH_LINEAR - 1 one value a bucket; group g >= 1 holds
 * 2^(g+10) .. 2^(g+11) - 1 in 1024 buckets of width 2^g. */
static inline void gar_quantile_sketch_locate(uint64_t v, unsigned *group, size_t *bucket)
{
    if (v < GAR_SKETCH_LINEAR) {
        *group = 0;
        *bucket = (size_t)v;
        return;
    }
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* >= SUB_BITS + 1 */
    unsigned shift = e - GAR_SKETCH_SUB_BITS;
    *group = shift;
    *bucket = (size_t)((v >> shift) - (UINT64_C(1) << GAR_SKETCH_SUB_BITS));
}

/* How many buckets group `group` has: GAR_SKETCH_LINEAR for group 0, 1024
 * for every other. */
static inline size_t gar_quantile_sketch_group_buckets(unsigned group)
{
    return group == 0 ? (size_t)GAR_SKETCH_LINEAR : (size_t)1 << GAR_SKETCH_SUB_BITS;
}

/* The values bucket `bucket` of group `group` holds (what locate maps
 * there): group g >= 1 holds 2^(g+10) .. 2^(g+11) - 1 in widths of 2^g. */
static inline gar_sketch_bucket gar_quantile_sketch_bounds(unsigned group, size_t bucket)
{
    if (group == 0)
        return (gar_sketch_bucket){ bucket, bucket };
    uint64_t lo = ((uint64_t)bucket + (UINT64_C(1) << GAR_SKETCH_SUB_BITS)) << group;
    return (gar_sketch_bucket){ lo, lo + ((UINT64_C(1) << group) - 1) };
}

/* The buckets numbered in value order across the groups (group 0's first,
 * then each group's in turn), and back: how stream_sketch.h pages them. */
static inline size_t gar_quantile_sketch_number(unsigned group, size_t bucket)
{
    size_t per_group = (size_t)1 << GAR_SKETCH_SUB_BITS;
    return group == 0 ? bucket
                      : (size_t)GAR_SKETCH_LINEAR + ((size_t)group - 1) * per_group + bucket;
}

static inline void gar_quantile_sketch_unnumber(size_t n, unsigned *group, size_t *bucket)
{
    if (n < GAR_SKETCH_LINEAR) {
        *group = 0;
        *bucket = n;
        return;
    }
    size_t past = n - (size_t)GAR_SKETCH_LINEAR;
    *group = (unsigned)(past >> GAR_SKETCH_SUB_BITS) + 1;
    *bucket = past & (((size_t)1 << GAR_SKETCH_SUB_BITS) - 1);
}

/* Widens the range seen to take in `v` (a value just counted). */
static inline void gar_quantile_sketch_extend(gar_quantile_sketch *sk, uint64_t v)
{
    if (v < sk->min)
        sk->min = v;
    if (v > sk->max)
        sk->max = v;
}

/* Adds one value.  Returns false when memory runs out (the value is not
 * counted; the sketch stays usable).  Inline for the two usual cases, a
 * value kept exactly and one counted in a bucket whose group is there; the
 * rest (growing, going over to the histogram, a new group) in _slow. */
bool gar_quantile_sketch_add_slow(gar_quantile_sketch *sk, uint64_t v);
static inline bool gar_quantile_sketch_add(gar_quantile_sketch *sk, uint64_t v)
{
    if (!sk->histogram) {
        if (sk->count >= sk->capacity)
            return gar_quantile_sketch_add_slow(sk, v);
        sk->value[sk->count++] = v;
    } else {
        unsigned g;
        size_t b;
        gar_quantile_sketch_locate(v, &g, &b);
        if (sk->group[g] == NULL)
            return gar_quantile_sketch_add_slow(sk, v);
        sk->group[g][b]++;
        sk->group_count[g]++;
        sk->count++;
    }
    gar_quantile_sketch_extend(sk, v);
    return true;
}

/* Moves the values kept exactly into the histogram now (a group of sketches
 * sharing one budget, a run's streams, goes over together).  False when
 * memory runs out (the sketch is unchanged). */
bool gar_quantile_sketch_to_histogram(gar_quantile_sketch *sk);

/* For a histogram: out[j] is the bucket holding the value of 0-based rank
 * ranks[j] (ascending, each below count), narrowed to [min, max], j < k. */
void gar_quantile_sketch_buckets(const gar_quantile_sketch *sk, const size_t *ranks, unsigned k,
                                 gar_sketch_bucket *out);

/* The values at 0-based ranks ranks[0..k-1] (ascending, each below count,
 * k <= 16) into out: exact values (lo == hi) while exact, selected through
 * `tmp` (count values of room; `value` is reordered), else the buckets. */
void gar_quantile_sketch_select(gar_quantile_sketch *sk, uint64_t *tmp, const size_t *ranks,
                                unsigned k, gar_sketch_bucket *out);

/* The value a quantile reports from `b`: its midpoint (the value itself
 * when exact). */
static inline uint64_t gar_sketch_bucket_mid(gar_sketch_bucket b)
{
    return b.lo + (b.hi - b.lo) / 2;
}

#endif
