/* tests/core/test_wait.c — the wait machine, action by action, on a scripted
 * world (tests/core/wait_world.h): every measured arm (README, "Wait plans") against work
 * already done, done during the sleep, done during the park stage and never
 * done; backstop spacing and park bounds; lost and early stores; an error at
 * every action; argument and feed refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/wait.h>

#include "wait_world.h"

#define SLEEP_NS (750 * GAR_NS_PER_US) /* adl's sleep after exact 1.0, 0.9, 1.1 ms */
#define NEVER GAR_MONO_NEVER
#define STEPS_MAX 100000 /* a machine that loops fails the test rather than hang it */

/* Expected log entries, times as offsets from START. */
#define QUERY(at, result, answered) { GAR_WAIT_OP_QUERY, AT(at), 0, result, AT(answered) }
#define POLL(at, result, answered) { GAR_WAIT_OP_POLL, AT(at), 0, result, AT(answered) }
#define ARM(at, answered) { GAR_WAIT_OP_ARM, AT(at), 0, 0, AT(answered) }
#define SLEEP(at, until, answered) { GAR_WAIT_OP_SLEEP_UNTIL, AT(at), AT(until), 0, AT(answered) }
#define PARK(at, until, result, answered) { GAR_WAIT_OP_PARK, AT(at), AT(until), result, AT(answered) }
#define BLOCK(at, result, answered) { GAR_WAIT_OP_BLOCK, AT(at), 0, result, AT(answered) }
#define N(log) (sizeof log / sizeof log[0])

/* The test's own driver: performs the action on the world. */
static int perform(world *w, gar_wait_action a, gar_error *err)
{
    switch (a.op) {
    case GAR_WAIT_OP_QUERY:
        return world_query(w, err);
    case GAR_WAIT_OP_ARM:
        return world_arm(w, err);
    case GAR_WAIT_OP_SLEEP_UNTIL:
        return world_sleep(w, a.until, err);
    case GAR_WAIT_OP_PARK:
        return world_park(w, a.until, err);
    case GAR_WAIT_OP_POLL:
        return world_poll(w, err);
    case GAR_WAIT_OP_BLOCK:
        return world_block(w, err);
    case GAR_WAIT_OP_DONE:
    case GAR_WAIT_OP_FAILED:
        break;
    }
    fail_msg("performed an ending");
    return 0;
}

/* Runs `m` to its end; returns the ending. */
static gar_wait_action drive(gar_wait *m, world *w, gar_error *err)
{
    for (unsigned steps = 0; steps < STEPS_MAX; steps++) {
        gar_wait_action a = gar_wait_next(m);
        if (a.op == GAR_WAIT_OP_DONE || a.op == GAR_WAIT_OP_FAILED)
            return a;
        int rc = perform(w, a, err);
        assert_int_equal(gar_wait_feed(m, rc, w->now, err), 0);
    }
    fail_msg("the wait did not end within %d actions", STEPS_MAX);
    return (gar_wait_action){ 0 };
}

/* One wait under `plan` from START; the report goes to `r`. */
static gar_wait_action run(world *w, gar_plan plan, bool has_sleep, gar_mono_ns deadline,
                           gar_wait_report *r, gar_error *err)
{
    gar_wait m;
    assert_int_equal(gar_wait_init(&m, &plan, has_sleep, SLEEP_NS, START, deadline, err), 0);
    gar_wait_action end = drive(&m, w, err);
    *r = gar_wait_report_of(&m);
    /* Nothing after the end: the ending stays, a feed is refused. */
    assert_int_equal(gar_wait_feed(&m, 1, w->now, NULL), -GAR_E_INVALID_ARGUMENT);
    gar_wait_action again = gar_wait_next(&m);
    assert_int_equal(again.op, end.op);
    assert_int_equal(again.code, end.code);
    gar_wait_report after = gar_wait_report_of(&m);
    assert_memory_equal(&after, r, sizeof after);
    return end;
}

static void expect_log(const world *w, const world_entry *want, size_t n)
{
    assert_true(w->n <= WORLD_LOG_MAX);
    for (size_t i = 0; i < n && i < w->n; i++) {
        const world_entry *got = &w->log[i];
        if (got->op != want[i].op || got->at != want[i].at || got->until != want[i].until
            || got->result != want[i].result || got->answered != want[i].answered)
            fail_msg("action %zu: got %s at +%llu until +%llu -> %d at +%llu; "
                     "want %s at +%llu until +%llu -> %d at +%llu",
                     i, gar_wait_op_name(got->op), (unsigned long long)(got->at - START),
                     (unsigned long long)(got->until ? got->until - START : 0), got->result,
                     (unsigned long long)(got->answered - START), gar_wait_op_name(want[i].op),
                     (unsigned long long)(want[i].at - START),
                     (unsigned long long)(want[i].until ? want[i].until - START : 0),
                     want[i].result, (unsigned long long)(want[i].answered - START));
    }
    assert_int_equal(w->n, n);
}

typedef struct counts {
    gar_wait_kind kind;
    gar_sample_kind sample;
    gar_dur_ns sample_ns;
    gar_dur_ns wait_ns;
    gar_dur_ns slept_ns;
    uint64_t sleeps, parks, queries, backstop_queries, polls;
} counts;

static void expect_report(const gar_wait_report *r, counts want)
{
    assert_string_equal(gar_wait_kind_name(r->kind), gar_wait_kind_name(want.kind));
    assert_int_equal(r->sample.kind, want.sample);
    assert_int_equal(r->sample.ns, want.sample_ns);
    assert_int_equal(r->wait_ns, want.wait_ns);
    assert_int_equal(r->slept_ns, want.slept_ns);
    assert_int_equal(r->sleeps, want.sleeps);
    assert_int_equal(r->parks, want.parks);
    assert_int_equal(r->queries, want.queries);
    assert_int_equal(r->backstop_queries, want.backstop_queries);
    assert_int_equal(r->polls, want.polls);
}

static void expect_done(gar_wait_action end)
{
    assert_int_equal(end.op, GAR_WAIT_OP_DONE);
    assert_int_equal(end.code, 0);
}

static void expect_deadline(gar_wait_action end, const gar_error *err)
{
    assert_int_equal(end.op, GAR_WAIT_OP_FAILED);
    assert_int_equal(end.code, -GAR_E_WAIT_DEADLINE);
    assert_int_equal(err->code, GAR_E_WAIT_DEADLINE);
}

/* ---- block ------------------------------------------------------------ */

static void block_already_done_blocks_and_nothing_else(void **state)
{
    (void)state;
    world w;
    world_init(&w, 0);
    gar_wait_report r;
    expect_done(run(&w, plan_block(), true, NEVER, &r, NULL));
    static const world_entry log[] = { BLOCK(0, 0, 7000) };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_BLOCKED, .wait_ns = 7000 });
}

static void block_done_later_is_blocked_without_a_sample(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(2000000));
    gar_wait_report r;
    expect_done(run(&w, plan_block(), false, NEVER, &r, NULL));
    static const world_entry log[] = { BLOCK(0, 0, 2007000) };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_BLOCKED, .wait_ns = 2007000 });
}

