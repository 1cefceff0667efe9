/* tests/sim/test_whole_file.c — a small file read whole: a file at the
 * limit is read, one byte past it is left to the caller to refuse, and a
 * file that cannot be opened or read, or a buffer that cannot be had, is
 * said as such with nothing kept. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/trace/alloc.h"
#include "sim/trace/whole_file.h"

#define LIMIT 64

/* Writes `n` bytes of 'x' to a new temporary file whose path goes to `path`. */
static void file_of(char path[32], size_t n)
{
    strcpy(path, "/tmp/gar-whole-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char bytes[LIMIT + 8];
    memset(bytes, 'x', sizeof bytes);
    assert_true(n <= sizeof bytes);
    assert_int_equal(write(fd, bytes, n), (ssize_t)n);
    close(fd);
}

static void a_file_at_the_limit_is_read_whole(void **state)
{
    (void)state;
    char path[32];
    file_of(path, LIMIT);
    char *text = NULL;
    size_t len = 0;
    gar_error err = { 0 };
    assert_int_equal(gar_whole_file_read(path, LIMIT, &text, &len, &err), 0);
    assert_int_equal(len, LIMIT);
    assert_int_equal(strlen(text), LIMIT); /* NUL-terminated at its length */
    free(text);
    /* The same bytes from standard input. */
    assert_non_null(freopen(path, "rb", stdin));
    assert_int_equal(gar_whole_file_read("-", LIMIT, &text, &len, &err), 0);
    assert_int_equal(len, LIMIT);
    free(text);
    unlink(path);
}

static void one_byte_past_the_limit_is_the_callers_to_refuse(void **state)
{
    (void)state;
    char path[32];
    file_of(path, LIMIT + 1);
    char *text = NULL;
    size_t len = 7;
    gar_error err = { 0 };
    assert_int_equal(gar_whole_file_read(path, LIMIT, &text, &len, &err),
                     GAR_WHOLE_FILE_TOO_LARGE);
    assert_null(text);
    assert_int_equal(len, 7);
    assert_int_equal(err.code, 0); /* the caller says it, in its own words */
    unlink(path);
}

static void what_cannot_be_opened_or_read_is_an_io_error(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    gar_error err = { 0 };
    assert_int_equal(gar_whole_file_read("/nonexistent/gar-file", LIMIT, &text, &len, &err),
                     -GAR_E_IO);
    assert_string_equal(err.argv[0], "/nonexistent/gar-file");
    assert_string_equal(err.argv[1], "open");
    assert_int_equal(gar_whole_file_read("/tmp", LIMIT, &text, &len, &err), -GAR_E_IO);
    assert_string_equal(err.argv[1], "read"); /* a folder opens, then reads as EISDIR */
    assert_null(text);
}

static void a_buffer_that_cannot_be_had_is_said_with_nothing_kept(void **state)
{
    (void)state;
    char path[32];
    file_of(path, 3);
    gar_alloc_fail_nth counter;
    gar_alloc_fail_nth_make(&counter, 1);
    gar_alloc_set_hook(&counter.hook);
    char *text = NULL;
    size_t len = 0;
    gar_error err = { 0 };
    int rc = gar_whole_file_read(path, LIMIT, &text, &len, &err);
    gar_alloc_set_hook(NULL);
    assert_true(gar_alloc_fail_nth_fired(&counter));
    assert_int_equal(rc, GAR_WHOLE_FILE_NO_MEMORY);
    assert_null(text);
    assert_int_equal(err.code, 0);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_file_at_the_limit_is_read_whole),
        cmocka_unit_test(one_byte_past_the_limit_is_the_callers_to_refuse),
        cmocka_unit_test(what_cannot_be_opened_or_read_is_an_io_error),
        cmocka_unit_test(a_buffer_that_cannot_be_had_is_said_with_nothing_kept),
    };
    return cmocka_run_group_tests_name("whole_file", tests, NULL, NULL);
}
