/* sim/sim_host.c — the simulator's driver of the wait machine.
 *
 * One loop: ask the machine for its action, perform it in virtual time with
 * the profile's costs, feed back the answer and the time it was seen.  The
 * cost rules are in sim_host.h.
 *
 * This file owns the wait loop, gar_sim_host_wait, and the actions it
 * performs each wait (query, block, park, sleep, the store's visibility),
 * kept in one translation unit so they inline.  The POLL step's turns are
 * sim_host_polls.c's, the host's setup sim_host_setup.c's
 * (sim_host_parts.h). */
#include "sim/sim_host.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "sim/sim_host_parts.h"

/* One draw for a length (gar_host_lead_sample, over the laid-out leads):
 * the two stated leads around it sampled at the same draw and mixed
 * linearly in the length; one draw of the stream either way, so exact and
 * fast-forwarded runs stay aligned. */
static gar_dur_ns lead_draw(gar_sim_host *host, const gar_sim_lead_pick *pick,
                            const gar_dist_draw *base, const gar_host_dist at[GAR_HOST_LEADS],
                            gar_dur_ns length)
{
    uint64_t u = gar_prng_next(&host->prng);
    if (pick->stated == 0)
        return gar_dist_draw_sample(base, u);
    unsigned c = 0;
    while (c + 1 < pick->stated && length >= pick->lead[c + 1])
        c++;
    gar_dur_ns xa = gar_host_dist_sample(&at[pick->index[c]], u);
    if (c + 1 == pick->stated || length <= pick->lead[c])
        return xa;
    gar_dur_ns a = pick->lead[c], b = pick->lead[c + 1];
    uint64_t w = ((uint64_t)(length - a) << 32) / (b - a); /* b - a <= 10 ms < 2^24 */
    return gar_host_lead_mix(xa, gar_host_dist_sample(&at[pick->index[c + 1]], u), w);
}

/* A sleep's overshoot for a sleep of `length`: from the stated lead nearest
 * it in ratio (gar_host_dist_for_lead's rule, over the laid-out leads); a
 * host without @LEAD keys, the common case, draws from the plain
 * distribution without looking at the five leads each sleep. */
static gar_dur_ns sleep_overshoot(gar_sim_host *host, gar_dur_ns length)
{
    uint64_t u = gar_prng_next(&host->prng);
    if (host->sleep_pick.stated == 0)
        return gar_dist_draw_sample(&host->sleep_draw, u);
    return gar_host_dist_sample(gar_host_dist_for_lead(&host->profile.sleep_overshoot,
                                                       host->profile.sleep_overshoot_at, length),
                                u);
}

static inline gar_dur_ns draw(gar_sim_host *host, const gar_dist_draw *dist)
{
    return gar_dist_draw_sample(dist, gar_prng_next(&host->prng));
}


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
                                       lead_draw(host, &host->block_pick, &host->block_draw,
                                                 hp->block_wake_at, work->done_at - called));
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
 * idled before the store.  For a profile without store_visible_ns
 * (host->visible_stated false) a query answers the status at its end, as
 * it always did. */
typedef struct visibility {
    bool drawn;
    gar_dur_ns v;
} visibility;

/* The visibility drawn from the @LEAD keys: from how long the device idled
 * before the store, its work's time from the wait's start (a stream's work
 * follows its previous wait). */
static gar_dur_ns visibility_by_lead(gar_sim_host *host, const gar_sim_work *work,
                                     gar_mono_ns start)
{
    gar_dur_ns idled = work->done_at > start ? work->done_at - start : 0;
    return lead_draw(host, &host->visible_pick, &host->visible_draw,
                     host->profile.store_visible_at, idled);
}

/* Inline, the @LEAD case out of line: every wait but a block's takes it. */
static inline void draw_visibility(gar_sim_host *host, const gar_sim_work *work,
                                   gar_mono_ns start, visibility *vis)
{
    if (vis->drawn)
        return;
    vis->drawn = true;
    /* Work that never completes has no store to see: nothing is drawn. */
    if (!host->visible_stated || work->done_at == GAR_MONO_NEVER)
        return;
    vis->v = host->visible_pick.stated == 0 ? draw(host, &host->visible_draw)
                                            : visibility_by_lead(host, work, start);
}

