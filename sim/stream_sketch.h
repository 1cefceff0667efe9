/* sim/stream_sketch.h — one stream's overshoots, kept for their quantiles
 * in little memory: a replay of many streams holds one per stream.
 *
 * It answers as gar_quantile_sketch does (quantile_sketch.h), bucket for
 * bucket: exact values up to the run's budget, then the very buckets of
 * that sketch's log-linear histogram, so a quantile lies within
 * GAR_SKETCH_RELATIVE_ERROR (0.1 %) of the true value and equals what a
 * gar_quantile_sketch of the same values reports.  Only the storage
 * differs: where that sketch counts a whole power of two at once (8 KiB,
 * and 16 KiB for the values below 2 048), this one counts buckets in pages
 * of GAR_STREAM_SKETCH_PAGE, allocated when a value first falls in one, and
 * keeps them in one block in bucket order.  A histogram thus holds
 * GAR_STREAM_SKETCH_PAGE_BYTES (66) a page its values touch, its room
 * grown by half at a time: never more pages than values, and at most
 * GAR_STREAM_SKETCH_PAGES_MAX (7 040 pages, 454 KiB) whatever the count;
 * the struct itself is 72 bytes.  A stream's overshoots cluster within a
 * few hundred nanoseconds, so it touches a few dozen pages at most and
 * stops growing early; one spread evenly over 0 .. 2 047 ns takes 256
 * pages (16.5 KiB), as much as the run's layout.
 *
 * Ownership: a sketch owns its values and its pages; init, then add, then
 * read; free releases everything.  Memory comes through the allocation
 * hook (alloc.h).  Not thread-safe: one run fills one sketch. */
#ifndef GAR_SIM_STREAM_SKETCH_H
#define GAR_SIM_STREAM_SKETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/quantile_sketch.h"

#define GAR_STREAM_SKETCH_PAGE 8 /* buckets a page: 64 bytes of counts */
#define GAR_STREAM_SKETCH_BUCKETS                                                            \
    (GAR_SKETCH_LINEAR + (GAR_SKETCH_GROUPS - 1) * (UINT64_C(1) << GAR_SKETCH_SUB_BITS))
#define GAR_STREAM_SKETCH_PAGES_MAX (GAR_STREAM_SKETCH_BUCKETS / GAR_STREAM_SKETCH_PAGE)
/* A page's counts and its entry in the page list. */
#define GAR_STREAM_SKETCH_PAGE_BYTES (GAR_STREAM_SKETCH_PAGE * sizeof(uint64_t) + sizeof(uint16_t))

typedef struct gar_stream_sketch {
    uint64_t *value;    /* while exact: `count` values, room for `capacity` */
    uint16_t *page;     /* histogram: the pages in use, ascending (bucket / PAGE) */
    uint64_t *counts;   /* histogram: PAGE counts for each of them, in that order */
    size_t capacity;    /* exact values' room */
    size_t limit;       /* exact up to this many values */
    uint64_t count;     /* values added */
    uint64_t min, max;  /* exact, whichever mode */
    uint16_t pages, page_room;
    bool histogram;
} gar_stream_sketch;

/* An empty sketch, exact up to `limit` values (0: GAR_SKETCH_EXACT_MAX). */
void gar_stream_sketch_init(gar_stream_sketch *sk, size_t limit);

/* Releases its memory; it is empty after, with its limit.  Accepts NULL. */
void gar_stream_sketch_free(gar_stream_sketch *sk);

/* Adds one value; past the limit the sketch goes over to its histogram.
 * Returns false when memory runs out (the value is not counted; the sketch
 * stays usable). */
bool gar_stream_sketch_add(gar_stream_sketch *sk, uint64_t v);

/* Moves the exact values into the histogram now (a run's streams go over
 * together).  False when memory runs out (the sketch is unchanged). */
bool gar_stream_sketch_to_histogram(gar_stream_sketch *sk);

/* Makes `dst` (initialised; what it held is released) hold the values
 * `src` holds, exact or counted, with src's limit.  False when memory runs
 * out (`dst` is then empty). */
bool gar_stream_sketch_from(gar_stream_sketch *dst, const gar_quantile_sketch *src);

/* The values at 0-based ranks ranks[0..k-1] (ascending, each below count,
 * k <= 16) into out, as gar_quantile_sketch_select gives them: exact values
 * (lo == hi) while exact, selected through `tmp` (count values of room;
 * `value` is reordered), else the buckets, narrowed to [min, max]. */
void gar_stream_sketch_select(gar_stream_sketch *sk, uint64_t *tmp, const size_t *ranks,
                              unsigned k, gar_sketch_bucket *out);

/* The bytes it holds beyond the struct: its values' room, or its pages'. */
size_t gar_stream_sketch_bytes(const gar_stream_sketch *sk);

#endif
