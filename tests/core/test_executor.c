/* tests/core/test_executor.c — gar's executor on a virtual clock with a
 * scripted Idle port: the fill example (docs/glossary.md, "FILL"), yield fairness,
 * re-entrant tasks, errors, Stalled, PendedInline and the statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/executor.h>

#include "idle_script.h"

#define US GAR_NS_PER_US
#define MS GAR_NS_PER_MS

typedef struct fixture {
    idle_script script;
    gar_executor ex;
    gar_line line;
    char log[128]; /* one letter per poll, in poll order */
    size_t nlog;
} fixture;

static fixture *the; /* the running test's fixture, for tasks */

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    gar_line_init(&f.line);
    assert_int_equal(gar_executor_init(&f.ex, script_clock(&f.script), script_idle(&f.script), NULL), 0);
    the = &f;
    *state = &f;
    return 0;
}

static void note(char c)
{
    assert_true(the->nlog + 1 < sizeof the->log);
    the->log[the->nlog++] = c;
    the->log[the->nlog] = '\0';
}

static gar_descriptor slot_of(gar_line *line, unsigned slot, uint64_t target)
{
    return (gar_descriptor){ line, { (uint8_t)slot }, target };
}

/* ---- A task that awaits one descriptor and records how it ended. ---- */

typedef struct waiter {
    gar_task task;
    gar_descriptor d;
    gar_mono_ns deadline;
    char letter;
    gar_wake ended_by;
    gar_mono_ns done_at;
} waiter;

static int waiter_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    waiter *w = (waiter *)(void *)task;
    note(w->letter);
    if (gar_task_woken_by(task) == GAR_WAKE_SPAWNED) {
        int rc = gar_task_await(task, &w->d, w->deadline, err);
        return rc < 0 ? rc : GAR_TASK_PENDING;
    }
    w->ended_by = gar_task_woken_by(task);
    w->done_at = gar_executor_now(ex);
    return GAR_TASK_DONE;
}

static void waiter_init(waiter *w, char letter, gar_descriptor d, gar_mono_ns deadline)
{
    memset(w, 0, sizeof *w);
    w->letter = letter;
    w->d = d;
    w->deadline = deadline;
    gar_task_init(&w->task, "waiter", waiter_poll, NULL);
}

/* ---- A CPU task: `slices` slices of `cost` virtual ns, yielding between. ---- */

typedef struct cruncher {
    gar_task task;
    char letter;
    unsigned slices;
    gar_dur_ns cost;
    unsigned done;
    gar_mono_ns done_at;
} cruncher;

static int cruncher_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    cruncher *c = (cruncher *)(void *)task;
    assert_true(c->done == 0 ? gar_task_woken_by(task) == GAR_WAKE_SPAWNED
                             : gar_task_woken_by(task) == GAR_WAKE_YIELDED);
    note(c->letter);
    script_advance(&the->script, c->cost); /* the slice's work takes time */
    if (++c->done == c->slices) {
        c->done_at = gar_executor_now(ex);
        return GAR_TASK_DONE;
    }
    int rc = gar_task_yield_now(task, err);
    return rc < 0 ? rc : GAR_TASK_PENDING;
}

static void cruncher_init(cruncher *c, char letter, unsigned slices, gar_dur_ns cost)
{
    memset(c, 0, sizeof *c);
    c->letter = letter;
    c->slices = slices;
    c->cost = cost;
    gar_task_init(&c->task, "cruncher", cruncher_poll, NULL);
}

/* The fill example: a device stores into slots 0, 1, 2 at 2, 4 and
 * 6 ms; three tasks await a slot each; a fourth does CPU work in slices.
 * The work runs while the waits pend; the executor idles only when nothing
 * is ready; each wait ends at its store. */
