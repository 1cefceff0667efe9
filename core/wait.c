/* core/wait.c — the wait machine: SPEC §8 as a table of transitions.
 *
 * Each feed is one transition: the step that was pending and its answer
 * choose the next step.  The pending action is stored, so gar_wait_next is a
 * plain read.  Every decision and what it is for is documented in
 * gar/wait.h; this file keeps to the mechanics. */
#include <gar/wait.h>

#include <assert.h>

#include "text.h"

/* What the pending action is for.  Several steps share an op (four kinds of
 * query); the step says what its answer means. */
enum step {
    STEP_BLOCK,          /* "block": the vendor's blocking wait */
    STEP_FIRST_QUERY,    /* the one query before anything else */
    STEP_ARM,            /* "flag": enqueue the word's store */
    STEP_SLEEP,          /* the predicted sleep */
    STEP_WAKE_QUERY,     /* the query after the sleep: done here is Late */
    STEP_POLL,           /* "poll" park stage */
    STEP_PARK,           /* "flag" park stage: one bounded park */
    STEP_HINT_QUERY,     /* confirms a park's "the word reached" */
    STEP_BACKSTOP_QUERY, /* the backstop (or the deadline) came due */
    STEP_ENDED,          /* DONE or FAILED: action says which */
};

static const gar_wait_op step_op[] = {
    [STEP_BLOCK] = GAR_WAIT_OP_BLOCK,
    [STEP_FIRST_QUERY] = GAR_WAIT_OP_QUERY,
    [STEP_ARM] = GAR_WAIT_OP_ARM,
    [STEP_SLEEP] = GAR_WAIT_OP_SLEEP_UNTIL,
    [STEP_WAKE_QUERY] = GAR_WAIT_OP_QUERY,
    [STEP_POLL] = GAR_WAIT_OP_POLL,
    [STEP_PARK] = GAR_WAIT_OP_PARK,
    [STEP_HINT_QUERY] = GAR_WAIT_OP_QUERY,
    [STEP_BACKSTOP_QUERY] = GAR_WAIT_OP_QUERY,
};

/* The steps whose action may answer 1 (done, or the word reached). */
static const bool step_answers_done[] = {
    [STEP_FIRST_QUERY] = true, [STEP_WAKE_QUERY] = true,     [STEP_POLL] = true,
    [STEP_PARK] = true,        [STEP_HINT_QUERY] = true,     [STEP_BACKSTOP_QUERY] = true,
};

static gar_mono_ns earlier(gar_mono_ns a, gar_mono_ns b)
{
    return a < b ? a : b;
}

static void pend(gar_wait *w, enum step step, gar_mono_ns until)
{
    w->step = step;
    w->action = (gar_wait_action){ .op = step_op[step], .until = until, .code = 0 };
}

static void finish(gar_wait *w, gar_wait_kind kind, gar_sample_kind sample)
{
    w->step = STEP_ENDED;
    w->action = (gar_wait_action){ .op = GAR_WAIT_OP_DONE, .until = 0, .code = 0 };
    w->report.kind = kind;
    w->report.sample.kind = sample;
    w->report.sample.ns = sample == GAR_SAMPLE_NONE ? 0 : w->report.wait_ns;
}

/* `code` is negated, as every gar function returns it. */
static void fail(gar_wait *w, int code)
{
    assert(code < 0);
    w->step = STEP_ENDED;
    w->action = (gar_wait_action){ .op = GAR_WAIT_OP_FAILED, .until = 0, .code = code };
}

/* The flag park stage's next step at w->now: a backstop query once `due`
 * came, else a park that ends no later than `due`. */
static void flag_step(gar_wait *w)
{
    if (w->now >= w->due)
        pend(w, STEP_BACKSTOP_QUERY, 0);
    else
        pend(w, STEP_PARK, earlier(gar_after(w->now, w->park_ns), w->due));
}

static void park_stage(gar_wait *w)
{
    if (w->park == GAR_PARK_POLL)
        pend(w, STEP_POLL, 0);
    else
        flag_step(w);
}

/* After the first query (and the arm, for flag): sleep if the predicted wake
 * is still ahead, else straight to the park stage. */
static void sleep_or_park(gar_wait *w)
{
    if (w->wake_at != GAR_MONO_NEVER && w->wake_at > w->now)
        pend(w, STEP_SLEEP, w->wake_at);
    else
        park_stage(w);
}

/* Fails the wait on its deadline.  Apart from still_pending, which runs
 * after every pending answer, so that it stays small enough to inline. */
