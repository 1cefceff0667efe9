/* sim/replay_index.h — a trace's rows numbered for replay, once per trace.
 *
 * A replay keeps what belongs to each stream and each readback point in
 * plain arrays; the index says which entry each row takes.  Streams are
 * numbered 0, 1, ... in the order the trace first names them (the device
 * stream a row's work runs on), points likewise (the estimator a row
 * consults).  Building it hashes every row twice; a sweep replays one trace
 * under hundreds of arms, so it builds the index once and every run and
 * worker thread reads it (it is read-only once built; a long trace's lies
 * in its mapped cache, experiments/sweep/trace_cache.h).  A run given none
 * numbers the rows the same way as they come (gar_replay_config.index). */
#ifndef GAR_SIM_REPLAY_INDEX_H
#define GAR_SIM_REPLAY_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "sim/trace/trace.h"

typedef struct gar_replay_index {
    size_t rows;             /* the trace's rows when built: a run checks it */
    uint32_t *stream_of_row; /* each row's device stream, 0 .. streams - 1 */
    uint32_t *point_of_row;  /* each row's point, 0 .. points - 1 */
    uint32_t *stream_id;     /* each device stream's id in the trace */
    size_t streams, points;
} gar_replay_index;

/* Numbers the rows of `trace` (any number, none included) into `out`.  Returns 0, or
 * -GAR_E_CAPACITY when memory runs out (`out` then holds nothing to free).
 * Free a built index with gar_replay_index_free. */
int gar_replay_index_build(const gar_trace *trace, gar_replay_index *out, gar_error *err);

/* Releases the index's memory; it is empty after (freeing again does nothing). */
void gar_replay_index_free(gar_replay_index *index);

#endif
