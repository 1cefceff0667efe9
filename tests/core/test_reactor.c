/* tests/core/test_reactor.c — the reactor's turn phases on a virtual clock
 * with a scripted Idle port: what it sleeps to, what it parks on and how
 * long, what a store during a park wakes, and wakes that re-register. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <gar/reactor.h>

#include "idle_script.h"

#define US GAR_NS_PER_US

/* A registration that counts its wakes and keeps the last outcome. */
typedef struct probe {
    gar_registration reg;
    unsigned wakes;
    bool reached;
    gar_mono_ns woke_at;
    idle_script *script;
} probe;

static void probe_wake(gar_registration *reg, bool reached, void *ctx)
{
    probe *p = ctx;
    assert_ptr_equal(reg, &p->reg);
    assert_false(gar_registration_active(reg)); /* unlinked before the call */
    p->wakes++;
    p->reached = reached;
    p->woke_at = p->script != NULL ? p->script->now : 0;
}

static void probe_init(probe *p, idle_script *s)
{
    memset(p, 0, sizeof *p);
    p->script = s;
    gar_registration_init(&p->reg, probe_wake, p);
}

static gar_descriptor desc(gar_line *line, unsigned slot, uint64_t target)
{
    return (gar_descriptor){ line, { (uint8_t)slot }, target };
}

typedef struct fixture {
    idle_script script;
    gar_reactor reactor;
    gar_line a, b;
} fixture;

static int setup(void **state)
{
    static fixture f;
    memset(&f, 0, sizeof f);
    gar_reactor_init(&f.reactor);
    gar_line_init(&f.a);
    gar_line_init(&f.b);
    f.script.now = 1000 * US;
    *state = &f;
    return 0;
}

static int turn(fixture *f)
{
    return gar_reactor_turn(&f->reactor, script_clock(&f->script), script_idle(&f->script), 1,
                            NULL);
}

static void only_alarms_sleep_to_the_earliest(void **state)
{
    fixture *f = *state;
    probe p1, p2, p3;
    probe_init(&p1, &f->script);
    probe_init(&p2, &f->script);
    probe_init(&p3, &f->script);
    gar_mono_ns t0 = f->script.now;
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &p1.reg, t0 + 300 * US, NULL), 0);
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &p2.reg, t0 + 100 * US, NULL), 0);
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &p3.reg, t0 + 100 * US, NULL), 0);
    assert_int_equal(gar_reactor_pending(&f->reactor), 3);

    assert_int_equal(turn(f), GAR_TURN_SLEPT);
    assert_int_equal(f->script.ncalls, 1);
    assert_int_equal(f->script.calls[0].kind, 's');
    assert_int_equal(f->script.calls[0].until, t0 + 100 * US);

    assert_int_equal(turn(f), GAR_TURN_WOKE); /* both alarms at +100 */
    assert_int_equal(f->script.ncalls, 1);    /* waking does not idle */
    assert_int_equal(p2.wakes, 1);
    assert_int_equal(p3.wakes, 1);
    assert_false(p2.reached);
    assert_int_equal(p1.wakes, 0);

    assert_int_equal(turn(f), GAR_TURN_SLEPT);
    assert_int_equal(f->script.calls[1].until, t0 + 300 * US);
    assert_int_equal(turn(f), GAR_TURN_WOKE);
    assert_int_equal(p1.wakes, 1);
    assert_int_equal(gar_reactor_pending(&f->reactor), 0);

    gar_reactor_stats st = gar_reactor_stats_get(&f->reactor);
    assert_int_equal(st.slept, 2);
    assert_int_equal(st.woke, 2);
    assert_int_equal(st.parked, 0);
    assert_int_equal(st.idle_ns, 300 * US);
}

