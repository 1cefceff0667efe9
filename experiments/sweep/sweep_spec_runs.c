/* experiments/sweep/sweep_spec_runs.c — a sweep's runs (sweep_spec.h):
 * the run at an index, its estimator, its key's hash, and its replay. */
#include "sweep/sweep_spec.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "sim/profile_caps.h"

gar_sweep_run gar_sweep_run_at(const gar_sweep_spec *spec, uint64_t index)
{
    gar_sweep_run r;
    r.seed = (size_t)(index % spec->seed_count);
    index /= spec->seed_count;
    r.mode = (size_t)(index % spec->mode_count);
    index /= spec->mode_count;
    r.host = (size_t)(index % spec->host_count);
    index /= spec->host_count;
    const gar_sweep_arm *arm = &spec->arms[index % spec->arm_count];
    r.plan = arm->plan;
    r.estimator = arm->estimator;
    index /= spec->arm_count;
    r.trace = (size_t)index;
    return r;
}

const char *gar_sweep_run_estimator_label(const gar_sweep_spec *spec, const gar_sweep_run *run)
{
    if (run->estimator == GAR_SWEEP_NO_ESTIMATOR)
        return GAR_SWEEP_NO_ESTIMATOR_LABEL;
    return spec->estimators[run->estimator].label;
}

gar_estimator_spec gar_sweep_run_estimator(const gar_sweep_spec *spec, const gar_sweep_run *run)
{
    if (run->estimator == GAR_SWEEP_NO_ESTIMATOR)
        return gar_estimator_spec_default();
    return spec->estimators[run->estimator].spec;
}

uint64_t gar_sweep_run_key_hash(const gar_sweep_spec *spec, const gar_sweep_run *run)
{
    const char *texts[] = {
        spec->traces[run->trace].hash,
        spec->plans[run->plan].label,
        gar_sweep_run_estimator_label(spec, run),
        spec->hosts[run->host].hash,
        gar_replay_mode_name(spec->modes[run->mode]),
    };
    uint64_t h = GAR_HASH_OFFSET;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        h = gar_hash_bytes(h, texts[i], strlen(texts[i]) + 1); /* the NUL separates */
    return gar_hash_u64(h, spec->seeds[run->seed]);
}

void gar_sweep_resolve(const gar_bands *requested, const gar_host_profile *host,
                       gar_bands *running, char *label, size_t size)
{
    gar_caps caps = gar_host_profile_caps(host);
    gar_error warning; /* the fallback's warning: the label names it */
    int rc = gar_bands_resolve(requested, &caps, running, &warning);
    assert(rc == 0 || rc == 1); /* 1: a band fell back */
    (void)rc;
    gar_bands_label(running, label, size);
}

int gar_sweep_replay(const gar_sweep_trace *trace, const gar_bands *bands,
                     const gar_estimator_spec *estimator, const gar_host_profile *host,
                     gar_replay_mode mode, uint64_t seed, gar_replay_observer on_wait,
                     void *context, gar_replay_scratch *scratch, gar_replay_metrics *out,
                     gar_replay_streams *streams, gar_error *err)
{
    gar_replay_config config;
    gar_replay_config_init(&config);
    config.trace = &trace->trace;
    config.index = &trace->index;
    config.scratch = scratch;
    if (bands->count == 1)
        config.plan = &bands->band[0].plan;
    else
        config.bands = bands;
    config.estimator = *estimator;
    config.host = host;
    config.mode = mode;
    config.seed = seed;
    config.on_wait = on_wait;
    config.on_wait_context = context;
    config.streams_out = streams;
    int rc = gar_replay_run(&config, out, err);
    /* A cache cut short under the replay gave zeros for rows: refused,
     * whatever the replay made of them. */
    int intact = gar_trace_cache_intact(&trace->cache, err);
    if (intact < 0 && rc >= 0)
        gar_replay_streams_free(streams);
    return intact < 0 ? intact : rc;
}
