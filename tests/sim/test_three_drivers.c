/* tests/sim/test_three_drivers.c — one decision, three drivers: the same
 * scripted world through the inline driver (gar/wait_inline.h), the reactor
 * driver (gar/wait_task.h, a task of the executor) and the simulator's host
 * (sim_host.h) gives the same actions, at the same times, with the same
 * answers, and the same report.
 *
 * The world is the simulator's cost model with constants (sim_world.h): a
 * query or an arm takes Q_NS, a poll turn POLL_NS + Q_NS, a sleep wakes
 * OVER_NS after its target, a blocking wait BLOCK_NS after the completion,
 * a park PARK_NS after the store; clock reads are free.  For the inline and
 * reactor drivers it is written out here as ports over a virtual clock (the
 * reactor's parks and sleeps go through the Idle port, the others through
 * the completion port), and each action is logged where it is performed;
 * the simulator logs its own through its action observer.  Each plan runs
 * a script of waits: work done before the wait, during a predicted sleep,
 * just after it, and long after it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <gar/auto_wait.h>
#include <gar/executor.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/port.h>
#include <gar/wait_inline.h>
#include <gar/wait_task.h>

#include "sim/auto_host.h"
#include "sim/sim_device.h"
#include "sim/sim_host.h"
#include "sim_world.h"

#define LOG_MAX 4096
#define START_NS (5 * GAR_NS_PER_MS) /* every wait starts here: offsets show */

typedef struct entry {
    gar_wait_op op;
    gar_mono_ns until, at, answered;
    int answer;
} entry;

typedef struct log {
    entry e[LOG_MAX];
    size_t n;
} log_t;

static void log_add(log_t *l, gar_wait_op op, gar_mono_ns until, gar_mono_ns at,
                    gar_mono_ns answered, int answer)
{
    assert_true(l->n < LOG_MAX);
    l->e[l->n++] = (entry){ op, until, at, answered, answer };
}

/* ---- the scripted world, for the inline and reactor drivers ----------- */

typedef struct world {
    gar_mono_ns now;
    gar_mono_ns done_at;  /* the status turns done here */
    gar_mono_ns store_at; /* the armed store lands here (GAR_MONO_NEVER: not armed) */
    gar_line line;
    log_t log;
} world;

static void world_init(world *w, gar_mono_ns done_at)
{
    memset(w, 0, sizeof *w);
    w->now = START_NS;
    w->done_at = done_at;
    w->store_at = GAR_MONO_NEVER;
    gar_line_init(&w->line);
}

static void land(world *w)
{
    if (w->now >= w->store_at && gar_line_load(&w->line, (gar_slot){ 0 }) == 0)
        gar_line_store(&w->line, (gar_slot){ 0 }, 1);
}

static int port_query(void *ctx, gar_error *err)
{
    (void)err;
    world *w = ctx;
    gar_mono_ns at = w->now;
    w->now += Q_NS;
    land(w);
    int done = w->now >= w->done_at;
    log_add(&w->log, GAR_WAIT_OP_QUERY, 0, at, w->now, done);
    return done;
}

static int port_poll(void *ctx, gar_error *err)
{
    (void)err;
    world *w = ctx;
    gar_mono_ns at = w->now;
    w->now += POLL_NS + Q_NS;
    land(w);
    int done = w->now >= w->done_at;
    log_add(&w->log, GAR_WAIT_OP_POLL, 0, at, w->now, done);
    return done;
}

static int port_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    (void)err;
    world *w = ctx;
    gar_mono_ns at = w->now;
    w->now += Q_NS;
    /* The store goes behind the work: it lands at the completion. */
    w->store_at = w->done_at > w->now ? w->done_at : w->now;
    land(w);
    *word = (gar_descriptor){ &w->line, { 0 }, 1 };
    log_add(&w->log, GAR_WAIT_OP_ARM, 0, at, w->now, 0);
    return 0;
}

/* A park until `until` from now: 1 at once when the store is in; else it
 * wakes PARK_NS after the store or at `until`, whichever is first, and
 * answers whether the store landed by `until`. */
