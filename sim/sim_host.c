/* sim/sim_host.c — the simulator's driver of the wait machine.
 *
 * One loop: ask the machine for its action, perform it in virtual time with
 * the profile's costs, feed back the answer and the time it was seen.  The
 * cost rules are in sim_host.h. */
#include "sim_host.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>

/* Fast-forwarded polls (sim_host.h): a block leaves this many standard
 * deviations of its total to spare, and has at least this many turns. */
#define BLOCK_SPARE_SD 4.0
#define BLOCK_MIN_TURNS 8

int gar_sim_host_init(gar_sim_host *host, const gar_host_profile *profile, uint64_t seed,
                      gar_error *err)
{
    if (host == NULL || profile == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_host_init",
                             host == NULL ? "host" : "profile", "is NULL");
    host->profile = *profile;
    host->prng = gar_prng_seeded(seed);
    double mean, variance;
    gar_host_dist_moments(&profile->poll_period, &mean, &variance);
    gar_dur_ns fixed = gar_after(profile->query_ns, profile->clock_ns);
    const gar_host_dist *period = &profile->poll_period;
    host->poll_turn = (gar_sim_poll_turn){
        .mean = mean + (double)fixed,
        .sd = sqrt(variance),
        .min = gar_after(period->value[0], fixed),
        .max = gar_after(period->value[period->count - 1], fixed),
    };
    /* The least block whose floor B*Tmin is BLOCK_SPARE_SD deviations below
     * its mean: B*(mu - Tmin) >= k*sigma*sqrt(B).  A smaller block's normal
     * would be clamped often enough to move its mean. */
    double above_min = host->poll_turn.mean - (double)host->poll_turn.min;
    double k_sigma = BLOCK_SPARE_SD * host->poll_turn.sd;
    double least = above_min > 0 ? ceil(k_sigma * k_sigma / (above_min * above_min)) : 0;
    host->poll_turn.block_min = least < 0x1p62 ? (uint64_t)least : UINT64_C(1) << 62;
    host->exact_polls = false;
    host->on_action = NULL;
    host->on_action_ctx = NULL;
    return 0;
}

static void observe(const gar_sim_host *host, gar_wait_op op, gar_mono_ns until, gar_mono_ns at,
                    gar_mono_ns answered, int answer, uint64_t repeat)
{
    if (host->on_action != NULL)
        host->on_action(host->on_action_ctx,
                        &(gar_sim_action){ op, until, at, answered, answer, repeat });
}

static gar_dur_ns draw(gar_sim_host *host, const gar_host_dist *dist)
{
    return gar_host_dist_sample(dist, gar_prng_next(&host->prng));
}

/* The time accounts of one wait, and where charges go. */
typedef struct accounts {
    gar_dur_ns busy, parked, asleep;
} accounts;

static int deadline_passed(gar_mono_ns deadline, gar_error *err)
{
    char at[24];
    snprintf(at, sizeof at, "%llu ns", (unsigned long long)deadline);
    return gar_error_set(err, GAR_E_WAIT_DEADLINE, 2, "simulated blocking wait", at);
}

/* The block's answer: 0 once the status is done, the status's error else. */
static int block_answer(gar_sim_device *dev, const gar_sim_work *work, gar_mono_ns at,
                        gar_error *err)
{
    int status = gar_sim_device_status(dev, work, at, err);
    assert(status != 0);
    return status < 0 ? status : 0;
}

/* BLOCK at `t`: returns the answer and moves `t` to when it is seen. */
static int perform_block(gar_sim_host *host, gar_sim_device *dev, const gar_sim_work *work,
                         gar_mono_ns deadline, gar_mono_ns *t, accounts *acc, gar_error *err)
{
    gar_dur_ns q = host->profile.query_ns;
    gar_mono_ns called = gar_after(*t, q);
    acc->busy += called - *t;
    *t = called;
    if (work->done_at <= called)
        return block_answer(dev, work, called, err);
    const gar_host_profile *hp = &host->profile;
    gar_mono_ns wake = work->done_at == GAR_MONO_NEVER
                           ? GAR_MONO_NEVER
                           : gar_after(work->done_at,
                                       draw(host, gar_host_dist_for_lead(&hp->block_wake,
                                                                         hp->block_wake_at,
                                                                         work->done_at - called)));
    if (wake > deadline) {
        gar_mono_ns end = deadline > called ? deadline : called;
        acc->asleep += end - called;
        *t = end;
        return deadline_passed(deadline, err);
    }
    acc->asleep += wake - called;
    *t = wake;
    return block_answer(dev, work, wake, err);
}