static void parks_on_the_earliest_registered_line_within_the_bound(void **state)
{
    fixture *f = *state;
    probe on_b, on_a, alarm;
    probe_init(&on_b, &f->script);
    probe_init(&on_a, &f->script);
    probe_init(&alarm, &f->script);
    gar_mono_ns t0 = f->script.now;
    gar_descriptor db = desc(&f->b, 3, 1);
    gar_descriptor da = desc(&f->a, 0, 1);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &on_b.reg, &db, GAR_MONO_NEVER, NULL), 0);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &on_a.reg, &da, GAR_MONO_NEVER, NULL), 0);
    /* An alarm far off does not make this an alarms-only turn. */
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &alarm.reg, t0 + 10 * GAR_NS_PER_MS, NULL), 0);

    assert_int_equal(turn(f), GAR_TURN_PARKED);
    assert_int_equal(f->script.calls[0].kind, 'p');
    assert_ptr_equal(f->script.calls[0].line, &f->b); /* registered first */
    assert_int_equal(f->script.calls[0].until, t0 + GAR_REACTOR_PARK_BOUND_DEFAULT_NS);
    assert_int_equal(f->script.calls[0].rc, 0);

    /* A new bound applies to the next park. */
    assert_int_equal(gar_reactor_set_park_bound(&f->reactor, 40 * US, NULL), 0);
    assert_int_equal(gar_reactor_park_bound(&f->reactor), 40 * US);
    assert_int_equal(turn(f), GAR_TURN_PARKED);
    assert_int_equal(f->script.calls[1].until, t0 + 140 * US);

    /* Cancelling the first registration moves the park to the next line. */
    assert_true(gar_reactor_cancel(&f->reactor, &on_b.reg));
    assert_false(gar_reactor_cancel(&f->reactor, &on_b.reg));
    assert_int_equal(turn(f), GAR_TURN_PARKED);
    assert_ptr_equal(f->script.calls[2].line, &f->a);
    assert_int_equal(on_b.wakes + on_a.wakes + alarm.wakes, 0);
    assert_int_equal(gar_reactor_stats_get(&f->reactor).parked, 3);
    assert_int_equal(gar_reactor_stats_get(&f->reactor).idle_ns, 180 * US);
}

static void never_parks_past_a_deadline_or_an_alarm(void **state)
{
    fixture *f = *state;
    probe waiter, alarm;
    probe_init(&waiter, &f->script);
    probe_init(&alarm, &f->script);
    gar_mono_ns t0 = f->script.now;
    gar_descriptor d = desc(&f->a, 1, 7);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &waiter.reg, &d, t0 + 130 * US, NULL), 0);
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &alarm.reg, t0 + 30 * US, NULL), 0);
    assert_int_equal(gar_reactor_next_time(&f->reactor), t0 + 30 * US);

    assert_int_equal(turn(f), GAR_TURN_PARKED); /* the alarm bounds it */
    assert_int_equal(f->script.calls[0].until, t0 + 30 * US);
    assert_int_equal(turn(f), GAR_TURN_WOKE);
    assert_int_equal(alarm.wakes, 1);
    assert_int_equal(turn(f), GAR_TURN_PARKED); /* the park bound (100 µs) */
    assert_int_equal(f->script.calls[1].until, t0 + 130 * US);
    assert_int_equal(turn(f), GAR_TURN_WOKE); /* the deadline passed */
    assert_int_equal(waiter.wakes, 1);
    assert_false(waiter.reached);
    assert_int_equal(waiter.woke_at, t0 + 130 * US);
    for (size_t i = 0; i < f->script.ncalls; i++)
        assert_true(f->script.calls[i].until <= t0 + 130 * US);
}

