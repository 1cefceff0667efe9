/* sim/prng.c — xoshiro256** (Blackman and Vigna) seeded by splitmix64. */
#include "sim/prng.h"

#include <math.h>

#include "core/splitmix64.h"

gar_prng gar_prng_seeded(uint64_t seed)
{
    return gar_prng_seeded_stream(seed, 0);
}

gar_prng gar_prng_seeded_stream(uint64_t seed, unsigned stream)
{
    for (unsigned skip = 0; skip < 4 * stream; skip++)
        (void)gar_splitmix64(&seed);
    gar_prng g;
    for (int i = 0; i < 4; i++)
        g.s[i] = gar_splitmix64(&seed);
    /* splitmix64 is a bijection of its counter, so four outputs are never all
     * zero; the assignment keeps the invariant explicit all the same. */
    if ((g.s[0] | g.s[1] | g.s[2] | g.s[3]) == 0)
        g.s[0] = 1;
    return g;
}

double gar_prng_uniform(gar_prng *g)
{
    return (double)(gar_prng_next(g) >> 11) * 0x1.0p-53;
}

uint64_t gar_prng_below(gar_prng *g, uint64_t bound)
{
    if (bound == 0)
        return 0;
    /* Rejects the top sliver of 2^64 that would make some values likelier. */
    uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t r = gar_prng_next(g);
        if (r >= threshold)
            return r % bound;
    }
}

double gar_prng_normal(gar_prng *g)
{
    /* The second deviate of each pair is dropped: keeping it would make a
     * generator's output depend on how many normals were drawn before. */
    for (;;) {
        double u = 2.0 * gar_prng_uniform(g) - 1.0;
        double v = 2.0 * gar_prng_uniform(g) - 1.0;
        double s = u * u + v * v;
        if (s > 0.0 && s < 1.0)
            return u * sqrt(-2.0 * log(s) / s);
    }
}
