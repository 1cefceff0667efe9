/* experiments/cli/gar.c — the `gar` command: finds the verb and hands it argv. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/bundled.h"
#include "cli/verbs.h"

#ifndef GAR_VERSION
#define GAR_VERSION "unknown"
#endif

static int verb_help_main(int argc, char **argv);

const gar_verb gar_verbs[] = {
    { "auto-goals", "set auto:p99_us=B beside the best fixed arm of a sweep database", gar_verb_auto_goals_main },
    { "calibrate", "measure this host into a host profile for the simulator", gar_verb_calibrate_main },
    { "estimate", "feed a point's deadline estimator samples; print its sleeps", gar_verb_estimate_main },
    { "executor", "resolve an executor kind against this host", gar_verb_executor_main },
    { "fill-demo", "CPU work filling the time waits pend, by an executor kind", gar_verb_fill_demo_main },
    { "gen", "write a synthetic trace from a seed", gar_verb_gen_main },
    { "help", "show this list, or a verb's help", verb_help_main },
    { "import", "turn a Kineto or Nsight Systems profile into a trace", gar_verb_import_main },
    { "merge", "join the databases of a sweep's shards into one", gar_verb_merge_main },
    { "plan", "parse a wait plan or bands and resolve it against this host", gar_verb_plan_main },
    { "plot", "draw a sweep database's results as PNGs with gnuplot", gar_verb_plot_main },
    { "probe", "show what this host offers a wait: word wait, io_uring, clock, timer slack", gar_verb_probe_main },
    { "replay", "replay a trace under one wait policy on a simulated host", gar_verb_replay_main },
    { "report", "write a sweep database's plots and rankings as an HTML page", gar_verb_report_main },
    { "run", "run a program with its GPU waits taken over by a plan; summarise them", gar_verb_run_main },
    { "sweep", "run a sweep spec's every combination into a SQLite database", gar_verb_sweep_main },
    { "verify", "run a trace on a real device and in the simulator; compare", gar_verb_verify_main },
    { NULL, NULL, NULL },
};

static const gar_verb *find_verb(const char *name)
{
    for (const gar_verb *v = gar_verbs; v->name != NULL; v++)
        if (strcmp(v->name, name) == 0)
            return v;
    return NULL;
}

static void print_overview(FILE *out)
{
    fprintf(out,
            "usage: gar VERB [OPTIONS] [ARGS]\n"
            "\n"
            "gar awaits GPU work as a memory descriptor and compares wait policies.\n"
            "Every verb takes --help (-h); `gar --version` (-V) prints gar's version.\n"
            "Output is `key: value` lines; a refusal prints `error N (Name): message`\n"
            "on stderr and exits 2.  An option is given once (a repeat is refused),\n"
            "except --param, --tolerance and --without, which add one setting each\n"
            "(--param and --tolerance: each key once).\n"
            "\n"
            "verbs:\n");
    for (const gar_verb *v = gar_verbs; v->name != NULL; v++)
        fprintf(out, "  %-12s %s\n", v->name, v->summary);
    fprintf(out,
            "\n"
            "exit status:\n"
            "  0   done; findings are output, not failures (auto-goals' goals that fail,\n"
            "      for one)\n"
            "  1   the verb ran and its own check failed: verify's runs disagree with the\n"
            "      simulation, calibrate --check's profile no longer holds, fill-demo saw a\n"
            "      failed wait; or replay ran out of memory for its results\n"
            "  2   refused: a usage error or a bad input (`error N (Name): message` on\n"
            "      stderr); nothing is written\n"
            "\n"
            "environment:\n"
            "  GAR_CUDA_LIBRARY          the CUDA driver library to load (default\n"
            "                            libcuda.so.1)\n"
            "  GAR_HIP_LIBRARY           the HIP runtime library to load (default\n"
            "                            libamdhip64.so)\n"
            "  GAR_IMPORT_RECORD_BUDGET  import: bytes of records held in memory before\n"
            "                            they move to a temporary SQLite database\n"
            "  GAR_IMPORT_ROW_BUDGET     import: bytes of rows held in memory before they\n"
            "                            are sorted on disk\n"
            "  LD_PRELOAD                run: gar run puts libgar-sync.so before what it\n"
            "                            holds, for the program and its children\n"
            "  GAR_PLAN                  run: the plan libgar-sync.so runs each wait by\n"
            "                            (gar run --plan sets it; default auto:p99_us=20)\n"
            "  GAR_RUN_DIR               run: the folder libgar-sync.so writes its logs in\n"
            "                            (gar run sets it)\n"
            "  GAR_SYNC_BASELINE_EVERY   run: leave one wait in N to the real call and time\n"
            "                            it, the spin's cost (default 16)\n"
            "  GAR_SYNC_DISABLE          run: pass every wait to the real call\n"
            "  GAR_SYNC_LIBRARY          run: the interposer gar run preloads\n"
            "  GAR_SWEEP_CRASH_AFTER     sweep: a test hook; the process kills itself\n"
            "                            once it has stored N runs\n"
            "  TMPDIR                    the folder of a trace cache that cannot be\n"
            "                            written beside its trace, and (after\n"
            "                            SQLITE_TMPDIR) of import's spilled records\n"
            "  PATH                      where plot, report and auto-goals find gnuplot\n"
            "\n"
            "files:\n"
            "  data/...                  a name under data/ (data/sweeps/default.sweep,\n"
            "                            replay's default --host data/hosts/dev-vm.host)\n"
            "                            is read from the working directory, else from\n"
            "                            the installed bundled data: ../share/gar beside\n"
            "                            the gar command, then %s\n",
            gar_cli_installed_data_dir);
}

static int verb_help_main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--help") != 0 && strcmp(argv[1], "-h") != 0 &&
        strcmp(argv[1], "help") != 0) {
        const gar_verb *v = find_verb(argv[1]);
        if (v == NULL) {
            char what[256];
            snprintf(what, sizeof what, "no verb '%.100s' (the verbs: 'gar --help')", argv[1]);
            gar_error err;
            gar_error_set(&err, GAR_E_USAGE, 2, "help", what);
            return gar_cli_refuse(&err);
        }
        char help[] = "--help";
        char *verb_argv[] = { argv[1], help, NULL };
        return v->main(2, verb_argv);
    }
    print_overview(stdout);
    return GAR_EXIT_OK;
}

/* A verb's `key: value` lines are its result: if they could not all be
 * written (a full disk behind `> file`), the command failed, whatever the
 * verb said. */
static int finish(int status)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return status;
    if (status == GAR_EXIT_REFUSED)
        return status; /* the verb has said what failed */
    gar_error err;
    gar_error_set(&err, GAR_E_IO, 3, "standard output", "write",
                  errno != 0 ? strerror(errno) : "an earlier write failed");
    return gar_cli_refuse(&err);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return GAR_EXIT_REFUSED;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_overview(stdout);
        return finish(GAR_EXIT_OK);
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("gar %s\n", GAR_VERSION);
        return finish(GAR_EXIT_OK);
    }
    const gar_verb *verb = find_verb(argv[1]);
    if (verb == NULL) {
        char what[256];
        snprintf(what, sizeof what, "unknown verb '%s' (see 'gar --help')", argv[1]);
        gar_error err;
        gar_error_set(&err, GAR_E_USAGE, 2, "gar", what);
        return gar_cli_refuse(&err);
    }
    return finish(verb->main(argc - 1, argv + 1));
}
