/* experiments/cli/verb_verify.c — `gar verify`: one trace run on a real device and
 * in the simulator, and how far apart the two runs are.
 *
 * The real run (verify_real.h) comes first; the simulator then replays the
 * trace as it really ran (start and done times as the host and device really
 * had them), open loop, with the host profile — so the two runs see the same
 * world and differ only in what the host's waiting cost, which is what the
 * profile claims to model.  The verdict applies the stated tolerances
 * (verify_stats.h). */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include <gar/bands.h>
#include <gar/estimator_family.h>
#include <gar/executor_kind.h>
#include <gar/posix.h>

#include "calibrate/calibrate.h"
#include "cli/bundled.h"
#include "cli/cli_options.h"
#include "cli/host_caps.h"
#include "cli/json_put.h"
#include "cli/verbs.h"
#include "cli/write_atomic.h"
#include "sim/auto_host.h"
#include "sim/host_profile.h"
#include "sim/quantile_words.h"
#include "sim/replay.h"
#include "sim/trace/trace.h"
#include "sweep/db.h"
#include "sweep/sweep_spec.h"
#include "verify/verifications.h"
#include "verify/verify_devices.h"
#include "verify/verify_of_run.h"
#include "verify/verify_real.h"
#include "verify/verify_runs.h"
#include "verify/verify_stats.h"

static const char verb[] = "verify";

