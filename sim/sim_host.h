/* sim/sim_host.h — a simulated host: runs one wait in virtual time.
 *
 * The host drives the very same sans-I/O wait machine (gar/wait.h) as the
 * real drivers, and performs each action it names against a simulated device
 * (sim_device.h) with the costs of a host profile (host_profile.h), drawing
 * every random latency from one seeded generator.  A direct switch on the
 * action stands where a real driver calls its ports: the decisions are the
 * machine's, only the world is simulated.
 *
 * What each action costs, starting at the time t the previous answer was seen
 * (the wait's start for the first):
 *   QUERY        query_ns, busy; answers the status at t + query_ns.  With
 *                store_visible_ns stated (one draw v a wait, from the @LEADs
 *                around how long the device idled before the store, mixed:
 *                the completion less the wait's start), a query sees the
 *                completion only when it starts at or after it, and then
 *                takes max(query_ns, v): the load that first reads the line
 *                after the store waits for it to cross CPUs.
 *   ARM          query_ns, busy (one driver call, like a query); the store is
 *                enqueued at t + query_ns.
 *   POLL         one poll_period_ns sample then a query, busy; answers the
 *                status as a query starting after the period does.
 *   SLEEP_UNTIL  wakes at max(until, t) + one sleep_overshoot_ns sample,
 *                asleep (the core is free); the sample comes from the
 *                stated sleep_overshoot_ns@LEAD nearest the sleep's length
 *                until - t, if any (gar_host_dist_for_lead): the
 *                blocking wake and the visibility mix the leads around a
 *                length, because verification measured them stepping
 *                between leads where the machine does not; the sleep's
 *                leads have not been measured so, and keep the nearest.
 *   PARK         wakes at min(store + one park_wake_ns sample, until) and
 *                answers 1 when the awaited store landed by `until`, else
 *                wakes at `until` and answers 0; a word already reached
 *                answers 1 at once.  Parked (the core is held but idle) when
 *                the profile has word_wait, else busy (a spin).  Only the
 *                awaited word's store wakes a park: in a replay the waiting
 *                host is the only one that arms stores.  Parks that time
 *                out before the stage's due time draw nothing, so a run of
 *                them is fed as one batch (gar_wait_feed_parks), each still
 *                observed as its own action: exact, not fast-forwarded.
 *   BLOCK        query_ns busy; then, unless already done, asleep until
 *                completion + one block_wake_ns sample, from the stated
 *                block_wake_ns@LEAD around how long the thread blocked
 *                (completion less the call's end), mixed, if any.  A block that would
 *                end past the deadline ends at the deadline with
 *                GAR_E_WAIT_DEADLINE (the machine cannot bound a block; the
 *                driver does).
 * and after every action the driver reads the clock: clock_ns, busy.  So the
 * three CPU counters of a wait always sum to its wait_ns, and one poll turn
 * costs T = poll period + query_ns + clock_ns, from Tmin (p0 of the period)
 * to Tmax (its p100).
 *
 * Fast-forwarded polls.  A poll loop takes thousands of turns a millisecond,
 * and simulating each (one draw, one machine step) would make poll plans
 * thousands of times slower to replay than the others.  The host knows when
 * the status will turn (the work's completion) and when the wait's deadline
 * comes; let `limit` be the earlier.  A turn whose clock read ends before
 * `limit` surely answers pending and is fed before the deadline, so the
 * turns before the one that crosses `limit` are fed to the machine as one
 * batch (gar_wait_feed_polls: the machine still makes every decision) once
 * their number and total time are known, and the crossing turn is performed
 * alone.  How they are drawn:
 *
 * Body and long turns.  A measured turn is a narrow body and a rare long
 * tail (dev-vm: 99.95 % of turns within 180 ns, the rest up to 55 µs, a
 * tenth of the time; the tail sets the p99).  gar_sim_host_init splits the
 * period's distribution at one of its listed levels: the body is the most
 * of it whose longest turn is at most 8 mean body turns and whose blocks
 * (below) may be 32 turns short; the rest is the tail, drawn with
 * probability P(tail) exactly as the sampler does (the draw's top 32 bits
 * at or above tail_from).  The number of body turns before the next long
 * turn is geometric; each long turn is drawn alone.  Both come from the
 * wait's long-turn stream, in the order the turn-by-turn loop draws them
 * too (exact_polls draws every turn's kind and value the same way), so a
 * fast and an exact replay of a seed meet the same long turns at nearly
 * the same places, and differ by the body's approximation alone.
 *
 * Body blocks.  Runs of body turns that surely end before `limit` (with
 * the long turns between them) are summed as one normal total, S = B*mu_b +
 * sigma_b*sqrt(B)*Z, clamped to [B*Tmin_b, B*Tmax_b] and to end before
 * `limit`, mu_b and sigma_b^2 the exact mean and variance of a body turn
 * under the piecewise-linear sampler.  "Surely" leaves 4 sigma_b sqrt(B) to
 * spare, and a block has at least 8 and 16*sigma_b^2/(mu_b - Tmin_b)^2
 * turns, where its floor is 4 deviations below its mean (else the clamp
 * would lengthen it on average).  The last stretch before `limit` — at
 * least the longest body turn, and what the blocks' spare leaves — is
 * drawn turn by turn, so the crossing turn and the overshoot are exact
 * draws given where the last block ended.  With a constant period (sigma
 * 0) everything is exact: the same times, counts and accounts as single
 * turns.
 *
 * Far limits.  When `limit` is so far that 8 long turns are due before it
 * and the body's phase has mixed (2 mu_b^2/sigma_b^2 + 64 body turns, plus
 * twice the longest turn), simulating each long turn costs more than it
 * tells: the crossing turn is drawn from the stationary renewal process —
 * its length x length-biased (P(x) proportional to x P(T = x)), `limit`
 * uniform in it — and the turns before it counted by the renewal CLT (mean
 * span/mu + sigma^2/mu^2, variance sigma^2 span/mu^3, for the whole turn's
 * mu and sigma).  Exact in the limit; its draws are not shared with the
 * turn-by-turn loop.
 *
 * Streams.  Three generators, seeded from the run's seed: the host's
 * (visibility, sleeps, parks, blocks), the poll stream (body turns, block
 * totals, far crossings) and, for each wait, a long-turn stream seeded from
 * the wait's index (kinds of turn and long turns).  So how many turns a
 * poll loop draws never shifts a later sleep or visibility draw, and fast
 * and exact replays of a seed share every draw but the body turns'.
 * Results are the same in distribution as single turns (to the blocks'
 * approximation), not byte for byte; set `exact_polls` to simulate every
 * turn alone (`gar replay --exact-polls`), to check the approximation on a
 * trace.

 * A hung item.  When the item never completes and no store for it is in
 * flight (the hang fault, or an item queued behind it), nothing the wait can
 * see changes before its deadline, so the host jumps the clock there instead
 * of stepping: a POLL feeds every turn before the deadline as one batch
 * (their number the time over the mean turn, whatever exact_polls says),
 * a PARK wakes at the deadline, and the next query fails the wait.  So a
 * hung wait takes a handful of steps whatever its deadline (the counts of
 * polls and parks in its report are then not each simulated; the wait
 * fails, so no metric uses them).  A hung item with no deadline
 * (GAR_MONO_NEVER) is refused: that wait would never end.
 *
 * The parks of a flag plan on a host without word_wait are busy spins too,
 * but each park is one action up to its bound (at most park_ns), so they
 * need no fast-forward.
 *
 * A host is a caller-owned plain value: the profile (copied), the
 * generators, what fast-forwarding needs of the poll period, which @LEAD
 * variants a length draws from and the plain distributions laid out for
 * drawing (all derived from the profile at init: change the profile before
 * gar_sim_host_init, not after), and the
 * exact_polls switch.  It allocates nothing; not thread-safe. */
