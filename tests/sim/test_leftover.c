/* tests/sim/test_leftover.c — a killed run's temporaries go, and nothing
 * else: ownership is the owner's lock, never its PID (a live owner whose
 * PID looks dead, as one in another PID namespace does, keeps its file and
 * its staging folder); a folder is entered only with gar's marker in it;
 * a file without gar's owner tag goes only when it begins as gar's files
 * do; and a killed trace writer's `FILE.tmp.XXXXXX` is removed by the next
 * writer of FILE. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/trace/atomic_file.h"
#include "sim/trace/leftover.h"
#include "sim/trace/trace.h"

typedef struct world {
    char dir[64];
    char host[GAR_LEFTOVER_OWNER_BYTES];
    long dead; /* a process id no process has now */
} world;

static int setup(void **state)
{
    static world w;
    snprintf(w.dir, sizeof w.dir, "/tmp/gar-leftover-XXXXXX");
    if (mkdtemp(w.dir) == NULL)
        return -1;
    char owner[GAR_LEFTOVER_OWNER_BYTES];
    gar_leftover_owner(owner);
    snprintf(w.host, sizeof w.host, "%s", strchr(owner, '-') + 1);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    if (child < 0 || waitpid(child, NULL, 0) != child)
        return -1;
    w.dead = child; /* ended and reaped */
    *state = &w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", w->dir);
    return system(command) == 0 ? 0 : -1;
}

static void path_of(const world *w, const char *name, char *out, size_t size)
{
    int n = snprintf(out, size, "%s/%s", w->dir, name);
    assert_true(n > 0 && (size_t)n < size);
}

