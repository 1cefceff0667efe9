/* experiments/sweep/index_set.h — a set of indices into an array, found by a
 * hash of what each element holds: which values an axis of a sweep spec
 * already has, in constant time per value, so a spec of n values is
 * checked for repeats in time linear in n.
 *
 * The set keeps only indices; the caller keeps the elements, hashes them
 * and says when an element equals a key (a callback), so one set serves
 * labels, content hashes and seeds alike.  Memory comes through the
 * allocation hook (sim/trace/alloc.h).  Not shared between threads. */
#ifndef GAR_SWEEP_INDEX_SET_H
#define GAR_SWEEP_INDEX_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gar_index_set {
    uint32_t *slot;  /* index + 1 of an element, or 0 for an empty slot */
    uint32_t *tag;   /* the low half of the element's hash, per slot: where it goes */
    size_t capacity; /* a power of two, or 0 before the first add */
    size_t count;
} gar_index_set;

/* The most elements a set holds (8 bytes a slot keeps a set of n at 16 n
 * to 32 n bytes); a sweep's axis is at most GAR_SWEEP_RUNS_MAX long. */
#define GAR_INDEX_SET_MAX (UINT32_MAX - 1)

/* Whether the element at `index` equals `key`. */
typedef bool (*gar_index_set_same_fn)(size_t index, const void *key, void *context);

/* The index of an element equal to `key` (of hash `hash`) into `*index`:
 * true, or false when the set holds none. */
bool gar_index_set_find(const gar_index_set *set, uint64_t hash, const void *key,
                        gar_index_set_same_fn same, void *context, size_t *index);

/* Adds the element at `index` (below GAR_INDEX_SET_MAX), of hash `hash` (the
 * caller has found no equal one).  Returns 0, or -1 when memory runs out or
 * the index is too large (the set is as it was). */
int gar_index_set_add(gar_index_set *set, uint64_t hash, size_t index);

/* Releases the set's memory and leaves it empty.  Accepts NULL. */
void gar_index_set_free(gar_index_set *set);

/* A hash of `size` bytes, spread over every bit (for text keys). */
uint64_t gar_index_set_hash_bytes(const void *data, size_t size);

/* A hash of a 64-bit value, spread over every bit. */
uint64_t gar_index_set_hash_u64(uint64_t value);

#endif