#define SPAN_MAX_S 60 /* real time: a longer trace is refused, not run */
#define SWEEP_LIMIT_DEFAULT 1000u /* --sweep: the first this many waits of each trace */
#define SWEEP_LIMIT_MAX 1000000u
#define SWEEP_LIMIT_MAX_TEXT "1000000" /* the same, for the refusal */
#define CALIBRATE_SAMPLES_ON_THE_SPOT 1000u
#define RUNS_MAX 20u /* --runs: real runs of one trace, one after another */
#if defined(GAR_HAVE_CUDA_BACKEND)
#define CUDA_DEVICE_STATE "built into this gar"
#else
#define CUDA_DEVICE_STATE "not built into this gar (refused)"
#endif

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar verify TRACE --plan PLAN [--estimator E] [--device D] [--executor K]\n"
            "                  [--host PROFILE] [--seed S] [--tolerance KEY=VALUE]...\n"
            "                  [--runs N] [--json]\n"
            "       gar verify --sweep SPEC --db DB [--limit N] [--device D] [--executor K]\n"
            "                  [--host PROFILE] [--seed S] [--tolerance KEY=VALUE]...\n"
            "                  [--runs N]\n"
            "       gar verify --trace-of-run FILE [--host PROFILE] [--seed S]\n"
            "                  [--tolerance KEY=VALUE]...\n"
            "\n"
            "Runs the waits of TRACE (gar-trace v1, plain or .csv.gz; '-': standard input)\n"
            "on a real device, in real time, on this thread by the executor kind\n"
            "--executor resolves to (the inline driver by default), then replays the trace\n"
            "as it really ran in the simulator with a host profile, and prints both runs'\n"
            "metrics side by side (`key: real=X sim=Y`), the distance between them and a\n"
            "verdict against the tolerances it prints.  Exit status: 0 the runs agree, 1\n"
            "they do not, 2 refused.\n"
            "Keep traces short (a few hundred waits of a few ms): at most %d s.\n"
            "\n"
            "With --runs N, the trace is run N times in a row, each run printed as above\n"
            "after a `run: K/N` line, then the runs together: `runs_agree: A/N` (one by\n"
            "one), each run's KS and the simulation's (its runs pooled) against the real\n"
            "runs pooled (`ks_d_pooled`), how far apart the real runs themselves are\n"
            "(`real_ks_d_max`: the largest plain KS distance between two of them; with\n"
            "three runs or more, `real_holdout: K/N`: how many real runs, each held out\n"
            "and judged as the simulation is against the others, would pass — p50 and\n"
            "p90 within the envelope's edge and KS within the bound: the most any model\n"
            "can expect from this machine now), and for p50, p90 and p99 (each where\n"
            "every run has tail_waits waits above it) the real runs' envelope, min..max,\n"
            "and where the simulation falls: inside, above all or below all\n"
            "(`envelope_p90_ns: real=A..B sim=S POSITION`).\n"
            "`verdict_runs` is then one of (three runs or more make the envelope mean\n"
            "something):\n"
            "  biased            a simulated quantile lies outside the envelope by more\n"
            "                    than the edge tolerance, or the real runs agree with\n"
            "                    each other (within twice the plan's KS bound) and the\n"
            "                    pooled KS is over the bound: a model error, not noise;\n"
            "  unjudgeable here  the real runs are more than twice the bound apart and\n"
            "                    the simulation lies among them: no simulated distribution\n"
            "                    is within the bound of both (KS distance obeys the\n"
            "                    triangle inequality), so the machine moved, and a `note:`\n"
            "                    line says so;\n"
            "  agree             else.\n"
            "Exit status 0 when verdict_runs is agree.\n"
            "\n"
            "With --sweep, every arm of the sweep spec SPEC (each trace, cut to its first\n"
            "--limit waits, under each plan and estimator; the oracle is skipped) is\n"
            "verified so, one line an arm, and stored in the database DB (created when\n"
            "missing) as a row of its `verifications` table, which `gar report` shows as\n"
            "\"Simulation vs this machine\".  The spec's host profiles and seeds are not\n"
            "used: the simulator takes this machine's profile (--host, or calibrated once\n"
            "on the spot) and --seed.  With --runs N each arm runs N times and its row\n"
            "holds the runs pooled, the real runs' envelope of p50, p90 and p99, where the\n"
            "simulation falls and the three-way verdict, as above.  Exit status 0 when\n"
            "every arm agrees.\n"
            "\n"
            "With --trace-of-run FILE, a program's run recorded by `gar run --record FILE`\n"
            "is replayed in the simulator under the plan it ran (from FILE.outcome) on the\n"
            "host profile, and each wait the plan ran for real is compared with its\n"
            "simulated self: overshoot quantiles, KS distance and busy fraction, judged\n"
            "by the tolerances above.  Exit status 0 when they agree.\n"
            "\n",
            SPAN_MAX_S);
    fprintf(out,
            "options:\n"
            "  --plan PLAN        the wait plan, or bands (required); resolved against this\n"
            "                     host (flag without a word wait runs as poll, warning 2)\n"
            "  --estimator E      estimator family (default adl; oracle is simulator-only)\n"
            "  --device D         where the trace's work runs (default emulated):\n"
            "                       emulated  a thread that completes it on time (no GPU)\n"
            "                       cuda      GPU 0 through the CUDA driver (libcuda.so.1, or\n"
            "                                 $GAR_CUDA_LIBRARY); completion times from CUDA\n"
            "                                 events, %s\n"
            "                       hip       not available yet (refused)\n"
            "  --executor K       the executor kind that runs the real waits, resolved along\n"
            "                     io-uring -> gpu-reactor -> naive as `gar executor` does\n"
            "                     (prints `executor: KIND` and, on a fallback, warning 3):\n"
            "                       naive        the inline driver (the default)\n"
            "                       gpu-reactor  each wait a task of gar's executor (the\n"
            "                                    reactor driver)\n"
            "                       io-uring     the same, its sleeps io_uring timeouts\n",
            CUDA_DEVICE_STATE);
    fprintf(out,
            "  --host PROFILE     the simulator's host profile, '-' for standard input\n"
            "                     (default: calibrate this host on the spot: %u samples\n"
            "                     per distribution, ~16 s).  Wake\n"
            "                     latencies move with the machine's load (an idle CPU\n"
            "                     wakes slower), so calibrate right before verifying;\n"
            "                     host_noisy: says how many of its measurements the\n"
            "                     calibration flagged noisy (a verdict then says little)\n"
            "  --seed S           the simulator's seed (default 0)\n"
            "  --tolerance K=V    override one tolerance (repeatable; defaults):\n"
            "                       ks_d=0.15       largest plain KS distance of the overshoots\n"
            "                                       (every ns counts: no floor), poll and park\n"
            "                       ks_d_block=0.25 the same for a plan with a blocking band\n"
            "                                       (or an auto plan that blocked in at least\n"
            "                                       half its waits)\n"
            "                       ratio_min=0.8   overshoot quantile real/sim at least\n"
            "                       ratio_max=1.25  ... and at most, unless within abs_us\n"
            "                       abs_us=1        a quantile this close agrees anyway\n"
            "                       tail_waits=10   waits above a quantile for it to be judged\n"
            "                       band_z=2        p99 compared over levels q +- this many\n"
            "                                       standard errors (0: values alone); p50\n"
            "                                       and p90 always value to value\n"
            "                       busy_diff=0.05  largest busy-fraction difference\n"
            "                       edge=0.1        with --runs: a simulated quantile this\n"
            "                                       close to the real runs' envelope (a\n"
            "                                       fraction of its nearest end) is inside\n"
            "  --runs N           run the trace N times in a row (1 to %u, default 1)\n"
            "  --json             print one JSON object instead of key: value lines (one run)\n"
            "  --sweep SPEC       verify every arm of this sweep spec (gar-sweep v1; '-':\n"
            "                     standard input, relative paths from the working folder)\n"
            "  --db DB            with --sweep: the database to store the verifications in\n"
            "  --limit N          with --sweep: the first N waits of each trace (default %u)\n"
            "  --trace-of-run FILE  compare a run gar run recorded with its simulation\n"
            "  --help             show this help\n"
            "\n"
            "example:\n"
            "  gar gen jitter --waits 300 --param mean_us=2000 --out short.csv\n"
            "  gar calibrate --out this.host\n"
            "  gar verify short.csv --plan "
            "'poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8' \\\n"
            "      --host this.host\n",
            CALIBRATE_SAMPLES_ON_THE_SPOT, RUNS_MAX, SWEEP_LIMIT_DEFAULT);
}