static void fill_runs_cpu_work_between_waits(void **state)
{
    fixture *f = *state;
    waiter w[3];
    cruncher cpu;
    for (unsigned i = 0; i < 3; i++)
        waiter_init(&w[i], (char)('0' + i), slot_of(&f->line, i, 1), GAR_MONO_NEVER);
    cruncher_init(&cpu, 'c', 10, 300 * US); /* 3 ms of work */
    for (unsigned i = 0; i < 3; i++) {
        script_store_at(&f->script, (i + 1) * 2 * MS, &f->line, i, 1);
        assert_int_equal(gar_executor_spawn(&f->ex, &w[i].task, NULL), 0);
    }
    assert_int_equal(gar_executor_spawn(&f->ex, &cpu.task, NULL), 0);
    assert_int_equal(gar_executor_set_park_bound(&f->ex, 1 * MS, NULL), 0);

    assert_int_equal(gar_executor_run(&f->ex, NULL), 0);
    assert_int_equal(gar_executor_unfinished(&f->ex), 0);

    /* Slot 0 landed at 2 ms, during the 7th slice (1.8..2.1 ms): the fire
     * after that slice made its waiter ready, and it ran before the next slice. */
    assert_string_equal(f->log, "012ccccccc0ccc12");
    assert_int_equal(w[0].ended_by, GAR_WAKE_REACHED);
    assert_int_equal(w[0].done_at, 2100 * US);
    assert_int_equal(cpu.done_at, 3 * MS);
    assert_int_equal(w[1].done_at, 4 * MS);
    assert_int_equal(w[2].done_at, 6 * MS);

    /* No idling while the CPU task had slices left: the first Idle call is
     * at 3 ms, a park on the line to the 1 ms bound, which slot 1's store
     * at 4 ms meets; the second runs out its bound at 5 ms; slot 2's store
     * ends the third at 6 ms. */
    assert_int_equal(f->script.ncalls, 3);
    for (size_t i = 0; i < f->script.ncalls; i++) {
        assert_int_equal(f->script.calls[i].kind, 'p');
        assert_ptr_equal(f->script.calls[i].line, &f->line);
    }
    assert_int_equal(f->script.calls[0].at, 3 * MS);
    assert_int_equal(f->script.calls[0].until, 4 * MS);
    assert_int_equal(f->script.calls[0].rc, 1);
    assert_int_equal(f->script.calls[1].at, 4 * MS);
    assert_int_equal(f->script.calls[1].until, 5 * MS);
    assert_int_equal(f->script.calls[1].rc, 0);
    assert_int_equal(f->script.calls[2].at, 5 * MS);
    assert_int_equal(f->script.calls[2].until, 6 * MS);
    assert_int_equal(f->script.calls[2].rc, 1);

    gar_executor_stats st = gar_executor_stats_get(&f->ex);
    assert_int_equal(st.polls, 16);
    assert_int_equal(st.parked, 3);
    assert_int_equal(st.slept, 0);
    assert_int_equal(st.woke, 2); /* w[1] and w[2] were found by a turn, w[0] by a fire */
    assert_int_equal(st.idle_ns, 3 * MS);
}

static void yield_now_interleaves_ready_tasks(void **state)
{
    fixture *f = *state;
    cruncher a, b, c;
    cruncher_init(&a, 'a', 3, US);
    cruncher_init(&b, 'b', 2, US);
    cruncher_init(&c, 'c', 4, US);
    assert_int_equal(gar_executor_spawn(&f->ex, &a.task, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &b.task, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &c.task, NULL), 0);
    assert_int_equal(gar_executor_run(&f->ex, NULL), 0);
    assert_string_equal(f->log, "abcabcacc");
    assert_int_equal(f->script.ncalls, 0); /* never idle with work ready */
    assert_int_equal(gar_executor_stats_get(&f->ex).polls, 9);
}

