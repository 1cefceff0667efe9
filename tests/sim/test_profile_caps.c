/* tests/sim/test_profile_caps.c — a host profile's capabilities: word_wait
 * as the profile says, io_uring always, and a flag plan resolved against a
 * profile without word_wait falls back quoting the profile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <gar/caps.h>
#include <gar/plan.h>

#include "sim/host_profile.h"
#include "sim/profile_caps.h"

static void load(const char *name, gar_host_profile *profile)
{
    char path[512];
    gar_error err;
    snprintf(path, sizeof path, "%s/hosts/%s", GAR_DATA_DIR, name);
    assert_int_equal(gar_host_profile_load(path, profile, &err), 0);
}

static void a_word_wait_host_offers_both(void **state)
{
    (void)state;
    gar_host_profile profile;
    load("waitpkg.host", &profile);
    gar_caps caps = gar_host_profile_caps(&profile);
    assert_true(caps.word_wait);
    assert_true(caps.io_uring);
    assert_true(gar_caps_has(&caps, GAR_CAP_WORD_WAIT, NULL));
    assert_true(gar_caps_has(&caps, GAR_CAP_IO_URING, NULL));
}

static void a_host_without_word_wait_says_its_profile_is_why(void **state)
{
    (void)state;
    gar_host_profile profile;
    load("dev-vm.host", &profile);
    gar_caps caps = gar_host_profile_caps(&profile);
    const char *why = NULL;
    assert_false(gar_caps_has(&caps, GAR_CAP_WORD_WAIT, &why));
    assert_string_equal(why, "the host profile says word_wait no");
    assert_true(gar_caps_has(&caps, GAR_CAP_IO_URING, NULL));
}

static void a_flag_plan_falls_back_on_that_host_only(void **state)
{
    (void)state;
    gar_host_profile vm, wp;
    load("dev-vm.host", &vm);
    load("waitpkg.host", &wp);
    gar_plan asked, running;
    gar_error err, warning;
    assert_int_equal(gar_plan_parse("flag:park_us=100,backstop_us=1000", &asked, &err), 0);

    gar_caps caps = gar_host_profile_caps(&wp);
    assert_int_equal(gar_plan_resolve(&asked, &caps, &running, &warning), 0);
    assert_int_equal(running.park, GAR_PARK_FLAG);

    caps = gar_host_profile_caps(&vm);
    assert_int_equal(gar_plan_resolve(&asked, &caps, &running, &warning), 1);
    assert_int_not_equal(running.park, GAR_PARK_FLAG);
    assert_int_equal(warning.code, GAR_W_PARK_FALLBACK);
    char text[512];
    gar_error_format(&warning, text, sizeof text);
    assert_non_null(strstr(text, "the host profile says word_wait no"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_word_wait_host_offers_both),
        cmocka_unit_test(a_host_without_word_wait_says_its_profile_is_why),
        cmocka_unit_test(a_flag_plan_falls_back_on_that_host_only),
    };
    return cmocka_run_group_tests_name("profile_caps", tests, NULL, NULL);
}
