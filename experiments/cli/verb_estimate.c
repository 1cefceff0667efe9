/* experiments/cli/verb_estimate.c — `gar estimate`: feeds one readback point's
 * deadline estimator with samples and shows the sleep it would give next.
 *
 * Every sample is checked before anything is printed, so a bad one leaves
 * no partial run on stdout. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <gar/estimator.h>
#include <gar/plan.h>

#include "cli/cli_options.h"
#include "cli/verbs.h"

static const char verb[] = "estimate";

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar estimate --plan PLAN [--verbose] SAMPLE...\n"
            "\n"
            "Feeds one readback point's deadline estimator with each SAMPLE in turn and\n"
            "prints, after each, the sleep the next wait there would take before it\n"
            "parks: `sleep_ns: N`, or `sleep_ns: none`.\n"
            "\n"
            "options:\n"
            "  --plan PLAN   the wait plan (required; no default); it must have\n"
            "                +predict, whose margin, sleep bounds and window are used\n"
            "  --verbose     also print `prediction_ns: N` (or none) before each sleep\n"
            "                (default: off)\n"
            "  --help        show this help\n"
            "\n"
            "samples (NS: whole nanoseconds, a decimal u64):\n"
            "  exact:NS      the wait saw the work done NS ns after it started\n"
            "  late:NS       the first query after the sleep found it done at NS ns\n"
            "\n"
            "example:\n"
            "  gar estimate --plan "
            "'poll+predict:margin_us=150,min_sleep_us=20,max_sleep_us=50000,window=8' \\\n"
            "      exact:1000000 exact:900000 exact:1100000 late:700000\n");
}

/* Reads "exact:NS" or "late:NS".  Returns false for anything else. */
static bool parse_sample(const char *text, gar_sample *out)
{
    static const struct {
        const char *prefix;
        gar_sample_kind kind;
    } kinds[] = {
        { "exact:", GAR_SAMPLE_EXACT },
        { "late:", GAR_SAMPLE_LATE },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t n = strlen(kinds[i].prefix);
        if (strncmp(text, kinds[i].prefix, n) != 0)
            continue;
        unsigned long long ns = 0;
        if (gar_cli_parse_u64(text + n, &ns) != 0)
            return false;
        *out = (gar_sample){ .kind = kinds[i].kind, .ns = ns };
        return true;
    }
    return false;
}

/* Prints `key: N`, or `key: none` when `have` is 0. */
static void print_ns(const char *key, int have, gar_dur_ns ns)
{
    if (have == 1)
        printf("%s: %llu\n", key, (unsigned long long)ns);
    else
        printf("%s: none\n", key);
}

int gar_verb_estimate_main(int argc, char **argv)
{
    const char *plan_text = NULL;
    bool verbose = false;
    const gar_cli_option options[] = {
        { .name = "plan", .takes = GAR_CLI_TEXT, .to = &plan_text },
        { .name = "verbose", .takes = GAR_CLI_FLAG, .to = &verbose },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options(verb, argc, argv, options, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (plan_text == NULL)
        return gar_cli_usage_error(verb, "--plan PLAN is required");

    gar_error err;
    gar_plan plan;
    if (gar_plan_parse(plan_text, &plan, &err) < 0)
        return gar_cli_refuse(&err);
    if (!plan.predict) {
        char what[GAR_PLAN_LABEL_BYTES + 128];
        snprintf(what, sizeof what,
                 "plan '%s' has no +predict: the estimator takes its deadline parameters "
                 "(margin, sleep bounds, window) from it",
                 plan_text);
        return gar_cli_usage_error(verb, what);
    }

    int first = optind;
    if (first == argc)
        return gar_cli_usage_error(verb, "give at least one SAMPLE (exact:NS or late:NS)");
    for (int i = first; i < argc; i++) {
        gar_sample sample;
        if (!parse_sample(argv[i], &sample)) {
            char what[512];
            snprintf(what, sizeof what,
                     "sample %d '%s' is not exact:NS or late:NS (NS a decimal u64)",
                     i - first + 1, argv[i]);
            return gar_cli_usage_error(verb, what);
        }
    }

    gar_estimator est;
    gar_estimator_init(&est);
    const gar_deadline *deadline = &plan.deadline;
    gar_dur_ns unused;
    if (gar_estimator_sleep(&est, deadline, &unused, &err) < 0) /* checks the deadline */
        return gar_cli_refuse(&err);
    for (int i = first; i < argc; i++) {
        gar_sample sample;
        parse_sample(argv[i], &sample);
        gar_dur_ns p = 0, sleep_ns = 0;
        int have_p, have_sleep;
        if (gar_estimator_observe(&est, deadline, sample, &err) < 0 ||
            (have_p = gar_estimator_prediction(&est, deadline, &p, &err)) < 0 ||
            (have_sleep = gar_estimator_sleep(&est, deadline, &sleep_ns, &err)) < 0)
            return gar_cli_refuse(&err);
        if (verbose)
            print_ns("prediction_ns", have_p, p);
        print_ns("sleep_ns", have_sleep, sleep_ns);
    }
    return GAR_EXIT_OK;
}
