/* tests/sim/test_host_profile_file.c — the testbed's loader: the bundled
 * profiles load through the library's parser, and a file that cannot be
 * read is an I/O error, not a parse fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "host_profile.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bundled_profiles_load),
        cmocka_unit_test(an_unreadable_file_is_an_io_error),
    };
    return cmocka_run_group_tests_name("host_profile_file", tests, NULL, NULL);
}