/* ---- output --------------------------------------------------------------- */

typedef struct verify_run {
    const char *trace_path;
    char plan_label[GAR_BANDS_LABEL_BYTES];
    char estimator_label[GAR_ESTIMATOR_LABEL_BYTES];
    const char *device;
    const char *executor; /* the kind that ran the real waits */
    const char *host; /* the profile's path, or NULL: calibrated on the spot */
    unsigned host_noisy; /* its calibration's measurements whose rounds disagreed */
    uint64_t seed;
    const gar_verify_tolerance *tol;
    const gar_real_result *real;
    const gar_replay_metrics *sim;
    const gar_verify_comparison *cmp;
} verify_run;

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

static void print_text(const verify_run *v)
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

static void print_json(const verify_run *v)
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

/* ---- the verb ------------------------------------------------------------- */

typedef struct verify_args {
    const char *trace_path;
    const char *plan_text;
    const char *estimator_text;
    const char *device;
    const char *executor_text;
    const char *host_path;
    uint64_t seed;
    bool json;
    gar_verify_tolerance tol;
    const char *sweep_path; /* --sweep: verify every arm of this spec */
    const char *db_path;
    uint64_t limit;         /* --sweep: waits per trace */
    unsigned runs;          /* --runs: real runs of the one trace */
    const char *of_run;     /* --trace-of-run: a trace gar run recorded */
} verify_args;

enum { TOLERANCES_MAX = 32 }; /* --tolerance settings kept (there are seven keys) */

/* The --tolerance settings, in the order given: applied once the loop is
 * done, so each refusal keeps the tolerance parser's own words. */
typedef struct tolerance_list {
    const char *text[TOLERANCES_MAX];
    size_t count;
} tolerance_list;

static int add_tolerance(const char *value, void *to)
{
    tolerance_list *list = to;
    if (list->count == TOLERANCES_MAX)
        return -1;
    list->text[list->count++] = value;
    return 0;
}

/* Reads the options and operands into `a`.  Returns GAR_CLI_OPTIONS_DONE to
 * run, or the exit code (after printing help, or refusing). */
