/* core/alarm_heap.c — the pairing heap behind gar/alarm_heap.h.
 *
 * Each node keeps its first child, its next sibling, and `prev`: its previous
 * sibling, or its parent when it is a first child (NULL for the root).  That
 * back link is what lets a node be removed from the middle in O(1) before its
 * children are merged back. */
#include <assert.h>

#include <gar/alarm_heap.h>

/* The heap's total order: earlier `at`, then earlier insertion. */
static bool before(const gar_alarm_node *a, const gar_alarm_node *b)
{
    return a->at != b->at ? a->at < b->at : a->seq < b->seq;
}

/* Melds two detached trees (either may be NULL); returns the new root, whose
 * prev and next the caller sets. */
static gar_alarm_node *meld(gar_alarm_node *a, gar_alarm_node *b)
{
    if (a == NULL)
        return b;
    if (b == NULL)
        return a;
    if (before(b, a)) {
        gar_alarm_node *t = a;
        a = b;
        b = t;
    }
    /* b becomes a's first child. */
    b->next = a->child;
    if (a->child != NULL)
        a->child->prev = b;
    b->prev = a;
    a->child = b;
    return a;
}

/* Merges a sibling list (its head's prev is ignored) into one tree: pairs
 * left to right, then melds the pairs right to left.  Iterative, so a long
 * sibling list never deepens the stack.  The first pass threads the melded
 * pairs through `prev` in reverse, which the second pass then walks. */
static gar_alarm_node *merge_siblings(gar_alarm_node *first)
{
    gar_alarm_node *pairs = NULL; /* melded pairs, last first, linked by prev */
    while (first != NULL) {
        gar_alarm_node *a = first;
        gar_alarm_node *b = a->next;
        first = b != NULL ? b->next : NULL;
        a->next = NULL;
        if (b != NULL)
            b->next = NULL;
        gar_alarm_node *pair = meld(a, b);
        pair->prev = pairs;
        pairs = pair;
    }
    gar_alarm_node *root = NULL;
    while (pairs != NULL) {
        gar_alarm_node *pair = pairs;
        pairs = pair->prev;
        pair->prev = NULL;
        root = meld(root, pair);
    }
    if (root != NULL) {
        root->prev = NULL;
        root->next = NULL;
    }
    return root;
}

void gar_alarm_heap_init(gar_alarm_heap *heap)
{
    heap->root = NULL;
    heap->count = 0;
    heap->next_seq = 0;
}

void gar_alarm_node_init(gar_alarm_node *node)
{
    node->at = GAR_MONO_NEVER;
    node->seq = 0;
    node->child = node->next = node->prev = NULL;
    node->linked = false;
}

void gar_alarm_heap_insert(gar_alarm_heap *heap, gar_alarm_node *node, gar_mono_ns at)
{
    if (node->linked)
        gar_alarm_heap_remove(heap, node);
    node->at = at;
    node->seq = heap->next_seq++;
    node->child = node->next = node->prev = NULL;
    node->linked = true;
    heap->root = meld(heap->root, node);
    heap->root->prev = NULL;
    heap->count++;
}

bool gar_alarm_heap_remove(gar_alarm_heap *heap, gar_alarm_node *node)
{
    if (!node->linked)
        return false;
    assert(heap->count > 0);
    if (node == heap->root) {
        heap->root = merge_siblings(node->child);
    } else {
        /* Cut node (with its subtree) out of its sibling list. */
        assert(node->prev != NULL);
        if (node->prev->child == node)
            node->prev->child = node->next;
        else
            node->prev->next = node->next;
        if (node->next != NULL)
            node->next->prev = node->prev;
        gar_alarm_node *rest = merge_siblings(node->child);
        heap->root = meld(heap->root, rest);
        heap->root->prev = NULL;
    }
    node->child = node->next = node->prev = NULL;
    node->linked = false;
    heap->count--;
    return true;
}

gar_alarm_node *gar_alarm_heap_pop(gar_alarm_heap *heap)
{
    gar_alarm_node *min = heap->root;
    if (min != NULL)
        gar_alarm_heap_remove(heap, min);
    return min;
}

gar_alarm_node *gar_alarm_heap_pop_due(gar_alarm_heap *heap, gar_mono_ns now)
{
    gar_alarm_node *min = heap->root;
    if (min == NULL || min->at > now)
        return NULL;
    gar_alarm_heap_remove(heap, min);
    return min;
}
