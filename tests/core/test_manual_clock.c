/* tests/core/test_manual_clock.c — virtual time: forward only, saturating;
 * timers fire earliest first, ties in the order added, each at its own time,
 * and callbacks may add and cancel timers while a firing runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gar/manual_clock.h>

#include "core/splitmix64.h"

/* What fired, in order, and the time each callback read. */
#define LOG_MAX 256
typedef struct fire_log {
    size_t count;
    int ids[LOG_MAX];
    gar_mono_ns at[LOG_MAX];
} fire_log;

typedef struct probe probe;
typedef void (*probe_action)(gar_manual_clock *clock, probe *self);

/* A timer with an id, a log to write to and an optional action to run when
 * it fires (the re-entrancy tests add and cancel timers from there). */
struct probe {
    gar_manual_timer timer;
    int id;
    fire_log *log;
    probe_action action;
    probe *other;        /* the timer the action works on */
    gar_mono_ns other_due;
};

static void probe_fired(gar_manual_clock *clock, gar_manual_timer *timer, void *ctx)
{
    probe *self = ctx;
    assert_ptr_equal(timer, &self->timer);
    assert_false(gar_manual_timer_pending(timer));
    fire_log *log = self->log;
    assert_true(log->count < LOG_MAX);
    log->ids[log->count] = self->id;
    log->at[log->count] = gar_manual_clock_now(clock);
    log->count++;
    if (self->action != NULL)
        self->action(clock, self);
}

static void probe_init(probe *p, int id, fire_log *log)
{
    *p = (probe){ .id = id, .log = log };
    gar_manual_timer_init(&p->timer, probe_fired, p);
}

static void add_at(gar_manual_clock *clock, probe *p, gar_mono_ns due)
{
    assert_int_equal(gar_manual_clock_add(clock, &p->timer, due, NULL), 0);
}

/* Outside callbacks every pending timer is due strictly after now. */
static void assert_deadline_future(const gar_manual_clock *clock)
{
    gar_mono_ns next = 0;
    if (gar_manual_clock_next_deadline(clock, &next))
        assert_true(next > gar_manual_clock_now(clock));
    else
        assert_int_equal(gar_manual_clock_pending_timers(clock), 0);
}

static void starts_at_zero_and_views_share_the_time(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    gar_clock a = gar_manual_clock_port(&clock);
    gar_clock b = gar_manual_clock_port(&clock);
    assert_ptr_equal(a.ctx, &clock);
    assert_int_equal(gar_clock_now(a), 0);
    gar_manual_clock_advance(&clock, 1500);
    assert_int_equal(gar_clock_now(a), 1500);
    assert_int_equal(gar_clock_now(b), 1500);
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 0);
    gar_mono_ns untouched = 77;
    assert_false(gar_manual_clock_next_deadline(&clock, &untouched));
    assert_int_equal(untouched, 77);
}

static void advance_adds_and_saturates(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    gar_manual_clock_advance(&clock, 0);
    assert_int_equal(gar_manual_clock_now(&clock), 0);
    gar_manual_clock_advance(&clock, 10);
    gar_manual_clock_advance(&clock, 5);
    assert_int_equal(gar_manual_clock_now(&clock), 15);
    gar_manual_clock_advance(&clock, UINT64_MAX - 16);
    assert_int_equal(gar_manual_clock_now(&clock), UINT64_MAX - 1);
    gar_manual_clock_advance(&clock, 2);
    assert_int_equal(gar_manual_clock_now(&clock), UINT64_MAX);
    gar_manual_clock_advance(&clock, UINT64_MAX);
    assert_int_equal(gar_manual_clock_now(&clock), UINT64_MAX);
}

static void set_never_moves_backwards(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    gar_manual_clock_set(&clock, 1000);
    assert_int_equal(gar_manual_clock_now(&clock), 1000);
    gar_manual_clock_set(&clock, 999);
    assert_int_equal(gar_manual_clock_now(&clock), 1000);
    gar_manual_clock_set(&clock, 0);
    assert_int_equal(gar_manual_clock_now(&clock), 1000);
    gar_manual_clock_set(&clock, 1000);
    assert_int_equal(gar_manual_clock_now(&clock), 1000);
    gar_manual_clock_set(&clock, UINT64_MAX);
    assert_int_equal(gar_manual_clock_now(&clock), UINT64_MAX);
    gar_manual_clock_set(&clock, 5);
    assert_int_equal(gar_manual_clock_now(&clock), UINT64_MAX);
}

