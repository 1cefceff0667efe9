/* experiments/verb_verify.c — `gar verify`: one trace run on a real device and
 * in the simulator, and how far apart the two runs are.
 *
 * The real run (verify_real.h) comes first; the simulator then replays the
 * trace as it really ran (start and done times as the host and device really
 * had them), open loop, with the host profile — so the two runs see the same
 * world and differ only in what the host's waiting cost, which is what the
 * profile claims to model.  The verdict applies the stated tolerances
 * (verify_stats.h). */
#define _POSIX_C_SOURCE 200809L

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include <gar/bands.h>
#include <gar/estimator_family.h>

#include "calibrate.h"
#include "host_profile.h"
#include "posix_host.h"
#include "replay.h"
#include "trace.h"
#include "verbs.h"
#include "verify_real.h"
#include "verify_stats.h"

static const char verb[] = "verify";

#define SPAN_MAX_S 60 /* real time: a longer trace is refused, not run */
#define CALIBRATE_SAMPLES_ON_THE_SPOT 1000u
#if defined(GAR_HAVE_CUDA_BACKEND)
#define CUDA_DEVICE_STATE "built into this gar"
#else
#define CUDA_DEVICE_STATE "not built into this gar (refused)"
#endif

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar verify TRACE --plan PLAN [--estimator E] [--device D]\n"
            "                  [--host PROFILE] [--seed S] [--tolerance KEY=VALUE]... [--json]\n"
            "\n"
            "Runs the waits of TRACE (gar-trace v1) on a real device, in real time, with\n"
            "the inline driver on this thread, then replays the trace as it really ran in\n"
            "the simulator with a host profile, and prints both runs' metrics side by side\n"
            "(`key: real=X sim=Y`), the distance between them and a verdict against the\n"
            "tolerances it prints.  Exit status: 0 the runs agree, 1 they do not, 2 refused.\n"
            "Keep traces short (a few hundred waits of a few ms): at most %d s.\n"
            "\n"
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
            "  --host PROFILE     the simulator's host profile (default: calibrate this host\n"
            "                     on the spot: %u samples per distribution, ~8 s).  Wake\n"
            "                     latencies move with the machine's load (an idle CPU\n"
            "                     wakes slower), so calibrate right before verifying\n"
            "  --seed S           the simulator's seed (default 0)\n"
            "  --tolerance K=V    override one tolerance (repeatable; defaults):\n"
            "                       ks_d=0.25       largest KS distance of the overshoots,\n"
            "                                       those under abs_us counted as abs_us\n"
            "                       ratio_min=0.5   overshoot quantile real/sim at least\n"
            "                       ratio_max=2     ... and at most, unless within abs_us\n"
            "                       abs_us=20       a quantile this close agrees anyway\n"
            "                       tail_waits=10   waits above a quantile for it to be judged\n"
            "                       band_z=2        quantiles compared over levels q +- this\n"
            "                                       many standard errors (0: values alone)\n"
            "                       busy_diff=0.15  largest busy-fraction difference\n"
            "  --json             print one JSON object instead of key: value lines\n"
            "  --help             show this help\n"
            "\n"
            "example:\n"
            "  gar gen jitter --waits 300 --param mean_us=2000 --out short.csv\n"
            "  gar calibrate --out this.host\n"
            "  gar verify short.csv --plan "
            "'poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8' \\\n"
            "      --host this.host\n",
            SPAN_MAX_S, CUDA_DEVICE_STATE, CALIBRATE_SAMPLES_ON_THE_SPOT);
}

/* ---- the comparison ------------------------------------------------------- */

typedef enum check_result { CHECK_PASS, CHECK_FAIL, CHECK_NOT_JUDGED } check_result;

static const char *check_name(check_result r)
{
    return r == CHECK_PASS ? "pass" : r == CHECK_FAIL ? "fail" : "not judged";
}

typedef struct quantile_row {
    const char *key;
    uint32_t level_ppm; /* 1 000 000: the max */
    gar_dur_ns real, sim;
    gar_dur_ns real_band[2], sim_band[2]; /* each run's values over the sampling band */
    check_result check;
} quantile_row;

typedef struct comparison {
    quantile_row q[4];
    double ks_d, ks_d_plain, ks_critical;
    check_result ks_check;
    double busy_diff;
    check_result busy_check;
    bool agree;
} comparison;

static int compare_ns(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return (x > y) - (x < y);
}

