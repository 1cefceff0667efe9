/* sim/point_index.h — a trace's readback points numbered 0, 1, 2, ... in the
 * order they first appear, so a run keeps each point's estimator in a plain
 * array.  The replay (replay.c) and the real-host verification
 * (experiments/verify_real.c) share it, so both find a point's estimator the
 * same way.
 *
 * Open addressing with linear probing over core's gar_point_key_hash, kept
 * at most half full (it doubles as it fills), so a lookup is about one probe.
 * Unlike core's gar_point_table (gar/estimator.h: fixed caller storage, for
 * a waiter that must not allocate) it owns growing heap memory, and is built
 * once before a run.  Every u64 is a valid key.  Read-only after the build,
 * so threads may look up concurrently. */
#ifndef GAR_SIM_POINT_INDEX_H
#define GAR_SIM_POINT_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#define GAR_POINT_INDEX_NONE UINT32_MAX /* gar_point_index_find: no such point */

typedef struct gar_point_index {
    uint64_t *keys;
    uint32_t *index; /* GAR_POINT_INDEX_NONE: an empty slot */
    size_t mask;     /* capacity - 1, a power of two at least twice the points */
    size_t count;    /* the points: indices run 0 .. count - 1 */
} gar_point_index;

/* Numbers every row's point of `trace` (which may be empty).  Returns true,
 * or false when memory runs out (or past 2^32 - 2 points); either way free
 * it with gar_point_index_free. */
bool gar_point_index_build(gar_point_index *ix, const gar_trace *trace);

/* The number of point `key`, or GAR_POINT_INDEX_NONE when the trace had no
 * such point. */
uint32_t gar_point_index_find(const gar_point_index *ix, uint64_t key);

/* Releases the memory; the index is empty after (free again: no effect). */
void gar_point_index_free(gar_point_index *ix);

#endif