static int parse_args(int argc, char **argv, verify_args *a)
{
    *a = (verify_args){ .estimator_text = "adl", .device = "emulated", .executor_text = "naive",
                        .tol = gar_verify_tolerance_default(), .limit = SWEEP_LIMIT_DEFAULT };
    bool estimator_given = false, limit_given = false;
    unsigned long long seed = 0, limit = SWEEP_LIMIT_DEFAULT, runs = 1;
    tolerance_list tolerances = { .count = 0 };
    const gar_cli_option options[] = {
        { .name = "plan", .takes = GAR_CLI_TEXT, .to = &a->plan_text },
        { .name = "estimator", .takes = GAR_CLI_TEXT, .to = &a->estimator_text,
          .given = &estimator_given },
        { .name = "device", .takes = GAR_CLI_TEXT, .to = &a->device },
        { .name = "executor", .takes = GAR_CLI_TEXT, .to = &a->executor_text },
        { .name = "host", .takes = GAR_CLI_TEXT, .to = &a->host_path },
        { .name = "seed", .takes = GAR_CLI_U64, .to = &seed, .max = ULLONG_MAX,
          .refusal = "--seed must be a decimal u64", .quote_value = true },
        { .name = "tolerance", .takes = GAR_CLI_PARSE, .to = &tolerances,
          .parse = add_tolerance, .refusal = "too many --tolerance options" },
        { .name = "runs", .takes = GAR_CLI_U64, .to = &runs, .min = 1, .max = RUNS_MAX,
          .refusal = "--runs must be 1 to 20", .quote_value = true },
        { .name = "json", .takes = GAR_CLI_FLAG, .to = &a->json },
        { .name = "sweep", .takes = GAR_CLI_TEXT, .to = &a->sweep_path },
        { .name = "db", .takes = GAR_CLI_TEXT, .to = &a->db_path },
        { .name = "limit", .takes = GAR_CLI_U64, .to = &limit, .min = 1, .max = SWEEP_LIMIT_MAX,
          .refusal = "--limit must be 1 to " SWEEP_LIMIT_MAX_TEXT " waits",
          .quote_value = true, .given = &limit_given },
        { .name = "trace-of-run", .takes = GAR_CLI_TEXT, .to = &a->of_run },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options(verb, argc, argv, options, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    a->seed = seed;
    a->limit = limit;
    a->runs = (unsigned)runs;
    for (size_t i = 0; i < tolerances.count; i++) {
        gar_error err;
        if (gar_cli_key_repeats(tolerances.text[i], tolerances.text, i))
            return gar_cli_usage_error(verb, "--tolerance sets a key given before; give "
                                             "each key once");
        if (gar_verify_tolerance_set(&a->tol, tolerances.text[i], verb, &err) < 0)
            return gar_cli_refuse(&err);
    }
    if (a->of_run != NULL) {
        if (optind != argc || a->plan_text != NULL || a->sweep_path != NULL || a->json ||
            a->runs > 1 || estimator_given)
            return gar_cli_usage_error(verb, "--trace-of-run FILE takes its trace and plan from "
                                             "the run: give no TRACE, --plan, --estimator, "
                                             "--sweep, --runs or --json");
        return GAR_CLI_OPTIONS_DONE;
    }
    if (a->sweep_path != NULL) {
        if (optind != argc)
            return gar_cli_usage_error(verb, "--sweep takes its traces from the spec: give no TRACE");
        if (a->plan_text != NULL || estimator_given)
            return gar_cli_usage_error(verb, "--sweep runs the spec's plans and estimators: "
                                             "give no --plan or --estimator");
        if (a->db_path == NULL)
            return gar_cli_usage_error(verb, "--sweep needs --db DB to store the verifications");
        if (a->json)
            return gar_cli_usage_error(verb, "--sweep prints one line an arm; --json is for one "
                                             "trace");
        if (gar_cli_both_stdin(a->sweep_path, a->host_path))
            return gar_cli_usage_error(verb, "--sweep - and --host - would both read standard "
                                             "input: save one of them to a file");
        return GAR_CLI_OPTIONS_DONE;
    }
    if (a->db_path != NULL || limit_given)
        return gar_cli_usage_error(verb, "--db and --limit go with --sweep SPEC");
    if (a->json && a->runs > 1)
        return gar_cli_usage_error(verb, "--json describes one run; give --runs 1 or no --json");
    if (optind == argc)
        return gar_cli_usage_error(verb, "give the TRACE to run");
    if (optind + 1 != argc)
        return gar_cli_usage_error(verb, "takes one TRACE");
    a->trace_path = argv[optind];
    if (gar_cli_both_stdin(a->trace_path, a->host_path))
        return gar_cli_usage_error(verb, "TRACE - and --host - would both read standard input: "
                                         "save one of them to a file");
    if (a->plan_text == NULL)
        return gar_cli_usage_error(verb, "--plan PLAN is required");
    return GAR_CLI_OPTIONS_DONE;
}

/* The replay's observer: each wait's overshoot, by its row. */
static void keep_overshoot(void *context, const gar_replay_wait *wait)
{
    gar_dur_ns *overshoot = context;
    overshoot[wait->index] = wait->overshoot_ns;
}

/* How many measurements of the profile `text` its calibration flagged
 * noisy: lines that start with "# noisy:" (gar calibrate writes one each). */
static unsigned count_noisy(const char *text)
{
    unsigned noisy = 0;
    for (const char *line = text; *line != '\0';) {
        if (strncmp(line, "# noisy:", 8) == 0)
            noisy++;
        const char *end = strchr(line, '\n');
        if (end == NULL)
            break;
        line = end + 1;
    }
    return noisy;
}

/* The host profile: the file given ("-": standard input), or this host
 * calibrated now; *noisy gets how many of its measurements' calibration
 * rounds disagreed. */
static int load_profile(const char *path, gar_host_profile *out, unsigned *noisy,
                        gar_error *err)
{
    *noisy = 0;
    char found[4096]; /* a bundled "data/..." name: the installed one (bundled.h) */
    path = gar_cli_bundled(path, found, sizeof found);
    if (path != NULL) {
        char *text;
        size_t len;
        int rc = gar_host_profile_read_text(path, &text, &len, err);
        if (rc < 0)
            return rc;
        rc = gar_host_profile_parse(text, len, strcmp(path, "-") == 0 ? "standard input" : path,
                                    out, err);
        if (rc == 0)
            *noisy = count_noisy(text);
        free(text);
        return rc;
    }
    /* Fewer samples, but the full poll run: the poll period's tail (the
     * waiter preempted) needs seconds of polling to be seen at its rate. */
    gar_calibrate_options copts = { .samples = CALIBRATE_SAMPLES_ON_THE_SPOT, .quick = false };
    gar_calibration cal;
    int rc = gar_calibrate_run(&copts, &cal, err);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; i < cal.spreads; i++)
        *noisy += cal.spread[i].noisy;
    static char text[GAR_CALIBRATION_TEXT_BYTES];
    size_t len = gar_calibration_format(&cal, text, sizeof text);
    if (len >= sizeof text)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "the profile text",
                             "GAR_CALIBRATION_TEXT_BYTES");
    return gar_host_profile_parse(text, len, "the calibration", out, err);
}

