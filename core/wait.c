/* core/wait.c — the wait machine's cold half: its refusals, the batches of
 * polls and parks, the names.  The transitions themselves (gar_wait_init,
 * gar_wait_feed) are inline in gar/wait_steps.h. */
#include <gar/wait.h>

#include <assert.h>

#include "text.h"

/* Out of line (gar/wait_steps.h): it writes text, and runs at most once a
 * wait. */
void gar__wait_fail_deadline(gar_wait *w, gar_error *err)
{
    char at[GAR__U64_TEXT_BYTES + 3];
    gar__text_out text = gar__text_out_make(at, sizeof at);
    gar__text_put_u64(&text, w->deadline);
    gar__text_puts(&text, " ns");
    gar__wait_fail(w, gar_error_set(err, GAR_E_WAIT_DEADLINE, 2, "work", at));
}

/* A driver bug: the wait fails with it, so an unchecked feed still stops. */
int gar__wait_refuse(gar_wait *w, const char *fn, const char *what, const char *why,
                    gar_error *err)
{
    int code = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, what, why);
    gar__wait_fail(w, code);
    return code;
}

int gar_wait_feed_polls(gar_wait *wait, uint64_t pending, gar_mono_ns now, gar_error *err)
{
    static const char fn[] = "gar_wait_feed_polls";
    if (wait == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait", "is NULL");
    gar_wait *w = wait;
    if (w->step == GAR__WAIT_STEP_ENDED)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait",
                             "has ended; nothing more may be fed");
    if (w->step != GAR__WAIT_STEP_POLL)
        return gar__wait_refuse(w, fn, "wait", "is not at a poll (only polls are fed in batches)",
                               err);
    if (pending == 0)
        return gar__wait_refuse(w, fn, "pending", "is 0 (a batch is at least one poll)", err);
    if (now < w->now)
        return gar__wait_refuse(w, fn, "now", "is earlier than the last time fed", err);
    if (w->deadline != GAR_MONO_NEVER && now >= w->deadline)
        return gar__wait_refuse(w, fn, "now",
                         "is at or past the deadline (feed the polls around it one by one)", err);
    /* What `pending` single feeds of 0 would do: each counts its poll and
     * moves the time on; none fails, since every time is before the
     * deadline; each pends the next poll, which is already pending. */
    w->now = now;
    w->report.wait_ns = gar_since(now, w->start);
    w->report.polls += pending; /* wraps as `pending` increments would */
    return 0;
}

int gar_wait_feed_parks(gar_wait *wait, uint64_t parks, gar_mono_ns now, gar_error *err)
{
    static const char fn[] = "gar_wait_feed_parks";
    if (wait == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait", "is NULL");
    gar_wait *w = wait;
    if (w->step == GAR__WAIT_STEP_ENDED)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait",
                             "has ended; nothing more may be fed");
    if (w->step != GAR__WAIT_STEP_PARK)
        return gar__wait_refuse(w, fn, "wait", "is not at a park (only parks are fed so)", err);
    if (parks == 0)
        return gar__wait_refuse(w, fn, "parks", "is 0 (a batch is at least one park)", err);
    if (now < w->now)
        return gar__wait_refuse(w, fn, "now", "is earlier than the last time fed", err);
    if (now >= w->due)
        return gar__wait_refuse(w, fn, "now",
                         "is at or past the due time (feed the park that reaches it alone)",
                         err);
    /* What `parks` single feeds of 0 would do: each counts its park and
     * moves the time on, and, before the due time, pends the next park
     * (gar__wait_flag_step); the last one's bound is the one left. */
    w->now = now;
    w->report.wait_ns = gar_since(now, w->start);
    w->report.parks += parks; /* wraps as `parks` increments would */
    gar__wait_flag_step(w);
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
