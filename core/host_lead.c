/* core/host_lead.c — the leads a host profile states wakes at, and how a
 * length of wait picks among them (gar/host_profile.h, core/host_dist.h). */
#include "host_dist.h"
#include <gar/host_profile.h>

/* The one table: the reader's `@LEAD` keys, the calibration's bands and the
 * simulator's draws all index it. */
static const gar_dur_ns lead_ns[GAR_HOST_LEADS] = {
    100 * GAR_NS_PER_US, 300 * GAR_NS_PER_US, 1 * GAR_NS_PER_MS, 3 * GAR_NS_PER_MS,
    10 * GAR_NS_PER_MS,
};
static const char *const lead_names[GAR_HOST_LEADS] = {
    "100us", "300us", "1ms", "3ms", "10ms",
};

gar_dur_ns gar_host_lead_ns(unsigned k)
{
    return k < GAR_HOST_LEADS ? lead_ns[k] : 0;
}

const char *gar_host_lead_name(unsigned k)
{
    return k < GAR_HOST_LEADS ? lead_names[k] : NULL;
}

int gar_host_lead_nearest(gar_dur_ns ns, unsigned stated)
{
    /* Nearest in ratio between stated leads a < b: b when ns/a >= b/ns,
     * i.e. ns^2 >= a*b.  Lengths above 1 s are all far past 10 ms: capping
     * them keeps the square in 64 bits.  Once a lead is not taken, no
     * longer one is (its product with the chosen is larger still). */
    const gar_dur_ns cap = GAR_NS_PER_S;
    uint64_t l = ns < cap ? ns : cap;
    int chosen = -1;
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        if (!(stated & (1u << k)))
            continue;
        if (chosen < 0 || l * l >= lead_ns[chosen] * lead_ns[k])
            chosen = (int)k;
    }
    return chosen;
}

const gar_host_dist *gar_host_dist_for_lead(const gar_host_dist *base,
                                            const gar_host_dist at[GAR_HOST_LEADS],
                                            gar_dur_ns lead)
{
    unsigned stated = 0;
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++)
        stated |= at[k].count > 0 ? 1u << k : 0;
    int chosen = gar_host_lead_nearest(lead, stated);
    return chosen < 0 ? base : &at[chosen];
}

gar_dur_ns gar_host_lead_sample(const gar_host_dist *base, const gar_host_dist at[GAR_HOST_LEADS],
                                gar_dur_ns lead, uint64_t draw)
{
    int below = -1, above = -1; /* the stated leads around `lead` */
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        if (at[k].count == 0)
            continue;
        if (lead_ns[k] <= lead)
            below = (int)k;
        else if (above < 0)
            above = (int)k;
    }
    if (below < 0 && above < 0)
        return gar_host_dist_sample(base, draw);
    if (below < 0 || above < 0)
        return gar_host_dist_sample(&at[below < 0 ? above : below], draw);
    gar_dur_ns a = lead_ns[below], b = lead_ns[above];
    /* (lead - a) < (b - a) <= 10 ms < 2^24: shifted, it fits in 64 bits. */
    uint64_t w = ((uint64_t)(lead - a) << 32) / (b - a);
    return gar_host_lead_mix(gar_host_dist_sample(&at[below], draw),
                             gar_host_dist_sample(&at[above], draw), w);
}