static void one_park_serves_every_descriptor_of_its_line(void **state)
{
    fixture *f = *state;
    probe w[3], other;
    for (unsigned i = 0; i < 3; i++)
        probe_init(&w[i], &f->script);
    probe_init(&other, &f->script);
    gar_mono_ns t0 = f->script.now;
    assert_int_equal(gar_reactor_set_park_bound(&f->reactor, GAR_MONO_NEVER, NULL), 0);
    for (unsigned i = 0; i < 3; i++) {
        gar_descriptor d = desc(&f->a, i, 1);
        assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &w[i].reg, &d, GAR_MONO_NEVER, NULL), 0);
    }
    gar_descriptor od = desc(&f->b, 1, 1);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &other.reg, &od, t0 + 5 * GAR_NS_PER_MS, NULL), 0);
    /* The device: slot 1 at 2 ms, slot 0 and the other line's slot 1 at 4 ms, slot 2 at 6 ms. */
    script_store_at(&f->script, t0 + 2 * GAR_NS_PER_MS, &f->a, 1, 1);
    script_store_at(&f->script, t0 + 4 * GAR_NS_PER_MS, &f->a, 0, 1);
    script_store_at(&f->script, t0 + 4 * GAR_NS_PER_MS, &f->b, 1, 1);
    script_store_at(&f->script, t0 + 6 * GAR_NS_PER_MS, &f->a, 2, 1);

    assert_int_equal(turn(f), GAR_TURN_PARKED);
    assert_int_equal(f->script.calls[0].rc, 1); /* the store ended it */
    assert_int_equal(f->script.calls[0].until, t0 + 5 * GAR_NS_PER_MS); /* the other's deadline */
    assert_int_equal(f->script.now, t0 + 2 * GAR_NS_PER_MS);
    assert_int_equal(turn(f), GAR_TURN_WOKE);
    assert_int_equal(w[1].wakes, 1); /* the right one, and only it */
    assert_true(w[1].reached);
    assert_int_equal(w[0].wakes + w[2].wakes + other.wakes, 0);

    assert_int_equal(turn(f), GAR_TURN_PARKED); /* still on line a (w[0] is first) */
    assert_ptr_equal(f->script.calls[1].line, &f->a);
    assert_int_equal(f->script.now, t0 + 4 * GAR_NS_PER_MS);
    assert_int_equal(turn(f), GAR_TURN_WOKE); /* both lines' stores at 4 ms */
    assert_int_equal(w[0].wakes, 1);
    assert_int_equal(other.wakes, 1);
    assert_true(other.reached); /* reached before its deadline */
    assert_int_equal(w[2].wakes, 0);

    assert_int_equal(turn(f), GAR_TURN_PARKED);
    assert_int_equal(turn(f), GAR_TURN_WOKE);
    assert_int_equal(w[2].wakes, 1);
    assert_int_equal(w[2].woke_at, t0 + 6 * GAR_NS_PER_MS);
    assert_int_equal(f->script.ncalls, 3); /* three parks served four waits */
}

static void a_descriptor_already_reached_wakes_without_idling(void **state)
{
    fixture *f = *state;
    probe p;
    probe_init(&p, &f->script);
    gar_descriptor d = desc(&f->a, 0, 0); /* a new line has reached 0 */
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &p.reg, &d, f->script.now, NULL), 0);
    assert_int_equal(gar_reactor_fire(&f->reactor, f->script.now), 1);
    assert_true(p.reached); /* reached wins over a deadline due at the same look */
    assert_int_equal(f->script.ncalls, 0);
}

/* A clock whose reading lands a store into the line, as if the device
 * stored right after the reactor took its snapshot. */
typedef struct storing_clock {
    idle_script *script;
    gar_line *line;
    unsigned slot;
    uint64_t value;
    bool stored;
} storing_clock;

static gar_mono_ns storing_clock_now(void *ctx)
{
    storing_clock *c = ctx;
    if (!c->stored) {
        gar_line_store(c->line, (gar_slot){ (uint8_t)c->slot }, c->value);
        c->stored = true;
    }
    return c->script->now;
}

/* The park's snapshot is taken before the look at what is due, so a store
 * that lands after it — here one that reaches no target — makes the park
 * return at once instead of being slept through to the bound. */
