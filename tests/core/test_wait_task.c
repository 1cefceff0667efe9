/* tests/core/test_wait_task.c — the reactor driver: each measured plan as
 * an executor task beside a CPU task, on a virtual clock with a scripted
 * Idle port and a scripted device behind a fake completion port.
 *
 * The device's work completes at 2 ms; with "flag", the stream's store lands
 * then too.  Status queries cost no time; a poll step costs 50 µs (a poll
 * period); each CPU slice costs 300 µs and yields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/executor.h>
#include <gar/plan.h>
#include <gar/wait_task.h>

#include "idle_script.h"

#define US GAR_NS_PER_US
#define MS GAR_NS_PER_MS

typedef struct fixture {
    idle_script script;
    gar_executor ex;
    gar_line line;
    char log[160]; /* port ops and CPU slices, in the order they ran */
    size_t nlog;
    /* The device. */
    gar_mono_ns done_at;
    uint64_t seq;
    int fail_query; /* when nonzero, queries fail with this code */
} fixture;

static fixture *the;

static void note(char c)
{
    assert_true(the->nlog + 1 < sizeof the->log);
    the->log[the->nlog++] = c;
    the->log[the->nlog] = '\0';
}

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    gar_line_init(&f.line);
    f.done_at = 2 * MS;
    assert_int_equal(gar_executor_init(&f.ex, script_clock(&f.script), script_idle(&f.script), NULL), 0);
    the = &f;
    *state = &f;
    return 0;
}

/* ---- The fake completion port over the scripted device. ---- */

static int port_query(void *ctx, gar_error *err)
{
    fixture *f = ctx;
    note('q');
    if (f->fail_query != 0)
        return gar_error_set(err, (gar_code)f->fail_query, 1, "stream 0 faulted");
    return f->script.now >= f->done_at ? 1 : 0;
}

static int port_poll(void *ctx, gar_error *err)
{
    (void)err;
    fixture *f = ctx;
    note('p');
    script_advance(&f->script, 50 * US);
    return f->script.now >= f->done_at ? 1 : 0;
}

static int port_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    (void)err;
    fixture *f = ctx;
    note('a');
    f->seq++;
    *word = (gar_descriptor){ &f->line, { 0 }, f->seq };
    script_store_at(&f->script, f->done_at, &f->line, 0, f->seq);
    return 0;
}

static int port_block(void *ctx, gar_error *err)
{
    (void)err;
    fixture *f = ctx;
    note('b');
    script_advance_to(&f->script, f->done_at);
    return 0;
}

static int port_park(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err)
{
    (void)ctx;
    (void)word;
    (void)until;
    fail_msg("the reactor driver parks through the reactor, never the port");
    return gar_error_set(err, GAR_E_USAGE, 2, "port", "park");
}

static const gar_port_ops port_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = port_query,
    .block = port_block,
    .poll = port_poll,
    .arm = port_arm,
    .park = port_park,
};

/* ---- A CPU task: slices of 300 µs, yielding between. ---- */

typedef struct cruncher {
    gar_task task;
    unsigned slices, done;
    gar_mono_ns done_at;
} cruncher;

static int cruncher_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    cruncher *c = (cruncher *)(void *)task;
    note('c');
    script_advance(&the->script, 300 * US);
    if (++c->done == c->slices) {
        c->done_at = gar_executor_now(ex);
        return GAR_TASK_DONE;
    }
    int rc = gar_task_yield_now(task, err);
    return rc < 0 ? rc : GAR_TASK_PENDING;
}

/* ---- The measured plans, parsed from their text. ---- */

#define PREDICT "+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8"
#define FLAG "flag:park_us=100,backstop_us=1000"

static gar_plan plan_of(const char *text)
{
    gar_plan plan;
    assert_int_equal(gar_plan_parse(text, &plan, NULL), 0);
    return plan;
}

/* Runs one wait under `plan` (sleeping `sleep_ns` first when nonzero) beside
 * a CPU task of `slices` slices; returns the run's result. */
