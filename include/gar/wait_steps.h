/* gar/wait_steps.h — the wait machine's transitions, inline.
 *
 * The body of gar_wait_init and gar_wait_feed (gar/wait.h, which includes
 * this file; include that one).  Each feed is one transition: the step that
 * was pending and its answer choose the next step.  The machine is inline
 * so that a driver's loop runs it without a call an action, each driver
 * still running the very same code: the simulator replays millions of
 * waits a second, and a call into the machine for each of a wait's half a
 * dozen actions was a sixth of its cost.  The refusals that write text stay
 * out of line (core/wait.c).  Every decision and what it is for is
 * documented in gar/wait.h; this file keeps to the mechanics.  Drivers call
 * gar_wait_init and gar_wait_feed; every gar__ name here is internal and
 * static.  The two out-of-line refusals below are public, and exported,
 * because the inline machine, compiled into the caller, calls them: they are
 * part of libgar's ABI, named as such. */
#ifndef GAR_WAIT_STEPS_H
#define GAR_WAIT_STEPS_H

#ifndef GAR_WAIT_H
#error "include <gar/wait.h>, not <gar/wait_steps.h>"
#endif

/* Fails `w` on its deadline, with GAR_E_WAIT_DEADLINE in `err` (the feed
 * that finds the deadline past calls it). */
GAR_API void gar_wait_fail_deadline(gar_wait *w, gar_error *err);

/* Fails `w` with GAR_E_INVALID_ARGUMENT (`fn`, `what`, `why`) for a driver
 * bug, and returns that negated code. */
GAR_API int gar_wait_refuse(gar_wait *w, const char *fn, const char *what, const char *why,
                            gar_error *err);

/* What the pending action is for.  Several steps share an op (four kinds of
 * query); the step says what its answer means. */
enum gar__wait_step {
    GAR__WAIT_STEP_BLOCK,          /* "block": the vendor's blocking wait */
    GAR__WAIT_STEP_FIRST_QUERY,    /* the one query before anything else */
    GAR__WAIT_STEP_ARM,            /* "flag": enqueue the word's store */
    GAR__WAIT_STEP_SLEEP,          /* the predicted sleep */
    GAR__WAIT_STEP_WAKE_QUERY,     /* the query after the sleep: done here is Late */
    GAR__WAIT_STEP_POLL,           /* "poll" park stage */
    GAR__WAIT_STEP_PARK,           /* "flag" park stage: one bounded park */
    GAR__WAIT_STEP_HINT_QUERY,     /* confirms a park's "the word reached" */
    GAR__WAIT_STEP_BACKSTOP_QUERY, /* the backstop (or the deadline) came due */
    GAR__WAIT_STEP_ENDED,          /* DONE or FAILED: action says which */
};

static const gar_wait_op gar__wait_step_op[] = {
    [GAR__WAIT_STEP_BLOCK] = GAR_WAIT_OP_BLOCK,
    [GAR__WAIT_STEP_FIRST_QUERY] = GAR_WAIT_OP_QUERY,
    [GAR__WAIT_STEP_ARM] = GAR_WAIT_OP_ARM,
    [GAR__WAIT_STEP_SLEEP] = GAR_WAIT_OP_SLEEP_UNTIL,
    [GAR__WAIT_STEP_WAKE_QUERY] = GAR_WAIT_OP_QUERY,
    [GAR__WAIT_STEP_POLL] = GAR_WAIT_OP_POLL,
    [GAR__WAIT_STEP_PARK] = GAR_WAIT_OP_PARK,
    [GAR__WAIT_STEP_HINT_QUERY] = GAR_WAIT_OP_QUERY,
    [GAR__WAIT_STEP_BACKSTOP_QUERY] = GAR_WAIT_OP_QUERY,
};

