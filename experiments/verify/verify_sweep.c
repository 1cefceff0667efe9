/* experiments/verify/verify_sweep.c — gar verify --sweep: every arm of a
 * spec run for real and in the simulator, each verification stored in the
 * database (verify_sweep.h). */
#define _POSIX_C_SOURCE 200809L

#include "verify/verify_sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/verify_arm.h"

/* The first `limit` rows of `in` (all when fewer), into `out`. */
static int first_rows(const gar_trace *in, uint64_t limit, gar_trace *out, gar_error *err)
{
    size_t n = in->count < limit ? in->count : (size_t)limit;
    gar_trace_init(out);
    int rc = gar_trace_reserve(out, n, err);
    out->columns = in->columns;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = gar_trace_append(out, &in->row[i], err);
    if (rc < 0)
        gar_trace_free(out);
    return rc;
}

/* One arm's row from its runs (judged by gar_verify_judge_arm_runs, pooled into
 * real_pool and sim_pool, n waits a run): the pooled quantiles, KS and CDFs,
 * the envelope and the verdict — one run's own (agree or disagree) when it
 * ran once, else the three-way one.  The key and the busy fractions are the
 * caller's. */
static void fill_verification(gar_verification *v, const gar_verify_runs_judgement *j,
                              const gar_verify_arm_run *runs, unsigned count, unsigned agreed,
                              const gar_dur_ns *real_pool, const gar_dur_ns *sim_pool, size_t n)
{
    memset(v, 0, sizeof *v);
    const size_t pooled = (size_t)count * n;
    v->runs = count;
    for (int i = 0; i < GAR_VERIFY_RUNS_LEVELS; i++) {
        v->real_q[i] = gar_verify_quantile(real_pool, pooled, j->q[i].level_ppm);
        v->sim_q[i] = gar_verify_quantile(sim_pool, pooled, j->q[i].level_ppm);
        v->real_min[i] = j->q[i].real_min;
        v->real_max[i] = j->q[i].real_max;
        snprintf(v->position[i], sizeof v->position[i], "%s",
                 gar_verify_position_name(j->q[i].position));
    }
    v->ks_d = count == 1 ? runs[0].cmp.ks_d : j->pooled_ks_d;
    v->real_ks_d_max = j->real_ks_d_max;
    v->agree = count == 1 ? agreed == 1 : j->verdict == GAR_RUNS_AGREE;
    snprintf(v->verdict, sizeof v->verdict, "%s",
             count == 1 ? (v->agree ? "agree" : "disagree")
                        : gar_verify_runs_verdict_name(j->verdict));
    gar_verification_cdf(real_pool, pooled, v->real_cdf);
    gar_verification_cdf(sim_pool, pooled, v->sim_cdf);
}

