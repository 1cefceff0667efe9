/* experiments/cli/verb_replay.c — `gar replay`: one trace under one wait policy on
 * one simulated host, and what it cost.
 *
 * Everything is parsed and loaded before the run, and the run completes before
 * anything is printed, so a refusal leaves nothing on stdout.  What is
 * printed is replay_output.c's. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gar/bands.h>
#include <gar/caps.h>
#include <gar/estimator_family.h>
#include <gar/plan.h>

#include "cli/bundled.h"
#include "cli/cli_options.h"
#include "cli/replay_output.h"
#include "cli/verbs.h"
#include "sim/host_profile.h"
#include "sim/profile_caps.h"
#include "sim/replay.h"
#include "sim/replay_notes.h"
#include "sim/trace/trace.h"
#include "sim/trace/trace_origin.h"

static const char verb[] = "replay";
#define HOST_DEFAULT "data/hosts/dev-vm.host"

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar replay TRACE (--plan PLAN | --bands BANDS) [--estimator E]\n"
            "                  [--host PROFILE] [--mode open|closed] [--seed S] [--as-given]\n"
            "                  [--fault KIND@ROW] [--late-store-ns N] [--store-delay-ns N]\n"
            "                  [--deadline-ns N] [--exact-polls] [--ci-level L] [--json]\n"
            "\n"
            "Replays the gar-trace v1 file TRACE on a simulated device and host: every\n"
            "wait runs gar's wait machine under the plan (or the band its row count falls\n"
            "in), sleeping first as the point's estimator says when the plan has +predict,\n"
            "with the host profile's costs.  The trace may name any number of streams,\n"
            "and may be gzip-compressed (FILE.csv.gz); TRACE '-' reads standard input.\n"
            "Prints the metrics as `key: value` lines, then, when the trace has several\n"
            "streams, a table of the ten with the most waits (waits, overshoot p50 and\n"
            "p99, busy time); or one JSON object with --json, ending with a `streams`\n"
            "array of every stream's share.  Times are ns.  Every p50, p90 and p99 of\n"
            "overshoot and estimator error comes with its distribution-free confidence\n"
            "interval (`overshoot_ci_ns: level 0.95 p50 LO HI ...`, `-` where too few\n"
            "waits bound it) and in words (`overshoot_p99: 31.8 \u00b5s (the largest of 21\n"
            "waits; too few waits for a p99)`); then a `note: ` line for each thing\n"
            "that went wrong: predict that never or rarely slept and why, sleeps that\n"
            "woke late, backstop hits, a fallback, too few waits (with, for a trace\n"
            "`gar import` made of a profile's synchronizing calls, the hint that\n"
            "--wait-on kernel makes a row of every kernel).  The trace is replayed\n"
            "as it is read, in memory that does not grow with its length: quantiles are\n"
            "exact up to 500 000 values, and past it read from a histogram within\n"
            "0.1 %%, their intervals widened to its buckets (`quantiles:` says which).\n"
            "\n");
    /* Two pieces: one string literal of it all would pass C's 4095 bytes. */
    fprintf(out,
            "options:\n"
            "  --plan PLAN       the wait plan of every wait (this or --bands is required);\n"
            "                    auto:p99_us=B lets gar choose each wait's sleep and park\n"
            "                    for the budget, and adds an `auto:` line of what it chose\n"
            "                    (parks, sleeps, late wakes; over_budget: waits where no\n"
            "                    park was expected to meet B; over_budget_waits: waits\n"
            "                    whose overshoot exceeded B; held: sleeps rule 5 cut);\n"
            "                    warning 19 where no park can meet B on this host, and\n"
            "                    warning 21 where the run's p99 came out above B\n"
            "  --bands BANDS     a plan by the trace's rows column: PLAN;rows>=N:PLAN...\n"
            "  --estimator E     adl, none, oracle, half-min, half-mean, ewma[:alpha=A],\n"
            "                    quantile[:q=Q] (default: adl)\n"
            "  --host PROFILE    a gar-host v1 profile, '-' for standard input (default:\n"
            "                    " HOST_DEFAULT ", else the installed one)\n"
            "  --mode MODE       open: each wait as recorded; closed: a late wake delays\n"
            "                    everything after it (default: open)\n"
            "  --seed S          the seed of the host's random latencies (default: 0)\n"
            "  --as-given        run the plan as written; by default it is resolved\n"
            "                    against the profile (flag without word_wait runs as poll,\n"
            "                    with warning 2)\n"
            "  --fault KIND@ROW  inject one fault on the wait of trace row ROW (from 0,\n"
            "                    below the trace's row count):\n"
            "                    error (its query fails: error 17), hang (it never\n"
            "                    completes: error 16 at the deadline), lost-store (done,\n"
            "                    but the word never moves), late-store (default: none)\n"
            "  --late-store-ns N how late a late store lands (default: 1000000)\n"
            "  --store-delay-ns N  completion to every store landing (default: 0)\n"
            "  --deadline-ns N   a wait still pending this long after it began fails\n"
            "                    with error 16 (default: 10000000000; any u64: a hung\n"
            "                    wait jumps to its deadline, saturated at 2^64-2)\n"
            "  --exact-polls     simulate every poll turn alone; by default the long turns\n"
            "                    are drawn alone and runs of short ones that surely answer\n"
            "                    pending as one normal total (much faster; the same in\n"
            "                    distribution, to an approximation: data/hosts/README.md)\n"
            "  --ci-level L      the intervals' confidence, 0 < L < 1, at most six\n"
            "                    decimals (default: 0.95)\n"
            "  --json            print one JSON object instead of the table\n"
            "  --help            show this help\n"
            "\n"
            "example:\n"
            "  gar replay steady.trace --plan 'flag:park_us=100,backstop_us=1000+predict:"
            "margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8' \\\n"
            "      --host data/hosts/waitpkg.host --mode closed --seed 7\n");
}