static void fail_at_deadline(gar_wait *w, gar_error *err)
{
    char at[GAR_U64_TEXT_BYTES + 3];
    gar_text_out text = gar_text_out_make(at, sizeof at);
    gar_text_put_u64(&text, w->deadline);
    gar_text_puts(&text, " ns");
    fail(w, gar_error_set(err, GAR_E_WAIT_DEADLINE, 2, "work", at));
}

/* Every query or poll that answers pending passes here: the deadline is
 * checked, and a query restarts the backstop.  Returns false when the wait
 * failed on its deadline. */
static inline bool still_pending(gar_wait *w, bool was_query, gar_error *err)
{
    if (w->deadline != GAR_MONO_NEVER && w->now >= w->deadline) {
        fail_at_deadline(w, err);
        return false;
    }
    if (was_query)
        w->due = earlier(gar_after(w->now, w->backstop_ns), w->deadline);
    return true;
}

int gar_wait_init(gar_wait *wait, const gar_plan *plan, bool has_sleep, gar_dur_ns sleep_ns,
                  gar_mono_ns start, gar_mono_ns deadline, gar_error *err)
{
    static const char fn[] = "gar_wait_init";
    if (wait == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait", "is NULL");
    if (plan == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan", "is NULL");
    if (plan->park != GAR_PARK_BLOCK && plan->park != GAR_PARK_POLL && plan->park != GAR_PARK_FLAG)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan",
                             "has a park that is none of block, poll, flag");
    if (plan->park == GAR_PARK_BLOCK && plan->predict)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan",
                             "is block with predict (nothing to sleep in front of)");
    if (plan->park == GAR_PARK_FLAG && (plan->park_ns == 0 || plan->backstop_ns == 0))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan",
                             "is flag with a zero park or backstop bound");
    bool sleeps = plan->predict && has_sleep && sleep_ns > 0;
    if (sleeps && sleep_ns > plan->deadline.max_sleep_ns)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "sleep_ns",
                             "is longer than the plan's max_sleep");

    *wait = (gar_wait){
        .park = plan->park,
        .park_ns = plan->park_ns,
        .backstop_ns = plan->backstop_ns,
        .start = start,
        /* A wake time that saturates would never come: no sleep then. */
        .wake_at = sleeps ? earlier(gar_after(start, sleep_ns), deadline) : GAR_MONO_NEVER,
        .deadline = deadline,
        .now = start,
        .due = GAR_MONO_NEVER,
    };
    pend(wait, plan->park == GAR_PARK_BLOCK ? STEP_BLOCK : STEP_FIRST_QUERY, 0);
    return 0;
}

/* A driver bug: the wait fails with it, so an unchecked feed still stops. */
static int refuse_as(gar_wait *w, const char *fn, const char *what, const char *why,
                     gar_error *err)
{
    int code = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, what, why);
    fail(w, code);
    return code;
}

static int refuse_feed(gar_wait *w, const char *why, gar_error *err)
{
    return refuse_as(w, "gar_wait_feed", "result", why, err);
}

static void count(gar_wait *w, enum step step, gar_dur_ns took)
{
    gar_wait_report *r = &w->report;
    switch (step) {
    case STEP_FIRST_QUERY:
    case STEP_WAKE_QUERY:
    case STEP_HINT_QUERY:
        r->queries++;
        break;
    case STEP_BACKSTOP_QUERY:
        r->queries++;
        r->backstop_queries++;
        break;
    case STEP_POLL:
        r->polls++;
        break;
    case STEP_PARK:
        r->parks++;
        break;
    case STEP_SLEEP:
        r->sleeps++;
        r->slept_ns = gar_after(r->slept_ns, took);
        break;
    case STEP_BLOCK:
    case STEP_ARM:
    case STEP_ENDED:
        break;
    }
}

