/* experiments/verify/profile_check.c — two profiles compared by the simulation they make. */
#include "verify/profile_check.h"

#include <math.h>
#include <string.h>

#include <gar/bands.h>

#include "sim/gen.h"
#include "sim/replay.h"

static const struct {
    const char *name, *plan;
} plans[GAR_PROFILE_CHECK_PLANS] = {
    { "poll", "poll" },
    { "poll+predict", "poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8" },
    { "block", "block" },
};

#define CHECK_SEED 3

static double change_of(gar_dur_ns stated, gar_dur_ns now)
{
    if (stated == 0)
        return now == 0 ? 0.0 : INFINITY;
    return ((double)now - (double)stated) / (double)stated;
}

/* The simulated overshoot p50 and p90 of `trace` under `bands` and `host`. */
static int simulate(const gar_trace *trace, const gar_bands *bands, const gar_host_profile *host,
                    gar_dur_ns q[2], gar_error *err)
{
    gar_replay_config config;
    gar_replay_config_init(&config);
    config.trace = trace;
    config.bands = bands;
    config.host = host;
    config.seed = CHECK_SEED;
    gar_replay_metrics m;
    int rc = gar_replay_run(&config, &m, err);
    if (rc == 0) {
        q[0] = m.overshoot_ns.p50;
        q[1] = m.overshoot_ns.p90;
    }
    return rc;
}

int gar_profile_check_run(const gar_host_profile *stated, const gar_host_profile *now,
                          gar_profile_check *out, gar_error *err)
{
    gar_trace trace;
    gar_gen_spec spec = gar_gen_spec_default(GAR_GEN_JITTER);
    int rc = gar_gen_run(&spec, GAR_PROFILE_CHECK_WAITS, CHECK_SEED, &trace, err);
    if (rc < 0)
        return rc;
    gar_profile_check c;
    memset(&c, 0, sizeof c);
    c.holds = true;
    for (unsigned p = 0; rc == 0 && p < GAR_PROFILE_CHECK_PLANS; p++) {
        gar_profile_check_row *r = &c.row[p];
        r->name = plans[p].name;
        r->plan = plans[p].plan;
        gar_bands bands;
        if ((rc = gar_bands_parse(r->plan, &bands, err)) < 0 ||
            (rc = simulate(&trace, &bands, stated, r->stated, err)) < 0 ||
            (rc = simulate(&trace, &bands, now, r->now, err)) < 0)
            break;
        r->holds = true;
        for (int k = 0; k < 2; k++) {
            r->change[k] = change_of(r->stated[k], r->now[k]);
            r->holds = r->holds && fabs(r->change[k]) < GAR_PROFILE_CHECK_REL;
        }
        c.holds = c.holds && r->holds;
    }
    gar_trace_free(&trace);
    if (rc == 0)
        *out = c;
    return rc;
}