/* The store's visibility on the waiting CPU: one draw a wait (a completion
 * is one event, however many queries look for it), taken when first
 * needed, from the stated store_visible_ns@LEAD nearest how long the device
 * idled before the store.  `stated` is false for a profile without
 * store_visible_ns: then a query answers the status at its end, as it always
 * did. */
typedef struct visibility {
    bool drawn, stated;
    gar_dur_ns v;
} visibility;

static void draw_visibility(gar_sim_host *host, const gar_sim_work *work, gar_mono_ns start,
                            visibility *vis)
{
    if (vis->drawn)
        return;
    /* How long the device idled before the store: its work's time from the
     * wait's start (a stream's work follows its previous wait). */
    gar_dur_ns idled = work->done_at > start ? work->done_at - start : 0;
    const gar_host_dist *d = gar_host_dist_for_lead(&host->profile.store_visible,
                                                    host->profile.store_visible_at, idled);
    vis->stated = d->count > 0;
    /* Work that never completes has no store to see: nothing is drawn. */
    vis->v = vis->stated && work->done_at != GAR_MONO_NEVER ? draw(host, d) : 0;
    vis->drawn = true;
}

/* A status query starting at `q`: its answer, and in *end when it comes.
 * With visibility stated, the load that first reads the line after the
 * store misses and waits for the line to cross (v): a query starting at or
 * after the completion answers done and takes max(query_ns, v); one
 * starting before it answers pending — so a poll loop sees the completion
 * at the first query after it, plus v, and a wait whose work finished
 * before it started pays v on its first query.  Without it, the status at
 * the query's end. */
static int query_at(const gar_sim_host *host, gar_sim_device *dev, const gar_sim_work *work,
                    const visibility *vis, gar_mono_ns q, gar_mono_ns *end, gar_error *err)
{
    gar_dur_ns query = host->profile.query_ns;
    if (!vis->stated) {
        *end = gar_after(q, query);
        return gar_sim_device_status(dev, work, *end, err);
    }
    if (q < work->done_at) {
        *end = gar_after(q, query);
        gar_sim_device_advance(dev, *end);
        return 0;
    }
    *end = gar_after(q, query > vis->v ? query : vis->v);
    return gar_sim_device_status(dev, work, *end, err);
}

/* True when nothing this wait can see will ever change: the item hangs and
 * no store for it is in flight (sim_host.h, "A hung item"). */
static bool hung(const gar_sim_work *work)
{
    return work->done_at == GAR_MONO_NEVER && work->store_at == GAR_MONO_NEVER;
}

/* PARK at `t` until `until` (or, for a hung item, until `deadline`). */
static int perform_park(gar_sim_host *host, gar_sim_device *dev, const gar_sim_work *work,
                        gar_mono_ns until, gar_mono_ns deadline, gar_mono_ns *t, accounts *acc)
{
    gar_sim_device_advance(dev, *t);
    if (gar_descriptor_reached(&work->word))
        return 1;
    if (hung(work) && until < deadline)
        until = deadline; /* every park and backstop query before it would answer the same */
    if (until <= *t)
        return 0;
    gar_mono_ns wake = until;
    int answer = 0;
    if (work->store_at <= until) {
        gar_mono_ns seen = gar_after(work->store_at, draw(host, &host->profile.park_wake));
        wake = seen < until ? seen : until;
        answer = 1;
    }
    gar_dur_ns d = wake - *t;
    if (host->profile.word_wait)
        acc->parked += d;
    else
        acc->busy += d;
    *t = wake;
    gar_sim_device_advance(dev, wake);
    assert(answer == 0 || gar_descriptor_reached(&work->word));
    return answer;
}

static gar_dur_ns times_saturating(uint64_t n, gar_dur_ns d)
{
    return d != 0 && n > UINT64_MAX / d ? UINT64_MAX : n * d;
}

/* The most turns a block may take with `room` ns (sim_host.h):
 * B*mu + k*sigma*sqrt(B) <= room, solved for sqrt(B). */
static uint64_t block_turns(const gar_sim_poll_turn *turn, double room)
{
    double spread = BLOCK_SPARE_SD * turn->sd;
    double root = (sqrt(spread * spread + 4 * turn->mean * room) - spread) / (2 * turn->mean);
    double b = floor(root * root);
    if (b >= 0x1p62)
        return UINT64_C(1) << 62; /* no wait is that long; keeps the arithmetic in range */
    uint64_t turns = (uint64_t)b;
    while (turns > 0 && (double)turns * turn->mean + spread * sqrt((double)turns) > room)
        turns--; /* the root's rounding, never more than a turn or two */
    return turns;
}

