/* tests/sim/test_host_profile_file.c — the testbed's loader: the bundled
 * profiles load through the library's parser, and a file that cannot be
 * read is an I/O error, not a parse fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/host_profile.h"

static void bundled_profiles_load(void **state)
{
    (void)state;
    gar_host_profile vm, wp;
    gar_error err;
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts/dev-vm.host", &vm, &err), 0);
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts/waitpkg.host", &wp, &err), 0);
    assert_false(vm.word_wait);
    assert_true(wp.word_wait);
    assert_int_equal(vm.clock_ns, 23);
    assert_true(vm.store_visible.count > 0); /* measured: the optional keys too */
    assert_true(vm.block_wake_at[2].count > 0);
    /* The anchors the files cite. */
    assert_in_range(gar_host_dist_median(&vm.sleep_overshoot), 25000, 50000);
    assert_in_range(gar_host_dist_median(&vm.block_wake), 35000, 50000);
    assert_in_range(gar_host_dist_median(&vm.park_wake), 200, 300); /* 235 on 3 December */
    assert_in_range(gar_host_dist_median(&wp.park_wake), 300, 400);
}

static void an_unreadable_file_is_an_io_error(void **state)
{
    (void)state;
    gar_host_profile p;
    gar_error err;
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts/no-such.host", &p, &err),
                     -GAR_E_IO);
    assert_string_equal(err.argv[1], "open");
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts", &p, &err), -GAR_E_IO);
    assert_int_equal(gar_host_profile_load(NULL, &p, &err), -GAR_E_INVALID_ARGUMENT);
    /* A parse fault keeps the file's name. */
    assert_int_equal(gar_host_profile_load(GAR_DATA_DIR "/hosts/README.md", &p, &err),
                     -GAR_E_INVALID_HOST_PROFILE);
    assert_string_equal(err.argv[0], GAR_DATA_DIR "/hosts/README.md");
    assert_string_equal(err.argv[1], "1");
}

/* "-" is standard input: the same profile as its file, and a refusal names
 * "standard input" rather than a file called "-". */
static void standard_input_is_read_as_dash(void **state)
{
    (void)state;
    const char *path = GAR_DATA_DIR "/hosts/waitpkg.host";
    char *from_file, *from_stdin;
    size_t file_len, stdin_len;
    gar_error err;
    assert_int_equal(gar_host_profile_read_text(path, &from_file, &file_len, &err), 0);
    assert_non_null(freopen(path, "rb", stdin));
    assert_int_equal(gar_host_profile_read_text("-", &from_stdin, &stdin_len, &err), 0);
    assert_int_equal(stdin_len, file_len);
    assert_int_equal(strlen(from_stdin), stdin_len); /* NUL-terminated at its length */
    assert_memory_equal(from_stdin, from_file, file_len);
    free(from_file);
    free(from_stdin);

    gar_host_profile p;
    assert_non_null(freopen(path, "rb", stdin));
    assert_int_equal(gar_host_profile_load("-", &p, &err), 0);
    assert_true(p.word_wait);

    gar_host_profile untouched = p;
    assert_non_null(freopen("/dev/null", "rb", stdin)); /* empty: no header */
    assert_int_equal(gar_host_profile_load("-", &p, &err), -GAR_E_INVALID_HOST_PROFILE);
    assert_string_equal(err.argv[0], "standard input");
    assert_memory_equal(&p, &untouched, sizeof p);

    char *text = NULL;
    assert_int_equal(gar_host_profile_read_text(NULL, &text, &file_len, &err),
                     -GAR_E_INVALID_ARGUMENT);
    assert_int_equal(gar_host_profile_read_text(GAR_DATA_DIR "/hosts/no-such.host", &text,
                                                &file_len, &err),
                     -GAR_E_IO);
    assert_null(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bundled_profiles_load),
        cmocka_unit_test(an_unreadable_file_is_an_io_error),
        cmocka_unit_test(standard_input_is_read_as_dash),
    };
    return cmocka_run_group_tests_name("host_profile_file", tests, NULL, NULL);
}
