/* tests/backends/test_uv_waiter.c — the libuv adapter on a real libuv loop,
 * with store threads playing the devices.
 *
 * What is asserted holds whatever the machine's timing: every started wait
 * gets exactly one callback, on the loop thread, with the right status; a
 * done wait's word had reached its target; a port's status, not the word,
 * ends a wait; a cancelled or closed wait reports cancelled; a deadline ends
 * a wait that nothing completes; and uv_loop_close succeeds at the end (no
 * handle leaked).  Nothing is asserted about how fast. */
#define _POSIX_C_SOURCE 200809L /* libuv's header needs POSIX types under -std=c11 */

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <gar/uv.h>

#include <gar/auto_policy.h>

#include <gar/posix.h>
#include <gar/emulated.h>

#define MS GAR_NS_PER_MS
#define FLAG_PLAN "flag:park_us=100,backstop_us=1000"
/* Far beyond any scheduling delay: a broken adapter fails a test instead of
 * hanging it. */
#define GIVE_UP_NS (20 * GAR_NS_PER_S)

typedef struct outcome {
    int calls;
    gar_uv_status status;
    int code;
    bool reached_then;  /* the descriptor's word had reached its target at the callback */
    bool on_loop_thread;
    gar_descriptor word;
    gar_wait_report report;
    gar_mono_ns at;     /* the clock when the callback ran */
} outcome;

static pthread_t loop_thread;

static void record(gar_uv_wait *handle, const gar_uv_result *result, void *user)
{
    (void)handle;
    outcome *o = user;
    o->calls++;
    o->at = gar_posix_now();
    o->status = result->status;
    o->code = result->code;
    o->report = result->report;
    o->reached_then = gar_descriptor_reached(&o->word);
    o->on_loop_thread = pthread_equal(pthread_self(), loop_thread);
    if (result->status == GAR_UV_FAILED)
        assert_non_null(result->error);
    else
        assert_null(result->error);
}

static gar_plan plan_of(const char *text)
{
    gar_plan plan;
    assert_int_equal(gar_plan_parse(text, &plan, NULL), 0);
    return plan;
}

static gar_slot slot_of(unsigned index)
{
    gar_slot slot;
    assert_int_equal(gar_slot_make(index, &slot, NULL), 0);
    return slot;
}

static void open_loop(uv_loop_t *loop, gar_uv **uv)
{
    loop_thread = pthread_self();
    assert_int_equal(uv_loop_init(loop), 0);
    gar_error err;
    assert_int_equal(gar_uv_init(uv, loop, &err), 0);
}

/* Closes the adapter, lets the loop finish closing its handle, and checks
 * that nothing is left on the loop. */
static void close_loop(uv_loop_t *loop, gar_uv *uv)
{
    gar_uv_close(uv);
    assert_int_equal(uv_run(loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(loop), 0);
}

/* ---- many lines ------------------------------------------------------------ */

enum { LINES = 6, SLOTS = 3, WAITS = LINES * SLOTS };

static void many_lines_complete_once_each_after_their_stores(const char *plan_text)
{
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    gar_line lines[LINES];
    outcome outcomes[WAITS];
    memset(outcomes, 0, sizeof outcomes);
    gar_plan plan = plan_of(plan_text);
    gar_mono_ns start = gar_posix_now();
    gar_store_thread *devices[LINES];
    for (unsigned l = 0; l < LINES; l++) {
        gar_line_init(&lines[l]);
        gar_store schedule[SLOTS];
        for (unsigned s = 0; s < SLOTS; s++) {
            outcome *o = &outcomes[l * SLOTS + s];
            o->word = (gar_descriptor){ .line = &lines[l], .slot = slot_of(s), .target = 2 };
            gar_error err;
            assert_int_equal(gar_uv_start(uv, &o->word, NULL, &plan, start + GIVE_UP_NS,
                                          record, o, NULL, &err),
                             0);
            /* Two stores per slot: the first (1) does not reach the target. */
            schedule[s] = (gar_store){ .slot = o->word.slot, .value = 1,
                                       .at = start + (1 + l + s) * MS / 2 };
        }
        gar_store all[2 * SLOTS];
        for (unsigned s = 0; s < SLOTS; s++) {
            all[s] = schedule[s];
            all[SLOTS + s] = schedule[s];
            all[SLOTS + s].value = 2;
            all[SLOTS + s].at = start + (4 + l + s) * MS / 2;
        }
        /* Times must not decrease along one thread's schedule. */
        assert_int_equal(gar_store_thread_start(&devices[l], &lines[l], all, 2 * SLOTS, NULL), 0);
    }
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0); /* returns once every callback ran */
    for (unsigned l = 0; l < LINES; l++)
        assert_int_equal(gar_store_thread_join(devices[l], NULL, NULL, NULL), 0);
    for (unsigned i = 0; i < WAITS; i++) {
        assert_int_equal(outcomes[i].calls, 1);
        assert_int_equal(outcomes[i].status, GAR_UV_DONE);
        assert_true(outcomes[i].reached_then);
        assert_true(outcomes[i].on_loop_thread);
    }
    close_loop(&loop, uv);
}

