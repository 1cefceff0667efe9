/* experiments/cli/verb_gen.c — `gar gen`: a synthetic trace from a seed. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_options.h"
#include "sim/gen.h"
#include "sim/trace/trace.h"
#include "cli/verbs.h"

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar gen KIND [--waits N] [--seed S] [--param KEY=VALUE]... [--out FILE]\n"
            "\n"
            "Writes a synthetic gar-trace v1 (see data/README.md): a host loop that enqueues\n"
            "work, waits for it, and enqueues the next step.  The same kind, parameters,\n"
            "wait count and seed give byte-identical output.\n"
            "\n"
            "options:\n"
            "  --waits N          rows to generate, 1 to %llu (default 1000)\n"
            "  --seed S           PRNG seed, any u64 (default 1)\n"
            "  --param KEY=VALUE  set one parameter of the kind (repeatable)\n"
            "  --out FILE         write FILE atomically, gzip-compressed when its name ends in\n"
            "                     .gz (default, or FILE '-': standard output); the rows go\n"
            "                     out as they are drawn, in memory that does not grow with N,\n"
            "                     and a FILE.tmp.XXXXXX a killed run left is removed\n"
            "  --help             show this help\n"
            "\n"
            "kinds and their parameters (times in microseconds), with defaults:\n",
            (unsigned long long)GAR_GEN_WAITS_MAX);
    for (int k = 0; k < GAR_GEN_KIND_COUNT; k++) {
        size_t n;
        const gar_gen_param *p = gar_gen_params((gar_gen_kind)k, &n);
        fprintf(out, "  %s\n", gar_gen_kind_name((gar_gen_kind)k));
        for (size_t i = 0; i < n; i++) {
            char item[64];
            snprintf(item, sizeof item, "%s=%.15g", p[i].name, p[i].fallback);
            fprintf(out, "    %-20s %s\n", item, p[i].help);
        }
    }
    fprintf(out,
            "\n"
            "examples:\n"
            "  gar gen jitter --waits 2000 --seed 7 --param sd_us=300 --out jitter.csv\n"
            "  gar gen jitter --waits 2000000 --out jitter.csv.gz\n");
}

enum { PARAMS_MAX = 64 };

/* The --param assignments, in the order given. */
typedef struct assignments {
    const char *text[PARAMS_MAX];
    size_t count;
} assignments;

static int add_assignment(const char *value, void *to)
{
    assignments *a = to;
    if (a->count == PARAMS_MAX)
        return -1;
    a->text[a->count++] = value;
    return 0;
}

static int write_row(void *writer, const gar_trace_row *row)
{
    return gar_trace_writer_row(writer, row);
}

/* Writes the rows as they are drawn, never the whole trace in memory: to
 * `out_path` atomically, or to standard output (NULL).  A bad spec or count
 * is refused before anything is written.  Returns 0 or a negated code. */
static int write_trace(const gar_gen_spec *spec, unsigned long long waits,
                       unsigned long long seed, const char *comment, const char *out_path,
                       gar_error *err)
{
    int rc = gar_gen_check(spec, waits, seed, err); /* before the output is begun */
    if (rc < 0)
        return rc;
    gar_trace_writer w;
    unsigned columns = gar_gen_columns(spec);
    rc = out_path != NULL
                 ? gar_trace_writer_file(&w, out_path, columns, comment, err)
                 : gar_trace_writer_stream(&w, stdout, "standard output", false, columns,
                                           comment, err);
    if (rc < 0)
        return rc;
    rc = gar_gen_each(spec, waits, seed, write_row, &w, err);
    if (rc == 0)
        rc = gar_trace_writer_finish(&w);
    return gar_trace_writer_end(&w, rc);
}

int gar_verb_gen_main(int argc, char **argv)
{
    /* Parameters are applied once the kind is known, so they may come before it. */
    assignments given_params = { .count = 0 };
    unsigned long long waits = 1000, seed = 1;
    const char *out_path = NULL;
    const gar_cli_option options[] = {
        { .name = "waits", .takes = GAR_CLI_U64, .to = &waits, .max = ULLONG_MAX,
          .refusal = "--waits needs a whole number" },
        { .name = "seed", .takes = GAR_CLI_U64, .to = &seed, .max = ULLONG_MAX,
          .refusal = "--seed needs a whole number" },
        { .name = "param", .takes = GAR_CLI_PARSE, .to = &given_params, .parse = add_assignment,
          .refusal = "too many --param options" },
        { .name = "out", .takes = GAR_CLI_TEXT, .to = &out_path },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options("gen", argc, argv, options, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (optind + 1 != argc)
        return gar_cli_usage_error("gen", optind == argc ? "missing KIND" : "one KIND only");

    if (out_path != NULL && strcmp(out_path, "-") == 0)
        out_path = NULL; /* "-": standard output, as without --out */

    gar_error err;
    gar_gen_kind kind;
    if (gar_gen_kind_parse(argv[optind], &kind, &err) < 0)
        return gar_cli_refuse(&err);
    gar_gen_spec spec = gar_gen_spec_default(kind);
    unsigned given = 0;
    for (size_t i = 0; i < given_params.count; i++)
        if (gar_gen_spec_set_once(&spec, &given, given_params.text[i], &err) < 0)
            return gar_cli_refuse(&err);

    char label[512], comment[768];
    gar_gen_spec_label(&spec, label, sizeof label);
    snprintf(comment, sizeof comment, "generated by: gar gen %s --waits %llu --seed %llu\nparams: %s",
             gar_gen_kind_name(kind), waits, seed, label);
    rc = write_trace(&spec, waits, seed, comment, out_path, &err);
    if (rc < 0)
        return gar_cli_refuse(&err);
    if (out_path != NULL)
        printf("out: %s\nkind: %s\nwaits: %llu\nseed: %llu\n", out_path, gar_gen_kind_name(kind),
               waits, seed);
    return GAR_EXIT_OK;
}
