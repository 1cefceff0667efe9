/* tests/experiments/test_results_read.c — the results database's shared
 * readers (sweep/results.h): a count query's yes or no, a failed read
 * refused naming the file, what was being done and SQLite's reason, and a
 * text column copied with NULL read as "" and long text cut to fit. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep/results.h"
#include "sweep/db.h"
#include "db_files.h"

typedef struct fixture {
    char dir[64];
    char path[96];
    gar_db *db;
} fixture;

static int setup(void **state)
{
    static fixture f;
    snprintf(f.dir, sizeof f.dir, "/tmp/gar-results-XXXXXX");
    if (mkdtemp(f.dir) == NULL)
        return -1;
    snprintf(f.path, sizeof f.path, "%s/r.db", f.dir);
    if (gar_db_open(f.path, true, &f.db, NULL) != 0)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    gar_db_close(f->db);
    remove_db_files(f->path);
    rmdir(f->dir);
    return 0;
}

static void a_count_answers_yes_or_no(void **state)
{
    fixture *f = *state;
    gar_error err;
    assert_int_equal(gar_results_any(f->db,
                                     "SELECT count(*) FROM sqlite_master WHERE name = 'runs'",
                                     "look in", &err),
                     1);
    assert_int_equal(gar_results_any(f->db,
                                     "SELECT count(*) FROM sqlite_master WHERE name = 'none'",
                                     "look in", &err),
                     0);
    assert_int_equal(gar_results_any(f->db, "SELECT 0 WHERE 0", "look in", &err), -GAR_E_IO);
}

static void a_failed_read_names_the_file_the_reading_and_why(void **state)
{
    fixture *f = *state;
    gar_error err;
    gar_error_clear(&err);
    assert_int_equal(gar_results_any(f->db, "SELECT count(*) FROM no_such_table",
                                     "read the widgets of", &err),
                     -GAR_E_IO);
    assert_int_equal(err.code, GAR_E_IO);
    char text[512];
    gar_error_format(&err, text, sizeof text);
    assert_non_null(strstr(text, f->path));
    assert_non_null(strstr(text, "read the widgets of"));
    assert_non_null(strstr(text, "no_such_table"));
    assert_int_equal(gar_results_fault(f->db, "count", NULL), -GAR_E_IO);
}

static void a_text_column_reads_null_as_empty_and_cuts_to_fit(void **state)
{
    fixture *f = *state;
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(gar_db_sqlite(f->db), "SELECT NULL, 'abcdef', 'ab'",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    char small[4] = "xyz", big[16];
    gar_results_copy_text(st, 0, small, sizeof small);
    assert_string_equal(small, "");
    gar_results_copy_text(st, 1, small, sizeof small);
    assert_string_equal(small, "abc");
    gar_results_copy_text(st, 2, big, sizeof big);
    assert_string_equal(big, "ab");
    sqlite3_finalize(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_count_answers_yes_or_no),
        cmocka_unit_test(a_failed_read_names_the_file_the_reading_and_why),
        cmocka_unit_test(a_text_column_reads_null_as_empty_and_cuts_to_fit),
    };
    return cmocka_run_group_tests_name("results_read", tests, setup, teardown);
}
