/* experiments/cli/verb_import.c — `gar import`: a profiler trace into gar-trace v1. */
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#include <stdlib.h>

#include "sim/trace/alloc.h"
#include "cli/cli_options.h"
#include "import/import.h"
#include "sim/trace/trace.h"
#include "cli/verbs.h"

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar import kineto FILE.json[.gz]... [--wait-on sync|kernel] [--no-infer]\n"
            "                         [--out FILE]\n"
            "       gar import nsys FILE.sqlite [--process PID] [--wait-on sync|kernel]\n"
            "                         [--no-infer] [--out FILE]\n"
            "\n"
            "Turns a profile into a gar-trace v1 (see data/README.md): one row per host call\n"
            "that waited for GPU work (stream, event and device synchronizes, synchronous\n"
            "copies, and async device-to-pageable-host copies, which block; a copy call that\n"
            "returned before its copy ended is no wait), sorted by the wait's start.\n"
            "kineto reads a PyTorch profiler Chrome-trace JSON, plain or gzip-compressed\n"
            "('-': standard input); several files are one per rank (rank = position on the\n"
            "command line) and make one trace with rank-qualified streams.\n"
            "nsys reads an Nsight Systems SQLite export, every process in it\n"
            "(process-qualified streams) unless --process names one.  How many calls were\n"
            "found and why any made no row is printed on standard error, and kept in the\n"
            "trace's header, as are calls that repeat a correlation id (kept: each op\n"
            "joins the first of them to start).  Rows are written as they are mapped, in bounded memory (past\n"
            "a budget they are sorted on disk).\n"
            "With --wait-on kernel the rows are a what-if instead: a host that waits for the\n"
            "end of every kernel from its launch call's return (one row per kernel).\n"
            "\n"
            "options:\n"
            "  --out FILE      write FILE atomically, never an input, gzip-compressed when\n"
            "                  its name ends in .gz (default, or FILE '-': standard output);\n"
            "                  a FILE.tmp.XXXXXX a killed run left is removed\n"
            "  --process PID   nsys: import only the process with this pid\n"
            "  --wait-on WHAT  sync (default): the synchronizing calls the profile recorded;\n"
            "                  kernel: every kernel's end, waited for from its launch's return\n"
            "  --no-infer      do not infer the stream of a stream or event sync that has no\n"
            "                  sync record (such calls are skipped as no stream)\n"
            "  --help          show this help\n"
            "\n"
            "examples:\n"
            "  gar import kineto trace.json.gz --out steps.csv\n"
            "  gar import kineto trace.json.gz --out steps.csv.gz\n"
            "  gar import kineto - --out steps.csv.gz < trace.json.gz\n"
            "  gar import kineto rank0.json rank1.json --out job.csv\n"
            "  gar import nsys report.sqlite --process 4321 > steps.csv\n"
            "  gar import kineto trace.json.gz --wait-on kernel --out kernels.csv\n");
}

static void print_counts(FILE *out, const gar_import_counts *c, bool kernels)
{
    fprintf(out,
            "%s: %llu\n"
            "waits: %llu\n"
            "inferred_stream: %llu\n"
            "skipped_no_gpu_op: %llu\n"
            "skipped_no_stream: %llu\n"
            "skipped_no_launch: %llu\n"
            "skipped_inconsistent: %llu\n"
            "skipped_out_of_order: %llu\n"
            "skipped_returned_early: %llu\n"
            "duplicate_correlation: %llu\n",
            kernels ? "kernels" : "sync_calls", (unsigned long long)c->sync_calls,
            (unsigned long long)c->waits, (unsigned long long)c->inferred_stream,
            (unsigned long long)c->no_gpu_op, (unsigned long long)c->no_stream,
            (unsigned long long)c->no_launch, (unsigned long long)c->inconsistent,
            (unsigned long long)c->out_of_order, (unsigned long long)c->returned_early,
            (unsigned long long)c->duplicate_correlation);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* A growing text: the trace's header comment. */
typedef struct text {
    char *s;
    size_t len, cap;
    bool failed;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s != NULL ? t->s + t->len : NULL, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t want = (t->cap == 0 ? 1024 : t->cap * 2) + (size_t)n;
        char *grown = gar_realloc(t->s, want);
        if (grown == NULL) {
            t->failed = true;
            return;
        }
        t->s = grown;
        t->cap = want;
    }
}

