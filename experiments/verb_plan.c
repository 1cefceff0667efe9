/* experiments/verb_plan.c — `gar plan`: parse a plan or bands text and show
 * what it resolves to on this host. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include <gar/bands.h>

#include "host_caps.h"
#include "verbs.h"

static void print_help(void)
{
    printf("usage: gar plan [--rows N] [--without CAP]... TEXT\n"
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
           "  plan     := park | park \"+predict:\" deadline\n"
           "  park     := \"block\" | \"poll\" | \"flag:park_us=\" N \",backstop_us=\" N\n"
           "  deadline := \"margin_us=\" N \",min_sleep_us=\" N \",max_sleep_us=\" N \",window=\" N\n"
           "\n"
           "example:\n"
           "  gar plan --rows 48 'block;rows>=32:flag:park_us=100,backstop_us=1000'\n");
}

int gar_verb_plan_main(int argc, char **argv)
{
    static const struct option options[] = {
        { "rows", required_argument, NULL, 'r' },
        { "without", required_argument, NULL, 'w' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    gar_caps caps = gar_host_caps_probe();
    bool want_selection = false;
    uint32_t rows = 0;
    int opt;
    opterr = 0; /* a bad option is reported as a coded usage error */
    while ((opt = gar_cli_getopt(argc, argv, ":h", options, NULL)) != -1) {
        unsigned long long value;
        switch (opt) {
        case 'r':
            if (gar_cli_parse_u64(optarg, &value) != 0 || value > UINT32_MAX)
                return gar_cli_usage_error("plan", "--rows takes a row count, 0..4294967295");
            want_selection = true;
            rows = (uint32_t)value;
            break;
        case 'w':
            if (gar_host_caps_without(&caps, optarg) != 0)
                return gar_cli_usage_error("plan", "--without takes word-wait or io-uring");
            break;
        case 'h':
            print_help();
            return GAR_EXIT_OK;
        default:
            return gar_cli_bad_option("plan", opt, argv);
        }
    }
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
        gar_plan_label(gar_bands_select(&running, rows), plan_label, sizeof plan_label);
        printf("selected: %s\n", plan_label);
    }
    return GAR_EXIT_OK;
}
