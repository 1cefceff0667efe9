/* sim/sim_host.c — the simulator's driver of the wait machine.
 *
 * One loop: ask the machine for its action, perform it in virtual time with
 * the profile's costs, feed back the answer and the time it was seen.  The
 * cost rules are in sim_host.h. */
#include "sim/sim_host.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Fast-forwarded polls (sim_host.h): a block leaves this many standard
 * deviations of its total to spare, and has at least this many turns. */
#define BLOCK_SPARE_SD 4.0
#define BLOCK_MIN_TURNS 8
/* A turn's body is the most of its distribution whose longest turn is at
 * most this many mean body turns (what is left before a limit turn by
 * turn) and whose blocks may be as short as this many turns. */
#define BODY_SPAN_MEANS 8.0
#define BODY_BLOCK_MIN 32
/* The stationary crossing needs the body's phase mixed (its sum's spread
 * sigma*sqrt(n) well past a mean turn: 2*mu^2/sigma^2 turns leave a
 * non-uniformity of e^-(4 pi^2), nothing) and the longest turn twice over. */
#define MIX_TURNS_PER_CV2 2.0
#define MIX_SPARE_TURNS 64.0
#define MIX_LONGEST_TURNS 2.0
/* ... and a limit so far that this many long turns are due before it. */
#define JUMP_LONG_TURNS 8.0

/* The least block whose floor B*Tmin is BLOCK_SPARE_SD deviations below its
 * mean: B*(mu - Tmin) >= k*sigma*sqrt(B).  A smaller block's normal would
 * be clamped often enough to move its mean. */
static uint64_t least_block(double mean, double sd, gar_dur_ns min)
{
    double above_min = mean - (double)min;
    double k_sigma = BLOCK_SPARE_SD * sd;
    double least = above_min > 0 ? ceil(k_sigma * k_sigma / (above_min * above_min)) : 0;
    return least < 0x1p62 ? (uint64_t)least : UINT64_C(1) << 62;
}

/* The turns whose period falls in segments [0, to) of the period's
 * distribution (sampler's weights: the levels' gaps), `fixed` added. */
static gar_sim_turn_part body_part(const gar_host_dist *period, unsigned to, gar_dur_ns fixed)
{
    double m, v;
    gar_host_dist_moments_below(period, to, &m, &v);
    gar_sim_turn_part part = {
        .mean = m + (double)fixed,
        .sd = sqrt(v),
        .min = gar_after(period->value[0], fixed),
        .max = gar_after(period->value[to], fixed),
    };
    part.block_min = least_block(part.mean, part.sd, part.min);
    return part;
}

/* Splits the turn into a body and a rare long tail (sim_host.h), and lays
 * out the length-biased distribution of the turn a far limit falls in. */
static void split_turn(gar_sim_poll_turn *turn, const gar_host_dist *period, gar_dur_ns fixed)
{
    unsigned last = period->count - 1;
    unsigned cut = last;
    if (turn->sd > 0)
        for (unsigned k = last; k >= 1; k--) {
            gar_sim_turn_part body = body_part(period, k, fixed);
            if ((double)body.max <= BODY_SPAN_MEANS * body.mean &&
                body.block_min <= BODY_BLOCK_MIN) {
                cut = k;
                break;
            }
        }
    turn->body = body_part(period, cut, fixed);
    /* The sampler takes segment `cut` or above exactly when its draw's top
     * 32 bits are at least ceil(level * 2^32 / 10^6). */
    turn->tail_from = cut == last ? UINT64_C(1) << 32
                                  : ((uint64_t)period->level[cut] * (UINT64_C(1) << 32) +
                                     GAR_HOST_LEVEL_ONE - 1) / GAR_HOST_LEVEL_ONE;
    turn->tail_segment = cut < last ? cut : 0;
    turn->log_body = log1p(-(double)((UINT64_C(1) << 32) - turn->tail_from) * 0x1p-32);

    turn->segments = last;
    double cumulative = 0;
    for (unsigned i = 0; i < last; i++) {
        double a = (double)gar_after(period->value[i], fixed);
        double b = (double)gar_after(period->value[i + 1], fixed);
        double mean = b > a ? (a + b - 1) / 2 : a;
        cumulative += (double)(period->level[i + 1] - period->level[i]) * mean;
        turn->biased_cdf[i] = cumulative;
    }
    for (unsigned i = 0; i < last; i++)
        turn->biased_cdf[i] /= cumulative;
    turn->biased_cdf[last - 1] = 1.0;

    turn->stationary_from = GAR_MONO_NEVER;
    const gar_sim_turn_part *b = &turn->body;
    if (turn->tail_from < UINT64_C(1) << 32 && b->sd > 0) {
        double mix = (MIX_TURNS_PER_CV2 * b->mean * b->mean / (b->sd * b->sd) + MIX_SPARE_TURNS) *
                         b->mean +
                     MIX_LONGEST_TURNS * (double)turn->max;
        /* Before that many long turns are due, simulating each costs less. */
        double due = JUMP_LONG_TURNS * b->mean / -turn->log_body;
        if (due > mix)
            mix = due;
        if (mix < 0x1p62)
            turn->stationary_from = (gar_dur_ns)ceil(mix);
    }
}