/* A status query starting at `q`: its answer, and in *end when it comes.
 * With visibility stated, the load that first reads the line after the
 * store misses and waits for the line to cross (v): a query starting at or
 * after the completion answers done and takes max(query_ns, v); one
 * starting before it answers pending — so a poll loop sees the completion
 * at the first query after it, plus v, and a wait whose work finished
 * before it started pays v on its first query.  Without it, the status at
 * the query's end. */
static inline int query_at(const gar_sim_host *host, gar_sim_device *dev, const gar_sim_work *work,
                    const visibility *vis, gar_mono_ns q, gar_mono_ns *end, gar_error *err)
{
    gar_dur_ns query = host->profile.query_ns;
    if (!host->visible_stated) {
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
        gar_mono_ns seen = gar_after(work->store_at, draw(host, &host->park_draw));
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


/* At a PARK step at `*t` bounded by `until`: the parks that surely time out
 * — the store lands after each one's bound — and end (their clock read
 * included) before the stage's due time, performed as perform_park would,
 * one observed action each, and fed to the machine as one batch
 * (gar_wait_feed_parks).  Each bound is the one the machine would have
 * given, min(the previous park's end + park_ns, due): before the due time
 * that is the first bound plus whole steps of park_ns + clock_ns, so the
 * batch is counted, not stepped.  Returns false when not even the first
 * qualifies (it is performed alone); the park after the batch, which the
 * store ends or which reaches the due time, is too.  A wait whose flag plan
 * parks 100 times for one completion costs one batch: exact, not an
 * approximation, since nothing is drawn for a park that times out. */
static bool batch_parks(gar_sim_host *host, gar_sim_device *dev, const gar_sim_work *work,
                        gar_wait *w, gar_dur_ns park_ns, gar_mono_ns until, gar_mono_ns *t,
                        accounts *acc)
{
    const gar_mono_ns due = gar_wait_park_due(w);
    const gar_dur_ns clock = host->profile.clock_ns;
    if (work->store_at <= until || until <= *t || gar_after(until, clock) >= due)
        return false;
    /* Park i (from 0) ends at until + i*step and is in the batch while that
     * is before the store and, its clock read added, before `due`. */
    const gar_dur_ns step = gar_after(park_ns, clock);
    uint64_t parks = 1;
    gar_mono_ns second = gar_after(until, step);
    if (second < work->store_at && gar_after(second, clock) < due) {
        /* More than one (a predicted wait's margin rarely holds two): divide. */
        parks = (due - clock - until - 1) / step + 1;
        uint64_t before_store = (work->store_at - until - 1) / step + 1;
        if (before_store < parks)
            parks = before_store;
    }
    const gar_mono_ns last_until = until + (parks - 1) * step;
    for (uint64_t i = 0; host->on_action != NULL && i < parks; i++) {
        gar_mono_ns ends = until + i * step;
        observe(host, GAR_WAIT_OP_PARK, ends, i == 0 ? *t : ends - park_ns, ends, 0, 1);
    }
    gar_dur_ns parked = (until - *t) + (parks - 1) * park_ns;
    if (host->profile.word_wait)
        acc->parked += parked;
    else
        acc->busy += parked;
    acc->busy += parks * clock;
    *t = last_until + clock;
    gar_sim_device_advance(dev, *t); /* other streams' stores, as each park would have */
    feed_built_batch(w, GAR_WAIT_OP_PARK, parks, *t);
    return true;
}

/* Refuses a missing argument, and a wait that could never end.  Returns 0
 * or the refusal. */
static int check_wait_args(const gar_sim_host *host, const gar_sim_device *dev,
                           const gar_sim_work *work, gar_mono_ns deadline,
                           const gar_sim_wait_result *out, gar_error *err)
{
    if (host == NULL || dev == NULL || work == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_host_wait",
                             host == NULL ? "host" : dev == NULL ? "dev"
                                                   : work == NULL ? "work" : "out",
                             "is NULL");
    if (deadline == GAR_MONO_NEVER && work->done_at == GAR_MONO_NEVER)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_host_wait", "deadline",
                             "is none, and the work never completes (the wait would never end)");
    return 0;
}

/* Field by field, straight into the caller's result, each field read at
 * the width the machine wrote it: a copy of the whole report moves it in
 * 8- or 16-byte words, and the kinds, just stored in 4 bytes, cannot be
 * forwarded to such a load (a stall of a dozen cycles a wait).  The three
 * 4-byte fields are read through a volatile view, so the compiler cannot
 * join them into such a load either.  The sample's padding is zeroed:
 * reports compare bytewise. */
static inline void copy_report(gar_wait_report *to, const gar_wait_report *rep)
{
    const volatile gar_wait_report *narrow = rep;
    to->kind = narrow->kind;
    to->sleep_late_ns = narrow->sleep_late_ns;
    memset(&to->sample, 0, sizeof to->sample);
    to->sample.kind = narrow->sample.kind;
    to->sample.ns = rep->sample.ns;
    to->wait_ns = rep->wait_ns;
    to->slept_ns = rep->slept_ns;
    to->sleeps = rep->sleeps;
    to->parks = rep->parks;
    to->queries = rep->queries;
    to->backstop_queries = rep->backstop_queries;
    to->polls = rep->polls;
}

int gar_sim_host_wait(gar_sim_host *host, gar_sim_device *dev, gar_sim_work *work,
                      const gar_plan *plan, bool has_sleep, gar_dur_ns sleep_ns,
                      gar_mono_ns start, gar_mono_ns deadline, gar_sim_wait_result *out,
                      gar_error *err)
{
    int rc = check_wait_args(host, dev, work, deadline, out, err);
    if (rc < 0)
        return rc;
    gar_wait w;
    rc = gar_wait_init(&w, plan, has_sleep, sleep_ns, start, deadline, err);
    if (rc < 0)
        return rc;

    const gar_host_profile *hp = &host->profile;
    accounts acc = { 0, 0, 0 };
    visibility vis = { false, 0 };
    /* Each wait's long turns come from a stream of its own (sim_host.h),
     * seeded at its first POLL step: other plans pay nothing for it. */
    uint64_t wait_index = host->waits++;
    bool long_seeded = false;
    /* Read once: a driver's loop without an observer tests a register. */
    const bool observed = host->on_action != NULL;
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
            if (!long_seeded) {
                host->long_prng = gar_prng_seeded(host->long_seed + wait_index);
                long_seeded = true;
            }
            gar_mono_ns limit = work->done_at < deadline ? work->done_at : deadline;
            if (hung(work) && gar__sim_host_skip_hung_polls(host, &w, deadline, &t, &acc))
                continue;
            gar_dur_ns period = host->exact_polls
                                    ? gar__sim_host_single_turns(host, &w, limit, &t, &acc)
                                    : gar__sim_host_fast_turns(host, &w, limit, &t, &acc);
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
                          sleep_overshoot(host, a.until > t ? a.until - t : 0));
            acc.asleep += t - from;
            answer = 0;
            break;
        case GAR_WAIT_OP_PARK:
            /* A park the store ends (the common last one) is never batched. */
            if (work->store_at > a.until && !hung(work) &&
                batch_parks(host, dev, work, &w, plan->park_ns, a.until, &t, &acc))
                continue; /* fed; the park after the batch comes next */
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
        if (observed)
            observe(host, a.op,
                    a.op == GAR_WAIT_OP_SLEEP_UNTIL || a.op == GAR_WAIT_OP_PARK ? a.until : 0, from,
                    t, answer, 1);
        /* The driver reads the clock after every answer. */
        gar_mono_ns seen = gar_after(t, hp->clock_ns);
        acc.busy += seen - t;
        t = seen;
        gar_wait_feed(&w, answer, t, err);
    }
ended:;
    gar_wait_action last = gar_wait_next(&w);
    copy_report(&out->report, &w.report);
    out->start = start;
    out->end = t;
    out->busy_ns = acc.busy;
    out->parked_ns = acc.parked;
    out->asleep_ns = acc.asleep;
    return last.op == GAR_WAIT_OP_DONE ? 0 : last.code;
}
