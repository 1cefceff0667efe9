/* tests/sim/test_leftover.c — temporary names that carry their owner: a
 * dead owner's files and folders (on this machine) are removed, a live
 * owner's, another machine's and names of another shape are kept. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/leftover.h"

typedef struct world {
    char dir[64];
    char host[GAR_LEFTOVER_OWNER_BYTES];
    long dead;        /* a process that has ended */
    long live;        /* a process that runs until the test ends */
    int live_pipe[2]; /* closing its write end ends it */
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
    w.dead = child; /* ended and reaped: no process has this id now */
    if (pipe(w.live_pipe) != 0)
        return -1;
    child = fork();
    if (child == 0) { /* a concurrent run: alive until the pipe closes */
        char c;
        close(w.live_pipe[1]);
        while (read(w.live_pipe[0], &c, 1) > 0)
            continue;
        _exit(0);
    }
    if (child < 0)
        return -1;
    close(w.live_pipe[0]);
    w.live = child;
    *state = &w;
    return 0;
}

static int teardown(void **state)
{
    world *w = *state;
    close(w->live_pipe[1]);
    waitpid((pid_t)w->live, NULL, 0);
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", w->dir);
    return system(command) == 0 ? 0 : -1;
}

static void make_file(const world *w, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("x", f);
    fclose(f);
}

static void make_folder(const world *w, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/%s/a.png", w->dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static bool exists(const world *w, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    struct stat st;
    return lstat(path, &st) == 0;
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

/* A killed merge's database and SQLite's files beside it go; a merge still
 * running keeps its own; another machine's, another prefix's and a name
 * without the random part stay. */
static void a_dead_owners_files_go_and_a_live_owners_stay(void **state)
{
    world *w = *state;
    char dead[256], live[256], other_host[256], short_random[256], other_prefix[256];
    snprintf(dead, sizeof dead, "out.db.merge-%ld-%s-Ab3xYz", w->dead, w->host);
    snprintf(live, sizeof live, "out.db.merge-%ld-%s-Qq1234", w->live, w->host);
    snprintf(other_host, sizeof other_host, "out.db.merge-%ld-%s.elsewhere-Ab3xYz", w->dead,
             w->host);
    snprintf(short_random, sizeof short_random, "out.db.merge-%ld-%s-Ab3", w->dead, w->host);
    snprintf(other_prefix, sizeof other_prefix, "in.db.merge-%ld-%s-Ab3xYz", w->dead, w->host);
    const char *tails[] = { "-wal", "-shm", "-journal", NULL };
    char name[300];
    make_file(w, dead);
    snprintf(name, sizeof name, "%s-wal", dead);
    make_file(w, name);
    snprintf(name, sizeof name, "%s-shm", dead);
    make_file(w, name);
    make_file(w, live);
    snprintf(name, sizeof name, "%s-wal", live);
    make_file(w, name);
    make_file(w, other_host);
    make_file(w, short_random);
    make_file(w, other_prefix);
    make_file(w, "out.db");

    assert_int_equal(gar_leftover_clean(w->dir, "out.db.merge-", tails), 3);
    assert_false(exists(w, dead));
    snprintf(name, sizeof name, "%s-wal", dead);
    assert_false(exists(w, name));
    assert_true(exists(w, live));
    snprintf(name, sizeof name, "%s-wal", live);
    assert_true(exists(w, name));
    assert_true(exists(w, other_host));
    assert_true(exists(w, short_random));
    assert_true(exists(w, other_prefix));
    assert_true(exists(w, "out.db"));
    assert_int_equal(gar_leftover_clean(w->dir, "out.db.merge-", tails), 0);
}

/* A killed plot's staging folder goes with its files; a running one's
 * stays, and so does an old-style folder that names no owner. */
static void a_dead_owners_folder_goes_with_its_files(void **state)
{
    world *w = *state;
    char dead[256], live[256];
    snprintf(dead, sizeof dead, ".gar-stage-%ld-%s-Ab3xYz", w->dead, w->host);
    snprintf(live, sizeof live, ".gar-stage-%ld-%s-Qq1234", w->live, w->host);
    make_folder(w, dead);
    make_folder(w, live);
    make_folder(w, ".gar-stage-Ab3xYz");
    assert_int_equal(gar_leftover_clean(w->dir, ".gar-stage-", NULL), 1);
    assert_false(exists(w, dead));
    assert_true(exists(w, live));
    assert_true(exists(w, ".gar-stage-Ab3xYz"));
    assert_int_equal(gar_leftover_clean("/nonexistent/gar-leftover", ".gar-stage-", NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_owner_is_this_process_on_this_machine),
        cmocka_unit_test_setup_teardown(a_dead_owners_files_go_and_a_live_owners_stay, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_dead_owners_folder_goes_with_its_files, setup,
                                        teardown),
    };
    return cmocka_run_group_tests_name("leftover", tests, NULL, NULL);
}