int gar_verify_sweep_cut(const gar_sweep_spec *spec, uint64_t limit, gar_trace **cut,
                         gar_error *err)
{
    *cut = calloc(spec->trace_count, sizeof **cut);
    if (*cut == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the traces", "exhausted");
    int rc = 0;
    for (size_t t = 0; rc == 0 && t < spec->trace_count; t++)
        if ((rc = first_rows(&spec->traces[t].trace, limit, &(*cut)[t], err)) == 0)
            rc = gar_verify_check_span(&(*cut)[t], spec->traces[t].name, err);
    if (rc < 0) {
        gar_verify_sweep_cut_free(*cut, spec->trace_count);
        *cut = NULL;
    }
    return rc;
}

void gar_verify_sweep_cut_free(gar_trace *cut, size_t count)
{
    for (size_t t = 0; cut != NULL && t < count; t++)
        gar_trace_free(&cut[t]);
    free(cut);
}

/* The runs of one arm, `bands` resolved, into `v` (all but its key and
 * what the caller stores beside): run, pooled, judged.  Returns 0 or the
 * refusal. */
static int run_and_judge(const gar_verify_sweep *s, const gar_trace *trace,
                         const gar_bands *bands, gar_estimator_spec estimator,
                         gar_verification *v, gar_error *err)
{
    gar_verify_arm_run *runs = calloc(s->runs, sizeof *runs);
    if (runs == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the runs", "exhausted");
    unsigned ran = 0, run_agreed = 0;
    double busy_real = 0, busy_sim = 0;
    int rc = 0;
    for (; ran < s->runs; ran++) {
        if ((rc = gar_verify_run_arm(trace, bands, estimator, s->device, s->executor, s->profile,
                                     s->seed, s->tol, &runs[ran], err)) < 0)
            break;
        run_agreed += runs[ran].cmp.agree;
        busy_real += runs[ran].cmp.busy_real / s->runs;
        busy_sim += runs[ran].cmp.busy_sim / s->runs;
    }
    gar_dur_ns *real_pool = NULL, *sim_pool = NULL;
    gar_verify_runs_judgement judged;
    if (rc == 0)
        rc = gar_verify_judge_arm_runs(
            runs, s->runs, trace->count, s->tol,
            gar_verify_arm_blocks(bands, runs[0].sim.blocked, runs[0].sim.waits), &real_pool,
            &sim_pool, &judged, err);
    if (rc == 0)
        fill_verification(v, &judged, runs, s->runs, run_agreed, real_pool, sim_pool,
                          trace->count);
    for (unsigned i = 0; i < ran; i++)
        gar_verify_arm_run_free(&runs[i]);
    free(runs);
    free(real_pool);
    free(sim_pool);
    v->busy_real = busy_real;
    v->busy_sim = busy_sim;
    return rc;
}

/* Arm k of trace t (its content hash `trace_hash`): skipped (the oracle),
 * or verified and stored, the caller told either way.  Returns 0 or the
 * refusal. */
static int verify_arm(const gar_verify_sweep *s, size_t t, size_t k, const char *trace_hash,
                      gar_verification *v, gar_verify_sweep_counts *counts, gar_error *err)
{
    const gar_sweep_spec *spec = s->spec;
    gar_sweep_run run = { .trace = t, .plan = spec->arms[k].plan,
                          .estimator = spec->arms[k].estimator };
    const gar_sweep_plan *plan = &spec->plans[run.plan];
    gar_estimator_spec estimator = gar_sweep_run_estimator(spec, &run);
    const char *est_label = gar_sweep_run_estimator_label(spec, &run);
    if (estimator.family == GAR_ESTIMATOR_ORACLE) {
        if (s->on_skipped != NULL)
            s->on_skipped(s->context, spec->traces[t].name, plan->label, est_label);
        counts->skipped++;
        return 0;
    }
    gar_bands bands;
    gar_error warning;
    int rc = gar_bands_resolve(&plan->bands, s->caps, &bands, &warning);
    if (rc < 0) {
        *err = warning;
        return rc;
    }
    if ((rc = run_and_judge(s, &s->cut[t], &bands, estimator, v, err)) < 0)
        return rc;
    snprintf(v->trace, sizeof v->trace, "%s", trace_hash);
    snprintf(v->trace_name, sizeof v->trace_name, "%s", spec->traces[t].name);
    snprintf(v->plan, sizeof v->plan, "%s", plan->label);
    gar_bands_label(&bands, v->plan_ran, sizeof v->plan_ran);
    snprintf(v->estimator, sizeof v->estimator, "%s", est_label);
    snprintf(v->device, sizeof v->device, "%s", s->device->name);
    snprintf(v->host_profile, sizeof v->host_profile, "%s", s->profile_hash);
    snprintf(v->tolerance, sizeof v->tolerance, "%s", s->tolerance_text);
    v->waits = s->cut[t].count;
    v->seed = s->seed;
    if ((rc = gar_verification_put(s->db, v, err)) < 0)
        return rc;
    counts->verified++;
    counts->agreed += v->agree;
    if (s->on_verified != NULL)
        s->on_verified(s->context, v);
    return 0;
}

int gar_verify_sweep_arms(const gar_verify_sweep *sweep, gar_verify_sweep_counts *counts,
                          gar_error *err)
{
    memset(counts, 0, sizeof *counts);
    gar_verification *v = calloc(1, sizeof *v);
    if (v == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a verification", "exhausted");
    int rc = 0;
    for (size_t t = 0; rc == 0 && t < sweep->spec->trace_count; t++) {
        char trace_hash[GAR_HASH_HEX_BYTES];
        gar_sweep_hash_hex(gar_sweep_trace_hash(&sweep->cut[t]), trace_hash);
        for (size_t k = 0; rc == 0 && k < sweep->spec->arm_count; k++)
            rc = verify_arm(sweep, t, k, trace_hash, v, counts, err);
    }
    free(v);
    return rc;
}
