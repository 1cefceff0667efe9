/* tests/core/test_wait_inline.c — the inline driver over a scripted world
 * wrapped in a completion port, a test clock and an Idle port: it performs
 * exactly the machine's actions, parks on the word arm gave, passes errors
 * through unchanged, and refuses ports that lack what the plan needs or whose
 * tables are of a version it does not know. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gar/wait_inline.h>

#include "wait_world.h"

#define SLEEP_NS (750 * GAR_NS_PER_US)
#define NEVER GAR_MONO_NEVER
#define ARMED_TARGET 1

static int port_query(void *ctx, gar_error *err)
{
    return world_query(ctx, err);
}

static int port_block(void *ctx, gar_error *err)
{
    return world_block(ctx, err);
}

static int port_poll(void *ctx, gar_error *err)
{
    return world_poll(ctx, err);
}

static int port_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    world *w = ctx;
    int rc = world_arm(w, err);
    if (rc == 0)
        *word = (gar_descriptor){ .line = &w->line, .slot = { 3 }, .target = ARMED_TARGET };
    return rc;
}

/* The driver must park on the very word arm gave. */
static int port_park(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err)
{
    world *w = ctx;
    assert_ptr_equal(word->line, &w->line);
    assert_int_equal(word->slot.index, 3);
    assert_int_equal(word->target, ARMED_TARGET);
    return world_park(w, until, err);
}

static const gar_port_ops full_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = port_query,
    .block = port_block,
    .poll = port_poll,
    .arm = port_arm,
    .park = port_park,
};

static gar_mono_ns clock_now(void *ctx)
{
    return ((world *)ctx)->now;
}

static int idle_sleep_until(void *ctx, gar_mono_ns until, gar_error *err)
{
    return world_sleep(ctx, until, err);
}

/* The driver never parks through Idle: the port's park is the wait's. */
static int idle_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                     gar_mono_ns until, gar_error *err)
{
    (void)ctx, (void)line, (void)seen, (void)until, (void)err;
    fail_msg("the inline driver parked through Idle");
    return -GAR_E_BACKEND;
}

static const gar_idle_ops idle_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = idle_sleep_until,
    .park = idle_park,
};

static int wait_in(world *w, const gar_port_ops *ops, gar_plan plan, bool has_sleep,
                   gar_mono_ns deadline, gar_wait_report *r, gar_error *err)
{
    return gar_wait_inline(&plan, has_sleep, SLEEP_NS, deadline, (gar_port){ ops, w },
                           (gar_clock){ clock_now, w }, (gar_idle){ &idle_ops, w }, r, err);
}

static void expect_ops(const world *w, const gar_wait_op *ops, size_t n)
{
    assert_int_equal(w->n, n);
    for (size_t i = 0; i < n; i++)
        if (w->log[i].op != ops[i])
            fail_msg("action %zu: got %s, want %s", i, gar_wait_op_name(w->log[i].op),
                     gar_wait_op_name(ops[i]));
}

/* ---- each measured arm ------------------------------------------------ */

static void block_runs_the_ports_blocking_wait(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(2000000));
    gar_wait_report r;
    assert_int_equal(wait_in(&w, &full_ops, plan_block(), false, NEVER, &r, NULL), 0);
    static const gar_wait_op ops[] = { GAR_WAIT_OP_BLOCK };
    expect_ops(&w, ops, 1);
    assert_int_equal(r.kind, GAR_WAIT_KIND_BLOCKED);
    assert_int_equal(r.wait_ns, 2007000);
}

static void poll_queries_then_polls(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(900));
    gar_wait_report r;
    assert_int_equal(wait_in(&w, &full_ops, plan_poll(false), false, NEVER, &r, NULL), 0);
    static const gar_wait_op ops[] = { GAR_WAIT_OP_QUERY, GAR_WAIT_OP_POLL, GAR_WAIT_OP_POLL };
    expect_ops(&w, ops, 3);
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.sample.kind, GAR_SAMPLE_EXACT);
    assert_int_equal(r.sample.ns, 900);
}

