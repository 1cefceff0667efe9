/* sim/replay_index.c — streams and points numbered through two key indexes,
 * which are dropped once every row has its numbers. */
#include "sim/replay_index.h"

#include <stdlib.h>

#include "sim/trace/key_index.h"

void gar_replay_index_free(gar_replay_index *index)
{
    if (index == NULL)
        return;
    free(index->stream_of_row);
    free(index->point_of_row);
    free(index->stream_id);
    *index = (gar_replay_index){ 0 };
}

/* Fills `index`'s arrays (allocated, `rows` long) from `trace`, keys
 * numbered through `streams` and `points`.  False when memory runs out. */
static bool number_rows(const gar_trace *trace, gar_key_index *streams, gar_key_index *points,
                        gar_replay_index *index)
{
    /* A row mostly names the stream (and often the point) of the row before
     * it: those keep their numbers without a hash and a probe. */
    uint64_t last_stream = 0, last_point = 0;
    uint32_t s = GAR_KEY_INDEX_NONE, p = GAR_KEY_INDEX_NONE;
    for (size_t r = 0; r < trace->count; r++) {
        const gar_trace_row *row = &trace->row[r];
        if (s == GAR_KEY_INDEX_NONE || row->stream != last_stream) {
            last_stream = row->stream;
            if ((s = gar_key_index_add(streams, last_stream)) == GAR_KEY_INDEX_NONE)
                return false;
        }
        if (p == GAR_KEY_INDEX_NONE || row->point != last_point) {
            last_point = row->point;
            if ((p = gar_key_index_add(points, last_point)) == GAR_KEY_INDEX_NONE)
                return false;
        }
        index->stream_of_row[r] = s;
        index->point_of_row[r] = p;
    }
    index->streams = streams->count;
    index->points = points->count;
    index->stream_id = malloc((index->streams + 1) * sizeof *index->stream_id);
    if (index->stream_id == NULL)
        return false;
    /* A stream's id is the key that numbered it: its first row's. */
    for (size_t r = trace->count; r-- > 0;)
        index->stream_id[index->stream_of_row[r]] = trace->row[r].stream;
    return true;
}

int gar_replay_index_build(const gar_trace *trace, gar_replay_index *out, gar_error *err)
{
    if (trace == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_index_build",
                             trace == NULL ? "trace" : "out", "is NULL");
    gar_replay_index index = {
        .rows = trace->count,
        /* At least one element each: malloc(0) may answer NULL. */
        .stream_of_row = malloc((trace->count + 1) * sizeof *index.stream_of_row),
        .point_of_row = malloc((trace->count + 1) * sizeof *index.point_of_row),
    };
    gar_key_index streams, points;
    bool streams_ok = gar_key_index_init(&streams); /* both made, so both may be freed */
    bool points_ok = gar_key_index_init(&points);
    bool ok = streams_ok && points_ok && index.stream_of_row != NULL &&
              index.point_of_row != NULL && number_rows(trace, &streams, &points, &index);
    gar_key_index_free(&streams);
    gar_key_index_free(&points);
    if (!ok) {
        gar_replay_index_free(&index);
        *out = (gar_replay_index){ 0 };
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay's index",
                             "exhausted");
    }
    *out = index;
    return 0;
}
