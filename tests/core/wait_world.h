/* tests/core/wait_world.h — a scripted world for wait tests: a test clock, one
 * piece of device work and its completion word, and a log of every action
 * performed against them.
 *
 * Time is a plain counter that only the world's operations move, each by a
 * scripted cost, so every action's start and answer times are known exactly.
 * The work's status turns done at `done_at`; its word reaches the target at
 * `word_at` (normally the same instant; GAR_MONO_NEVER is a lost store; earlier
 * than done_at is a word that runs ahead of status).  Any operation can be made
 * to fail on its n-th call.  Shared by the machine's tests (which drive the
 * machine themselves) and the inline driver's tests (which wrap the world in
 * ports), so both are checked against the same log. */
#ifndef GAR_TEST_WAIT_WORLD_H
#define GAR_TEST_WAIT_WORLD_H

#include <stdbool.h>
#include <stddef.h>

#include <gar/error.h>
#include <gar/line.h>
#include <gar/plan.h>
#include <gar/time.h>
#include <gar/wait.h>

#define WORLD_LOG_MAX 1024
#define START UINT64_C(1000000) /* every wait starts at 1 ms, not 0, so offsets show */
#define AT(offset) (START + (offset))

typedef struct world_entry {
    gar_wait_op op;
    gar_mono_ns at;       /* when the action began */
    gar_mono_ns until;    /* SLEEP_UNTIL and PARK: the bound asked; else 0 */
    int result;           /* what it answered */
    gar_mono_ns answered; /* when it answered */
} world_entry;

typedef struct world {
    gar_mono_ns now;
    gar_mono_ns done_at; /* status says done from here on */
    gar_mono_ns word_at; /* the word reaches its target here, once armed */
    gar_dur_ns query_cost;
    gar_dur_ns poll_cost;
    gar_dur_ns arm_cost;
    gar_dur_ns park_wake;    /* a park answers this long after the word reached */
    gar_dur_ns sleep_over;   /* a sleep's overshoot */
    gar_dur_ns block_wake;   /* the blocking wait answers this long after done */
    gar_mono_ns block_gives_up_at; /* a block never done answers -WAIT_DEADLINE here */
    unsigned early_sleeps;   /* this many sleeps wake halfway (spuriously) */
    gar_wait_op fail_op;     /* the op that fails ... */
    unsigned fail_nth;       /* ... on this call (1-based; 0: never) ... */
    int fail_code;           /* ... with this negated code */
    unsigned calls[GAR_WAIT_OP_FAILED + 1];
    bool armed;
    gar_line line;
    world_entry log[WORLD_LOG_MAX];
    size_t n;
} world;

/* The common world: work done at `done_at` with its word stored at once. */
static inline void world_init(world *w, gar_mono_ns done_at)
{
    *w = (world){
        .now = START,
        .done_at = done_at,
        .word_at = done_at,
        .query_cost = 500,
        .poll_cost = 200,
        .arm_cost = 300,
        .park_wake = 400,
        .sleep_over = 5000,
        .block_wake = 7000,
        .block_gives_up_at = GAR_MONO_NEVER,
    };
    gar_line_init(&w->line);
}

/* Starts an action: counts the call, and says whether it is the one to fail. */
static inline bool world_begin(world *w, gar_wait_op op)
{
    w->calls[op]++;
    return w->fail_nth != 0 && w->fail_op == op && w->calls[op] == w->fail_nth;
}

static inline int world_end(world *w, gar_wait_op op, gar_mono_ns at, gar_mono_ns until, int result,
                            gar_error *err)
{
    if (result < 0)
        gar_error_set(err, (gar_code)-result, 2, "world", "injected");
    if (w->n < WORLD_LOG_MAX)
        w->log[w->n] = (world_entry){ op, at, until, result, w->now };
    w->n++;
    return result;
}

static inline gar_mono_ns world_max(gar_mono_ns a, gar_mono_ns b)
{
    return a > b ? a : b;
}

static inline int world_query(world *w, gar_error *err)
{
    gar_mono_ns at = w->now;
    bool fails = world_begin(w, GAR_WAIT_OP_QUERY);
    w->now = gar_after(w->now, w->query_cost);
    return world_end(w, GAR_WAIT_OP_QUERY, at, 0, fails ? w->fail_code : w->now >= w->done_at, err);
}