static void poll_predict_sleeps_through_idle_and_wakes_late(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(600000));
    gar_wait_report r;
    assert_int_equal(wait_in(&w, &full_ops, plan_poll(true), true, NEVER, &r, NULL), 0);
    static const gar_wait_op ops[] = { GAR_WAIT_OP_QUERY, GAR_WAIT_OP_SLEEP_UNTIL,
                                       GAR_WAIT_OP_QUERY };
    expect_ops(&w, ops, 3);
    assert_int_equal(w.log[1].until, AT(SLEEP_NS));
    assert_int_equal(r.kind, GAR_WAIT_KIND_LATE);
    assert_int_equal(r.sample.kind, GAR_SAMPLE_LATE);
    assert_int_equal(r.sample.ns, 755500);
    assert_int_equal(r.slept_ns, 754500);
}

static void flag_arms_and_parks_on_the_armed_word(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(250000));
    gar_wait_report r;
    assert_int_equal(wait_in(&w, &full_ops, plan_flag(false), false, NEVER, &r, NULL), 0);
    static const gar_wait_op ops[] = { GAR_WAIT_OP_QUERY, GAR_WAIT_OP_ARM, GAR_WAIT_OP_PARK,
                                       GAR_WAIT_OP_PARK,  GAR_WAIT_OP_PARK, GAR_WAIT_OP_QUERY };
    expect_ops(&w, ops, 6);
    assert_int_equal(w.log[2].until, AT(100800));
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.sample.ns, 250900);
    assert_int_equal(r.parks, 3);
}

static void flag_predict_arms_sleeps_and_parks(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(900000));
    gar_wait_report r;
    assert_int_equal(wait_in(&w, &full_ops, plan_flag(true), true, NEVER, &r, NULL), 0);
    static const gar_wait_op ops[] = { GAR_WAIT_OP_QUERY, GAR_WAIT_OP_ARM,
                                       GAR_WAIT_OP_SLEEP_UNTIL, GAR_WAIT_OP_QUERY,
                                       GAR_WAIT_OP_PARK, GAR_WAIT_OP_PARK, GAR_WAIT_OP_QUERY };
    expect_ops(&w, ops, 7);
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.sample.ns, 900900);
}

static void a_lost_store_ends_at_the_backstop(void **state)
{
    (void)state;
    world w;
    world_init(&w, AT(250000));
    w.word_at = NEVER;
    gar_wait_report r;
    assert_int_equal(wait_in(&w, &full_ops, plan_flag(false), false, NEVER, &r, NULL), 0);
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.backstop_queries, 1);
    assert_int_equal(r.sample.ns, 1001000);
}

/* ---- failures ----------------------------------------------------------- */

static void the_deadline_ends_a_wait_that_never_completes(void **state)
{
    (void)state;
    world w;
    world_init(&w, NEVER);
    gar_wait_report r;
    gar_error err;
    assert_int_equal(wait_in(&w, &full_ops, plan_flag(true), true, AT(1500000), &r, &err),
                     -GAR_E_WAIT_DEADLINE);
    assert_int_equal(err.code, GAR_E_WAIT_DEADLINE);
    assert_int_equal(r.kind, GAR_WAIT_KIND_NONE);
    assert_int_equal(r.wait_ns, 1500500);
    assert_int_equal(r.parks, 8);
}

/* Each op's error comes back unchanged, with the port's own text, and the
 * report holds the counters up to the failing action. */
