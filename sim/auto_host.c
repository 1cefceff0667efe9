/* sim/auto_host.c — a host profile as the auto rule reads it (auto_host.h). */
#include "auto_host.h"

#include <string.h>

_Static_assert(2 * GAR_HOST_QUANTILES_MAX <= GAR_AUTO_QUANTILES_MAX,
               "two profile distributions' levels fit one of the rule's");

/* `from` with every value moved up by `shift`. */
static gar_auto_dist shifted(const gar_host_dist *from, gar_dur_ns shift)
{
    gar_auto_dist d;
    memset(&d, 0, sizeof d);
    d.count = from->count;
    for (unsigned i = 0; i < from->count; i++) {
        d.level[i] = from->level[i];
        d.value[i] = gar_after(from->value[i], shift);
    }
    return d;
}

/* The quantile of `d` at `level` (ppm), as the simulator's sampler gives it. */
static gar_dur_ns quantile(const gar_host_dist *d, uint32_t level)
{
    uint64_t top = (uint64_t)level * (UINT64_C(1) << 32) / GAR_HOST_LEVEL_ONE;
    uint64_t draw = top >= (UINT64_C(1) << 32) ? UINT64_MAX : top << 32;
    return gar_host_dist_sample(d, draw);
}

/* A latency that is `first`, then a query that waits for the store to be
 * visible (max(query, visible)), then `shift`: the two quantiles added at
 * every level either lists (comonotone: the two tails taken together, the
 * cautious reading of two draws the profile does not relate). */
static gar_auto_dist then_visible(const gar_host_dist *first, const gar_host_dist *visible,
                                  gar_dur_ns query, gar_dur_ns shift)
{
    gar_auto_dist d;
    memset(&d, 0, sizeof d);
    unsigned i = 0, j = 0;
    while (i < first->count || j < visible->count) {
        uint32_t level = j >= visible->count ? first->level[i]
                         : i >= first->count ? visible->level[j]
                         : first->level[i] < visible->level[j] ? first->level[i]
                                                                : visible->level[j];
        i += i < first->count && first->level[i] == level;
        j += j < visible->count && visible->level[j] == level;
        gar_dur_ns v = quantile(visible, level);
        d.level[d.count] = level;
        d.value[d.count] = gar_after(gar_after(quantile(first, level), v > query ? v : query),
                                     shift);
        d.count++;
    }
    return d;
}

void gar_auto_host_from_profile(const gar_host_profile *p, gar_auto_host *out)
{
    double turn_mean = 0.0, turn_var = 0.0;
    gar_host_dist_moments(&p->poll_period, &turn_mean, &turn_var);
    gar_dur_ns turn_median = gar_host_dist_median(&p->poll_period);
    const gar_host_dist none = { 2, { 0, GAR_HOST_LEVEL_ONE }, { 0, 0 } };
    const gar_host_dist *visible = p->store_visible.count > 0 ? &p->store_visible : &none;
    *out = (gar_auto_host){
        .query_ns = p->query_ns,
        .clock_ns = p->clock_ns,
        .poll_turn_ns = (gar_dur_ns)turn_mean,
        .word_wait = p->word_wait,
        .sleep_overshoot = shifted(&p->sleep_overshoot, 0),
        .poll_detect = then_visible(&none, visible, p->query_ns, turn_median + p->clock_ns),
        .park_detect = then_visible(&p->park_wake, visible, p->query_ns, p->clock_ns),
        .block_detect = shifted(&p->block_wake, p->clock_ns),
    };
}