/* The steps whose action may answer 1 (done, or the word reached). */
static const bool gar__wait_step_answers_done[] = {
    [GAR__WAIT_STEP_FIRST_QUERY] = true, [GAR__WAIT_STEP_WAKE_QUERY] = true,
    [GAR__WAIT_STEP_POLL] = true,        [GAR__WAIT_STEP_PARK] = true,
    [GAR__WAIT_STEP_HINT_QUERY] = true,  [GAR__WAIT_STEP_BACKSTOP_QUERY] = true,
};

static inline gar_mono_ns gar__wait_earlier(gar_mono_ns a, gar_mono_ns b)
{
    return a < b ? a : b;
}

/* The action's code stays 0 from gar_wait_init until the wait fails, after
 * which nothing is pended: a pend writes only the op and the time. */
static inline void gar__wait_pend(gar_wait *w, enum gar__wait_step step, gar_mono_ns until)
{
    w->step = step;
    w->action.op = gar__wait_step_op[step];
    w->action.until = until;
}

static inline void gar__wait_finish(gar_wait *w, gar_wait_kind kind, gar_sample_kind sample)
{
    w->step = GAR__WAIT_STEP_ENDED;
    w->action = (gar_wait_action){ .op = GAR_WAIT_OP_DONE, .until = 0, .code = 0 };
    w->report.kind = kind;
    w->report.sample.kind = sample;
    w->report.sample.ns = sample == GAR_SAMPLE_NONE ? 0 : w->report.wait_ns;
}

/* `code` is negated (< 0), as every gar function returns it. */
static inline void gar__wait_fail(gar_wait *w, int code)
{
    w->step = GAR__WAIT_STEP_ENDED;
    w->action = (gar_wait_action){ .op = GAR_WAIT_OP_FAILED, .until = 0, .code = code };
}

/* The flag park stage's next step at w->now: a backstop query once `due`
 * came, else a park that ends no later than `due`. */
static inline void gar__wait_flag_step(gar_wait *w)
{
    if (w->now >= w->due)
        gar__wait_pend(w, GAR__WAIT_STEP_BACKSTOP_QUERY, 0);
    else
        gar__wait_pend(w, GAR__WAIT_STEP_PARK,
                      gar__wait_earlier(gar_after(w->now, w->park_ns), w->due));
}

static inline void gar__wait_park_stage(gar_wait *w)
{
    if (w->park == GAR_PARK_POLL)
        gar__wait_pend(w, GAR__WAIT_STEP_POLL, 0);
    else
        gar__wait_flag_step(w);
}

/* After the first query (and the arm, for flag): sleep if the predicted wake
 * is still ahead, else straight to the park stage. */
static inline void gar__wait_sleep_or_park(gar_wait *w)
{
    if (w->wake_at != GAR_MONO_NEVER && w->wake_at > w->now)
        gar__wait_pend(w, GAR__WAIT_STEP_SLEEP, w->wake_at);
    else
        gar__wait_park_stage(w);
}

/* Every query or poll that answers pending passes here: the deadline is
 * checked, and a query restarts the backstop.  Returns false when the wait
 * failed on its deadline. */
static inline bool gar__wait_still_pending(gar_wait *w, bool was_query, gar_error *err)
{
    if (w->deadline != GAR_MONO_NEVER && w->now >= w->deadline) {
        gar_wait_fail_deadline(w, err);
        return false;
    }
    if (was_query)
        w->due = gar__wait_earlier(gar_after(w->now, w->backstop_ns), w->deadline);
    return true;
}

/* The transitions of a batch (gar/wait.h, gar_wait_feed_polls and
 * gar_wait_feed_parks), on arguments those functions have checked: what
 * `count` single feeds of 0 would do, each counting its action and moving
 * the time on to `now`.  A pending poll pends the next poll, already
 * pending; a park that times out before the due time pends the next park
 * (gar__wait_flag_step), so only the last one's bound survives.  Inline for
 * the simulator, which builds its batches to those rules and feeds one or
 * two a wait. */