static void a_store_after_the_snapshot_is_never_slept_through(void **state)
{
    fixture *f = *state;
    probe p;
    probe_init(&p, &f->script);
    gar_descriptor d = desc(&f->a, 0, 1);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &p.reg, &d, GAR_MONO_NEVER, NULL), 0);
    storing_clock sc = { &f->script, &f->a, 5, 9, false };
    gar_clock clock = { storing_clock_now, &sc };
    gar_mono_ns t0 = f->script.now;
    assert_int_equal(gar_reactor_turn(&f->reactor, clock, script_idle(&f->script), 1, NULL),
                     GAR_TURN_PARKED);
    assert_true(sc.stored);
    assert_int_equal(f->script.calls[0].rc, 1); /* the line differed from the snapshot */
    assert_int_equal(f->script.now, t0);        /* at once */
    assert_int_equal(p.wakes, 0);               /* slot 5 is not what it waits for */
}

static void targets_wrap_around_the_u64_circle(void **state)
{
    fixture *f = *state;
    probe near_max, past_max;
    probe_init(&near_max, &f->script);
    probe_init(&past_max, &f->script);
    gar_slot s0 = { 0 }, s1 = { 1 };
    gar_line_store(&f->a, s0, UINT64_MAX - 1);
    gar_line_store(&f->a, s1, UINT64_MAX);
    gar_descriptor dmax = desc(&f->a, 0, UINT64_MAX); /* one store away */
    gar_descriptor d5 = desc(&f->a, 1, 5);            /* six stores away, across 0 */
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &near_max.reg, &dmax, GAR_MONO_NEVER, NULL), 0);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &past_max.reg, &d5, GAR_MONO_NEVER, NULL), 0);
    assert_int_equal(gar_reactor_fire(&f->reactor, f->script.now), 0);
    /* Slot 0 jumps past UINT64_MAX to 3 (an overwritten value still completes);
     * slot 1 wraps to 4, not yet 5. */
    script_store_at(&f->script, f->script.now + 10 * US, &f->a, 0, 3);
    script_store_at(&f->script, f->script.now + 20 * US, &f->a, 1, 4);
    assert_int_equal(turn(f), GAR_TURN_PARKED);
    assert_int_equal(turn(f), GAR_TURN_WOKE);
    assert_int_equal(near_max.wakes, 1);
    assert_int_equal(past_max.wakes, 0);
    assert_int_equal(turn(f), GAR_TURN_PARKED); /* the store of 4 ends it, not reaching 5 */
    assert_int_equal(turn(f), GAR_TURN_PARKED); /* on to the bound */
    assert_int_equal(past_max.wakes, 0);
    gar_line_store(&f->a, s1, 5);
    assert_int_equal(turn(f), GAR_TURN_WOKE);
    assert_int_equal(past_max.wakes, 1);
}

static void times_near_the_end_of_the_clock_saturate(void **state)
{
    fixture *f = *state;
    probe p;
    probe_init(&p, &f->script);
    f->script.now = UINT64_MAX - 50;
    gar_descriptor d = desc(&f->a, 0, 1);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &p.reg, &d, UINT64_MAX - 10, NULL), 0);
    assert_int_equal(turn(f), GAR_TURN_PARKED);
    assert_int_equal(f->script.calls[0].until, UINT64_MAX - 10); /* now + bound would wrap */
    assert_int_equal(turn(f), GAR_TURN_WOKE);
    assert_false(p.reached);
    /* With no deadline, the bound saturates at GAR_MONO_NEVER rather than wrap to the past. */
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &p.reg, &d, GAR_MONO_NEVER, NULL), 0);
    script_store_at(&f->script, UINT64_MAX - 5, &f->a, 0, 1);
    assert_int_equal(turn(f), GAR_TURN_PARKED);
    assert_int_equal(f->script.calls[1].until, UINT64_MAX);
    assert_int_equal(f->script.calls[1].rc, 1);
    assert_int_equal(turn(f), GAR_TURN_WOKE);
    assert_true(p.reached);
    assert_int_equal(p.woke_at, UINT64_MAX - 5);
}

static void nothing_registered_is_stalled_with_the_count(void **state)
{
    fixture *f = *state;
    gar_error err;
    int rc = gar_reactor_turn(&f->reactor, script_clock(&f->script), script_idle(&f->script), 3,
                              &err);
    assert_int_equal(rc, -GAR_E_STALLED);
    assert_int_equal(err.code, GAR_E_STALLED);
    assert_string_equal(err.argv[0], "3");
    assert_int_equal(f->script.ncalls, 0);
}