/* The stated leads of `at`, in order, for lead_draw. */
static gar_sim_lead_pick lead_pick_of(const gar_host_dist at[GAR_HOST_LEADS])
{
    gar_sim_lead_pick pick = { .stated = 0 };
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        if (at[k].count == 0)
            continue;
        pick.index[pick.stated] = (uint8_t)k;
        pick.lead[pick.stated++] = gar_host_lead_ns(k);
    }
    return pick;
}

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

int gar_sim_host_init(gar_sim_host *host, const gar_host_profile *profile, uint64_t seed,
                      gar_error *err)
{
    if (host == NULL || profile == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_host_init",
                             host == NULL ? "host" : "profile", "is NULL");
    host->profile = *profile;
    host->prng = gar_prng_seeded_stream(seed, 0);
    host->poll_prng = gar_prng_seeded_stream(seed, 1);
    gar_prng keys = gar_prng_seeded_stream(seed, 2);
    host->long_seed = gar_prng_next(&keys);
    host->waits = 0;
    host->long_prng = gar_prng_seeded(host->long_seed);
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
    host->poll_turn.block_min = least_block(host->poll_turn.mean, host->poll_turn.sd,
                                            host->poll_turn.min);
    split_turn(&host->poll_turn, period, fixed);
    host->block_pick = lead_pick_of(profile->block_wake_at);
    host->visible_pick = lead_pick_of(profile->store_visible_at);
    host->sleep_pick = lead_pick_of(profile->sleep_overshoot_at);
    host->visible_stated = host->visible_pick.stated > 0 || profile->store_visible.count > 0;
    gar_dist_draw_prepare(&host->block_draw, &profile->block_wake);
    gar_dist_draw_prepare(&host->visible_draw, &profile->store_visible);
    gar_dist_draw_prepare(&host->sleep_draw, &profile->sleep_overshoot);
    gar_dist_draw_prepare(&host->park_draw, &profile->park_wake);
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

static inline gar_dur_ns draw(gar_sim_host *host, const gar_dist_draw *dist)
{
    return gar_dist_draw_sample(dist, gar_prng_next(&host->prng));
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

/* Feeds a batch of `count` polls (op POLL) or parks (PARK) that the
 * simulator built to the machine's rules for batches (gar/wait.h: the step
 * pending, time not going back, the batch ending before the deadline or
 * the due time): the batch's transition alone, since the checks of
 * gar_wait_feed_polls and gar_wait_feed_parks catch only a driver that
 * breaks those rules.  Debug builds run the checked feed on a copy and
 * hold the two machines to the same bytes. */
static inline void feed_built_batch(gar_wait *w, gar_wait_op op, uint64_t count, gar_mono_ns now)
{
#ifndef NDEBUG
    gar_wait checked;
    memcpy(&checked, w, sizeof checked);
    int rc = op == GAR_WAIT_OP_POLL ? gar_wait_feed_polls(&checked, count, now, NULL)
                                    : gar_wait_feed_parks(&checked, count, now, NULL);
    assert(rc == 0);
    (void)rc;
#endif
    if (op == GAR_WAIT_OP_POLL)
        gar__wait_take_polls(w, count, now);
    else
        gar__wait_take_parks(w, count, now);
#ifndef NDEBUG
    assert(memcmp(&checked, w, sizeof checked) == 0);
#endif
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

static gar_dur_ns times_saturating(uint64_t n, gar_dur_ns d)
{
    return d != 0 && n > UINT64_MAX / d ? UINT64_MAX : n * d;
}

/* The most turns a block of `part` may take with `room` ns (sim_host.h):
 * B*mu + k*sigma*sqrt(B) <= room, solved for sqrt(B). */
static uint64_t block_turns(const gar_sim_turn_part *part, double room)
{
    double spread = BLOCK_SPARE_SD * part->sd;
    double root = (sqrt(spread * spread + 4 * part->mean * room) - spread) / (2 * part->mean);
    double b = floor(root * root);
    if (b >= 0x1p62)
        return UINT64_C(1) << 62; /* no wait is that long; keeps the arithmetic in range */
    uint64_t turns = (uint64_t)b;
    while (turns > 0 && (double)turns * part->mean + spread * sqrt((double)turns) > room)
        turns--; /* the root's rounding, never more than a turn or two */
    return turns;
}

/* floor(r * bound / 2^64): a uniform draw r scaled to [0, bound), bound <= 2^32. */
static uint64_t scale_draw(uint64_t r, uint64_t bound)
{
    return bound == UINT64_C(1) << 32 ? r >> 32 : gar_host_mul_frac32(r, bound) >> 32;
}

/* ln(x) for a positive normal double, in IEEE arithmetic alone, to a few
 * parts in 10^10: a fraction of libm's log's cost (a poll loop takes one
 * for each long turn, and each normal deviate).  The exponent e, and
 * 2 atanh(s) = ln(m) for the mantissa m in [sqrt(1/2), sqrt(2)), where
 * s = (m - 1)/(m + 1) is at most 0.172 and the series after s^9 adds under
 * 3e-10. */
static double ln_of(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    bits = (bits & ~(UINT64_C(0x7ff) << 52)) | (UINT64_C(1023) << 52); /* m in [1, 2) */
    double m;
    memcpy(&m, &bits, sizeof m);
    if (m > 1.4142135623730951) {
        m *= 0.5;
        e++;
    }
    double s = (m - 1) / (m + 1), s2 = s * s;
    double series = s * (2 + s2 * (2.0 / 3 + s2 * (2.0 / 5 + s2 * (2.0 / 7 + s2 * (2.0 / 9)))));
    return e * 0.6931471805599453 + series;
}

/* A standard normal deviate by Marsaglia's polar method with ln_of: the
 * poll blocks' totals. */
static double normal_of(gar_prng *g)
{
    for (;;) {
        double u = 2.0 * gar_prng_uniform(g) - 1.0;
        double v = 2.0 * gar_prng_uniform(g) - 1.0;
        double s = u * u + v * v;
        if (s > 0x1p-1000 && s < 1.0) /* (a subnormal s has odds of 2^-1000) */
            return u * sqrt(-2.0 * ln_of(s) / s);
    }
}

/* A period drawn from the body (long_turn false) or the tail: the draw's
 * top 32 bits confined to [0, tail_from) or [tail_from, 2^32), so each is
 * the sampler's own distribution of a turn given its kind. */
static gar_dur_ns draw_period(const gar_sim_host *host, gar_prng *g, bool long_turn)
{
    const gar_sim_poll_turn *turn = &host->poll_turn;
    uint64_t top = long_turn ? turn->tail_from +
                                   scale_draw(gar_prng_next(g), (UINT64_C(1) << 32) - turn->tail_from)
                             : scale_draw(gar_prng_next(g), turn->tail_from);
    return gar_host_dist_sample_from(&host->profile.poll_period, top << 32,
                                     long_turn ? turn->tail_segment : 0);
}

/* How many body turns come before the next long one: geometric, from
 * P(body); UINT64_MAX (never) for a turn without a tail.  Memoryless, so a
 * fresh count at each POLL step is exact. */
static uint64_t body_run(const gar_sim_poll_turn *turn, gar_prng *g)
{
    if (turn->tail_from >= UINT64_C(1) << 32)
        return UINT64_MAX;
    double u = ((double)(gar_prng_next(g) >> 11) + 1) * 0x1.0p-53; /* (0, 1] */
    double run = floor(ln_of(u) / turn->log_body);
    return run < 0x1p62 ? (uint64_t)run : UINT64_C(1) << 62;
}

/* The total of a block of `b` turns of `part` that must end by `room`:
 * normal with the part's exact mean and variance, clamped to
 * [b*Tmin, min(b*Tmax, room)] (sim_host.h). */
static gar_dur_ns block_total(const gar_sim_turn_part *part, uint64_t b, gar_dur_ns room,
                              gar_prng *g)
{
    gar_dur_ns lo = times_saturating(b, part->min);
    gar_dur_ns hi = times_saturating(b, part->max);
    if (hi > room)
        hi = room;
    assert(lo <= hi);
    double total = (double)b * part->mean;
    if (part->sd > 0)
        total += part->sd * sqrt((double)b) * normal_of(g);
    /* Clamped in double first, so a far tail converts without overflow, and
     * again after rounding, which may step past an edge. */
    gar_dur_ns took = lo;
    if (total >= (double)hi)
        took = hi;
    else if (total > (double)lo)
        took = (gar_dur_ns)(total + 0.5);
    return took < lo ? lo : took > hi ? hi : took;
}

/* Feeds the `turns` pending polls that ran from `*t` to `now` as one batch. */
static void feed_batch(gar_sim_host *host, gar_wait *w, uint64_t turns, gar_mono_ns now,
                       gar_mono_ns *t, accounts *acc)
{
    if (turns == 0)
        return;
    observe(host, GAR_WAIT_OP_POLL, 0, *t, now, 0, turns);
    acc->busy += now - *t;
    *t = now;
    feed_built_batch(w, GAR_WAIT_OP_POLL, turns, now);
}

/* The turn in which a far limit falls, drawn from the stationary renewal
 * process (sim_host.h): its length x length-biased, the limit uniform in
 * it; the turns before it counted by the renewal CLT.  Feeds those turns
 * (ending at the crossing turn's start) and returns its period. */
static gar_dur_ns stationary_crossing(gar_sim_host *host, gar_wait *w, gar_mono_ns limit,
                                      gar_mono_ns *t, accounts *acc, gar_prng *g)
{
    const gar_sim_poll_turn *turn = &host->poll_turn;
    const gar_host_dist *period = &host->profile.poll_period;
    gar_dur_ns fixed = gar_after(host->profile.query_ns, host->profile.clock_ns);
    double u = gar_prng_uniform(g);
    unsigned i = 0;
    while (i + 1 < turn->segments && u >= turn->biased_cdf[i])
        i++;
    gar_dur_ns a = gar_after(period->value[i], fixed), b = gar_after(period->value[i + 1], fixed);
    gar_dur_ns x = a;
    if (b > a) {
        /* Density proportional to x on [a, b): the sampler's integers a .. b-1. */
        double da = (double)a, db = (double)b;
        double root = floor(sqrt(da * da + gar_prng_uniform(g) * (db * db - da * da)));
        x = root <= da ? a : root >= db - 1 ? b - 1 : (gar_dur_ns)root;
    }
    gar_dur_ns residual = gar_prng_below(g, x);
    gar_mono_ns crossing = limit - (x - residual); /* > *t: the limit is far */
    gar_dur_ns span = crossing - *t;
    /* Turns in [*t, crossing], both renewals: mean span/mu + sigma^2/mu^2,
     * variance sigma^2 span / mu^3. */
    double mu = turn->mean, sd = turn->sd;
    double mean = (double)span / mu + sd * sd / (mu * mu);
    double n = floor(mean + sd * sqrt((double)span / (mu * mu * mu)) * normal_of(g) + 0.5);
    double most = turn->min > 0 ? floor((double)span / (double)turn->min) : 0x1p62;
    double least = ceil((double)span / (double)turn->max);
    if (n > most)
        n = most;
    if (n < least)
        n = least;
    if (n < 1)
        n = 1;
    feed_batch(host, w, (uint64_t)n, crossing, t, acc);
    return x - fixed;
}

/* Whether `n` body turns surely take less than `room` ns: their mean total
 * plus BLOCK_SPARE_SD deviations, n*mu + k*sigma*sqrt(n) < room, squared
 * (no square root: this runs for every long turn of a poll loop). */
static bool body_fits(const gar_sim_turn_part *body, uint64_t n, double room)
{
    double left = room - (double)n * body->mean;
    double spread = BLOCK_SPARE_SD * body->sd;
    return left > 0 && spread * spread * (double)n < left * left;
}

/* Turns whose kinds and long turns are drawn but whose body total is not
 * yet: `body` body turns and `long_turns` long ones of `long_ns` in all. */
typedef struct pending_turns {
    uint64_t body, long_turns;
    gar_dur_ns long_ns;
} pending_turns;

/* Draws the pending turns' body total (a normal block, or one by one when
 * too few for one) and moves `*now` past them all; they end before `limit`. */
static void settle(const gar_sim_host *host, pending_turns *p, gar_mono_ns limit, gar_mono_ns *now,
                   uint64_t *turns, gar_prng *g)
{
    const gar_sim_turn_part *body = &host->poll_turn.body;
    gar_dur_ns fixed = gar_after(host->profile.query_ns, host->profile.clock_ns);
    gar_dur_ns total = 0;
    if (p->body >= BLOCK_MIN_TURNS && p->body >= body->block_min) {
        total = block_total(body, p->body, limit - 1 - *now - p->long_ns, g);
    } else {
        for (uint64_t i = 0; i < p->body; i++)
            total += draw_period(host, g, false) + fixed;
        gar_dur_ns room = limit - 1 - *now - p->long_ns;
        if (total > room)
            total = room; /* beyond four deviations: never in practice */
    }
    *now += p->long_ns + total;
    *turns += p->body + p->long_turns;
    *p = (pending_turns){ 0, 0, 0 };
}

/* At a POLL step at `*t`, fast-forwarded (sim_host.h): every turn that
 * surely answers pending before `limit` (the completion or the deadline,
 * the earlier) is fed to the machine as one batch, and the period of the
 * turn that may not (the first to end at or past `limit`) is returned, for
 * the caller to perform alone.  The kinds of turns and the long turns come
 * from the wait's long-turn stream, in the order turn by turn draws them;
 * body turns from the poll stream. */
static gar_dur_ns fast_turns(gar_sim_host *host, gar_wait *w, gar_mono_ns limit, gar_mono_ns *t,
                             accounts *acc)
{
    const gar_sim_poll_turn *turn = &host->poll_turn;
    const gar_sim_turn_part *body = &turn->body;
    gar_prng g = host->poll_prng, a = host->long_prng; /* in registers; put back at the end */
    gar_dur_ns fixed = gar_after(host->profile.query_ns, host->profile.clock_ns);
    gar_dur_ns period;
    if (limit == GAR_MONO_NEVER || limit <= *t) {
        uint64_t run = body_run(turn, &a);
        period = draw_period(host, run == 0 ? &a : &g, run == 0);
    } else if (limit - *t >= turn->stationary_from) {
        period = stationary_crossing(host, w, limit, t, acc, &g);
    } else {
        uint64_t block_least = body->block_min > BLOCK_MIN_TURNS ? body->block_min : BLOCK_MIN_TURNS;
        gar_mono_ns now = *t;
        uint64_t turns = 0;
        pending_turns p = { 0, 0, 0 };
        uint64_t run = body_run(turn, &a);
        for (;;) {
            /* A whole run of body turns, and then its long turn, join the
             * pending ones while all surely end before the limit. */
            double left = (double)(limit - 1 - now) - (double)p.long_ns;
            if (run > 0 && p.body + run >= p.body && body_fits(body, p.body + run, left)) {
                p.body += run;
                run = 0;
            }
            if (run == 0) {
                gar_dur_ns long_period = draw_period(host, &a, true);
                gar_dur_ns long_turn = gar_after(long_period, fixed);
                if (body_fits(body, p.body, left - (double)long_turn)) {
                    p.long_ns += long_turn;
                    p.long_turns++;
                    run = body_run(turn, &a);
                    continue;
                }
                if (p.body + p.long_turns > 0)
                    settle(host, &p, limit, &now, &turns, &g);
                gar_mono_ns long_end = gar_after(now, long_turn);
                if (long_end >= limit) {
                    period = long_period;
                    break;
                }
                now = long_end;
                turns++;
                run = body_run(turn, &a);
                continue;
            }
            /* The run reaches near the limit: the pending turns are
             * settled, then blocks of it and single turns, as before. */
            if (p.body + p.long_turns > 0)
                settle(host, &p, limit, &now, &turns, &g);
            gar_dur_ns room = limit - now - 1; /* a block ends at or before now + room */
            if (room > body->max) {
                uint64_t b = block_turns(body, (double)(room - body->max));
                if (b > run)
                    b = run;
                if (b >= block_least) {
                    now += block_total(body, b, room, &g);
                    turns += b;
                    run -= b;
                    continue;
                }
            }
            period = draw_period(host, &g, false);
            gar_mono_ns end = gar_after(gar_after(now, period), fixed);
            if (end >= limit)
                break;
            now = end;
            turns++;
            run--;
        }
        feed_batch(host, w, turns, now, t, acc);
    }
    host->poll_prng = g;
    host->long_prng = a;
    return period;
}

/* At a POLL step at `*t`, turn by turn (exact_polls): the turns that
 * follow, one draw each, exactly as single POLL actions would run them,
 * each turn's kind and each long turn from the wait's long-turn stream,
 * each body turn from the poll stream (the same split of the sampler's draw
 * as fast_turns makes).  Those that surely answer pending and end before
 * `limit` (their clock read included) are fed to the machine as one batch,
 * which is equivalent; the first that may not is left to the caller to
 * perform alone: its drawn poll period is returned. */
static gar_dur_ns run_single_turns(gar_sim_host *host, gar_wait *w, gar_mono_ns limit,
                                   gar_mono_ns *t, accounts *acc)
{
    const gar_sim_poll_turn *turn = &host->poll_turn;
    gar_dur_ns fixed = gar_after(host->profile.query_ns, host->profile.clock_ns);
    gar_mono_ns now = *t;
    uint64_t turns = 0;
    /* This loop is where exact poll plans spend their draws: the generators
     * are stepped in local copies, kept in registers, and put back at the end. */
    gar_prng g = host->poll_prng, a = host->long_prng;
    uint64_t run = body_run(turn, &a);
    for (;;) {
        bool long_turn = run == 0;
        gar_dur_ns period = draw_period(host, long_turn ? &a : &g, long_turn);
        gar_mono_ns end = gar_after(gar_after(now, period), fixed);
        if (end >= limit) {
            host->poll_prng = g;
            host->long_prng = a;
            feed_batch(host, w, turns, now, t, acc);
            return period;
        }
        now = end;
        turns++;
        run = long_turn ? body_run(turn, &a) : run - 1;
    }
}

/* At a POLL step at `*t` on a hung item: every turn before the deadline
 * answers pending, so they are fed as one batch ending at the last instant
 * before it, charged busy, their number the time over a mean turn.  Whatever
 * the poll plan or exact_polls, the wait then fails at the deadline after
 * one more turn, in time independent of the deadline's distance.  Returns
 * false when no time is left before the deadline (the turn runs alone). */
static bool skip_hung_polls(gar_sim_host *host, gar_wait *w, gar_mono_ns deadline,
                            gar_mono_ns *t, accounts *acc)
{
    if (deadline == GAR_MONO_NEVER || deadline - 1 <= *t)
        return false;
    gar_dur_ns room = deadline - 1 - *t;
    double turns = floor((double)room / host->poll_turn.mean);
    uint64_t n = turns < 1 ? 1 : turns >= 0x1p63 ? UINT64_C(1) << 63 : (uint64_t)turns;
    observe(host, GAR_WAIT_OP_POLL, 0, *t, *t + room, 0, n);
    *t += room;
    acc->busy += room;
    feed_built_batch(w, GAR_WAIT_OP_POLL, n, *t);
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
            if (hung(work) && skip_hung_polls(host, &w, deadline, &t, &acc))
                continue;
            gar_dur_ns period = host->exact_polls
                                    ? run_single_turns(host, &w, limit, &t, &acc)
                                    : fast_turns(host, &w, limit, &t, &acc);
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
