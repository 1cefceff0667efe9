/* sim/trace/key_index.c — keys numbered by first appearance (key_index.h). */
#include "sim/trace/key_index.h"
#include "sim/trace/alloc.h"

#include <stdlib.h>
#include <string.h>

#include <gar/estimator.h>

static bool alloc_slots(gar_key_index *ix, size_t capacity)
{
    ix->keys = gar_malloc(capacity * sizeof *ix->keys);
    ix->number = gar_malloc(capacity * sizeof *ix->number);
    if (ix->keys == NULL || ix->number == NULL)
        return false;
    memset(ix->number, 0xff, capacity * sizeof *ix->number); /* all NONE */
    ix->mask = capacity - 1;
    return true;
}

void gar_key_index_free(gar_key_index *ix)
{
    gar_free(ix->keys);
    gar_free(ix->number);
    *ix = (gar_key_index){ .keys = NULL };
}

bool gar_key_index_init(gar_key_index *ix)
{
    *ix = (gar_key_index){ .keys = NULL };
    return alloc_slots(ix, 16);
}

/* The slot holding `key`, or the empty one where it belongs. */
static size_t slot_of(const gar_key_index *ix, uint64_t key)
{
    size_t i = (size_t)gar_point_key_hash(key) & ix->mask;
    while (ix->number[i] != GAR_KEY_INDEX_NONE && ix->keys[i] != key)
        i = (i + 1) & ix->mask;
    return i;
}

static bool grow(gar_key_index *ix)
{
    gar_key_index bigger = { .keys = NULL };
    if (!alloc_slots(&bigger, (ix->mask + 1) * 2)) {
        gar_key_index_free(&bigger);
        return false;
    }
    for (size_t i = 0; i <= ix->mask; i++) {
        if (ix->number[i] == GAR_KEY_INDEX_NONE)
            continue;
        size_t j = slot_of(&bigger, ix->keys[i]);
        bigger.keys[j] = ix->keys[i];
        bigger.number[j] = ix->number[i];
    }
    bigger.count = ix->count;
    gar_key_index_free(ix);
    *ix = bigger;
    return true;
}

uint32_t gar_key_index_add(gar_key_index *ix, uint64_t key)
{
    size_t i = slot_of(ix, key);
    if (ix->number[i] != GAR_KEY_INDEX_NONE)
        return ix->number[i];
    /* Grow first, so a failure leaves the index as it was. */
    if (ix->count >= GAR_KEY_INDEX_NONE - 1 ||
        ((ix->count + 1) * 2 > ix->mask + 1 && !grow(ix)))
        return GAR_KEY_INDEX_NONE;
    i = slot_of(ix, key);
    ix->keys[i] = key;
    ix->number[i] = (uint32_t)ix->count++;
    return ix->number[i];
}

uint32_t gar_key_index_find(const gar_key_index *ix, uint64_t key)
{
    return ix->number[slot_of(ix, key)];
}