/* ---- Re-entrancy: wakes that cancel, re-register and add. ---- */

typedef struct juggler {
    probe self;
    gar_reactor *reactor;
    probe *victim;   /* due in the same fire: cancelled from the wake */
    probe *added;    /* registered from the wake */
    gar_line *line;
    unsigned rounds; /* re-registers itself this many times */
} juggler;

static void juggler_wake(gar_registration *reg, bool reached, void *ctx)
{
    juggler *j = ctx;
    probe_wake(reg, reached, &j->self);
    if (j->victim != NULL) {
        assert_true(gar_reactor_cancel(j->reactor, &j->victim->reg)); /* due, not yet woken */
        assert_false(gar_registration_active(&j->victim->reg));
        j->victim = NULL;
    }
    if (j->added != NULL) {
        gar_descriptor d = desc(j->line, 0, 0); /* reached already */
        assert_int_equal(gar_reactor_add_descriptor(j->reactor, &j->added->reg, &d, GAR_MONO_NEVER, NULL), 0);
        j->added = NULL;
    }
    if (j->rounds > 0) {
        j->rounds--;
        assert_int_equal(gar_reactor_add_alarm(j->reactor, reg, j->self.script->now, NULL), 0);
    }
}

static void wakes_may_cancel_re_register_and_add(void **state)
{
    fixture *f = *state;
    juggler j;
    probe victim, added;
    probe_init(&j.self, &f->script);
    gar_registration_init(&j.self.reg, juggler_wake, &j);
    probe_init(&victim, &f->script);
    probe_init(&added, &f->script);
    j.reactor = &f->reactor;
    j.victim = &victim;
    j.added = &added;
    j.line = &f->a;
    j.rounds = 2;
    gar_mono_ns now = f->script.now;
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &j.self.reg, now, NULL), 0);
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &victim.reg, now, NULL), 0);

    /* The victim was due in the same fire but cancelled before its wake; what
     * the wake registered (even due at once) waits for the next fire. */
    assert_int_equal(gar_reactor_fire(&f->reactor, now), 1);
    assert_int_equal(j.self.wakes, 1);
    assert_int_equal(victim.wakes, 0);
    assert_int_equal(added.wakes, 0);
    assert_int_equal(gar_reactor_pending(&f->reactor), 2);

    assert_int_equal(gar_reactor_fire(&f->reactor, now), 2); /* added (descriptor first), then self */
    assert_int_equal(added.wakes, 1);
    assert_true(added.reached);
    assert_int_equal(j.self.wakes, 2);
    assert_int_equal(gar_reactor_fire(&f->reactor, now), 1);
    assert_int_equal(j.self.wakes, 3);
    assert_int_equal(gar_reactor_fire(&f->reactor, now), 0); /* rounds used up */
    assert_int_equal(gar_reactor_pending(&f->reactor), 0);
}

static void re_registering_moves_a_registration(void **state)
{
    fixture *f = *state;
    probe p;
    probe_init(&p, &f->script);
    gar_mono_ns now = f->script.now;
    gar_descriptor d = desc(&f->a, 0, 1);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &p.reg, &d, now + 10 * US, NULL), 0);
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &p.reg, now + 50 * US, NULL), 0);
    assert_int_equal(gar_reactor_pending(&f->reactor), 1); /* moved, not doubled */
    assert_int_equal(gar_reactor_next_time(&f->reactor), now + 50 * US);
    assert_int_equal(turn(f), GAR_TURN_SLEPT); /* an alarm now, so no park */
    assert_int_equal(f->script.calls[0].until, now + 50 * US);
}

