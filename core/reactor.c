/* core/reactor.c — descriptor waits, deadlines and alarms of one executor,
 * and the turn that lets time pass when no task is ready.
 *
 * Descriptor waits sit in a list in registration order (the earliest
 * registered names the line a turn parks on).  Every deadline and alarm sits
 * in one alarm heap, so "the earliest time anything is due" is its minimum.
 * Resolving is two-step: due registrations are first moved to a due list,
 * then their wakes are called one at a time from its head — so a wake
 * function may cancel a registration that is due but not yet woken, or add
 * new ones, without the walk ever touching a node it no longer owns. */
#include <assert.h>

#include <gar/reactor.h>

#include "ops_version.h"
#include "text.h"

static gar_registration *of_timer(gar_alarm_node *node)
{
    return (gar_registration *)(void *)((char *)node - offsetof(gar_registration, timer));
}

static void list_append(gar_registration **first, gar_registration **last, gar_registration *reg)
{
    reg->next = NULL;
    reg->prev = *last;
    if (*last != NULL)
        (*last)->next = reg;
    else
        *first = reg;
    *last = reg;
}

static void list_unlink(gar_registration **first, gar_registration **last, gar_registration *reg)
{
    if (reg->prev != NULL)
        reg->prev->next = reg->next;
    else
        *first = reg->next;
    if (reg->next != NULL)
        reg->next->prev = reg->prev;
    else
        *last = reg->prev;
    reg->prev = reg->next = NULL;
}

/* Takes a pending registration out of the pending structures. */
static void unlink_pending(gar_reactor *reactor, gar_registration *reg)
{
    assert(reg->state == GAR_REGISTRATION_PENDING);
    if (reg->watches_descriptor) {
        list_unlink(&reactor->first, &reactor->last, reg);
        assert(reactor->descriptors > 0);
        reactor->descriptors--;
    } else {
        assert(reactor->alarms > 0);
        reactor->alarms--;
    }
    gar_alarm_heap_remove(&reactor->timers, &reg->timer);
}

/* Moves a pending registration to the due list with its outcome. */
static void make_due(gar_reactor *reactor, gar_registration *reg, bool reached)
{
    unlink_pending(reactor, reg);
    reg->reached = reached;
    reg->state = GAR_REGISTRATION_DUE;
    list_append(&reactor->due_first, &reactor->due_last, reg);
}

void gar_reactor_init(gar_reactor *reactor)
{
    reactor->first = reactor->last = NULL;
    reactor->descriptors = 0;
    reactor->alarms = 0;
    gar_alarm_heap_init(&reactor->timers);
    reactor->due_first = reactor->due_last = NULL;
    reactor->park_bound_ns = GAR_REACTOR_PARK_BOUND_DEFAULT_NS;
    reactor->stats = (gar_reactor_stats){ 0 };
}

void gar_registration_init(gar_registration *reg, gar_wake_fn wake, void *ctx)
{
    reg->wake = wake;
    reg->ctx = ctx;
    reg->descriptor = (gar_descriptor){ 0 };
    reg->watches_descriptor = false;
    reg->reached = false;
    reg->state = GAR_REGISTRATION_IDLE;
    gar_alarm_node_init(&reg->timer);
    reg->prev = reg->next = NULL;
}

int gar_reactor_set_park_bound(gar_reactor *reactor, gar_dur_ns bound_ns, gar_error *err)
{
    if (reactor == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_reactor_set_park_bound",
                             "reactor", "is NULL");
    if (bound_ns == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_reactor_set_park_bound",
                             "bound_ns", "is 0 (a park bound of 0 would be a spin)");
    reactor->park_bound_ns = bound_ns;
    return 0;
}

gar_dur_ns gar_reactor_park_bound(const gar_reactor *reactor)
{
    return reactor->park_bound_ns;
}

int gar_reactor_add_descriptor(gar_reactor *reactor, gar_registration *reg,
                               const gar_descriptor *descriptor, gar_mono_ns deadline,
                               gar_error *err)
{
    static const char fn[] = "gar_reactor_add_descriptor";
    if (reactor == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "reactor", "is NULL");
    if (reg == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "reg", "is NULL");
    if (descriptor == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "descriptor", "is NULL");
    if (descriptor->line == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "descriptor", "has no line");
    if (descriptor->slot.index >= GAR_LINE_WORDS)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "descriptor",
                             "has a slot past 7");
    gar_reactor_cancel(reactor, reg);
    reg->descriptor = *descriptor;
    reg->watches_descriptor = true;
    reg->reached = false;
    reg->state = GAR_REGISTRATION_PENDING;
    list_append(&reactor->first, &reactor->last, reg);
    reactor->descriptors++;
    if (deadline != GAR_MONO_NEVER)
        gar_alarm_heap_insert(&reactor->timers, &reg->timer, deadline);
    return 0;
}

int gar_reactor_add_alarm(gar_reactor *reactor, gar_registration *reg, gar_mono_ns at,
                          gar_error *err)
{
    static const char fn[] = "gar_reactor_add_alarm";
    if (reactor == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "reactor", "is NULL");
    if (reg == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "reg", "is NULL");
    if (at == GAR_MONO_NEVER)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "at",
                             "is GAR_MONO_NEVER (an alarm that never rings)");
    gar_reactor_cancel(reactor, reg);
    reg->descriptor = (gar_descriptor){ 0 };
    reg->watches_descriptor = false;
    reg->reached = false;
    reg->state = GAR_REGISTRATION_PENDING;
    reactor->alarms++;
    gar_alarm_heap_insert(&reactor->timers, &reg->timer, at);
    return 0;
}