static void backwards_set_fires_nothing(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe p;
    probe_init(&p, 1, &log);
    gar_manual_clock_set(&clock, 100);
    add_at(&clock, &p, 150);
    gar_manual_clock_set(&clock, 50);
    assert_int_equal(log.count, 0);
    assert_true(gar_manual_timer_pending(&p.timer));
    gar_manual_clock_set(&clock, 150);
    assert_int_equal(log.count, 1);
    assert_int_equal(log.at[0], 150);
}

static void timers_fire_earliest_first_each_at_its_own_time(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe p[5];
    const gar_mono_ns due[5] = { 300, 100, 500, 200, 400 };
    for (int i = 0; i < 5; i++) {
        probe_init(&p[i], i, &log);
        add_at(&clock, &p[i], due[i]);
    }
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 5);
    gar_mono_ns next = 0;
    assert_true(gar_manual_clock_next_deadline(&clock, &next));
    assert_int_equal(next, 100);

    gar_manual_clock_advance(&clock, 350);
    assert_int_equal(gar_manual_clock_now(&clock), 350);
    assert_int_equal(log.count, 3);
    assert_int_equal(log.ids[0], 1);
    assert_int_equal(log.at[0], 100);
    assert_int_equal(log.ids[1], 3);
    assert_int_equal(log.at[1], 200);
    assert_int_equal(log.ids[2], 0);
    assert_int_equal(log.at[2], 300);
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 2);
    assert_true(gar_manual_clock_next_deadline(&clock, &next));
    assert_int_equal(next, 400);
    assert_deadline_future(&clock);

    /* A target exactly on a due time fires it. */
    gar_manual_clock_set(&clock, 500);
    assert_int_equal(log.count, 5);
    assert_int_equal(log.ids[3], 4);
    assert_int_equal(log.at[3], 400);
    assert_int_equal(log.ids[4], 2);
    assert_int_equal(log.at[4], 500);
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 0);
    assert_false(gar_manual_clock_next_deadline(&clock, &next));
}

static void ties_fire_in_the_order_added(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe p[6];
    /* Interleave two due times so order-added is not order-of-address. */
    const gar_mono_ns due[6] = { 20, 10, 20, 10, 20, 10 };
    for (int i = 0; i < 6; i++) {
        probe_init(&p[i], i, &log);
        add_at(&clock, &p[i], due[i]);
    }
    gar_manual_clock_advance(&clock, 20);
    const int expect[6] = { 1, 3, 5, 0, 2, 4 };
    assert_int_equal(log.count, 6);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(log.ids[i], expect[i]);
        assert_int_equal(log.at[i], due[expect[i]]);
    }
}

static void re_adding_moves_a_timer_and_makes_it_last(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe a, b;
    probe_init(&a, 1, &log);
    probe_init(&b, 2, &log);
    add_at(&clock, &a, 10);
    add_at(&clock, &b, 10);
    add_at(&clock, &a, 10); /* same time, but now added after b */
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 2);
    gar_manual_clock_advance(&clock, 10);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.ids[0], 2);
    assert_int_equal(log.ids[1], 1);

    add_at(&clock, &a, 100);
    add_at(&clock, &a, 30); /* moved earlier */
    gar_manual_clock_advance(&clock, 25);
    assert_int_equal(log.count, 3);
    assert_int_equal(log.at[2], 30);
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 0);
}

static void a_timer_due_now_or_before_fires_at_once(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe now_probe, past_probe, zero_probe;
    probe_init(&now_probe, 1, &log);
    probe_init(&past_probe, 2, &log);
    probe_init(&zero_probe, 3, &log);

    /* At time 0 a timer due at 0 is already due. */
    add_at(&clock, &zero_probe, 0);
    assert_int_equal(log.count, 1);
    assert_int_equal(log.at[0], 0);

    gar_manual_clock_advance(&clock, 1000);
    add_at(&clock, &now_probe, 1000);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.ids[1], 1);
    assert_int_equal(log.at[1], 1000);
    add_at(&clock, &past_probe, 3);
    assert_int_equal(log.count, 3);
    assert_int_equal(log.ids[2], 2);
    assert_int_equal(log.at[2], 1000); /* fires now: time does not move back */
    assert_int_equal(gar_manual_clock_now(&clock), 1000);
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 0);
    assert_false(gar_manual_timer_pending(&past_probe.timer));
}