/* The header: the command, what the rows wait on, the counts, the processes
 * and, for several, what each qualified stream id is.  Lines stay well under
 * the reader's limit. */
static void header(text *t, const char *format, int files, char **paths,
                   const gar_import_counts *c, const gar_import_legend *legend, bool kineto,
                   bool kernels)
{
    add(t, "imported by: gar import %s", format);
    for (int i = 0; i < files && i < 8; i++)
        add(t, " %s", base_name(paths[i]));
    if (files > 8)
        add(t, " (and %d more)", files - 8);
    add(t, "%s", kernels ? " --wait-on kernel" : "");
    add(t, "\nwait on: %s",
        kernels ? "kernel (a what-if: every kernel's end, from its launch call's return)"
                : "sync (the synchronizing calls the profile recorded)");
    add(t,
        "\n%s %llu, waits %llu, inferred_stream %llu; skipped: no gpu op %llu,"
        " no stream %llu, no launch %llu, inconsistent %llu, out of order %llu,"
        " returned early %llu",
        kernels ? "kernels" : "sync calls", (unsigned long long)c->sync_calls,
        (unsigned long long)c->waits, (unsigned long long)c->inferred_stream,
        (unsigned long long)c->no_gpu_op, (unsigned long long)c->no_stream,
        (unsigned long long)c->no_launch, (unsigned long long)c->inconsistent,
        (unsigned long long)c->out_of_order, (unsigned long long)c->returned_early);
    if (c->duplicate_correlation > 0)
        add(t,
            "\nduplicate correlation ids: %llu %s an earlier call's id in its %s"
            " (kept; each op is joined to the first of them to start)",
            (unsigned long long)c->duplicate_correlation,
            c->duplicate_correlation == 1 ? "call repeats" : "calls repeat",
            kineto ? "rank" : "process");
    const char *what = kineto ? "ranks" : "processes";
    for (size_t i = 0; i < legend->processes; i++) {
        if (i % 256 == 0)
            add(t, "\n%s:", what);
        add(t, " %llu", (unsigned long long)legend->process[i]);
    }
    for (size_t i = 0; i < legend->streams; i++) {
        const gar_import_stream_name *s = &legend->stream[i];
        add(t, "\nstream %u: %s %llu device %u stream %u", (unsigned)s->id,
            kineto ? "rank" : "process", (unsigned long long)s->process, (unsigned)s->device,
            (unsigned)s->stream);
    }
}

/* The import's sink: the header once the counts are known, then each row
 * straight to the trace writer, so no row is held. */
typedef struct import_out {
    const char *path; /* NULL: standard output */
    const char *format;
    int files;
    char **paths;
    bool kineto, kernels;
    bool begun;
    gar_trace_writer writer;
} import_out;

static int begin_output(void *context, const gar_import_counts *counts, gar_import_legend *legend,
                        gar_error *err)
{
    import_out *o = context;
    text comment = { 0 };
    header(&comment, o->format, o->files, o->paths, counts, legend, o->kineto, o->kernels);
    if (comment.failed) {
        gar_free(comment.s);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace header", "out of memory");
    }
    int rc = o->path != NULL
                 ? gar_trace_writer_file(&o->writer, o->path, GAR_TRACE_HAS_STREAM, comment.s,
                                         err)
                 : gar_trace_writer_stream(&o->writer, stdout, "standard output", false,
                                           GAR_TRACE_HAS_STREAM, comment.s, err);
    gar_free(comment.s);
    o->begun = rc == 0;
    return rc;
}

