/* tests/core/test_auto_seed.c — an auto plan seeded from a host profile
 * through the installed library's API alone (gar/host_profile.h,
 * gar/auto_host.h, linked to the shared libgar): every field of the
 * gar_auto_host it derives from each bundled profile, at leads around and
 * between the stated ones, is what the simulator derived for its replays
 * before the reader moved into the library (tests/fixtures/auto_seed.txt,
 * printed from the simulator's own code then); and the seed is one
 * gar_auto_init accepts. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gar/auto_host.h>
#include <gar/host_profile.h>

/* The whole file at `path`, NUL-terminated; its length in *len. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = 2 * cap + 4096 + 1;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    assert_int_equal(ferror(f), 0);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void print_dist(FILE *f, const char *name, const gar_auto_dist *d)
{
    fprintf(f, "  %s", name);
    for (unsigned i = 0; i < d->count; i++)
        fprintf(f, " %u=%llu", (unsigned)d->level[i], (unsigned long long)d->value[i]);
    fprintf(f, "\n");
}

/* Every field of `h`, one a line (the fixture's form). */
static void print_seed(FILE *f, const char *host, unsigned long long lead, const gar_auto_host *h)
{
    fprintf(f, "%s lead_ns=%llu\n", host, lead);
    fprintf(f, "  query_ns %llu\n  clock_ns %llu\n  poll_turn_ns %llu\n"
               "  word_wait %d no_block %d no_sleep %d\n",
            (unsigned long long)h->query_ns, (unsigned long long)h->clock_ns,
            (unsigned long long)h->poll_turn_ns, h->word_wait, h->no_block, h->no_sleep);
    print_dist(f, "sleep_overshoot", &h->sleep_overshoot);
    print_dist(f, "poll_detect", &h->poll_detect);
    print_dist(f, "park_detect", &h->park_detect);
    print_dist(f, "block_detect", &h->block_detect);
}

static void bundled_profiles_seed_auto_as_the_simulator_did(void **state)
{
    (void)state;
    static const char *const hosts[] = { "dev-vm.host", "waitpkg.host" };
    /* None, each stated lead, between two (550 µs: just above 300 µs and
     * 1 ms's midpoint in ratio), and far past the longest. */
    static const unsigned long long leads[] = { 0,       100000,   550000,    1000000,
                                                3000000, 10000000, 1000000000 };
    char *seeds = NULL;
    size_t seeds_len = 0;
    FILE *out = open_memstream(&seeds, &seeds_len);
    assert_non_null(out);
    for (size_t h = 0; h < sizeof hosts / sizeof hosts[0]; h++) {
        char path[512];
        snprintf(path, sizeof path, "%s/hosts/%s", GAR_DATA_DIR, hosts[h]);
        size_t len;
        char *text = read_file(path, &len);
        gar_host_profile profile;
        gar_error err;
        assert_int_equal(gar_host_profile_parse(text, len, hosts[h], &profile, &err), 0);
        free(text);
        for (size_t l = 0; l < sizeof leads / sizeof leads[0]; l++) {
            gar_auto_host seed;
            gar_auto_host_from_profile(&profile, leads[l], &seed);
            print_seed(out, hosts[h], leads[l], &seed);
            gar_auto_policy *policy = malloc(sizeof *policy);
            assert_non_null(policy);
            assert_int_equal(gar_auto_init(policy, &seed, &err), 0);
            free(policy);
        }
    }
    assert_int_equal(fclose(out), 0);
    size_t want_len;
    char *want = read_file(GAR_AUTO_SEED_FIXTURE, &want_len);
    if (seeds_len != want_len || memcmp(seeds, want, want_len) != 0) {
        /* The first line that differs, to say which field moved. */
        size_t i = 0, line = 1;
        while (i < seeds_len && i < want_len && seeds[i] == want[i])
            line += seeds[i++] == '\n';
        fail_msg("the seed differs from the simulator's at line %zu of %s", line,
                 GAR_AUTO_SEED_FIXTURE);
    }
    free(want);
    free(seeds);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bundled_profiles_seed_auto_as_the_simulator_did),
    };
    return cmocka_run_group_tests_name("auto_seed", tests, NULL, NULL);
}