static int run_wait(fixture *f, gar_plan plan, gar_dur_ns sleep_ns, unsigned slices,
                    gar_wait_task *wt, cruncher *cpu, gar_error *err)
{
    gar_port port = { &port_ops, f };
    assert_int_equal(gar_wait_task_init(wt, "wait", &plan, sleep_ns > 0, sleep_ns, GAR_MONO_NEVER,
                                        port, NULL), 0);
    memset(cpu, 0, sizeof *cpu);
    cpu->slices = slices;
    gar_task_init(&cpu->task, "cpu", cruncher_poll, NULL);
    assert_int_equal(gar_executor_spawn(&f->ex, &wt->task, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &cpu->task, NULL), 0);
    return gar_executor_run(&f->ex, err);
}

/* "poll": each pending poll step yields, so the CPU slices interleave with
 * the poll loop and the executor never idles. */
static void poll_interleaves_its_steps_with_cpu_work(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    cruncher cpu;
    assert_int_equal(run_wait(f, plan_of("poll"), 0, 10, &wt, &cpu, NULL), 0);
    assert_string_equal(f->log, "qpcpcpcpcpcpcpcccc");
    assert_true(gar_wait_task_finished(&wt));
    assert_int_equal(gar_wait_task_code(&wt), 0);
    gar_wait_report r = gar_wait_task_report(&wt);
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.sample.kind, GAR_SAMPLE_EXACT);
    assert_int_equal(r.sample.ns, 2150 * US); /* the poll step ending at 2.15 ms saw it */
    assert_int_equal(r.polls, 7);
    assert_int_equal(r.queries, 1);
    assert_int_equal(cpu.done_at, 3350 * US);
    assert_int_equal(f->script.ncalls, 0);
    gar_executor_stats st = gar_executor_stats_get(&f->ex);
    assert_int_equal(st.polls, 7 + 10); /* the first poll queries and polls once */
    assert_int_equal(st.idle_ns, 0);
}

/* "poll+predict": the predicted sleep is an alarm; CPU work fills it; once
 * the CPU task is gone the executor sleeps to the alarm, then polls alone. */
static void poll_with_predict_sleeps_as_an_alarm(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    cruncher cpu;
    assert_int_equal(run_wait(f, plan_of("poll" PREDICT), 1500 * US, 4, &wt, &cpu, NULL), 0);
    assert_string_equal(f->log, "qccccqpppppppppp");
    assert_int_equal(f->script.ncalls, 1);
    assert_int_equal(f->script.calls[0].kind, 's');
    assert_int_equal(f->script.calls[0].at, 1200 * US);
    assert_int_equal(f->script.calls[0].until, 1500 * US);
    gar_wait_report r = gar_wait_task_report(&wt);
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.sample.ns, 2 * MS);
    assert_int_equal(r.slept_ns, 1500 * US);
    assert_int_equal(r.sleeps, 1);
    assert_int_equal(r.queries, 2);
    assert_int_equal(r.polls, 10);
    gar_executor_stats st = gar_executor_stats_get(&f->ex);
    assert_int_equal(st.slept, 1);
    assert_int_equal(st.woke, 1);
    assert_int_equal(st.parked, 0);
    assert_int_equal(st.idle_ns, 300 * US);
}

/* "flag:park_us=100,backstop_us=1000": each park is a registration on the
 * armed word with its bound as deadline.  While the CPU task runs, those
 * deadlines pass between slices; after it, the reactor parks on the line
 * (100 µs each) until the store at 2 ms, which a query confirms. */
static void flag_parks_are_registrations_on_the_word(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    cruncher cpu;
    assert_int_equal(run_wait(f, plan_of(FLAG), 0, 4, &wt, &cpu, NULL), 0);
    /* First query, arm; four slices; the backstop query at 1.2 ms (due at
     * 1.0 ms, seen after the slice); the confirming query at 2 ms. */
    assert_string_equal(f->log, "qaccccqq");
    gar_wait_report r = gar_wait_task_report(&wt);
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.sample.kind, GAR_SAMPLE_EXACT);
    assert_int_equal(r.sample.ns, 2 * MS);
    assert_int_equal(r.queries, 3);
    assert_int_equal(r.backstop_queries, 1);
    assert_int_equal(r.parks, 4 + 8); /* four spanned by slices, eight idled on the line */
    assert_int_equal(f->script.ncalls, 8);
    for (size_t i = 0; i < 8; i++) {
        assert_int_equal(f->script.calls[i].kind, 'p');
        assert_ptr_equal(f->script.calls[i].line, &f->line);
        assert_int_equal(f->script.calls[i].at, 1200 * US + i * 100 * US);
        assert_int_equal(f->script.calls[i].until, 1300 * US + i * 100 * US);
        assert_int_equal(f->script.calls[i].rc, i == 7 ? 1 : 0); /* the store ends the last */
    }
    gar_executor_stats st = gar_executor_stats_get(&f->ex);
    assert_int_equal(st.parked, 8);
    assert_int_equal(st.woke, 8);
    assert_int_equal(st.slept, 0);
    assert_int_equal(st.idle_ns, 800 * US);
}