int gar_wait_feed(gar_wait *wait, int result, gar_mono_ns now, gar_error *err)
{
    if (wait == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_wait_feed", "wait", "is NULL");
    gar_wait *w = wait;
    enum step step = (enum step)w->step;
    if (step == STEP_ENDED)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_wait_feed", "wait",
                             "has ended; nothing more may be fed");
    if (now < w->now)
        return refuse_feed(w, "came with a time earlier than the last one fed", err);

    gar_mono_ns before = w->now;
    w->now = now;
    w->report.wait_ns = gar_since(now, w->start);
    count(w, step, gar_since(now, before));

    if (result < 0) {
        fail(w, result);
        return 0;
    }
    bool answers_done = step_answers_done[step];
    if (result > (answers_done ? 1 : 0))
        return refuse_feed(w,
                           answers_done ? "is above 1 (a query, poll or park answers 1, 0 or <0)"
                                        : "is above 0 (a sleep, arm or block answers 0 or <0)",
                           err);
    bool done = result == 1;

    switch (step) {
    case STEP_BLOCK:
        finish(w, GAR_WAIT_KIND_BLOCKED, GAR_SAMPLE_NONE);
        break;
    case STEP_FIRST_QUERY:
        if (done)
            finish(w, GAR_WAIT_KIND_IMMEDIATE, GAR_SAMPLE_EXACT);
        else if (still_pending(w, true, err)) {
            if (w->park == GAR_PARK_FLAG)
                pend(w, STEP_ARM, 0);
            else
                sleep_or_park(w);
        }
        break;
    case STEP_ARM:
        sleep_or_park(w);
        break;
    case STEP_SLEEP:
        /* Idle may wake early; the sleep goes on to the same time. */
        if (now < w->wake_at)
            pend(w, STEP_SLEEP, w->wake_at);
        else
            pend(w, STEP_WAKE_QUERY, 0);
        break;
    case STEP_WAKE_QUERY:
        if (done)
            finish(w, GAR_WAIT_KIND_LATE, GAR_SAMPLE_LATE);
        else if (still_pending(w, true, err))
            park_stage(w);
        break;
    case STEP_POLL:
        if (done)
            finish(w, GAR_WAIT_KIND_PARKED, GAR_SAMPLE_EXACT);
        else if (still_pending(w, false, err))
            pend(w, STEP_POLL, 0);
        break;
    case STEP_PARK:
        if (done)
            pend(w, STEP_HINT_QUERY, 0);
        else
            flag_step(w);
        break;
    case STEP_HINT_QUERY:
    case STEP_BACKSTOP_QUERY:
        if (done)
            finish(w, GAR_WAIT_KIND_PARKED, GAR_SAMPLE_EXACT);
        else if (still_pending(w, true, err))
            flag_step(w);
        break;
    case STEP_ENDED:
        assert(!"an ended wait was fed");
        break;
    }
    return 0;
}

int gar_wait_feed_polls(gar_wait *wait, uint64_t pending, gar_mono_ns now, gar_error *err)
{
    static const char fn[] = "gar_wait_feed_polls";
    if (wait == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait", "is NULL");
    gar_wait *w = wait;
    if (w->step == STEP_ENDED)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait",
                             "has ended; nothing more may be fed");
    if (w->step != STEP_POLL)
        return refuse_as(w, fn, "wait", "is not at a poll (only polls are fed in batches)", err);
    if (pending == 0)
        return refuse_as(w, fn, "pending", "is 0 (a batch is at least one poll)", err);
    if (now < w->now)
        return refuse_as(w, fn, "now", "is earlier than the last time fed", err);
    if (w->deadline != GAR_MONO_NEVER && now >= w->deadline)
        return refuse_as(w, fn, "now",
                         "is at or past the deadline (feed the polls around it one by one)", err);
    /* What `pending` single feeds of 0 would do: each counts its poll and
     * moves the time on; none fails, since every time is before the
     * deadline; each pends the next poll, which is already pending. */
    w->now = now;
    w->report.wait_ns = gar_since(now, w->start);
    w->report.polls += pending; /* wraps as `pending` increments would */
    return 0;
}

const char *gar_wait_op_name(gar_wait_op op)
{
    static const char *const names[] = {
        [GAR_WAIT_OP_QUERY] = "query", [GAR_WAIT_OP_ARM] = "arm",
        [GAR_WAIT_OP_SLEEP_UNTIL] = "sleep-until", [GAR_WAIT_OP_PARK] = "park",
        [GAR_WAIT_OP_POLL] = "poll", [GAR_WAIT_OP_BLOCK] = "block",
        [GAR_WAIT_OP_DONE] = "done", [GAR_WAIT_OP_FAILED] = "failed",
    };
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

const char *gar_wait_kind_name(gar_wait_kind kind)
{
    static const char *const names[] = {
        [GAR_WAIT_KIND_NONE] = "none", [GAR_WAIT_KIND_BLOCKED] = "blocked",
        [GAR_WAIT_KIND_IMMEDIATE] = "immediate", [GAR_WAIT_KIND_LATE] = "late",
        [GAR_WAIT_KIND_PARKED] = "parked",
    };
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}
