/* tests/backends/test_word_wait_park.c — the word wait's instructions, run.
 *
 * Where the probe refuses (a CPU without the instructions, most VMs) the
 * program exits 77, skipped: nothing may run them there.  Elsewhere the
 * park is held to the gar_idle contract on the real clock: 1 exactly when
 * the line changed (by this thread before the park, or by a store from
 * another thread during it, on any word of the line), 0 only once the clock
 * reached the bound.  How soon it wakes is measured elsewhere, not here. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <gar/posix.h>
#include <gar/word_wait.h>

#define MS GAR_NS_PER_MS

static gar_word_wait probed; /* set by main before the tests run */

static gar_slot slot_or_fail(unsigned index)
{
    gar_slot slot;
    assert_int_equal(gar_slot_make(index, &slot, NULL), 0);
    return slot;
}

static void park_answers_0_only_at_its_bound(void **state)
{
    (void)state;
    gar_line line;
    gar_line_init(&line);
    gar_line_store(&line, slot_or_fail(2), 11);
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(&line, seen);
    /* Bounds below and above the OS's umwait cap (~30 µs at its default)
     * and the wfe park's spin threshold. */
    const gar_dur_ns ahead[] = { 0, 1, 10 * GAR_NS_PER_US, 150 * GAR_NS_PER_US, 2 * MS, 20 * MS };
    for (size_t i = 0; i < sizeof ahead / sizeof ahead[0]; i++) {
        gar_mono_ns bound = gar_after(gar_posix_now(), ahead[i]);
        assert_int_equal(gar_word_wait_park(&probed, &line, seen, bound, NULL), 0);
        assert_true(gar_posix_now() >= bound);
        assert_true(gar_line_unchanged(&line, seen));
    }
}

static void park_answers_1_at_once_when_the_line_already_differs(void **state)
{
    (void)state;
    gar_line line;
    gar_line_init(&line);
    uint64_t seen[GAR_LINE_WORDS];
    for (unsigned word = 0; word < GAR_LINE_WORDS; word++) {
        gar_line_snapshot(&line, seen);
        gar_line_store(&line, slot_or_fail(word), word + 1);
        /* A bound far off: a park that slept on a line that differs would
         * hang the test rather than pass it. */
        gar_mono_ns bound = gar_after(gar_posix_now(), 20 * GAR_NS_PER_S);
        assert_int_equal(gar_word_wait_park(&probed, &line, seen, bound, NULL), 1);
    }
}

typedef struct storer {
    gar_line *line;
    gar_slot slot;
    uint64_t value;
    pthread_barrier_t parking; /* both threads pass it as the parker parks */
} storer;

/* Stores once the parker is on its way into the park, not after a guessed
 * pause: the parker goes straight into its park from the barrier while
 * this thread is still waking, so the store lands inside the park; were
 * it first, the park would answer 1 at once, which is also right. */
static void *store_as_the_parker_parks(void *arg)
{
    storer *s = arg;
    pthread_barrier_wait(&s->parking);
    gar_line_store(s->line, s->slot, s->value);
    return NULL;
}

static void park_wakes_on_another_threads_store_to_any_word(void **state)
{
    (void)state;
    for (unsigned word = 0; word < GAR_LINE_WORDS; word += GAR_LINE_WORDS - 1) {
        gar_line line;
        gar_line_init(&line);
        uint64_t seen[GAR_LINE_WORDS];
        gar_line_snapshot(&line, seen);
        storer s = { .line = &line, .slot = slot_or_fail(word), .value = 42 };
        assert_int_equal(pthread_barrier_init(&s.parking, NULL, 2), 0);
        pthread_t thread;
        assert_int_equal(pthread_create(&thread, NULL, store_as_the_parker_parks, &s), 0);
        gar_mono_ns bound = gar_after(gar_posix_now(), 20 * GAR_NS_PER_S);
        pthread_barrier_wait(&s.parking);
        assert_int_equal(gar_word_wait_park(&probed, &line, seen, bound, NULL), 1);
        assert_int_equal(gar_line_load(&line, s.slot), 42);
        assert_int_equal(pthread_join(thread, NULL), 0);
        assert_int_equal(pthread_barrier_destroy(&s.parking), 0);
    }
}

static void the_posix_host_parks_with_it(void **state)
{
    (void)state;
    gar_posix_host host;
    const gar_posix_host_options options = { .park = GAR_POSIX_PARK_WORD_WAIT };
    assert_int_equal(gar_posix_host_init(&host, &options, NULL), 0);
    assert_string_equal(host.report.park, probed.name);
    assert_null(host.report.word_wait_why);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);
    assert_true(caps.word_wait);

    gar_idle idle = gar_posix_host_idle(&host);
    gar_line line;
    gar_line_init(&line);
    uint64_t seen[GAR_LINE_WORDS];
    gar_line_snapshot(&line, seen);
    gar_mono_ns bound = gar_after(gar_posix_now(), 2 * MS);
    assert_int_equal(idle.ops->park(idle.ctx, &line, seen, bound, NULL), 0);
    assert_true(gar_posix_now() >= bound);
}

int main(void)
{
    if (gar_word_wait_probe(&probed, NULL) != 1) {
        printf("skipped: no word wait here: %s\n", probed.why);
        return 77;
    }
    printf("word wait: %s, counter %llu Hz (%s)\n", probed.name,
           (unsigned long long)probed.tick_hz, probed.tick_hz_source);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(park_answers_0_only_at_its_bound),
        cmocka_unit_test(park_answers_1_at_once_when_the_line_already_differs),
        cmocka_unit_test(park_wakes_on_another_threads_store_to_any_word),
        cmocka_unit_test(the_posix_host_parks_with_it),
    };
    return cmocka_run_group_tests_name("word_wait_park", tests, NULL, NULL);
}