static int park_until(world *w, gar_mono_ns until)
{
    gar_mono_ns at = w->now;
    int answer;
    land(w);
    if (gar_line_load(&w->line, (gar_slot){ 0 }) != 0) {
        answer = 1;
    } else if (until <= w->now) {
        answer = 0;
    } else {
        gar_mono_ns wake = until;
        answer = 0;
        if (w->store_at <= until) {
            gar_mono_ns seen = w->store_at + PARK_NS;
            wake = seen < until ? seen : until;
            answer = 1;
        }
        w->now = wake;
        land(w);
    }
    log_add(&w->log, GAR_WAIT_OP_PARK, until, at, w->now, answer);
    return answer;
}

static int port_park(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err)
{
    (void)word;
    (void)err;
    return park_until(ctx, until);
}

static int port_block(void *ctx, gar_error *err)
{
    (void)err;
    world *w = ctx;
    gar_mono_ns at = w->now;
    w->now += Q_NS;
    if (w->done_at > w->now)
        w->now = w->done_at + BLOCK_NS;
    log_add(&w->log, GAR_WAIT_OP_BLOCK, 0, at, w->now, 0);
    return 0;
}

static const gar_port_ops port_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = port_query,
    .block = port_block,
    .poll = port_poll,
    .arm = port_arm,
    .park = port_park,
};

static int idle_sleep(void *ctx, gar_mono_ns until, gar_error *err)
{
    (void)err;
    world *w = ctx;
    gar_mono_ns at = w->now;
    w->now = (until > w->now ? until : w->now) + OVER_NS;
    land(w);
    log_add(&w->log, GAR_WAIT_OP_SLEEP_UNTIL, until, at, w->now, 0);
    return 0;
}

static int idle_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                     gar_mono_ns until, gar_error *err)
{
    (void)line;
    (void)seen;
    (void)err;
    return park_until(ctx, until);
}

static const gar_idle_ops idle_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = idle_sleep,
    .park = idle_park,
};

static gar_mono_ns world_now(void *ctx)
{
    return ((world *)ctx)->now;
}

/* ---- the three drivers ------------------------------------------------- */

typedef struct outcome {
    int rc;
    gar_wait_report report;
    gar_mono_ns end;
    log_t log;
} outcome;

static void run_inline(const gar_plan *plan, gar_mono_ns done, gar_dur_ns sleep_ns, outcome *o)
{
    static world w;
    world_init(&w, done);
    o->rc = gar_wait_inline(plan, sleep_ns > 0, sleep_ns, GAR_MONO_NEVER,
                            (gar_port){ &port_ops, &w }, (gar_clock){ world_now, &w },
                            (gar_idle){ &idle_ops, &w }, &o->report, NULL);
    o->end = w.now;
    o->log = w.log;
}

static void run_reactor(const gar_plan *plan, gar_mono_ns done, gar_dur_ns sleep_ns, outcome *o)
{
    static world w;
    world_init(&w, done);
    gar_executor ex;
    assert_int_equal(gar_executor_init(&ex, (gar_clock){ world_now, &w },
                                       (gar_idle){ &idle_ops, &w }, NULL), 0);
    /* One park per PARK action: the machine's bound is the only one. */
    assert_int_equal(gar_executor_set_park_bound(&ex, GAR_MONO_NEVER, NULL), 0);
    gar_wait_task wt;
    assert_int_equal(gar_wait_task_init(&wt, "wait", plan, sleep_ns > 0, sleep_ns,
                                        GAR_MONO_NEVER, (gar_port){ &port_ops, &w }, NULL), 0);
    assert_int_equal(gar_executor_spawn(&ex, &wt.task, NULL), 0);
    o->rc = gar_executor_run(&ex, NULL);
    assert_true(gar_wait_task_finished(&wt));
    o->report = gar_wait_task_report(&wt);
    o->end = w.now;
    o->log = w.log;
}

static void on_sim_action(void *ctx, const gar_sim_action *a)
{
    log_t *l = ctx;
    if (a->repeat == 1) {
        log_add(l, a->op, a->until, a->at, a->answered, a->answer);
        return;
    }
    /* A batch of equal pending polls: with a constant turn, each is one turn. */
    gar_dur_ns turn = (a->answered - a->at) / a->repeat;
    assert_int_equal(turn * a->repeat, a->answered - a->at);
    for (uint64_t i = 0; i < a->repeat; i++)
        log_add(l, a->op, 0, a->at + i * turn, a->at + (i + 1) * turn, 0);
}

