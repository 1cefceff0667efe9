/* gar/wait.h — one wait as a sans-I/O state machine.
 *
 * The machine decides; a driver acts.  Given the resolved plan, the point's
 * predicted sleep and the start time, the machine names one action at a time
 * (query, arm, sleep until t, park until t, poll, block) and the driver
 * performs it through its ports and feeds back the answer and the time it
 * came.  The machine never calls a port, reads a clock or sleeps, so the
 * inline driver, the reactor and the simulator run the very same decisions:
 * simulated and real runs differ only in what the world did.
 *
 *     gar_wait w;
 *     gar_wait_init(&w, &plan, has_sleep, sleep_ns, clock_now(), GAR_MONO_NEVER, err);
 *     for (;;) {
 *         gar_wait_action a = gar_wait_next(&w);
 *         if (a.op == GAR_WAIT_OP_DONE || a.op == GAR_WAIT_OP_FAILED) break;
 *         int rc = ...perform a...;
 *         gar_wait_feed(&w, rc, clock_now(), err);
 *     }
 *     gar_wait_report r = gar_wait_report_of(&w);
 *
 * The order:
 *  1. "block": BLOCK, nothing else.  Kind BLOCKED, no sample.
 *  2. Otherwise one QUERY.  Done: kind IMMEDIATE, sample Exact(t − start).
 *  3. "flag": ARM.
 *  4. A predicted sleep s (plan has predict, the point has a sleep):
 *     SLEEP_UNTIL(start + s), then QUERY.  Done: kind LATE, Late(t − start).
 *  5. Park stage.  "poll": POLL until one answers done.  "flag": PARKs and
 *     QUERYs as below until a QUERY answers done.  Kind PARKED,
 *     Exact(t − start).
 * where t is always the `now` fed with the answer that said done.
 *
 * The finer points, as gar decides them:
 *
 * - Time.  The machine knows only the times it is fed: `start`, then the
 *   `now` fed with each answer, which is the time the driver saw that answer
 *   (read after the port call returned).  So Immediate's residual is the time
 *   the first query's answer was seen, less start; every sample and wait_ns
 *   are measured the same way.  All time arithmetic saturates.  A fed time
 *   earlier than the one before is refused (clocks never go back).
 *
 * - Sleep.  Used only when the plan has predict and has_sleep is true with
 *   sleep_ns > 0; it must not exceed the plan's max_sleep_ns (refused, never
 *   clamped: the estimator already bounds it).  The machine sleeps until
 *   exactly start + s, or the deadline when that comes first, never longer.
 *   When that time is not after the last fed time (the first query or the arm
 *   took that long) there is no sleep and no wake query: the wait goes
 *   straight to the park stage.  A sleep that returns early (a spurious wake)
 *   is issued again, to the same time; slept_ns counts the whole time asleep,
 *   overshoot included, from the time fed before each SLEEP_UNTIL to the time
 *   fed with its answer.
 *
 * - Parks and backstop queries ("flag").  Every status query (the first, the
 *   wake query, a backstop query, a confirming query) restarts the backstop:
 *   the next query is due at (time of the last query's answer) + backstop_ns,
 *   or at the deadline when that comes first.  Call that instant `due`.  At
 *   each step of the park stage, with `now` the last fed time:
 *     now >= due  -> QUERY (a backstop query);
 *     otherwise   -> PARK until min(now + park_ns, due).
 *   So each park's bound is at most park_ns after it was decided, and the
 *   last park before a backstop is trimmed to end exactly at `due`: no park
 *   crosses the backstop instant.  A park answering 0 (its bound, or a
 *   spurious wake) just takes the next step.  A park answering 1 says the
 *   word reached its target, a hint only: the machine issues a confirming
 *   QUERY at once.  Done ends the wait; pending goes on parking (the word
 *   alone never ends a wait).  A lost store (status done, word never moves)
 *   ends at the next backstop query.  A word that reached its target while
 *   status still says pending never ends the wait; every park on it then
 *   answers 1 at once, so each step is a park and a confirming query — the
 *   wait runs as a query loop (the poll plan, flag's declared fallback) until
 *   status agrees, trusting the authority over the hint.  The gap
 *   between two queries' answers is at most backstop_ns plus the overshoot of
 *   the park that ends at `due` and the query's own cost.
 *
 * - Deadline (optional, absolute; GAR_MONO_NEVER for none).  For a device
 *   that never completes (the simulator's hung device).  After any QUERY or
 *   POLL answers pending with now >= deadline, the wait fails with
 *   GAR_E_WAIT_DEADLINE ("wait", the deadline in ns).  Sleeps and parks are
 *   trimmed so none runs past it, so the failing query comes at the deadline
 *   (plus overshoot), never a park or a backstop later.  A BLOCK cannot be
 *   bounded by the machine: a driver that can bound it (the simulator) feeds
 *   -GAR_E_WAIT_DEADLINE itself.
 *
 * - Errors.  A negative answer to any action ends the wait: FAILED with that
 *   code, unchanged, and nothing after it (`err` keeps what the port wrote).
 *   An answer outside an action's range (2 from a query, 1 from a sleep, arm
 *   or block), or a time that goes back, is a driver bug: the wait fails with
 *   GAR_E_INVALID_ARGUMENT, so a driver that ignores gar_wait_feed's result
 *   still stops rather than loop.
 *
 * - Counters (the report).  Each counts actions answered, failed ones
 *   included: `queries` every QUERY; `backstop_queries` the QUERYs of the
 *   flag park stage issued because `due` came (backstop or deadline), as
 *   opposed to the first query, the wake query and those confirming a park's
 *   hint; `parks` every PARK; `polls` every POLL (each poll of a batch fed
 *   with gar_wait_feed_polls); `sleeps` every SLEEP_UNTIL (more than one
 *   only after spurious wakes), and `sleep_late_ns` how long after its
 *   target (start + s, or the deadline) the answer that ended the sleep
 *   came.  The block itself is not
 *   counted (kind BLOCKED says it ran).  wait_ns is from start to the last fed
 *   time: the answer that ended the wait, done or failed.
 *
 * Memory.  The machine is a caller-owned plain value of fixed size
 * (sizeof(gar_wait): 176 bytes on LP64 hosts); it allocates nothing and holds no
 * pointers, so it may be copied between actions: the copy is an independent
 * wait in the same state (the simulator may fork one).  It is not thread-safe:
 * one driver feeds it.  Its fields are private; use the functions below. */