typedef struct args {
    const char *trace;
    const char *plan;
    const char *bands;
    const char *estimator;
    const char *host;
    bool host_given; /* --host named it, rather than the default */
    const char *mode;
    unsigned long long seed;
    int fault;
    unsigned long long fault_row;
    unsigned long long late_store_ns;
    unsigned long long store_delay_ns;
    unsigned long long deadline_ns;
    bool as_given;
    bool exact_polls;
    double ci_level;
    bool json;
} args;

/* "KIND@ROW" into the args' fault and fault_row.  Returns 0, or -1. */
static int parse_fault(const char *text, void *to)
{
    args *a = to;
    const char *at = strchr(text, '@');
    char kind[16];
    size_t n = at != NULL ? (size_t)(at - text) : 0;
    if (at == NULL || n == 0 || n >= sizeof kind)
        return -1;
    memcpy(kind, text, n);
    kind[n] = '\0';
    int fault = gar_sim_fault_from_name(kind);
    if (fault <= GAR_SIM_FAULT_NONE || gar_cli_parse_u64(at + 1, &a->fault_row) != 0)
        return -1;
    a->fault = fault;
    return 0;
}

/* "0.95": a confidence strictly between 0 and 1, written 0.D with one to
 * CI_LEVEL_DIGITS digits, so that every line that prints it (six
 * significant digits) prints the level asked for: 0.9999999999 would read
 * "level 1", a certainty no interval has.  Returns 0, or -1. */
enum { CI_LEVEL_DIGITS = 6 };
static int parse_ci_level(const char *text, void *to)
{
    size_t digits = strlen(text) >= 2 ? strlen(text) - 2 : 0;
    if (strncmp(text, "0.", 2) != 0 || digits == 0 || digits > CI_LEVEL_DIGITS ||
        strspn(text + 2, "0123456789") != digits)
        return -1;
    double v = strtod(text, NULL);
    if (!(v > 0.0 && v < 1.0))
        return -1;
    *(double *)to = v;
    return 0;
}