static void run_sim(const gar_plan *plan, gar_mono_ns done, gar_dur_ns sleep_ns, bool exact,
                    outcome *o)
{
    gar_sim_device dev;
    gar_sim_device_options options = { .streams = 1 };
    assert_int_equal(gar_sim_device_init(&dev, &options, NULL), 0);
    gar_sim_work work;
    assert_int_equal(gar_sim_device_enqueue(&dev, 0, 0, done, GAR_SIM_FAULT_NONE, &work, NULL),
                     0);
    gar_host_profile hp = exact_profile(true);
    static gar_sim_host host;
    assert_int_equal(gar_sim_host_init(&host, &hp, 7, NULL), 0);
    host.exact_polls = exact;
    o->log.n = 0;
    host.on_action = on_sim_action;
    host.on_action_ctx = &o->log;
    gar_sim_wait_result r;
    o->rc = gar_sim_host_wait(&host, &dev, &work, plan, sleep_ns > 0, sleep_ns, START_NS,
                              GAR_MONO_NEVER, &r, NULL);
    gar_sim_device_free(&dev);
    o->report = r.report;
    o->end = r.end;
}

/* ---- the comparison ---------------------------------------------------- */

/* Where two outcomes differ (written to why), or NULL where they are the same. */
static const char *differ(const outcome *want, const outcome *got, char *why, size_t size)
{
    if (got->log.n != want->log.n) {
        snprintf(why, size, "%zu actions, the inline driver %zu", got->log.n, want->log.n);
        return why;
    }
    for (size_t i = 0; i < want->log.n; i++) {
        const entry *a = &want->log.e[i], *b = &got->log.e[i];
        if (a->op != b->op || a->until != b->until || a->at != b->at ||
            a->answered != b->answered || a->answer != b->answer) {
            snprintf(why, size,
                     "action %zu is op %d until %llu at %llu..%llu -> %d; the inline "
                     "driver's op %d until %llu at %llu..%llu -> %d",
                     i, b->op, (unsigned long long)b->until, (unsigned long long)b->at,
                     (unsigned long long)b->answered, b->answer, a->op,
                     (unsigned long long)a->until, (unsigned long long)a->at,
                     (unsigned long long)a->answered, a->answer);
            return why;
        }
    }
    const gar_wait_report *x = &want->report, *y = &got->report;
    if (got->rc != want->rc || got->end != want->end || y->kind != x->kind ||
        y->sample.kind != x->sample.kind || y->sample.ns != x->sample.ns ||
        y->wait_ns != x->wait_ns || y->slept_ns != x->slept_ns || y->sleeps != x->sleeps ||
        y->parks != x->parks || y->queries != x->queries ||
        y->backstop_queries != x->backstop_queries || y->polls != x->polls) {
        snprintf(why, size, "the same actions, another end or report (end %llu, inline %llu)",
                 (unsigned long long)got->end, (unsigned long long)want->end);
        return why;
    }
    return NULL;
}

static void assert_same(const char *who, const outcome *want, const outcome *got)
{
    char why[512];
    if (differ(want, got, why, sizeof why) != NULL)
        fail_msg("%s: %s", who, why);
}

/* The script: (completion after the start, predicted sleep) pairs. */
static const struct {
    gar_dur_ns done_after, sleep_ns;
} script[] = {
    { 0, 0 },                                  /* done before the wait: immediate */
    { 700 * GAR_NS_PER_US, 850 * GAR_NS_PER_US }, /* done during the sleep: late */
    { 1 * GAR_NS_PER_MS, 850 * GAR_NS_PER_US },   /* just after the sleep */
    { 1 * GAR_NS_PER_MS, 0 },                  /* no prediction */
    { 3500 * GAR_NS_PER_US, 0 },               /* long: several parks and a backstop */
    { 3500 * GAR_NS_PER_US, 3 * GAR_NS_PER_MS },
};

