/* tests/sim/test_sim_host.c — one simulated wait per plan, on a 1 ms residual
 * and a profile of constants, so every time and every account is exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/sim_host.h"
#include "sim_world.h"

#define DONE_NS GAR_NS_PER_MS /* the work completes 1 ms after the wait starts at 0 */

typedef struct world {
    gar_sim_device dev;
    gar_sim_host host;
    gar_sim_work work;
} world;

static void world_make(world *w, bool word_wait, gar_sim_fault fault, gar_dur_ns late_ns)
{
    gar_sim_device_options o = { .streams = 1, .store_delay_ns = 0, .late_store_ns = late_ns };
    assert_int_equal(gar_sim_device_init(&w->dev, &o, NULL), 0);
    gar_host_profile hp = exact_profile(word_wait);
    assert_int_equal(gar_sim_host_init(&w->host, &hp, 1, NULL), 0);
    assert_int_equal(gar_sim_device_enqueue(&w->dev, 0, 0, DONE_NS, fault, &w->work, NULL), 0);
}

static void world_free(world *w)
{
    gar_sim_device_free(&w->dev);
}

static int run(world *w, gar_park park, bool predict, gar_dur_ns sleep_ns,
               gar_mono_ns deadline, gar_sim_wait_result *r, gar_error *err)
{
    gar_plan plan = plan_of(park, predict);
    int rc = gar_sim_host_wait(&w->host, &w->dev, &w->work, &plan, sleep_ns > 0, sleep_ns, 0,
                               deadline, r, err);
    /* Every nanosecond of the wait is in exactly one account. */
    assert_int_equal(r->busy_ns + r->parked_ns + r->asleep_ns, r->end - r->start);
    assert_int_equal(r->report.wait_ns, r->end - r->start);
    return rc;
}