static void idle_errors_come_back_unchanged(void **state)
{
    fixture *f = *state;
    probe p, q;
    probe_init(&p, &f->script);
    probe_init(&q, &f->script);
    gar_error err;
    f->script.fail_with = GAR_E_BACKEND;
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &p.reg, f->script.now + US, NULL), 0);
    int rc = gar_reactor_turn(&f->reactor, script_clock(&f->script), script_idle(&f->script), 1, &err);
    assert_int_equal(rc, -GAR_E_BACKEND);
    assert_string_equal(err.argv[0], "scripted sleep failure");
    gar_descriptor d = desc(&f->a, 0, 1);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &q.reg, &d, GAR_MONO_NEVER, NULL), 0);
    rc = gar_reactor_turn(&f->reactor, script_clock(&f->script), script_idle(&f->script), 1, &err);
    assert_int_equal(rc, -GAR_E_BACKEND);
    assert_string_equal(err.argv[0], "scripted park failure");
    assert_int_equal(gar_reactor_stats_get(&f->reactor).slept + gar_reactor_stats_get(&f->reactor).parked, 0);
}

static void bad_arguments_are_refused(void **state)
{
    fixture *f = *state;
    probe p;
    probe_init(&p, &f->script);
    gar_error err;
    gar_descriptor lineless = { NULL, { 0 }, 1 };
    gar_descriptor bad_slot = { &f->a, { 8 }, 1 };
    assert_int_equal(gar_reactor_set_park_bound(&f->reactor, 0, &err), -GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "bound_ns");
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &p.reg, &lineless, GAR_MONO_NEVER, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, &p.reg, &bad_slot, GAR_MONO_NEVER, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_reactor_add_descriptor(&f->reactor, NULL, &bad_slot, GAR_MONO_NEVER, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_reactor_add_alarm(&f->reactor, &p.reg, GAR_MONO_NEVER, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_reactor_pending(&f->reactor), 0);
    gar_clock no_clock = { NULL, NULL };
    assert_int_equal(gar_reactor_turn(&f->reactor, no_clock, script_idle(&f->script), 1, &err),
                     -GAR_E_INVALID_ARGUMENT);
    gar_idle no_idle = { NULL, NULL };
    assert_int_equal(gar_reactor_turn(&f->reactor, script_clock(&f->script), no_idle, 1, &err),
                     -GAR_E_INVALID_ARGUMENT);
    /* An Idle table that never set its version is refused before it is called. */
    gar_idle_ops unset = script_idle_ops;
    unset.version = 0;
    size_t calls = f->script.ncalls;
    assert_int_equal(gar_reactor_turn(&f->reactor, script_clock(&f->script),
                                      (gar_idle){ &unset, &f->script }, 1, &err),
                     -GAR_E_OPS_VERSION);
    assert_string_equal(err.argv[1], "gar_idle_ops");
    assert_int_equal(f->script.ncalls, calls);
    assert_int_equal(gar_reactor_park_bound(&f->reactor), GAR_REACTOR_PARK_BOUND_DEFAULT_NS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(only_alarms_sleep_to_the_earliest, setup),
        cmocka_unit_test_setup(parks_on_the_earliest_registered_line_within_the_bound, setup),
        cmocka_unit_test_setup(never_parks_past_a_deadline_or_an_alarm, setup),
        cmocka_unit_test_setup(one_park_serves_every_descriptor_of_its_line, setup),
        cmocka_unit_test_setup(a_descriptor_already_reached_wakes_without_idling, setup),
        cmocka_unit_test_setup(a_store_after_the_snapshot_is_never_slept_through, setup),
        cmocka_unit_test_setup(targets_wrap_around_the_u64_circle, setup),
        cmocka_unit_test_setup(times_near_the_end_of_the_clock_saturate, setup),
        cmocka_unit_test_setup(nothing_registered_is_stalled_with_the_count, setup),
        cmocka_unit_test_setup(wakes_may_cancel_re_register_and_add, setup),
        cmocka_unit_test_setup(re_registering_moves_a_registration, setup),
        cmocka_unit_test_setup(idle_errors_come_back_unchanged, setup),
        cmocka_unit_test_setup(bad_arguments_are_refused, setup),
    };
    return cmocka_run_group_tests_name("reactor", tests, NULL, NULL);
}