/* Parses argv into `a`.  Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, args *a)
{
    *a = (args){ .estimator = "adl", .host = HOST_DEFAULT, .mode = "open",
                 .fault = GAR_SIM_FAULT_NONE, .late_store_ns = GAR_NS_PER_MS,
                 .deadline_ns = GAR_REPLAY_DEADLINE_DEFAULT_NS,
                 .ci_level = GAR_CI_LEVEL_DEFAULT };
    static const char store_refusal[] = "--late-store-ns and --store-delay-ns take a decimal u64";
    const gar_cli_option options[] = {
        { .name = "plan", .takes = GAR_CLI_TEXT, .to = &a->plan },
        { .name = "bands", .takes = GAR_CLI_TEXT, .to = &a->bands },
        { .name = "estimator", .takes = GAR_CLI_TEXT, .to = &a->estimator },
        { .name = "host", .takes = GAR_CLI_TEXT, .to = &a->host, .given = &a->host_given },
        { .name = "mode", .takes = GAR_CLI_TEXT, .to = &a->mode },
        { .name = "seed", .takes = GAR_CLI_U64, .to = &a->seed, .max = ULLONG_MAX,
          .refusal = "--seed takes a decimal u64" },
        { .name = "as-given", .takes = GAR_CLI_FLAG, .to = &a->as_given },
        { .name = "fault", .takes = GAR_CLI_PARSE, .to = a, .parse = parse_fault,
          .refusal = "--fault is KIND@ROW: error, hang, lost-store or late-store, @ a trace row "
                     "from 0" },
        { .name = "late-store-ns", .takes = GAR_CLI_U64, .to = &a->late_store_ns,
          .max = ULLONG_MAX, .refusal = store_refusal },
        { .name = "store-delay-ns", .takes = GAR_CLI_U64, .to = &a->store_delay_ns,
          .max = ULLONG_MAX, .refusal = store_refusal },
        { .name = "deadline-ns", .takes = GAR_CLI_U64, .to = &a->deadline_ns, .min = 1,
          .max = ULLONG_MAX, .refusal = "--deadline-ns takes a decimal u64 above 0" },
        { .name = "exact-polls", .takes = GAR_CLI_FLAG, .to = &a->exact_polls },
        { .name = "ci-level", .takes = GAR_CLI_PARSE, .to = &a->ci_level,
          .parse = parse_ci_level,
          .refusal = "--ci-level takes a confidence between 0 and 1 (exclusive), a decimal "
                     "0.D with at most six digits, as 0.95" },
        { .name = "json", .takes = GAR_CLI_FLAG, .to = &a->json },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options(verb, argc, argv, options, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (optind != argc - 1)
        return gar_cli_usage_error(verb, optind == argc ? "give one TRACE file"
                                                        : "give only one TRACE file");
    a->trace = argv[optind];
    if (gar_cli_both_stdin(a->trace, a->host))
        return gar_cli_usage_error(verb, "TRACE - and --host - would both read standard input: "
                                         "save one of them to a file");
    if ((a->plan == NULL) == (a->bands == NULL))
        return gar_cli_usage_error(verb, "give exactly one of --plan PLAN and --bands BANDS");
    if (gar_replay_mode_from_name(a->mode) < 0)
        return gar_cli_usage_error(verb, "--mode is open or closed");
    /* A bundled "data/..." name the working directory lacks: the installed one. */
    static char trace_found[4096], host_found[4096];
    a->trace = gar_cli_bundled(a->trace, trace_found, sizeof trace_found);
    a->host = gar_cli_bundled(a->host, host_found, sizeof host_found);
    return -1;
}

/* Refuses a host profile that did not load; the default's path is relative
 * to the working directory, so its absence there gets a way out. */
static int refuse_host(const args *a, gar_error *err)
{
    if (!a->host_given && err->code == GAR_E_IO) {
        char why[GAR_ERROR_ARG_BYTES];
        snprintf(why, sizeof why,
                 "%.100s; it is the default --host, looked up from the working directory,"
                 " then in the installed %.100s: run from gar's source folder, install gar, or"
                 " give --host PROFILE (bundled: %.100s)",
                 err->argv[2], gar_cli_installed_data_dir, GAR_DATA_DIR "/hosts/dev-vm.host");
        gar_error_set(err, GAR_E_IO, 3, a->host, "open", why);
    }
    return gar_cli_refuse(err);
}

/* ---- reading the trace as it replays ---- */

/* Rows of a trace read once (standard input, a pipe): the head already
 * read (to learn auto's lead from), then the rest of the stream. */
typedef struct head_then_stream {
    gar_trace_cursor head;
    gar_trace_stream *rest;
} head_then_stream;

static int head_then_rest(void *context, const gar_trace_row **rows, size_t *count,
                          gar_error *err)
{
    head_then_stream *h = context;
    int rc = gar_trace_cursor_source(&h->head, rows, count, err);
    return rc != 0 ? rc : gar_trace_stream_source(h->rest, rows, count, err);
}