static void every_plan_gives_the_same_actions_through_every_driver(void **state)
{
    (void)state;
    static outcome inl, rea, sim, sim_exact;
    const gar_park parks[] = { GAR_PARK_BLOCK, GAR_PARK_POLL, GAR_PARK_FLAG };
    size_t compared = 0;
    unsigned kinds = 0, backstops = 0;
    for (size_t p = 0; p < sizeof parks / sizeof parks[0]; p++)
        for (int predict = 0; predict <= 1; predict++) {
            if (parks[p] == GAR_PARK_BLOCK && predict)
                continue; /* block+predict is refused */
            gar_plan plan = plan_of(parks[p], predict == 1);
            for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) {
                gar_mono_ns done = START_NS + script[i].done_after;
                gar_dur_ns sleep_ns = predict ? script[i].sleep_ns : 0;
                run_inline(&plan, done, sleep_ns, &inl);
                run_reactor(&plan, done, sleep_ns, &rea);
                run_sim(&plan, done, sleep_ns, false, &sim);
                run_sim(&plan, done, sleep_ns, true, &sim_exact);
                assert_int_equal(inl.rc, 0);
                assert_true(inl.log.n >= 1);
                assert_same("reactor", &inl, &rea);
                assert_same("simulator", &inl, &sim);
                assert_same("simulator, exact polls", &inl, &sim_exact);
                compared++;
                kinds |= 1u << inl.report.kind;
                backstops += (unsigned)inl.report.backstop_queries;
            }
        }
    assert_int_equal(compared, 5 * 6);
    /* The script reaches every kind of end, and the flag's backstop. */
    assert_int_equal(kinds, (1u << GAR_WAIT_KIND_BLOCKED) | (1u << GAR_WAIT_KIND_IMMEDIATE) |
                                (1u << GAR_WAIT_KIND_LATE) | (1u << GAR_WAIT_KIND_PARKED));
    assert_true(backstops > 0);
}

/* The comparison can fail: another world, or another report, is told apart. */
static void a_different_world_is_told_apart(void **state)
{
    (void)state;
    static outcome inl, sim;
    gar_plan plan = plan_of(GAR_PARK_POLL, false);
    run_inline(&plan, START_NS + GAR_NS_PER_MS, 0, &inl);
    run_sim(&plan, START_NS + GAR_NS_PER_MS, 0, false, &sim);
    char why[512];
    assert_null(differ(&inl, &sim, why, sizeof why));
    /* Done 3 µs later: one turn and a half, so another turn ends the wait. */
    run_sim(&plan, START_NS + GAR_NS_PER_MS + 3000, 0, false, &sim);
    assert_non_null(differ(&inl, &sim, why, sizeof why));
    /* And the report alone: the same actions fed with another start. */
    outcome moved = inl;
    moved.report.sample.ns++;
    assert_non_null(differ(&inl, &moved, why, sizeof why));
}

/* ---- auto: the rule's choices, wait after wait ------------------------- */

/* The residual of auto wait i: about a millisecond, five times faster for
 * a stretch (late wakes, then probes), and back. */
static gar_dur_ns auto_residual(size_t i)
{
    gar_dur_ns r = (950 + (i * 37) % 100) * GAR_NS_PER_US;
    return i >= 230 && i < 245 ? r / 5 : r;
}

#define AUTO_WAITS 260

static void same_choice(size_t i, const char *who, const gar_auto_choice *want,
                        const gar_auto_choice *got)
{
    if (!gar_plan_equal(&want->plan, &got->plan) || want->has_sleep != got->has_sleep ||
        want->sleep_ns != got->sleep_ns)
        fail_msg("auto wait %zu: %s chose %s %d %llu, the inline driver %s %d %llu", i, who,
                 gar_park_name(got->plan.park), got->has_sleep, (unsigned long long)got->sleep_ns,
                 gar_park_name(want->plan.park), want->has_sleep,
                 (unsigned long long)want->sleep_ns);
}

/* Each driver keeps its own policy and point, told the same host: fed the
 * same reports, they make the same choices, so every wait matches. */