static void a_yield_queues_behind_a_completion_that_just_landed(void **state)
{
    fixture *f = *state;
    waiter w;
    cruncher cpu;
    waiter_init(&w, 'w', slot_of(&f->line, 5, 1), GAR_MONO_NEVER);
    cruncher_init(&cpu, 'c', 3, 10 * US);
    script_store_at(&f->script, 5 * US, &f->line, 5, 1); /* lands during the first slice */
    assert_int_equal(gar_executor_spawn(&f->ex, &w.task, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &cpu.task, NULL), 0);
    assert_int_equal(gar_executor_run(&f->ex, NULL), 0);
    assert_string_equal(f->log, "wcwcc");
    assert_int_equal(w.done_at, 10 * US);
}

static void deadlines_and_alarms_say_why_a_task_woke(void **state)
{
    fixture *f = *state;
    waiter late;
    waiter_init(&late, 'l', slot_of(&f->line, 0, 1), 250 * US);
    assert_int_equal(gar_executor_spawn(&f->ex, &late.task, NULL), 0);
    assert_int_equal(gar_executor_run(&f->ex, NULL), 0);
    assert_int_equal(late.ended_by, GAR_WAKE_DEADLINE);
    assert_int_equal(late.done_at, 250 * US);
    /* Parks of 100, 100, then 50 µs: never past the deadline. */
    assert_int_equal(f->script.ncalls, 3);
    assert_int_equal(f->script.calls[2].until, 250 * US);
    gar_executor_stats st = gar_executor_stats_get(&f->ex);
    assert_int_equal(st.parked, 3);
    assert_int_equal(st.woke, 1);
    assert_int_equal(st.idle_ns, 250 * US);
}

/* ---- A sleeper: one alarm, then done. ---- */

typedef struct sleeper {
    gar_task task;
    gar_mono_ns at;
    gar_wake ended_by;
} sleeper;

static int sleeper_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)ex;
    sleeper *s = (sleeper *)(void *)task;
    if (gar_task_woken_by(task) == GAR_WAKE_SPAWNED) {
        int rc = gar_task_sleep_until(task, s->at, err);
        return rc < 0 ? rc : GAR_TASK_PENDING;
    }
    s->ended_by = gar_task_woken_by(task);
    return GAR_TASK_DONE;
}

static void alarms_alone_sleep_and_count_idle_time(void **state)
{
    fixture *f = *state;
    sleeper s1 = { .at = 700 * US }, s2 = { .at = 300 * US };
    gar_task_init(&s1.task, "s1", sleeper_poll, NULL);
    gar_task_init(&s2.task, "s2", sleeper_poll, NULL);
    f->script.now = 100 * US;
    assert_int_equal(gar_executor_spawn(&f->ex, &s1.task, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &s2.task, NULL), 0);
    assert_int_equal(gar_executor_run(&f->ex, NULL), 0);
    assert_int_equal(s1.ended_by, GAR_WAKE_ALARM);
    assert_int_equal(s2.ended_by, GAR_WAKE_ALARM);
    assert_int_equal(f->script.ncalls, 2);
    assert_int_equal(f->script.calls[0].kind, 's');
    assert_int_equal(f->script.calls[0].until, 300 * US);
    assert_int_equal(f->script.calls[1].until, 700 * US);
    gar_executor_stats st = gar_executor_stats_get(&f->ex);
    assert_int_equal(st.polls, 4);
    assert_int_equal(st.slept, 2);
    assert_int_equal(st.woke, 2);
    assert_int_equal(st.parked, 0);
    assert_int_equal(st.idle_ns, 600 * US);
}

/* ---- Re-entrancy: a task that spawns, cancels and re-registers. ---- */

typedef struct juggler {
    gar_task task;
    waiter child;     /* spawned from the first poll */
    waiter *victim;   /* another task whose wait it cancels */
    unsigned polls;
} juggler;

