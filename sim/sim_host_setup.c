/* sim/sim_host_setup.c — a simulated host set up from its profile.
 *
 * Owns gar_sim_host_init: the host's generators seeded, its draws laid
 * out, and the poll turn split once per host into a body and a rare long
 * tail with the length-biased distribution a far limit falls in (what
 * sim_host_polls.c draws from), and the @LEAD picks.  Runs once per host,
 * never per wait (sim_host_parts.h). */
#include "sim/sim_host.h"

#include <math.h>

#include "sim/sim_host_parts.h"

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

/* The stated leads of `at`, in order, for lead_draw (sim_host.c). */
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
