/* experiments/cli/verb_verify.c — `gar verify`: one trace run on a real device and
 * in the simulator, and how far apart the two runs are.
 *
 * The real run (verify_real.h) comes first; the simulator then replays the
 * trace as it really ran (start and done times as the host and device really
 * had them), open loop, with the host profile — so the two runs see the same
 * world and differ only in what the host's waiting cost, which is what the
 * profile claims to model.  The verdict applies the stated tolerances
 * (verify_stats.h).
 *
 * This file reads the options and runs one trace (verify_arm.h) and
 * --trace-of-run; --sweep is verb_verify_sweep.c's, what is printed
 * verify_output.c's, and the profile and executor verify_setup.c's. */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/bands.h>
#include <gar/estimator_family.h>
#include <gar/executor_kind.h>
#include <gar/posix.h>


#include "cli/bundled.h"
#include "cli/cli_options.h"
#include "cli/host_caps.h"
#include "cli/verb_verify.h"
#include "cli/verbs.h"
#include "cli/verify_output.h"
#include "cli/verify_setup.h"
#include "sim/host_profile.h"
#include "sim/trace/trace.h"
#include "verify/verify_arm.h"
#include "verify/verify_devices.h"
#include "verify/verify_of_run.h"
#include "verify/verify_runs.h"
#include "verify/verify_stats.h"

static const char verb[] = "verify";

#define SWEEP_LIMIT_DEFAULT 1000u /* --sweep: the first this many waits of each trace */
#define SWEEP_LIMIT_MAX 1000000u
#define SWEEP_LIMIT_MAX_TEXT "1000000" /* the same, for the refusal */
#define RUNS_MAX 20u /* --runs: real runs of one trace, one after another */
#if defined(GAR_HAVE_CUDA_BACKEND)
#define CUDA_DEVICE_STATE "built into this gar"
#else
#define CUDA_DEVICE_STATE "not built into this gar (refused)"
#endif

/* --help's usage and what the verb does. */
static void print_usage(FILE *out)
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
            "by the tolerances above.  Beside the verdict, `real_holdout: K/1` judges the\n"
            "run's even-numbered waits against its odd-numbered ones the same way: 1 when\n"
            "the machine agrees with itself, so that a disagreement is the model's (a\n"
            "`note:` says which).  Exit status 0 when they agree.\n"
            "\n",
            GAR_VERIFY_SPAN_MAX_S);
}

/* --help's options, after the usage. */
static void print_options(FILE *out)
{
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
            GAR_CLI_VERIFY_CALIBRATE_SAMPLES, RUNS_MAX, SWEEP_LIMIT_DEFAULT);
}

static void print_help(FILE *out)
{
    print_usage(out);
    print_options(out);
}

