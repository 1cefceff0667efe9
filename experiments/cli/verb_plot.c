/* experiments/cli/verb_plot.c — `gar plot --db FILE --out DIR`: a sweep
 * database's results as PNGs, each beside the gnuplot script that drew it. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/database_folder.h"
#include "cli/verbs.h"
#include "report/plot.h"
#include "sweep/db.h"
#include "sweep/results.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gar plot --db FILE --out DIR [--trace T] [--run ID]\n"
            "\n"
            "Draws the results of the sweep database FILE with gnuplot into DIR (created\n"
            "if missing), each PNG beside its script (NAME.gp) and data (NAME.dat):\n"
            "  pareto-HOST-MODE.png   busy CPU against p99 overshoot per arm (the mean\n"
            "                         over seeds, bars: the seeds' spread widened to the\n"
            "                         runs' 95 %% intervals), the Pareto frontier drawn,\n"
            "                         one panel per trace; arms drawn on one point (within\n"
            "                         6 px) are ringed and tagged 'a×N', and printed as\n"
            "                         'coincident:' lines\n"
            "  param-NAME-HOST-MODE.png  p99 overshoot and busy CPU against each swept\n"
            "                         numeric parameter NAME (a spec's {..} range or\n"
            "                         list), one line per plan family / estimator, each\n"
            "                         point the mean over seeds, traces and the other\n"
            "                         swept values, bars from the least to the greatest\n"
            "                         ('*' in NAME is written '_scale')\n"
            "  cdf-TRACE-HOST-MODE.png  the overshoot CDF of each plan on trace T (log\n"
            "                         overshoot) beside its tail, the share of waits with\n"
            "                         at least that overshoot (log-log)\n"
            "  prediction-ID.png      run ID's prediction against the true residual\n"
            "TRACE and HOST are short names (the file name without folder and\n"
            "extension); two of other content that share one each get '-' and 8 hex\n"
            "digits of their content hash ('gpu-1a2b3c4d').\n"
            "Plans are named by their family and the parameters that differ among the\n"
            "plans a plot shows ('poll+predict margin_us=50'); a plan has one colour (and\n"
            "dash) in every plot of the command, given in the database's plan order.\n"
            "The last two re-run stored runs to see every wait (they need the trace\n"
            "files the sweep read) and refuse if the replay no longer reproduces the\n"
            "stored metrics of a run this build made; a run another build made (an older\n"
            "database) is left out of them, each figure left out printed as a\n"
            "`lacking:` line saying why.  Needs gnuplot with the pngcairo terminal on PATH.\n"
            "All or nothing: the files are made in a staging folder inside DIR and\n"
            "moved into DIR only when every one is complete (each PNG checked whole), so\n"
            "a refusal, a failing gnuplot or a full disk leaves DIR as it was.\n"
            "FILE is only read, never changed (a schema version 3 or 4 file is read as\n"
            "it is, not converted), so a read-only file or folder will do.\n"
            "\n"
            "options:\n"
            "  --db FILE    the sweep database (required)\n"
            "  --out DIR    the output folder (required)\n"
            "  --trace T    the trace of the CDF and prediction plots: its short name\n"
            "               ('steady'), or its hash (4+ hex digits); default: the first\n"
            "  --run ID     the run of the prediction plot (runs.id); default: trace T's\n"
            "               first run with predict under adl, least seed\n"
            "  --help       this text\n"
            "\n"
            "example:\n"
            "  gar plot --db results/sweep.db --out results --trace bimodal\n");
}

/* Refuses --trace `trace`, which names no trace of the database, saying
 * which names would do.  Returns -GAR_E_INVALID_ARGUMENT. */
static int refuse_unknown_trace(const gar_arm_list *arms, const char *trace, gar_error *err)
{
    char what[GAR_ERROR_ARG_BYTES];
    size_t n = (size_t)snprintf(what, sizeof what, "'%.100s' names no trace of the database"
                                " (its traces:", trace);
    for (size_t i = 0; i < arms->count && n < sizeof what; i++)
        if (i == 0 || strcmp(arms->arm[i].trace_short, arms->arm[i - 1].trace_short) != 0)
            n += (size_t)snprintf(what + n, sizeof what - n, " %s", arms->arm[i].trace_short);
    if (n < sizeof what)
        snprintf(what + n, sizeof what - n, ")");
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "plot", "--trace", what);
}

/* What the command made: each plot, the arms a pareto plot draws on one
 * point, and the runs it left out. */
