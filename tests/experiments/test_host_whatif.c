/* tests/experiments/test_host_whatif.c — what-if hosts: terms that scale a
 * distribution or set a constant, their lead variants, their refusals, a
 * profile written out and read back, and what a spec's `host FILE@TERMS`
 * stores. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/host_whatif.h"
#include "sweep/sweep_spec.h"

static const char *message_of(const gar_error *err)
{
    static char text[1024];
    gar_error_message(err, text, sizeof text);
    return text;
}

static gar_host_profile dev_vm(void)
{
    gar_host_profile p;
    gar_error err;
    if (gar_host_profile_load(GAR_DATA_DIR "/hosts/dev-vm.host", &p, &err) != 0)
        fail_msg("%s", message_of(&err));
    return p;
}

static void a_factor_scales_the_distribution_and_its_leads(void **state)
{
    (void)state;
    gar_host_profile before = dev_vm(), p = before;
    assert_true(before.block_wake_at[2].count > 0); /* the bundled profile states leads */
    assert_int_equal(gar_host_whatif_apply(&p, "block_wake_ns*0.5", "t.sweep", 4, NULL), 0);
    for (unsigned i = 0; i < p.block_wake.count; i++)
        assert_int_equal(p.block_wake.value[i], (before.block_wake.value[i] + 1) / 2);
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++)
        for (unsigned i = 0; i < p.block_wake_at[k].count; i++)
            assert_int_equal(p.block_wake_at[k].value[i],
                             (before.block_wake_at[k].value[i] + 1) / 2);
    /* Levels and the other keys stay. */
    assert_memory_equal(p.block_wake.level, before.block_wake.level, sizeof p.block_wake.level);
    assert_memory_equal(&p.sleep_overshoot, &before.sleep_overshoot, sizeof p.sleep_overshoot);
    assert_int_equal(p.query_ns, before.query_ns);

    /* One lead alone. */
    p = before;
    assert_int_equal(gar_host_whatif_apply(&p, "sleep_overshoot_ns@1ms*2", "t.sweep", 4, NULL),
                     0);
    assert_int_equal(p.sleep_overshoot_at[2].value[0], 2 * before.sleep_overshoot_at[2].value[0]);
    assert_memory_equal(&p.sleep_overshoot_at[1], &before.sleep_overshoot_at[1],
                        sizeof p.sleep_overshoot_at[1]);
    assert_memory_equal(&p.sleep_overshoot, &before.sleep_overshoot, sizeof p.sleep_overshoot);
}

static void a_value_sets_a_constant_and_drops_the_leads(void **state)
{
    (void)state;
    gar_host_profile p = dev_vm();
    assert_int_equal(gar_host_whatif_apply(&p, "query_ns=100,clock_ns*2,word_wait=yes,"
                                               "block_wake_ns=5000",
                                           "t.sweep", 4, NULL),
                     0);
    assert_int_equal(p.query_ns, 100);
    assert_int_equal(p.clock_ns, 2 * dev_vm().clock_ns);
    assert_true(p.word_wait);
    for (unsigned i = 0; i < p.block_wake.count; i++)
        assert_int_equal(p.block_wake.value[i], 5000);
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++)
        assert_int_equal(p.block_wake_at[k].count, 0); /* 5 µs whatever the lead */
}

static void bad_terms_are_refused_with_their_place(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        { "wake_ns*2", "unknown key 'wake_ns'" },
        { "block_wake_ns*0", "factor '0'" },
        { "block_wake_ns*-1", "negative" },
        { "block_wake_ns*x", "factor 'x'" },
        { "block_wake_ns*2000", "factor '2000'" },
        { "query_ns=-5", "negative" },
        { "query_ns=fast", "value 'fast'" },
        { "block_wake_ns*1e3", "factor '1e3'" },
        { "word_wait*2", "word_wait takes =yes or =no" },
        { "park_wake_ns@1ms*2", "has no lead variants" },
        { "block_wake_ns@2ms*2", "lead '2ms'" },
        { "block_wake_ns", "neither KEY*FACTOR nor KEY=VALUE" },
        { "block_wake_ns*2,", "empty or overlong term" },
        { "", "no term after '@'" },
        { "block_wake_ns*1000,block_wake_ns*1000", "more than 10 s" }, /* any wake of 10 us */
        { "poll_period_ns*0.01", "invalid" }, /* a poll turn of 0 ns */
    };
    gar_host_profile before = dev_vm();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gar_host_profile p = before;
        gar_error err;
        int rc = gar_host_whatif_apply(&p, bad[i][0], "t.sweep", 4, &err);
        if (rc != -GAR_E_INVALID_HOST_PROFILE)
            fail_msg("'%s' gave %d (%s)", bad[i][0], rc, message_of(&err));
        const char *m = message_of(&err);
        if (strstr(m, "t.sweep:4") == NULL || strstr(m, bad[i][1]) == NULL)
            fail_msg("'%s': message '%s' lacks the place or '%s'", bad[i][0], m, bad[i][1]);
        assert_true(gar_sweep_host_hash(&p) == gar_sweep_host_hash(&before)); /* unchanged */
    }
}

