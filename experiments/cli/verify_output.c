/* experiments/cli/verify_output.c — what `gar verify` prints
 * (verify_output.h): one run's metrics side by side, as text or JSON, the
 * summary of --runs N, and a line per arm of --sweep. */
#include "cli/verify_output.h"

#include <stdio.h>
#include <string.h>

#include <yajl/yajl_gen.h>


#include "cli/json_put.h"
#include "sim/quantile_words.h"

static void print_kinds(const char *who, const gar_replay_metrics *m)
{
    printf("%s=blocked:%llu,immediate:%llu,late:%llu,parked:%llu", who,
           (unsigned long long)m->blocked, (unsigned long long)m->immediate,
           (unsigned long long)m->late, (unsigned long long)m->parked);
}

static void print_pair(const char *key, uint64_t real, uint64_t sim)
{
    printf("%s: real=%llu sim=%llu\n", key, (unsigned long long)real, (unsigned long long)sim);
}

static void print_late(const char *key, const gar_replay_quantiles *q)
{
    printf("%s: p50=%llu p99=%llu max=%llu\n", key, (unsigned long long)q->p50,
           (unsigned long long)q->p99, (unsigned long long)q->max);
}

/* "LO..HI", an absent end as "-". */
static void print_ends(const gar_quantile_interval *q)
{
    if (q->has_lo)
        printf("%llu", (unsigned long long)q->lo);
    else
        printf("-");
    printf("..");
    if (q->has_hi)
        printf("%llu", (unsigned long long)q->hi);
    else
        printf("-");
}

/* Each overshoot quantile's interval, real and simulated, in numbers and in
 * words: two runs whose intervals overlap may differ by chance alone. */
static void print_intervals(const gar_replay_metrics *rm, const gar_replay_metrics *sm)
{
    static const char *const name[3] = { "p50", "p90", "p99" };
    static const uint32_t ppm[3] = { 500000, 900000, 990000 };
    const gar_quantile_interval *real[3] = { &rm->overshoot_ci.p50, &rm->overshoot_ci.p90,
                                             &rm->overshoot_ci.p99 };
    const gar_quantile_interval *sim[3] = { &sm->overshoot_ci.p50, &sm->overshoot_ci.p90,
                                            &sm->overshoot_ci.p99 };
    const gar_dur_ns real_v[3] = { rm->overshoot_ns.p50, rm->overshoot_ns.p90,
                                   rm->overshoot_ns.p99 };
    const gar_dur_ns sim_v[3] = { sm->overshoot_ns.p50, sm->overshoot_ns.p90,
                                  sm->overshoot_ns.p99 };
    for (int j = 0; j < 3; j++) {
        printf("overshoot_%s_ci_ns: level=%g real=", name[j], rm->ci_level);
        print_ends(real[j]);
        printf(" sim=");
        print_ends(sim[j]);
        printf("\n");
    }
    char words[256];
    for (int j = 0; j < 3; j++) {
        gar_words_quantile(ppm[j], real_v[j], real[j], rm->waits, "waits", rm->ci_level, words,
                           sizeof words);
        printf("overshoot_%s_real: %s\n", name[j], words);
        gar_words_quantile(ppm[j], sim_v[j], sim[j], sm->waits, "waits", sm->ci_level, words,
                           sizeof words);
        printf("overshoot_%s_sim: %s\n", name[j], words);
    }
}