static void many_lines_flag_plan(void **state)
{
    (void)state;
    many_lines_complete_once_each_after_their_stores(FLAG_PLAN);
}

static void many_lines_poll_plan(void **state)
{
    (void)state;
    many_lines_complete_once_each_after_their_stores("poll");
}

/* ---- a port's status is the authority -------------------------------------- */

typedef struct status_port {
    gar_descriptor word;
    atomic_bool done;
    atomic_int queries;
} status_port;

static int status_query(void *ctx, gar_error *err)
{
    (void)err;
    status_port *p = ctx;
    atomic_fetch_add(&p->queries, 1);
    return atomic_load(&p->done) ? 1 : 0;
}

static int status_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    (void)err;
    *word = ((status_port *)ctx)->word;
    return 0;
}

static const gar_port_ops status_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = status_query,
    .arm = status_arm,
};

typedef struct flip {
    status_port *port;
    uv_timer_t timer;
    int looks;
} flip;

/* Says "done" only after the loop looked several times with the word
 * already reached: the wait must not end before. */
static void flip_later(uv_timer_t *timer)
{
    flip *f = timer->data;
    if (++f->looks < 5)
        return;
    atomic_store(&f->port->done, true);
    uv_close((uv_handle_t *)timer, NULL);
}

static void the_port_status_ends_a_wait_not_the_word(void **state)
{
    (void)state;
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    gar_line line;
    gar_line_init(&line);
    status_port port = { .word = { .line = &line, .slot = slot_of(4), .target = 1 } };
    atomic_init(&port.done, false);
    atomic_init(&port.queries, 0);
    gar_line_store(&line, port.word.slot, 1); /* the hint is there from the start */
    outcome o = { .word = port.word };
    gar_port p = { .ops = &status_ops, .ctx = &port };
    gar_plan plan = plan_of(FLAG_PLAN);
    assert_int_equal(gar_uv_start(uv, &port.word, &p, &plan, GAR_MONO_NEVER, record, &o, NULL,
                                  NULL),
                     0);
    flip f = { .port = &port };
    assert_int_equal(uv_timer_init(&loop, &f.timer), 0);
    f.timer.data = &f;
    assert_int_equal(uv_timer_start(&f.timer, flip_later, 1, 1), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(o.calls, 1);
    assert_int_equal(o.status, GAR_UV_DONE);
    assert_int_equal(f.looks, 5); /* it was done only after the status said so */
    assert_true(atomic_load(&port.queries) >= 2);
    assert_int_equal(o.report.kind, GAR_WAIT_KIND_PARKED);
    close_loop(&loop, uv);
}

/* ---- cancellation ------------------------------------------------------------ */

typedef struct canceller {
    uv_timer_t timer;
    gar_uv_wait *handles[2];
    outcome *outcomes;
} canceller;

static void cancel_now(uv_timer_t *timer)
{
    canceller *c = timer->data;
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(c->outcomes[i].calls, 0); /* still pending: nothing stores */
        assert_int_equal(gar_uv_cancel(c->handles[i], NULL), 0);
        assert_int_equal(gar_uv_cancel(c->handles[i], NULL), 0); /* twice is harmless */
    }
    uv_close((uv_handle_t *)timer, NULL);
}

