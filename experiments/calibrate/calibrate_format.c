/* experiments/calibrate/calibrate_format.c — a calibration as the text of
 * a gar-host v1 profile (gar_calibration_format, calibrate.h). */
#define _POSIX_C_SOURCE 200809L

#include "calibrate/calibrate.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "calibrate/calibrate_measure.h"
#include "calibrate/calibrate_rounds.h"

/* "p50", "p99.9", "p99.9999": the level in its shortest form. */
static int level_text(uint32_t ppm, char *buf, size_t size)
{
    unsigned whole = ppm / 10000, frac = ppm % 10000, digits = 4;
    if (frac == 0)
        return snprintf(buf, size, "p%u", whole);
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    return snprintf(buf, size, "p%u.%0*u", whole, (int)digits, frac);
}

typedef struct cursor {
    char *buf;
    size_t size, len;
} cursor;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(cursor *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = c->len < c->size ? c->size - c->len : 0;
    int n = vsnprintf(room > 0 ? c->buf + c->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        c->len += (size_t)n;
}

static void put_dist(cursor *c, const char *key, const gar_calibrated_dist *d)
{
    put(c, "%s", key);
    for (unsigned i = 0; i < d->dist.count; i++) {
        char level[16];
        level_text(d->dist.level[i], level, sizeof level);
        put(c, " %s=%llu", level, (unsigned long long)d->dist.value[i]);
    }
    put(c, "\n");
}

static void put_leads(cursor *c, const char *key, const gar_calibrated_dist *at)
{
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        if (at[k].samples == 0)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%s@%s", key, gar_host_lead_name(k));
        put(c, "# %llu of them lasted nearest %s:\n", (unsigned long long)at[k].samples,
            gar_host_lead_name(k));
        put_dist(c, name, &at[k]);
    }
}

size_t gar_calibration_format(const gar_calibration *cal, char *buf, size_t size)
{
    assert(cal != NULL && (buf != NULL || size == 0));
    cursor c = { buf, size, 0 };
    if (size > 0)
        buf[0] = '\0';
    put(&c, "gar-host v1\n");
    put(&c, "# Measured by gar calibrate in %.1f s, in %u slices (%u rounds).  All values in ns.\n",
        (double)cal->elapsed_ns / 1e9, CALIBRATION_SLICES, GAR_CALIBRATE_ROUNDS);
    if (cal->timer_slack.known)
        put(&c, "# Timer slack of the measuring thread: %llu ns.\n",
            (unsigned long long)cal->timer_slack.ns);
    else
        put(&c, "# Timer slack: unknown (%s).\n",
            cal->timer_slack.why != NULL ? cal->timer_slack.why : "not read");
    if (cal->waiter_cpu >= 0)
        put(&c, "# The waiter ran on CPU %d, the emulated device on CPU %d.\n", cal->waiter_cpu,
            cal->device_cpu);
    else
        put(&c, "# The waiter and the emulated device ran unpinned.\n");
    for (unsigned i = 0; i < cal->spreads; i++)
        if (cal->spread[i].noisy)
            put(&c, "# noisy: %s: the rounds gave %llu, %llu, %llu (more than %.0f %% and %u ns "
                    "apart); measure again on a quiet machine\n",
                cal->spread[i].what, (unsigned long long)cal->spread[i].round[0],
                (unsigned long long)cal->spread[i].round[1],
                (unsigned long long)cal->spread[i].round[2], GAR_CALIBRATE_NOISE_REL * 100,
                GAR_CALIBRATE_NOISE_ABS_NS);
    /* Each distribution fitted from one round says which (its p90 spread,
     * the second of its pair, names it). */
    for (unsigned i = 0; i < cal->spreads; i++) {
        const gar_calibrate_spread *sp = &cal->spread[i];
        size_t len = strlen(sp->what), key_len = len > 4 ? len - 4 : 0; /* less " p90" */
        if (sp->kept < GAR_CALIBRATE_ROUNDS && len > 4 && strcmp(sp->what + key_len, " p90") == 0)
            put(&c, "# kept: %.*s: round %u of %u alone, the quietest (its p90 %llu ns the "
                    "least), as its rounds disagree\n",
                (int)key_len, sp->what, sp->kept + 1, GAR_CALIBRATE_ROUNDS,
                (unsigned long long)sp->round[sp->kept]);
    }
    put(&c, "\n# The emulated device's status query, and gar_posix_now: medians of %u\n"
            "# batches of %u calls.\n", GAR_CALIBRATE_ROUNDS * COST_BATCHES, COST_CALLS);
    put(&c, "query_ns %llu\nclock_ns %llu\n", (unsigned long long)cal->query_ns,
        (unsigned long long)cal->clock_ns);
    put(&c, "\n# The host's park: %s.\n", cal->park != NULL ? cal->park : "?");
    put(&c, "word_wait %s\n", cal->word_wait ? "yes" : "no");
    put(&c, "\n# clock_nanosleep to an absolute target, sleeps of 56 us to 17.8 ms: %llu sleeps.\n",
        (unsigned long long)cal->sleep_overshoot.samples);
    put_dist(&c, "sleep_overshoot_ns", &cal->sleep_overshoot);
    put_leads(&c, "sleep_overshoot_ns", cal->sleep_overshoot_at);
    put(&c, "\n# The emulated device's blocking wait, from the completion to the return,\n"
            "# blocked 56 us to 17.8 ms before: %llu wakes.\n",
        (unsigned long long)cal->block_wake.samples);
    put_dist(&c, "block_wake_ns", &cal->block_wake);
    put_leads(&c, "block_wake_ns", cal->block_wake_at);
    put(&c, "\n# The host's park on the line, from the store to the return: %llu wakes.\n",
        (unsigned long long)cal->park_wake.samples);
    put_dist(&c, "park_wake_ns", &cal->park_wake);
    put(&c, "\n# Poll waits run by the inline driver, from the completion to the wait's\n"
            "# last clock reading, less clock_ns and half a mean turn (of %llu ns): %llu\n"
            "# waits; by lead, the time the device idled before the store.\n",
        (unsigned long long)cal->poll_turn_mean_ns, (unsigned long long)cal->store_visible.samples);
    put_dist(&c, "store_visible_ns", &cal->store_visible);
    put_leads(&c, "store_visible_ns", cal->store_visible_at);
    put(&c, "\n# One turn of the inline driver's poll loop less a query and a clock read:\n"
            "# %llu turns.\n", (unsigned long long)cal->poll_period.samples);
    put_dist(&c, "poll_period_ns", &cal->poll_period);
    put(&c, "\n# Each measurement's rounds (p50 and p90; the fixed costs' medians):\n");
    for (unsigned i = 0; i < cal->spreads; i++)
        put(&c, "#   %-26s %llu %llu %llu\n", cal->spread[i].what,
            (unsigned long long)cal->spread[i].round[0],
            (unsigned long long)cal->spread[i].round[1],
            (unsigned long long)cal->spread[i].round[2]);
    return c.len;
}
