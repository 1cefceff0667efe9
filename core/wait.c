/* core/wait.c — the wait machine's cold half: its refusals, the batches of
 * polls and parks, the names.  The transitions themselves (gar_wait_init,
 * gar_wait_feed) are inline in gar/wait_steps.h. */
#include <gar/wait.h>

#include <assert.h>

#include "text.h"

/* Out of line (gar/wait_steps.h): it writes text, and runs at most once a
 * wait. */
void gar_wait_fail_deadline(gar_wait *w, gar_error *err)
{
    char at[GAR__U64_TEXT_BYTES + 3];
    gar__text_out text = gar__text_out_make(at, sizeof at);
    gar__text_put_u64(&text, w->deadline);
    gar__text_puts(&text, " ns");
    gar__wait_fail(w, gar_error_set(err, GAR_E_WAIT_DEADLINE, 2, "work", at));
}

/* A driver bug: the wait fails with it, so an unchecked feed still stops. */
int gar_wait_refuse(gar_wait *w, const char *fn, const char *what, const char *why,
                    gar_error *err)
{
    int code = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, what, why);
    gar__wait_fail(w, code);
    return code;
}

/* One kind of batch: the step it feeds and its words in refusals. */
typedef struct batch_kind {
    const char *fn;
    enum gar__wait_step step;
    const char *count_name, *not_at_step, *count_zero, *past_bound;
} batch_kind;

/* The checks a batch of `count` actions seen last at `now` must pass: the
 * wait at the kind's step, at least one action, time not going back, and
 * `now` before the bound past which a single feed would have decided
 * otherwise (the deadline for polls, the flag stage's due time for parks).
 * Returns 0, or the refusal (the wait failed with it, unless it had ended
 * or was NULL). */
static int check_batch(gar_wait *w, const batch_kind *k, uint64_t count, gar_mono_ns now,
                       gar_error *err)
{
    if (w == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, k->fn, "wait", "is NULL");
    if (w->step == GAR__WAIT_STEP_ENDED)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, k->fn, "wait",
                             "has ended; nothing more may be fed");
    if (w->step != k->step)
        return gar_wait_refuse(w, k->fn, "wait", k->not_at_step, err);
    if (count == 0)
        return gar_wait_refuse(w, k->fn, k->count_name, k->count_zero, err);
    if (now < w->now)
        return gar_wait_refuse(w, k->fn, "now", "is earlier than the last time fed", err);
    bool past = k->step == GAR__WAIT_STEP_POLL
                    ? w->deadline != GAR_MONO_NEVER && now >= w->deadline
                    : now >= w->due;
    if (past)
        return gar_wait_refuse(w, k->fn, "now", k->past_bound, err);
    return 0;
}

int gar_wait_feed_polls(gar_wait *wait, uint64_t pending, gar_mono_ns now, gar_error *err)
{
    static const batch_kind polls = {
        .fn = "gar_wait_feed_polls",
        .step = GAR__WAIT_STEP_POLL,
        .count_name = "pending",
        .not_at_step = "is not at a poll (only polls are fed in batches)",
        .count_zero = "is 0 (a batch is at least one poll)",
        .past_bound = "is at or past the deadline (feed the polls around it one by one)",
    };
    int rc = check_batch(wait, &polls, pending, now, err);
    if (rc < 0)
        return rc;
    /* None of the single feeds would fail: every time is before the deadline. */
    gar__wait_take_polls(wait, pending, now);
    return 0;
}

int gar_wait_feed_parks(gar_wait *wait, uint64_t parks, gar_mono_ns now, gar_error *err)
{
    static const batch_kind park_batch = {
        .fn = "gar_wait_feed_parks",
        .step = GAR__WAIT_STEP_PARK,
        .count_name = "parks",
        .not_at_step = "is not at a park (only parks are fed so)",
        .count_zero = "is 0 (a batch is at least one park)",
        .past_bound = "is at or past the due time (feed the park that reaches it alone)",
    };
    int rc = check_batch(wait, &park_batch, parks, now, err);
    if (rc < 0)
        return rc;
    gar__wait_take_parks(wait, parks, now);
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