static void compare_runs(const gar_verify_tolerance *tol, gar_dur_ns *real, gar_dur_ns *sim,
                         size_t n, const gar_replay_metrics *rm, const gar_replay_metrics *sm,
                         comparison *c)
{
    qsort(real, n, sizeof *real, compare_ns);
    qsort(sim, n, sizeof *sim, compare_ns);
    static const struct {
        const char *key;
        uint32_t level;
    } levels[4] = { { "overshoot_p50_ns", 500000 }, { "overshoot_p90_ns", 900000 },
                    { "overshoot_p99_ns", 990000 }, { "overshoot_max_ns", 1000000 } };
    c->agree = true;
    for (unsigned k = 0; k < 4; k++) {
        quantile_row *q = &c->q[k];
        q->key = levels[k].key;
        q->level_ppm = levels[k].level;
        q->real = gar_verify_quantile(real, n, q->level_ppm);
        q->sim = gar_verify_quantile(sim, n, q->level_ppm);
        uint32_t lo, hi;
        gar_verify_level_band(tol, n, n, q->level_ppm, &lo, &hi);
        q->real_band[0] = gar_verify_quantile(real, n, lo);
        q->real_band[1] = gar_verify_quantile(real, n, hi);
        q->sim_band[0] = gar_verify_quantile(sim, n, lo);
        q->sim_band[1] = gar_verify_quantile(sim, n, hi);
        if (!gar_verify_quantile_judged(tol, n, q->level_ppm))
            q->check = CHECK_NOT_JUDGED;
        else
            q->check = gar_verify_agrees_with_band(tol, q->real, q->sim_band[0], q->sim_band[1]) ||
                               gar_verify_agrees_with_band(tol, q->sim, q->real_band[0],
                                                           q->real_band[1])
                           ? CHECK_PASS
                           : CHECK_FAIL;
        c->agree = c->agree && q->check != CHECK_FAIL;
    }
    c->ks_d = gar_ks_statistic(real, n, sim, n, tol->abs_ns);
    c->ks_d_plain = gar_ks_statistic(real, n, sim, n, 0);
    c->ks_critical = gar_ks_critical(n, n, 0.05);
    c->ks_check = c->ks_d <= tol->ks_d_max ? CHECK_PASS : CHECK_FAIL;
    c->busy_diff = fabs(rm->busy_frac - sm->busy_frac);
    c->busy_check = c->busy_diff <= tol->busy_diff_max ? CHECK_PASS : CHECK_FAIL;
    c->agree = c->agree && c->ks_check == CHECK_PASS && c->busy_check == CHECK_PASS;
}

/* ---- output --------------------------------------------------------------- */

