/* experiments/verify/verify_arm.c — one arm of gar verify: a trace run for
 * real and replayed as it ran in the simulator, compared, and several such
 * runs pooled and judged (verify_arm.h). */
#define _POSIX_C_SOURCE 200809L

#include "verify/verify_arm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/auto_host.h"

/* The replay's observer: each wait's overshoot, by its row. */
static void keep_overshoot(void *context, const gar_replay_wait *wait)
{
    gar_dur_ns *overshoot = context;
    overshoot[wait->index] = wait->overshoot_ns;
}

/* The span of `trace` in real time; a usage refusal naming `name` when it
 * is longer than GAR_VERIFY_SPAN_MAX_S. */
int gar_verify_check_span(const gar_trace *trace, const char *name, gar_error *err)
{
    uint64_t first = trace->row[0].submit_ns, last = 0;
    for (size_t i = 0; i < trace->count; i++) {
        if (trace->row[i].submit_ns < first)
            first = trace->row[i].submit_ns;
        if (trace->row[i].done_ns > last)
            last = trace->row[i].done_ns;
        if (trace->row[i].start_ns > last)
            last = trace->row[i].start_ns;
    }
    if (last - first <= (uint64_t)GAR_VERIFY_SPAN_MAX_S * GAR_NS_PER_S)
        return 0;
    char what[512];
    snprintf(what, sizeof what,
             "trace '%s' spans %.1f s; verify runs it in real time, so at most %d s", name,
             (double)(last - first) / 1e9, GAR_VERIFY_SPAN_MAX_S);
    return gar_error_set(err, GAR_E_USAGE, 2, "verify", what);
}

void gar_verify_arm_run_free(gar_verify_arm_run *r)
{
    free(r->sim_overshoot);
    r->sim_overshoot = NULL;
    gar_real_result_free(&r->real);
}

/* Runs `trace` for real under the resolved `bands`, then replays it as it
 * ran in the simulator with `profile`, and compares (sorting both runs'
 * overshoots).  Returns 0 with `out` filled (free it), or the refusal. */
int gar_verify_run_arm(const gar_trace *trace, const gar_bands *bands, gar_estimator_spec estimator,
                       const gar_verify_device_ops *device, gar_executor_kind executor,
                       const gar_host_profile *profile, uint64_t seed,
                       const gar_verify_tolerance *tol, gar_verify_arm_run *out, gar_error *err)
{
    memset(out, 0, sizeof *out);
    /* An auto plan's rule is told this host as the profile says, for the
     * trace's waits, as the simulator tells its own. */
    gar_auto_host auto_host;
    uint64_t *lead_room = malloc(2 * (trace->count > 0 ? trace->count : 1) * sizeof *lead_room);
    if (lead_room == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the auto rule", "exhausted");
    gar_auto_host_from_profile(
        profile, gar_auto_host_lead_of(trace, lead_room, lead_room + trace->count), &auto_host);
    free(lead_room);
    gar_real_config rc_config = {
        .trace = trace,
        .bands = bands,
        .estimator = estimator,
        .device = device,
        .executor = executor,
        .wait_deadline_ns = GAR_REPLAY_DEADLINE_DEFAULT_NS,
        .auto_host = &auto_host,
    };
    int rc = gar_real_run(&rc_config, &out->real, err);
    if (rc < 0)
        return rc;
    const size_t n = trace->count;
    out->sim_overshoot = malloc(n * sizeof *out->sim_overshoot);
    gar_replay_config sim_config;
    gar_replay_config_init(&sim_config);
    sim_config.trace = &out->real.as_run;
    sim_config.bands = bands;
    sim_config.estimator = estimator;
    sim_config.host = profile;
    sim_config.mode = GAR_REPLAY_OPEN;
    sim_config.seed = seed;
    sim_config.on_wait = keep_overshoot;
    sim_config.on_wait_context = out->sim_overshoot;
    rc = out->sim_overshoot == NULL
             ? gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the overshoots", "exhausted")
             : gar_replay_run(&sim_config, &out->sim, err);
    if (rc < 0) {
        gar_verify_arm_run_free(out);
        return rc;
    }
    gar_verify_compare(tol, gar_verify_arm_blocks(bands, out->sim.blocked, out->sim.waits),
                       out->real.overshoot,
                       out->sim_overshoot, n, out->real.metrics.busy_frac, out->sim.busy_frac,
                       &out->cmp);
    return 0;
}

/* The runs of one arm pooled and judged by their envelope (verify_runs.h):
 * each run's overshoots are sorted by its comparison.  *real_pool and
 * *sim_pool get the pooled samples (count * n each; free them).  Returns 0
 * or the out-of-memory refusal. */
int gar_verify_judge_arm_runs(const gar_verify_arm_run *runs, unsigned count, size_t n,
                              const gar_verify_tolerance *tol, bool blocks, gar_dur_ns **real_pool,
                              gar_dur_ns **sim_pool, gar_verify_runs_judgement *j, gar_error *err)
{
    const gar_dur_ns **real = malloc(count * sizeof *real), **sim = malloc(count * sizeof *sim);
    *real_pool = malloc((size_t)count * n * sizeof **real_pool);
    *sim_pool = malloc((size_t)count * n * sizeof **sim_pool);
    int rc = 0;
    if (real == NULL || sim == NULL || *real_pool == NULL || *sim_pool == NULL) {
        free(*real_pool);
        free(*sim_pool);
        *real_pool = *sim_pool = NULL;
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the pooled runs", "exhausted");
    } else {
        for (unsigned i = 0; i < count; i++) {
            real[i] = runs[i].real.overshoot;
            sim[i] = runs[i].sim_overshoot;
        }
        gar_verify_pool(real, count, n, *real_pool);
        gar_verify_pool(sim, count, n, *sim_pool);
        gar_verify_judge_runs(tol, blocks, real, count, n, *real_pool, *sim_pool,
                              (size_t)count * n, j);
    }
    free(real);
    free(sim);
    return rc;
}

/* How many of the real runs, each held out and judged as the simulation
 * against the others, pass (gar_verify_holdout_passes); -1 with fewer than
 * three runs, or no memory for it (then it goes unsaid). */
int gar_verify_holdout_of(const gar_verify_arm_run *runs, unsigned count, size_t n,
                          const gar_verify_tolerance *tol, bool blocks)
{
    if (count < 3)
        return -1;
    const gar_dur_ns **real = malloc(count * sizeof *real);
    const gar_dur_ns **others = malloc(count * sizeof *others);
    gar_dur_ns *scratch = malloc((size_t)(count - 1) * n * sizeof *scratch);
    int passes = -1;
    if (real != NULL && others != NULL && scratch != NULL) {
        for (unsigned i = 0; i < count; i++)
            real[i] = runs[i].real.overshoot;
        passes = (int)gar_verify_holdout_passes(tol, blocks, real, count, n, others, scratch);
    }
    free(real);
    free(others);
    free(scratch);
    return passes;
}