bool gar_reactor_cancel(gar_reactor *reactor, gar_registration *reg)
{
    if (reactor == NULL || reg == NULL)
        return false;
    switch ((gar_registration_state)reg->state) {
    case GAR_REGISTRATION_IDLE:
        return false;
    case GAR_REGISTRATION_PENDING:
        unlink_pending(reactor, reg);
        break;
    case GAR_REGISTRATION_DUE:
        list_unlink(&reactor->due_first, &reactor->due_last, reg);
        break;
    }
    reg->state = GAR_REGISTRATION_IDLE;
    return true;
}

gar_mono_ns gar_reactor_next_time(const gar_reactor *reactor)
{
    const gar_alarm_node *min = gar_alarm_heap_min(&reactor->timers);
    return min != NULL ? min->at : GAR_MONO_NEVER;
}

/* Calls the wakes of the due list, head first, until it is empty (wakes may
 * add to or cancel from it).  Returns how many were called. */
static size_t deliver(gar_reactor *reactor)
{
    size_t woken = 0;
    gar_registration *reg;
    while ((reg = reactor->due_first) != NULL) {
        list_unlink(&reactor->due_first, &reactor->due_last, reg);
        reg->state = GAR_REGISTRATION_IDLE;
        woken++;
        if (reg->wake != NULL)
            reg->wake(reg, reg->reached, reg->ctx);
    }
    return woken;
}

size_t gar_reactor_fire(gar_reactor *reactor, gar_mono_ns now)
{
    if (reactor == NULL)
        return 0;
    for (gar_registration *reg = reactor->first, *next; reg != NULL; reg = next) {
        next = reg->next;
        if (gar_descriptor_reached(&reg->descriptor))
            make_due(reactor, reg, true);
    }
    gar_alarm_node *node;
    while ((node = gar_alarm_heap_pop_due(&reactor->timers, now)) != NULL) {
        gar_registration *reg = of_timer(node);
        /* Popped already; make_due's heap removal is then a no-op. */
        make_due(reactor, reg, false);
    }
    return deliver(reactor);
}

/* Runs one Idle call, adding the clock time it took to idle_ns. */
static int timed_idle(gar_reactor *reactor, gar_clock clock, gar_idle idle, gar_mono_ns now,
                      gar_line *line, const uint64_t *seen, gar_mono_ns until, gar_error *err)
{
    int rc = line != NULL ? idle.ops->park(idle.ctx, line, seen, until, err)
                          : idle.ops->sleep_until(idle.ctx, until, err);
    reactor->stats.idle_ns += gar_since(gar_clock_now(clock), now);
    return rc;
}

int gar_reactor_turn(gar_reactor *reactor, gar_clock clock, gar_idle idle, size_t tasks_left,
                     gar_error *err)
{
    static const char fn[] = "gar_reactor_turn";
    if (reactor == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "reactor", "is NULL");
    if (clock.now == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "clock", "has no now");
    if (idle.ops == NULL || idle.ops->sleep_until == NULL || idle.ops->park == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "idle", "lacks an operation");
    int checked = gar__ops_version_check(fn, "gar_idle_ops", idle.ops->version,
                                         GAR_IDLE_OPS_VERSION, err);
    if (checked < 0)
        return checked;

    /* The line a park would watch is the earliest-registered descriptor's;
     * it is snapshot before the look at what is due (the futex order), so a
     * store that lands after the look changes the line under the snapshot
     * and the park returns at once: no store is ever slept through. */
    gar_line *line = reactor->first != NULL ? reactor->first->descriptor.line : NULL;
    uint64_t seen[GAR_LINE_WORDS];
    if (line != NULL)
        gar_line_snapshot(line, seen);

    /* 1. Wake what is due.  When nothing is, no wake ran, so the
     * registrations (and the first of them) are as they were. */
    gar_mono_ns now = gar_clock_now(clock);
    if (gar_reactor_fire(reactor, now) > 0) {
        reactor->stats.woke++;
        return GAR_TURN_WOKE;
    }

    /* 4. Nothing to wait on: the tasks left can never be woken. */
    if (gar_reactor_pending(reactor) == 0) {
        char left[GAR__U64_TEXT_BYTES];
        return gar_error_set(err, GAR_E_STALLED, 1, gar__u64_text(tasks_left, left));
    }

    /* Nothing was due, so every time in the heap is after now. */
    gar_mono_ns next_time = gar_reactor_next_time(reactor);
    assert(next_time > now);

    /* 2. Only alarms: sleep to the earliest (a predicted completion). */
    if (reactor->descriptors == 0) {
        int rc = timed_idle(reactor, clock, idle, now, NULL, NULL, next_time, err);
        if (rc < 0)
            return rc;
        reactor->stats.slept++;
        return GAR_TURN_SLEPT;
    }

    /* 3. Park on the earliest-registered descriptor's line, to the park
     * bound or the earliest time, whichever is first. */
    assert(line == reactor->first->descriptor.line);
    gar_mono_ns until = gar_after(now, reactor->park_bound_ns);
    if (next_time < until)
        until = next_time;
    int rc = timed_idle(reactor, clock, idle, now, line, seen, until, err);
    if (rc < 0)
        return rc;
    reactor->stats.parked++;
    return GAR_TURN_PARKED;
}

gar_reactor_stats gar_reactor_stats_get(const gar_reactor *reactor)
{
    return reactor->stats;
}