#ifndef GAR_SIM_HOST_H
#define GAR_SIM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/plan.h>
#include <gar/time.h>
#include <gar/wait.h>

#include "sim/dist_draw.h"
#include "sim/host_profile.h"
#include "sim/prng.h"
#include "sim/sim_device.h"

/* The moments and bounds of one poll turn, or of one part of it. */
typedef struct gar_sim_turn_part {
    double mean;         /* mu */
    double sd;           /* sigma */
    gar_dur_ns min, max; /* Tmin, Tmax */
    uint64_t block_min;  /* the fewest turns a block of these takes (above) */
} gar_sim_turn_part;

/* One poll turn (period + query + clock read), as gar_sim_host_init
 * computes it from the profile: the whole turn (mean, sd, min, max,
 * block_min, as before the split), its short body and long tail (above),
 * and what the stationary draw of the turn that crosses a far limit needs. */
typedef struct gar_sim_poll_turn {
    double mean;         /* mu, of the whole turn */
    double sd;           /* sigma */
    gar_dur_ns min, max; /* Tmin, Tmax */
    uint64_t block_min;
    gar_sim_turn_part body;  /* a turn whose period draw is below tail_from */
    uint64_t tail_from;      /* top 32 bits of a draw from here up: a long turn; 2^32: none */
    unsigned tail_segment;   /* the period's first segment of the tail */
    double log_body;         /* ln P(body): geometric gaps between long turns; 0: no tail */
    gar_dur_ns stationary_from; /* a limit this far or farther: stationary crossing; or
                                 * GAR_MONO_NEVER */
    unsigned segments;          /* of the poll period's distribution */
    double biased_cdf[GAR_HOST_QUANTILES_MAX]; /* length-biased mass below each segment's end */
} gar_sim_poll_turn;