/* The machine cannot bound a block; a driver that can (the simulator) feeds
 * the deadline itself, and the wait ends with it unchanged. */
static void block_never_done_ends_with_the_drivers_deadline(void **state)
{
    (void)state;
    world w;
    world_init(&w, NEVER);
    w.block_gives_up_at = AT(3000000);
    gar_wait_report r;
    gar_error err;
    expect_deadline(run(&w, plan_block(), false, AT(3000000), &r, &err), &err);
    static const world_entry log[] = { BLOCK(0, -GAR_E_WAIT_DEADLINE, 3000000) };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_NONE, .wait_ns = 3000000 });
}

/* ---- poll ------------------------------------------------------------- */

static void poll_already_done_is_immediate_at_the_querys_answer(void **state)
{
    (void)state;
    world w;
    world_init(&w, 0);
    gar_wait_report r;
    expect_done(run(&w, plan_poll(false), true, NEVER, &r, NULL));
    static const world_entry log[] = { QUERY(0, 1, 500) };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_IMMEDIATE, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 500, .wait_ns = 500, .queries = 1 });
}

static void poll_done_later_polls_until_a_poll_says_done(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(1500));
    gar_wait_report r;
    expect_done(run(&w, plan_poll(false), true, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),    POLL(500, 0, 700),   POLL(700, 0, 900),
        POLL(900, 0, 1100),  POLL(1100, 0, 1300), POLL(1300, 1, 1500),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_PARKED, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 1500, .wait_ns = 1500, .queries = 1, .polls = 5 });
}

/* Without predict the point's sleep is ignored: work done 600 µs in is
 * found by polls, never a sleep. */
static void poll_without_predict_never_sleeps(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(600000));
    gar_wait_report r;
    expect_done(run(&w, plan_poll(false), true, NEVER, &r, NULL));
    assert_int_equal(w.calls[GAR_WAIT_OP_SLEEP_UNTIL], 0);
    /* 500 + 200k >= 600000 first for k = 2998. */
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_PARKED, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 600100, .wait_ns = 600100, .queries = 1,
                                .polls = 2998 });
}

static void poll_never_done_fails_at_the_deadline(void **state)
{
    (void)state;
    world w;
    world_init(&w, NEVER);
    w.poll_cost = 1000000;
    gar_wait_report r;
    gar_error err;
    expect_deadline(run(&w, plan_poll(false), false, AT(3000000), &r, &err), &err);
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        POLL(500, 0, 1000500),
        POLL(1000500, 0, 2000500),
        POLL(2000500, 0, 3000500),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_NONE, .wait_ns = 3000500, .queries = 1,
                                .polls = 3 });
    char text[128];
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "work still pending at its deadline of 4000000 ns");
}

/* ---- poll+predict ----------------------------------------------------- */

static void poll_predict_already_done_does_not_sleep(void **state)
{
    (void)state;
    world w;
    world_init(&w, 0);
    gar_wait_report r;
    expect_done(run(&w, plan_poll(true), true, NEVER, &r, NULL));
    static const world_entry log[] = { QUERY(0, 1, 500) };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_IMMEDIATE, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 500, .wait_ns = 500, .queries = 1 });
}

static void poll_predict_done_during_the_sleep_is_late(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(600000));
    gar_wait_report r;
    expect_done(run(&w, plan_poll(true), true, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        SLEEP(500, 750000, 755000),
        QUERY(755000, 1, 755500),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_LATE, .sample = GAR_SAMPLE_LATE,
                                .sample_ns = 755500, .wait_ns = 755500, .slept_ns = 754500,
                                .sleeps = 1, .queries = 2 });
}

static void poll_predict_done_after_the_sleep_is_parked(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(756000));
    gar_wait_report r;
    expect_done(run(&w, plan_poll(true), true, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        SLEEP(500, 750000, 755000),
        QUERY(755000, 0, 755500),
        POLL(755500, 0, 755700),
        POLL(755700, 0, 755900),
        POLL(755900, 1, 756100),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_PARKED, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 756100, .wait_ns = 756100, .slept_ns = 754500,
                                .sleeps = 1, .queries = 2, .polls = 3 });
}

static void poll_predict_never_done_fails_at_the_deadline(void **state)
{
    (void)state;
    world w;
    world_init(&w, NEVER);
    w.poll_cost = 1000000;
    gar_wait_report r;
    gar_error err;
    expect_deadline(run(&w, plan_poll(true), true, AT(3000000), &r, &err), &err);
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        SLEEP(500, 750000, 755000),
        QUERY(755000, 0, 755500),
        POLL(755500, 0, 1755500),
        POLL(1755500, 0, 2755500),
        POLL(2755500, 0, 3755500),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_NONE, .wait_ns = 3755500,
                                .slept_ns = 754500, .sleeps = 1, .queries = 2, .polls = 3 });
}

/* A cold point (no sleep) under a predict plan: straight to the polls. */
static void poll_predict_at_a_cold_point_never_sleeps(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(1000));
    gar_wait_report r;
    expect_done(run(&w, plan_poll(true), false, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500), POLL(500, 0, 700), POLL(700, 0, 900), POLL(900, 1, 1100),
    };
    expect_log(&w, log, N(log));
    assert_int_equal(r.sleeps, 0);
}

/* Idle may wake early: the sleep is issued again, to the same time. */
static void a_sleep_that_wakes_early_sleeps_again_to_the_same_time(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(600000));
    w.early_sleeps = 1;
    gar_wait_report r;
    expect_done(run(&w, plan_poll(true), true, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        SLEEP(500, 750000, 375250),
        SLEEP(375250, 750000, 755000),
        QUERY(755000, 1, 755500),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_LATE, .sample = GAR_SAMPLE_LATE,
                                .sample_ns = 755500, .wait_ns = 755500, .slept_ns = 754500,
                                .sleeps = 2, .queries = 2 });
}

/* A first query slower than the sleep leaves nothing to sleep: no sleep, no
 * wake query, straight to the park stage, and the sample stays Exact. */
static void a_wake_time_already_past_skips_the_sleep(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(800100));
    w.query_cost = 800000;
    gar_wait_report r;
    expect_done(run(&w, plan_poll(true), true, NEVER, &r, NULL));
    static const world_entry log[] = { QUERY(0, 0, 800000), POLL(800000, 1, 800200) };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_PARKED, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 800200, .wait_ns = 800200, .queries = 1,
                                .polls = 1 });
}

/* ---- flag ------------------------------------------------------------- */

static void flag_already_done_is_immediate_without_arming(void **state)
{
    (void)state;
    world w;
    world_init(&w, 0);
    gar_wait_report r;
    expect_done(run(&w, plan_flag(false), true, NEVER, &r, NULL));
    static const world_entry log[] = { QUERY(0, 1, 500) };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_IMMEDIATE, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 500, .wait_ns = 500, .queries = 1 });
}