static void cancelled_mid_wait_reports_cancelled_once(void **state)
{
    (void)state;
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    gar_line line;
    gar_line_init(&line);
    outcome o[3];
    memset(o, 0, sizeof o);
    const char *plans[2] = { FLAG_PLAN, "poll" };
    canceller c = { .outcomes = o };
    for (unsigned i = 0; i < 2; i++) {
        o[i].word = (gar_descriptor){ .line = &line, .slot = slot_of(i), .target = 1 };
        gar_plan plan = plan_of(plans[i]);
        assert_int_equal(gar_uv_start(uv, &o[i].word, NULL, &plan, GAR_MONO_NEVER, record, &o[i],
                                      &c.handles[i], NULL),
                         0);
    }
    /* One cancelled before the watcher could take it in. */
    gar_uv_wait *early;
    o[2].word = (gar_descriptor){ .line = &line, .slot = slot_of(2), .target = 1 };
    gar_plan plan = plan_of(FLAG_PLAN);
    assert_int_equal(gar_uv_start(uv, &o[2].word, NULL, &plan, GAR_MONO_NEVER, record, &o[2],
                                  &early, NULL),
                     0);
    assert_int_equal(gar_uv_cancel(early, NULL), 0);

    assert_int_equal(uv_timer_init(&loop, &c.timer), 0);
    c.timer.data = &c;
    assert_int_equal(uv_timer_start(&c.timer, cancel_now, 5, 0), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(o[i].calls, 1);
        assert_int_equal(o[i].status, GAR_UV_CANCELLED);
        assert_true(o[i].on_loop_thread);
    }
    close_loop(&loop, uv);
}

/* ---- close while waits pend ------------------------------------------------- */

typedef struct closer {
    uv_timer_t timer;
    gar_uv *uv;
    outcome *outcomes;
    unsigned count;
} closer;

static void close_now(uv_timer_t *timer)
{
    closer *c = timer->data;
    for (unsigned i = 0; i < c->count; i++)
        assert_int_equal(c->outcomes[i].calls, 0);
    gar_uv_close(c->uv);
    for (unsigned i = 0; i < c->count; i++) { /* every callback ran inside close */
        assert_int_equal(c->outcomes[i].calls, 1);
        assert_int_equal(c->outcomes[i].status, GAR_UV_CANCELLED);
    }
    uv_close((uv_handle_t *)timer, NULL);
}

static void close_with_waits_pending_cancels_them_and_leaks_nothing(void **state)
{
    (void)state;
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    enum { COUNT = 8 };
    gar_line lines[2];
    gar_line_init(&lines[0]);
    gar_line_init(&lines[1]);
    outcome o[COUNT];
    memset(o, 0, sizeof o);
    gar_plan plan = plan_of(FLAG_PLAN);
    for (unsigned i = 0; i < COUNT; i++) {
        o[i].word = (gar_descriptor){ .line = &lines[i % 2], .slot = slot_of(i / 2), .target = 1 };
        assert_int_equal(gar_uv_start(uv, &o[i].word, NULL, &plan, GAR_MONO_NEVER, record, &o[i],
                                      NULL, NULL),
                         0);
    }
    closer c = { .uv = uv, .outcomes = o, .count = COUNT };
    assert_int_equal(uv_timer_init(&loop, &c.timer), 0);
    c.timer.data = &c;
    assert_int_equal(uv_timer_start(&c.timer, close_now, 3, 0), 0);
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* Close right after the starts, before the loop ever ran: every wait gets
 * exactly one callback inside close — cancelled, or done for one whose work
 * was done and that the watcher had already finished. */
static void close_right_after_starts_calls_every_callback_once(void **state)
{
    (void)state;
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    enum { COUNT = 64 };
    gar_line done_line, pending_line;
    gar_line_init(&done_line);
    gar_line_init(&pending_line);
    gar_slot s0 = slot_of(0);
    gar_line_store(&done_line, s0, 1);
    outcome o[COUNT];
    memset(o, 0, sizeof o);
    gar_plan plan = plan_of(FLAG_PLAN);
    for (unsigned i = 0; i < COUNT; i++) {
        o[i].word = (gar_descriptor){ .line = i % 2 ? &done_line : &pending_line, .slot = s0,
                                      .target = 1 };
        assert_int_equal(gar_uv_start(uv, &o[i].word, NULL, &plan, GAR_MONO_NEVER, record, &o[i],
                                      NULL, NULL),
                         0);
    }
    gar_uv_close(uv);
    for (unsigned i = 0; i < COUNT; i++) {
        assert_int_equal(o[i].calls, 1);
        if (i % 2)
            assert_true(o[i].status == GAR_UV_DONE || o[i].status == GAR_UV_CANCELLED);
        else
            assert_int_equal(o[i].status, GAR_UV_CANCELLED);
    }
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(&loop), 0);
}