/* flag with the same predict: the sleep is an alarm (slept through once the
 * CPU task is done), then the reactor parks on the word to the store. */
static void flag_with_predict_sleeps_then_parks(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    cruncher cpu;
    assert_int_equal(run_wait(f, plan_of(FLAG PREDICT), 1500 * US, 4, &wt, &cpu, NULL), 0);
    assert_string_equal(f->log, "qaccccqq");
    assert_int_equal(f->script.ncalls, 1 + 5);
    assert_int_equal(f->script.calls[0].kind, 's');
    assert_int_equal(f->script.calls[0].until, 1500 * US);
    for (size_t i = 1; i < 6; i++) {
        assert_int_equal(f->script.calls[i].kind, 'p');
        assert_int_equal(f->script.calls[i].until, 1500 * US + i * 100 * US);
    }
    gar_wait_report r = gar_wait_task_report(&wt);
    assert_int_equal(r.kind, GAR_WAIT_KIND_PARKED);
    assert_int_equal(r.sample.ns, 2 * MS);
    assert_int_equal(r.slept_ns, 1500 * US);
    assert_int_equal(r.parks, 5);
    assert_int_equal(r.backstop_queries, 0);
    gar_executor_stats st = gar_executor_stats_get(&f->ex);
    assert_int_equal(st.slept, 1);
    assert_int_equal(st.parked, 5);
    assert_int_equal(st.idle_ns, 800 * US);
}

/* A sleep past the completion: the wake query finds it done — Late. */
static void a_sleep_past_completion_is_late(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    cruncher cpu;
    assert_int_equal(run_wait(f, plan_of(FLAG PREDICT), 2500 * US, 2, &wt, &cpu, NULL), 0);
    assert_string_equal(f->log, "qaccq");
    gar_wait_report r = gar_wait_task_report(&wt);
    assert_int_equal(r.kind, GAR_WAIT_KIND_LATE);
    assert_int_equal(r.sample.kind, GAR_SAMPLE_LATE);
    assert_int_equal(r.sample.ns, 2500 * US);
    assert_int_equal(r.parks, 0);
}

/* "block" runs the port's blocking wait inline: it holds the thread, so the
 * CPU task's first slice starts only when the work is done. */
static void block_holds_the_thread(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    cruncher cpu;
    assert_int_equal(run_wait(f, plan_of("block"), 0, 2, &wt, &cpu, NULL), 0);
    assert_string_equal(f->log, "bcc");
    assert_int_equal(cpu.done_at, 2600 * US);
    gar_wait_report r = gar_wait_task_report(&wt);
    assert_int_equal(r.kind, GAR_WAIT_KIND_BLOCKED);
    assert_int_equal(r.sample.kind, GAR_SAMPLE_NONE);
    assert_int_equal(f->script.ncalls, 0);
}

/* A port error ends the wait, and the run, with that error unchanged. */
static void a_port_error_ends_the_run_unchanged(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    cruncher cpu;
    gar_error err;
    f->fail_query = GAR_E_DEVICE_FAULT;
    assert_int_equal(run_wait(f, plan_of(FLAG), 0, 3, &wt, &cpu, &err),
                     -GAR_E_DEVICE_FAULT);
    assert_string_equal(err.argv[0], "stream 0 faulted");
    assert_true(gar_wait_task_finished(&wt));
    assert_int_equal(gar_wait_task_code(&wt), -GAR_E_DEVICE_FAULT);
    assert_string_equal(f->log, "q");
    assert_int_equal(gar_executor_run(&f->ex, NULL), 0); /* the CPU task carries on */
    assert_int_equal(cpu.done, 3);
}