static void cancel_says_whether_the_timer_was_pending(void **state)
{
    (void)state;
    gar_manual_clock clock, elsewhere;
    gar_manual_clock_init(&clock);
    gar_manual_clock_init(&elsewhere);
    fire_log log = { 0 };
    probe a, b;
    probe_init(&a, 1, &log);
    probe_init(&b, 2, &log);
    assert_false(gar_manual_clock_cancel(&clock, &a.timer)); /* never added */
    add_at(&clock, &a, 50);
    add_at(&clock, &b, 60);
    assert_false(gar_manual_clock_cancel(&elsewhere, &a.timer)); /* not its clock */
    assert_true(gar_manual_timer_pending(&a.timer));
    assert_true(gar_manual_clock_cancel(&clock, &a.timer));
    assert_false(gar_manual_clock_cancel(&clock, &a.timer)); /* already gone */
    assert_false(gar_manual_timer_pending(&a.timer));
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 1);
    gar_mono_ns next = 0;
    assert_true(gar_manual_clock_next_deadline(&clock, &next));
    assert_int_equal(next, 60);
    gar_manual_clock_advance(&clock, 100);
    assert_int_equal(log.count, 1);
    assert_int_equal(log.ids[0], 2);
    assert_false(gar_manual_clock_cancel(&clock, &b.timer)); /* already fired */
}

static void a_timer_pending_elsewhere_is_refused(void **state)
{
    (void)state;
    gar_manual_clock clock, other;
    gar_manual_clock_init(&clock);
    gar_manual_clock_init(&other);
    fire_log log = { 0 };
    probe a;
    probe_init(&a, 1, &log);
    add_at(&other, &a, 40);
    gar_error err;
    assert_int_equal(gar_manual_clock_add(&clock, &a.timer, 10, &err), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(err.code, GAR_E_INVALID_ARGUMENT);
    assert_string_equal(err.argv[1], "timer");
    assert_int_equal(gar_manual_clock_add(&clock, &a.timer, 10, NULL), -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 0);
    assert_int_equal(gar_manual_clock_pending_timers(&other), 1);
    gar_manual_clock_advance(&clock, 100);
    assert_int_equal(log.count, 0);
    gar_manual_clock_advance(&other, 40);
    assert_int_equal(log.count, 1);
    assert_int_equal(log.at[0], 40);
}

/* --- re-entrancy ------------------------------------------------------- */

static void add_other(gar_manual_clock *clock, probe *self)
{
    add_at(clock, self->other, self->other_due);
}

/* As add_other, for a timer due now: it must wait for the firing already
 * running, not fire inside this callback. */
static void add_other_due_now(gar_manual_clock *clock, probe *self)
{
    add_at(clock, self->other, self->other_due);
    assert_true(gar_manual_timer_pending(&self->other->timer));
}

static void cancel_other(gar_manual_clock *clock, probe *self)
{
    assert_true(gar_manual_clock_cancel(clock, &self->other->timer));
}

static void cancel_self(gar_manual_clock *clock, probe *self)
{
    assert_false(gar_manual_clock_cancel(clock, &self->timer));
}

static void a_timer_added_due_in_a_callback_fires_in_the_same_advance(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe first, tied, later, added;
    probe_init(&first, 1, &log);
    probe_init(&tied, 2, &log);
    probe_init(&later, 3, &log);
    probe_init(&added, 4, &log);
    first.action = add_other_due_now;
    first.other = &added;
    first.other_due = 5; /* before now: counts as due now */
    add_at(&clock, &first, 100);
    add_at(&clock, &tied, 100);
    add_at(&clock, &later, 150);

    gar_manual_clock_advance(&clock, 200);
    /* The added timer was due at 100, so after `tied` (added before it, due
     * then too) and before `later`; it did not fire inside the callback. */
    const int expect[4] = { 1, 2, 4, 3 };
    const gar_mono_ns at[4] = { 100, 100, 100, 150 };
    assert_int_equal(log.count, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(log.ids[i], expect[i]);
        assert_int_equal(log.at[i], at[i]);
    }
    assert_int_equal(gar_manual_clock_now(&clock), 200);
}

static void a_timer_added_in_a_callback_within_the_target_fires_too(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe first, within, beyond;
    probe_init(&first, 1, &log);
    probe_init(&within, 2, &log);
    probe_init(&beyond, 3, &log);
    first.action = add_other;
    first.other = &within;
    first.other_due = 170;
    within.action = add_other;
    within.other = &beyond;
    within.other_due = 260;
    add_at(&clock, &first, 100);

    gar_manual_clock_advance(&clock, 200);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.at[0], 100);
    assert_int_equal(log.at[1], 170);
    assert_true(gar_manual_timer_pending(&beyond.timer));
    gar_mono_ns next = 0;
    assert_true(gar_manual_clock_next_deadline(&clock, &next));
    assert_int_equal(next, 260);
    assert_deadline_future(&clock);
}