static void auto_runs_the_same_choices_through_every_driver(bool word_wait, gar_dur_ns budget,
                                                            gar_auto_counts *counts)
{
    static gar_auto_policy pol[3];
    static gar_auto_point pt[3];
    static outcome inl, rea, sim;
    static world w;
    gar_host_profile hp = exact_profile(word_wait);
    gar_auto_host host;
    gar_auto_host_from_profile(&hp, GAR_NS_PER_MS, &host);
    for (int d = 0; d < 3; d++) {
        assert_int_equal(gar_auto_init(&pol[d], &host, NULL), 0);
        gar_auto_point_init(&pt[d]);
    }
    const gar_plan plan = { .park = GAR_PARK_AUTO, .budget_ns = budget };
    for (size_t i = 0; i < AUTO_WAITS; i++) {
        gar_mono_ns done = START_NS + auto_residual(i);
        gar_auto_choice c_inl, c_rea, c_sim;

        world_init(&w, done);
        inl.rc = gar_auto_wait_inline(&pol[0], &pt[0], &plan, GAR_MONO_NEVER,
                                      (gar_port){ &port_ops, &w }, (gar_clock){ world_now, &w },
                                      (gar_idle){ &idle_ops, &w }, &c_inl, &inl.report, NULL);
        inl.end = w.now;
        inl.log = w.log;

        world_init(&w, done);
        gar_executor ex;
        assert_int_equal(gar_executor_init(&ex, (gar_clock){ world_now, &w },
                                           (gar_idle){ &idle_ops, &w }, NULL), 0);
        assert_int_equal(gar_executor_set_park_bound(&ex, GAR_MONO_NEVER, NULL), 0);
        gar_wait_task wt;
        assert_int_equal(gar_auto_wait_task_init(&wt, "auto", &pol[1], &pt[1], &plan,
                                                 GAR_MONO_NEVER, (gar_port){ &port_ops, &w },
                                                 &c_rea, NULL), 0);
        assert_int_equal(gar_executor_spawn(&ex, &wt.task, NULL), 0);
        rea.rc = gar_executor_run(&ex, NULL);
        rea.report = gar_wait_task_report(&wt);
        assert_int_equal(gar_auto_learn(&pol[1], &pt[1], &c_rea, &rea.report, NULL), 0);
        rea.end = w.now;
        rea.log = w.log;

        assert_int_equal(gar_auto_decide(&pol[2], &pt[2], budget, &c_sim, NULL), 0);
        run_sim(&c_sim.plan, done, c_sim.has_sleep ? c_sim.sleep_ns : 0, false, &sim);
        assert_int_equal(gar_auto_learn(&pol[2], &pt[2], &c_sim, &sim.report, NULL), 0);

        same_choice(i, "reactor", &c_inl, &c_rea);
        same_choice(i, "simulator", &c_inl, &c_sim);
        assert_int_equal(inl.rc, 0);
        assert_same("reactor", &inl, &rea);
        assert_same("simulator", &inl, &sim);
        assert_int_equal(inl.report.sleep_late_ns, sim.report.sleep_late_ns);
    }
    *counts = gar_auto_counts_of(&pol[0]);
}

static void auto_gives_the_same_waits_through_every_driver(void **state)
{
    (void)state;
    gar_auto_counts polls, flags, blocks;
    /* No word wait, 10 µs: poll (a turn and a query) fits, block does not. */
    auto_runs_the_same_choices_through_every_driver(false, 10 * GAR_NS_PER_US, &polls);
    assert_int_equal(polls.poll, AUTO_WAITS);
    /* The script reaches sleeps, late wakes and the probes after them. */
    assert_true(polls.sleeps > 0);
    assert_true(polls.late > 0);
    assert_true(polls.probes > 0);
    /* A word wait: the flag park, cheaper than polling. */
    auto_runs_the_same_choices_through_every_driver(true, 10 * GAR_NS_PER_US, &flags);
    assert_int_equal(flags.flag, AUTO_WAITS);
    /* 100 µs: the blocking wake (30 µs) fits, and a block costs one call. */
    auto_runs_the_same_choices_through_every_driver(true, 100 * GAR_NS_PER_US, &blocks);
    assert_int_equal(blocks.block, AUTO_WAITS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_plan_gives_the_same_actions_through_every_driver),
        cmocka_unit_test(a_different_world_is_told_apart),
        cmocka_unit_test(auto_gives_the_same_waits_through_every_driver),
    };
    return cmocka_run_group_tests_name("three_drivers", tests, NULL, NULL);
}
