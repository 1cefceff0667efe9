/* gar/alarm_heap.h — an intrusive min-heap of caller-owned alarm nodes.
 *
 * The reactor keeps every deadline and alarm of its waiting tasks here; a
 * virtual clock may keep its timers here too.  Nodes are embedded in the
 * caller's structs (libuv's timers are the model), so inserting, removing and
 * popping never allocate.  The order is total: earliest `at` first, and among
 * equal `at` the node inserted first (a sequence number the heap hands out at
 * insertion), so two runs that insert the same alarms pop them identically.
 *
 * The heap is a pairing heap: O(1) insert, amortised O(log n) pop and remove.
 * Ownership: the heap links nodes and never owns them; a node must stay alive
 * while linked and is linked in at most one heap.  Single-threaded. */
#ifndef GAR_ALARM_HEAP_H
#define GAR_ALARM_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/time.h>

typedef struct gar_alarm_node {
    gar_mono_ns at; /* when it is due; read-only while linked */
    uint64_t seq;   /* insertion order, for ties; set by the heap */
    /* private: the pairing heap's links (first child, next sibling, and the
     * previous sibling or, for a first child, the parent). */
    struct gar_alarm_node *child, *next, *prev;
    bool linked;
} gar_alarm_node;

typedef struct gar_alarm_heap {
    gar_alarm_node *root; /* the earliest node, NULL when empty */
    size_t count;
    uint64_t next_seq;
} gar_alarm_heap;

/* Empties a heap (forgetting, not touching, any nodes it held). */
GAR_API void gar_alarm_heap_init(gar_alarm_heap *heap);

/* An unlinked node, ready to insert. */
GAR_API void gar_alarm_node_init(gar_alarm_node *node);

/* Whether `node` is in a heap now. */
static inline bool gar_alarm_node_linked(const gar_alarm_node *node)
{
    return node->linked;
}

/* Links `node` due at `at`.  A node that is already linked is first removed
 * from this heap (so it moves, taking a new place among ties).  Never fails. */
GAR_API void gar_alarm_heap_insert(gar_alarm_heap *heap, gar_alarm_node *node, gar_mono_ns at);

/* Unlinks `node` from `heap`.  Returns true when it was linked, false (and
 * does nothing) when it was not. */
GAR_API bool gar_alarm_heap_remove(gar_alarm_heap *heap, gar_alarm_node *node);

/* The earliest node, or NULL when the heap is empty. */
static inline gar_alarm_node *gar_alarm_heap_min(const gar_alarm_heap *heap)
{
    return heap->root;
}

/* Unlinks and returns the earliest node, or NULL when the heap is empty. */
GAR_API gar_alarm_node *gar_alarm_heap_pop(gar_alarm_heap *heap);

/* Unlinks and returns the earliest node when it is due by `now`
 * (at <= now), else NULL. */
GAR_API gar_alarm_node *gar_alarm_heap_pop_due(gar_alarm_heap *heap, gar_mono_ns now);

/* Nodes linked now. */
static inline size_t gar_alarm_heap_count(const gar_alarm_heap *heap)
{
    return heap->count;
}

#endif
