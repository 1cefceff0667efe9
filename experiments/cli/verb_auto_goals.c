/* experiments/cli/verb_auto_goals.c — `gar auto-goals --db FILE`: auto
 * beside the ex-post best fixed arm in each trace x host x budget of a sweep
 * database, and whether the goals are met (experiments/sweep/auto_goals.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/database_folder.h"
#include "cli/verbs.h"
#include "report/plot.h"
#include "sweep/auto_goals.h"
#include "sweep/db.h"
#include "sweep/results.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gar auto-goals --db FILE [--out DIR]\n"
            "\n"
            "Sets each auto:p99_us=B arm of the sweep database FILE beside the ex-post\n"
            "best fixed arm of its trace and host: the arm of least busy CPU among the\n"
            "fixed plans (any plan but auto, under any estimator but oracle, which reads\n"
            "the future) that meet B.  One rule for every arm, auto and fixed: an arm\n"
            "meets B when every seed's run succeeded and the mean p99 overshoot over its\n"
            "seeds is at most B.  An arm with a failed seed meets no budget and is never\n"
            "the best (its cells say failed).  Prints the rule, one line per trace x host\n"
            "x budget (auto's p99 95 %% interval, the widest over its seeds, in a column\n"
            "of its own, and could_meet: yes where auto is over B but B is at or above\n"
            "that interval's lower end, which is never counted as met), then the goals,\n"
            "each pass or fail:\n"
            "  goal_budget_met          auto meets B wherever some fixed arm does\n"
            "  goal_cpu_within_1.25x    auto's busy CPU is within 1.25 x the best's in\n"
            "                           at least 80 %% of those cells\n"
            "  goal_beats_single_plan   auto's busy CPU, summed over the cells where both\n"
            "                           meet B, is below that of the one fixed arm that\n"
            "                           meets B in the most cells\n"
            "With --out, also draws one plot per host into DIR (created if missing),\n"
            "auto-HOST-MODE.png beside its gnuplot script and data: busy CPU against the\n"
            "budget for auto, the ex-post best fixed arm, poll and block, a panel per\n"
            "trace (never a mean over traces); and DIR/auto-goals.html, which says per\n"
            "trace and host what budget auto meets at what CPU beside the best fixed arm,\n"
            "with the plots; all of them or none (needs gnuplot).\n"
            "Exits 0 whether or not the goals pass (they are findings, not errors); a\n"
            "database without an auto arm is refused.\n"
            "\n"
            "options:\n"
            "  --db FILE    the sweep database (required; only read, never changed:\n"
            "               a schema version 3 or 4 file is read as it is)\n"
            "  --out DIR    draw the plots into DIR\n"
            "  --help       this text\n"
            "\n"
            "example:\n"
            "  gar sweep data/sweeps/auto.sweep --db auto.db --jobs 2\n"
            "  gar auto-goals --db auto.db\n");
}

/* DIR/auto-goals.html: the section that answers what budget auto meets
 * and at what CPU, then the plots.  Returns 0 or -GAR_E_IO. */
static int write_page(const gar_auto_goals *goals, const gar_plot_files *files, const char *dir,
                      gar_error *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/auto-goals.html", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "write", strerror(errno));
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>auto against the "
          "fixed plans</title><style>td{white-space:nowrap}</style></head><body>\n", f);
    int rc = gar_auto_goals_html(f, goals, path, err);
    for (size_t i = 0; i < files->count; i++)
        fprintf(f, "<figure><img src=\"%s\" alt=\"%s\"><figcaption>%s</figcaption></figure>\n",
                files->file[i].png, files->file[i].png, files->file[i].caption);
    fputs("</body></html>\n", f);
    errno = 0;
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad)
        return rc < 0 ? rc : gar_error_set(err, GAR_E_IO, 3, path, "write", strerror(errno));
    return rc;
}

int gar_verb_auto_goals_main(int argc, char **argv)
{
    const char *db_path = NULL, *dir = NULL;
    const gar_cli_option options[] = {
        { .name = "db", .takes = GAR_CLI_TEXT, .to = &db_path },
        { .name = "out", .takes = GAR_CLI_TEXT, .to = &dir },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options("auto-goals", argc, argv, options, usage);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    if (optind != argc)
        return gar_cli_usage_error("auto-goals", "takes no arguments besides the options");
    if (db_path == NULL)
        return gar_cli_usage_error("auto-goals", "--db FILE is required");

    gar_error err;
    if (dir != NULL && gar_plot_check_gnuplot(&err) < 0)
        return gar_cli_refuse(&err);
    gar_db *db = NULL;
    if (gar_db_open_read(db_path, &db, &err) < 0) /* read, never changed */
        return gar_refuse_database(db_path, &err);
    gar_arm_list arms = { NULL, 0 };
    gar_auto_goals goals;
    int rc = gar_results_check_rows(db, &err);
    if (rc == 0)
        rc = gar_results_arms(db, &arms, &err);
    if (rc == 0 && arms.count == 0)
        rc = gar_error_set(&err, GAR_E_EMPTY_DATABASE, 2, "auto-goals", db_path);
    if (rc == 0)
        rc = gar_auto_goals_compute(&arms, &goals, &err);
    if (rc == 0 && goals.cells == 0) {
        gar_auto_goals_free(&goals);
        rc = gar_error_set(&err, GAR_E_INVALID_ARGUMENT, 3, "auto-goals", db_path,
                           "holds no auto:p99_us=B arm (data/sweeps/auto.sweep has them)");
    }
    gar_plot_files *files = NULL;
    if (rc == 0 && dir != NULL) {
        files = calloc(1, sizeof *files);
        rc = files == NULL ? gar_error_set(&err, GAR_E_CAPACITY, 2, "memory", "exhausted")
                           : gar_plot_stage_begin(dir, files, &err);
        if (rc == 0)
            rc = gar_plot_auto_budgets(&goals, dir, files, &err);
        if (rc == 0)
            rc = write_page(&goals, files, gar_plot_out_dir(files, dir), &err);
        /* All of the plots appear together, or none. */
        if (rc == 0)
            rc = gar_plot_stage_commit(files, &err);
        else if (files != NULL)
            gar_plot_stage_abort(files);
        if (rc < 0)
            gar_auto_goals_free(&goals);
    }
    if (rc < 0) {
        gar_plot_files_free(files);
        gar_arm_list_free(&arms);
        gar_db_close(db);
        return gar_cli_refuse(&err);
    }
    printf("db: %s\n", db_path);
    for (size_t i = 0; files != NULL && i < files->count; i++)
        printf("png: %s/%s\n", dir, files->file[i].png);
    gar_plot_files_free(files);
    gar_auto_goals_print(stdout, &goals);
    gar_auto_goals_free(&goals);
    gar_arm_list_free(&arms);
    gar_db_close(db);
    return GAR_EXIT_OK;
}