/* An adapter closed with nothing started, and one never run. */
static void close_idle_adapter(void **state)
{
    (void)state;
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    close_loop(&loop, uv);
}

/* ---- a deadline ------------------------------------------------------------ */

static void a_deadline_ends_a_wait_nothing_completes(void **state)
{
    (void)state;
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    gar_line line;
    gar_line_init(&line);
    outcome o[2];
    memset(o, 0, sizeof o);
    const char *plans[2] = { FLAG_PLAN, "poll" };
    const gar_mono_ns deadline = gar_posix_now() + 3 * MS;
    for (unsigned i = 0; i < 2; i++) {
        o[i].word = (gar_descriptor){ .line = &line, .slot = slot_of(i), .target = 1 };
        gar_plan plan = plan_of(plans[i]);
        assert_int_equal(gar_uv_start(uv, &o[i].word, NULL, &plan, deadline,
                                      record, &o[i], NULL, NULL),
                         0);
    }
    assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(o[i].calls, 1);
        assert_int_equal(o[i].status, GAR_UV_FAILED);
        assert_int_equal(o[i].code, -GAR_E_WAIT_DEADLINE);
        assert_false(o[i].reached_then);
        assert_true(o[i].at >= deadline); /* never before it */
    }
    close_loop(&loop, uv);
}

/* ---- refusals --------------------------------------------------------------- */

/* ---- auto ------------------------------------------------------------------ */

/* An auto plan through the adapter: the rule is told that the adapter runs
 * no block and no sleep, each wait runs the plan it chose, and the report
 * its callback gets is fed back. */
