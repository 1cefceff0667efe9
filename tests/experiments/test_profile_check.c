/* tests/experiments/test_profile_check.c — gar calibrate --check's comparison:
 * a profile against itself holds, and one whose blocking wake or store
 * visibility moved is caught on the plans that pay it, and only on those. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim/host_profile.h"
#include "verify/profile_check.h"

static gar_host_profile bundled;

static int load(void **state)
{
    (void)state;
    gar_error err;
    return gar_host_profile_load(GAR_DATA_DIR "/hosts/dev-vm.host", &bundled, &err) == 0 ? 0 : -1;
}

/* Every value of `d` times num/den. */
static void scale(gar_host_dist *d, uint64_t num, uint64_t den)
{
    for (unsigned i = 0; i < d->count; i++)
        d->value[i] = d->value[i] * num / den;
}

static void a_profile_against_itself_holds(void **state)
{
    (void)state;
    gar_profile_check c;
    assert_int_equal(gar_profile_check_run(&bundled, &bundled, &c, NULL), 0);
    assert_true(c.holds);
    for (int p = 0; p < GAR_PROFILE_CHECK_PLANS; p++) {
        assert_true(c.row[p].holds);
        assert_int_equal(c.row[p].stated[0], c.row[p].now[0]);
        assert_int_equal(c.row[p].stated[1], c.row[p].now[1]);
        assert_true(c.row[p].change[0] == 0 && c.row[p].change[1] == 0);
        assert_true(c.row[p].stated[0] > 0);
    }
    assert_string_equal(c.row[0].name, "poll");
    assert_string_equal(c.row[1].name, "poll+predict");
    assert_string_equal(c.row[2].name, "block");
}

static void a_slower_blocking_wake_moves_block_alone(void **state)
{
    (void)state;
    gar_host_profile now = bundled;
    scale(&now.block_wake, 3, 2);
    for (int k = 0; k < GAR_HOST_LEADS; k++)
        scale(&now.block_wake_at[k], 3, 2);
    gar_profile_check c;
    assert_int_equal(gar_profile_check_run(&bundled, &now, &c, NULL), 0);
    assert_false(c.holds);
    assert_true(c.row[0].holds);
    assert_true(c.row[1].holds);
    assert_false(c.row[2].holds);
    /* A blocking wait's overshoot is its wake: half as long again. */
    assert_true(c.row[2].change[0] > 0.4 && c.row[2].change[0] < 0.6);
}

static void a_heavier_store_visibility_moves_the_polls(void **state)
{
    (void)state;
    gar_host_profile now = bundled;
    scale(&now.store_visible, 2, 1);
    for (int k = 0; k < GAR_HOST_LEADS; k++)
        scale(&now.store_visible_at[k], 2, 1);
    gar_profile_check c;
    assert_int_equal(gar_profile_check_run(&bundled, &now, &c, NULL), 0);
    assert_false(c.holds);
    assert_false(c.row[0].holds);
    assert_true(c.row[0].change[0] >= 0.15);
    assert_true(c.row[2].holds); /* block does not poll */
    /* A change just under the bound in both directions still holds. */
    now = bundled;
    scale(&now.block_wake, 110, 100);
    for (int k = 0; k < GAR_HOST_LEADS; k++)
        scale(&now.block_wake_at[k], 110, 100);
    assert_int_equal(gar_profile_check_run(&bundled, &now, &c, NULL), 0);
    assert_true(c.row[2].holds);
    assert_int_equal(gar_profile_check_run(&now, &bundled, &c, NULL), 0);
    assert_true(c.row[2].holds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_profile_against_itself_holds),
        cmocka_unit_test(a_slower_blocking_wake_moves_block_alone),
        cmocka_unit_test(a_heavier_store_visibility_moves_the_polls),
    };
    return cmocka_run_group_tests_name("profile_check", tests, load, NULL);
}