/* At a POLL step at `*t`, before `limit` (the completion or the deadline,
 * the earlier): when a block of turns surely fits, draws its total, charges
 * it busy and feeds it to the machine as one batch.  Returns false when no
 * block fits: the next turn is simulated alone. */
static bool skip_polls(gar_sim_host *host, gar_wait *w, gar_mono_ns limit, gar_mono_ns *t,
                       accounts *acc, gar_error *err)
{
    const gar_sim_poll_turn *turn = &host->poll_turn;
    if (limit == GAR_MONO_NEVER || limit <= *t)
        return false; /* a hung device without a deadline: no end to skip to */
    gar_dur_ns room = limit - *t - 1; /* a block ends at or before *t + room < limit */
    if (room <= turn->max)
        return false; /* the last Tmax is always turn by turn */
    uint64_t b = block_turns(turn, (double)(room - turn->max));
    if (b < BLOCK_MIN_TURNS || b < turn->block_min)
        return false;
    gar_dur_ns lo = times_saturating(b, turn->min);
    gar_dur_ns hi = times_saturating(b, turn->max);
    if (hi > room)
        hi = room;
    assert(lo <= hi);
    double total = (double)b * turn->mean;
    if (turn->sd > 0)
        total += turn->sd * sqrt((double)b) * gar_prng_normal(&host->prng);
    /* Clamped in double first, so a far tail converts without overflow, and
     * again after rounding, which may step past an edge. */
    gar_dur_ns took = lo;
    if (total >= (double)hi)
        took = hi;
    else if (total > (double)lo)
        took = (gar_dur_ns)(total + 0.5);
    took = took < lo ? lo : took > hi ? hi : took;
    observe(host, GAR_WAIT_OP_POLL, 0, *t, *t + took, 0, b);
    *t += took;
    acc->busy += took;
    int rc = gar_wait_feed_polls(w, b, *t, err);
    assert(rc == 0);
    (void)rc;
    return true;
}

/* At a POLL step at `*t`: the turns that follow, one draw each, exactly as
 * single POLL actions would run them.  Those that surely answer pending and
 * end before `limit` (their clock read included) are fed to the machine as
 * one batch, which is equivalent; the first that may not is left to the
 * caller to perform alone: its drawn poll period is returned. */
static gar_dur_ns run_single_turns(gar_sim_host *host, gar_wait *w, gar_mono_ns limit,
                                   gar_mono_ns *t, accounts *acc, gar_error *err)
{
    const gar_host_profile *hp = &host->profile;
    gar_dur_ns fixed = gar_after(hp->query_ns, hp->clock_ns);
    gar_mono_ns now = *t;
    uint64_t turns = 0;
    /* This loop is where poll plans spend their draws: the generator is
     * stepped in a local copy, kept in registers, and put back at the end. */
    gar_prng prng = host->prng;
    for (;;) {
        gar_dur_ns period = gar_host_dist_sample(&hp->poll_period, gar_prng_next(&prng));
        gar_mono_ns end = gar_after(gar_after(now, period), fixed);
        if (end >= limit) {
            host->prng = prng;
            if (turns > 0) {
                observe(host, GAR_WAIT_OP_POLL, 0, *t, now, 0, turns);
                acc->busy += now - *t;
                *t = now;
                int rc = gar_wait_feed_polls(w, turns, now, err);
                assert(rc == 0);
                (void)rc;
            }
            return period;
        }
        now = end;
        turns++;
    }
}

/* At a POLL step at `*t` on a hung item: every turn before the deadline
 * answers pending, so they are fed as one batch ending at the last instant
 * before it, charged busy, their number the time over a mean turn.  Whatever
 * the poll plan or exact_polls, the wait then fails at the deadline after
 * one more turn, in time independent of the deadline's distance.  Returns
 * false when no time is left before the deadline (the turn runs alone). */