/* The stated @LEAD variants of a distribution, laid out once by
 * gar_sim_host_init: a length draws from the two around it, mixed
 * (gar_host_lead_sample's rule). */
typedef struct gar_sim_lead_pick {
    unsigned stated;                    /* 0: none, the plain distribution */
    uint8_t index[GAR_HOST_LEADS];      /* the stated leads, ascending */
    gar_dur_ns lead[GAR_HOST_LEADS];    /* their lengths */
} gar_sim_lead_pick;

/* One action as the host performed it, for an observer (tests compare the
 * simulator's actions with the real drivers'): `repeat` POLL actions, all
 * answering pending, when polls were fed as one batch (from `at` to
 * `answered` together; each one turn long when the turn is a constant),
 * else 1. */
typedef struct gar_sim_action {
    gar_wait_op op;
    gar_mono_ns until;    /* SLEEP_UNTIL and PARK: the bound asked; else 0 */
    gar_mono_ns at;       /* when it began */
    gar_mono_ns answered; /* when its answer came (before the clock read) */
    int answer;
    uint64_t repeat;
} gar_sim_action;

typedef struct gar_sim_host {
    gar_host_profile profile;
    gar_prng prng;      /* every draw but the poll turns' */
    gar_prng poll_prng; /* the poll turns' body draws (above, "Streams") */
    gar_prng long_prng; /* this wait's turn kinds and long turns: seeded from */
    uint64_t long_seed; /* long_seed + waits, at each wait's start */
    uint64_t waits;     /* waits run so far */
    gar_sim_poll_turn poll_turn;
    /* The @LEAD variants of the blocking wake, the visibility and the sleep
     * overshoot, laid out. */
    gar_sim_lead_pick block_pick, visible_pick, sleep_pick;
    /* The plain distributions a wait draws from, laid out for drawing
     * (dist_draw.h: the same values, without a division each). */
    gar_dist_draw block_draw, visible_draw, sleep_draw, park_draw;
    bool visible_stated; /* the profile states store_visible_ns, plain or @LEAD */
    bool exact_polls; /* false (init's default): fast-forward polls; true: one turn at a time */
    /* NULL (init's default), or called after every action performed. */
    void (*on_action)(void *ctx, const gar_sim_action *action);
    void *on_action_ctx;
} gar_sim_host;

/* What one simulated wait did. */
typedef struct gar_sim_wait_result {
    gar_wait_report report; /* the machine's report (counters up to a failure) */
    gar_mono_ns start;
    gar_mono_ns end;        /* when the answer that ended the wait was seen */
    gar_dur_ns busy_ns;     /* querying, polling, spinning, clock reads */
    gar_dur_ns parked_ns;   /* hardware parks: the core held, idle */
    gar_dur_ns asleep_ns;   /* sleeps and blocking waits: the core free */
} gar_sim_wait_result;

/* A host with a copy of `profile`, its generator seeded by `seed`, polls
 * fast-forwarded (set exact_polls after to turn that off).  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT for NULL pointers. */
int gar_sim_host_init(gar_sim_host *host, const gar_host_profile *profile, uint64_t seed,
                      gar_error *err);

/* Runs one wait for `work` (enqueued on `dev`) under the resolved `plan`,
 * starting at `start`, with the point's predicted sleep (`has_sleep`,
 * `sleep_ns`, as gar_wait_init takes them) and an absolute `deadline`
 * (GAR_MONO_NEVER for none — refused for a hung item).  Arms `work` when the
 * plan does.  Returns 0 once the wait saw the work done, or the negated code
 * it ended with: GAR_E_DEVICE_FAULT from the device, GAR_E_WAIT_DEADLINE, or
 * GAR_E_INVALID_ARGUMENT for arguments gar_wait_init refuses or a hung item
 * without a deadline (then `out` is untouched).  `out` (required) is
 * filled on every other return. */
int gar_sim_host_wait(gar_sim_host *host, gar_sim_device *dev, gar_sim_work *work,
                      const gar_plan *plan, bool has_sleep, gar_dur_ns sleep_ns,
                      gar_mono_ns start, gar_mono_ns deadline, gar_sim_wait_result *out,
                      gar_error *err);

#endif
