/* tests/sim/test_dist_draw.c — a distribution laid out for drawing gives
 * gar_host_dist_sample's value bit for bit: every distribution of the
 * bundled host profiles at random draws and at each segment's edges, and
 * made-up ones with the narrowest (1 ppm) and widest (the whole range)
 * segments, the largest values, and many levels inside one bucket of the
 * segment lookup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/host_dist.h"
#include "sim/dist_draw.h"
#include "sim/host_profile.h"
#include "sim/prng.h"

/* The draws around the start of each segment (the first draw whose top 32
 * bits reach its level, and its neighbours), then random ones. */
static void agree(const gar_host_dist *dist)
{
    gar_dist_draw d;
    gar_dist_draw_prepare(&d, dist);
    for (unsigned i = 0; i < dist->count; i++) {
        uint64_t top = ((uint64_t)dist->level[i] << 32) / GAR_HOST_LEVEL_ONE;
        for (int delta = -2; delta <= 2; delta++) {
            uint64_t t = top + (uint64_t)(int64_t)delta;
            if (t >= UINT64_C(1) << 32)
                continue;
            for (uint64_t low = 0; low < 2; low++) {
                uint64_t draw = t << 32 | (low ? UINT32_MAX : 0);
                assert_int_equal(gar_dist_draw_sample(&d, draw), gar_host_dist_sample(dist, draw));
            }
        }
    }
    assert_int_equal(gar_dist_draw_sample(&d, UINT64_MAX), gar_host_dist_sample(dist, UINT64_MAX));
    gar_prng g = gar_prng_seeded(41);
    for (int k = 0; k < 200000; k++) {
        uint64_t draw = gar_prng_next(&g);
        assert_int_equal(gar_dist_draw_sample(&d, draw), gar_host_dist_sample(dist, draw));
    }
}

static void bundled_profiles_agree(void **state)
{
    (void)state;
    static const char *const names[] = { GAR_DATA_DIR "/hosts/waitpkg.host",
                                          GAR_DATA_DIR "/hosts/dev-vm.host" };
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        gar_host_profile p;
        gar_error err;
        assert_int_equal(gar_host_profile_load(names[n], &p, &err), 0);
        const gar_host_dist *dists[] = { &p.sleep_overshoot, &p.block_wake, &p.park_wake,
                                         &p.poll_period, &p.store_visible };
        for (size_t k = 0; k < sizeof dists / sizeof dists[0]; k++)
            if (dists[k]->count >= 2)
                agree(dists[k]);
        for (unsigned l = 0; l < GAR_HOST_LEADS; l++) {
            if (p.sleep_overshoot_at[l].count >= 2)
                agree(&p.sleep_overshoot_at[l]);
            if (p.block_wake_at[l].count >= 2)
                agree(&p.block_wake_at[l]);
            if (p.store_visible_at[l].count >= 2)
                agree(&p.store_visible_at[l]);
        }
    }
}

static void extreme_segments_agree(void **state)
{
    (void)state;
    /* Widths of 1 ppm and of nearly all of it, a power of two and one past
     * it; values up to the clock's far end. */
    gar_host_dist narrow = { .count = 6,
                             .level = { 0, 1, 2, 1 + 4096, 2 + 8193, GAR_HOST_LEVEL_ONE },
                             .value = { 0, 1, UINT32_MAX, UINT64_C(1) << 40, UINT64_C(1) << 62,
                                        (UINT64_C(1) << 63) - 1 } };
    agree(&narrow);
    gar_host_dist whole = { .count = 2,
                            .level = { 0, GAR_HOST_LEVEL_ONE },
                            .value = { 5, 5 + 999999 } };
    agree(&whole);
    gar_host_dist constant = { .count = 3,
                               .level = { 0, 500000, GAR_HOST_LEVEL_ONE },
                               .value = { 7, 7, 7 } };
    agree(&constant);
    /* Many levels inside one bucket of draws (a 256th of them, 3 906 ppm):
     * the lookup starts at the bucket's first segment and steps across
     * each; at the top, the middle, and where a bucket begins on a level. */
    gar_host_dist top = { .count = 7,
                          .level = { 0, 999990, 999991, 999995, 999998, 999999, GAR_HOST_LEVEL_ONE },
                          .value = { 10, 20, 30, 40, 50, 60, 70 } };
    agree(&top);
    gar_host_dist middle = { .count = 8,
                             .level = { 0, 500001, 500002, 500100, 501000, 503000, 503905,
                                        GAR_HOST_LEVEL_ONE },
                             .value = { 1, 2, 3, 4, 5, 6, 7, 8 } };
    agree(&middle);
    gar_host_dist on_edge = { .count = 4, /* 3 906.25 ppm a bucket: 15 625 = 4 buckets */
                              .level = { 0, 15625, 15626, GAR_HOST_LEVEL_ONE },
                              .value = { 100, 200, 300, 400 } };
    agree(&on_edge);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bundled_profiles_agree),
        cmocka_unit_test(extreme_segments_agree),
    };
    return cmocka_run_group_tests_name("dist_draw", tests, NULL, NULL);
}
