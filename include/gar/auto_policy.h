/* gar/auto_policy.h — the rule behind "auto:p99_us=B": for each wait, the
 * sleep and the park that keep its overshoot within B at the 99th percentile
 * at the least CPU, learnt online.
 *
 * Pure decision code, beside the wait machine: a driver asks gar_auto_decide
 * for a wait's concrete plan (block, poll or flag, with predict when it
 * sleeps) and sleep, runs that plan through the machine exactly as it runs a
 * fixed one, and feeds the machine's report back with gar_auto_learn.  So the
 * inline driver, the reactor driver, the simulator and the libuv adapter make
 * the same choices from the same reports.
 *
 * The rule (a chance-constrained choice).  A wait's overshoot is more than B
 * in one of two disjoint ways: its sleep woke more than B after the
 * completion (a missed prediction), or it woke in time and the park saw the
 * completion more than B after it (the park's own tail).  The p99 leaves
 * GAR_AUTO_MISS_PPM (1 %) for the two together, and the split is the
 * park's to make: its own chance e of exceeding B is read off its tail
 * (any plan that parks so pays it, with or without a sleep), and the sleep
 * may add at most half of what e and the run's margin leave,
 * (1 % − e − m) / 2.  A p99 is measured over finitely many waits: misses
 * spent to the line would put about half of all runs over it.  So the run
 * keeps m = sqrt(1 % / n) unspent, n the waits the policy has decided:
 * one standard deviation of a miss count at the line, as a share of the
 * run (1 % until n = 100, so a run that short never sleeps; 0.16 % at
 * 4 000, 0.01 % at a million); and the sleep takes half of the rest, since
 * the model that prices it is itself an estimate.  B itself is not split:
 * each way alone must stay within the whole of it, since one wait meets
 * only one of them.
 *
 *  1. The park.  Each park's detection latency (the time from the
 *     completion to the answer that ends the wait: a poll's store
 *     visibility and turn, a flag park's wake and confirming query, a
 *     blocking wait's wake) exceeds B with some chance e; the park is
 *     feasible when e < 1 %.  Flag is a candidate only on a host whose
 *     parks hold the core idle (word wait); elsewhere it would be a spin,
 *     which poll already is.  Block is not a candidate for a driver that
 *     cannot run one (no_block), and such a driver's sleeps are none
 *     (no_sleep).  These tails cannot be observed by the waiter (it never
 *     sees when the completion was), so they stay the host's: a profile's,
 *     or gar's defaults.
 *  2. The sleep.  With s the sleep and O the sleep overshoot, a wait misses
 *     when s + O + query − r > B, r the wait's residual (start to
 *     completion).  The point's last GAR_AUTO_WINDOW outcomes stand for r's
 *     distribution: an exact residual is a value, a late wake only says
 *     r ≤ w, so the distribution is the reverse Kaplan-Meier estimate (each
 *     late wake's share goes to the exact residuals below it, and the share
 *     of late wakes below every exact residual to half the least value
 *     held); the next residual may also fall below every one seen, with
 *     probability 1/(n + 1), which gar puts below the least by twice the
 *     spread of the window's lowest 1/32 (never below half the least: the
 *     lowest of a few samples is spread enough to reach far).  O's survival
 *     function is the host's (below).  The sleep is the longest s whose miss
 *     probability, summed over that distribution, is at most
 *     (1 % − e − m) / 2:
 *     the budget is spent on sleeping past the completion only where the
 *     residuals and the wake tail leave room for it.  A point sleeps only
 *     once it holds GAR_AUTO_MIN_SAMPLES outcomes.
 *  3. The least CPU.  Among the feasible parks, each with and without its
 *     own sleep, the one of least expected busy time by the host's costs:
 *     block costs a call; flag its queries, the arm and, while it waits, a
 *     backstop query a millisecond; poll its queries and the expected time
 *     from its wake to the completion, busy.  Ties go to the lower tail.
 *  4. No feasible park: the budget cannot be met on this host.  The choice
 *     says so (within_budget false, and the policy counts it; a driver
 *     shows it as warning GAR_W_AUTO_OVER_BUDGET) and does its best: the
 *     park of the least e, and no sleep: a park at the line leaves nothing
 *     for a sleep's misses, and a fixed plan of that park alone is what
 *     auto is judged against there.
 *  5. The promise kept by what is observed.  Rules 1-3 trust a model; a
 *     waiter cannot see its misses, but it sees its late wakes, and every
 *     miss of a sleeping wait is a late wake.  So each point, and the
 *     policy over all points, keeps an account: a wait pays in what its
 *     choice promised, the sleep's share of the allowance plus the
 *     model's chance that the sleep wakes late (earn_ppm), and a late
 *     wake is charged one.  When late wakes run GAR_AUTO_POINT_SLACK
 *     (GAR_AUTO_POLICY_SLACK for the policy) ahead of what was paid in, the
 *     account takes a step of backoff and starts square: every later sleep
 *     there is a quarter shorter per step (held counts them).  A late
 *     wake's worth paid in beyond square gives a step back.  So the late
 *     wakes beyond the model's promise are at most the sleep's share of
 *     the allowance, plus the slack, over any run of waits: where the
 *     model misses short residuals (a queue drained by a host stall hides
 *     them behind late wakes), the sleeps shorten until the late wakes fit,
 *     and stop where nothing else does, and the waits then measure the
 *     short residuals exactly.
 *     What rule 5 costs: where most sleeps are meant to wake after the
 *     completion (a loose budget), the window holds mostly late wakes'
 *     bounds, the model's late chance reads low, and the account backs
 *     off sleeps that were safe: a loose budget can then cost more CPU
 *     than a tight one.
 *
 * What it learns, from each report:
 *   - a wait whose first query found the work done teaches the window
 *     nothing: it never sleeps (the sleep comes after that query), so the
 *     residuals a sleep risks are those of waits that found work pending;
 *   - an Exact sample (the completion was seen by a query, poll or park) is
 *     the point's residual: it enters the window;
 *   - a Late sample (the sleep woke after the completion) bounds the
 *     residual from above only; it enters the window as such a bound.  So a
 *     workload that gets faster shows as late wakes whose bounds sit below
 *     the exact residuals: their share has no exact residual to go to and
 *     lands at half the bound, and the next sleep halves; the waits that
 *     then wake in time measure the new residuals.  Counting
 *     only the exact residuals would hide the short ones behind the late
 *     wakes and walk the sleep ever later;
 *   - a late wake also makes the point's next wait a probe: its sleep is
 *     cut by B.  Late wakes hide the residuals below every wake, which are
 *     the ones a miss is made of; a wait that wakes B earlier sees them
 *     (the estimate above needs exact residuals below the bounds to give
 *     their share to).  Where lates are rare, so are probes;
 *   - a wait that slept reports how late its sleep woke (sleep_late_ns):
 *     the host's sleep overshoot, observable, so the policy keeps the last
 *     GAR_AUTO_WAKES of them and weighs them with the host's prior (which
 *     counts as GAR_AUTO_PRIOR_WEIGHT wakes): O's survival is that mixture,
 *     and follows a host whose wakes change.
 *
 * Cold start.  A point with fewer than GAR_AUTO_MIN_SAMPLES residuals does
 * not sleep, nor does a policy whose run margin leaves the sleep nothing
 * (its first 100 waits and more, the more of the allowance the park's tail
 * takes): its overshoot is then the park's tail alone, which rule 1 holds
 * within B at 99 %, so the budget is met while nothing is known, and the
 * waits measure the residuals exactly, the short ones included.  A policy
 * with no prior (gar_auto_host_default) uses gar's guesses of a Linux host
 * for the tails, and its own wakes as they come.
 *
 * Ownership: the policy and the points are caller-owned plain values (no
 * pointers, nothing allocated); one point per readback point, one policy per
 * waiting thread (a point's history belongs to its call site, the wake tail
 * to the host).  Not thread-safe. */
