/* tests/core/idle_script.h — a virtual clock and a scripted Idle port.
 *
 * The script records every Idle call (what it sleeps to; which line it parks
 * on, with which bound) and lets virtual time pass: a sleep moves the clock
 * to its target; a park moves it to the first scripted store that changes
 * the parked line, else to its bound.  Scripted stores land at their time
 * whenever the clock passes it (during a sleep, a park on another line, or
 * a test's own script_advance), so a test states what the device does and
 * when, and asserts what gar decided.  A runaway loop fails: past
 * SCRIPT_CALLS_MAX calls the port returns an error. */
#ifndef TESTS_CORE_IDLE_SCRIPT_H
#define TESTS_CORE_IDLE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/time.h>

#define SCRIPT_CALLS_MAX 256
#define SCRIPT_STORES_MAX 16

typedef struct script_call {
    char kind;         /* 's' sleep_until, 'p' park */
    gar_mono_ns at;    /* the clock when called */
    gar_mono_ns until; /* the target or bound */
    gar_line *line;    /* parks: the line */
    int rc;            /* what the port returned */
} script_call;

typedef struct script_store {
    gar_mono_ns at;
    gar_line *line;
    unsigned slot;
    uint64_t value;
    bool landed;
} script_store;

typedef struct idle_script {
    gar_mono_ns now; /* the virtual clock */
    script_call calls[SCRIPT_CALLS_MAX];
    size_t ncalls;
    script_store stores[SCRIPT_STORES_MAX];
    size_t nstores;
    int fail_with; /* when nonzero, the next call fails with this code */
} idle_script;

static inline gar_mono_ns script_clock_now(void *ctx)
{
    return ((idle_script *)ctx)->now;
}

static inline gar_clock script_clock(idle_script *s)
{
    return (gar_clock){ script_clock_now, s };
}

/* Schedules a store of `value` into `slot` of `line` at `at`. */
static inline void script_store_at(idle_script *s, gar_mono_ns at, gar_line *line, unsigned slot,
                                   uint64_t value)
{
    s->stores[s->nstores++] = (script_store){ at, line, slot, value, false };
}

/* The earliest store not landed, due by `by`, or NULL. */
static inline script_store *script_next_store(idle_script *s, gar_mono_ns by)
{
    script_store *next = NULL;
    for (size_t i = 0; i < s->nstores; i++) {
        script_store *st = &s->stores[i];
        if (!st->landed && st->at <= by && (next == NULL || st->at < next->at))
            next = st;
    }
    return next;
}

static inline void script_land(idle_script *s, script_store *st)
{
    if (st->at > s->now)
        s->now = st->at;
    gar_line_store(st->line, (gar_slot){ (uint8_t)st->slot }, st->value);
    st->landed = true;
}

/* Moves the clock to `to` (never backwards), landing the stores due by then. */
static inline void script_advance_to(idle_script *s, gar_mono_ns to)
{
    script_store *st;
    while ((st = script_next_store(s, to)) != NULL)
        script_land(s, st);
    if (to > s->now)
        s->now = to;
}

static inline void script_advance(idle_script *s, gar_dur_ns d)
{
    script_advance_to(s, gar_after(s->now, d));
}

static inline script_call *script_record(idle_script *s, char kind, gar_mono_ns until,
                                         gar_line *line)
{
    if (s->ncalls == SCRIPT_CALLS_MAX)
        return NULL;
    script_call *call = &s->calls[s->ncalls++];
    *call = (script_call){ kind, s->now, until, line, 0 };
    return call;
}

static inline int script_sleep_until(void *ctx, gar_mono_ns until, gar_error *err)
{
    idle_script *s = ctx;
    script_call *call = script_record(s, 's', until, NULL);
    if (call == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "idle script", "256 calls");
    if (s->fail_with != 0)
        return call->rc = gar_error_set(err, (gar_code)s->fail_with, 1, "scripted sleep failure");
    script_advance_to(s, until);
    return 0;
}

static inline int script_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                              gar_mono_ns until, gar_error *err)
{
    idle_script *s = ctx;
    script_call *call = script_record(s, 'p', until, line);
    if (call == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "idle script", "256 calls");
    if (s->fail_with != 0)
        return call->rc = gar_error_set(err, (gar_code)s->fail_with, 1, "scripted park failure");
    if (until == GAR_MONO_NEVER && script_next_store(s, until) == NULL)
        return call->rc = gar_error_set(err, GAR_E_USAGE, 2, "idle script", "unbounded park");
    if (!gar_line_unchanged(line, seen))
        return call->rc = 1; /* changed before the park began: return at once */
    script_store *st;
    while ((st = script_next_store(s, until)) != NULL) {
        script_land(s, st);
        if (!gar_line_unchanged(line, seen)) {
            script_advance_to(s, s->now); /* stores at the same instant land too */
            return call->rc = 1;
        }
    }
    if (until > s->now)
        s->now = until;
    return call->rc = 0;
}

static const gar_idle_ops script_idle_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = script_sleep_until,
    .park = script_park,
};

static inline gar_idle script_idle(idle_script *s)
{
    return (gar_idle){ &script_idle_ops, s };
}

#endif
