/* core/auto_host.c — a host profile as the auto rule reads it (gar/auto_host.h). */
#include <gar/auto_host.h>

#include <string.h>

#include "host_dist.h"

_Static_assert(GAR_HOST_QUANTILES_MAX <= GAR_AUTO_QUANTILES_MAX,
               "a profile's distribution fits one of the rule's");

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

/* P(X > v) for a profile's distribution, linear between its quantiles. */
static double above(const gar_host_dist *d, double v)
{
    if (v < (double)d->value[0])
        return 1.0;
    if (v >= (double)d->value[d->count - 1])
        return 0.0;
    unsigned i = 0;
    while ((double)d->value[i + 1] <= v)
        i++;
    double f = (v - (double)d->value[i]) / (double)(d->value[i + 1] - d->value[i]);
    double cdf = (double)d->level[i] + f * (double)(d->level[i + 1] - d->level[i]);
    return 1.0 - cdf / GAR_HOST_LEVEL_ONE;
}

/* How long the poll turn running when the store lands goes on: a turn's
 * residual life.  A long turn is more likely to be the one running (the
 * inspection paradox), so P(residual > v) = E[(T − v)+] / E[T], over the
 * profile's segments, each uniform. */
static double residual_turn_above(const gar_host_dist *t, double mean, double v)
{
    if (mean <= 0.0)
        return v < 0.0 ? 1.0 : 0.0;
    double sum = 0.0;
    for (unsigned i = 0; i + 1 < t->count; i++) {
        double a = (double)t->value[i], b = (double)t->value[i + 1];
        double p = (double)(t->level[i + 1] - t->level[i]) / GAR_HOST_LEVEL_ONE;
        if (v <= a)
            sum += p * ((a + b) / 2.0 - v);
        else if (v < b)
            sum += p * (b - v) * (b - v) / (2.0 * (b - a));
    }
    double q = sum / mean;
    return q < 1.0 ? q : 1.0;
}

/* The first part of a detection: a park's wake (a profile distribution) or
 * the residual of a poll turn. */
typedef struct first_part {
    const gar_host_dist *dist;
    bool residual_turn;
    double mean; /* residual_turn: the turn's mean */
} first_part;

static double first_above(const first_part *f, double v)
{
    return f->residual_turn ? residual_turn_above(f->dist, f->mean, v) : above(f->dist, v);
}

/* The levels the detection latencies are told at: the body coarsely, the
 * tail (where the rule reads them) finely. */
static const uint32_t detect_level[] = { 0,      500000, 900000, 990000, 995000,
                                         998000, 999000, 999900, 1000000 };
#define DETECT_LEVELS (sizeof detect_level / sizeof detect_level[0])

/* A latency that is `first`, then a query that waits for the store to be
 * visible (max(query, visible)), then `shift`.  The two draws are
 * independent, and a tail of their sum is mostly one of them long while the
 * other is typical, so P(sum > v) is read as P(first > v − the query's
 * median) + P(query > v), at most 1, and told at the levels above. */
static gar_auto_dist then_visible(const first_part *first, const gar_host_dist *visible,
                                  gar_dur_ns query, gar_dur_ns shift)
{
    gar_dur_ns visible_median = quantile(visible, 500000);
    double query_median = (double)(visible_median > query ? visible_median : query);
    gar_dur_ns visible_max = visible->value[visible->count - 1];
    double lo = (double)query;
    double hi = (double)(visible_max > query ? visible_max : query) +
                (double)first->dist->value[first->dist->count - 1];
    gar_auto_dist d;
    memset(&d, 0, sizeof d);
    for (unsigned k = 0; k < DETECT_LEVELS; k++) {
        double tail = 1.0 - (double)detect_level[k] / GAR_HOST_LEVEL_ONE;
        double a = lo, b = hi; /* P(sum > b) <= tail; find the least such */
        while (b - a > 1.0) {
            double v = (a + b) / 2.0;
            double q = v < (double)query ? 1.0 : above(visible, v);
            if (first_above(first, v - query_median) + q <= tail)
                b = v;
            else
                a = v;
        }
        gar_dur_ns v = k == 0 ? (gar_dur_ns)lo : (gar_dur_ns)b;
        if (d.count > 0 && v < d.value[d.count - 1])
            v = d.value[d.count - 1];
        d.level[d.count] = detect_level[k];
        d.value[d.count] = gar_after(v, shift);
        d.count++;
    }
    return d;
}

void gar_auto_host_from_profile(const gar_host_profile *p, gar_dur_ns lead_ns, gar_auto_host *out)
{
    double turn_mean = 0.0, turn_var = 0.0;
    gar_host_dist_moments(&p->poll_period, &turn_mean, &turn_var);
    const gar_host_dist none = { 2, { 0, GAR_HOST_LEVEL_ONE }, { 0, 0 } };
    const gar_host_dist *visible =
        p->store_visible.count > 0
            ? gar_host_dist_for_lead(&p->store_visible, p->store_visible_at, lead_ns)
            : &none;

    *out = (gar_auto_host){
        .query_ns = p->query_ns,
        .clock_ns = p->clock_ns,
        .poll_turn_ns = (gar_dur_ns)turn_mean,
        .word_wait = p->word_wait,
        .sleep_overshoot = shifted(&p->sleep_overshoot, 0),
        .poll_detect = then_visible(&(first_part){ &p->poll_period, true, turn_mean }, visible,
                                    p->query_ns, p->clock_ns),
        .park_detect = then_visible(&(first_part){ &p->park_wake, false, 0.0 }, visible,
                                    p->query_ns, p->clock_ns),
        .block_detect = shifted(&p->block_wake, p->clock_ns),
    };
}
