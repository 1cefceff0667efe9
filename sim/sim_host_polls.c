/* sim/sim_host_polls.c — the POLL step's turns on the simulated host.
 *
 * Owns the turns of a poll: fast-forwarded (a block of body turns drawn as
 * one normal total, the turn a far limit falls in drawn from the
 * stationary renewal process; sim_host.h, "Fast-forwarded polls"), turn by
 * turn for exact_polls, and skipped whole on a hung item.  Its draws are
 * in IEEE arithmetic alone, so every machine gives the same bits.  Called
 * by the wait loop (sim_host.c) once per POLL step (sim_host_parts.h). */
#include "sim/sim_host.h"

#include <math.h>

#include "sim/sim_host_parts.h"

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
gar_dur_ns gar__sim_host_fast_turns(gar_sim_host *host, gar_wait *w, gar_mono_ns limit,
                                    gar_mono_ns *t, accounts *acc)
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
 * as gar__sim_host_fast_turns makes).  Those that surely answer pending and end before
 * `limit` (their clock read included) are fed to the machine as one batch,
 * which is equivalent; the first that may not is left to the caller to
 * perform alone: its drawn poll period is returned. */
gar_dur_ns gar__sim_host_single_turns(gar_sim_host *host, gar_wait *w, gar_mono_ns limit,
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
bool gar__sim_host_skip_hung_polls(gar_sim_host *host, gar_wait *w, gar_mono_ns deadline,
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