static inline void gar__wait_take_polls(gar_wait *w, uint64_t count, gar_mono_ns now)
{
    w->now = now;
    w->report.wait_ns = gar_since(now, w->start);
    w->report.polls += count; /* wraps as `count` increments would */
}

static inline void gar__wait_take_parks(gar_wait *w, uint64_t count, gar_mono_ns now)
{
    w->now = now;
    w->report.wait_ns = gar_since(now, w->start);
    w->report.parks += count; /* wraps as `count` increments would */
    gar__wait_flag_step(w);
}

static inline int gar_wait_init(gar_wait *wait, const gar_plan *plan, bool has_sleep,
                                gar_dur_ns sleep_ns, gar_mono_ns start, gar_mono_ns deadline,
                                gar_error *err)
{
    static const char fn[] = "gar_wait_init";
    if (wait == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait", "is NULL");
    if (plan == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan", "is NULL");
    if (plan->park != GAR_PARK_BLOCK && plan->park != GAR_PARK_POLL && plan->park != GAR_PARK_FLAG)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan",
                             "has a park that is none of block, poll, flag (auto is a rule: "
                             "run the plan gar_auto_decide gives)");
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

    /* Field by field rather than one compound literal: the literal zeroed the
     * whole machine first (a `rep stos` on x86-64, about a third of the inline
     * driver's own time in a wait on completed work: perf on bench_wait_cost),
     * though every field is set here or by gar_wait_pend below. */
    wait->park = plan->park;
    wait->park_ns = plan->park_ns;
    wait->backstop_ns = plan->backstop_ns;
    wait->start = start;
    /* A wake time that saturates would never come: no sleep then. */
    wait->wake_at = sleeps ? gar__wait_earlier(gar_after(start, sleep_ns), deadline)
                           : GAR_MONO_NEVER;
    wait->deadline = deadline;
    wait->now = start;
    wait->due = GAR_MONO_NEVER;
    /* The report is zeroed whole, padding too: callers compare reports bytewise. */
    memset(&wait->report, 0, sizeof wait->report);
    wait->action.code = 0;
    gar__wait_pend(wait, plan->park == GAR_PARK_BLOCK ? GAR__WAIT_STEP_BLOCK
                                                      : GAR__WAIT_STEP_FIRST_QUERY,
                  0);
    return 0;
}

static inline int gar__wait_refuse_feed(gar_wait *w, const char *why, gar_error *err)
{
    return gar_wait_refuse(w, "gar_wait_feed", "result", why, err);
}

static inline void gar__wait_count(gar_wait *w, enum gar__wait_step step, gar_dur_ns took)
{
    gar_wait_report *r = &w->report;
    switch (step) {
    case GAR__WAIT_STEP_FIRST_QUERY:
    case GAR__WAIT_STEP_WAKE_QUERY:
    case GAR__WAIT_STEP_HINT_QUERY:
        r->queries++;
        break;
    case GAR__WAIT_STEP_BACKSTOP_QUERY:
        r->queries++;
        r->backstop_queries++;
        break;
    case GAR__WAIT_STEP_POLL:
        r->polls++;
        break;
    case GAR__WAIT_STEP_PARK:
        r->parks++;
        break;
    case GAR__WAIT_STEP_SLEEP:
        r->sleeps++;
        r->slept_ns = gar_after(r->slept_ns, took);
        break;
    case GAR__WAIT_STEP_BLOCK:
    case GAR__WAIT_STEP_ARM:
    case GAR__WAIT_STEP_ENDED:
        break;
    }
}

static inline int gar_wait_feed(gar_wait *wait, int result, gar_mono_ns now, gar_error *err)
{
    if (wait == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_wait_feed", "wait", "is NULL");
    gar_wait *w = wait;
    enum gar__wait_step step = (enum gar__wait_step)w->step;
    if (step == GAR__WAIT_STEP_ENDED)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_wait_feed", "wait",
                             "has ended; nothing more may be fed");
    if (now < w->now)
        return gar__wait_refuse_feed(w, "came with a time earlier than the last one fed", err);

    gar_mono_ns before = w->now;
    w->now = now;
    w->report.wait_ns = now - w->start; /* now >= w->now >= start */
    /* An answer of 0 or 1 is the common case: one test lets it through to
     * the transitions, which count their own action; a failure or an
     * answer out of range is counted here. */
    if ((unsigned)result > 1u || (result == 1 && !gar__wait_step_answers_done[step])) {
        gar__wait_count(w, step, now - before);
        if (result < 0) {
            gar__wait_fail(w, result);
            return 0;
        }
        return gar__wait_refuse_feed(w,
                           gar__wait_step_answers_done[step]
                               ? "is above 1 (a query, poll or park answers 1, 0 or <0)"
                               : "is above 0 (a sleep, arm or block answers 0 or <0)",
                           err);
    }
    bool done = result == 1;
    gar_wait_report *r = &w->report;

    switch (step) {
    case GAR__WAIT_STEP_BLOCK:
        gar__wait_finish(w, GAR_WAIT_KIND_BLOCKED, GAR_SAMPLE_NONE);
        break;
    case GAR__WAIT_STEP_FIRST_QUERY:
        r->queries++;
        if (done)
            gar__wait_finish(w, GAR_WAIT_KIND_IMMEDIATE, GAR_SAMPLE_EXACT);
        else if (gar__wait_still_pending(w, true, err)) {
            if (w->park == GAR_PARK_FLAG)
                gar__wait_pend(w, GAR__WAIT_STEP_ARM, 0);
            else
                gar__wait_sleep_or_park(w);
        }
        break;
    case GAR__WAIT_STEP_ARM:
        gar__wait_sleep_or_park(w);
        break;
    case GAR__WAIT_STEP_SLEEP:
        r->sleeps++;
        r->slept_ns = gar_after(r->slept_ns, now - before);
        /* Idle may wake early; the sleep goes on to the same time. */
        if (now < w->wake_at) {
            gar__wait_pend(w, GAR__WAIT_STEP_SLEEP, w->wake_at);
        } else {
            gar_dur_ns late = now - w->wake_at;
            r->sleep_late_ns = late < UINT32_MAX ? (uint32_t)late : UINT32_MAX;
            gar__wait_pend(w, GAR__WAIT_STEP_WAKE_QUERY, 0);
        }
        break;
    case GAR__WAIT_STEP_WAKE_QUERY:
        r->queries++;
        if (done)
            gar__wait_finish(w, GAR_WAIT_KIND_LATE, GAR_SAMPLE_LATE);
        else if (gar__wait_still_pending(w, true, err))
            gar__wait_park_stage(w);
        break;
    case GAR__WAIT_STEP_POLL:
        r->polls++;
        if (done)
            gar__wait_finish(w, GAR_WAIT_KIND_PARKED, GAR_SAMPLE_EXACT);
        else if (gar__wait_still_pending(w, false, err))
            gar__wait_pend(w, GAR__WAIT_STEP_POLL, 0);
        break;
    case GAR__WAIT_STEP_PARK:
        r->parks++;
        if (done)
            gar__wait_pend(w, GAR__WAIT_STEP_HINT_QUERY, 0);
        else
            gar__wait_flag_step(w);
        break;
    case GAR__WAIT_STEP_HINT_QUERY:
    case GAR__WAIT_STEP_BACKSTOP_QUERY:
        r->queries++;
        if (step == GAR__WAIT_STEP_BACKSTOP_QUERY)
            r->backstop_queries++;
        if (done)
            gar__wait_finish(w, GAR_WAIT_KIND_PARKED, GAR_SAMPLE_EXACT);
        else if (gar__wait_still_pending(w, true, err))
            gar__wait_flag_step(w);
        break;
    case GAR__WAIT_STEP_ENDED: /* refused above */
        break;
    }
    return 0;
}

#endif