static bool skip_hung_polls(gar_sim_host *host, gar_wait *w, gar_mono_ns deadline,
                            gar_mono_ns *t, accounts *acc, gar_error *err)
{
    if (deadline == GAR_MONO_NEVER || deadline - 1 <= *t)
        return false;
    gar_dur_ns room = deadline - 1 - *t;
    double turns = floor((double)room / host->poll_turn.mean);
    uint64_t n = turns < 1 ? 1 : turns >= 0x1p63 ? UINT64_C(1) << 63 : (uint64_t)turns;
    observe(host, GAR_WAIT_OP_POLL, 0, *t, *t + room, 0, n);
    *t += room;
    acc->busy += room;
    int rc = gar_wait_feed_polls(w, n, *t, err);
    assert(rc == 0);
    (void)rc;
    return true;
}

int gar_sim_host_wait(gar_sim_host *host, gar_sim_device *dev, gar_sim_work *work,
                      const gar_plan *plan, bool has_sleep, gar_dur_ns sleep_ns,
                      gar_mono_ns start, gar_mono_ns deadline, gar_sim_wait_result *out,
                      gar_error *err)
{
    if (host == NULL || dev == NULL || work == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_host_wait",
                             host == NULL ? "host" : dev == NULL ? "dev"
                                                   : work == NULL ? "work" : "out",
                             "is NULL");
    if (deadline == GAR_MONO_NEVER && work->done_at == GAR_MONO_NEVER)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_host_wait", "deadline",
                             "is none, and the work never completes (the wait would never end)");
    gar_wait w;
    int rc = gar_wait_init(&w, plan, has_sleep, sleep_ns, start, deadline, err);
    if (rc < 0)
        return rc;

    const gar_host_profile *hp = &host->profile;
    accounts acc = { 0, 0, 0 };
    visibility vis = { false, false, 0 };
    gar_mono_ns t = start;
    for (;;) {
        gar_wait_action a = gar_wait_next(&w);
        int answer;
        gar_mono_ns from = t;
        switch (a.op) {
        case GAR_WAIT_OP_QUERY:
            draw_visibility(host, work, start, &vis);
            answer = query_at(host, dev, work, &vis, from, &t, err);
            acc.busy += t - from;
            break;
        case GAR_WAIT_OP_POLL: {
            /* Turns whose query starts (and so, ends) before the completion
             * answer pending whatever the visibility: they may be batched. */
            draw_visibility(host, work, start, &vis);
            gar_mono_ns limit = work->done_at < deadline ? work->done_at : deadline;
            if (hung(work) && skip_hung_polls(host, &w, deadline, &t, &acc, err))
                continue;
            if (!host->exact_polls && skip_polls(host, &w, limit, &t, &acc, err))
                continue; /* a block was fed: the machine decides what comes next */
            gar_dur_ns period = run_single_turns(host, &w, limit, &t, &acc, err);
            from = t;
            answer = query_at(host, dev, work, &vis, gar_after(t, period), &t, err);
            acc.busy += t - from;
            break;
        }
        case GAR_WAIT_OP_ARM:
            t = gar_after(t, hp->query_ns);
            acc.busy += t - from;
            gar_sim_device_arm(dev, work, t);
            answer = 0;
            break;
        case GAR_WAIT_OP_SLEEP_UNTIL:
            t = gar_after(a.until > t ? a.until : t,
                          draw(host, gar_host_dist_for_lead(&hp->sleep_overshoot,
                                                            hp->sleep_overshoot_at,
                                                            a.until > t ? a.until - t : 0)));
            acc.asleep += t - from;
            answer = 0;
            break;
        case GAR_WAIT_OP_PARK:
            answer = perform_park(host, dev, work, a.until, deadline, &t, &acc);
            break;
        case GAR_WAIT_OP_BLOCK:
            answer = perform_block(host, dev, work, deadline, &t, &acc, err);
            break;
        case GAR_WAIT_OP_DONE:
        case GAR_WAIT_OP_FAILED:
        default:
            goto ended;
        }
        observe(host, a.op, a.op == GAR_WAIT_OP_SLEEP_UNTIL || a.op == GAR_WAIT_OP_PARK ? a.until : 0,
                from, t, answer, 1);
        /* The driver reads the clock after every answer. */
        gar_mono_ns seen = gar_after(t, hp->clock_ns);
        acc.busy += seen - t;
        t = seen;
        gar_wait_feed(&w, answer, t, err);
    }
ended:;
    gar_wait_action last = gar_wait_next(&w);
    *out = (gar_sim_wait_result){
        .report = gar_wait_report_of(&w),
        .start = start,
        .end = t,
        .busy_ns = acc.busy,
        .parked_ns = acc.parked,
        .asleep_ns = acc.asleep,
    };
    return last.op == GAR_WAIT_OP_DONE ? 0 : last.code;
}
