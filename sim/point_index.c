/* sim/point_index.c — points numbered by first appearance (point_index.h). */
#include "point_index.h"

#include <stdlib.h>
#include <string.h>

#include <gar/estimator.h>

static bool alloc_slots(gar_point_index *ix, size_t capacity)
{
    ix->keys = malloc(capacity * sizeof *ix->keys);
    ix->index = malloc(capacity * sizeof *ix->index);
    if (ix->keys == NULL || ix->index == NULL)
        return false;
    memset(ix->index, 0xff, capacity * sizeof *ix->index); /* all NONE */
    ix->mask = capacity - 1;
    return true;
}

void gar_point_index_free(gar_point_index *ix)
{
    free(ix->keys);
    free(ix->index);
    *ix = (gar_point_index){ .keys = NULL };
}

/* The slot holding `key`, or the empty one where it belongs. */
static size_t slot_of(const gar_point_index *ix, uint64_t key)
{
    size_t i = (size_t)gar_point_key_hash(key) & ix->mask;
    while (ix->index[i] != GAR_POINT_INDEX_NONE && ix->keys[i] != key)
        i = (i + 1) & ix->mask;
    return i;
}

static bool grow(gar_point_index *ix)
{
    gar_point_index bigger = { .keys = NULL };
    if (!alloc_slots(&bigger, (ix->mask + 1) * 2)) {
        gar_point_index_free(&bigger);
        return false;
    }
    for (size_t i = 0; i <= ix->mask; i++) {
        if (ix->index[i] == GAR_POINT_INDEX_NONE)
            continue;
        size_t j = slot_of(&bigger, ix->keys[i]);
        bigger.keys[j] = ix->keys[i];
        bigger.index[j] = ix->index[i];
    }
    bigger.count = ix->count;
    gar_point_index_free(ix);
    *ix = bigger;
    return true;
}

bool gar_point_index_build(gar_point_index *ix, const gar_trace *trace)
{
    *ix = (gar_point_index){ .keys = NULL };
    if (!alloc_slots(ix, 16))
        return false;
    for (size_t r = 0; r < trace->count; r++) {
        uint64_t key = trace->row[r].point;
        size_t i = slot_of(ix, key);
        if (ix->index[i] != GAR_POINT_INDEX_NONE)
            continue;
        if (ix->count >= GAR_POINT_INDEX_NONE - 1)
            return false;
        ix->keys[i] = key;
        ix->index[i] = (uint32_t)ix->count++;
        if (ix->count * 2 > ix->mask + 1 && !grow(ix))
            return false;
    }
    return true;
}

uint32_t gar_point_index_find(const gar_point_index *ix, uint64_t key)
{
    return ix->index[slot_of(ix, key)];
}