#ifndef GAR_AUTO_POLICY_H
#define GAR_AUTO_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/plan.h>
#include <gar/time.h>
#include <gar/wait.h>

#define GAR_AUTO_LEVEL_ONE UINT32_C(1000000) /* probability 1, in parts per million */
#define GAR_AUTO_MISS_PPM 10000u   /* the waits a p99 lets exceed B: 1 % */
#define GAR_AUTO_WINDOW 256u       /* residuals a point keeps */
#define GAR_AUTO_MIN_SAMPLES 8u    /* residuals a point holds before it sleeps */
#define GAR_AUTO_SUMMARY 32u       /* the unseen residual sits below the lowest 1/32 (rule 2) */
#define GAR_AUTO_WAKES 1024u       /* sleep overshoots the policy keeps */
#define GAR_AUTO_PRIOR_WEIGHT 256u /* the prior's weight, in wakes */
#define GAR_AUTO_QUANTILES_MAX 32u /* quantiles a distribution lists */
#define GAR_AUTO_BUCKETS 320u      /* the wake histogram's log-spaced buckets */
#define GAR_AUTO_POINT_SLACK 1u    /* late wakes a point may run ahead of its earnings (rule 5) */
#define GAR_AUTO_POLICY_SLACK 4u   /* ... and all points together */
#define GAR_AUTO_BACKOFF_DIV 4u    /* a backoff step shortens the sleep by 1/4 */
#define GAR_AUTO_BACKOFF_MAX 40u   /* steps at most: (3/4)^40 of a sleep is none */
#define GAR_AUTO_FLAG_PARK_US 100u      /* the flag plan auto runs: its park bound */
#define GAR_AUTO_FLAG_BACKSTOP_US 1000u /* ... and its backstop */

