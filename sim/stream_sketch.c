/* sim/stream_sketch.c — exact values up to a limit, then the log-linear
 * histogram's buckets counted in small pages (stream_sketch.h). */
#include "sim/stream_sketch.h"

#include <string.h>

#include "sim/trace/alloc.h"
#include "sim/rank_select.h"

#define PAGE GAR_STREAM_SKETCH_PAGE
#define FIRST_ROOM 8 /* values, before growing: a run may have a million streams */

_Static_assert(GAR_STREAM_SKETCH_PAGES_MAX <= UINT16_MAX, "a page number fits 16 bits");

void gar_stream_sketch_init(gar_stream_sketch *sk, size_t limit)
{
    memset(sk, 0, sizeof *sk);
    sk->limit = limit > 0 ? limit : GAR_SKETCH_EXACT_MAX;
    sk->min = UINT64_MAX;
}

void gar_stream_sketch_free(gar_stream_sketch *sk)
{
    if (sk == NULL)
        return;
    gar_free(sk->value);
    gar_free(sk->page);
    gar_free(sk->counts);
    gar_stream_sketch_init(sk, sk->limit);
}

/* The histogram's buckets numbered in value order across its groups. */
static size_t bucket_number(uint64_t v)
{
    unsigned g;
    size_t b;
    gar_quantile_sketch_locate(v, &g, &b);
    return gar_quantile_sketch_number(g, b);
}

/* The values bucket number `n` holds (as quantile_sketch.h's groups). */
static gar_sketch_bucket bucket_bounds(size_t n)
{
    unsigned g;
    size_t b;
    gar_quantile_sketch_unnumber(n, &g, &b);
    return gar_quantile_sketch_bounds(g, b);
}

/* The counts of page `p`, made (zeroed, in order) when missing; NULL when
 * memory runs out. */