#ifndef GAR_WAIT_H
#define GAR_WAIT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/plan.h>
#include <gar/sample.h>
#include <gar/time.h>

/* What the driver does next. */
typedef enum gar_wait_op {
    GAR_WAIT_OP_QUERY,       /* port query: answer 1 done, 0 pending, <0 error */
    GAR_WAIT_OP_ARM,         /* port arm; keep the descriptor for PARK: 0, <0 */
    GAR_WAIT_OP_SLEEP_UNTIL, /* idle sleep_until(action.until): 0, <0 */
    GAR_WAIT_OP_PARK,        /* port park on the armed word until action.until: 1, 0, <0 */
    GAR_WAIT_OP_POLL,        /* port poll: 1 done, 0 pending, <0 error */
    GAR_WAIT_OP_BLOCK,       /* port block: 0 done, <0 error */
    GAR_WAIT_OP_DONE,        /* the wait ended done: read the report; feed nothing more */
    GAR_WAIT_OP_FAILED,      /* the wait ended with action.code; feed nothing more */
} gar_wait_op;

typedef struct gar_wait_action {
    gar_wait_op op;
    gar_mono_ns until; /* SLEEP_UNTIL: the wake time; PARK: the park's bound; else 0 */
    int code;          /* FAILED: the negated gar code; else 0 */
} gar_wait_action;