static void print_files(const char *db_path, const char *dir, const gar_plot_files *files)
{
    printf("db: %s\n", db_path);
    printf("out: %s\n", dir);
    for (size_t i = 0; i < files->count; i++) {
        printf("png: %s/%s\n", dir, files->file[i].png);
        /* The arms a pareto plot draws on one point, one ringed group a line. */
        for (const char *l = files->file[i].listing; l != NULL && *l != '\0';) {
            size_t n = strcspn(l, "\n");
            printf("coincident: %s | %.*s\n", files->file[i].png, (int)n, l);
            l += n + (l[n] == '\n');
        }
    }
    for (size_t i = 0; i < files->lacking_count; i++)
        printf("lacking: %s\n", files->lacking[i]);
    if (files->lacking_more > 0)
        printf("lacking: and %zu more\n", files->lacking_more);
}

int gar_verb_plot_main(int argc, char **argv)
{
    const char *db_path = NULL, *dir = NULL, *trace = NULL;
    unsigned long long run_id = 0;
    const gar_cli_option options[] = {
        { .name = "db", .takes = GAR_CLI_TEXT, .to = &db_path },
        { .name = "out", .takes = GAR_CLI_TEXT, .to = &dir },
        { .name = "trace", .takes = GAR_CLI_TEXT, .to = &trace },
        { .name = "run", .takes = GAR_CLI_U64, .to = &run_id, .min = 1, .max = INT64_MAX,
          .refusal = "--run takes a run id (a whole number >= 1)" },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options("plot", argc, argv, options, usage);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    if (optind != argc)
        return gar_cli_usage_error("plot", "takes no arguments besides the options");
    if (db_path == NULL || dir == NULL)
        return gar_cli_usage_error("plot", "--db FILE and --out DIR are required");
    dir = gar_cli_folder((char *)dir); /* argv's own text, writable: "plots/" prints once-slashed */

    gar_error err;
    if (gar_plot_check_gnuplot(&err) < 0)
        return gar_cli_refuse(&err);
    gar_db *db = NULL;
    if (gar_db_open_read(db_path, &db, &err) < 0)
        return gar_refuse_database(db_path, &err);
    gar_arm_list arms = { NULL, 0 };
    gar_plot_files *files = calloc(1, sizeof *files);
    int rc = files == NULL ? gar_error_set(&err, GAR_E_CAPACITY, 2, "memory", "exhausted") : 0;
    /* What can be checked is checked before a file is made. */
    if (rc == 0)
        rc = gar_results_check_rows(db, &err);
    if (rc == 0)
        rc = gar_results_arms(db, &arms, &err);
    long pick = -1;
    if (rc == 0 && arms.count == 0)
        rc = gar_error_set(&err, GAR_E_EMPTY_DATABASE, 2, "plot", db_path);
    if (rc == 0 && (pick = gar_plot_find_trace(&arms, trace)) < 0)
        rc = refuse_unknown_trace(&arms, trace, &err);
    if (rc == 0)
        rc = gar_results_check_sources(db, arms.arm[pick].trace, &err);
    if (rc == 0)
        rc = gar_plot_stage_begin(dir, files, &err);
    if (rc == 0)
        rc = gar_plot_pareto(&arms, dir, files, &err);
    if (rc == 0)
        rc = gar_plot_params(db, dir, files, &err);
    if (rc == 0)
        rc = gar_plot_cdf(db, &arms, arms.arm[pick].trace, dir, files, &err);
    gar_run_key key;
    if (rc == 0) {
        int found = run_id > 0 ? gar_results_run(db, (int64_t)run_id, &key, &err)
                               : gar_plot_pick_prediction_run(db, &arms, arms.arm[pick].trace,
                                                              &key, &err);
        if (found < 0)
            rc = found;
        else if (found == 0 && run_id > 0)
            rc = gar_error_set(&err, GAR_E_INVALID_ARGUMENT, 3, "plot", "--run",
                               "is no successful run of the database");
        else if (found == 1)
            rc = gar_plot_prediction(db, &key, dir, files, &err);
    }
    /* All of the command's files appear together, or none. */
    if (rc == 0)
        rc = gar_plot_stage_commit(files, &err);
    else if (files != NULL)
        gar_plot_stage_abort(files);
    gar_arm_list_free(&arms);
    gar_db_close(db);
    if (rc < 0) {
        gar_plot_files_free(files);
        return gar_cli_refuse(&err);
    }
    print_files(db_path, dir, files);
    gar_plot_files_free(files);
    return GAR_EXIT_OK;
}