static void a_profile_written_out_reads_back_the_same(void **state)
{
    (void)state;
    static const char *const files[] = { GAR_DATA_DIR "/hosts/dev-vm.host",
                                         GAR_DATA_DIR "/hosts/waitpkg.host" };
    for (size_t f = 0; f < 2; f++) {
        gar_host_profile p, back;
        gar_error err;
        assert_int_equal(gar_host_profile_load(files[f], &p, &err), 0);
        char *text = gar_host_profile_text(&p, "a comment");
        assert_non_null(text);
        if (gar_host_profile_parse(text, strlen(text), "written", &back, &err) != 0)
            fail_msg("%s", message_of(&err));
        assert_true(gar_sweep_host_hash(&p) == gar_sweep_host_hash(&back));
        assert_int_equal(p.query_ns, back.query_ns);
        assert_int_equal(p.clock_ns, back.clock_ns);
        assert_int_equal(p.word_wait, back.word_wait);
        free(text);
    }
}

/* A spec's what-if host: its name holds the terms, its hash and stored text
 * are those of the changed profile, and a factor of 1 is the file itself. */
static void a_spec_stores_the_changed_profile(void **state)
{
    (void)state;
    const char *text = "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\nplan block\n"
                       "estimator adl\nhost hosts/dev-vm.host@block_wake_ns*{1,2}\n"
                       "mode open\nseed 1\n";
    gar_sweep_spec spec;
    gar_error err;
    if (gar_sweep_spec_parse(text, strlen(text), "t.sweep", GAR_DATA_DIR, &spec, &err) != 0)
        fail_msg("%s", message_of(&err));
    assert_int_equal(spec.host_count, 2);
    gar_host_profile plain = dev_vm();
    char plain_hash[GAR_HASH_HEX_BYTES];
    gar_sweep_hash_hex(gar_sweep_host_hash(&plain), plain_hash);
    assert_string_equal(spec.hosts[0].hash, plain_hash);
    assert_string_not_equal(spec.hosts[1].hash, plain_hash);
    assert_string_equal(spec.hosts[1].name, "hosts/dev-vm.host@block_wake_ns*2");
    assert_non_null(strstr(spec.hosts[1].source, "/hosts/dev-vm.host@block_wake_ns*2"));
    gar_host_profile stored;
    assert_int_equal(gar_host_profile_parse(spec.hosts[1].text, strlen(spec.hosts[1].text),
                                            "stored", &stored, NULL),
                     0);
    assert_true(gar_sweep_host_hash(&stored) == gar_sweep_host_hash(&spec.hosts[1].profile));
    assert_int_equal(stored.block_wake.value[1], 2 * plain.block_wake.value[1]);
    gar_sweep_spec_free(&spec);

    /* A bad term names the spec's place and the host. */
    text = "gar-sweep v1\ntrace gen:steady:waits=10,seed=1\nplan block\nestimator adl\n"
           "host hosts/dev-vm.host@wake*2\nmode open\nseed 1\n";
    assert_int_equal(gar_sweep_spec_parse(text, strlen(text), "t.sweep", GAR_DATA_DIR, &spec, &err),
                     -GAR_E_INVALID_HOST_PROFILE);
    assert_non_null(strstr(message_of(&err), "t.sweep:5"));
    assert_non_null(strstr(message_of(&err), "host 'hosts/dev-vm.host@wake*2'"));
    assert_non_null(strstr(message_of(&err), "unknown key 'wake'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_factor_scales_the_distribution_and_its_leads),
        cmocka_unit_test(a_value_sets_a_constant_and_drops_the_leads),
        cmocka_unit_test(bad_terms_are_refused_with_their_place),
        cmocka_unit_test(a_profile_written_out_reads_back_the_same),
        cmocka_unit_test(a_spec_stores_the_changed_profile),
    };
    return cmocka_run_group_tests_name("host_whatif", tests, NULL, NULL);
}