static uint64_t *page_counts(gar_stream_sketch *sk, uint16_t p)
{
    uint32_t lo = 0, hi = sk->pages;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (sk->page[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < sk->pages && sk->page[lo] == p)
        return sk->counts + (size_t)lo * PAGE;
    if (sk->pages == sk->page_room) {
        /* Room grows by half: a sketch with many pages wastes a third at most. */
        uint32_t room = sk->page_room < 4 ? 4 : sk->page_room + sk->page_room / 2;
        if (room > GAR_STREAM_SKETCH_PAGES_MAX)
            room = GAR_STREAM_SKETCH_PAGES_MAX;
        uint16_t *page = gar_realloc(sk->page, room * sizeof *page);
        if (page == NULL)
            return NULL;
        sk->page = page;
        uint64_t *counts = gar_realloc(sk->counts, (size_t)room * PAGE * sizeof *counts);
        if (counts == NULL)
            return NULL; /* the larger page list stays, unused */
        sk->counts = counts;
        sk->page_room = (uint16_t)room;
    }
    memmove(sk->page + lo + 1, sk->page + lo, (sk->pages - lo) * sizeof *sk->page);
    memmove(sk->counts + (size_t)(lo + 1) * PAGE, sk->counts + (size_t)lo * PAGE,
            (size_t)(sk->pages - lo) * PAGE * sizeof *sk->counts);
    sk->page[lo] = p;
    memset(sk->counts + (size_t)lo * PAGE, 0, PAGE * sizeof *sk->counts);
    sk->pages++;
    return sk->counts + (size_t)lo * PAGE;
}

/* Counts `times` values in bucket number `n`.  False when its page cannot
 * be had. */
static bool count_in(gar_stream_sketch *sk, size_t n, uint64_t times)
{
    uint64_t *counts = page_counts(sk, (uint16_t)(n / PAGE));
    if (counts == NULL)
        return false;
    counts[n % PAGE] += times;
    return true;
}

static void drop_pages(gar_stream_sketch *sk)
{
    gar_free(sk->page);
    gar_free(sk->counts);
    sk->page = NULL;
    sk->counts = NULL;
    sk->pages = sk->page_room = 0;
}

bool gar_stream_sketch_to_histogram(gar_stream_sketch *sk)
{
    if (sk->histogram)
        return true;
    for (uint64_t i = 0; i < sk->count; i++) {
        if (!count_in(sk, bucket_number(sk->value[i]), 1)) {
            drop_pages(sk); /* an exact sketch had none */
            return false;
        }
    }
    sk->histogram = true;
    gar_free(sk->value);
    sk->value = NULL;
    sk->capacity = 0;
    return true;
}

bool gar_stream_sketch_add(gar_stream_sketch *sk, uint64_t v)
{
    if (!sk->histogram && sk->count == sk->capacity) {
        if (sk->count >= sk->limit) {
            if (!gar_stream_sketch_to_histogram(sk))
                return false;
        } else {
            size_t room = sk->capacity > 0 ? sk->capacity * 2 : FIRST_ROOM;
            if (room > sk->limit)
                room = sk->limit;
            uint64_t *grown = gar_realloc(sk->value, room * sizeof *grown);
            if (grown == NULL)
                return false;
            sk->value = grown;
            sk->capacity = room;
        }
    }
    if (sk->histogram) {
        if (!count_in(sk, bucket_number(v), 1))
            return false;
    } else {
        sk->value[sk->count] = v;
    }
    sk->count++;
    if (v < sk->min)
        sk->min = v;
    if (v > sk->max)
        sk->max = v;
    return true;
}

bool gar_stream_sketch_from(gar_stream_sketch *dst, const gar_quantile_sketch *src)
{
    gar_stream_sketch_free(dst);
    gar_stream_sketch_init(dst, src->limit);
    if (!src->histogram && src->count > 0) {
        dst->value = gar_malloc((size_t)src->count * sizeof *dst->value);
        if (dst->value == NULL)
            return false;
        memcpy(dst->value, src->value, (size_t)src->count * sizeof *dst->value);
        dst->capacity = (size_t)src->count;
    }
    for (unsigned g = 0; src->histogram && g < GAR_SKETCH_GROUPS; g++) {
        if (src->group[g] == NULL)
            continue;
        size_t first = gar_quantile_sketch_number(g, 0);
        size_t buckets = gar_quantile_sketch_group_buckets(g);
        for (size_t b = 0; b < buckets; b++) {
            if (src->group[g][b] != 0 && !count_in(dst, first + b, src->group[g][b])) {
                gar_stream_sketch_free(dst);
                return false;
            }
        }
    }
    dst->histogram = src->histogram;
    dst->count = src->count;
    dst->min = src->min;
    dst->max = src->max;
    return true;
}

/* For a histogram: out[j] is the bucket holding rank ranks[j], narrowed to
 * [min, max]. */
static void buckets_at(const gar_stream_sketch *sk, const size_t *ranks, unsigned k,
                       gar_sketch_bucket *out)
{
    uint64_t below = 0; /* values in the buckets before the one looked at */
    unsigned j = 0;
    for (uint32_t i = 0; i < sk->pages && j < k; i++) {
        const uint64_t *counts = sk->counts + (size_t)i * PAGE;
        for (size_t b = 0; b < PAGE && j < k; b++) {
            below += counts[b];
            while (j < k && ranks[j] < below) { /* the next rank may share the bucket */
                gar_sketch_bucket at = bucket_bounds((size_t)sk->page[i] * PAGE + b);
                if (at.lo < sk->min)
                    at.lo = sk->min;
                if (at.hi > sk->max)
                    at.hi = sk->max;
                out[j++] = at;
            }
        }
    }
}

void gar_stream_sketch_select(gar_stream_sketch *sk, uint64_t *tmp, const size_t *ranks,
                              unsigned k, gar_sketch_bucket *out)
{
    if (sk->histogram) {
        buckets_at(sk, ranks, k, out);
        return;
    }
    uint64_t at[GAR_RANK_SELECT_MAX];
    gar_rank_select(sk->value, tmp, (size_t)sk->count, ranks, k, at);
    for (unsigned j = 0; j < k; j++)
        out[j] = (gar_sketch_bucket){ at[j], at[j] };
}

size_t gar_stream_sketch_bytes(const gar_stream_sketch *sk)
{
    return sk->capacity * sizeof *sk->value +
           (size_t)sk->page_room * (PAGE * sizeof *sk->counts + sizeof *sk->page);
}