static void make_file(const world *w, const char *name, const char *text)
{
    char path[512];
    path_of(w, name, path, sizeof path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool exists(const world *w, const char *name)
{
    char path[512];
    path_of(w, name, path, sizeof path);
    struct stat st;
    return lstat(path, &st) == 0;
}

/* A run elsewhere: a child that does `act` in the folder, then holds what
 * it made (its locks) until `release` ends it, or ends at once (killed)
 * when `hold` is false. */
typedef struct other_run {
    pid_t pid;
    int pipe_to[2];
} other_run;

typedef void (*act_fn)(const world *w, const char *name);

static other_run start_run(const world *w, act_fn act, const char *name, bool hold)
{
    other_run r;
    int ready[2];
    assert_int_equal(pipe(r.pipe_to), 0);
    assert_int_equal(pipe(ready), 0);
    r.pid = fork();
    assert_true(r.pid >= 0);
    if (r.pid == 0) {
        close(r.pipe_to[1]);
        close(ready[0]);
        act(w, name);
        char c = 1;
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        if (hold && read(r.pipe_to[0], &c, 1) < 0) /* a byte, or the end */
            _exit(1);
        _exit(0); /* as a kill would: nothing cleaned up */
    }
    close(r.pipe_to[0]);
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    if (!hold) {
        assert_int_equal(waitpid(r.pid, NULL, 0), r.pid);
        r.pid = -1;
    }
    return r;
}

static void end_run(other_run *r)
{
    char c = 1;
    if (r->pid > 0)
        assert_int_equal(write(r->pipe_to[1], &c, 1), 1); /* a later child shares the pipe */
    close(r->pipe_to[1]);
    if (r->pid > 0)
        assert_int_equal(waitpid(r->pid, NULL, 0), r->pid);
}

/* Creates `name` (its last six bytes mkstemp's) and claims it, as a
 * writer does. */
static void write_claimed(const world *w, const char *name)
{
    char path[512];
    path_of(w, name, path, sizeof path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 || gar_leftover_claim_file(fd) < 0 || write(fd, "half", 4) != 4)
        _exit(1);
}

/* Makes a staging folder from `name` (ending XXXXXX) with a file in it. */
static void stage_folder(const world *w, const char *name)
{
    char path[512];
    path_of(w, name, path, sizeof path);
    if (gar_leftover_make_folder(path) < 0)
        _exit(1);
    strcat(path, "/report.html");
    FILE *f = fopen(path, "w");
    if (f == NULL)
        _exit(1);
    fclose(f);
}

/* The one folder in w->dir whose name begins with `prefix`, into out. */
static bool find(const world *w, const char *prefix, char *out, size_t size)
{
    DIR *d = opendir(w->dir);
    assert_non_null(d);
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            snprintf(out, size, "%s", e->d_name);
            found = true;
        }
    closedir(d);
    return found;
}

static void the_owner_is_this_process_on_this_machine(void **state)
{
    (void)state;
    char owner[GAR_LEFTOVER_OWNER_BYTES], pid[32];
    gar_leftover_owner(owner);
    snprintf(pid, sizeof pid, "%ld-", (long)getpid());
    assert_memory_equal(owner, pid, strlen(pid));
    assert_true(strlen(owner) > strlen(pid));
    assert_null(strchr(owner, '/'));
}

/* A run whose name gives a PID no process has here (it runs in another
 * PID namespace) holds its lock: its file, SQLite's beside it and its
 * staging folder stay.  Killed, its lock is gone and they go. */
static void a_live_owner_is_kept_whatever_its_pid(void **state)
{
    world *w = *state;
    char file[256], wal[300], folder[256];
    snprintf(file, sizeof file, "out.db.merge-%ld-%s-Ab3xYz", w->dead, w->host);
    snprintf(wal, sizeof wal, "%s-wal", file);
    snprintf(folder, sizeof folder, ".gar-stage-%ld-%s-XXXXXX", w->dead, w->host);
    other_run writer = start_run(w, write_claimed, file, true);
    other_run plot = start_run(w, stage_folder, folder, true);
    make_file(w, wal, "log");
    char staged[256];
    assert_true(find(w, ".gar-stage-", staged, sizeof staged));
    const char *tails[] = { "-wal", "-shm", NULL };

    assert_int_equal(gar_leftover_clean(w->dir, "out.db.merge-", tails), 0);
    assert_int_equal(gar_leftover_clean_folders(w->dir, ".gar-stage-"), 0);
    assert_true(exists(w, file));
    assert_true(exists(w, wal));
    char inside[512];
    snprintf(inside, sizeof inside, "%s/report.html", staged);
    assert_true(exists(w, inside));

    end_run(&writer); /* killed: the kernel drops their locks */
    end_run(&plot);
    assert_int_equal(gar_leftover_clean(w->dir, "out.db.merge-", tails), 1);
    assert_int_equal(gar_leftover_clean_folders(w->dir, ".gar-stage-"), 1);
    assert_false(exists(w, file));
    assert_false(exists(w, wal));
    assert_false(exists(w, staged));
}

/* Folders named as staging folders are but without gar's marker (a
 * user's), or with a file of that name that is not gar's marker, are
 * never entered; a killed run's is, and only its plain files go. */
static void a_folder_without_the_marker_is_never_emptied(void **state)
{
    world *w = *state;
    char user[256], fake[256], inner[512], marker[512];
    snprintf(user, sizeof user, ".gar-stage-%ld-%s-Ab3xYz", w->dead, w->host);
    snprintf(fake, sizeof fake, ".gar-stage-%ld-%s-Cd4wVu", w->dead, w->host);
    char path[512];
    path_of(w, user, path, sizeof path);
    assert_int_equal(mkdir(path, 0777), 0);
    path_of(w, fake, path, sizeof path);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(inner, sizeof inner, "%s/thesis.tex", user);
    make_file(w, inner, "years of work");
    snprintf(inner, sizeof inner, "%s/notes.txt", fake);
    make_file(w, inner, "mine");
    snprintf(marker, sizeof marker, "%s/%s", fake, GAR_LEFTOVER_MARKER);
    make_file(w, marker, "not gar's text\n");

    assert_int_equal(gar_leftover_clean_folders(w->dir, ".gar-stage-"), 0);
    snprintf(inner, sizeof inner, "%s/thesis.tex", user);
    assert_true(exists(w, inner));
    snprintf(inner, sizeof inner, "%s/notes.txt", fake);
    assert_true(exists(w, inner));
    assert_true(exists(w, marker));

    /* A killed run's folder with a folder inside: its files go, the
     * folder inside and so the folder itself stay. */
    char killed[256];
    snprintf(killed, sizeof killed, ".gar-stage-x-XXXXXX");
    start_run(w, stage_folder, killed, false);
    assert_true(find(w, ".gar-stage-x-", killed, sizeof killed));
    snprintf(inner, sizeof inner, "%s/%s/sub", w->dir, killed);
    assert_int_equal(mkdir(inner, 0777), 0);
    assert_int_equal(gar_leftover_clean_folders(w->dir, ".gar-stage-"), 0);
    snprintf(inner, sizeof inner, "%s/report.html", killed);
    assert_false(exists(w, inner));
    snprintf(inner, sizeof inner, "%s/sub", killed);
    assert_true(exists(w, inner));
}

/* Names without the owner tag go only when they begin as gar's files do,
 * and only unlocked; names of another shape stay. */
static void an_untagged_file_goes_only_when_it_is_gars(void **state)
{
    world *w = *state;
    const char *const starts[] = { GAR_TRACE_MAGIC "\n", "\x1f\x8b", NULL };
    make_file(w, "t.csv.tmp.Ab3xYz", GAR_TRACE_MAGIC "\n1,2,3,4\n");
    make_file(w, "t.csv.tmp.Gz1234", "\x1f\x8b\x08 compressed");
    make_file(w, "t.csv.tmp.Us3r00", "a user's own file\n");
    make_file(w, "t.csv.tmp.Short", GAR_TRACE_MAGIC "\n");
    make_file(w, "t.csv.tmp.Empty0", "");
    other_run live = start_run(w, write_claimed, "t.csv.tmp.Live00", true);
    assert_int_equal(gar_leftover_clean_signed(w->dir, "t.csv.tmp.", starts), 2);
    assert_false(exists(w, "t.csv.tmp.Ab3xYz"));
    assert_false(exists(w, "t.csv.tmp.Gz1234"));
    assert_true(exists(w, "t.csv.tmp.Us3r00"));
    assert_true(exists(w, "t.csv.tmp.Short"));
    assert_true(exists(w, "t.csv.tmp.Empty0"));
    assert_true(exists(w, "t.csv.tmp.Live00"));
    end_run(&live);
}

/* gar gen --out FILE / gar import --out FILE killed part-way: the next
 * writer of FILE removes the leftover (unlocked, a trace), not a writer's
 * still at work. */
static void write_part(const world *w, const char *name)
{
    char path[512];
    path_of(w, name, path, sizeof path);
    gar_trace_writer tw;
    if (gar_trace_writer_file(&tw, path, 0, "cut short", NULL) < 0)
        _exit(1);
    for (uint64_t i = 0; i < 10000; i++) {
        gar_trace_row row = { 1, 1000 * i, 1000 * i + 10, 1000 * i + 500, 0, 0 };
        if (gar_trace_writer_row(&tw, &row) < 0)
            _exit(1);
    }
}

/* The one name in w->dir beginning with `prefix` other than `not`. */
static bool find_other(const world *w, const char *prefix, const char *not, char *out,
                       size_t size)
{
    DIR *d = opendir(w->dir);
    assert_non_null(d);
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strcmp(e->d_name, not) != 0) {
            snprintf(out, size, "%s", e->d_name);
            found = true;
        }
    closedir(d);
    return found;
}