/* Parks of 100 µs until the word's hint, then a query confirms. */
static void flag_done_during_the_parks_is_confirmed_by_a_query(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(250000));
    gar_wait_report r;
    expect_done(run(&w, plan_flag(false), true, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        PARK(800, 100800, 0, 100800),
        PARK(100800, 200800, 0, 200800),
        PARK(200800, 300800, 1, 250400),
        QUERY(250400, 1, 250900),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_PARKED, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 250900, .wait_ns = 250900, .parks = 3,
                                .queries = 2 });
}

/* Never done: parks up to the backstop (the tenth trimmed to land on it), a
 * backstop query, parks up to the deadline (the last trimmed to it), and the
 * query there fails the wait. */
static void flag_never_done_fails_at_the_deadline(void **state)
{
    (void)state;
    world w;
    world_init(&w, NEVER);
    gar_wait_report r;
    gar_error err;
    expect_deadline(run(&w, plan_flag(false), true, AT(1500000), &r, &err), &err);
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        PARK(800, 100800, 0, 100800),
        PARK(100800, 200800, 0, 200800),
        PARK(200800, 300800, 0, 300800),
        PARK(300800, 400800, 0, 400800),
        PARK(400800, 500800, 0, 500800),
        PARK(500800, 600800, 0, 600800),
        PARK(600800, 700800, 0, 700800),
        PARK(700800, 800800, 0, 800800),
        PARK(800800, 900800, 0, 900800),
        PARK(900800, 1000500, 0, 1000500), /* trimmed to the backstop */
        QUERY(1000500, 0, 1001000),        /* backstop query */
        PARK(1001000, 1101000, 0, 1101000),
        PARK(1101000, 1201000, 0, 1201000),
        PARK(1201000, 1301000, 0, 1301000),
        PARK(1301000, 1401000, 0, 1401000),
        PARK(1401000, 1500000, 0, 1500000), /* trimmed to the deadline */
        QUERY(1500000, 0, 1500500),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_NONE, .wait_ns = 1500500, .parks = 15,
                                .queries = 3, .backstop_queries = 2 });
}

/* ---- flag+predict ----------------------------------------------------- */

static void flag_predict_already_done_is_immediate(void **state)
{
    (void)state;
    world w;
    world_init(&w, 0);
    gar_wait_report r;
    expect_done(run(&w, plan_flag(true), true, NEVER, &r, NULL));
    static const world_entry log[] = { QUERY(0, 1, 500) };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_IMMEDIATE, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 500, .wait_ns = 500, .queries = 1 });
}

static void flag_predict_arms_then_sleeps_and_wakes_late(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(600000));
    gar_wait_report r;
    expect_done(run(&w, plan_flag(true), true, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        SLEEP(800, 750000, 755000),
        QUERY(755000, 1, 755500),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_LATE, .sample = GAR_SAMPLE_LATE,
                                .sample_ns = 755500, .wait_ns = 755500, .slept_ns = 754200,
                                .sleeps = 1, .queries = 2 });
}

static void flag_predict_done_after_the_sleep_is_parked(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(900000));
    gar_wait_report r;
    expect_done(run(&w, plan_flag(true), true, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        SLEEP(800, 750000, 755000),
        QUERY(755000, 0, 755500),
        PARK(755500, 855500, 0, 855500),
        PARK(855500, 955500, 1, 900400),
        QUERY(900400, 1, 900900),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_PARKED, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 900900, .wait_ns = 900900, .slept_ns = 754200,
                                .sleeps = 1, .parks = 2, .queries = 3 });
}

/* The wake query restarts the backstop; the deadline comes first and trims
 * the eighth park. */
static void flag_predict_never_done_fails_at_the_deadline(void **state)
{
    (void)state;
    world w;
    world_init(&w, NEVER);
    gar_wait_report r;
    gar_error err;
    expect_deadline(run(&w, plan_flag(true), true, AT(1500000), &r, &err), &err);
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        SLEEP(800, 750000, 755000),
        QUERY(755000, 0, 755500),
        PARK(755500, 855500, 0, 855500),
        PARK(855500, 955500, 0, 955500),
        PARK(955500, 1055500, 0, 1055500),
        PARK(1055500, 1155500, 0, 1155500),
        PARK(1155500, 1255500, 0, 1255500),
        PARK(1255500, 1355500, 0, 1355500),
        PARK(1355500, 1455500, 0, 1455500),
        PARK(1455500, 1500000, 0, 1500000),
        QUERY(1500000, 0, 1500500),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_NONE, .wait_ns = 1500500,
                                .slept_ns = 754200, .sleeps = 1, .parks = 8, .queries = 3,
                                .backstop_queries = 1 });
}

static void flag_predict_at_a_cold_point_parks_without_sleeping(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(150000));
    gar_wait_report r;
    expect_done(run(&w, plan_flag(true), false, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        PARK(800, 100800, 0, 100800),
        PARK(100800, 200800, 1, 150400),
        QUERY(150400, 1, 150900),
    };
    expect_log(&w, log, N(log));
    assert_int_equal(r.sleeps, 0);
}

/* A sleep never runs past the deadline: it is trimmed to it, and the wake
 * query there fails the wait. */
static void the_sleep_is_trimmed_to_the_deadline(void **state)
{
    (void)state;
    world w;
    world_init(&w, NEVER);
    gar_wait_report r;
    gar_error err;
    expect_deadline(run(&w, plan_flag(true), true, AT(400000), &r, &err), &err);
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        SLEEP(800, 400000, 405000),
        QUERY(405000, 0, 405500),
    };
    expect_log(&w, log, N(log));
}

/* ---- the word is a hint, the query the authority ----------------------- */

/* Status done, word never moves: the backstop query catches it. */
static void a_lost_store_ends_at_the_next_backstop_query(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(250000));
    w.word_at = NEVER;
    gar_wait_report r;
    expect_done(run(&w, plan_flag(false), false, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        PARK(800, 100800, 0, 100800),
        PARK(100800, 200800, 0, 200800),
        PARK(200800, 300800, 0, 300800),
        PARK(300800, 400800, 0, 400800),
        PARK(400800, 500800, 0, 500800),
        PARK(500800, 600800, 0, 600800),
        PARK(600800, 700800, 0, 700800),
        PARK(700800, 800800, 0, 800800),
        PARK(800800, 900800, 0, 900800),
        PARK(900800, 1000500, 0, 1000500),
        QUERY(1000500, 1, 1001000),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_PARKED, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 1001000, .wait_ns = 1001000, .parks = 10,
                                .queries = 2, .backstop_queries = 1 });
}

/* The word reaches 2 µs before status says done: each hint is confirmed by
 * a query, pending each time, so the wait goes on until status agrees. */
static void a_word_ahead_of_status_does_not_end_the_wait(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(152000));
    w.word_at = AT(150000);
    gar_wait_report r;
    expect_done(run(&w, plan_flag(false), false, NEVER, &r, NULL));
    static const world_entry log[] = {
        QUERY(0, 0, 500),
        ARM(500, 800),
        PARK(800, 100800, 0, 100800),
        PARK(100800, 200800, 1, 150400),
        QUERY(150400, 0, 150900),
        PARK(150900, 250900, 1, 150900),
        QUERY(150900, 0, 151400),
        PARK(151400, 251400, 1, 151400),
        QUERY(151400, 0, 151900),
        PARK(151900, 251900, 1, 151900),
        QUERY(151900, 1, 152400),
    };
    expect_log(&w, log, N(log));
    expect_report(&r, (counts){ .kind = GAR_WAIT_KIND_PARKED, .sample = GAR_SAMPLE_EXACT,
                                .sample_ns = 152400, .wait_ns = 152400, .parks = 5,
                                .queries = 5 });
}

