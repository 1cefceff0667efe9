/* core/host_dist.c — the moments of a profile's distribution as its sampler
 * draws it (core/host_dist.h). */
#include "host_dist.h"

/* One segment of the sampler: values uniform on the integers a .. b - 1. */
static double segment_mean(const gar_host_dist *dist, unsigned i)
{
    double a = (double)dist->value[i], w = (double)(dist->value[i + 1] - dist->value[i]);
    return w > 0 ? a + (w - 1) / 2 : a;
}

static double segment_variance(const gar_host_dist *dist, unsigned i)
{
    double w = (double)(dist->value[i + 1] - dist->value[i]);
    return w > 0 ? (w * w - 1) / 12 : 0;
}

void gar_host_dist_moments_below(const gar_host_dist *dist, unsigned to, double *mean,
                                 double *variance)
{
    /* Two passes (the mean, then the spread about it), weights in whole ppm,
     * so a constant comes out exact: its mean the value, its variance 0. */
    double weight = 0, m = 0, v = 0;
    for (unsigned i = 0; i < to; i++) {
        double w = (double)(dist->level[i + 1] - dist->level[i]);
        weight += w;
        m += w * segment_mean(dist, i);
    }
    m /= weight;
    for (unsigned i = 0; i < to; i++) {
        double d = segment_mean(dist, i) - m;
        v += (double)(dist->level[i + 1] - dist->level[i]) * (segment_variance(dist, i) + d * d);
    }
    *mean = m;
    *variance = v / weight;
}

void gar_host_dist_moments(const gar_host_dist *dist, double *mean, double *variance)
{
    gar_host_dist_moments_below(dist, dist->count - 1, mean, variance);
}

gar_dur_ns gar_host_dist_median(const gar_host_dist *dist)
{
    return gar_host_dist_sample(dist, UINT64_C(1) << 63);
}