static void a_port_or_idle_error_comes_back_unchanged(void **state)
{
    (void)state;
    static const struct {
        gar_plan (*plan)(bool);
        bool predict;
        gar_wait_op op;
        int code;
        size_t actions;
    } cases[] = {
        { plan_poll, false, GAR_WAIT_OP_QUERY, -GAR_E_BACKEND, 1 },
        { plan_poll, false, GAR_WAIT_OP_POLL, -GAR_E_DEVICE_FAULT, 2 },
        { plan_poll, true, GAR_WAIT_OP_SLEEP_UNTIL, -GAR_E_IO, 2 },
        { plan_flag, false, GAR_WAIT_OP_ARM, -GAR_E_BACKEND, 2 },
        { plan_flag, false, GAR_WAIT_OP_PARK, -GAR_E_DEVICE_FAULT, 3 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        world w;
        world_init(&w, AT(250000));
        w.fail_op = cases[c].op;
        w.fail_nth = 1;
        w.fail_code = cases[c].code;
        gar_wait_report r;
        gar_error err;
        assert_int_equal(
            wait_in(&w, &full_ops, cases[c].plan(cases[c].predict), true, NEVER, &r, &err),
            cases[c].code);
        assert_int_equal(err.code, -cases[c].code);
        assert_string_equal(err.argv[1], "injected");
        assert_int_equal(w.n, cases[c].actions);
        assert_int_equal(w.log[w.n - 1].op, cases[c].op);
        assert_int_equal(r.kind, GAR_WAIT_KIND_NONE);
        assert_int_equal(r.wait_ns, w.now - START);
    }
    world w;
    world_init(&w, AT(1000));
    w.fail_op = GAR_WAIT_OP_BLOCK;
    w.fail_nth = 1;
    w.fail_code = -GAR_E_BACKEND;
    assert_int_equal(wait_in(&w, &full_ops, plan_block(), false, NEVER, NULL, NULL),
                     -GAR_E_BACKEND);
    assert_int_equal(w.n, 1);
}

/* ---- refusals ----------------------------------------------------------- */

static void a_port_without_an_op_the_plan_needs_is_refused_before_anything_runs(void **state)
{
    (void)state;
    gar_port_ops no_block = full_ops, no_poll = full_ops, no_arm = full_ops,
                 no_park = full_ops, no_query = full_ops;
    no_block.block = NULL;
    no_poll.poll = NULL;
    no_arm.arm = NULL;
    no_park.park = NULL;
    no_query.query = NULL;
    const struct {
        const gar_port_ops *ops;
        gar_plan plan;
    } cases[] = {
        { &no_block, plan_block() },      { &no_poll, plan_poll(false) },
        { &no_query, plan_poll(true) },   { &no_arm, plan_flag(false) },
        { &no_park, plan_flag(false) },   { &no_query, plan_flag(true) },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        world w;
        world_init(&w, 0);
        gar_error err;
        assert_int_equal(wait_in(&w, cases[c].ops, cases[c].plan, false, NEVER, NULL, &err),
                         -GAR_E_INVALID_ARGUMENT);
        assert_string_equal(err.argv[0], "gar_wait_inline");
        assert_string_equal(err.argv[1], "port");
        assert_int_equal(w.n, 0);
    }
    /* An op the plan never uses may be NULL. */
    world w;
    world_init(&w, 0);
    assert_int_equal(wait_in(&w, &no_block, plan_flag(false), false, NEVER, NULL, NULL), 0);
    world_init(&w, 0);
    assert_int_equal(wait_in(&w, &no_query, plan_block(), false, NEVER, NULL, NULL), 0);
}

static void a_missing_clock_idle_or_ops_table_is_refused(void **state)
{
    (void)state;
    world w;
    world_init(&w, 0);
    gar_plan poll = plan_poll(false), predict = plan_poll(true);
    gar_port port = { &full_ops, &w };
    gar_clock clock = { clock_now, &w };
    gar_idle idle = { &idle_ops, &w };
    gar_idle no_idle = { NULL, NULL };
    gar_error err;
    assert_int_equal(gar_wait_inline(&poll, false, 0, NEVER, port, (gar_clock){ NULL, NULL },
                                     idle, NULL, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "clock");
    assert_int_equal(gar_wait_inline(&poll, false, 0, NEVER, (gar_port){ NULL, &w }, clock,
                                     idle, NULL, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "port");
    /* Idle is needed only when the wait may sleep. */
    assert_int_equal(gar_wait_inline(&predict, true, SLEEP_NS, NEVER, port, clock, no_idle,
                                     NULL, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "idle");
    assert_int_equal(w.n, 0);
    assert_int_equal(gar_wait_inline(&predict, false, 0, NEVER, port, clock, no_idle, NULL, NULL),
                     0);
    /* The machine's own refusals come through. */
    gar_plan block_predict = plan_block();
    block_predict.predict = true;
    assert_int_equal(gar_wait_inline(&block_predict, false, 0, NEVER, port, clock, idle, NULL,
                                     &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[0], "gar_wait_init");
    assert_int_equal(gar_wait_inline(NULL, false, 0, NEVER, port, clock, idle, NULL, &err),
                     -GAR_E_INVALID_ARGUMENT);
}

/* A port or Idle table of a version this libgar does not know (0: never set;
 * or a later libgar's) is refused with OpsVersion naming the table, before
 * anything runs. */
static void tables_of_an_unknown_version_are_refused_before_anything_runs(void **state)
{
    (void)state;
    const unsigned port_versions[] = { 0, GAR_PORT_OPS_VERSION + 1 };
    const unsigned idle_versions[] = { 0, GAR_IDLE_OPS_VERSION + 1 };
    gar_plan predict = plan_poll(true);
    for (size_t v = 0; v < 2; v++) {
        gar_port_ops port_table = full_ops;
        port_table.version = port_versions[v];
        world w;
        world_init(&w, 0);
        gar_error err;
        assert_int_equal(wait_in(&w, &port_table, predict, true, NEVER, NULL, &err),
                         -GAR_E_OPS_VERSION);
        assert_int_equal(err.code, GAR_E_OPS_VERSION);
        assert_string_equal(err.argv[0], "gar_wait_inline");
        assert_string_equal(err.argv[1], "gar_port_ops");
        assert_int_equal(w.n, 0);

        gar_idle_ops idle_table = idle_ops;
        idle_table.version = idle_versions[v];
        assert_int_equal(gar_wait_inline(&predict, true, SLEEP_NS, NEVER,
                                         (gar_port){ &full_ops, &w }, (gar_clock){ clock_now, &w },
                                         (gar_idle){ &idle_table, &w }, NULL, &err),
                         -GAR_E_OPS_VERSION);
        assert_string_equal(err.argv[1], "gar_idle_ops");
        assert_int_equal(w.n, 0);
    }
    /* The message names the version given and the newest known. */
    gar_port_ops unset = full_ops;
    unset.version = 0;
    world w;
    world_init(&w, 0);
    gar_error err;
    wait_in(&w, &unset, plan_block(), false, NEVER, NULL, &err);
    char text[GAR_ERROR_ARG_BYTES];
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "gar_wait_inline: the gar_port_ops table has version 0, which "
                              "this libgar does not know (the newest it knows is 1)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_runs_the_ports_blocking_wait),
        cmocka_unit_test(poll_queries_then_polls),
        cmocka_unit_test(poll_predict_sleeps_through_idle_and_wakes_late),
        cmocka_unit_test(flag_arms_and_parks_on_the_armed_word),
        cmocka_unit_test(flag_predict_arms_sleeps_and_parks),
        cmocka_unit_test(a_lost_store_ends_at_the_backstop),
        cmocka_unit_test(the_deadline_ends_a_wait_that_never_completes),
        cmocka_unit_test(a_port_or_idle_error_comes_back_unchanged),
        cmocka_unit_test(a_port_without_an_op_the_plan_needs_is_refused_before_anything_runs),
        cmocka_unit_test(a_missing_clock_idle_or_ops_table_is_refused),
        cmocka_unit_test(tables_of_an_unknown_version_are_refused_before_anything_runs),
    };
    return cmocka_run_group_tests_name("wait_inline", tests, NULL, NULL);
}
