/* tests/sim/test_atomic_file.c — replacing a file whole: the new content
 * appears only at commit, a failure leaves the old file and no temporary
 * behind, and each failure names the file and the operation. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/trace/alloc.h"
#include "sim/trace/atomic_file.h"

typedef struct folder {
    char dir[64];
    char path[128]; /* dir/out */
} folder;

static int folder_setup(void **state)
{
    folder *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/gar-atomic-test-XXXXXX");
    if (mkdtemp(f->dir) == NULL)
        return -1;
    snprintf(f->path, sizeof f->path, "%s/out", f->dir);
    *state = f;
    return 0;
}

static int folder_teardown(void **state)
{
    folder *f = *state;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* The names in the folder, space-separated and sorted, into `out`. */
static void names_in(const char *dir, char *out, size_t size)
{
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.') {
            if (out[0] != '\0')
                strncat(out, " ", size - strlen(out) - 1);
            strncat(out, list[i]->d_name, size - strlen(out) - 1);
        }
        free(list[i]);
    }
    free(list);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void read_back(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    fclose(f);
}

static void a_commit_replaces_the_file_whole(void **state)
{
    folder *d = *state;
    put(d->path, "old\n");
    gar_atomic_file f;
    gar_error err;
    assert_int_equal(gar_atomic_file_begin(&f, d->path, NULL, &err), 0);
    assert_int_equal(strncmp(f.temp, d->path, strlen(d->path)), 0);
    assert_int_equal(strncmp(f.temp + strlen(d->path), ".tmp.", 5), 0);
    assert_int_equal(write(f.fd, "new\n", 4), 4);
    char text[64];
    read_back(d->path, text, sizeof text);
    assert_string_equal(text, "old\n"); /* nothing shows before the commit */
    assert_int_equal(gar_atomic_file_sync(&f, &err), 0);
    assert_int_equal(gar_atomic_file_commit(&f, NULL, &err), 0);
    assert_int_equal(f.fd, -1);
    assert_int_equal(gar_atomic_file_end(&f, 0), 0);
    assert_null(f.temp);
    read_back(d->path, text, sizeof text);
    assert_string_equal(text, "new\n");
    struct stat st;
    assert_int_equal(stat(d->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* not mkstemp's private 0600 */
    char names[256];
    names_in(d->dir, names, sizeof names);
    assert_string_equal(names, "out");
}

static void a_failure_keeps_the_old_file_and_removes_the_temporary(void **state)
{
    folder *d = *state;
    put(d->path, "old\n");
    gar_atomic_file f;
    gar_error err;
    assert_int_equal(gar_atomic_file_begin(&f, d->path, ".merge-XXXXXX", &err), 0);
    assert_int_equal(strncmp(f.temp + strlen(d->path), ".merge-", 7), 0);
    assert_int_equal(write(f.fd, "half", 4), 4);
    char names[256];
    names_in(d->dir, names, sizeof names);
    assert_int_equal(strncmp(names, "out out.merge-", 14), 0); /* the temporary, beside */
    assert_int_equal(gar_atomic_file_end(&f, -GAR_E_IO), -GAR_E_IO);
    assert_int_equal(f.fd, -1);
    names_in(d->dir, names, sizeof names);
    assert_string_equal(names, "out");
    char text[64];
    read_back(d->path, text, sizeof text);
    assert_string_equal(text, "old\n");
}

static void begin_in_a_missing_folder_names_the_path(void **state)
{
    folder *d = *state;
    char path[192];
    snprintf(path, sizeof path, "%s/no/such/out", d->dir);
    gar_atomic_file f;
    gar_error err;
    assert_int_equal(gar_atomic_file_begin(&f, path, NULL, &err), -GAR_E_IO);
    assert_string_equal(err.argv[0], path);
    assert_string_equal(err.argv[1], "create a temporary file beside");
    assert_non_null(strstr(err.argv[2], "No such file"));
    assert_null(f.temp);
    assert_int_equal(gar_atomic_file_end(&f, -GAR_E_IO), -GAR_E_IO); /* nothing to do */
}

/* A rename onto a non-empty folder fails: the error says which rename, and
 * end removes the temporary file. */
static void a_failed_rename_says_what_was_renamed(void **state)
{
    folder *d = *state;
    assert_int_equal(mkdir(d->path, 0755), 0);
    char inner[192];
    snprintf(inner, sizeof inner, "%s/keep", d->path);
    put(inner, "x");
    gar_atomic_file f;
    gar_error err;
    assert_int_equal(gar_atomic_file_begin(&f, d->path, NULL, &err), 0);
    int rc = gar_atomic_file_commit(&f, "rename the merge onto", &err);
    assert_int_equal(rc, -GAR_E_IO);
    assert_string_equal(err.argv[0], d->path);
    assert_string_equal(err.argv[1], "rename the merge onto");
    assert_int_equal(gar_atomic_file_end(&f, rc), rc);
    char names[256];
    names_in(d->dir, names, sizeof names);
    assert_string_equal(names, "out");
}

static bool fail_all(void *context, size_t size)
{
    (void)context;
    (void)size;
    return true;
}

static void no_memory_for_the_name_creates_nothing(void **state)
{
    folder *d = *state;
    gar_alloc_hook hook = { fail_all, NULL, NULL };
    gar_alloc_set_hook(&hook);
    gar_atomic_file f;
    gar_error err;
    int rc = gar_atomic_file_begin(&f, d->path, NULL, &err);
    gar_alloc_set_hook(NULL);
    assert_int_equal(rc, -GAR_E_CAPACITY);
    char names[256];
    names_in(d->dir, names, sizeof names);
    assert_string_equal(names, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_commit_replaces_the_file_whole, folder_setup,
                                        folder_teardown),
        cmocka_unit_test_setup_teardown(a_failure_keeps_the_old_file_and_removes_the_temporary,
                                        folder_setup, folder_teardown),
        cmocka_unit_test_setup_teardown(begin_in_a_missing_folder_names_the_path, folder_setup,
                                        folder_teardown),
        cmocka_unit_test_setup_teardown(a_failed_rename_says_what_was_renamed, folder_setup,
                                        folder_teardown),
        cmocka_unit_test_setup_teardown(no_memory_for_the_name_creates_nothing, folder_setup,
                                        folder_teardown),
    };
    return cmocka_run_group_tests_name("atomic_file", tests, NULL, NULL);
}