static int juggler_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    juggler *j = (juggler *)(void *)task;
    int rc = 0;
    note('j');
    switch (j->polls++) {
    case 0: /* spawn a child, await slot 6, then change its mind: re-await slot 7 */
        rc = gar_executor_spawn(ex, &j->child.task, err);
        if (rc == 0) {
            gar_descriptor six = slot_of(&the->line, 6, 1);
            gar_descriptor seven = slot_of(&the->line, 7, 1);
            rc = gar_task_await(task, &six, GAR_MONO_NEVER, err);
            if (rc == 0)
                rc = gar_task_await(task, &seven, GAR_MONO_NEVER, err);
        }
        break;
    case 1: /* woken by slot 7: cancel the victim's wait and its own alarm */
        assert_int_equal(gar_task_woken_by(task), GAR_WAKE_REACHED);
        assert_true(gar_task_cancel(&j->victim->task));
        rc = gar_task_sleep_until(task, gar_executor_now(ex) + 10 * US, err);
        if (rc == 0) {
            assert_true(gar_task_cancel(task));
            rc = gar_task_yield_now(task, err);
        }
        break;
    default:
        assert_int_equal(gar_task_woken_by(task), GAR_WAKE_YIELDED);
        return GAR_TASK_DONE;
    }
    return rc < 0 ? rc : GAR_TASK_PENDING;
}

static void tasks_spawn_cancel_and_re_register_from_their_polls(void **state)
{
    fixture *f = *state;
    juggler j;
    waiter victim;
    memset(&j, 0, sizeof j);
    gar_task_init(&j.task, "juggler", juggler_poll, NULL);
    waiter_init(&j.child, 'k', slot_of(&f->line, 6, 1), GAR_MONO_NEVER);
    waiter_init(&victim, 'v', slot_of(&f->line, 4, 1), GAR_MONO_NEVER);
    j.victim = &victim;
    script_store_at(&f->script, 50 * US, &f->line, 7, 1);
    script_store_at(&f->script, 80 * US, &f->line, 6, 1);
    script_store_at(&f->script, 90 * US, &f->line, 4, 1); /* too late: the wait was cancelled */
    assert_int_equal(gar_executor_spawn(&f->ex, &victim.task, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &j.task, NULL), 0);

    gar_error err;
    int rc = gar_executor_run(&f->ex, &err);
    /* The juggler's first await (slot 6) was replaced, so it woke at slot 7's
     * store only; its child woke at slot 6; the victim, its wait cancelled,
     * is left with nothing to wait on. */
    assert_int_equal(rc, -GAR_E_STALLED);
    assert_string_equal(err.argv[0], "1");
    assert_string_equal(f->log, "vjkjjk");
    assert_int_equal(j.child.done_at, 80 * US);
    assert_int_equal(j.child.ended_by, GAR_WAKE_REACHED);
    assert_true(gar_task_unfinished(&victim.task));
    assert_false(gar_task_unfinished(&j.task));
    gar_executor_forget(&f->ex);
    assert_false(gar_task_unfinished(&victim.task));
    assert_int_equal(gar_executor_unfinished(&f->ex), 0);
}

/* ---- Errors and refusals ---- */

static int idle_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)task;
    (void)ex;
    (void)err;
    return GAR_TASK_PENDING; /* sets no wake source */
}

static void pending_with_nothing_to_wait_on_is_stalled_with_the_count(void **state)
{
    fixture *f = *state;
    gar_task a, b;
    gar_task_init(&a, "a", idle_poll, NULL);
    gar_task_init(&b, "b", idle_poll, NULL);
    assert_int_equal(gar_executor_spawn(&f->ex, &a, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &b, NULL), 0);
    gar_error err;
    assert_int_equal(gar_executor_run(&f->ex, &err), -GAR_E_STALLED);
    assert_int_equal(err.code, GAR_E_STALLED);
    assert_string_equal(err.argv[0], "2");
    char text[128];
    gar_error_message(&err, text, sizeof text);
    assert_string_equal(text, "2 task(s) left unfinished with nothing to wait on");
    assert_int_equal(f->script.ncalls, 0);
    assert_int_equal(gar_executor_stats_get(&f->ex).polls, 2);
}

static int failing_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)task;
    (void)ex;
    note('f');
    return gar_error_set(err, GAR_E_DEVICE_FAULT, 1, "stream 2 faulted");
}