static void a_callback_cancels_a_due_timer_before_it_fires(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe canceller, victim, survivor;
    probe_init(&canceller, 1, &log);
    probe_init(&victim, 2, &log);
    probe_init(&survivor, 3, &log);
    canceller.action = cancel_other;
    canceller.other = &victim;
    add_at(&clock, &canceller, 10);
    add_at(&clock, &victim, 10); /* due in the same advance, even the same instant */
    add_at(&clock, &survivor, 20);

    gar_manual_clock_advance(&clock, 30);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.ids[0], 1);
    assert_int_equal(log.ids[1], 3);
    assert_false(gar_manual_timer_pending(&victim.timer));
    assert_int_equal(gar_manual_clock_pending_timers(&clock), 0);
}

static void a_firing_timer_is_no_longer_pending(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe p;
    probe_init(&p, 1, &log);
    p.action = cancel_self;
    add_at(&clock, &p, 10);
    gar_manual_clock_advance(&clock, 10);
    assert_int_equal(log.count, 1);
}

/* A periodic timer: re-adds itself one period on, a set number of times. */
typedef struct ticker {
    gar_manual_timer timer;
    gar_dur_ns period;
    unsigned left;
    fire_log log;
} ticker;

static void tick(gar_manual_clock *clock, gar_manual_timer *timer, void *ctx)
{
    ticker *t = ctx;
    gar_mono_ns now = gar_manual_clock_now(clock);
    t->log.at[t->log.count++] = now;
    if (--t->left > 0)
        assert_int_equal(gar_manual_clock_add(clock, timer, now + t->period, NULL), 0);
}

static void a_timer_re_adds_itself_and_each_period_fires(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    ticker t = { .period = 7, .left = 5 };
    gar_manual_timer_init(&t.timer, tick, &t);
    assert_int_equal(gar_manual_clock_add(&clock, &t.timer, 7, NULL), 0);
    gar_manual_clock_advance(&clock, 30);
    assert_int_equal(t.log.count, 4);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(t.log.at[i], 7 * (i + 1));
    assert_int_equal(gar_manual_clock_now(&clock), 30);
    assert_deadline_future(&clock);
    gar_manual_clock_advance(&clock, 100);
    assert_int_equal(t.log.count, 5);
    assert_int_equal(t.log.at[4], 35);
    assert_false(gar_manual_timer_pending(&t.timer));
}

/* A callback that moves the clock itself: later timers still fire in order
 * and time never steps back. */
static void advance_from_callback(gar_manual_clock *clock, probe *self)
{
    (void)self;
    gar_manual_clock_advance(clock, 25);
}

static void a_callback_may_move_the_clock(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe mover, inside, outside, beyond;
    probe_init(&mover, 1, &log);
    probe_init(&inside, 2, &log);
    probe_init(&outside, 3, &log);
    probe_init(&beyond, 4, &log);
    mover.action = advance_from_callback;
    add_at(&clock, &mover, 10);   /* moves the clock to 35 */
    add_at(&clock, &inside, 20);  /* fired by the inner advance */
    add_at(&clock, &outside, 40); /* fired by the outer one */
    add_at(&clock, &beyond, 60);
    gar_manual_clock_advance(&clock, 50);
    assert_int_equal(log.count, 3);
    assert_int_equal(log.at[0], 10);
    assert_int_equal(log.at[1], 20);
    assert_int_equal(log.at[2], 40);
    assert_int_equal(gar_manual_clock_now(&clock), 50);
    assert_deadline_future(&clock);
}

/* --- the top of time --------------------------------------------------- */

static void time_saturates_and_timers_at_the_top_fire(void **state)
{
    (void)state;
    gar_manual_clock clock;
    gar_manual_clock_init(&clock);
    fire_log log = { 0 };
    probe top, near_top, after_top;
    probe_init(&top, 1, &log);
    probe_init(&near_top, 2, &log);
    probe_init(&after_top, 3, &log);
    add_at(&clock, &top, UINT64_MAX);
    add_at(&clock, &near_top, UINT64_MAX - 1);
    gar_mono_ns next = 0;
    assert_true(gar_manual_clock_next_deadline(&clock, &next));
    assert_int_equal(next, UINT64_MAX - 1);

    gar_manual_clock_advance(&clock, UINT64_MAX - 2);
    assert_int_equal(log.count, 0);
    gar_manual_clock_advance(&clock, UINT64_MAX); /* saturates: no wrap to a past time */
    assert_int_equal(gar_manual_clock_now(&clock), UINT64_MAX);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.ids[0], 2);
    assert_int_equal(log.at[0], UINT64_MAX - 1);
    assert_int_equal(log.ids[1], 1);
    assert_int_equal(log.at[1], UINT64_MAX);

    /* At the top every due time has come: a new timer fires at once, so
     * nothing is ever pending with a deadline that is not in the future. */
    add_at(&clock, &after_top, UINT64_MAX);
    assert_int_equal(log.count, 3);
    assert_int_equal(log.at[2], UINT64_MAX);
    assert_false(gar_manual_clock_next_deadline(&clock, &next));
}

