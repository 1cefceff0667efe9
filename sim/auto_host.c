/* sim/auto_host.c — a host profile as the auto rule reads it (auto_host.h). */
#include "auto_host.h"

#include <string.h>

_Static_assert(GAR_HOST_QUANTILES_MAX <= GAR_AUTO_QUANTILES_MAX, "a profile's quantiles fit the rule's");

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
        .poll_detect = shifted(visible, turn_median + p->query_ns + p->clock_ns),
        .park_detect = shifted(&p->park_wake, p->query_ns + p->clock_ns),
        .block_detect = shifted(&p->block_wake, p->clock_ns),
    };
}