static bool plan_is_auto(const gar_replay_config *c)
{
    if (c->plan != NULL)
        return c->plan->park == GAR_PARK_AUTO;
    for (uint32_t b = 0; b < c->bands->count; b++)
        if (c->bands->band[b].plan.park == GAR_PARK_AUTO)
            return true;
    return false;
}

/* The median residual of a file's rows, from a first pass of its own. */
static int lead_of_file(const char *path, gar_dur_ns *lead, gar_error *err)
{
    gar_trace_stream *s;
    int rc = gar_trace_stream_open(&s, path, err);
    if (rc < 0)
        return rc;
    rc = gar_replay_lead_of(gar_trace_stream_source, s, lead, err);
    gar_trace_stream_close(s);
    return rc;
}

/* Whether `path` is read once: standard input, or anything but a regular
 * file (a pipe such as <(...), a named FIFO, a device), whose bytes a
 * second open would not give again (stat, unlike open, never waits on a
 * FIFO).  A path that cannot be stat'ed is left to the open's refusal. */
static bool read_once(const char *path)
{
    struct stat st;
    return strcmp(path, "-") == 0 || (stat(path, &st) == 0 && !S_ISREG(st.st_mode));
}

/* Replays the trace `a` names as it is read, so memory does not grow with
 * its length (replay.h).  An auto plan's rule is told the trace's median
 * residual before the first wait: for a regular file, from a first pass
 * over it; standard input or a pipe is read once, so from its first
 * GAR_SKETCH_EXACT_MAX rows, kept and replayed first (all of it, exactly
 * as the file would give, when it is no longer).  Sets *rows_read to the
 * rows replayed. */
static int replay_streamed(const args *a, gar_replay_config *config, gar_replay_metrics *m,
                           uint64_t *rows_read, gar_error *err)
{
    bool once = read_once(a->trace);
    bool need_lead = plan_is_auto(config);
    int rc = 0;
    if (need_lead && !once) {
        if ((rc = lead_of_file(a->trace, &config->lead_ns, err)) < 0)
            return rc;
        config->has_lead = true;
    }
    gar_trace_stream *s;
    if ((rc = gar_trace_stream_open(&s, a->trace, err)) < 0)
        return rc;
    gar_trace head;
    gar_trace_init(&head);
    head_then_stream chain = { { &head, 0 }, s };
    if (need_lead && once) {
        const gar_trace_row *rows;
        size_t count;
        while (head.count < GAR_SKETCH_EXACT_MAX &&
               (rc = gar_trace_stream_next(s, &rows, &count)) > 0)
            for (size_t i = 0; i < count && rc >= 0; i++)
                rc = gar_trace_append(&head, &rows[i], err);
        if (rc >= 0) {
            gar_trace_cursor whole = { &head, 0 };
            rc = gar_replay_lead_of(gar_trace_cursor_source, &whole, &config->lead_ns, err);
            config->has_lead = true;
        }
    }
    if (rc >= 0) {
        config->rows = need_lead && once ? head_then_rest : gar_trace_stream_source;
        config->rows_context = need_lead && once ? (void *)&chain : (void *)s;
        rc = gar_replay_run(config, m, err);
    }
    *rows_read = m->waits;
    gar_trace_free(&head);
    gar_trace_stream_close(s);
    return rc;
}

/* The run's notes (sim/replay_notes.h) into `notes`, and the warnings the
 * run itself earned (auto over its budget, a missed p99 budget) printed
 * where the output's warnings go.  `plan` or `bands` is the one ran,
 * resolved; `warning` its fallback, if any. */
static void take_notes(const args *a, const gar_plan *plan, const gar_bands *bands,
                       const gar_estimator_spec *spec, const gar_replay_metrics *m,
                       const gar_error *warning, const char *plan_label, gar_replay_notes *notes)
{
    /* The plan ran is the resolved one: a warning is its fallback. */
    gar_bands ran = { .count = 1 };
    if (a->plan != NULL)
        ran.band[0].plan = *plan;
    else
        ran = *bands;
    gar_replay_notes_of(m, &ran, spec, warning->code != GAR_OK ? plan_label : NULL, notes);
    if (gar_trace_imported_sync(a->trace))
        gar_replay_notes_hint_kernels(notes);
    if (m->auto_counts.over_budget > 0) {
        char over[24], all[24];
        snprintf(over, sizeof over, "%llu", (unsigned long long)m->auto_counts.over_budget);
        snprintf(all, sizeof all, "%llu", (unsigned long long)m->auto_counts.waits);
        gar_error over_budget;
        gar_error_set(&over_budget, GAR_W_AUTO_OVER_BUDGET, 3, plan_label, over, all);
        gar_cli_print_warning(a->json ? stderr : stdout, &over_budget);
    }
    /* The budget is the p99's: a run over it says so, however it came. */
    gar_error missed;
    if (a->plan != NULL && plan->park == GAR_PARK_AUTO &&
        gar_replay_auto_missed(m, plan_label, plan->budget_ns, &missed))
        gar_cli_print_warning(a->json ? stderr : stdout, &missed);
}