/* A latency distribution by its quantiles, as a host profile states one:
 * value[i] is the level[i] quantile (ppm).  Valid when 2 <= count <=
 * GAR_AUTO_QUANTILES_MAX, level[0] = 0, level[count-1] = GAR_AUTO_LEVEL_ONE,
 * levels strictly increasing and values non-decreasing; linear between. */
typedef struct gar_auto_dist {
    unsigned count;
    uint32_t level[GAR_AUTO_QUANTILES_MAX];
    gar_dur_ns value[GAR_AUTO_QUANTILES_MAX];
} gar_auto_dist;

/* What the policy knows of the host before it waits: costs (busy CPU) and
 * the detection latency of each park, from the completion to the answer
 * that ends the wait, and the prior of the sleep overshoot. */
typedef struct gar_auto_host {
    gar_dur_ns query_ns;          /* a status query or an arm */
    gar_dur_ns clock_ns;          /* a clock read, after every action */
    gar_dur_ns poll_turn_ns;      /* a poll turn besides its query, on average */
    bool word_wait;               /* a flag park holds the core idle */
    bool no_block;                /* the driver runs no blocking wait (the libuv adapter) */
    bool no_sleep;                /* the driver runs no predicted sleep (the libuv adapter) */
    gar_auto_dist sleep_overshoot; /* a timed sleep wakes this long after its target */
    gar_auto_dist poll_detect;    /* completion to the poll that sees it */
    gar_auto_dist park_detect;    /* completion to the flag's confirming query */
    gar_auto_dist block_detect;   /* completion to the blocking wait's return */
} gar_auto_host;

/* gar's guesses for a Linux host without a profile (documented in the
 * source beside each value), with `word_wait` as the host's caps say. */
GAR_API void gar_auto_host_default(bool word_wait, gar_auto_host *out);

/* One readback point's history.  Private fields; all zero bytes is a cold
 * point, as is gar_auto_point_init's. */