/* A device that never completes: parks are trimmed to the wait's deadline
 * and the query there fails the wait, and the run, with WaitDeadline. */
static void a_hung_device_fails_at_the_deadline(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    gar_error err;
    gar_port port = { &port_ops, f };
    gar_plan flag = plan_of(FLAG);
    f->done_at = GAR_MONO_NEVER;
    assert_int_equal(gar_wait_task_init(&wt, "hung", &flag, false, 0, 250 * US, port, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &wt.task, NULL), 0);
    assert_int_equal(gar_executor_run(&f->ex, &err), -GAR_E_WAIT_DEADLINE);
    assert_int_equal(err.code, GAR_E_WAIT_DEADLINE);
    assert_int_equal(gar_wait_task_code(&wt), -GAR_E_WAIT_DEADLINE);
    assert_string_equal(f->log, "qaq");
    assert_int_equal(f->script.ncalls, 3);
    assert_int_equal(f->script.calls[2].until, 250 * US); /* never past the deadline */
    assert_int_equal(f->script.now, 250 * US);
    assert_int_equal(gar_wait_task_report(&wt).parks, 3);
}

/* A port lacking an op its plan needs, or of an unknown table version, is
 * refused before any run. */
static void ports_lacking_an_op_are_refused_at_init(void **state)
{
    fixture *f = *state;
    gar_wait_task wt;
    gar_error err;
    static const gar_port_ops query_only = { .version = GAR_PORT_OPS_VERSION, .query = port_query };
    gar_port port = { &query_only, f };
    gar_plan flag = plan_of(FLAG);
    gar_plan poll = plan_of("poll");
    gar_plan block = plan_of("block");
    assert_int_equal(gar_wait_task_init(&wt, NULL, &flag, false, 0, GAR_MONO_NEVER, port, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_wait_task_init(&wt, NULL, &poll, false, 0, GAR_MONO_NEVER, port, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_wait_task_init(&wt, NULL, &block, false, 0, GAR_MONO_NEVER, port, &err),
                     -GAR_E_INVALID_ARGUMENT);
    gar_port none = { NULL, NULL };
    assert_int_equal(gar_wait_task_init(&wt, NULL, &poll, false, 0, GAR_MONO_NEVER, none, &err),
                     -GAR_E_INVALID_ARGUMENT);
    /* A table of a version this libgar does not know, with every op. */
    gar_port_ops unknown = port_ops;
    unknown.version = GAR_PORT_OPS_VERSION + 1;
    gar_port later = { &unknown, f };
    assert_int_equal(gar_wait_task_init(&wt, NULL, &poll, false, 0, GAR_MONO_NEVER, later, &err),
                     -GAR_E_OPS_VERSION);
    assert_string_equal(err.argv[0], "gar_wait_task_init");
    assert_string_equal(err.argv[1], "gar_port_ops");
    /* What the machine refuses is refused here, before any run. */
    gar_plan block_predict = plan_of("block"); /* the parser refuses block+predict */
    block_predict.predict = true;
    block_predict.deadline = plan_of("poll" PREDICT).deadline;
    gar_port full = { &port_ops, f };
    assert_int_equal(gar_wait_task_init(&wt, NULL, &block_predict, true, 100 * US, GAR_MONO_NEVER,
                                        full, &err), -GAR_E_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(poll_interleaves_its_steps_with_cpu_work, setup),
        cmocka_unit_test_setup(poll_with_predict_sleeps_as_an_alarm, setup),
        cmocka_unit_test_setup(flag_parks_are_registrations_on_the_word, setup),
        cmocka_unit_test_setup(flag_with_predict_sleeps_then_parks, setup),
        cmocka_unit_test_setup(a_sleep_past_completion_is_late, setup),
        cmocka_unit_test_setup(block_holds_the_thread, setup),
        cmocka_unit_test_setup(a_port_error_ends_the_run_unchanged, setup),
        cmocka_unit_test_setup(a_hung_device_fails_at_the_deadline, setup),
        cmocka_unit_test_setup(ports_lacking_an_op_are_refused_at_init, setup),
    };
    return cmocka_run_group_tests_name("wait_task", tests, NULL, NULL);
}