static void auto_chooses_what_the_adapter_runs_and_learns_from_its_callbacks(void **state)
{
    (void)state;
    enum { N = 5 };
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    gar_caps caps;
    assert_int_equal(gar_uv_caps(uv, &caps, NULL), 0);
    gar_auto_host host;
    gar_auto_host_default(caps.word_wait, &host);
    host.no_block = host.no_sleep = true;
    static gar_auto_policy policy;
    static gar_auto_point point;
    assert_int_equal(gar_auto_init(&policy, &host, NULL), 0);
    gar_auto_point_init(&point);
    gar_plan plan = plan_of("auto:p99_us=1000"); /* a budget block's default tail fits */

    gar_line line;
    gar_line_init(&line);
    gar_mono_ns start = gar_posix_now();
    gar_store stores[N];
    for (unsigned i = 0; i < N; i++)
        stores[i] = (gar_store){ .slot = slot_of(0), .value = i + 1, .at = start + (i + 1) * MS };
    gar_store_thread *device;
    assert_int_equal(gar_store_thread_start(&device, &line, stores, N, NULL), 0);
    for (unsigned i = 0; i < N; i++) {
        outcome o;
        memset(&o, 0, sizeof o);
        o.word = (gar_descriptor){ .line = &line, .slot = slot_of(0), .target = i + 1 };
        gar_auto_choice choice;
        assert_int_equal(gar_auto_decide(&policy, &point, plan.budget_ns, &choice, NULL), 0);
        assert_int_not_equal(choice.plan.park, GAR_PARK_BLOCK);
        assert_false(choice.has_sleep);
        gar_error err;
        assert_int_equal(gar_uv_start(uv, &o.word, NULL, &choice.plan, start + GIVE_UP_NS, record,
                                      &o, NULL, &err),
                         0);
        assert_int_equal(uv_run(&loop, UV_RUN_DEFAULT), 0);
        assert_int_equal(o.calls, 1);
        assert_int_equal(o.status, GAR_UV_DONE);
        assert_int_equal(gar_auto_learn(&policy, &point, &choice, &o.report, NULL), 0);
    }
    assert_int_equal(gar_store_thread_join(device, NULL, NULL, NULL), 0);
    gar_auto_counts counts = gar_auto_counts_of(&policy);
    assert_int_equal(counts.waits, N);
    assert_int_equal(counts.block, 0);
    assert_int_equal(counts.exact, N); /* every wait's residual was learnt */
    close_loop(&loop, uv);
}

static void refuses_what_it_cannot_run(void **state)
{
    (void)state;
    uv_loop_t loop;
    gar_uv *uv;
    open_loop(&loop, &uv);
    gar_line line;
    gar_line_init(&line);
    gar_descriptor word = { .line = &line, .slot = slot_of(0), .target = 1 };
    gar_plan block = plan_of("block"), poll = plan_of("poll");
    outcome o = { .word = word };
    gar_error err;
    assert_int_equal(gar_uv_start(uv, &word, NULL, &block, GAR_MONO_NEVER, record, &o, NULL, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_uv_start(uv, &word, NULL, &poll, GAR_MONO_NEVER, NULL, &o, NULL, &err),
                     -GAR_E_INVALID_ARGUMENT);
    gar_descriptor no_line = word;
    no_line.line = NULL;
    assert_int_equal(gar_uv_start(uv, &no_line, NULL, &poll, GAR_MONO_NEVER, record, &o, NULL,
                                  &err),
                     -GAR_E_INVALID_ARGUMENT);
    static const gar_port_ops query_only = {
        .version = GAR_PORT_OPS_VERSION,
        .query = status_query,
    };
    status_port sp = { .word = word };
    gar_port p = { .ops = &query_only, .ctx = &sp };
    assert_int_equal(gar_uv_start(uv, &word, &p, &poll, GAR_MONO_NEVER, record, &o, NULL, &err),
                     -GAR_E_INVALID_ARGUMENT); /* poll needs the port's poll */
    assert_int_equal(gar_uv_init(NULL, &loop, &err), -GAR_E_INVALID_ARGUMENT);
    gar_caps caps;
    assert_int_equal(gar_uv_caps(NULL, &caps, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_uv_caps(uv, &caps, &err), 0);
    assert_false(caps.io_uring);
    if (!caps.word_wait)
        assert_non_null(caps.word_wait_why);
    assert_int_equal(gar_uv_cancel(NULL, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(o.calls, 0);
    close_loop(&loop, uv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_lines_flag_plan),
        cmocka_unit_test(many_lines_poll_plan),
        cmocka_unit_test(the_port_status_ends_a_wait_not_the_word),
        cmocka_unit_test(cancelled_mid_wait_reports_cancelled_once),
        cmocka_unit_test(close_with_waits_pending_cancels_them_and_leaks_nothing),
        cmocka_unit_test(close_right_after_starts_calls_every_callback_once),
        cmocka_unit_test(close_idle_adapter),
        cmocka_unit_test(a_deadline_ends_a_wait_nothing_completes),
        cmocka_unit_test(refuses_what_it_cannot_run),
        cmocka_unit_test(auto_chooses_what_the_adapter_runs_and_learns_from_its_callbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
