/* experiments/cli/verb_executor.c — `gar executor`: resolve an executor kind
 * against this host, as a run does once at start-up. */
#include <stdbool.h>
#include <stdio.h>

#include <gar/executor_kind.h>

#include "cli/cli_options.h"
#include "cli/host_caps.h"
#include "cli/verbs.h"

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar executor [--strict] [--without CAP]... NAME\n"
            "\n"
            "Resolves executor NAME (naive, gpu-reactor, io-uring) against this host's\n"
            "capabilities along the chain io-uring -> gpu-reactor -> naive and prints:\n"
            "  requested: NAME\n"
            "  running: NAME\n"
            "  warning: ...      the fallback warning, when one was taken\n"
            "gpu-reactor needs word-wait; io-uring needs io-uring and word-wait.\n"
            "`gar fill-demo --executor NAME` and `gar verify --executor NAME` run the\n"
            "kind resolved so (without --without or --strict).\n"
            "\n"
            "options:\n"
            "  --strict       refuse (error 4, exit 2) instead of falling back\n"
            "                 (default: fall back with a warning)\n"
            "  --without CAP  resolve as if this host lacked CAP: word-wait or io-uring;\n"
            "                 repeatable (default: the host as probed)\n"
            "  -h, --help     show this help\n"
            "\n"
            "example:\n"
            "  gar executor --without io-uring io-uring\n");
}

int gar_verb_executor_main(int argc, char **argv)
{
    gar_caps caps = gar_host_caps_probe();
    bool strict = false;
    const gar_cli_option options[] = {
        { .name = "strict", .takes = GAR_CLI_FLAG, .to = &strict },
        { .name = "without", .takes = GAR_CLI_PARSE, .to = &caps,
          .parse = gar_host_caps_without_option, .refusal = GAR_HOST_CAPS_WITHOUT_REFUSAL },
        { .name = "help", .letter = 'h', .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options("executor", argc, argv, options, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (argc - optind != 1)
        return gar_cli_usage_error("executor", "expected one executor name");

    gar_executor_kind requested, running;
    gar_error err;
    if (gar_executor_kind_parse(argv[optind], &requested, &err) != 0)
        return gar_cli_refuse(&err);
    int fell_back = gar_executor_kind_resolve(requested, &caps, strict, &running, &err);
    if (fell_back < 0)
        return gar_cli_refuse(&err);
    printf("requested: %s\n", gar_executor_kind_name(requested));
    printf("running: %s\n", gar_executor_kind_name(running));
    if (fell_back == 1)
        gar_cli_print_warning(stdout, &err);
    return GAR_EXIT_OK;
}
