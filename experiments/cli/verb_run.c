/* experiments/cli/verb_run.c — `gar run`: a program run with its waits taken
 * over by libgar-sync.so (backends/interpose/), and what they did. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gar/plan.h>

#include "cli/cli_options.h"
#include "cli/verbs.h"
#include "run/run_logs.h"
#include "run/run_record.h"
#include "run/run_summary.h"
#include "sim/trace/atomic_file.h"

#define PLAN_DEFAULT "auto:p99_us=20"

static void print_help(FILE *out)
{
    fprintf(out,
            "usage: gar run [--plan PLAN] [--record FILE] [--report] -- COMMAND [ARG]...\n"
            "\n"
            "Runs COMMAND (and every process it starts) with libgar-sync.so preloaded, which\n"
            "takes over the waits of the CUDA runtime's synchronising calls\n"
            "(cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize and their\n"
            "per-thread default stream variants) and of HIP's (hipStreamSynchronize and\n"
            "_spt, hipEventSynchronize, hipDeviceSynchronize): each becomes a gar wait under\n"
            "PLAN, then the real call, which returns at once and whose result the program\n"
            "gets, so no wait ends before its work and every error is the runtime's own.  A\n"
            "stream wait waits on a mapped line the stream writes (cuStreamWriteValue64,\n"
            "hipStreamWriteValue64) where the device has stream memory operations, and a flag\n"
            "plan parks on it; otherwise, and for events and the device, the plan runs on the\n"
            "runtime's status query (a flag plan as poll).  Graph capture, calls made with\n"
            "an error pending and streams of another context are passed to the real call\n"
            "untouched.  One wait in 16 of each thread is left to the real call to\n"
            "measure what the program's own schedule costs (GAR_SYNC_BASELINE_EVERY=N\n"
            "changes it; 0 never samples).\n"
            "\n"
            "When COMMAND exits, prints on standard error the waits, their overshoot\n"
            "(end of the wait less the work's completion) quantiles with 95 %% intervals,\n"
            "the waiting threads' busy CPU against the real call's measured cost, the waits\n"
            "taken over on the mapped line and by status query (and why not the mapped\n"
            "line), and the waits passed through with their reasons; exits with COMMAND's\n"
            "status (128 + N when signal N ended it).\n"
            "\n"
            "options:\n"
            "  --plan PLAN    the wait plan (default " PLAN_DEFAULT ")\n"
            "  --record FILE  write the waits as a gar trace (with its stream column) to\n"
            "                 FILE, and what each wait did to FILE.outcome, for gar replay\n"
            "                 and gar verify --trace-of-run FILE\n"
            "  --report       add a table of every stream, with its path, to the summary\n"
            "  --help         show this help\n"
            "\n"
            "The library is GAR_SYNC_LIBRARY when set, else the one built or installed\n"
            "with this gar.\n"
            "\n"
            "examples:\n"
            "  gar run --plan auto:p99_us=50 -- python train.py\n"
            "  gar run --record run.csv --report -- ./tests/fake_cudart/example\n");
}

/* The library to preload: the environment's, the build tree's, or the
 * installed one. */
static const char *sync_library(void)
{
    const char *lib = getenv("GAR_SYNC_LIBRARY");
    if (lib && *lib)
        return lib;
    if (access(GAR_SYNC_BUILD_PATH, R_OK) == 0)
        return GAR_SYNC_BUILD_PATH;
    return GAR_SYNC_INSTALL_PATH;
}

/* Runs argv in a child with the run's environment; returns its wait status
 * or -1 (with errno) when it could not be started. */
static int run_child(char **command, const char *plan, const char *dir, const char *lib)
{
    struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    pid_t child = fork();
    if (child == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        const char *old = getenv("LD_PRELOAD");
        char *preload = NULL;
        /* After what is preloaded already: a sanitizer's runtime must stay first. */
        if (old && *old ? asprintf(&preload, "%s:%s", old, lib) < 0
                        : (preload = strdup(lib)) == NULL)
            _exit(127);
        if (setenv("LD_PRELOAD", preload, 1) || setenv("GAR_PLAN", plan, 1) ||
            setenv("GAR_RUN_DIR", dir, 1))
            _exit(127);
        execvp(command[0], command);
        fprintf(stderr, "gar run: cannot run %s: %s\n", command[0], strerror(errno));
        _exit(127);
    }
    int status = -1;
    if (child > 0)
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    return child > 0 ? status : -1;
}

