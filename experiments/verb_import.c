/* experiments/verb_import.c — `gar import`: a profiler trace into gar-trace v1. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "import.h"
#include "trace.h"
#include "verbs.h"

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar import kineto FILE.json[.gz] [--out FILE]\n"
            "       gar import nsys FILE.sqlite [--out FILE]\n"
            "\n"
            "Turns a profile into a gar-trace v1 (see data/README.md): one row per host call\n"
            "that waited for GPU work (stream, event and device synchronizes, synchronous\n"
            "copies, and async device-to-pageable-host copies, which block), sorted by the\n"
            "wait's start.  kineto reads a PyTorch profiler Chrome-trace JSON, plain or\n"
            "gzip-compressed; nsys reads an Nsight Systems SQLite export.  How many calls\n"
            "were found and why any made no row is printed on standard error.\n"
            "\n"
            "options:\n"
            "  --out FILE   write FILE atomically, never the input (default, or FILE '-':\n"
            "               standard output)\n"
            "  --help       show this help\n"
            "\n"
            "examples:\n"
            "  gar import kineto trace.json.gz --out steps.csv\n"
            "  gar import nsys report.sqlite > steps.csv\n");
}

static void print_counts(FILE *out, const gar_import_counts *c)
{
    fprintf(out,
            "sync_calls: %llu\n"
            "waits: %llu\n"
            "skipped_no_gpu_op: %llu\n"
            "skipped_no_stream: %llu\n"
            "skipped_no_launch: %llu\n"
            "skipped_inconsistent: %llu\n"
            "skipped_out_of_order: %llu\n",
            (unsigned long long)c->sync_calls, (unsigned long long)c->waits,
            (unsigned long long)c->no_gpu_op, (unsigned long long)c->no_stream,
            (unsigned long long)c->no_launch, (unsigned long long)c->inconsistent,
            (unsigned long long)c->out_of_order);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

int gar_verb_import_main(int argc, char **argv)
{
    const char *out_path = NULL;
    const gar_cli_option options[] = {
        { .name = "out", .takes = GAR_CLI_TEXT, .to = &out_path },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options("import", argc, argv, options, print_help);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    if (argc - optind != 2)
        return gar_cli_usage_error("import", "expected a FORMAT (kineto or nsys) and a FILE");
    const char *format = argv[optind], *path = argv[optind + 1];
    bool kineto = strcmp(format, "kineto") == 0;
    if (!kineto && strcmp(format, "nsys") != 0)
        return gar_cli_usage_error("import", "the FORMAT is kineto or nsys");

    if (out_path != NULL && strcmp(out_path, "-") == 0)
        out_path = NULL; /* "-": standard output, as without --out */
    if (gar_cli_refuse_out_is_input("import", out_path, path) != 0)
        return GAR_EXIT_REFUSED;
    gar_error err;
    gar_trace trace;
    gar_import_counts counts;
    int rc = kineto ? gar_import_kineto_file(path, &trace, &counts, &err)
                    : gar_import_nsys_file(path, &trace, &counts, &err);
    if (rc < 0)
        return gar_cli_refuse(&err);
    char comment[512];
    snprintf(comment, sizeof comment,
             "imported by: gar import %s %s\n"
             "sync calls %llu, waits %llu; skipped: no gpu op %llu, no stream %llu,"
             " no launch %llu, inconsistent %llu, out of order %llu",
             format, base_name(path), (unsigned long long)counts.sync_calls,
             (unsigned long long)counts.waits, (unsigned long long)counts.no_gpu_op,
             (unsigned long long)counts.no_stream, (unsigned long long)counts.no_launch,
             (unsigned long long)counts.inconsistent, (unsigned long long)counts.out_of_order);
    rc = out_path != NULL ? gar_trace_write_file(&trace, comment, out_path, &err)
                          : gar_trace_write_stream(&trace, comment, stdout, "standard output",
                                                   &err);
    gar_trace_free(&trace);
    if (rc < 0)
        return gar_cli_refuse(&err);
    print_counts(stderr, &counts);
    if (out_path != NULL)
        printf("out: %s\nwaits: %llu\n", out_path, (unsigned long long)counts.waits);
    return GAR_EXIT_OK;
}