/* How the wait ended. */
typedef enum gar_wait_kind {
    GAR_WAIT_KIND_NONE,      /* no completion seen: still running, or failed */
    GAR_WAIT_KIND_BLOCKED,   /* the vendor's blocking wait returned */
    GAR_WAIT_KIND_IMMEDIATE, /* the first query found it done */
    GAR_WAIT_KIND_LATE,      /* the query after the sleep found it done */
    GAR_WAIT_KIND_PARKED,    /* a poll, or a query of the park stage, found it done */
} gar_wait_kind;

typedef struct gar_wait_report {
    gar_wait_kind kind;
    uint32_t sleep_late_ns;     /* how long after its target the sleep woke (0: no sleep),
                                 * saturating at UINT32_MAX (4.3 s): the host's sleep
                                 * overshoot, as gar_auto_learn reads it */
    gar_sample sample;          /* NONE for BLOCKED and unfinished waits */
    gar_dur_ns wait_ns;         /* start to the answer that ended the wait */
    gar_dur_ns slept_ns;        /* total time in SLEEP_UNTIL, overshoot included */
    uint64_t sleeps;            /* SLEEP_UNTIL actions */
    uint64_t parks;             /* PARK actions */
    uint64_t queries;           /* QUERY actions, backstop queries included */
    uint64_t backstop_queries;  /* QUERYs issued because the backstop (or deadline) came due */
    uint64_t polls;             /* POLL actions */
} gar_wait_report;

/* The machine.  Private fields: a caller owns the storage, never the state. */
typedef struct gar_wait {
    gar_park park;
    gar_dur_ns park_ns;
    gar_dur_ns backstop_ns;
    gar_mono_ns start;
    gar_mono_ns wake_at;   /* end of the predicted sleep; GAR_MONO_NEVER when none */
    gar_mono_ns deadline;
    gar_mono_ns now;       /* the time fed last; start before the first answer */
    gar_mono_ns due;       /* flag park stage: when the next backstop query is due */
    unsigned step;         /* what the pending action is for (internal) */
    gar_wait_action action;
    gar_wait_report report;
} gar_wait;

/* Starts a wait at `start` under the resolved `plan`.  `has_sleep` and
 * `sleep_ns` are the point's predicted sleep, used only when plan->predict
 * (pass false, 0 for a cold point).  `deadline` is absolute, GAR_MONO_NEVER
 * for none.  Returns 0 with the first action pending, or
 * -GAR_E_INVALID_ARGUMENT (the machine then untouched) for: a NULL wait or
 * plan; a park that is none of block/poll/flag; "block" with predict; "flag"
 * with park_ns or backstop_ns 0; a sleep longer than the plan's
 * max_sleep_ns. */
static inline int gar_wait_init(gar_wait *wait, const gar_plan *plan, bool has_sleep,
                                gar_dur_ns sleep_ns, gar_mono_ns start, gar_mono_ns deadline,
                                gar_error *err);

/* The pending action (DONE or FAILED once the wait has ended).  Pure: it
 * reads the machine only, so asking twice gives the same answer.  Inline (a
 * driver asks once an action, the simulator millions of times a second); the
 * pending action is stored, so this is the read of one field. */
static inline gar_wait_action gar_wait_next(const gar_wait *wait)
{
    return wait->action;
}

/* Feeds the answer `result` of the pending action, seen at `now`.  A
 * negative `result` is the port's (or idle's) error and ends the wait with
 * it.  Returns 0 when the answer was taken (the wait may have ended by it:
 * ask gar_wait_next), or -GAR_E_INVALID_ARGUMENT with `err` filled for an
 * answer out of the action's range or a `now` earlier than the last one — the
 * wait then ends FAILED with that code — or for a feed after the wait ended,
 * which leaves the ended wait as it was. */
static inline int gar_wait_feed(gar_wait *wait, int result, gar_mono_ns now, gar_error *err);