void gar_cli_verify_print_text(const gar_cli_verify_run *v)
{
    const gar_replay_metrics *rm = &v->real->metrics, *sm = v->sim;
    const gar_verify_comparison *c = v->cmp;
    const gar_verify_tolerance *tol = v->tol;
    printf("trace: %s\n", v->trace_path);
    printf("plan: %s\n", v->plan_label);
    printf("estimator: %s\n", v->estimator_label);
    printf("device: %s\n", v->device);
    printf("executor: %s\n", v->executor);
    printf("host: %s\n", v->host != NULL ? v->host : "calibrated on the spot");
    printf("host_noisy: %u\n", v->host_noisy);
    printf("seed: %llu\n", (unsigned long long)v->seed);
    print_pair("waits", rm->waits, sm->waits);
    for (unsigned k = 0; k < 4; k++)
        printf("%s: real=%llu sim=%llu ratio=%.3f\n", c->q[k].key,
               (unsigned long long)c->q[k].real, (unsigned long long)c->q[k].sim,
               gar_verify_ratio(c->q[k].real, c->q[k].sim));
    for (unsigned k = 0; k < 3; k++) /* the max has no band */
        printf("%.*s_band_ns: real=%llu..%llu sim=%llu..%llu\n",
               (int)(strlen(c->q[k].key) - 3), c->q[k].key,
               (unsigned long long)c->q[k].real_band[0], (unsigned long long)c->q[k].real_band[1],
               (unsigned long long)c->q[k].sim_band[0], (unsigned long long)c->q[k].sim_band[1]);
    print_intervals(rm, sm);
    printf("busy_frac: real=%.4f sim=%.4f diff=%.4f\n", c->busy_real, c->busy_sim, c->busy_diff);
    printf("cpu_frac: real=%.4f\n",
           rm->wait_ns > 0 ? (double)v->real->cpu_ns / (double)rm->wait_ns : 0.0);
    printf("kinds: ");
    print_kinds("real", rm);
    printf(" ");
    print_kinds("sim", sm);
    printf("\n");
    print_pair("sleeps", rm->sleeps, sm->sleeps);
    print_pair("parks", rm->parks, sm->parks);
    print_pair("queries", rm->queries, sm->queries);
    print_pair("wait_ns", rm->wait_ns, sm->wait_ns);
    print_late("device_late_ns", &v->real->device_late_ns);
    print_late("start_late_ns", &v->real->start_late_ns);
    printf("ks_d: %.4f\n", c->ks_d);
    printf("ks_d_max: %g\n", c->ks_d_max);
    printf("ks_critical_5pct: %.4f\n", c->ks_critical);
    char tol_text[512];
    gar_verify_tolerance_text(tol, tol_text, sizeof tol_text);
    printf("tolerance: %s\n", tol_text);
    printf("check_ks_d: %s\n", gar_verify_check_name(c->ks_check));
    for (unsigned k = 0; k < 4; k++)
        printf("check_%.*s: %s\n", (int)(strlen(c->q[k].key) - 3), c->q[k].key,
               gar_verify_check_name(c->q[k].check));
    printf("check_busy_frac: %s\n", gar_verify_check_name(c->busy_check));
    printf("verdict: %s\n", c->agree ? "agree" : "disagree");
}

static void j_metrics(yajl_gen g, const char *k, const gar_replay_metrics *m)
{
    gar_json_key(g, k);
    yajl_gen_map_open(g);
    gar_json_u64(g, "waits", m->waits);
    gar_json_u64(g, "overshoot_p50_ns", m->overshoot_ns.p50);
    gar_json_u64(g, "overshoot_p90_ns", m->overshoot_ns.p90);
    gar_json_u64(g, "overshoot_p99_ns", m->overshoot_ns.p99);
    gar_json_u64(g, "overshoot_max_ns", m->overshoot_ns.max);
    gar_json_double(g, "busy_frac", m->busy_frac);
    gar_json_u64(g, "wait_ns", m->wait_ns);
    gar_json_u64(g, "blocked", m->blocked);
    gar_json_u64(g, "immediate", m->immediate);
    gar_json_u64(g, "late", m->late);
    gar_json_u64(g, "parked", m->parked);
    gar_json_u64(g, "sleeps", m->sleeps);
    gar_json_u64(g, "parks", m->parks);
    gar_json_u64(g, "queries", m->queries);
    /* Each overshoot quantile's interval ends, null where absent. */
    const gar_quantile_interval *q[3] = { &m->overshoot_ci.p50, &m->overshoot_ci.p90,
                                          &m->overshoot_ci.p99 };
    static const char *const lo[3] = { "overshoot_p50_lo_ns", "overshoot_p90_lo_ns",
                                       "overshoot_p99_lo_ns" };
    static const char *const hi[3] = { "overshoot_p50_hi_ns", "overshoot_p90_hi_ns",
                                       "overshoot_p99_hi_ns" };
    gar_json_double(g, "ci_level", m->ci_level);
    for (int j = 0; j < 3; j++) {
        if (q[j]->has_lo) {
            gar_json_u64(g, lo[j], q[j]->lo);
        } else {
            gar_json_key(g, lo[j]);
            yajl_gen_null(g);
        }
        if (q[j]->has_hi) {
            gar_json_u64(g, hi[j], q[j]->hi);
        } else {
            gar_json_key(g, hi[j]);
            yajl_gen_null(g);
        }
    }
    yajl_gen_map_close(g);
}