static void write_whole(const world *w)
{
    gar_trace t;
    gar_trace_init(&t);
    gar_trace_row row = { 1, 0, 10, 500, 0, 0 };
    assert_int_equal(gar_trace_append(&t, &row, NULL), 0);
    char path[512];
    path_of(w, "t.csv", path, sizeof path);
    assert_int_equal(gar_trace_write_file(&t, NULL, path, NULL), 0);
    gar_trace_free(&t);
}

static void a_killed_writers_leftover_goes(void **state)
{
    world *w = *state;
    char killed[256], live[256];
    start_run(w, write_part, "t.csv", false);
    assert_true(find_other(w, "t.csv.tmp.", "", killed, sizeof killed));
    other_run writer = start_run(w, write_part, "t.csv", true);
    assert_false(exists(w, killed)); /* the next writer of t.csv removed it */
    assert_true(find_other(w, "t.csv.tmp.", killed, live, sizeof live));
    write_whole(w);
    assert_true(exists(w, live)); /* at work: kept */
    assert_true(exists(w, "t.csv"));
    end_run(&writer);
    write_whole(w);
    assert_false(exists(w, live));
}

/* A temporary file is locked from its creation: a cleaner leaves it. */
static void an_atomic_files_temporary_is_locked(void **state)
{
    world *w = *state;
    char path[512];
    path_of(w, "x.csv", path, sizeof path);
    gar_atomic_file f;
    assert_int_equal(gar_atomic_file_begin(&f, path, NULL, NULL), 0);
    assert_int_equal(write(f.fd, GAR_TRACE_MAGIC "\n", sizeof GAR_TRACE_MAGIC),
                     sizeof GAR_TRACE_MAGIC);
    assert_int_equal(gar_atomic_file_close(&f, NULL), 0); /* the lock outlives the descriptor */
    const char *const starts[] = { GAR_TRACE_MAGIC "\n", NULL };
    assert_int_equal(gar_leftover_clean_signed(w->dir, "x.csv.tmp.", starts), 0);
    struct stat st;
    assert_int_equal(stat(f.temp, &st), 0);
    assert_int_equal(gar_atomic_file_end(&f, -1), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_owner_is_this_process_on_this_machine),
        cmocka_unit_test_setup_teardown(a_live_owner_is_kept_whatever_its_pid, setup, teardown),
        cmocka_unit_test_setup_teardown(a_folder_without_the_marker_is_never_emptied, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_untagged_file_goes_only_when_it_is_gars, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_killed_writers_leftover_goes, setup, teardown),
        cmocka_unit_test_setup_teardown(an_atomic_files_temporary_is_locked, setup, teardown),
    };
    return cmocka_run_group_tests_name("leftover", tests, NULL, NULL);
}
