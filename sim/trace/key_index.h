/* sim/trace/key_index.h — u64 keys numbered 0, 1, 2, ... in the order they are
 * first added, so a run keeps what belongs to each key in a plain array.
 * A trace's readback points and streams are numbered with it, once by
 * replay_index.h or as the rows come by a replay given no index, for the
 * replay and the real-host verification alike, so all find a point's
 * estimator the same way; any other id (an emulated device's streams) can
 * be numbered alike.
 *
 * Open addressing with linear probing over core's gar_point_key_hash, kept
 * at most half full (it doubles as it fills), so a lookup is about one probe.
 * Unlike core's gar_point_table (gar/estimator.h: fixed caller storage, for
 * a waiter that must not allocate) it owns growing heap memory.  Every u64 is
 * a valid key.  Not thread-safe while keys are added; read-only after, when
 * threads may look up concurrently. */
#ifndef GAR_SIM_KEY_INDEX_H
#define GAR_SIM_KEY_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


#define GAR_KEY_INDEX_NONE UINT32_MAX /* no such key, or no memory to add it */

typedef struct gar_key_index {
    uint64_t *keys;
    uint32_t *number; /* GAR_KEY_INDEX_NONE: an empty slot */
    size_t mask;      /* capacity - 1, a power of two at least twice the keys */
    size_t count;     /* the keys: numbers run 0 .. count - 1 */
} gar_key_index;

/* An empty index.  Returns true, or false when memory runs out; either way
 * free it with gar_key_index_free. */
bool gar_key_index_init(gar_key_index *ix);

/* The number of `key`, given it now if it had none.  Returns the number, or
 * GAR_KEY_INDEX_NONE when memory runs out (or past 2^32 - 2 keys); the index
 * stays valid then, without the key. */
uint32_t gar_key_index_add(gar_key_index *ix, uint64_t key);

/* The number of `key`, or GAR_KEY_INDEX_NONE when it was never added. */
uint32_t gar_key_index_find(const gar_key_index *ix, uint64_t key);

/* Releases the memory; the index is empty after (free again: no effect). */
void gar_key_index_free(gar_key_index *ix);

#endif
