/* sim/quantile_sketch.c — exact values up to a limit, then a log-linear
 * histogram (quantile_sketch.h). */
#include "sim/quantile_sketch.h"

#include <string.h>

#include "sim/trace/alloc.h"
#include "sim/rank_select.h"

#define FIRST_ROOM 64 /* values, before growing: a run has a sketch per stream */

void gar_quantile_sketch_init(gar_quantile_sketch *sk, size_t limit)
{
    memset(sk, 0, sizeof *sk);
    sk->limit = limit > 0 ? limit : GAR_SKETCH_EXACT_MAX;
    sk->min = UINT64_MAX;
}

static void free_groups(gar_quantile_sketch *sk)
{
    for (unsigned g = 0; g < GAR_SKETCH_GROUPS; g++) {
        gar_free(sk->group[g]);
        sk->group[g] = NULL;
        sk->group_count[g] = 0;
    }
}

void gar_quantile_sketch_reset(gar_quantile_sketch *sk)
{
    free_groups(sk);
    sk->histogram = false;
    sk->count = 0;
    sk->min = UINT64_MAX;
    sk->max = 0;
}

void gar_quantile_sketch_free(gar_quantile_sketch *sk)
{
    if (sk == NULL)
        return;
    free_groups(sk);
    gar_free(sk->value);
    size_t limit = sk->limit;
    gar_quantile_sketch_init(sk, limit);
}

/* Counts `v` in the histogram.  False when its group cannot be had. */
static bool count_value(gar_quantile_sketch *sk, uint64_t v)
{
    unsigned g;
    size_t b;
    gar_quantile_sketch_locate(v, &g, &b);
    if (sk->group[g] == NULL) {
        sk->group[g] = gar_calloc(gar_quantile_sketch_group_buckets(g), sizeof(uint64_t));
        if (sk->group[g] == NULL)
            return false;
    }
    sk->group[g][b]++;
    sk->group_count[g]++;
    return true;
}

bool gar_quantile_sketch_to_histogram(gar_quantile_sketch *sk)
{
    if (sk->histogram)
        return true;
    /* One pass: an exact sketch has no groups yet, so when one cannot be
     * had, dropping those made so far changes nothing. */
    for (size_t i = 0; i < sk->count; i++) {
        if (!count_value(sk, sk->value[i])) {
            free_groups(sk);
            return false;
        }
    }
    sk->histogram = true;
    gar_free(sk->value);
    sk->value = NULL;
    sk->capacity = 0;
    return true;
}

bool gar_quantile_sketch_reserve(gar_quantile_sketch *sk, size_t n)
{
    if (n > sk->limit)
        n = sk->limit;
    if (sk->histogram || n <= sk->capacity)
        return true;
    uint64_t *grown = gar_realloc(sk->value, n * sizeof *grown);
    if (grown == NULL)
        return false;
    sk->value = grown;
    sk->capacity = n;
    return true;
}

bool gar_quantile_sketch_expect(gar_quantile_sketch *sk, size_t n)
{
    if (n > sk->limit)
        n = sk->limit;
    if (sk->histogram || n <= sk->capacity)
        return true;
    if (n * sizeof *sk->value < GAR_ALLOC_LARGE_ALIGN)
        return gar_quantile_sketch_reserve(sk, n);
    sk->expected = n;
    return gar_quantile_sketch_reserve(sk, GAR_SKETCH_FIRST_ROOM);
}

/* Takes the expected room in one large block, the values copied over.
 * False when it cannot (the sketch is unchanged). */
static bool take_expected(gar_quantile_sketch *sk)
{
    uint64_t *room = gar_malloc_large(sk->expected * sizeof *room);
    if (room == NULL)
        return false;
    if (sk->count > 0)
        memcpy(room, sk->value, (size_t)sk->count * sizeof *room);
    gar_free(sk->value);
    sk->value = room;
    sk->capacity = sk->expected;
    sk->expected = 0;
    return true;
}

bool gar_quantile_sketch_copy(gar_quantile_sketch *dst, const gar_quantile_sketch *src)
{
    gar_quantile_sketch_free(dst);
    gar_quantile_sketch_init(dst, src->limit);
    if (!src->histogram && src->count > 0) {
        if (!gar_quantile_sketch_reserve(dst, (size_t)src->count))
            return false;
        memcpy(dst->value, src->value, (size_t)src->count * sizeof *src->value);
    }
    for (unsigned g = 0; src->histogram && g < GAR_SKETCH_GROUPS; g++) {
        if (src->group[g] == NULL)
            continue;
        dst->group[g] = gar_malloc(gar_quantile_sketch_group_buckets(g) * sizeof(uint64_t));
        if (dst->group[g] == NULL) {
            gar_quantile_sketch_free(dst);
            return false;
        }
        memcpy(dst->group[g], src->group[g],
               gar_quantile_sketch_group_buckets(g) * sizeof(uint64_t));
        dst->group_count[g] = src->group_count[g];
    }
    dst->histogram = src->histogram;
    dst->count = src->count;
    dst->min = src->min;
    dst->max = src->max;
    return true;
}

bool gar_quantile_sketch_add_slow(gar_quantile_sketch *sk, uint64_t v)
{
    if (!sk->histogram && sk->count < sk->limit) {
        if (sk->expected > sk->capacity && take_expected(sk))
            return gar_quantile_sketch_add(sk, v);
        /* Room runs out below the limit: grow geometrically, never past it. */
        size_t room = sk->capacity > 0 ? sk->capacity * 2 : FIRST_ROOM;
        if (room > sk->limit)
            room = sk->limit;
        uint64_t *grown = gar_realloc(sk->value, room * sizeof *grown);
        if (grown == NULL)
            return false;
        sk->value = grown;
        sk->capacity = room;
        return gar_quantile_sketch_add(sk, v);
    }
    if (!sk->histogram && !gar_quantile_sketch_to_histogram(sk))
        return false;
    if (!count_value(sk, v))
        return false;
    sk->count++;
    gar_quantile_sketch_extend(sk, v);
    return true;
}

void gar_quantile_sketch_buckets(const gar_quantile_sketch *sk, const size_t *ranks, unsigned k,
                                 gar_sketch_bucket *out)
{
    uint64_t before = 0; /* values in the groups before g */
    unsigned j = 0;
    for (unsigned g = 0; g < GAR_SKETCH_GROUPS && j < k; g++) {
        uint64_t in_group = sk->group_count[g];
        if (before + in_group <= ranks[j]) {
            before += in_group;
            continue;
        }
        uint64_t below = before; /* values in the buckets before b */
        size_t b = 0;
        while (j < k && ranks[j] < before + in_group) {
            while (below + sk->group[g][b] <= ranks[j])
                below += sk->group[g][b++];
            gar_sketch_bucket at = gar_quantile_sketch_bounds(g, b);
            if (at.lo < sk->min)
                at.lo = sk->min;
            if (at.hi > sk->max)
                at.hi = sk->max;
            out[j++] = at; /* the next rank may fall in the same bucket */
        }
        before += in_group;
    }
}

void gar_quantile_sketch_select(gar_quantile_sketch *sk, uint64_t *tmp, const size_t *ranks,
                                unsigned k, gar_sketch_bucket *out)
{
    if (sk->histogram) {
        gar_quantile_sketch_buckets(sk, ranks, k, out);
        return;
    }
    uint64_t at[GAR_RANK_SELECT_MAX];
    gar_rank_select(sk->value, tmp, (size_t)sk->count, ranks, k, at);
    for (unsigned j = 0; j < k; j++)
        out[j] = (gar_sketch_bucket){ at[j], at[j] };
}