static inline int world_poll(world *w, gar_error *err)
{
    gar_mono_ns at = w->now;
    bool fails = world_begin(w, GAR_WAIT_OP_POLL);
    w->now = gar_after(w->now, w->poll_cost);
    return world_end(w, GAR_WAIT_OP_POLL, at, 0, fails ? w->fail_code : w->now >= w->done_at, err);
}

static inline int world_arm(world *w, gar_error *err)
{
    gar_mono_ns at = w->now;
    bool fails = world_begin(w, GAR_WAIT_OP_ARM);
    w->now = gar_after(w->now, w->arm_cost);
    w->armed = !fails;
    return world_end(w, GAR_WAIT_OP_ARM, at, 0, fails ? w->fail_code : 0, err);
}

/* Answers 1 at once when the word has already reached, 1 park_wake after it
 * reaches within the bound, else 0 at the bound. */
static inline int world_park(world *w, gar_mono_ns until, gar_error *err)
{
    gar_mono_ns at = w->now;
    if (world_begin(w, GAR_WAIT_OP_PARK))
        return world_end(w, GAR_WAIT_OP_PARK, at, until, w->fail_code, err);
    int result;
    if (w->armed && w->now >= w->word_at) {
        result = 1;
    } else if (w->armed && gar_after(w->word_at, w->park_wake) <= until) {
        w->now = world_max(w->now, gar_after(w->word_at, w->park_wake));
        result = 1;
    } else {
        w->now = world_max(w->now, until);
        result = 0;
    }
    return world_end(w, GAR_WAIT_OP_PARK, at, until, result, err);
}

static inline int world_sleep(world *w, gar_mono_ns until, gar_error *err)
{
    gar_mono_ns at = w->now;
    if (world_begin(w, GAR_WAIT_OP_SLEEP_UNTIL))
        return world_end(w, GAR_WAIT_OP_SLEEP_UNTIL, at, until, w->fail_code, err);
    if (w->early_sleeps > 0 && until > w->now) {
        w->early_sleeps--;
        w->now += (until - w->now) / 2;
    } else {
        w->now = gar_after(world_max(w->now, until), w->sleep_over);
    }
    return world_end(w, GAR_WAIT_OP_SLEEP_UNTIL, at, until, 0, err);
}

static inline int world_block(world *w, gar_error *err)
{
    gar_mono_ns at = w->now;
    if (world_begin(w, GAR_WAIT_OP_BLOCK))
        return world_end(w, GAR_WAIT_OP_BLOCK, at, 0, w->fail_code, err);
    gar_mono_ns wakes = gar_after(world_max(w->now, w->done_at), w->block_wake);
    if (wakes > w->block_gives_up_at) {
        w->now = world_max(w->now, w->block_gives_up_at);
        return world_end(w, GAR_WAIT_OP_BLOCK, at, 0, -GAR_E_WAIT_DEADLINE, err);
    }
    w->now = wakes;
    return world_end(w, GAR_WAIT_OP_BLOCK, at, 0, 0, err);
}

/* The five fixed plans (README, "Wait plans"), as the parser would produce them. */
static inline gar_deadline reference_deadline(void)
{
    return (gar_deadline){ .margin_ns = 150 * GAR_NS_PER_US,
                           .min_sleep_ns = 20 * GAR_NS_PER_US,
                           .max_sleep_ns = 50000 * GAR_NS_PER_US,
                           .window = 8 };
}

static inline gar_plan plan_block(void)
{
    return (gar_plan){ .park = GAR_PARK_BLOCK };
}

static inline gar_plan plan_poll(bool predict)
{
    return (gar_plan){ .park = GAR_PARK_POLL, .predict = predict,
                       .deadline = predict ? reference_deadline() : (gar_deadline){ 0 } };
}

static inline gar_plan plan_flag(bool predict)
{
    return (gar_plan){ .park = GAR_PARK_FLAG,
                       .park_ns = 100 * GAR_NS_PER_US,
                       .backstop_ns = 1000 * GAR_NS_PER_US,
                       .predict = predict,
                       .deadline = predict ? reference_deadline() : (gar_deadline){ 0 } };
}

#endif