void gar_cli_verify_print_json(const gar_cli_verify_run *v)
{
    const gar_verify_comparison *c = v->cmp;
    const gar_verify_tolerance *tol = v->tol;
    yajl_gen g = yajl_gen_alloc(NULL);
    if (g == NULL)
        return;
    yajl_gen_map_open(g);
    gar_json_text(g, "trace", v->trace_path);
    gar_json_text(g, "plan", v->plan_label);
    gar_json_text(g, "estimator", v->estimator_label);
    gar_json_text(g, "device", v->device);
    gar_json_text(g, "executor", v->executor);
    gar_json_key(g, "host");
    if (v->host != NULL)
        yajl_gen_string(g, (const unsigned char *)v->host, strlen(v->host));
    else
        yajl_gen_null(g);
    gar_json_u64(g, "host_noisy", v->host_noisy);
    gar_json_u64(g, "seed", v->seed);
    j_metrics(g, "real", &v->real->metrics);
    gar_json_double(g, "real_cpu_frac", v->real->metrics.wait_ns > 0
                                     ? (double)v->real->cpu_ns / (double)v->real->metrics.wait_ns
                                     : 0.0);
    j_metrics(g, "sim", v->sim);
    gar_json_key(g, "distance");
    yajl_gen_map_open(g);
    gar_json_double(g, "ks_d", c->ks_d);
    gar_json_double(g, "ks_critical_5pct", c->ks_critical);
    for (unsigned k = 0; k < 4; k++) {
        char key[48];
        snprintf(key, sizeof key, "%.*s_ratio", (int)(strlen(c->q[k].key) - 3), c->q[k].key);
        gar_json_double(g, key, gar_verify_ratio(c->q[k].real, c->q[k].sim));
    }
    gar_json_double(g, "busy_frac_diff", c->busy_diff);
    yajl_gen_map_close(g);
    gar_json_key(g, "tolerance");
    yajl_gen_map_open(g);
    gar_json_double(g, "ks_d", tol->ks_d_max);
    gar_json_double(g, "ks_d_block", tol->ks_d_block_max);
    gar_json_double(g, "ratio_min", tol->ratio_min);
    gar_json_double(g, "ratio_max", tol->ratio_max);
    gar_json_u64(g, "abs_ns", tol->abs_ns);
    gar_json_u64(g, "tail_waits", tol->tail_waits_min);
    gar_json_double(g, "band_z", tol->band_z);
    gar_json_double(g, "busy_diff", tol->busy_diff_max);
    yajl_gen_map_close(g);
    gar_json_key(g, "checks");
    yajl_gen_map_open(g);
    gar_json_text(g, "ks_d", gar_verify_check_name(c->ks_check));
    for (unsigned k = 0; k < 4; k++) {
        char key[48];
        snprintf(key, sizeof key, "%.*s", (int)(strlen(c->q[k].key) - 3), c->q[k].key);
        gar_json_text(g, key, gar_verify_check_name(c->q[k].check));
    }
    gar_json_text(g, "busy_frac", gar_verify_check_name(c->busy_check));
    yajl_gen_map_close(g);
    gar_json_text(g, "verdict", c->agree ? "agree" : "disagree");
    yajl_gen_map_close(g);
    const unsigned char *buf;
    size_t len;
    if (yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok) {
        fwrite(buf, 1, len, stdout);
        putchar('\n');
    }
    yajl_gen_free(g);
}

