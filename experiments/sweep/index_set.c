/* experiments/sweep/index_set.c — open addressing with linear probing over
 * indices, kept at most half full (index_set.h). */
#include "sweep/index_set.h"
#include "sim/trace/alloc.h"

#include "core/splitmix64.h"
#include "import/content_hash.h"

uint64_t gar_index_set_hash_bytes(const void *data, size_t size)
{
    return gar_splitmix64_mix(gar_hash_bytes(GAR_HASH_OFFSET, data, size));
}

uint64_t gar_index_set_hash_u64(uint64_t value)
{
    return gar_splitmix64_mix(value);
}

bool gar_index_set_find(const gar_index_set *set, uint64_t hash, const void *key,
                        gar_index_set_same_fn same, void *context, size_t *index)
{
    if (set->capacity == 0)
        return false;
    size_t mask = set->capacity - 1;
    uint32_t tag = (uint32_t)hash;
    for (size_t at = tag & mask; set->slot[at] != 0; at = (at + 1) & mask)
        if (set->tag[at] == tag && same(set->slot[at] - 1, key, context)) {
            *index = set->slot[at] - 1;
            return true;
        }
    return false;
}

/* Puts an entry into a table known to have room, at its tag (the low half
 * of its hash: a table never has more than 2^32 slots). */
static void place(uint32_t *slot, uint32_t *tags, size_t capacity, uint32_t tag, uint32_t entry)
{
    size_t mask = capacity - 1, at = tag & mask;
    while (slot[at] != 0)
        at = (at + 1) & mask;
    slot[at] = entry;
    tags[at] = tag;
}

int gar_index_set_add(gar_index_set *set, uint64_t hash, size_t index)
{
    if (index >= GAR_INDEX_SET_MAX)
        return -1;
    if (2 * (set->count + 1) > set->capacity) {
        size_t capacity = set->capacity > 0 ? 2 * set->capacity : 16;
        if (capacity > SIZE_MAX / sizeof(uint32_t))
            return -1;
        uint32_t *slot = gar_calloc(capacity, sizeof *slot);
        uint32_t *tags = gar_malloc(capacity * sizeof *tags);
        if (slot == NULL || tags == NULL) {
            gar_free(slot);
            gar_free(tags);
            return -1;
        }
        for (size_t i = 0; i < set->capacity; i++)
            if (set->slot[i] != 0)
                place(slot, tags, capacity, set->tag[i], set->slot[i]);
        gar_free(set->slot);
        gar_free(set->tag);
        set->slot = slot;
        set->tag = tags;
        set->capacity = capacity;
    }
    place(set->slot, set->tag, set->capacity, (uint32_t)hash, (uint32_t)(index + 1));
    set->count++;
    return 0;
}

void gar_index_set_free(gar_index_set *set)
{
    if (set == NULL)
        return;
    gar_free(set->slot);
    gar_free(set->tag);
    *set = (gar_index_set){ NULL, NULL, 0, 0 };
}