/* Removes the run's folder and the logs in it (only files the library wrote:
 * the folder is the one mkdtemp made for this run). */
static void remove_run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        for (struct dirent *e; (e = readdir(d));) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Whether `path` can be written: a temporary file beside it is made and
 * removed, so a recording that cannot be kept is refused before the run. */
static int check_record_path(const char *path, gar_error *err)
{
    gar_atomic_file f;
    int rc = gar_atomic_file_begin(&f, path, NULL, err);
    gar_atomic_file_end(&f, -1);
    return rc;
}

static int summarise(const char *dir, const char *record, bool report, char **command,
                     gar_error *err)
{
    gar_run_logs logs;
    int rc = gar_run_logs_read(&logs, dir, err);
    if (rc < 0)
        return rc;
    if (gar_run_summary_print(&logs, report, stderr) < 0)
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "the run's summary", "memory");
    if (rc == 0 && record) {
        char comment[1024];
        int n = snprintf(comment, sizeof comment, "recorded by: gar run --plan %s --", logs.plan);
        for (char **a = command; *a && n > 0 && (size_t)n < sizeof comment - 64; a++)
            n += snprintf(comment + n, sizeof comment - (size_t)n, " %s", *a);
        rc = gar_run_record_write(&logs, record, comment, err);
        if (rc == 0)
            fprintf(stderr, "gar run: recorded %zu waits to %s (outcomes in %s.outcome)\n",
                    logs.count, record, record);
    }
    gar_run_logs_free(&logs);
    return rc;
}

int gar_verb_run_main(int argc, char **argv)
{
    int dashes = 1;
    while (dashes < argc && strcmp(argv[dashes], "--") != 0)
        dashes++;
    const char *plan_text = PLAN_DEFAULT, *record = NULL;
    bool report = false;
    const gar_cli_option options[] = {
        { .name = "plan", .takes = GAR_CLI_TEXT, .to = &plan_text },
        { .name = "record", .takes = GAR_CLI_TEXT, .to = &record },
        { .name = "report", .takes = GAR_CLI_FLAG, .to = &report },
        { .name = "help", .takes = GAR_CLI_HELP },
        { .name = NULL },
    };
    int rc = gar_cli_options("run", dashes, argv, options, print_help);
    if (rc != GAR_CLI_OPTIONS_DONE)
        return rc;
    if (optind != dashes)
        return gar_cli_usage_error("run", "give the program after --: gar run [OPTIONS] -- COMMAND");
    if (dashes + 1 >= argc)
        return gar_cli_usage_error("run", "give the COMMAND to run after --");
    gar_error err = { 0 };
    gar_plan plan;
    if (gar_plan_parse(plan_text, &plan, &err) < 0)
        return gar_cli_refuse(&err);
    if (record && strcmp(record, "-") == 0)
        return gar_cli_usage_error("run", "--record needs a FILE (standard output is the program's)");
    if (record && check_record_path(record, &err) < 0)
        return gar_cli_refuse(&err);
    const char *lib = sync_library();
    if (access(lib, R_OK) != 0) {
        gar_error_set(&err, GAR_E_IO, 3, lib, "find the interposer library", strerror(errno));
        return gar_cli_refuse(&err);
    }
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/gar-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        gar_error_set(&err, GAR_E_IO, 3, dir, "create a folder", strerror(errno));
        return gar_cli_refuse(&err);
    }
    fflush(NULL);
    int status = run_child(argv + dashes + 1, plan_text, dir, lib);
    if (status < 0) {
        gar_error_set(&err, GAR_E_IO, 3, argv[dashes + 1], "start", strerror(errno));
        remove_run_dir(dir);
        return gar_cli_refuse(&err);
    }
    rc = summarise(dir, record, report, argv + dashes + 1, &err);
    remove_run_dir(dir);
    if (rc < 0)
        return gar_cli_refuse(&err);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : GAR_EXIT_FAILED;
}
