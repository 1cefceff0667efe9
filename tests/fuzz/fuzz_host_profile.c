/* tests/fuzz/fuzz_host_profile.c — any bytes as a gar-host v1 profile.
 *
 * Properties: a refusal is code 15 naming the file and a line of the input
 * (1 .. lines + 1) and leaves the output untouched; an accepted profile's
 * distributions keep every invariant gar/host_profile.h states, and sampling
 * stays within [p0, p100] and never falls as the draw rises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gar/host_profile.h>

#include "core/host_dist.h"

#include "check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_dist(const gar_host_dist *d)
{
    FUZZ_CHECK(d->count >= 2 && d->count <= GAR_HOST_QUANTILES_MAX);
    FUZZ_CHECK(d->level[0] == 0 && d->level[d->count - 1] == GAR_HOST_LEVEL_ONE);
    for (unsigned i = 1; i < d->count; i++) {
        FUZZ_CHECK(d->level[i] > d->level[i - 1]);
        FUZZ_CHECK(d->value[i] >= d->value[i - 1]);
    }
    static const uint64_t draws[] = { 0, 1, UINT64_C(1) << 62, UINT64_C(1) << 63,
                                      UINT64_C(0xfd70a3d70a3d70a3), UINT64_MAX };
    gar_dur_ns last = 0;
    for (size_t k = 0; k < sizeof draws / sizeof draws[0]; k++) {
        gar_dur_ns v = gar_host_dist_sample(d, draws[k]);
        FUZZ_CHECK(v >= d->value[0] && v <= d->value[d->count - 1]);
        FUZZ_CHECK(v >= last);
        last = v;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gar_host_profile p;
    memset(&p, 0x5a, sizeof p);
    gar_host_profile before = p;
    gar_error err;
    int rc = gar_host_profile_parse((const char *)data, size, "fuzz.host", &p, &err);
    if (rc != 0) {
        fuzz_check_refusal(rc, &err, GAR_E_INVALID_HOST_PROFILE, 3);
        FUZZ_CHECK(strcmp(err.argv[0], "fuzz.host") == 0);
        size_t lines = 1;
        for (size_t i = 0; i < size; i++)
            lines += data[i] == '\n';
        char *end = NULL;
        unsigned long line = strtoul(err.argv[1], &end, 10);
        FUZZ_CHECK(end != err.argv[1] && *end == '\0');
        FUZZ_CHECK(line >= 1 && line <= lines);
        FUZZ_CHECK(memcmp(&p, &before, sizeof p) == 0);
        return 0;
    }
    FUZZ_CHECK(p.query_ns <= GAR_HOST_NS_MAX && p.clock_ns <= GAR_HOST_NS_MAX);
    check_dist(&p.sleep_overshoot);
    check_dist(&p.block_wake);
    check_dist(&p.park_wake);
    check_dist(&p.poll_period);
    FUZZ_CHECK(p.poll_period.value[0] >= 1);
    return 0;
}