/* Walks a flag wait's log and checks, action by action: no park longer than
 * park_ns, no park past the backstop instant, no query later than a
 * backstop after the last (the sleep aside), and a park that ends because of
 * its bound right before a backstop query ends exactly on the instant. */
static void check_flag_bounds(const world *w, const gar_plan *plan, gar_mono_ns deadline)
{
    assert_true(w->n <= WORLD_LOG_MAX);
    gar_mono_ns last_query = 0;
    bool seen_query = false;
    for (size_t i = 0; i < w->n; i++) {
        const world_entry *e = &w->log[i];
        gar_mono_ns due = gar_after(last_query, plan->backstop_ns);
        due = due < deadline ? due : deadline;
        if (e->op == GAR_WAIT_OP_PARK) {
            assert_true(seen_query);
            assert_true(e->until > e->at);
            assert_true(e->until - e->at <= plan->park_ns);
            assert_true(e->until <= due);
        }
        if (e->op == GAR_WAIT_OP_QUERY) {
            bool after_sleep = i > 0 && w->log[i - 1].op == GAR_WAIT_OP_SLEEP_UNTIL;
            if (seen_query && !after_sleep)
                assert_true(e->at <= due);
            const world_entry *prev = i > 0 ? &w->log[i - 1] : NULL;
            if (prev != NULL && prev->op == GAR_WAIT_OP_PARK && prev->result == 0)
                assert_int_equal(prev->until, due);
            last_query = e->answered;
            seen_query = true;
        }
    }
}

/* A long wait under bounds that do not divide each other: every park and
 * every backstop gap holds, and the count of each is what the bounds give. */
static void parks_and_backstops_hold_their_bounds_action_by_action(void **state)
{
    (void)state;
    static const struct {
        gar_dur_ns park_ns, backstop_ns;
        uint64_t parks, backstops;
    } cases[] = {
        /* 10 ms of a lost store; the first query answers at +500. */
        { 100000, 1000000, 100, 10 },
        { 300000, 1000000, 40, 10 },  /* 300,300,300,100 per backstop */
        { 70000, 250000, 160, 40 },   /* 70,70,70,40 */
        { 100000, 100000, 100, 100 }, /* park bound = backstop */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        world w;
        world_init(&w, AT(10000000));
        w.word_at = NEVER;
        w.arm_cost = 0;
        w.query_cost = 0;
        w.now = START;
        gar_plan plan = plan_flag(false);
        plan.park_ns = cases[c].park_ns;
        plan.backstop_ns = cases[c].backstop_ns;
        gar_wait_report r;
        expect_done(run(&w, plan, false, NEVER, &r, NULL));
        check_flag_bounds(&w, &plan, NEVER);
        assert_int_equal(r.parks, cases[c].parks);
        assert_int_equal(r.backstop_queries, cases[c].backstops);
        assert_int_equal(r.wait_ns, 10000000);
    }
}

/* The same checks over the logs of the other flag waits above, with costs,
 * hints, a sleep and a deadline mixed in. */
static void every_flag_wait_holds_its_bounds(void **state)
{
    (void)state;
    static const struct {
        bool predict, has_sleep;
        gar_mono_ns done_at, word_at, deadline;
    } cases[] = {
        { false, false, AT(250000), AT(250000), NEVER },
        { false, false, NEVER, NEVER, AT(1500000) },
        { true, true, NEVER, NEVER, AT(1500000) },
        { true, true, AT(900000), AT(900000), NEVER },
        { false, false, AT(3333333), NEVER, NEVER },
        { true, true, AT(3333333), AT(3300000), NEVER },
        { true, true, NEVER, NEVER, AT(4444444) },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        world w;
        world_init(&w, cases[c].done_at);
        w.word_at = cases[c].word_at;
        gar_plan plan = plan_flag(cases[c].predict);
        gar_wait_report r;
        run(&w, plan, cases[c].has_sleep, cases[c].deadline, &r, NULL);
        check_flag_bounds(&w, &plan, cases[c].deadline);
    }
}

/* ---- errors at every action -------------------------------------------- */

static void an_error_at_any_action_ends_the_wait_with_it(void **state)
{
    (void)state;
    static const struct {
        const char *what;
        gar_plan (*plan)(bool);
        bool predict;
        gar_mono_ns done_at, word_at;
        gar_wait_op op;
        unsigned nth;
        int code;
        size_t actions; /* performed, the failing one included */
    } cases[] = {
        { "first query", plan_poll, false, AT(1500), AT(1500), GAR_WAIT_OP_QUERY, 1,
          -GAR_E_BACKEND, 1 },
        { "first poll", plan_poll, false, AT(1500), AT(1500), GAR_WAIT_OP_POLL, 1,
          -GAR_E_DEVICE_FAULT, 2 },
        { "third poll", plan_poll, false, AT(1500), AT(1500), GAR_WAIT_OP_POLL, 3,
          -GAR_E_BACKEND, 4 },
        { "sleep", plan_poll, true, AT(600000), AT(600000), GAR_WAIT_OP_SLEEP_UNTIL, 1,
          -GAR_E_IO, 2 },
        { "wake query", plan_poll, true, AT(600000), AT(600000), GAR_WAIT_OP_QUERY, 2,
          -GAR_E_DEVICE_FAULT, 3 },
        { "arm", plan_flag, false, AT(250000), AT(250000), GAR_WAIT_OP_ARM, 1,
          -GAR_E_BACKEND, 2 },
        { "first park", plan_flag, false, AT(250000), AT(250000), GAR_WAIT_OP_PARK, 1,
          -GAR_E_DEVICE_FAULT, 3 },
        { "hinted park", plan_flag, false, AT(250000), AT(250000), GAR_WAIT_OP_PARK, 3,
          -GAR_E_BACKEND, 5 },
        { "hint query", plan_flag, false, AT(250000), AT(250000), GAR_WAIT_OP_QUERY, 2,
          -GAR_E_DEVICE_FAULT, 6 },
        { "backstop query", plan_flag, false, AT(250000), NEVER, GAR_WAIT_OP_QUERY, 2,
          -GAR_E_BACKEND, 13 },
        { "flag sleep", plan_flag, true, AT(600000), AT(600000), GAR_WAIT_OP_SLEEP_UNTIL, 1,
          -GAR_E_IO, 3 },
        { "flag wake query", plan_flag, true, AT(900000), AT(900000), GAR_WAIT_OP_QUERY, 2,
          -GAR_E_BACKEND, 4 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        world w;
        world_init(&w, cases[c].done_at);
        w.word_at = cases[c].word_at;
        w.fail_op = cases[c].op;
        w.fail_nth = cases[c].nth;
        w.fail_code = cases[c].code;
        gar_wait_report r;
        gar_error err;
        gar_error_clear(&err);
        gar_wait_action end = run(&w, cases[c].plan(cases[c].predict), true, NEVER, &r, &err);
        if (end.op != GAR_WAIT_OP_FAILED || end.code != cases[c].code || w.n != cases[c].actions)
            fail_msg("%s: ended %s %d after %zu actions", cases[c].what, gar_wait_op_name(end.op),
                     end.code, w.n);
        /* The code and the port's text, unchanged; the failing action last. */
        assert_int_equal(err.code, -cases[c].code);
        assert_string_equal(err.argv[1], "injected");
        assert_int_equal(w.log[w.n - 1].op, cases[c].op);
        assert_int_equal(w.log[w.n - 1].result, cases[c].code);
        assert_int_equal(r.kind, GAR_WAIT_KIND_NONE);
        assert_int_equal(r.sample.kind, GAR_SAMPLE_NONE);
        assert_int_equal(r.wait_ns, w.now - START);
        /* The failing action is counted like any other. */
        assert_int_equal(r.queries, w.calls[GAR_WAIT_OP_QUERY]);
        assert_int_equal(r.polls, w.calls[GAR_WAIT_OP_POLL]);
        assert_int_equal(r.parks, w.calls[GAR_WAIT_OP_PARK]);
        assert_int_equal(r.sleeps, w.calls[GAR_WAIT_OP_SLEEP_UNTIL]);
    }
}

static void an_error_from_the_block_ends_the_wait_with_it(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(1000));
    w.fail_op = GAR_WAIT_OP_BLOCK;
    w.fail_nth = 1;
    w.fail_code = -GAR_E_BACKEND;
    gar_wait_report r;
    gar_error err;
    gar_wait_action end = run(&w, plan_block(), false, NEVER, &r, &err);
    assert_int_equal(end.op, GAR_WAIT_OP_FAILED);
    assert_int_equal(end.code, -GAR_E_BACKEND);
    assert_int_equal(err.code, GAR_E_BACKEND);
    assert_int_equal(w.n, 1);
    assert_int_equal(r.kind, GAR_WAIT_KIND_NONE);
}