/* Feeds a batch of polls: `pending` POLL actions, each answered 0 (pending),
 * the last one seen at `now`.  Exactly equivalent to `pending` calls of
 * gar_wait_feed(wait, 0, t_k, err) with t_1 <= ... <= t_pending = now, all
 * before the deadline: the same report (polls, wait_ns), the same next
 * action (POLL again), the same state for every feed after.  The times of the
 * polls before the last are not needed: a pending poll changes nothing but
 * the poll count and the last time, and its only decision — fail at the
 * deadline — cannot fire before the deadline.  That is the batch's whole
 * contract, and why it is safe: a driver that can tell many polls will
 * answer pending (the simulator, which knows when the work completes) skips
 * the turns in between, and the machine still makes every decision.
 *
 * The caller must end a batch before the deadline: `now` at or past it is
 * refused, because there a single feed would have failed the wait at the
 * first poll that crossed it, whose time the batch does not say.  Feed the
 * polls around the deadline one by one.  A poll that answers done (or an
 * error) is fed alone too, with gar_wait_feed.
 *
 * Returns 0 when the batch was taken, or -GAR_E_INVALID_ARGUMENT with `err`
 * filled for: a NULL wait; a wait that has ended (left as it was); and, ending
 * the wait FAILED with that code as gar_wait_feed does for a driver bug, a
 * pending action other than POLL, `pending` 0 (a batch is at least one poll),
 * a `now` earlier than the last one fed, or a `now` at or past the
 * deadline. */
GAR_API int gar_wait_feed_polls(gar_wait *wait, uint64_t pending, gar_mono_ns now, gar_error *err);

/* Feeds a batch of parks: `parks` PARK actions, each answered 0 (it timed
 * out, the word not reached), the last one seen at `now`, which is before
 * the time the flag park stage comes due (gar_wait_park_due).  Exactly
 * equivalent to `parks` calls of gar_wait_feed(wait, 0, t_k, err) with
 * t_1 <= ... <= t_parks = now: a park that times out before the due time
 * changes nothing but the park count and the last time, and pends another
 * park bounded by min(t_k + park, due) — so only the last one's bound
 * survives, and it is the one the batch pends.  The driver, not the machine,
 * keeps each park of the batch to the bound the single feeds would have
 * given it (min(t_{k-1} + park, due), t_0 the time the first was pended),
 * as a simulator does when it knows the word will not be reached before
 * them.  The park that ends at or past the due time, and a park the word
 * ends, are fed alone, with gar_wait_feed.
 *
 * Returns 0 when the batch was taken, or -GAR_E_INVALID_ARGUMENT with `err`
 * filled for: a NULL wait; a wait that has ended (left as it was); and, ending
 * the wait FAILED with that code as gar_wait_feed does for a driver bug, a
 * pending action other than PARK, `parks` 0, a `now` earlier than the last
 * one fed, or a `now` at or past the due time. */
GAR_API int gar_wait_feed_parks(gar_wait *wait, uint64_t parks, gar_mono_ns now, gar_error *err);

/* While PARK is pending: when the flag park stage stops parking and issues
 * a backstop query (the backstop after the last query, or the deadline,
 * whichever is first); every park ends by then.  GAR_MONO_NEVER when PARK is
 * not pending.  Inline: a reading of the machine, for a driver that batches
 * parks. */
static inline gar_mono_ns gar_wait_park_due(const gar_wait *wait)
{
    return wait->action.op == GAR_WAIT_OP_PARK ? wait->due : GAR_MONO_NEVER;
}

/* The report so far; final once gar_wait_next says DONE or FAILED.  Inline,
 * like gar_wait_next. */
static inline gar_wait_report gar_wait_report_of(const gar_wait *wait)
{
    return wait->report;
}

/* Lower-case names for logs and tables ("query", "sleep-until"; "parked"),
 * or "?" for a value out of range. */
GAR_API const char *gar_wait_op_name(gar_wait_op op);
GAR_API const char *gar_wait_kind_name(gar_wait_kind kind);

/* The bodies of gar_wait_init and gar_wait_feed: inline, so that drivers
 * run the machine without a call an action (gar/wait_steps.h says why). */
#include <gar/wait_steps.h>

#endif
