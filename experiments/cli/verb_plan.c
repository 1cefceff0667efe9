/* experiments/cli/verb_plan.c — `gar plan`: parse a plan or bands text and show
 * what it resolves to on this host. */
#include <stdint.h>
#include <stdio.h>

#include <gar/bands.h>

#include "cli/cli_options.h"
#include "cli/host_caps.h"
#include "cli/verbs.h"

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar plan [--rows N] [--without CAP]... TEXT\n"
            "\n"
            "Parses TEXT, a wait plan or bands text, resolves it against this host's\n"
            "capabilities and prints:\n"
            "  requested: LABEL   the text as parsed (it labels back exactly)\n"
            "  running: LABEL     what runs here, naming any fallback taken\n"
            "  warning: ...       the fallback warning, when one was taken\n"
            "  selected: LABEL    with --rows: the running plan of that band\n"
            "\n"
            "options:\n"
            "  --rows N       also select the band for a step of N rows, 0..4294967295\n"
            "                 (default: no selection)\n"
            "  --without CAP  resolve as if this host lacked CAP: word-wait or io-uring;\n"
            "                 repeatable (default: the host as probed)\n"
            "  -h, --help     show this help\n"
            "\n"
            "grammar:\n"
            "  bands    := plan ( \";rows>=\" N \":\" plan )*      (at most 4 bands)\n"
            "  plan     := park | park \"+predict:\" deadline | \"auto:p99_us=\" N\n"
            "  park     := \"block\" | \"poll\" | \"flag:park_us=\" N \",backstop_us=\" N\n"
            "  deadline := \"margin_us=\" N \",min_sleep_us=\" N \",max_sleep_us=\" N \",window=\" N\n"            "  (auto: each wait's sleep and park chosen for a p99 overshoot of N µs,\n"
            "  1..1000000; gar/auto_policy.h)\n"
            "\n"
            "example:\n"
            "  gar plan --rows 48 'block;rows>=32:flag:park_us=100,backstop_us=1000'\n");
}

int gar_verb_plan_main(int argc, char **argv)
{
    gar_caps caps = gar_host_caps_probe();
    bool want_selection = false;
    unsigned long long step_rows = 0;
    const gar_cli_option options[] = {
        { .name = "rows", .takes = GAR_CLI_U64, .to = &step_rows, .max = UINT32_MAX,
          .refusal = "--rows takes a row count, 0..4294967295", .given = &want_selection },
        { .name = "without", .takes = GAR_CLI_PARSE, .to = &caps,
          .parse = gar_host_caps_without_option, .refusal = GAR_HOST_CAPS_WITHOUT_REFUSAL },
        { .name = "help", .letter = 'h', .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options("plan", argc, argv, options, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (argc - optind != 1)
        return gar_cli_usage_error("plan", "expected one plan or bands text");

    gar_bands requested, running;
    gar_error err;
    if (gar_bands_parse(argv[optind], &requested, &err) != 0)
        return gar_cli_refuse(&err);
    int fell_back = gar_bands_resolve(&requested, &caps, &running, &err);
    if (fell_back < 0)
        return gar_cli_refuse(&err);

    char label[GAR_BANDS_LABEL_BYTES];
    gar_bands_label(&requested, label, sizeof label);
    printf("requested: %s\n", label);
    gar_bands_label(&running, label, sizeof label);
    printf("running: %s\n", label);
    if (fell_back == 1)
        gar_cli_print_warning(stdout, &err);
    if (want_selection) {
        char plan_label[GAR_PLAN_LABEL_BYTES];
        gar_plan_label(gar_bands_select(&running, (uint32_t)step_rows), plan_label, sizeof plan_label);
        printf("selected: %s\n", plan_label);
    }
    return GAR_EXIT_OK;
}