/* --- many timers against a model --------------------------------------- */

/* Random adds, re-adds, cancels and advances; the firing order must be the
 * order of (due, last add) and each callback must read its own due time. */
static void random_schedules_fire_in_due_then_added_order(void **state)
{
    (void)state;
    enum { TIMERS = 32, ROUNDS = 400 };
    uint64_t seed = 42;
    for (int trial = 0; trial < 20; trial++) {
        gar_manual_clock clock;
        gar_manual_clock_init(&clock);
        fire_log log = { 0 };
        probe p[TIMERS];
        gar_mono_ns due[TIMERS];
        uint64_t added_seq[TIMERS];
        bool pending[TIMERS] = { false };
        uint64_t seq = 0;
        for (int i = 0; i < TIMERS; i++)
            probe_init(&p[i], i, &log);
        for (int round = 0; round < ROUNDS; round++) {
            uint64_t r = gar_splitmix64(&seed);
            int i = (int)(r % TIMERS);
            gar_mono_ns now = gar_manual_clock_now(&clock);
            switch ((r >> 8) % 4) {
            case 0:
            case 1: { /* add or re-add, due in the next few ticks (ties likely) */
                gar_mono_ns at = now + 1 + (r >> 16) % 8;
                add_at(&clock, &p[i], at);
                due[i] = at;
                added_seq[i] = seq++;
                pending[i] = true;
                break;
            }
            case 2:
                assert_int_equal(gar_manual_clock_cancel(&clock, &p[i].timer), pending[i]);
                pending[i] = false;
                break;
            default: { /* advance; predict the firings from the model */
                gar_dur_ns step = (r >> 16) % 6;
                gar_mono_ns target = now + step;
                size_t before = log.count;
                size_t expect = 0;
                for (int k = 0; k < TIMERS; k++)
                    expect += pending[k] && due[k] <= target;
                gar_manual_clock_advance(&clock, step);
                assert_int_equal(log.count - before, expect);
                for (size_t f = before; f < log.count; f++) {
                    int id = log.ids[f];
                    assert_true(pending[id]);
                    assert_int_equal(log.at[f], due[id]);
                    if (f > before) {
                        int prev = log.ids[f - 1];
                        assert_true(due[prev] < due[id] ||
                                    (due[prev] == due[id] && added_seq[prev] < added_seq[id]));
                    }
                }
                for (size_t f = before; f < log.count; f++)
                    pending[log.ids[f]] = false;
                log.count = 0; /* keep the log small; order was checked */
                assert_int_equal(gar_manual_clock_now(&clock), target);
                break;
            }
            }
            size_t count = 0;
            for (int k = 0; k < TIMERS; k++)
                count += pending[k];
            assert_int_equal(gar_manual_clock_pending_timers(&clock), count);
            assert_deadline_future(&clock);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(starts_at_zero_and_views_share_the_time),
        cmocka_unit_test(advance_adds_and_saturates),
        cmocka_unit_test(set_never_moves_backwards),
        cmocka_unit_test(backwards_set_fires_nothing),
        cmocka_unit_test(timers_fire_earliest_first_each_at_its_own_time),
        cmocka_unit_test(ties_fire_in_the_order_added),
        cmocka_unit_test(re_adding_moves_a_timer_and_makes_it_last),
        cmocka_unit_test(a_timer_due_now_or_before_fires_at_once),
        cmocka_unit_test(cancel_says_whether_the_timer_was_pending),
        cmocka_unit_test(a_timer_pending_elsewhere_is_refused),
        cmocka_unit_test(a_timer_added_due_in_a_callback_fires_in_the_same_advance),
        cmocka_unit_test(a_timer_added_in_a_callback_within_the_target_fires_too),
        cmocka_unit_test(a_callback_cancels_a_due_timer_before_it_fires),
        cmocka_unit_test(a_firing_timer_is_no_longer_pending),
        cmocka_unit_test(a_timer_re_adds_itself_and_each_period_fires),
        cmocka_unit_test(a_callback_may_move_the_clock),
        cmocka_unit_test(time_saturates_and_timers_at_the_top_fire),
        cmocka_unit_test(random_schedules_fire_in_due_then_added_order),
    };
    return cmocka_run_group_tests_name("manual_clock", tests, NULL, NULL);
}