static int write_row(void *context, const gar_trace_row *row, gar_error *err)
{
    (void)err; /* the writer reports into the error it was begun with */
    import_out *o = context;
    return gar_trace_writer_row(&o->writer, row);
}

int gar_verb_import_main(int argc, char **argv)
{
    const char *out_path = NULL;
    const char *wait_on = NULL;
    gar_import_options options = { 0 };
    unsigned long long process = 0;
    const gar_cli_option table[] = {
        { .name = "out", .takes = GAR_CLI_TEXT, .to = &out_path },
        { .name = "process", .takes = GAR_CLI_U64, .to = &process, .max = 0xFFFFFF,
          .refusal = "--process takes a pid, 0..16777215", .quote_value = true,
          .given = &options.one_process },
        { .name = "no-infer", .takes = GAR_CLI_FLAG, .to = &options.no_infer },
        { .name = "wait-on", .takes = GAR_CLI_TEXT, .to = &wait_on },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options("import", argc, argv, table, print_help);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    if (argc - optind < 2)
        return gar_cli_usage_error("import", "expected a FORMAT (kineto or nsys) and a FILE");
    const char *format = argv[optind];
    bool kineto = strcmp(format, "kineto") == 0;
    if (!kineto && strcmp(format, "nsys") != 0)
        return gar_cli_usage_error("import", "the FORMAT is kineto or nsys");
    int files = argc - optind - 1;
    char **paths = argv + optind + 1;
    if (!kineto && files != 1)
        return gar_cli_usage_error("import", "nsys takes one FILE");
    if (kineto && options.one_process)
        return gar_cli_usage_error("import", "--process is for nsys; kineto takes one file per rank");
    options.process = (uint32_t)process;
    if (wait_on != NULL && strcmp(wait_on, "kernel") == 0)
        options.wait_on = GAR_IMPORT_WAIT_ON_KERNEL;
    else if (wait_on != NULL && strcmp(wait_on, "sync") != 0)
        return gar_cli_usage_error("import", "--wait-on takes sync or kernel");
    bool kernels = options.wait_on == GAR_IMPORT_WAIT_ON_KERNEL;

    if (out_path != NULL && strcmp(out_path, "-") == 0)
        out_path = NULL; /* "-": standard output, as without --out */
    int dashes = 0;
    for (int i = 0; i < files; i++)
        dashes += strcmp(paths[i], "-") == 0;
    if (!kineto && dashes > 0)
        return gar_cli_usage_error("import", "nsys reads an SQLite file, which standard input"
                                             " cannot be: give the export's path");
    if (dashes > 1)
        return gar_cli_usage_error("import",
                                   "'-' (standard input) is given more than once; it can be"
                                   " read once: give files for the other ranks");
    for (int i = 0; i < files; i++)
        if (gar_cli_refuse_out_is_input("import", out_path, paths[i]) != 0)
            return GAR_EXIT_REFUSED;

    gar_error err;
    gar_import_counts counts;
    import_out o = { .path = out_path, .format = format, .files = files, .paths = paths,
                     .kineto = kineto, .kernels = kernels };
    const gar_import_sink sink = { begin_output, write_row, &o };
    int rc = kineto ? gar_import_kineto_files_to((const char *const *)paths, (size_t)files,
                                                 &options, &sink, &counts, &err)
                    : gar_import_nsys_file_to(paths[0], &options, &sink, &counts, &err);
    if (rc == 0 && o.begun)
        rc = gar_trace_writer_finish(&o.writer);
    if (o.begun)
        rc = gar_trace_writer_end(&o.writer, rc);
    if (rc < 0)
        return gar_cli_refuse(&err);
    print_counts(stderr, &counts, kernels);
    if (out_path != NULL)
        printf("out: %s\nwaits: %llu\n", out_path, (unsigned long long)counts.waits);
    return GAR_EXIT_OK;
}