/* ---- the edges of time ------------------------------------------------- */

/* Near the end of time every bound saturates instead of wrapping: a park's
 * bound is never before its start, the sleep that would end past the end of
 * time is no sleep. */
static void time_arithmetic_saturates_at_the_end_of_time(void **state)
{
    (void)state;
    gar_plan plan = plan_flag(true);
    gar_wait m;
    gar_mono_ns start = UINT64_MAX - 200;
    assert_int_equal(gar_wait_init(&m, &plan, true, SLEEP_NS, start, NEVER, NULL), 0);
    assert_int_equal(gar_wait_feed(&m, 0, start + 100, NULL), 0);
    assert_int_equal(gar_wait_next(&m).op, GAR_WAIT_OP_ARM);
    assert_int_equal(gar_wait_feed(&m, 0, start + 150, NULL), 0);
    gar_wait_action a = gar_wait_next(&m);
    assert_int_equal(a.op, GAR_WAIT_OP_PARK);
    assert_int_equal(a.until, UINT64_MAX);
    assert_int_equal(gar_wait_feed(&m, 1, UINT64_MAX, NULL), 0);
    assert_int_equal(gar_wait_next(&m).op, GAR_WAIT_OP_QUERY);
    assert_int_equal(gar_wait_feed(&m, 1, UINT64_MAX, NULL), 0);
    gar_wait_report r = gar_wait_report_of(&m);
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.sample.ns, 200);
    assert_int_equal(r.sleeps, 0);
}

/* A copy taken between actions is an independent wait in the same state. */
static void a_copied_machine_runs_on_as_the_original_would(void **state)
{
    (void)state;
    gar_plan plan = plan_flag(true);
    world a, b;
    world_init(&a, AT(900000));
    gar_wait m;
    assert_int_equal(gar_wait_init(&m, &plan, true, SLEEP_NS, START, NEVER, NULL), 0);
    for (int i = 0; i < 4; i++) { /* query, arm, sleep, wake query */
        int rc = perform(&a, gar_wait_next(&m), NULL);
        assert_int_equal(gar_wait_feed(&m, rc, a.now, NULL), 0);
    }
    gar_wait copy = m;
    memcpy(&b, &a, sizeof a);
    drive(&m, &a, NULL);
    drive(&copy, &b, NULL);
    gar_wait_report ra = gar_wait_report_of(&m), rb = gar_wait_report_of(&copy);
    assert_memory_equal(&ra, &rb, sizeof ra);
    assert_int_equal(a.n, b.n);
    assert_memory_equal(a.log, b.log, a.n * sizeof a.log[0]);
    assert_int_equal(ra.kind, GAR_WAIT_KIND_PARKED);
}

/* ---- batches of polls ------------------------------------------------- */

static void expect_same_report(gar_wait_report a, gar_wait_report b)
{
    assert_int_equal(a.kind, b.kind);
    assert_int_equal(a.sample.kind, b.sample.kind);
    assert_int_equal(a.sample.ns, b.sample.ns);
    assert_int_equal(a.wait_ns, b.wait_ns);
    assert_int_equal(a.slept_ns, b.slept_ns);
    assert_int_equal(a.sleeps, b.sleeps);
    assert_int_equal(a.parks, b.parks);
    assert_int_equal(a.queries, b.queries);
    assert_int_equal(a.backstop_queries, b.backstop_queries);
    assert_int_equal(a.polls, b.polls);
}

static void expect_same_action(gar_wait_action a, gar_wait_action b)
{
    assert_int_equal(a.op, b.op);
    assert_int_equal(a.until, b.until);
    assert_int_equal(a.code, b.code);
}

/* Drives two machines in lockstep on one world: `single` is fed every answer
 * alone; `batched` gets each run of `op` actions (POLL or PARK) answered 0
 * before their bound — the deadline for polls, the flag stage's due time
 * for parks — as batches of at most `batch` (gar_wait_feed_polls or
 * gar_wait_feed_parks), and the action that ends a run (done, an error, or
 * one reaching the bound) alone, as a driver must.  After every feed both
 * must agree on the report and the next action.  Returns the actions fed in
 * batches. */
