/* tests/core/test_alarm_heap.c — the intrusive heap pops earliest first,
 * ties in insertion order, and removes from anywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gar/alarm_heap.h>

#define N 64

static void pops_earliest_first_and_ties_in_insertion_order(void **state)
{
    (void)state;
    gar_alarm_heap heap;
    gar_alarm_node nodes[N];
    gar_alarm_heap_init(&heap);
    /* Times repeat every 8 nodes, inserted out of order: (i * 5) % 8. */
    for (size_t i = 0; i < N; i++) {
        gar_alarm_node_init(&nodes[i]);
        gar_alarm_heap_insert(&heap, &nodes[i], (gar_mono_ns)((i * 5) % 8) * 100);
    }
    assert_int_equal(gar_alarm_heap_count(&heap), N);
    gar_mono_ns last_at = 0;
    uint64_t last_seq = 0;
    for (size_t i = 0; i < N; i++) {
        gar_alarm_node *min = gar_alarm_heap_pop(&heap);
        assert_non_null(min);
        assert_false(gar_alarm_node_linked(min));
        if (i > 0) {
            assert_true(min->at >= last_at);
            if (min->at == last_at)
                assert_true(min->seq > last_seq); /* ties: inserted first, popped first */
        }
        last_at = min->at;
        last_seq = min->seq;
    }
    assert_null(gar_alarm_heap_pop(&heap));
    assert_int_equal(gar_alarm_heap_count(&heap), 0);
}

static void removes_from_the_middle_and_reinserts(void **state)
{
    (void)state;
    gar_alarm_heap heap;
    gar_alarm_node nodes[N];
    gar_alarm_heap_init(&heap);
    for (size_t i = 0; i < N; i++) {
        gar_alarm_node_init(&nodes[i]);
        gar_alarm_heap_insert(&heap, &nodes[i], (gar_mono_ns)(N - i));
    }
    /* Pop one so the heap has real structure, then remove every third. */
    assert_ptr_equal(gar_alarm_heap_pop(&heap), &nodes[N - 1]);
    for (size_t i = 0; i < N - 1; i += 3)
        assert_true(gar_alarm_heap_remove(&heap, &nodes[i]));
    assert_false(gar_alarm_heap_remove(&heap, &nodes[0])); /* not linked any more */
    /* Moving a linked node re-inserts it. */
    gar_alarm_heap_insert(&heap, &nodes[1], 0);
    assert_ptr_equal(gar_alarm_heap_min(&heap), &nodes[1]);
    size_t left = gar_alarm_heap_count(&heap);
    gar_mono_ns last = 0;
    size_t popped = 0;
    gar_alarm_node *min;
    while ((min = gar_alarm_heap_pop(&heap)) != NULL) {
        assert_true(min->at >= last);
        size_t index = (size_t)(min - nodes);
        assert_true(index % 3 != 0);
        last = min->at;
        popped++;
    }
    assert_int_equal(popped, left);
}

static void pop_due_stops_at_now(void **state)
{
    (void)state;
    gar_alarm_heap heap;
    gar_alarm_node a, b, c;
    gar_alarm_heap_init(&heap);
    gar_alarm_node_init(&a);
    gar_alarm_node_init(&b);
    gar_alarm_node_init(&c);
    gar_alarm_heap_insert(&heap, &a, 200);
    gar_alarm_heap_insert(&heap, &b, 100);
    gar_alarm_heap_insert(&heap, &c, UINT64_MAX);
    assert_null(gar_alarm_heap_pop_due(&heap, 99));
    assert_ptr_equal(gar_alarm_heap_pop_due(&heap, 200), &b);
    assert_ptr_equal(gar_alarm_heap_pop_due(&heap, 200), &a); /* due exactly at now */
    assert_null(gar_alarm_heap_pop_due(&heap, UINT64_MAX - 1));
    assert_ptr_equal(gar_alarm_heap_pop_due(&heap, UINT64_MAX), &c);
}

/* A pseudo-random mix of inserts, moves, removes and pops, checked at every
 * step against a plain scan for the earliest (at, seq) among linked nodes. */
static void random_operations_agree_with_a_linear_scan(void **state)
{
    (void)state;
    gar_alarm_heap heap;
    gar_alarm_node nodes[N];
    gar_alarm_heap_init(&heap);
    for (size_t i = 0; i < N; i++)
        gar_alarm_node_init(&nodes[i]);
    uint64_t x = 0x9e3779b97f4a7c15u; /* xorshift64 state */
    size_t linked = 0;
    for (unsigned step = 0; step < 20000; step++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        gar_alarm_node *n = &nodes[x % N];
        switch ((x >> 8) % 4) {
        case 0:
        case 1: /* insert or move; few distinct times, so ties are common */
            if (!gar_alarm_node_linked(n))
                linked++;
            gar_alarm_heap_insert(&heap, n, (x >> 16) % 16);
            break;
        case 2:
            if (gar_alarm_heap_remove(&heap, n))
                linked--;
            break;
        case 3:
            if (gar_alarm_heap_pop(&heap) != NULL)
                linked--;
            break;
        }
        const gar_alarm_node *want = NULL;
        for (size_t i = 0; i < N; i++) {
            const gar_alarm_node *c = &nodes[i];
            if (c->linked && (want == NULL || c->at < want->at ||
                              (c->at == want->at && c->seq < want->seq)))
                want = c;
        }
        assert_ptr_equal(gar_alarm_heap_min(&heap), want);
        assert_int_equal(gar_alarm_heap_count(&heap), linked);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pops_earliest_first_and_ties_in_insertion_order),
        cmocka_unit_test(removes_from_the_middle_and_reinserts),
        cmocka_unit_test(pop_due_stops_at_now),
        cmocka_unit_test(random_operations_agree_with_a_linear_scan),
    };
    return cmocka_run_group_tests_name("alarm_heap", tests, NULL, NULL);
}