/* The span of `trace` in real time; a usage refusal naming `name` when it
 * is longer than SPAN_MAX_S. */
static int check_span(const gar_trace *trace, const char *name, gar_error *err)
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
    if (last - first <= (uint64_t)SPAN_MAX_S * GAR_NS_PER_S)
        return 0;
    char what[512];
    snprintf(what, sizeof what,
             "trace '%s' spans %.1f s; verify runs it in real time, so at most %d s", name,
             (double)(last - first) / 1e9, SPAN_MAX_S);
    return gar_error_set(err, GAR_E_USAGE, 2, verb, what);
}

/* Both runs of one trace, and how far apart they are. */
typedef struct arm_runs {
    gar_real_result real;
    gar_replay_metrics sim;
    gar_dur_ns *sim_overshoot; /* one per wait, row order until compared, then sorted */
    gar_verify_comparison cmp;
} arm_runs;

static void arm_runs_free(arm_runs *r)
{
    free(r->sim_overshoot);
    r->sim_overshoot = NULL;
    gar_real_result_free(&r->real);
}

/* Runs `trace` for real under the resolved `bands`, then replays it as it
 * ran in the simulator with `profile`, and compares (sorting both runs'
 * overshoots).  Returns 0 with `out` filled (free it), or the refusal. */
static int run_arm(const gar_trace *trace, const gar_bands *bands, gar_estimator_spec estimator,
                   const gar_verify_device_ops *device, gar_executor_kind executor,
                   const gar_host_profile *profile,
                   uint64_t seed, const gar_verify_tolerance *tol, arm_runs *out, gar_error *err)
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
        arm_runs_free(out);
        return rc;
    }
    gar_verify_compare(tol, gar_verify_arm_blocks(bands, out->sim.blocked, out->sim.waits),
                       out->real.overshoot,
                       out->sim_overshoot, n, out->real.metrics.busy_frac, out->sim.busy_frac,
                       &out->cmp);
    return 0;
}

/* ---- one trace ------------------------------------------------------------ */

/* Parses and resolves --executor against `caps` as `gar executor` does (never
 * strict).  Returns 0 (runs as asked), 1 (fell back: `report` holds warning
 * 3), or the refusal's code with `report` filled. */
static int resolve_executor(const char *text, const gar_caps *caps, gar_executor_kind *running,
                            gar_error *report)
{
    gar_executor_kind requested;
    int rc = gar_executor_kind_parse(text, &requested, report);
    if (rc < 0)
        return rc;
    return gar_executor_kind_resolve(requested, caps, false, running, report);
}

/* The runs of one arm pooled and judged by their envelope (verify_runs.h):
 * each run's overshoots are sorted by its comparison.  *real_pool and
 * *sim_pool get the pooled samples (count * n each; free them).  Returns 0
 * or the out-of-memory refusal. */
