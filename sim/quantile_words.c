/* sim/quantile_words.c — durations and quantiles in words (quantile_words.h). */
#include "sim/quantile_words.h"

#include <stdio.h>

#include "core/nearest_rank.h"

size_t gar_words_ns(gar_dur_ns ns, char *buf, size_t size)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\u00b5s" } };
    if (ns < 1000)
        return (size_t)snprintf(buf, size, "%llu ns", (unsigned long long)ns);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        double v = (double)ns / units[i].scale;
        /* 999.95 µs prints as 1000 µs at this precision: take the next unit */
        if (v < 0.9995 && i + 1 < sizeof units / sizeof units[0])
            continue;
        int digits = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
        return (size_t)snprintf(buf, size, "%.*f %s", digits, v, units[i].unit);
    }
    return 0; /* not reached: the last unit takes anything from 1000 ns */
}

size_t gar_words_quantile(uint32_t level_ppm, gar_dur_ns value, const gar_quantile_interval *ci,
                          size_t n, const char *noun, double confidence, char *buf, size_t size)
{
    if (n == 0)
        return (size_t)snprintf(buf, size, "none (no %s)", noun);
    char v[32], lo[32], hi[32], name[16];
    gar_words_ns(value, v, sizeof v);
    gar_words_ns(ci->lo, lo, sizeof lo);
    gar_words_ns(ci->hi, hi, sizeof hi);
    /* "p99", "p99.9": the level as the quantile's name */
    if (level_ppm % 10000 == 0)
        snprintf(name, sizeof name, "p%u", (unsigned)(level_ppm / 10000));
    else
        snprintf(name, sizeof name, "p%g", level_ppm / 1e4);
    double pct = confidence * 100.0;
    if (ci->has_lo && ci->has_hi)
        return (size_t)snprintf(buf, size, "%s (%g %% interval %s to %s)", v, pct, lo, hi);
    bool largest = gar_nearest_rank_index(n, level_ppm) == n - 1;
    if (largest && n == 1)
        return (size_t)snprintf(buf, size, "%s (a single value; too few %s for a %s)", v, noun,
                                name);
    if (largest)
        return (size_t)snprintf(buf, size, "%s (the largest of %zu %s; too few %s for a %s)", v,
                                n, noun, noun, name);
    if (ci->has_lo)
        return (size_t)snprintf(buf, size,
                                "%s (too few %s for a %s: at least %s at %g %%, no upper bound "
                                "below %zu %s)",
                                v, noun, name, lo, pct,
                                gar_quantile_interval_min_waits(level_ppm, confidence), noun);
    if (ci->has_hi)
        return (size_t)snprintf(buf, size, "%s (too few %s for a %s: at most %s at %g %%)", v,
                                noun, name, hi, pct);
    return (size_t)snprintf(buf, size, "%s (too few %s for a %s)", v, noun, name);
}
