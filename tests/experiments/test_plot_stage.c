/* tests/experiments/test_plot_stage.c — a command's output, all or nothing:
 * files staged inside the output folder appear in it only on commit; an
 * abort leaves the folder as it was (and no folder when it made it). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/trace/leftover.h"
#include "report/plot.h"

static char root[64];

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/gar-stage-test-XXXXXX");
    return mkdtemp(root) != NULL ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The names in `dir`, sorted, joined by spaces ("" when empty). */
static void names(const char *dir, char *out, size_t size)
{
    char *list[32];
    size_t n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 32)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            list[n++] = strdup(e->d_name);
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(list[j - 1], list[j]) > 0; j--) {
            char *t = list[j];
            list[j] = list[j - 1];
            list[j - 1] = t;
        }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        strncat(out, list[i], size - strlen(out) - 2);
        if (i + 1 < n)
            strcat(out, " ");
        free(list[i]);
    }
}

static void committed_files_appear_together_and_replace_older_ones(void **state)
{
    (void)state;
    char dir[128], seen[512];
    snprintf(dir, sizeof dir, "%s/out", root);
    assert_int_equal(mkdir(dir, 0777), 0);
    put(dir, "a.png", "old");
    put(dir, "keep", "old");
    gar_plot_files *files = calloc(1, sizeof *files);
    assert_non_null(files);
    assert_int_equal(gar_plot_stage_begin(dir, files, NULL), 0);
    const char *stage = gar_plot_out_dir(files, dir);
    assert_string_not_equal(stage, dir);
    assert_int_equal(strncmp(stage, dir, strlen(dir)), 0); /* inside: renames stay on one disk */
    put(stage, "a.png", "new");
    put(stage, "a.gp", "new");
    names(dir, seen, sizeof seen);
    assert_true(strncmp(seen, ".gar-stage-", 11) == 0); /* nothing visible yet */
    assert_non_null(strstr(seen, " a.png keep"));
    assert_int_equal(gar_plot_stage_commit(files, NULL), 0);
    names(dir, seen, sizeof seen);
    assert_string_equal(seen, "a.gp a.png keep");
    char path[256], text[16] = "";
    snprintf(path, sizeof path, "%s/a.png", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof text, f));
    fclose(f);
    assert_string_equal(text, "new");
    assert_string_equal(gar_plot_out_dir(files, dir), dir); /* staging is over */
    gar_plot_files_free(files);
}

static void an_abort_leaves_the_folder_as_it_was(void **state)
{
    (void)state;
    char dir[128], seen[512];
    snprintf(dir, sizeof dir, "%s/used", root);
    assert_int_equal(mkdir(dir, 0777), 0);
    put(dir, "keep", "old");
    gar_plot_files *files = calloc(1, sizeof *files);
    assert_non_null(files);
    assert_int_equal(gar_plot_stage_begin(dir, files, NULL), 0);
    put(gar_plot_out_dir(files, dir), "pareto.dat", "# header only");
    gar_plot_stage_abort(files);
    names(dir, seen, sizeof seen);
    assert_string_equal(seen, "keep");

    /* A folder the command made goes too. */
    char fresh[128];
    snprintf(fresh, sizeof fresh, "%s/fresh", root);
    memset(files, 0, sizeof *files);
    assert_int_equal(gar_plot_stage_begin(fresh, files, NULL), 0);
    put(gar_plot_out_dir(files, fresh), "x.png", "cut");
    gar_plot_stage_abort(files);
    struct stat st;
    assert_int_equal(stat(fresh, &st), -1);
    gar_plot_files_free(files);
}

static void an_output_path_that_is_a_file_is_refused(void **state)
{
    (void)state;
    char file[128];
    snprintf(file, sizeof file, "%s/plain", root);
    put(root, "plain", "x");
    gar_plot_files *files = calloc(1, sizeof *files);
    assert_non_null(files);
    gar_error err;
    assert_int_equal(gar_plot_stage_begin(file, files, &err), -GAR_E_IO);
    gar_plot_files_free(files);
}