typedef struct gar_auto_point {
    uint64_t ring[GAR_AUTO_WINDOW];   /* outcomes (value * 2 + exact), oldest overwritten first */
    uint64_t sorted[GAR_AUTO_WINDOW]; /* the same, ascending */
    uint16_t next;                    /* the ring slot the next outcome takes */
    uint16_t count;                   /* outcomes held */
    bool last_late;                   /* the last wait here woke after its completion */
    uint8_t backoff;                  /* rule 5: steps its sleeps are shortened by */
    int64_t late_account;             /* rule 5: late wakes less what was earned, ppm */
} gar_auto_point;

GAR_API void gar_auto_point_init(gar_auto_point *point);

/* What the policy chose, counted over its waits. */
typedef struct gar_auto_counts {
    uint64_t waits;
    uint64_t block, poll, flag; /* by the park chosen */
    uint64_t sleeps;            /* waits that were given a sleep */
    uint64_t over_budget;       /* waits where no park's tail met the budget */
    uint64_t probes;            /* sleeps cut by the budget after a late wake */
    uint64_t held;              /* waits whose sleep rule 5 shortened (or took) */
    uint64_t exact, late;       /* the samples learnt: residuals, late wakes' bounds */
} gar_auto_counts;

/* The policy.  Private fields; set up with gar_auto_init. */
typedef struct gar_auto_policy {
    gar_auto_host host;
    gar_dur_ns poll_detect_mean;          /* a poll's detection latency, on average */
    uint32_t prior_above[GAR_AUTO_BUCKETS]; /* the prior's P(O >= bucket's floor), ppm */
    uint16_t wake_ring[GAR_AUTO_WAKES];   /* the buckets of the last wakes */
    uint32_t wake_hist[GAR_AUTO_BUCKETS]; /* how many of them in each bucket */
    uint32_t wake_next, wake_count;
    double above[GAR_AUTO_BUCKETS];       /* the mixture's P(O >= floor), kept current */
    bool above_stale;
    uint8_t backoff;                      /* rule 5, over every point */
    int64_t late_account;
    gar_auto_counts counts;
} gar_auto_policy;

/* Sets the policy up for `host` (copied): checks every distribution.
 * Returns 0, or -GAR_E_INVALID_ARGUMENT for a NULL argument or a
 * distribution that is not valid (named in `err`). */
GAR_API int gar_auto_init(gar_auto_policy *policy, const gar_auto_host *host, gar_error *err);

/* One wait's choice. */
typedef struct gar_auto_choice {
    gar_plan plan;       /* block, poll or flag (GAR_AUTO_FLAG_*), predict when it sleeps:
                          * resolved, run it as is */
    bool has_sleep;      /* pass these to the driver as the point's sleep */
    gar_dur_ns sleep_ns;
    bool within_budget;  /* false: no park's tail meets the budget (rule 4) */
    uint32_t park_miss_ppm; /* the chosen park's own chance of exceeding B (ppm) */
    uint32_t late_ppm;   /* the rule's chance that the sleep wakes after the completion */
    uint32_t earn_ppm;   /* what the wait earns the late-wake accounts (rule 5) */
    bool held;           /* rule 5 shortened the sleep, or took it */
} gar_auto_choice;

/* Chooses the next wait at `point` under `budget_ns` (1 µs .. 1 s, as
 * "auto:p99_us" bounds it), counting the choice.  Returns 0 with `out`
 * filled, or -GAR_E_INVALID_ARGUMENT for a NULL argument or a budget out of
 * bounds. */
GAR_API int gar_auto_decide(gar_auto_policy *policy, const gar_auto_point *point,
                            gar_dur_ns budget_ns, gar_auto_choice *out, gar_error *err);

/* Learns from the report of a wait run under `choice` at `point`: its
 * sample and its sleep's wake (above).  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT for a NULL argument. */
GAR_API int gar_auto_learn(gar_auto_policy *policy, gar_auto_point *point,
                           const gar_auto_choice *choice, const gar_wait_report *report,
                           gar_error *err);

/* The counts so far. */
static inline gar_auto_counts gar_auto_counts_of(const gar_auto_policy *policy)
{
    return policy->counts;
}

#endif
