/* experiments/verify/verify_of_run.c — a recorded run against its
 * simulation; see verify_of_run.h. */
#include "verify/verify_of_run.h"

#include <stdlib.h>

#include <gar/plan.h>

#include "run/run_record.h"
#include "sim/replay.h"
#include "sim/trace/trace.h"

/* The replay's observer: each wait's overshoot, by its row. */
static void keep_overshoot(void *context, const gar_replay_wait *wait)
{
    gar_dur_ns *overshoot = context;
    overshoot[wait->index] = wait->overshoot_ns;
}

static void print_comparison(FILE *out, const gar_verify_comparison *c)
{
    for (int i = 0; i < 4; i++)
        fprintf(out, "%s: real %llu sim %llu (%s)\n", c->q[i].key,
                (unsigned long long)c->q[i].real, (unsigned long long)c->q[i].sim,
                gar_verify_check_name(c->q[i].check));
    fprintf(out, "ks_d: %.4f (bound %.2f, 5 %% critical %.4f; %s)\n", c->ks_d, c->ks_d_max,
            c->ks_critical, gar_verify_check_name(c->ks_check));
    fprintf(out, "busy_frac: real %.4f sim %.4f (%s)\n", c->busy_real, c->busy_sim,
            gar_verify_check_name(c->busy_check));
    fprintf(out, "verdict: %s\n", c->agree ? "agree" : "disagree");
}

/* The machine's own ceiling beside the verdict: whether the run's halves
 * agree as the simulation is asked to, and what that says of a disagreement. */
static void print_holdout(FILE *out, const gar_verify_comparison *h, bool sim_agrees)
{
    fprintf(out, "real_holdout: %d/1 (the run's even-numbered waits judged against its "
                 "odd-numbered ones as the simulation is: ks_d %.4f, p50 %s, p90 %s; what a "
                 "model exact for this machine would score now)\n",
            h->agree ? 1 : 0, h->ks_d, gar_verify_check_name(h->q[0].check),
            gar_verify_check_name(h->q[1].check));
    if (!sim_agrees && h->agree)
        fprintf(out, "note: the run agrees with itself but not with its simulation: the "
                     "disagreement is the model's (the host profile's costs against this "
                     "program's waits), not this machine's spread\n");
    else if (!h->agree)
        fprintf(out, "note: the run does not agree with itself: this machine's spread is "
                     "wider than the bounds, so no simulation can be judged finer\n");
}

/* The run against itself, the machine's own ceiling: its even-numbered
 * waits (in the order it ran them) judged against its odd-numbered ones
 * exactly as the simulation is judged against all of them.  Fills `out`
 * and returns 1; 0 when there are too few waits to halve (fewer than 4);
 * -1 when memory runs out.  `real` is left as it was. */
static int judge_halves(const gar_verify_tolerance *tol, bool blocks, const gar_dur_ns *real,
                        size_t n, double busy, gar_verify_comparison *out)
{
    if (n < 4)
        return 0;
    size_t half = n / 2;
    gar_dur_ns *even = malloc(half * sizeof *even), *odd = malloc(half * sizeof *odd);
    if (!even || !odd) {
        free(even);
        free(odd);
        return -1;
    }
    for (size_t k = 0; k < half; k++) {
        even[k] = real[2 * k];
        odd[k] = real[2 * k + 1];
    }
    gar_verify_compare(tol, blocks, even, odd, half, busy, busy, out);
    free(even);
    free(odd);
    return 1;
}

/* Replays `trace` under `plan`, writing each row's simulated overshoot. */
static int simulate(const gar_trace *trace, const gar_plan *plan, const gar_host_profile *host,
                    uint64_t seed, gar_dur_ns *sim_overshoot, gar_replay_metrics *metrics,
                    gar_error *err)
{
    gar_replay_config config;
    gar_replay_config_init(&config);
    config.trace = trace;
    config.plan = plan;
    config.host = host;
    config.seed = seed;
    config.on_wait = keep_overshoot;
    config.on_wait_context = sim_overshoot;
    return gar_replay_run(&config, metrics, err);
}

int gar_verify_of_run(const char *trace_path, const gar_host_profile *host,
                      const char *host_name, uint64_t seed, const gar_verify_tolerance *tol,
                      FILE *out, bool *agree, gar_error *err)
{
    gar_trace trace;
    int rc = gar_trace_read_file(&trace, trace_path, err);
    if (rc < 0)
        return rc;
    char plan_text[GAR_PLAN_LABEL_BYTES];
    gar_run_outcome *outcome = NULL;
    gar_plan plan;
    rc = gar_run_outcome_read(trace_path, trace.count, plan_text, sizeof plan_text, &outcome, err);
    if (rc == 0)
        rc = gar_plan_parse(plan_text, &plan, err);
    gar_dur_ns *sim = rc == 0 ? calloc(trace.count, sizeof *sim) : NULL;
    gar_dur_ns *real = rc == 0 ? calloc(trace.count, sizeof *real) : NULL;
    gar_dur_ns *sim_kept = rc == 0 ? calloc(trace.count, sizeof *sim_kept) : NULL;
    if (rc == 0 && (!sim || !real || !sim_kept))
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "the run's overshoots", "memory");
    gar_replay_metrics metrics;
    if (rc == 0)
        rc = simulate(&trace, &plan, host, seed, sim, &metrics, err);
    size_t n = 0;
    uint64_t cpu = 0, wall = 0;
    for (size_t i = 0; rc == 0 && i < trace.count; i++) {
        if (!outcome[i].taken)
            continue;
        const gar_trace_row *r = &trace.row[i];
        uint64_t from = r->done_ns > r->start_ns ? r->done_ns : r->start_ns;
        real[n] = outcome[i].end_ns > from ? outcome[i].end_ns - from : 0;
        sim_kept[n] = sim[i];
        cpu += outcome[i].cpu_ns;
        wall += outcome[i].end_ns > r->start_ns ? outcome[i].end_ns - r->start_ns : 0;
        n++;
    }
    if (rc == 0 && n == 0)
        rc = gar_error_set(err, GAR_E_INVALID_TRACE, 4, trace_path, "", "",
                           "no wait of the run was taken over by its plan: nothing to compare");
    double busy_real = wall ? (double)cpu / (double)wall : 0.0;
    bool blocks = plan.park == GAR_PARK_BLOCK;
    gar_verify_comparison halves;
    int halved = rc == 0 ? judge_halves(tol, blocks, real, n, busy_real, &halves) : 0;
    if (halved < 0)
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "the run's overshoots", "memory");
    if (rc == 0) {
        gar_verify_comparison c;
        gar_verify_compare(tol, blocks, real, sim_kept, n, busy_real, metrics.busy_frac, &c);
        fprintf(out, "trace: %s\nplan: %s\nhost: %s\nseed: %llu\nwaits: %zu\ncompared: %zu"
                     " (the waits the plan ran)\n",
                trace_path, plan_text, host_name, (unsigned long long)seed, trace.count, n);
        print_comparison(out, &c);
        if (halved)
            print_holdout(out, &halves, c.agree);
        *agree = c.agree;
    }
    free(sim);
    free(real);
    free(sim_kept);
    free(outcome);
    gar_trace_free(&trace);
    return rc;
}