int gar_verb_replay_main(int argc, char **argv)
{
    args a;
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;

    gar_error err;
    gar_plan plan;
    gar_bands bands;
    gar_estimator_spec spec;
    gar_host_profile host;
    if ((a.plan != NULL && gar_plan_parse(a.plan, &plan, &err) < 0) ||
        (a.bands != NULL && gar_bands_parse(a.bands, &bands, &err) < 0) ||
        gar_estimator_spec_parse(a.estimator, &spec, &err) < 0)
        return gar_cli_refuse(&err);
    if (gar_host_profile_load(a.host, &host, &err) < 0)
        return refuse_host(&a, &err);

    gar_error warning;
    gar_error_clear(&warning);
    if (!a.as_given) {
        gar_caps caps = gar_host_profile_caps(&host);
        int rc = a.plan != NULL ? gar_plan_resolve(&plan, &caps, &plan, &warning)
                                : gar_bands_resolve(&bands, &caps, &bands, &warning);
        if (rc < 0)
            return gar_cli_refuse(&warning);
    }

    gar_replay_config config;
    gar_replay_config_init(&config);
    config.plan = a.plan != NULL ? &plan : NULL;
    config.bands = a.bands != NULL ? &bands : NULL;
    config.estimator = spec;
    config.host = &host;
    config.mode = (gar_replay_mode)gar_replay_mode_from_name(a.mode);
    config.seed = a.seed;
    config.fault = (gar_sim_fault)a.fault;
    config.fault_wait = a.fault_row;
    config.late_store_ns = a.late_store_ns;
    config.store_delay_ns = a.store_delay_ns;
    config.wait_deadline_ns = a.deadline_ns;
    config.exact_polls = a.exact_polls;
    config.ci_level = a.ci_level;
    gar_replay_streams streams = { NULL, 0 };
    config.streams_out = &streams;
    gar_replay_metrics m;
    uint64_t rows_read = 0;
    int rc = replay_streamed(&a, &config, &m, &rows_read, &err);
    if (rc < 0)
        return gar_cli_refuse(&err);
    if (a.fault != GAR_SIM_FAULT_NONE && a.fault_row >= rows_read) {
        /* a fault on no wait would pass for a run that survived it */
        char what[256];
        snprintf(what, sizeof what,
                 "--fault row %llu is past the trace's last row (%llu rows: 0 to %llu)",
                 a.fault_row, (unsigned long long)rows_read, (unsigned long long)rows_read - 1);
        gar_replay_streams_free(&streams);
        return gar_cli_usage_error(verb, what);
    }

    char plan_label[GAR_BANDS_LABEL_BYTES];
    if (a.plan != NULL)
        gar_plan_label(&plan, plan_label, sizeof plan_label);
    else
        gar_bands_label(&bands, plan_label, sizeof plan_label);
    char est_label[GAR_ESTIMATOR_LABEL_BYTES];
    gar_estimator_spec_label(&spec, est_label, sizeof est_label);
    if (warning.code != GAR_OK)
        gar_cli_print_warning(a.json ? stderr : stdout, &warning);
    gar_replay_notes notes;
    take_notes(&a, &plan, &bands, &spec, &m, &warning, plan_label, &notes);
    const gar_cli_replay_run shown = { a.trace, a.host, a.mode, a.seed };
    if (a.json) {
        status = gar_cli_replay_print_json(&shown, plan_label, est_label, &m, &streams, &notes);
    } else {
        gar_cli_replay_print_table(&shown, plan_label, est_label, &m, &notes);
        status = gar_cli_replay_print_streams(&streams) ? GAR_EXIT_OK : GAR_EXIT_FAILED;
    }
    gar_replay_streams_free(&streams);
    return status;
}
