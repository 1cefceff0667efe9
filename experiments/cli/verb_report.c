/* experiments/cli/verb_report.c — `gar report --db FILE --out DIR`: report.html
 * with the plots and a ranking per trace. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_options.h"
#include "cli/database_folder.h"
#include "cli/verbs.h"
#include "report/report.h"
#include "report/report_notes.h"
#include "sweep/auto_goals.h"
#include "sweep/db.h"
#include "sweep/results.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gar report --db FILE --out DIR [--rule RULE] [--notes] [--auto-db FILE]\n"
            "       gar report --db FILE --notes\n"
            "\n"
            "Writes DIR/report.html (created with DIR if missing): a self-contained page\n"
            "with the plots of 'gar plot' (every pareto plot, each trace's overshoot CDFs\n"
            "and one prediction plot per trace, as PNGs beside it) and, per trace, host\n"
            "and mode, a table ranking the arms by RULE (below); the winner is set\n"
            "against poll (CPU saved) and block (latency saved).  Each figure is a mean\n"
            "over seeds, shown with the seeds' spread and each quantile's 95 %% interval\n"
            "(where the runs stored it); arms whose intervals overlap cannot be told\n"
            "apart and are reported as tied, the winner among them named a tied winner\n"
            "with what broke the tie (the other figure, then the earlier plan).  Each\n"
            "arm's notes (diagnostics of its runs, failed seeds) are flagged beside it.\n"
            "For each swept numeric parameter it also draws p99 overshoot and busy CPU\n"
            "against the parameter (param-NAME-HOST-MODE.png).  An arm with any failed\n"
            "run is shown as failed, with its count of failed seeds, and not ranked.\n"
            "The page names the builds of gar that made the rows, and warns when they\n"
            "are mixed.  Prints one 'rule:' line, one 'winner:' line per group (and a\n"
            "'warning: mixed builds' line when mixed); each winner line ends with the\n"
            "waits of a run and the verdict, 'clear' or 'tied: N within noise, REASON';\n"
            "an auto:p99_us=B winner whose p99 is above B is 'over its own budget (...)'\n"
            "instead of clear (every auto arm over B is flagged beside its p99), and where\n"
            "no arm's p99 has an upper bound (fewer than 368 waits at 95 %%) the group is\n"
            "ranked by the highest quantile its waits bound (p90 from 36 waits, p50 from\n"
            "6) in place of p99, the verdict ending '; ranked by p90: ...'.\n"
            "All or nothing: every file is made in a staging folder inside DIR and moved\n"
            "into DIR only when all are complete, so a refusal or a full disk leaves DIR\n"
            "as it was.  FILE (and --auto-db's) is only read, never changed (a schema\n"
            "version 3 or 4 file is read as it is, not converted), so a read-only file\n"
            "or folder will do.  A database made by an older gar shows its stored\n"
            "figures, and says what it lacks ('lacking:' lines, and on the page): what\n"
            "its schema version predates, and the per-wait plots of runs whose replay\n"
            "this gar no longer reproduces.\n"
            "Needs gnuplot with the pngcairo terminal on PATH.\n"
            "\n"
            "options:\n"
            "  --db FILE   the sweep database (required)\n"
            "  --out DIR   the output folder (required unless --notes is given)\n"
            "  --auto-db FILE  an auto sweep's database (data/sweeps/auto.sweep): the page\n"
            "              opens with what budget auto:p99_us=B meets per trace and host,\n"
            "              at what CPU beside the best fixed arm, the goals (gar\n"
            "              auto-goals) and a plot per host of busy CPU against the budget\n"
            "  --notes     list every note of every run, one 'note:' line each:\n"
            "              TRACE | HOST | MODE | ARM | seed S | NAME | N waits[, worst W ns]\n"
            "              | MESSAGE; then 'notes: COUNT' (no files without --out), and\n"
            "              'notes_stored: no' for a schema version 3 file, made before\n"
            "              gar stored notes ('not for N of M ok runs' where only some were)\n"
            "  --rule RULE how the winner is picked, on means over seeds, the oracle (a\n"
            "              bound) never ranked:\n"
            "                busy-within[:pct=P][,us=U]  the lowest busy CPU among the arms\n"
            "                    whose p99 overshoot is at most best + max(P %% of best,\n"
            "                    U us); the default, busy-within:pct=10,us=2\n"
            "                p99   the lowest p99 overshoot (ties: lower busy CPU)\n"
            "                busy  the lowest busy CPU (ties: lower p99 overshoot)\n"
            "  --help      this text\n"
            "\n"
            "example:\n"
            "  gar report --db results/sweep.db --out results\n"
            "  gar report --db results/sweep.db --notes | grep rarely_slept\n");
}

int gar_verb_report_main(int argc, char **argv)
{
    const char *db_path = NULL, *dir = NULL, *rule_text = NULL, *auto_path = NULL;
    bool list_notes = false;
    const gar_cli_option options[] = {
        { .name = "rule", .takes = GAR_CLI_TEXT, .to = &rule_text },
        { .name = "db", .takes = GAR_CLI_TEXT, .to = &db_path },
        { .name = "out", .takes = GAR_CLI_TEXT, .to = &dir },
        { .name = "auto-db", .takes = GAR_CLI_TEXT, .to = &auto_path },
        { .name = "notes", .takes = GAR_CLI_FLAG, .to = &list_notes },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int parsed = gar_cli_options("report", argc, argv, options, usage);
    if (parsed != GAR_CLI_OPTIONS_DONE)
        return parsed;
    if (optind != argc)
        return gar_cli_usage_error("report", "takes no arguments besides the options");
    if (db_path == NULL || (dir == NULL && !list_notes))
        return gar_cli_usage_error("report", "--db FILE and --out DIR (or --notes) are required");
    if (dir != NULL)
        dir = gar_cli_folder((char *)dir); /* argv's own text, writable: "plots/" prints once-slashed */
    gar_error err;
    gar_report_rule rule = gar_report_rule_default();
    if (rule_text != NULL && gar_report_rule_parse(rule_text, &rule, &err) < 0)
        return gar_cli_refuse(&err);
    gar_db *db = NULL;
    if (gar_db_open_read(db_path, &db, &err) < 0)
        return gar_refuse_database(db_path, &err);
    /* A refused report prints nothing but its error: the summary waits. */
    char *summary = NULL;
    size_t summary_len = 0;
    FILE *held = open_memstream(&summary, &summary_len);
    int rc = held != NULL ? 0
                          : gar_error_set(&err, GAR_E_CAPACITY, 2, "memory for the report",
                                          "exhausted");
    /* An auto sweep's database: its goals open the report. */
    gar_db *auto_db = NULL;
    gar_arm_list auto_arms = { NULL, 0 };
    gar_auto_goals goals;
    memset(&goals, 0, sizeof goals);
    if (rc == 0 && auto_path != NULL) {
        if (gar_db_open_read(auto_path, &auto_db, &err) < 0) { /* read, never changed */
            gar_db_close(db);
            if (held != NULL)
                fclose(held);
            free(summary);
            return gar_refuse_database(auto_path, &err);
        }
        rc = gar_results_check_rows(auto_db, &err);
        if (rc == 0)
            rc = gar_results_arms(auto_db, &auto_arms, &err);
        if (rc == 0 && auto_arms.count == 0)
            rc = gar_error_set(&err, GAR_E_EMPTY_DATABASE, 2, "report", auto_path);
        if (rc == 0)
            rc = gar_auto_goals_compute(&auto_arms, &goals, &err);
        if (rc == 0 && goals.cells == 0)
            rc = gar_error_set(&err, GAR_E_INVALID_ARGUMENT, 3, "report", auto_path,
                               "holds no auto:p99_us=B arm (data/sweeps/auto.sweep has them)");
    }
    if (rc == 0 && dir != NULL)
        rc = gar_report_write(db, dir, &rule, auto_path != NULL ? &goals : NULL, held, &err);
    gar_auto_goals_free(&goals);
    gar_arm_list_free(&auto_arms);
    gar_db_close(auto_db);
    if (rc == 0 && list_notes)
        rc = gar_report_list_notes(db, held, &err);
    gar_db_close(db);
    if (held != NULL)
        fclose(held);
    if (rc < 0) {
        free(summary);
        return gar_cli_refuse(&err);
    }
    printf("db: %s\n", db_path);
    fwrite(summary, 1, summary_len, stdout);
    free(summary);
    if (dir != NULL)
        printf("report: %s/report.html\n", dir);
    return GAR_EXIT_OK;
}