/* ---- the verb ------------------------------------------------------------- */

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
static int parse_args(int argc, char **argv, gar_cli_verify_args *a)
{
    *a = (gar_cli_verify_args){ .estimator_text = "adl",
                                .device = "emulated",
                                .executor_text = "naive",
                                .tol = gar_verify_tolerance_default(),
                                .limit = SWEEP_LIMIT_DEFAULT };
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


/* ---- one trace ------------------------------------------------------------ */


/* After --runs N: the runs (n waits each, `agreed` of them one by one)
 * pooled and judged into `judged`, and the summary printed.  Returns 0 or
 * the out-of-memory refusal. */
static int judge_runs(const gar_cli_verify_args *a, const gar_verify_arm_run *runs,
                      const gar_bands *bands, size_t n, unsigned agreed,
                      gar_verify_runs_judgement *judged, gar_error *err)
{
    gar_dur_ns *real_pool, *sim_pool;
    bool blocks = gar_verify_arm_blocks(bands, runs[0].sim.blocked, runs[0].sim.waits);
    int rc = gar_verify_judge_arm_runs(runs, a->runs, n, &a->tol, blocks, &real_pool, &sim_pool,
                                       judged, err);
    if (rc == 0)
        gar_cli_verify_print_runs(runs, a->runs, agreed, judged,
                                  gar_verify_holdout_of(runs, a->runs, n, &a->tol, blocks));
    free(real_pool);
    free(sim_pool);
    return rc;
}

static int verify_one(const gar_cli_verify_args *a)
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
    int executor_fell_back =
        gar_cli_verify_resolve_executor(a->executor_text, &caps, &executor, &executor_warning);
    if (executor_fell_back < 0)
        return gar_cli_refuse(&executor_warning);

    gar_trace trace;
    char trace_found[4096]; /* a bundled "data/..." name: the installed one (bundled.h) */
    if (gar_trace_read_file(&trace, gar_cli_bundled(a->trace_path, trace_found, sizeof trace_found),
                            &err) < 0)
        return gar_cli_refuse(&err);
    gar_host_profile profile;
    unsigned host_noisy = 0;
    gar_verify_arm_run *runs = calloc(a->runs, sizeof *runs);
    if (runs == NULL) {
        gar_trace_free(&trace);
        gar_error_set(&err, GAR_E_CAPACITY, 2, "memory for the runs", "exhausted");
        return gar_cli_refuse(&err);
    }
    int rc = 0;
    if (gar_verify_check_span(&trace, a->trace_path, &err) < 0 ||
        gar_cli_verify_load_profile(a->host_path, &profile, &host_noisy, &err) < 0)
        rc = -1;
    gar_cli_verify_run v = { /* each run's output, its runs below */
        .trace_path = a->trace_path,
        .device = device->name,
        .executor = gar_executor_kind_name(executor),
        .host = a->host_path,
        .host_noisy = host_noisy,
        .seed = a->seed,
        .tol = &a->tol,
    };
    gar_bands_label(&bands, v.plan_label, sizeof v.plan_label);
    gar_estimator_spec_label(&estimator, v.estimator_label, sizeof v.estimator_label);
    unsigned ran = 0, agreed = 0;
    for (; rc == 0 && ran < a->runs; ran++) {
        if (gar_verify_run_arm(&trace, &bands, estimator, device, executor, &profile, a->seed,
                               &a->tol, &runs[ran], &err) < 0) {
            rc = -1;
            break;
        }
        v.real = &runs[ran].real;
        v.sim = &runs[ran].sim;
        v.cmp = &runs[ran].cmp;
        if (a->runs > 1)
            printf("%srun: %u/%u\n", ran > 0 ? "\n" : "", ran + 1, a->runs);
        if (executor_fell_back == 1 && !a->json)
            gar_cli_print_warning(stdout, &executor_warning);
        if (resolved == 1 && !a->json)
            gar_cli_print_warning(stdout, &warning);
        if (a->json)
            gar_cli_verify_print_json(&v);
        else
            gar_cli_verify_print_text(&v);
        agreed += runs[ran].cmp.agree;
        fflush(stdout); /* each run as it ends: a long --runs shows its progress */
    }
    gar_verify_runs_judgement judged = { .verdict = GAR_RUNS_AGREE };
    if (rc == 0 && a->runs > 1)
        rc = judge_runs(a, runs, &bands, trace.count, agreed, &judged, &err);
    for (unsigned i = 0; i < ran; i++)
        gar_verify_arm_run_free(&runs[i]);
    free(runs);
    gar_trace_free(&trace);
    if (rc < 0)
        return gar_cli_refuse(&err);
    if (a->runs > 1) /* the runs together decide, not each alone */
        return judged.verdict == GAR_RUNS_AGREE ? GAR_EXIT_OK : GAR_EXIT_FAILED;
    return agreed == a->runs ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}

/* --trace-of-run: the recorded run against its simulation (verify_of_run.h). */
static int verify_of_run(const gar_cli_verify_args *a)
{
    gar_error err;
    gar_host_profile host;
    unsigned noisy;
    if (gar_cli_verify_load_profile(a->host_path, &host, &noisy, &err) < 0)
        return gar_cli_refuse(&err);
    bool agree = false;
    if (gar_verify_of_run(a->of_run, &host, a->host_path ? a->host_path : "calibrated now",
                          a->seed, &a->tol, stdout, &agree, &err) < 0)
        return gar_cli_refuse(&err);
    return agree ? GAR_EXIT_OK : GAR_EXIT_FAILED;
}

int gar_verb_verify_main(int argc, char **argv)
{
    gar_cli_verify_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (a.of_run != NULL)
        return verify_of_run(&a);
    return a.sweep_path != NULL ? gar_cli_verify_sweep(&a) : verify_one(&a);
}