/* A database of one trace, one host and two plans, two seeds each. */
static gar_db *small_database(const char *path)
{
    gar_db *s = NULL;
    assert_int_equal(gar_db_open(path, true, &s, NULL), 0);
    assert_int_equal(sqlite3_exec(gar_db_sqlite(s),
                                  "INSERT INTO traces VALUES ('00000000000000aa','t.csv','/t.csv',10);"
                                  "INSERT INTO hosts VALUES ('00000000000000bb','h.host','/h','x')",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    m.waits = 10;
    m.overshoot_ns.p99 = 1000;
    m.busy_ns = 5;
    m.wait_ns = 10;
    m.busy_frac = 0.5;
    const char *plans[] = { "block", "poll" };
    for (int p = 0; p < 2; p++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            gar_db_run r = { .trace = "00000000000000aa", .trace_name = "t.csv",
                             .plan = plans[p], .estimator = "-",
                             .host = "00000000000000bb", .host_name = "h.host",
                             .mode = "open", .seed = seed, .metrics = &m };
            assert_int_equal(gar_db_insert(s, &r, NULL), 1);
        }
    return s;
}

/* A disk that fills up under the data file: the write fails (EFBIG, with
 * SIGXFSZ ignored as a full disk's ENOSPC would), the plot is refused with
 * the system's reason, and nothing is left — no empty .dat. */
static void a_failing_write_leaves_nothing(void **state)
{
    (void)state;
    if (gar_plot_check_gnuplot(NULL) < 0)
        skip(); /* the plot refuses earlier without gnuplot */
    char db_path[128], dir[128];
    snprintf(db_path, sizeof db_path, "%s/s.db", root);
    snprintf(dir, sizeof dir, "%s/plots", root);
    gar_db *db = small_database(db_path); /* its files exist before the limit */
    gar_arm_list arms;
    assert_int_equal(gar_results_arms(db, &arms, NULL), 0);
    assert_int_equal(arms.count, 2);
    gar_plot_files *files = calloc(1, sizeof *files);
    assert_non_null(files);
    assert_int_equal(gar_plot_stage_begin(dir, files, NULL), 0);

    struct rlimit was, small = { 100, 0 };
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    small.rlim_max = was.rlim_max;
    void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    gar_error err;
    int rc = gar_plot_pareto(&arms, dir, files, &err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, old);

    assert_int_equal(rc, -GAR_E_IO);
    char text[512];
    gar_error_message(&err, text, sizeof text);
    assert_non_null(strstr(text, "pareto-h-open.dat"));
    assert_non_null(strstr(text, "File too large"));
    gar_plot_stage_abort(files);
    struct stat st;
    assert_int_equal(stat(dir, &st), -1); /* the folder it made is gone too */
    gar_plot_files_free(files);
    gar_arm_list_free(&arms);
    gar_db_close(db);
}

/* Runs gar_plot_stage_begin into `dir` in a child, which writes a file
 * into its staging folder and then is killed (`hold` false: it ends at
 * once, cleaning nothing) or keeps running until `*release` is closed.
 * The child's staging folder's path goes into `stage`. */
static pid_t other_run(const char *dir, bool hold, int *release, char *stage, size_t size)
{
    int ready[2], wait_on[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(wait_on), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        close(wait_on[1]);
        gar_plot_files *files = calloc(1, sizeof *files);
        if (files == NULL || gar_plot_stage_begin(dir, files, NULL) != 0)
            _exit(1);
        put(gar_plot_out_dir(files, dir), "report.html", "half");
        const char *at = gar_plot_out_dir(files, dir);
        if (write(ready[1], at, strlen(at) + 1) < 0)
            _exit(1);
        char c;
        if (hold && read(wait_on[0], &c, 1) < 0)
            _exit(1);
        _exit(0); /* as a kill would: nothing cleaned up */
    }
    close(ready[1]);
    close(wait_on[0]);
    ssize_t n = read(ready[0], stage, size - 1);
    assert_true(n > 0);
    stage[n] = '\0';
    close(ready[0]);
    if (!hold) {
        assert_int_equal(waitpid(pid, NULL, 0), pid);
        close(wait_on[1]);
    } else {
        *release = wait_on[1];
    }
    return pid;
}

/* A staging folder's marker is locked while its run lasts.  One a killed
 * run left is removed by the next run into the folder, with its files.
 * One whose run still works is kept even when its name gives a PID no
 * process has here (a run in another PID namespace, as a container's),
 * and a user's folder named like a staging folder but without gar's
 * marker is never entered. */
static void a_killed_runs_staging_folder_goes_and_a_live_ones_stays(void **state)
{
    (void)state;
    char dir[128], dead[512], live[512], foreign[600], user[512], seen[1024];
    char owner[GAR_LEFTOVER_OWNER_BYTES];
    snprintf(dir, sizeof dir, "%s/out", root);
    assert_int_equal(mkdir(dir, 0777), 0);
    gar_leftover_owner(owner);
    const char *host = strchr(owner, '-') + 1;
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    assert_int_equal(waitpid(gone, NULL, 0), gone);

    other_run(dir, false, NULL, dead, sizeof dead);
    int release = -1;
    pid_t running = other_run(dir, true, &release, live, sizeof live);
    /* The live run as another PID namespace's would name it. */
    snprintf(foreign, sizeof foreign, "%s/.gar-stage-%ld-%s-Lv0000", dir, (long)gone, host);
    assert_int_equal(rename(live, foreign), 0);
    snprintf(user, sizeof user, "%s/.gar-stage-%ld-%s-Ab3xYz", dir, (long)gone, host);
    assert_int_equal(mkdir(user, 0777), 0);
    put(user, "thesis.tex", "years of work");

    gar_plot_files *files = calloc(1, sizeof *files);
    assert_non_null(files);
    assert_int_equal(gar_plot_stage_begin(dir, files, NULL), 0);
    struct stat st;
    assert_int_equal(stat(dead, &st), -1);
    char inside[700];
    snprintf(inside, sizeof inside, "%s/report.html", foreign);
    assert_int_equal(stat(inside, &st), 0);
    snprintf(inside, sizeof inside, "%s/thesis.tex", user);
    assert_int_equal(stat(inside, &st), 0);
    char mine[64];
    snprintf(mine, sizeof mine, ".gar-stage-%ld-", (long)getpid());
    assert_non_null(strstr(gar_plot_out_dir(files, dir), mine));
    put(gar_plot_out_dir(files, dir), "a.dat", "1");
    assert_int_equal(gar_plot_stage_commit(files, NULL), 0);
    names(dir, seen, sizeof seen);
    char want[1024];
    snprintf(want, sizeof want, "%s %s a.dat", strrchr(user, '/') + 1,
             strrchr(foreign, '/') + 1);
    assert_string_equal(seen, want);

    /* Once that run is killed too, its folder goes; the user's stays. */
    close(release);
    assert_int_equal(waitpid(running, NULL, 0), running);
    assert_int_equal(gar_plot_stage_begin(dir, files, NULL), 0);
    gar_plot_stage_abort(files);
    assert_int_equal(stat(foreign, &st), -1);
    assert_int_equal(stat(inside, &st), 0);
    gar_plot_files_free(files);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(committed_files_appear_together_and_replace_older_ones,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(an_abort_leaves_the_folder_as_it_was, setup, teardown),
        cmocka_unit_test_setup_teardown(a_killed_runs_staging_folder_goes_and_a_live_ones_stays,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(an_output_path_that_is_a_file_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_failing_write_leaves_nothing, setup, teardown),
    };
    return cmocka_run_group_tests_name("plot_stage", tests, NULL, NULL);
}