static void block_sleeps_until_the_blocking_wake(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    assert_int_equal(run(&w, GAR_PARK_BLOCK, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
    assert_int_equal(r.report.kind, GAR_WAIT_KIND_BLOCKED);
    assert_int_equal(r.end, DONE_NS + BLOCK_NS);
    assert_int_equal(r.busy_ns, Q_NS);
    assert_int_equal(r.asleep_ns, DONE_NS + BLOCK_NS - Q_NS);
    assert_int_equal(r.report.sample.kind, GAR_SAMPLE_NONE);
    world_free(&w);
}

static void poll_is_busy_the_whole_wait(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    assert_int_equal(run(&w, GAR_PARK_POLL, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
    /* The first query answers at 1 µs; each poll turn adds 2 µs: 1 + 2k >= 1000. */
    assert_int_equal(r.end, DONE_NS + Q_NS);
    assert_int_equal(r.busy_ns, r.end);
    assert_int_equal(r.report.polls, 500);
    assert_int_equal(r.report.queries, 1);
    assert_int_equal(r.report.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.report.sample.kind, GAR_SAMPLE_EXACT);
    assert_int_equal(r.report.sample.ns, DONE_NS + Q_NS);
    world_free(&w);
}

static void poll_predict_is_busy_only_for_the_margin_less_the_overshoot(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    /* Sleep 850 µs (p = 1 ms less the 150 µs margin). */
    assert_int_equal(run(&w, GAR_PARK_POLL, true, 850000, GAR_MONO_NEVER, &r, NULL), 0);
    /* query to 1 µs, sleep to 850 + 20 µs, wake query to 871 µs, polls of 2 µs. */
    assert_int_equal(r.asleep_ns, 850000 + OVER_NS - Q_NS);
    assert_int_equal(r.end, DONE_NS + Q_NS);
    assert_int_equal(r.busy_ns, 2 * Q_NS + (DONE_NS + Q_NS - 871000));
    assert_int_equal(r.report.sleeps, 1);
    assert_int_equal(r.report.polls, 65);
    assert_int_equal(r.report.kind, GAR_WAIT_KIND_PARKED);
    world_free(&w);
}

static void flag_parks_to_the_store_then_confirms(void **state)
{
    (void)state;
    for (int ww = 0; ww <= 1; ww++) {
        world w;
        gar_sim_wait_result r;
        world_make(&w, ww == 1, GAR_SIM_FAULT_NONE, 0);
        assert_int_equal(run(&w, GAR_PARK_FLAG, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
        /* query 1 µs, arm 2 µs, parks of 100 µs from 2 µs; the tenth wakes
         * 0.3 µs after the store at 1 ms; the confirming query ends it. */
        assert_int_equal(r.end, DONE_NS + PARK_NS + Q_NS);
        assert_int_equal(r.report.parks, 10);
        assert_int_equal(r.report.queries, 2);
        assert_int_equal(r.report.backstop_queries, 0);
        gar_dur_ns parked = DONE_NS + PARK_NS - 2 * Q_NS;
        assert_int_equal(ww ? r.parked_ns : r.busy_ns - 3 * Q_NS, parked);
        assert_int_equal(ww ? r.busy_ns : r.parked_ns + 3 * Q_NS, 3 * Q_NS);
        assert_int_equal(gar_line_load(w.work.word.line, w.work.word.slot), 1);
        world_free(&w);
    }
}

static void flag_predict_parks_only_after_the_sleep(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    assert_int_equal(run(&w, GAR_PARK_FLAG, true, 850000, GAR_MONO_NEVER, &r, NULL), 0);
    assert_int_equal(r.end, DONE_NS + PARK_NS + Q_NS);
    assert_int_equal(r.busy_ns, 4 * Q_NS);
    assert_int_equal(r.asleep_ns, 850000 + OVER_NS - 2 * Q_NS);
    assert_int_equal(r.parked_ns, DONE_NS + PARK_NS - (850000 + OVER_NS + Q_NS));
    assert_int_equal(r.report.parks, 2);
    world_free(&w);
}

/* Store visibility: a query sees the completion only when it starts at or
 * after it, and then takes max(query, v).  Poll turns run 1 + 2(k-1) .. 2k
 * µs, their queries 2k .. 2k + 1 µs: the 500th query starts at 1000 µs, the
 * completion, and answers done 1.5 µs later (1001 µs without it).  A wait
 * whose work finished before it pays v on its first query instead. */
static void a_poll_sees_the_completion_only_once_visible(void **state)
{
    (void)state;
    for (int exact = 0; exact <= 1; exact++) {
        world w;
        gar_sim_wait_result r;
        world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
        gar_host_profile hp = w.host.profile;
        hp.store_visible = constant_dist(1500);
        assert_int_equal(gar_sim_host_init(&w.host, &hp, 1, NULL), 0);
        w.host.exact_polls = exact == 1;
        assert_int_equal(run(&w, GAR_PARK_POLL, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
        assert_int_equal(r.end, 1001500);
        assert_int_equal(r.report.polls, 500);
        assert_int_equal(r.busy_ns, r.end);
        world_free(&w);
    }
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    gar_host_profile hp = w.host.profile;
    hp.store_visible = constant_dist(1500);
    assert_int_equal(gar_sim_host_init(&w.host, &hp, 1, NULL), 0);
    gar_plan plan = plan_of(GAR_PARK_POLL, false);
    /* Started at 2 ms, 1 ms after the completion: one query, 1.5 µs. */
    assert_int_equal(gar_sim_host_wait(&w.host, &w.dev, &w.work, &plan, false, 0, 2 * DONE_NS,
                                       GAR_MONO_NEVER, &r, NULL), 0);
    assert_int_equal(r.report.kind, GAR_WAIT_KIND_IMMEDIATE);
    assert_int_equal(r.end - r.start, 1500);
    world_free(&w);
}

/* The visibility by the device's idle (the completion less the wait's
 * start, 1 ms here): stated at 300 µs (500 ns) and 3 ms (2 500 ns), a 1 ms
 * idle lies 0.7/2.7 of the way, so v = 500 + 2000 * 7/27 = 1018 ns (the
 * fraction and the product rounded down): the poll that starts at the
 * completion answers 1.018 µs later, where the nearest lead (3 ms, in
 * ratio) gave 2.5 µs. */
static void a_visibility_between_leads_mixes_them(void **state)
{
    (void)state;
    for (int exact = 0; exact <= 1; exact++) {
        world w;
        gar_sim_wait_result r;
        world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
        gar_host_profile hp = w.host.profile;
        hp.store_visible = constant_dist(7000); /* stated, never drawn: leads are */
        hp.store_visible_at[1] = constant_dist(500);
        hp.store_visible_at[3] = constant_dist(2500);
        assert_int_equal(gar_sim_host_init(&w.host, &hp, 1, NULL), 0);
        w.host.exact_polls = exact == 1;
        assert_int_equal(run(&w, GAR_PARK_POLL, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
        assert_int_equal(r.end, DONE_NS + 1018);
        world_free(&w);
    }
}

/* A sleep's overshoot comes from the stated lead nearest its length: the
 * 849 µs sleep (1 µs to 850 µs) takes @1ms (40 µs), not the base (20 µs)
 * nor @300us (10 µs); then the query at 891 µs and polls of 2 µs to 1001 µs. */
static void a_sleep_overshoots_by_its_length(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    gar_host_profile hp = w.host.profile;
    hp.sleep_overshoot_at[1] = constant_dist(10000);
    hp.sleep_overshoot_at[2] = constant_dist(40000);
    /* The host lays out its lead picks at init: the profile is set before. */
    assert_int_equal(gar_sim_host_init(&w.host, &hp, 1, NULL), 0);
    assert_int_equal(run(&w, GAR_PARK_POLL, true, 850000, GAR_MONO_NEVER, &r, NULL), 0);
    assert_int_equal(r.asleep_ns, 850000 + 40000 - Q_NS);
    assert_int_equal(r.report.polls, 55);
    assert_int_equal(r.end, DONE_NS + Q_NS);
    world_free(&w);
}

/* A blocking wake by how long the thread blocked: 999 µs, below the
 * shortest stated lead, takes @1ms (15 µs); 7.999 ms lies 6.999/9 of the way
 * from @1ms to @10ms (90 µs): 15 + 75 * 6.999/9 = 73.325 µs, 73.324 as the
 * fraction and the product are rounded down,
 * where the nearest lead alone would step to 90 µs. */
static void a_block_wakes_by_how_long_it_blocked(void **state)
{
    (void)state;
    static const struct {
        gar_mono_ns done;
        gar_dur_ns wake;
    } cases[] = { { GAR_NS_PER_MS, 15000 }, { 8 * GAR_NS_PER_MS, 73324 } };
    for (size_t i = 0; i < 2; i++) {
        world w;
        gar_sim_wait_result r;
        gar_sim_device_options o = { .streams = 1 };
        assert_int_equal(gar_sim_device_init(&w.dev, &o, NULL), 0);
        gar_host_profile hp = exact_profile(true);
        hp.block_wake_at[2] = constant_dist(15000);
        hp.block_wake_at[4] = constant_dist(90000);
        assert_int_equal(gar_sim_host_init(&w.host, &hp, 1, NULL), 0);
        assert_int_equal(gar_sim_device_enqueue(&w.dev, 0, 0, cases[i].done, GAR_SIM_FAULT_NONE,
                                                &w.work, NULL), 0);
        assert_int_equal(run(&w, GAR_PARK_BLOCK, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
        assert_int_equal(r.end, cases[i].done + cases[i].wake);
        assert_int_equal(r.asleep_ns, cases[i].done + cases[i].wake - Q_NS);
        world_free(&w);
    }
}

static void a_late_wake_is_kind_late(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    assert_int_equal(run(&w, GAR_PARK_FLAG, true, 990000, GAR_MONO_NEVER, &r, NULL), 0);
    assert_int_equal(r.report.kind, GAR_WAIT_KIND_LATE);
    assert_int_equal(r.end, 990000 + OVER_NS + Q_NS);
    assert_int_equal(r.report.sample.kind, GAR_SAMPLE_LATE);
    world_free(&w);
}

static void a_hung_device_ends_at_the_deadline(void **state)
{
    (void)state;
    const gar_mono_ns deadline = 5 * GAR_NS_PER_MS;
    for (gar_park park = GAR_PARK_BLOCK; park <= GAR_PARK_FLAG; park++) {
        world w;
        gar_sim_wait_result r;
        gar_error err;
        world_make(&w, true, GAR_SIM_FAULT_HANG, 0);
        assert_int_equal(run(&w, park, false, 0, deadline, &r, &err), -GAR_E_WAIT_DEADLINE);
        assert_int_equal(err.code, GAR_E_WAIT_DEADLINE);
        assert_in_range(r.end, deadline, deadline + POLL_NS + Q_NS);
        assert_int_equal(r.report.kind, GAR_WAIT_KIND_NONE);
        world_free(&w);
    }
}

/* A hung item's wait ends at its deadline however far it is: the clock
 * jumps there (a loop a turn or a park at a time would take hours, or never
 * end), and a deadline at the clock's last instant does not wrap. */
static void a_hung_device_ends_at_any_deadline_at_once(void **state)
{
    (void)state;
    const gar_mono_ns deadlines[] = { UINT64_C(1000000000000000000), GAR_MONO_NEVER - 1 };
    for (size_t d = 0; d < sizeof deadlines / sizeof deadlines[0]; d++)
        for (gar_park park = GAR_PARK_BLOCK; park <= GAR_PARK_FLAG; park++)
            for (int word_wait = 0; word_wait <= 1; word_wait++)
                for (int exact = 0; exact <= 1; exact++) {
                    world w;
                    gar_sim_wait_result r;
                    gar_error err;
                    world_make(&w, word_wait, GAR_SIM_FAULT_HANG, 0);
                    w.host.exact_polls = exact;
                    assert_int_equal(run(&w, park, false, 0, deadlines[d], &r, &err),
                                     -GAR_E_WAIT_DEADLINE);
                    assert_int_equal(err.code, GAR_E_WAIT_DEADLINE);
                    assert_true(r.end >= deadlines[d]);
                    assert_true(r.end - deadlines[d] <= POLL_NS + Q_NS);
                    assert_true(r.report.parks <= 2);
                    assert_true(r.report.queries <= 3);
                    world_free(&w);
                }
}

static void a_hung_device_without_a_deadline_is_refused(void **state)
{
    (void)state;
    for (gar_park park = GAR_PARK_BLOCK; park <= GAR_PARK_FLAG; park++) {
        world w;
        gar_sim_wait_result r = { .end = 7 };
        gar_error err;
        world_make(&w, true, GAR_SIM_FAULT_HANG, 0);
        gar_plan plan = plan_of(park, false);
        assert_int_equal(gar_sim_host_wait(&w.host, &w.dev, &w.work, &plan, false, 0, 0,
                                           GAR_MONO_NEVER, &r, &err),
                         -GAR_E_INVALID_ARGUMENT);
        assert_int_equal(r.end, 7); /* untouched */
        world_free(&w);
    }
}

static void a_lost_store_is_caught_by_the_backstop(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_LOST_STORE, 0);
    assert_int_equal(run(&w, GAR_PARK_FLAG, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
    /* Due 1 ms after the first query's answer (1 µs): the backstop query ends it. */
    assert_int_equal(r.end, Q_NS + GAR_NS_PER_MS + Q_NS);
    assert_int_equal(r.report.backstop_queries, 1);
    assert_int_equal(r.report.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(gar_line_load(w.work.word.line, w.work.word.slot), 0); /* the word never moved */
    world_free(&w);
}

static void a_late_store_wakes_the_park_late_or_the_backstop_first(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_LATE_STORE, 500);
    assert_int_equal(run(&w, GAR_PARK_FLAG, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
    assert_int_equal(r.end, DONE_NS + 500 + PARK_NS + Q_NS);
    assert_int_equal(r.report.backstop_queries, 0);

    world_free(&w);
    world_make(&w, true, GAR_SIM_FAULT_LATE_STORE, 5 * GAR_NS_PER_MS);
    assert_int_equal(run(&w, GAR_PARK_FLAG, false, 0, GAR_MONO_NEVER, &r, NULL), 0);
    assert_int_equal(r.end, Q_NS + GAR_NS_PER_MS + Q_NS);
    assert_int_equal(r.report.backstop_queries, 1);
    world_free(&w);
}

static void a_device_error_ends_the_wait_with_code_17(void **state)
{
    (void)state;
    static const gar_mono_ns ends[] = {
        [GAR_PARK_BLOCK] = DONE_NS + BLOCK_NS,
        [GAR_PARK_POLL] = DONE_NS + Q_NS,
        [GAR_PARK_FLAG] = Q_NS + GAR_NS_PER_MS + Q_NS, /* no store: the backstop finds it */
    };
    for (gar_park park = GAR_PARK_BLOCK; park <= GAR_PARK_FLAG; park++) {
        world w;
        gar_sim_wait_result r;
        gar_error err;
        world_make(&w, true, GAR_SIM_FAULT_ERROR, 0);
        assert_int_equal(run(&w, park, false, 0, GAR_MONO_NEVER, &r, &err), -GAR_E_DEVICE_FAULT);
        assert_int_equal(err.code, GAR_E_DEVICE_FAULT);
        assert_string_equal(err.argv[0], "stream 0 work item 0 failed");
        assert_int_equal(r.end, ends[park]);
        world_free(&w);
    }
}

static void work_done_before_the_wait_is_immediate(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    gar_plan plan = plan_of(GAR_PARK_FLAG, false);
    assert_int_equal(gar_sim_host_wait(&w.host, &w.dev, &w.work, &plan, false, 0, 2 * DONE_NS,
                                       GAR_MONO_NEVER, &r, NULL), 0);
    assert_int_equal(r.report.kind, GAR_WAIT_KIND_IMMEDIATE);
    assert_int_equal(r.end, 2 * DONE_NS + Q_NS);
    assert_false(w.work.armed);
    world_free(&w);
}

static void a_refused_plan_leaves_the_result_untouched(void **state)
{
    (void)state;
    world w;
    gar_sim_wait_result r;
    memset(&r, 0x5a, sizeof r);
    gar_sim_wait_result before = r;
    world_make(&w, true, GAR_SIM_FAULT_NONE, 0);
    gar_plan plan = plan_of(GAR_PARK_BLOCK, true); /* block+predict */
    assert_int_equal(gar_sim_host_wait(&w.host, &w.dev, &w.work, &plan, false, 0, 0,
                                       GAR_MONO_NEVER, &r, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_memory_equal(&r, &before, sizeof r);
    world_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_sleeps_until_the_blocking_wake),
        cmocka_unit_test(poll_is_busy_the_whole_wait),
        cmocka_unit_test(poll_predict_is_busy_only_for_the_margin_less_the_overshoot),
        cmocka_unit_test(flag_parks_to_the_store_then_confirms),
        cmocka_unit_test(flag_predict_parks_only_after_the_sleep),
        cmocka_unit_test(a_poll_sees_the_completion_only_once_visible),
        cmocka_unit_test(a_sleep_overshoots_by_its_length),
        cmocka_unit_test(a_block_wakes_by_how_long_it_blocked),
        cmocka_unit_test(a_visibility_between_leads_mixes_them),
        cmocka_unit_test(a_late_wake_is_kind_late),
        cmocka_unit_test(a_hung_device_ends_at_the_deadline),
        cmocka_unit_test(a_hung_device_ends_at_any_deadline_at_once),
        cmocka_unit_test(a_hung_device_without_a_deadline_is_refused),
        cmocka_unit_test(a_lost_store_is_caught_by_the_backstop),
        cmocka_unit_test(a_late_store_wakes_the_park_late_or_the_backstop_first),
        cmocka_unit_test(a_device_error_ends_the_wait_with_code_17),
        cmocka_unit_test(work_done_before_the_wait_is_immediate),
        cmocka_unit_test(a_refused_plan_leaves_the_result_untouched),
    };
    return cmocka_run_group_tests_name("sim_host", tests, NULL, NULL);
}