static void a_task_error_ends_the_run_and_the_rest_carry_on(void **state)
{
    fixture *f = *state;
    gar_task bad;
    cruncher cpu;
    gar_task_init(&bad, "bad", failing_poll, NULL);
    cruncher_init(&cpu, 'c', 3, US);
    assert_int_equal(gar_executor_spawn(&f->ex, &cpu.task, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &bad, NULL), 0);
    gar_error err;
    assert_int_equal(gar_executor_run(&f->ex, &err), -GAR_E_DEVICE_FAULT);
    assert_string_equal(err.argv[0], "stream 2 faulted");
    assert_string_equal(f->log, "cf");
    assert_false(gar_task_unfinished(&bad)); /* the failed task is finished */
    assert_int_equal(gar_executor_unfinished(&f->ex), 1);
    assert_int_equal(gar_executor_run(&f->ex, &err), 0); /* the rest carry on */
    assert_string_equal(f->log, "cfcc");
}

static int bad_answer_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)task;
    (void)ex;
    (void)err;
    return 2;
}

static int rerun_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)task;
    return gar_executor_run(ex, err);
}

static void misuse_is_refused(void **state)
{
    fixture *f = *state;
    gar_error err;
    gar_task t, odd, rerun, nopoll;
    gar_task_init(&t, "t", idle_poll, NULL);
    gar_task_init(&odd, "odd", bad_answer_poll, NULL);
    gar_task_init(&rerun, "rerun", rerun_poll, NULL);
    gar_task_init(&nopoll, NULL, NULL, NULL);
    assert_string_equal(nopoll.name, "task");
    assert_int_equal(gar_executor_spawn(&f->ex, &nopoll, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_executor_spawn(&f->ex, &t, NULL), 0);
    assert_int_equal(gar_executor_spawn(&f->ex, &t, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[2], "is already spawned and unfinished");
    /* Wake sources only from the task's own poll. */
    assert_int_equal(gar_task_yield_now(&t, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_task_sleep_until(&t, 5, &err), -GAR_E_INVALID_ARGUMENT);
    gar_descriptor d = slot_of(&f->line, 0, 1);
    assert_int_equal(gar_task_await(&t, &d, GAR_MONO_NEVER, &err), -GAR_E_INVALID_ARGUMENT);
    gar_executor_forget(&f->ex);

    assert_int_equal(gar_executor_spawn(&f->ex, &odd, NULL), 0);
    assert_int_equal(gar_executor_run(&f->ex, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[0], "odd");
    assert_int_equal(gar_executor_spawn(&f->ex, &rerun, NULL), 0);
    assert_int_equal(gar_executor_run(&f->ex, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[0], "gar_executor_run");

    gar_executor ex2;
    gar_idle no_idle = { NULL, NULL };
    assert_int_equal(gar_executor_init(&ex2, script_clock(&f->script), no_idle, &err),
                     -GAR_E_INVALID_ARGUMENT);
    /* An Idle table of a version this libgar does not know (a later one's). */
    gar_idle_ops later = script_idle_ops;
    later.version = GAR_IDLE_OPS_VERSION + 1;
    assert_int_equal(gar_executor_init(&ex2, script_clock(&f->script),
                                       (gar_idle){ &later, &f->script }, &err),
                     -GAR_E_OPS_VERSION);
    assert_string_equal(err.argv[0], "gar_executor_init");
    assert_string_equal(err.argv[1], "gar_idle_ops");
    assert_int_equal(gar_executor_set_park_bound(&f->ex, 0, &err), -GAR_E_INVALID_ARGUMENT);
}

/* ---- block_on and run_inline ---- */

static void block_on_runs_one_task_to_completion(void **state)
{
    fixture *f = *state;
    waiter w;
    waiter_init(&w, 'w', slot_of(&f->line, 2, 1), GAR_MONO_NEVER);
    script_store_at(&f->script, 30 * US, &f->line, 2, 1);
    gar_executor_stats st;
    assert_int_equal(gar_block_on(&w.task, script_clock(&f->script), script_idle(&f->script), &st, NULL), 0);
    assert_int_equal(w.ended_by, GAR_WAKE_REACHED);
    assert_int_equal(w.done_at, 30 * US);
    assert_int_equal(st.polls, 2);
    assert_int_equal(st.parked, 1);
    assert_int_equal(st.idle_ns, 30 * US);
    assert_false(gar_task_unfinished(&w.task));

    /* A failure forgets the task, so nothing refers to block_on's executor. */
    gar_task stuck;
    gar_task_init(&stuck, "stuck", idle_poll, NULL);
    gar_error err;
    assert_int_equal(gar_block_on(&stuck, script_clock(&f->script), script_idle(&f->script), NULL, &err),
                     -GAR_E_STALLED);
    assert_string_equal(err.argv[0], "1");
    assert_false(gar_task_unfinished(&stuck));
}

static int done_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    (void)task;
    (void)ex;
    (void)err;
    note('d');
    return GAR_TASK_DONE;
}

static int spawning_poll(gar_task *task, gar_executor *ex, gar_error *err)
{
    return gar_executor_spawn(ex, (gar_task *)task->data, err);
}

static void run_inline_polls_once_and_reports_pending_as_a_host_bug(void **state)
{
    fixture *f = *state;
    gar_task done;
    gar_task_init(&done, "done", done_poll, NULL);
    assert_int_equal(gar_run_inline(&done, script_clock(&f->script), NULL), 0);
    assert_string_equal(f->log, "d");

    waiter w;
    waiter_init(&w, 'w', slot_of(&f->line, 0, 0), GAR_MONO_NEVER); /* reached, yet it pends once */
    w.task.name = "cuda query";
    gar_error err;
    assert_int_equal(gar_run_inline(&w.task, script_clock(&f->script), &err), -GAR_E_PENDED_INLINE);
    assert_int_equal(err.code, GAR_E_PENDED_INLINE);
    assert_string_equal(err.argv[0], "cuda query");
    assert_false(gar_task_unfinished(&w.task)); /* no hang, nothing left behind */
    assert_int_equal(f->script.ncalls, 0);

    gar_task spawner, child;
    gar_task_init(&child, "child", done_poll, NULL);
    gar_task_init(&spawner, "spawner", spawning_poll, &child);
    assert_int_equal(gar_run_inline(&spawner, script_clock(&f->script), &err), -GAR_E_INVALID_ARGUMENT);
    assert_false(gar_task_unfinished(&child));

    gar_task bad;
    gar_task_init(&bad, "bad", failing_poll, NULL);
    assert_int_equal(gar_run_inline(&bad, script_clock(&f->script), &err), -GAR_E_DEVICE_FAULT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(fill_runs_cpu_work_between_waits, setup),
        cmocka_unit_test_setup(yield_now_interleaves_ready_tasks, setup),
        cmocka_unit_test_setup(a_yield_queues_behind_a_completion_that_just_landed, setup),
        cmocka_unit_test_setup(deadlines_and_alarms_say_why_a_task_woke, setup),
        cmocka_unit_test_setup(alarms_alone_sleep_and_count_idle_time, setup),
        cmocka_unit_test_setup(tasks_spawn_cancel_and_re_register_from_their_polls, setup),
        cmocka_unit_test_setup(pending_with_nothing_to_wait_on_is_stalled_with_the_count, setup),
        cmocka_unit_test_setup(a_task_error_ends_the_run_and_the_rest_carry_on, setup),
        cmocka_unit_test_setup(misuse_is_refused, setup),
        cmocka_unit_test_setup(block_on_runs_one_task_to_completion, setup),
        cmocka_unit_test_setup(run_inline_polls_once_and_reports_pending_as_a_host_bug, setup),
    };
    return cmocka_run_group_tests_name("executor", tests, NULL, NULL);
}