static uint64_t drive_in_batches(gar_wait_op op, gar_plan plan, gar_mono_ns done_at,
                                 gar_mono_ns deadline, uint64_t batch)
{
    int (*feed_batch)(gar_wait *, uint64_t, gar_mono_ns, gar_error *) =
        op == GAR_WAIT_OP_POLL ? gar_wait_feed_polls : gar_wait_feed_parks;
    world w;
    world_init(&w, done_at);
    gar_wait single, batched;
    assert_int_equal(gar_wait_init(&single, &plan, true, SLEEP_NS, START, deadline, NULL), 0);
    assert_int_equal(gar_wait_init(&batched, &plan, true, SLEEP_NS, START, deadline, NULL), 0);
    uint64_t in_batches = 0;
    for (unsigned steps = 0; steps < STEPS_MAX; steps++) {
        gar_wait_action a = gar_wait_next(&single);
        expect_same_action(a, gar_wait_next(&batched));
        if (a.op == GAR_WAIT_OP_DONE || a.op == GAR_WAIT_OP_FAILED)
            return in_batches;
        gar_error err;
        if (a.op != op) {
            int rc = perform(&w, a, &err);
            assert_int_equal(gar_wait_feed(&single, rc, w.now, NULL), 0);
            assert_int_equal(gar_wait_feed(&batched, rc, w.now, NULL), 0);
            continue;
        }
        gar_mono_ns bound = deadline;
        if (op == GAR_WAIT_OP_PARK) {
            bound = gar_wait_park_due(&single);
            assert_int_equal(gar_wait_park_due(&batched), bound);
            assert_true(a.until <= bound);
        }
        uint64_t k = 0;
        gar_mono_ns last_pending = 0;
        bool run_ended = false;
        int rc = 0;
        while (k < batch && gar_wait_next(&single).op == op) {
            rc = perform(&w, gar_wait_next(&single), &err);
            if (rc != 0 || w.now >= bound) {
                run_ended = true;
                break;
            }
            assert_int_equal(gar_wait_feed(&single, 0, w.now, NULL), 0);
            last_pending = w.now;
            k++;
        }
        if (k > 0) {
            assert_int_equal(feed_batch(&batched, k, last_pending, NULL), 0);
            in_batches += k;
            expect_same_report(gar_wait_report_of(&single), gar_wait_report_of(&batched));
            expect_same_action(gar_wait_next(&single), gar_wait_next(&batched));
        }
        if (run_ended) {
            assert_int_equal(gar_wait_feed(&single, rc, w.now, NULL), 0);
            assert_int_equal(gar_wait_feed(&batched, rc, w.now, NULL), 0);
        }
        expect_same_report(gar_wait_report_of(&single), gar_wait_report_of(&batched));
    }
    fail_msg("the wait did not end within %d actions", STEPS_MAX);
    return 0;
}

/* Polls answer at +500 + 200k (and, after the sleep of poll+predict, at
 * +755500 + 200k), so the deadlines below fall on a poll's answer, between
 * two, before the sleep ends, and never; the work is done during the polls,
 * during the sleep, or never. */
static void a_batch_of_polls_is_the_polls_one_by_one(void **state)
{
    (void)state;
    static const gar_mono_ns done[] = { AT(1500), AT(600000), AT(900000), NEVER };
    static const gar_mono_ns deadlines[] = { NEVER, AT(300500), AT(300600), AT(700000),
                                             AT(800100) };
    static const uint64_t batches[] = { 1, 2, 7, 1000, UINT64_MAX };
    uint64_t batched = 0;
    for (int predict = 0; predict <= 1; predict++)
        for (size_t d = 0; d < N(done); d++)
            for (size_t l = 0; l < N(deadlines); l++)
                for (size_t b = 0; b < N(batches); b++)
                    if (done[d] != NEVER || deadlines[l] != NEVER)
                        batched += drive_in_batches(GAR_WAIT_OP_POLL, plan_poll(predict),
                                                    done[d], deadlines[l], batches[b]);
    assert_true(batched > 100000); /* batches were fed, not only single polls */
}