static int judge_arm_runs(const arm_runs *runs, unsigned count, size_t n,
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
static int holdout_of(const arm_runs *runs, unsigned count, size_t n,
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

/* After --runs N: how many agreed one by one, each run's KS and the pooled
 * one, how far apart the real runs are, the envelope of each quantile with
 * where the simulation falls, and the verdict over all (verify_runs.h).
 * Two real runs more than twice the bound apart leave no simulated
 * distribution within the bound of both: D(S, A) + D(S, B) >= D(A, B). */
static void print_runs_summary(const arm_runs *runs, unsigned count, unsigned agreed,
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

static int verify_one(const verify_args *a)
{
    gar_error err, warning;
    gar_bands requested, bands;
    gar_estimator_spec estimator;
    const gar_verify_device_ops *device;
    if (gar_bands_parse(a->plan_text, &requested, &err) < 0 ||
        gar_estimator_spec_parse(a->estimator_text, &estimator, &err) < 0 ||
        gar_verify_device_find(a->device, verb, &device, &err) < 0)
        return gar_cli_refuse(&err);
    if (estimator.family == GAR_ESTIMATOR_ORACLE)
        return gar_cli_usage_error(verb, "--estimator oracle knows the future, which only the "
                                         "simulator can: choose another family");
    gar_posix_host host;
    if (gar_posix_host_init(&host, NULL, &err) < 0)
        return gar_cli_refuse(&err);
    gar_caps caps = gar_host_caps_of(&host);
    int resolved = gar_bands_resolve(&requested, &caps, &bands, &warning);
    if (resolved < 0)
        return gar_cli_refuse(&warning);
    gar_executor_kind executor;
    gar_error executor_warning;
    int executor_fell_back = resolve_executor(a->executor_text, &caps, &executor,
                                              &executor_warning);
    if (executor_fell_back < 0)
        return gar_cli_refuse(&executor_warning);

    gar_trace trace;
    char trace_found[4096]; /* a bundled "data/..." name: the installed one (bundled.h) */
    if (gar_trace_read_file(&trace, gar_cli_bundled(a->trace_path, trace_found, sizeof trace_found),
                            &err) < 0)
        return gar_cli_refuse(&err);
    gar_host_profile profile;
    unsigned host_noisy = 0;
    arm_runs *runs = calloc(a->runs, sizeof *runs);
    if (runs == NULL) {
        gar_trace_free(&trace);
        gar_error_set(&err, GAR_E_CAPACITY, 2, "memory for the runs", "exhausted");
        return gar_cli_refuse(&err);
    }
    int rc = 0;
    if (check_span(&trace, a->trace_path, &err) < 0 ||
        load_profile(a->host_path, &profile, &host_noisy, &err) < 0)
        rc = -1;
    unsigned ran = 0, agreed = 0;
    for (; rc == 0 && ran < a->runs; ran++) {
        if (run_arm(&trace, &bands, estimator, device, executor, &profile, a->seed, &a->tol,
                    &runs[ran], &err) < 0) {
            rc = -1;
            break;
        }
        verify_run v = {
            .trace_path = a->trace_path,
            .device = device->name,
            .executor = gar_executor_kind_name(executor),
            .host = a->host_path,
            .host_noisy = host_noisy,
            .seed = a->seed,
            .tol = &a->tol,
            .real = &runs[ran].real,
            .sim = &runs[ran].sim,
            .cmp = &runs[ran].cmp,
        };
        gar_bands_label(&bands, v.plan_label, sizeof v.plan_label);
        gar_estimator_spec_label(&estimator, v.estimator_label, sizeof v.estimator_label);
        if (a->runs > 1)
            printf("%srun: %u/%u\n", ran > 0 ? "\n" : "", ran + 1, a->runs);
        if (executor_fell_back == 1 && !a->json)
            gar_cli_print_warning(stdout, &executor_warning);
        if (resolved == 1 && !a->json)
            gar_cli_print_warning(stdout, &warning);
        if (a->json)
            print_json(&v);
        else
            print_text(&v);
        agreed += runs[ran].cmp.agree;
        fflush(stdout); /* each run as it ends: a long --runs shows its progress */
    }
    gar_verify_runs_judgement judged = { .verdict = GAR_RUNS_AGREE };
    if (rc == 0 && a->runs > 1) {
        gar_dur_ns *real_pool, *sim_pool;
        bool blocks = gar_verify_arm_blocks(&bands, runs[0].sim.blocked, runs[0].sim.waits);
        rc = judge_arm_runs(runs, a->runs, trace.count, &a->tol, blocks, &real_pool, &sim_pool,
                            &judged, &err);
        if (rc == 0)
            print_runs_summary(runs, a->runs, agreed, &judged,
                               holdout_of(runs, a->runs, trace.count, &a->tol, blocks));
        free(real_pool);
        free(sim_pool);
    }
    for (unsigned i = 0; i < ran; i++)
        arm_runs_free(&runs[i]);
    free(runs);
    gar_trace_free(&trace);
    if (rc < 0)
        return gar_cli_refuse(&err);
    if (a->runs > 1) /* the runs together decide, not each alone */
        return judged.verdict == GAR_RUNS_AGREE ? GAR_EXIT_OK : GAR_EXIT_FAILED;
    return agreed == a->runs ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}

/* ---- every arm of a sweep ------------------------------------------------- */

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

/* One arm's row from its runs (judged by judge_arm_runs, pooled into
 * real_pool and sim_pool, n waits a run): the pooled quantiles, KS and CDFs,
 * the envelope and the verdict — one run's own (agree or disagree) when it
 * ran once, else the three-way one.  The key and the busy fractions are the
 * caller's. */
static void fill_verification(gar_verification *v, const gar_verify_runs_judgement *j,
                              const arm_runs *runs, unsigned count, unsigned agreed,
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

/* The spec's `host -` has read standard input as the spec loaded: --host -
 * would find it empty (and the spec's hosts are not what verify runs).
 * Returns 0, or the usage refusal naming the spec's line. */
static int refuse_second_stdin(const gar_sweep_spec *spec, const verify_args *a)
{
    if (a->host_path == NULL || strcmp(a->host_path, "-") != 0)
        return 0;
    for (size_t i = 0; i < spec->host_count; i++) {
        if (strncmp(spec->hosts[i].source, "standard input", strlen("standard input")) != 0)
            continue;
        char what[400];
        snprintf(what, sizeof what,
                 "the spec's 'host -' (%.200s:%u) and --host - would both read standard "
                 "input: save the profile to a file and name it in one of them",
                 a->sweep_path, spec->hosts[i].line);
        return gar_cli_usage_error(verb, what);
    }
    return 0;
}

static int verify_sweep(const verify_args *a)
{
    char spec_found[4096]; /* a bundled "data/..." name: the installed one (bundled.h) */
    gar_error err, warning;
    gar_sweep_spec spec;
    const gar_verify_device_ops *device;
    if (gar_verify_device_find(a->device, verb, &device, &err) < 0 ||
        gar_sweep_spec_load(gar_cli_bundled(a->sweep_path, spec_found, sizeof spec_found), &spec,
                            &err) < 0)
        return gar_cli_refuse(&err);
    int refused = refuse_second_stdin(&spec, a);
    if (refused != 0) {
        gar_sweep_spec_free(&spec);
        return refused;
    }
    gar_posix_host host;
    gar_caps caps;
    gar_executor_kind executor = GAR_EXECUTOR_NAIVE;
    int rc = gar_posix_host_init(&host, NULL, &err);
    if (rc == 0) {
        caps = gar_host_caps_of(&host);
        gar_error executor_warning;
        int fell_back = resolve_executor(a->executor_text, &caps, &executor, &executor_warning);
        if (fell_back < 0) {
            rc = fell_back;
            err = executor_warning;
        } else {
            printf("executor: %s\n", gar_executor_kind_name(executor));
            if (fell_back == 1)
                gar_cli_print_warning(stdout, &executor_warning);
        }
    }

    /* Every trace cut and checked before anything runs: a spec that cannot
     * be verified is refused whole. */
    gar_trace *cut = calloc(spec.trace_count, sizeof *cut);
    if (rc == 0 && cut == NULL)
        rc = gar_error_set(&err, GAR_E_CAPACITY, 2, "memory for the traces", "exhausted");
    for (size_t t = 0; rc == 0 && t < spec.trace_count; t++)
        if ((rc = first_rows(&spec.traces[t].trace, a->limit, &cut[t], &err)) == 0)
            rc = check_span(&cut[t], spec.traces[t].name, &err);
    /* The database (gar's or new, reading only) and its folder (writable)
     * are checked before a calibration on the spot, which a refusal would
     * throw away; SQLite's own message would not say why a folder fails. */
    if (rc == 0)
        rc = gar_check_file_writable(a->db_path, &err);
    if (rc == 0) {
        int known = gar_db_check(a->db_path, true, "open", &err);
        rc = known < 0 ? known : 0;
    }
    gar_host_profile profile;
    unsigned host_noisy = 0;
    if (rc == 0)
        rc = load_profile(a->host_path, &profile, &host_noisy, &err);
    gar_db *db = NULL;
    if (rc == 0)
        rc = gar_db_open(a->db_path, true, &db, &err);
    char profile_hash[GAR_HASH_HEX_BYTES];
    if (rc == 0)
        gar_sweep_hash_hex(gar_sweep_host_hash(&profile), profile_hash);
    char tol_text[512];
    gar_verify_tolerance_text(&a->tol, tol_text, sizeof tol_text);

    unsigned verified = 0, agreed = 0, skipped = 0;
    gar_verification *v = calloc(1, sizeof *v);
    if (rc == 0 && v == NULL)
        rc = gar_error_set(&err, GAR_E_CAPACITY, 2, "memory for a verification", "exhausted");
    for (size_t t = 0; rc == 0 && t < spec.trace_count; t++) {
        char trace_hash[GAR_HASH_HEX_BYTES];
        gar_sweep_hash_hex(gar_sweep_trace_hash(&cut[t]), trace_hash);
        for (size_t k = 0; rc == 0 && k < spec.arm_count; k++) {
            gar_sweep_run run = { .trace = t, .plan = spec.arms[k].plan,
                                  .estimator = spec.arms[k].estimator };
            const gar_sweep_plan *plan = &spec.plans[run.plan];
            gar_estimator_spec estimator = gar_sweep_run_estimator(&spec, &run);
            const char *est_label = gar_sweep_run_estimator_label(&spec, &run);
            if (estimator.family == GAR_ESTIMATOR_ORACLE) {
                printf("skipped: trace=%s plan=%s estimator=%s (the oracle runs only in the "
                       "simulator)\n", spec.traces[t].name, plan->label, est_label);
                skipped++;
                continue;
            }
            gar_bands bands;
            if ((rc = gar_bands_resolve(&plan->bands, &caps, &bands, &warning)) < 0) {
                err = warning;
                break;
            }
            arm_runs *runs = calloc(a->runs, sizeof *runs);
            if (runs == NULL) {
                rc = gar_error_set(&err, GAR_E_CAPACITY, 2, "memory for the runs", "exhausted");
                break;
            }
            unsigned ran = 0, run_agreed = 0;
            double busy_real = 0, busy_sim = 0;
            for (; ran < a->runs; ran++) {
                if ((rc = run_arm(&cut[t], &bands, estimator, device, executor, &profile,
                                  a->seed, &a->tol, &runs[ran], &err)) < 0)
                    break;
                run_agreed += runs[ran].cmp.agree;
                busy_real += runs[ran].cmp.busy_real / a->runs;
                busy_sim += runs[ran].cmp.busy_sim / a->runs;
            }
            gar_dur_ns *real_pool = NULL, *sim_pool = NULL;
            gar_verify_runs_judgement judged;
            if (rc == 0)
                rc = judge_arm_runs(runs, a->runs, cut[t].count, &a->tol,
                                    gar_verify_arm_blocks(&bands, runs[0].sim.blocked,
                                                          runs[0].sim.waits),
                                    &real_pool, &sim_pool, &judged, &err);
            if (rc == 0)
                fill_verification(v, &judged, runs, a->runs, run_agreed, real_pool, sim_pool,
                                  cut[t].count);
            for (unsigned i = 0; i < ran; i++)
                arm_runs_free(&runs[i]);
            free(runs);
            free(real_pool);
            free(sim_pool);
            if (rc < 0)
                break;
            snprintf(v->trace, sizeof v->trace, "%s", trace_hash);
            snprintf(v->trace_name, sizeof v->trace_name, "%s", spec.traces[t].name);
            snprintf(v->plan, sizeof v->plan, "%s", plan->label);
            gar_bands_label(&bands, v->plan_ran, sizeof v->plan_ran);
            snprintf(v->estimator, sizeof v->estimator, "%s", est_label);
            snprintf(v->device, sizeof v->device, "%s", device->name);
            snprintf(v->host_profile, sizeof v->host_profile, "%s", profile_hash);
            snprintf(v->tolerance, sizeof v->tolerance, "%s", tol_text);
            v->waits = cut[t].count;
            v->seed = a->seed;
            v->busy_real = busy_real;
            v->busy_sim = busy_sim;
            if ((rc = gar_verification_put(db, v, &err)) < 0)
                break;
            verified++;
            agreed += v->agree;
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
    }
    free(v);
    gar_db_close(db);
    for (size_t t = 0; cut != NULL && t < spec.trace_count; t++)
        gar_trace_free(&cut[t]);
    free(cut);
    gar_sweep_spec_free(&spec);
    if (rc < 0)
        return gar_cli_refuse(&err);
    printf("db: %s\nhost_profile: %s (%s)\nhost_noisy: %u\nverifications: %u\nagree: %u\n"
           "skipped: %u\ntolerance: %s\n",
           a->db_path, profile_hash, a->host_path != NULL ? a->host_path : "calibrated on the spot",
           host_noisy, verified, agreed, skipped, tol_text);
    return agreed == verified ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}

/* --trace-of-run: the recorded run against its simulation (verify_of_run.h). */
static int verify_of_run(const verify_args *a)
{
    gar_error err;
    gar_host_profile host;
    unsigned noisy;
    if (load_profile(a->host_path, &host, &noisy, &err) < 0)
        return gar_cli_refuse(&err);
    bool agree = false;
    if (gar_verify_of_run(a->of_run, &host, a->host_path ? a->host_path : "calibrated now",
                          a->seed, &a->tol, stdout, &agree, &err) < 0)
        return gar_cli_refuse(&err);
    return agree ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}

int gar_verb_verify_main(int argc, char **argv)
{
    verify_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (a.of_run != NULL)
        return verify_of_run(&a);
    return a.sweep_path != NULL ? verify_sweep(&a) : verify_one(&a);
}