/* After --runs N: how many agreed one by one, each run's KS and the pooled
 * one, how far apart the real runs are, the envelope of each quantile with
 * where the simulation falls, and the verdict over all (verify_runs.h).
 * Two real runs more than twice the bound apart leave no simulated
 * distribution within the bound of both: D(S, A) + D(S, B) >= D(A, B). */
void gar_cli_verify_print_runs(const gar_verify_arm_run *runs, unsigned count, unsigned agreed,
                               const gar_verify_runs_judgement *j, int holdout)
{
    printf("\nruns: %u\n", count);
    printf("runs_agree: %u/%u\n", agreed, count);
    printf("ks_d_runs:");
    for (unsigned i = 0; i < count; i++)
        printf(" %.4f", runs[i].cmp.ks_d);
    printf("\n");
    printf("ks_d_pooled: %.4f (bound %g)\n", j->pooled_ks_d, j->ks_bound);
    printf("real_ks_d_max: %.4f (runs %u and %u)\n", j->real_ks_d_max, j->widest[0] + 1,
           j->widest[1] + 1);
    if (j->real_ks_d_max > 2 * j->ks_bound)
        printf("note: real runs %u and %u are %.4f apart, more than twice ks_d %g: no simulated "
               "distribution is within %g of both; the machine moved between them\n",
               j->widest[0] + 1, j->widest[1] + 1, j->real_ks_d_max, j->ks_bound, j->ks_bound);
    if (holdout >= 0)
        printf("real_holdout: %d/%u (each real run held out and judged as the simulation is "
               "against the others: p50 and p90 within the envelope's edge, KS within the "
               "bound; what a model exact for this machine would score now)\n",
               holdout, count);
    for (unsigned k = 0; k < GAR_VERIFY_RUNS_LEVELS; k++) {
        const gar_verify_envelope *e = &j->q[k];
        printf("envelope_%s_ns: real=%llu..%llu sim=%llu %s", e->key,
               (unsigned long long)e->real_min, (unsigned long long)e->real_max,
               (unsigned long long)e->sim, gar_verify_position_name(e->position));
        if (e->position == GAR_POSITION_ABOVE || e->position == GAR_POSITION_BELOW)
            printf(" (%s%.1f %% of the edge%s)", e->position == GAR_POSITION_ABOVE ? "+" : "-",
                   100 * e->beyond, e->outside ? "" : ", within it");
        printf("\n");
    }
    printf("verdict_runs: %s (%s)\n", gar_verify_runs_verdict_name(j->verdict), j->why);
}

/* --sweep: say each arm as it ends (gar_verify_sweep's callbacks). */
void gar_cli_verify_print_skipped(void *context, const char *trace_name, const char *plan,
                                  const char *estimator)
{
    (void)context;
    printf("skipped: trace=%s plan=%s estimator=%s (the oracle runs only in the "
           "simulator)\n", trace_name, plan, estimator);
}

void gar_cli_verify_print_verified(void *context, const gar_verification *v)
{
    (void)context;
    printf("verified: trace=%s plan=%s estimator=%s waits=%llu p50_ns=%llu/%llu "
           "p90_ns=%llu/%llu ks_d=%.3f busy=%.3f/%.3f",
           v->trace_name, v->plan_ran, v->estimator, (unsigned long long)v->waits,
           (unsigned long long)v->real_q[0], (unsigned long long)v->sim_q[0],
           (unsigned long long)v->real_q[1], (unsigned long long)v->sim_q[1], v->ks_d,
           v->busy_real, v->busy_sim);
    if (v->runs > 1)
        printf(" runs=%u real_ks_d_max=%.3f p50_envelope_ns=%llu..%llu(%s) "
               "p90_envelope_ns=%llu..%llu(%s)", v->runs, v->real_ks_d_max,
               (unsigned long long)v->real_min[0], (unsigned long long)v->real_max[0],
               v->position[0], (unsigned long long)v->real_min[1],
               (unsigned long long)v->real_max[1], v->position[1]);
    printf(" verdict=%s\n", v->verdict);
    fflush(stdout);
}