typedef struct verify_run {
    const char *trace_path;
    char plan_label[GAR_BANDS_LABEL_BYTES];
    char estimator_label[GAR_ESTIMATOR_LABEL_BYTES];
    const char *device;
    const char *host; /* the profile's path, or NULL: calibrated on the spot */
    uint64_t seed;
    const gar_verify_tolerance *tol;
    const gar_real_result *real;
    const gar_replay_metrics *sim;
    const comparison *cmp;
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

static void print_text(const verify_run *v)
{
    const gar_replay_metrics *rm = &v->real->metrics, *sm = v->sim;
    const comparison *c = v->cmp;
    const gar_verify_tolerance *tol = v->tol;
    printf("trace: %s\n", v->trace_path);
    printf("plan: %s\n", v->plan_label);
    printf("estimator: %s\n", v->estimator_label);
    printf("device: %s\n", v->device);
    printf("host: %s\n", v->host != NULL ? v->host : "calibrated on the spot");
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
    printf("busy_frac: real=%.4f sim=%.4f diff=%.4f\n", rm->busy_frac, sm->busy_frac,
           c->busy_diff);
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
    printf("ks_d_plain: %.4f\n", c->ks_d_plain);
    printf("ks_critical_5pct: %.4f\n", c->ks_critical);
    printf("tolerance: ks_d<=%g (overshoots under %llu ns counted as %llu); overshoot "
           "quantiles real/sim in [%g, %g] or within %llu ns, over a sampling band of %g "
           "standard errors, judged with >=%llu waits above; busy_frac diff<=%g\n",
           tol->ks_d_max, (unsigned long long)tol->abs_ns, (unsigned long long)tol->abs_ns,
           tol->ratio_min, tol->ratio_max, (unsigned long long)tol->abs_ns, tol->band_z,
           (unsigned long long)tol->tail_waits_min, tol->busy_diff_max);
    printf("check_ks_d: %s\n", check_name(c->ks_check));
    for (unsigned k = 0; k < 4; k++)
        printf("check_%.*s: %s\n", (int)(strlen(c->q[k].key) - 3), c->q[k].key,
               check_name(c->q[k].check));
    printf("check_busy_frac: %s\n", check_name(c->busy_check));
    printf("verdict: %s\n", c->agree ? "agree" : "disagree");
}

/* yajl_gen wants lengths; these keep the calls short. */
static void j_key(yajl_gen g, const char *k)
{
    yajl_gen_string(g, (const unsigned char *)k, strlen(k));
}

static void j_str(yajl_gen g, const char *k, const char *v)
{
    j_key(g, k);
    yajl_gen_string(g, (const unsigned char *)v, strlen(v));
}

static void j_u64(yajl_gen g, const char *k, uint64_t v)
{
    char num[24];
    int n = snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    j_key(g, k);
    yajl_gen_number(g, num, (size_t)n);
}

static void j_double(yajl_gen g, const char *k, double v)
{
    j_key(g, k);
    if (isfinite(v))
        yajl_gen_double(g, v);
    else
        yajl_gen_null(g);
}

static void j_metrics(yajl_gen g, const char *k, const gar_replay_metrics *m)
{
    j_key(g, k);
    yajl_gen_map_open(g);
    j_u64(g, "waits", m->waits);
    j_u64(g, "overshoot_p50_ns", m->overshoot_ns.p50);
    j_u64(g, "overshoot_p90_ns", m->overshoot_ns.p90);
    j_u64(g, "overshoot_p99_ns", m->overshoot_ns.p99);
    j_u64(g, "overshoot_max_ns", m->overshoot_ns.max);
    j_double(g, "busy_frac", m->busy_frac);
    j_u64(g, "wait_ns", m->wait_ns);
    j_u64(g, "blocked", m->blocked);
    j_u64(g, "immediate", m->immediate);
    j_u64(g, "late", m->late);
    j_u64(g, "parked", m->parked);
    j_u64(g, "sleeps", m->sleeps);
    j_u64(g, "parks", m->parks);
    j_u64(g, "queries", m->queries);
    yajl_gen_map_close(g);
}

static void print_json(const verify_run *v)
{
    const comparison *c = v->cmp;
    const gar_verify_tolerance *tol = v->tol;
    yajl_gen g = yajl_gen_alloc(NULL);
    if (g == NULL)
        return;
    yajl_gen_map_open(g);
    j_str(g, "trace", v->trace_path);
    j_str(g, "plan", v->plan_label);
    j_str(g, "estimator", v->estimator_label);
    j_str(g, "device", v->device);
    j_key(g, "host");
    if (v->host != NULL)
        yajl_gen_string(g, (const unsigned char *)v->host, strlen(v->host));
    else
        yajl_gen_null(g);
    j_u64(g, "seed", v->seed);
    j_metrics(g, "real", &v->real->metrics);
    j_double(g, "real_cpu_frac", v->real->metrics.wait_ns > 0
                                     ? (double)v->real->cpu_ns / (double)v->real->metrics.wait_ns
                                     : 0.0);
    j_metrics(g, "sim", v->sim);
    j_key(g, "distance");
    yajl_gen_map_open(g);
    j_double(g, "ks_d", c->ks_d);
    j_double(g, "ks_d_plain", c->ks_d_plain);
    j_double(g, "ks_critical_5pct", c->ks_critical);
    for (unsigned k = 0; k < 4; k++) {
        char key[48];
        snprintf(key, sizeof key, "%.*s_ratio", (int)(strlen(c->q[k].key) - 3), c->q[k].key);
        j_double(g, key, gar_verify_ratio(c->q[k].real, c->q[k].sim));
    }
    j_double(g, "busy_frac_diff", c->busy_diff);
    yajl_gen_map_close(g);
    j_key(g, "tolerance");
    yajl_gen_map_open(g);
    j_double(g, "ks_d", tol->ks_d_max);
    j_double(g, "ratio_min", tol->ratio_min);
    j_double(g, "ratio_max", tol->ratio_max);
    j_u64(g, "abs_ns", tol->abs_ns);
    j_u64(g, "tail_waits", tol->tail_waits_min);
    j_double(g, "band_z", tol->band_z);
    j_double(g, "busy_diff", tol->busy_diff_max);
    yajl_gen_map_close(g);
    j_key(g, "checks");
    yajl_gen_map_open(g);
    j_str(g, "ks_d", check_name(c->ks_check));
    for (unsigned k = 0; k < 4; k++) {
        char key[48];
        snprintf(key, sizeof key, "%.*s", (int)(strlen(c->q[k].key) - 3), c->q[k].key);
        j_str(g, key, check_name(c->q[k].check));
    }
    j_str(g, "busy_frac", check_name(c->busy_check));
    yajl_gen_map_close(g);
    j_str(g, "verdict", c->agree ? "agree" : "disagree");
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
    const char *host_path;
    uint64_t seed;
    bool json;
    gar_verify_tolerance tol;
} verify_args;

static int parse_args(int argc, char **argv, verify_args *a, bool *help)
{
    enum { OPT_PLAN = 1, OPT_ESTIMATOR, OPT_DEVICE, OPT_HOST, OPT_SEED, OPT_TOLERANCE,
           OPT_JSON, OPT_HELP };
    static const struct option options[] = {
        { "plan", required_argument, NULL, OPT_PLAN },
        { "estimator", required_argument, NULL, OPT_ESTIMATOR },
        { "device", required_argument, NULL, OPT_DEVICE },
        { "host", required_argument, NULL, OPT_HOST },
        { "seed", required_argument, NULL, OPT_SEED },
        { "tolerance", required_argument, NULL, OPT_TOLERANCE },
        { "json", no_argument, NULL, OPT_JSON },
        { "help", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    *a = (verify_args){ .estimator_text = "adl", .device = "emulated",
                        .tol = gar_verify_tolerance_default() };
    *help = false;
    const char *tolerances[32]; /* the --tolerance keys so far (there are seven) */
    size_t tolerances_given = 0;
    opterr = 0; /* bad options are refused below, as coded errors */
    optind = 1;
    for (;;) {
        int opt = gar_cli_getopt(argc, argv, ":", options, NULL);
        if (opt == -1)
            break;
        char what[256];
        gar_error err;
        switch (opt) {
        case OPT_PLAN:
            a->plan_text = optarg;
            break;
        case OPT_ESTIMATOR:
            a->estimator_text = optarg;
            break;
        case OPT_DEVICE:
            a->device = optarg;
            break;
        case OPT_HOST:
            a->host_path = optarg;
            break;
        case OPT_SEED: {
            unsigned long long s;
            if (gar_cli_parse_u64(optarg, &s) != 0) {
                snprintf(what, sizeof what, "--seed must be a decimal u64, found '%s'", optarg);
                return gar_cli_usage_error(verb, what);
            }
            a->seed = s;
            break;
        }
        case OPT_TOLERANCE:
            if (gar_cli_key_repeats(optarg, tolerances, tolerances_given))
                return gar_cli_usage_error(verb, "--tolerance sets a key given before; give "
                                                 "each key once");
            if (gar_verify_tolerance_set(&a->tol, optarg, verb, &err) < 0)
                return gar_cli_refuse(&err);
            if (tolerances_given < sizeof tolerances / sizeof tolerances[0])
                tolerances[tolerances_given++] = optarg;
            break;
        case OPT_JSON:
            a->json = true;
            break;
        case OPT_HELP:
            *help = true;
            return GAR_EXIT_OK;
        default:
            return gar_cli_bad_option(verb, opt, argv);
        }
    }
    if (optind == argc)
        return gar_cli_usage_error(verb, "give the TRACE to run");
    if (optind + 1 != argc)
        return gar_cli_usage_error(verb, "takes one TRACE");
    a->trace_path = argv[optind];
    if (a->plan_text == NULL)
        return gar_cli_usage_error(verb, "--plan PLAN is required");
    return GAR_EXIT_OK;
}

/* The replay's observer: each wait's overshoot, by its row. */
static void keep_overshoot(void *context, const gar_replay_wait *wait)
{
    gar_dur_ns *overshoot = context;
    overshoot[wait->index] = wait->overshoot_ns;
}

/* The host profile: the file given, or this host calibrated now. */
static int load_profile(const char *path, gar_host_profile *out, gar_error *err)
{
    if (path != NULL)
        return gar_host_profile_load(path, out, err);
    /* Fewer samples, but the full poll run: the poll period's tail (the
     * waiter preempted) needs seconds of polling to be seen at its rate. */
    gar_calibrate_options copts = { .samples = CALIBRATE_SAMPLES_ON_THE_SPOT, .quick = false };
    gar_calibration cal;
    int rc = gar_calibrate_run(&copts, &cal, err);
    if (rc < 0)
        return rc;
    char text[4096];
    size_t len = gar_calibration_format(&cal, text, sizeof text);
    if (len >= sizeof text)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "the profile text", "4096 bytes");
    return gar_host_profile_parse(text, len, "the calibration", out, err);
}

int gar_verb_verify_main(int argc, char **argv)
{
    verify_args a;
    bool help;
    int exit_code = parse_args(argc, argv, &a, &help);
    if (exit_code != GAR_EXIT_OK)
        return exit_code;
    if (help) {
        print_help(stdout);
        return GAR_EXIT_OK;
    }

    gar_error err, warning;
    gar_bands requested, bands;
    gar_estimator_spec estimator;
    const gar_verify_device_ops *device;
    if (gar_bands_parse(a.plan_text, &requested, &err) < 0 ||
        gar_estimator_spec_parse(a.estimator_text, &estimator, &err) < 0 ||
        gar_verify_device_find(a.device, verb, &device, &err) < 0)
        return gar_cli_refuse(&err);
    if (estimator.family == GAR_ESTIMATOR_ORACLE)
        return gar_cli_usage_error(verb, "--estimator oracle knows the future, which only the "
                                         "simulator can: choose another family");
    gar_posix_host host;
    gar_caps caps;
    if (gar_posix_host_init(&host, NULL, &err) < 0)
        return gar_cli_refuse(&err);
    gar_posix_host_caps(&host, &caps);
    int resolved = gar_bands_resolve(&requested, &caps, &bands, &warning);
    if (resolved < 0)
        return gar_cli_refuse(&warning);

    gar_trace trace;
    if (gar_trace_read_file(&trace, a.trace_path, &err) < 0)
        return gar_cli_refuse(&err);
    uint64_t first = trace.row[0].submit_ns, last = 0;
    for (size_t i = 0; i < trace.count; i++) {
        if (trace.row[i].submit_ns < first)
            first = trace.row[i].submit_ns;
        if (trace.row[i].done_ns > last)
            last = trace.row[i].done_ns;
        if (trace.row[i].start_ns > last)
            last = trace.row[i].start_ns;
    }
    if (last - first > (uint64_t)SPAN_MAX_S * GAR_NS_PER_S) {
        char what[256];
        snprintf(what, sizeof what,
                 "trace '%s' spans %.1f s; verify runs it in real time, so at most %d s",
                 a.trace_path, (double)(last - first) / 1e9, SPAN_MAX_S);
        gar_trace_free(&trace);
        return gar_cli_usage_error(verb, what);
    }

    gar_host_profile profile;
    if (load_profile(a.host_path, &profile, &err) < 0) {
        gar_trace_free(&trace);
        return gar_cli_refuse(&err);
    }

    gar_real_config rc_config = {
        .trace = &trace,
        .bands = &bands,
        .estimator = estimator,
        .device = device,
        .wait_deadline_ns = GAR_REPLAY_DEADLINE_DEFAULT_NS,
    };
    gar_real_result real;
    if (gar_real_run(&rc_config, &real, &err) < 0) {
        gar_trace_free(&trace);
        return gar_cli_refuse(&err);
    }

    const size_t n = trace.count;
    gar_dur_ns *sim_overshoot = malloc(n * sizeof *sim_overshoot);
    gar_replay_config sim_config;
    gar_replay_config_init(&sim_config);
    sim_config.trace = &real.as_run;
    sim_config.bands = &bands;
    sim_config.estimator = estimator;
    sim_config.host = &profile;
    sim_config.mode = GAR_REPLAY_OPEN;
    sim_config.seed = a.seed;
    sim_config.on_wait = keep_overshoot;
    sim_config.on_wait_context = sim_overshoot;
    gar_replay_metrics sim;
    int rc = sim_overshoot == NULL
                 ? gar_error_set(&err, GAR_E_CAPACITY, 2, "memory for the overshoots", "exhausted")
                 : gar_replay_run(&sim_config, &sim, &err);
    if (rc < 0) {
        free(sim_overshoot);
        gar_real_result_free(&real);
        gar_trace_free(&trace);
        return gar_cli_refuse(&err);
    }

    comparison cmp;
    compare_runs(&a.tol, real.overshoot, sim_overshoot, n, &real.metrics, &sim, &cmp);
    verify_run v = {
        .trace_path = a.trace_path,
        .device = device->name,
        .host = a.host_path,
        .seed = a.seed,
        .tol = &a.tol,
        .real = &real,
        .sim = &sim,
        .cmp = &cmp,
    };
    gar_bands_label(&bands, v.plan_label, sizeof v.plan_label);
    gar_estimator_spec_label(&estimator, v.estimator_label, sizeof v.estimator_label);
    if (resolved == 1 && !a.json)
        gar_cli_print_warning(stdout, &warning);
    if (a.json)
        print_json(&v);
    else
        print_text(&v);

    free(sim_overshoot);
    gar_real_result_free(&real);
    gar_trace_free(&trace);
    return cmp.agree ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}