static void a_batch_of_polls_is_refused_where_single_feeds_would_differ(void **state)
{
    (void)state;
    gar_plan plan = plan_poll(false);
    const gar_mono_ns deadline = AT(10000);
    gar_wait m;
    gar_error err;
    assert_int_equal(gar_wait_feed_polls(NULL, 1, START, &err), -GAR_E_INVALID_ARGUMENT);

    /* Not at a poll: the first query. */
    assert_int_equal(gar_wait_init(&m, &plan, false, 0, START, deadline, NULL), 0);
    assert_int_equal(gar_wait_feed_polls(&m, 3, AT(100), &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[0], "gar_wait_feed_polls");
    assert_string_equal(err.argv[1], "wait");
    assert_int_equal(gar_wait_next(&m).op, GAR_WAIT_OP_FAILED);
    assert_int_equal(gar_wait_next(&m).code, -GAR_E_INVALID_ARGUMENT);

    /* At a poll: no polls, a time that goes back, a time at the deadline. */
    static const struct {
        uint64_t pending;
        gar_mono_ns now;
        const char *what;
    } bad[] = { { 0, AT(600), "pending" }, { 4, AT(499), "now" }, { 4, AT(10000), "now" },
                { 4, AT(20000), "now" } };
    for (size_t i = 0; i < N(bad); i++) {
        assert_int_equal(gar_wait_init(&m, &plan, false, 0, START, deadline, NULL), 0);
        assert_int_equal(gar_wait_feed(&m, 0, AT(500), NULL), 0);
        assert_int_equal(gar_wait_next(&m).op, GAR_WAIT_OP_POLL);
        assert_int_equal(gar_wait_feed_polls(&m, bad[i].pending, bad[i].now, &err),
                         -GAR_E_INVALID_ARGUMENT);
        assert_string_equal(err.argv[1], bad[i].what);
        assert_int_equal(gar_wait_next(&m).code, -GAR_E_INVALID_ARGUMENT);
        assert_int_equal(gar_wait_report_of(&m).polls, 0);
    }

    /* Just before the deadline is taken; the poll at it fails the wait. */
    assert_int_equal(gar_wait_init(&m, &plan, false, 0, START, deadline, NULL), 0);
    assert_int_equal(gar_wait_feed(&m, 0, AT(500), NULL), 0);
    assert_int_equal(gar_wait_feed_polls(&m, 40, AT(9999), &err), 0);
    assert_int_equal(gar_wait_feed_polls(&m, 1, AT(9999), &err), 0); /* no time may pass */
    gar_wait_report r = gar_wait_report_of(&m);
    assert_int_equal(r.polls, 41);
    assert_int_equal(r.wait_ns, 9999);
    assert_int_equal(gar_wait_next(&m).op, GAR_WAIT_OP_POLL);
    assert_int_equal(gar_wait_feed(&m, 0, AT(10000), &err), 0);
    expect_deadline(gar_wait_next(&m), &err);

    /* An ended wait stays as it ended. */
    gar_wait_action end = gar_wait_next(&m);
    assert_int_equal(gar_wait_feed_polls(&m, 1, AT(20000), &err), -GAR_E_INVALID_ARGUMENT);
    expect_same_action(gar_wait_next(&m), end);
    assert_int_equal(gar_wait_report_of(&m).polls, 42);
}

/* Parks of 100 us under a 1 ms backstop: the work done during the first
 * parks, after a backstop query, or never; deadlines on a park's end,
 * between two, before the sleep ends, never. */
static void a_batch_of_parks_is_the_parks_one_by_one(void **state)
{
    (void)state;
    static const gar_mono_ns done[] = { AT(150000), AT(2500000), AT(900000), NEVER };
    static const gar_mono_ns deadlines[] = { NEVER, AT(1000800), AT(1650000), AT(700000) };
    static const uint64_t batches[] = { 1, 2, 7, UINT64_MAX };
    uint64_t batched = 0;
    for (int predict = 0; predict <= 1; predict++)
        for (size_t d = 0; d < N(done); d++)
            for (size_t l = 0; l < N(deadlines); l++)
                for (size_t b = 0; b < N(batches); b++)
                    if (done[d] != NEVER || deadlines[l] != NEVER)
                        batched += drive_in_batches(GAR_WAIT_OP_PARK, plan_flag(predict),
                                                    done[d], deadlines[l], batches[b]);
    assert_true(batched > 500); /* batches were fed, not only single parks */
}

static void a_batch_of_parks_is_refused_where_single_feeds_would_differ(void **state)
{
    (void)state;
    gar_plan plan = plan_flag(false);
    gar_wait m;
    gar_error err;
    assert_int_equal(gar_wait_feed_parks(NULL, 1, START, &err), -GAR_E_INVALID_ARGUMENT);

    /* Not at a park: the first query; and PARK not pending has no due time. */
    assert_int_equal(gar_wait_init(&m, &plan, false, 0, START, NEVER, NULL), 0);
    assert_int_equal(gar_wait_park_due(&m), NEVER);
    assert_int_equal(gar_wait_feed_parks(&m, 3, AT(100), &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[0], "gar_wait_feed_parks");
    assert_string_equal(err.argv[1], "wait");
    assert_int_equal(gar_wait_next(&m).op, GAR_WAIT_OP_FAILED);

    /* At a park (query pending at 500, armed at 800: due at 1 000 500): no
     * parks, a time that goes back, a time at or past the due time. */
    static const struct {
        uint64_t parks;
        gar_mono_ns now;
        const char *what;
    } bad[] = { { 0, AT(900), "parks" }, { 4, AT(799), "now" }, { 4, AT(1000500), "now" },
                { 4, AT(2000000), "now" } };
    for (size_t i = 0; i < N(bad); i++) {
        assert_int_equal(gar_wait_init(&m, &plan, false, 0, START, NEVER, NULL), 0);
        assert_int_equal(gar_wait_feed(&m, 0, AT(500), NULL), 0);
        assert_int_equal(gar_wait_feed(&m, 0, AT(800), NULL), 0);
        assert_int_equal(gar_wait_next(&m).op, GAR_WAIT_OP_PARK);
        assert_int_equal(gar_wait_park_due(&m), AT(1000500));
        assert_int_equal(gar_wait_feed_parks(&m, bad[i].parks, bad[i].now, &err),
                         -GAR_E_INVALID_ARGUMENT);
        assert_string_equal(err.argv[1], bad[i].what);
        assert_int_equal(gar_wait_next(&m).code, -GAR_E_INVALID_ARGUMENT);
        assert_int_equal(gar_wait_report_of(&m).parks, 0);
    }

    /* Just before the due time is taken, and the last park is trimmed to it. */
    assert_int_equal(gar_wait_init(&m, &plan, false, 0, START, NEVER, NULL), 0);
    assert_int_equal(gar_wait_feed(&m, 0, AT(500), NULL), 0);
    assert_int_equal(gar_wait_feed(&m, 0, AT(800), NULL), 0);
    assert_int_equal(gar_wait_feed_parks(&m, 9, AT(950000), &err), 0);
    gar_wait_action next = gar_wait_next(&m);
    assert_int_equal(next.op, GAR_WAIT_OP_PARK);
    assert_int_equal(next.until, AT(1000500));
    assert_int_equal(gar_wait_report_of(&m).parks, 9);
    assert_int_equal(gar_wait_report_of(&m).wait_ns, 950000);

    /* An ended wait stays as it ended. */
    assert_int_equal(gar_wait_feed(&m, 1, AT(960000), NULL), 0);
    assert_int_equal(gar_wait_feed(&m, 1, AT(960500), NULL), 0);
    gar_wait_action end = gar_wait_next(&m);
    assert_int_equal(end.op, GAR_WAIT_OP_DONE);
    assert_int_equal(gar_wait_feed_parks(&m, 1, AT(970000), &err), -GAR_E_INVALID_ARGUMENT);
    expect_same_action(gar_wait_next(&m), end);
    assert_int_equal(gar_wait_report_of(&m).parks, 10);
}

/* ---- refusals ----------------------------------------------------------- */

static void init_refuses_bad_arguments_and_leaves_the_machine(void **state)
{
    (void)state;
    gar_plan block_predict = plan_block();
    block_predict.predict = true;
    gar_plan no_park = plan_flag(false);
    no_park.park_ns = 0;
    gar_plan no_backstop = plan_flag(false);
    no_backstop.backstop_ns = 0;
    gar_plan unknown = plan_poll(false);
    unknown.park = (gar_park)7;
    const gar_plan *bad[] = { NULL, &block_predict, &no_park, &no_backstop, &unknown };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gar_wait m;
        memset(&m, 0xA5, sizeof m);
        gar_wait before;
        memcpy(&before, &m, sizeof m);
        gar_error err;
        assert_int_equal(gar_wait_init(&m, bad[i], false, 0, START, NEVER, &err),
                         -GAR_E_INVALID_ARGUMENT);
        assert_int_equal(err.code, GAR_E_INVALID_ARGUMENT);
        assert_string_equal(err.argv[0], "gar_wait_init");
        assert_memory_equal(&m, &before, sizeof m);
    }
    gar_plan poll = plan_poll(false);
    assert_int_equal(gar_wait_init(NULL, &poll, false, 0, START, NEVER, NULL),
                     -GAR_E_INVALID_ARGUMENT);

    /* A sleep past max_sleep is refused under predict, ignored without. */
    gar_plan predict = plan_poll(true);
    gar_wait m;
    gar_error err;
    gar_dur_ns too_long = predict.deadline.max_sleep_ns + 1;
    assert_int_equal(gar_wait_init(&m, &predict, true, too_long, START, NEVER, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "sleep_ns");
    assert_int_equal(gar_wait_init(&m, &predict, true, predict.deadline.max_sleep_ns, START,
                                   NEVER, NULL), 0);
    assert_int_equal(gar_wait_init(&m, &poll, true, too_long, START, NEVER, NULL), 0);
}

static void a_feed_out_of_range_fails_the_wait(void **state)
{
    (void)state;
    static const struct {
        gar_plan (*plan)(bool);
        bool predict;
        int feeds_before; /* pending answers fed to reach the action */
        gar_wait_op op;
        int bad;
    } cases[] = {
        { plan_poll, false, 0, GAR_WAIT_OP_QUERY, 2 },
        { plan_poll, false, 1, GAR_WAIT_OP_POLL, 7 },
        { plan_poll, true, 1, GAR_WAIT_OP_SLEEP_UNTIL, 1 },
        { plan_flag, false, 1, GAR_WAIT_OP_ARM, 1 },
        { plan_flag, false, 2, GAR_WAIT_OP_PARK, 2 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gar_plan plan = cases[c].plan(cases[c].predict);
        gar_wait m;
        assert_int_equal(gar_wait_init(&m, &plan, true, SLEEP_NS, START, NEVER, NULL), 0);
        for (int i = 0; i < cases[c].feeds_before; i++)
            assert_int_equal(gar_wait_feed(&m, 0, START + 10, NULL), 0);
        assert_int_equal(gar_wait_next(&m).op, cases[c].op);
        gar_error err;
        assert_int_equal(gar_wait_feed(&m, cases[c].bad, START + 20, &err),
                         -GAR_E_INVALID_ARGUMENT);
        assert_string_equal(err.argv[0], "gar_wait_feed");
        gar_wait_action end = gar_wait_next(&m);
        assert_int_equal(end.op, GAR_WAIT_OP_FAILED);
        assert_int_equal(end.code, -GAR_E_INVALID_ARGUMENT);
    }
    /* The block answers 0 or an error, nothing else. */
    gar_plan block = plan_block();
    gar_wait m;
    assert_int_equal(gar_wait_init(&m, &block, false, 0, START, NEVER, NULL), 0);
    assert_int_equal(gar_wait_feed(&m, 1, START, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_wait_next(&m).op, GAR_WAIT_OP_FAILED);
}

static void a_time_that_goes_back_fails_the_wait(void **state)
{
    (void)state;
    gar_plan plan = plan_poll(false);
    gar_wait m;
    assert_int_equal(gar_wait_init(&m, &plan, false, 0, START, NEVER, NULL), 0);
    gar_error err;
    assert_int_equal(gar_wait_feed(&m, 1, START - 1, &err), -GAR_E_INVALID_ARGUMENT);
    gar_wait_action end = gar_wait_next(&m);
    assert_int_equal(end.op, GAR_WAIT_OP_FAILED);
    assert_int_equal(end.code, -GAR_E_INVALID_ARGUMENT);
    /* The refused feed's answer was not taken: no query counted done. */
    assert_int_equal(gar_wait_report_of(&m).kind, GAR_WAIT_KIND_NONE);
}

/* The machine is pure between feeds: asking twice gives the same action. */
static void next_is_a_plain_read(void **state)
{
    (void)state;
    gar_plan plan = plan_flag(false);
    gar_wait m;
    assert_int_equal(gar_wait_init(&m, &plan, false, 0, START, NEVER, NULL), 0);
    assert_int_equal(gar_wait_feed(&m, 0, AT(500), NULL), 0);
    assert_int_equal(gar_wait_feed(&m, 0, AT(800), NULL), 0);
    gar_wait_action a = gar_wait_next(&m), b = gar_wait_next(&m);
    assert_int_equal(a.op, GAR_WAIT_OP_PARK);
    assert_int_equal(a.until, AT(100800));
    assert_memory_equal(&a, &b, sizeof a);
}

static void ops_and_kinds_have_names(void **state)
{
    (void)state;
    assert_string_equal(gar_wait_op_name(GAR_WAIT_OP_QUERY), "query");
    assert_string_equal(gar_wait_op_name(GAR_WAIT_OP_SLEEP_UNTIL), "sleep-until");
    assert_string_equal(gar_wait_op_name(GAR_WAIT_OP_FAILED), "failed");
    assert_string_equal(gar_wait_op_name((gar_wait_op)99), "?");
    assert_string_equal(gar_wait_kind_name(GAR_WAIT_KIND_BLOCKED), "blocked");
    assert_string_equal(gar_wait_kind_name(GAR_WAIT_KIND_IMMEDIATE), "immediate");
    assert_string_equal(gar_wait_kind_name(GAR_WAIT_KIND_LATE), "late");
    assert_string_equal(gar_wait_kind_name(GAR_WAIT_KIND_PARKED), "parked");
    assert_string_equal(gar_wait_kind_name((gar_wait_kind)-1), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_already_done_blocks_and_nothing_else),
        cmocka_unit_test(block_done_later_is_blocked_without_a_sample),
        cmocka_unit_test(block_never_done_ends_with_the_drivers_deadline),
        cmocka_unit_test(poll_already_done_is_immediate_at_the_querys_answer),
        cmocka_unit_test(poll_done_later_polls_until_a_poll_says_done),
        cmocka_unit_test(poll_without_predict_never_sleeps),
        cmocka_unit_test(poll_never_done_fails_at_the_deadline),
        cmocka_unit_test(poll_predict_already_done_does_not_sleep),
        cmocka_unit_test(poll_predict_done_during_the_sleep_is_late),
        cmocka_unit_test(poll_predict_done_after_the_sleep_is_parked),
        cmocka_unit_test(poll_predict_never_done_fails_at_the_deadline),
        cmocka_unit_test(poll_predict_at_a_cold_point_never_sleeps),
        cmocka_unit_test(a_sleep_that_wakes_early_sleeps_again_to_the_same_time),
        cmocka_unit_test(a_wake_time_already_past_skips_the_sleep),
        cmocka_unit_test(flag_already_done_is_immediate_without_arming),
        cmocka_unit_test(flag_done_during_the_parks_is_confirmed_by_a_query),
        cmocka_unit_test(flag_never_done_fails_at_the_deadline),
        cmocka_unit_test(flag_predict_already_done_is_immediate),
        cmocka_unit_test(flag_predict_arms_then_sleeps_and_wakes_late),
        cmocka_unit_test(flag_predict_done_after_the_sleep_is_parked),
        cmocka_unit_test(flag_predict_never_done_fails_at_the_deadline),
        cmocka_unit_test(flag_predict_at_a_cold_point_parks_without_sleeping),
        cmocka_unit_test(the_sleep_is_trimmed_to_the_deadline),
        cmocka_unit_test(a_lost_store_ends_at_the_next_backstop_query),
        cmocka_unit_test(a_word_ahead_of_status_does_not_end_the_wait),
        cmocka_unit_test(parks_and_backstops_hold_their_bounds_action_by_action),
        cmocka_unit_test(every_flag_wait_holds_its_bounds),
        cmocka_unit_test(an_error_at_any_action_ends_the_wait_with_it),
        cmocka_unit_test(an_error_from_the_block_ends_the_wait_with_it),
        cmocka_unit_test(time_arithmetic_saturates_at_the_end_of_time),
        cmocka_unit_test(a_copied_machine_runs_on_as_the_original_would),
        cmocka_unit_test(a_batch_of_polls_is_the_polls_one_by_one),
        cmocka_unit_test(a_batch_of_polls_is_refused_where_single_feeds_would_differ),
        cmocka_unit_test(a_batch_of_parks_is_the_parks_one_by_one),
        cmocka_unit_test(a_batch_of_parks_is_refused_where_single_feeds_would_differ),
        cmocka_unit_test(init_refuses_bad_arguments_and_leaves_the_machine),
        cmocka_unit_test(a_feed_out_of_range_fails_the_wait),
        cmocka_unit_test(a_time_that_goes_back_fails_the_wait),
        cmocka_unit_test(next_is_a_plain_read),
        cmocka_unit_test(ops_and_kinds_have_names),
    };
    return cmocka_run_group_tests_name("wait", tests, NULL, NULL);
}
