/* sim/prng.h — the simulator's seeded random numbers: xoshiro256**.
 *
 * One generator per run, seeded from a u64 through splitmix64 (so seeds 0, 1,
 * 2, ... give unrelated streams).  The integer outputs are exact on every
 * platform; the floating-point ones use only IEEE arithmetic, plus log and
 * sqrt for the normal deviate, so they match wherever libm's log does.
 * A generator is a plain value the caller owns: copy it to fork a stream. */
#ifndef GAR_SIM_PRNG_H
#define GAR_SIM_PRNG_H

#include <stdint.h>

typedef struct gar_prng {
    uint64_t s[4];
} gar_prng;

/* The generator seeded by `seed`.  Never all-zero state. */
gar_prng gar_prng_seeded(uint64_t seed);

/* Stream `stream` of `seed`: its state is splitmix64's outputs 4*stream + 1
 * to 4*stream + 4 from `seed`, so stream 0 is gar_prng_seeded(seed) and the
 * others are unrelated to it and to each other.  A run that wants one part of
 * its draws not to shift another's (sim_host.h) takes a stream for each. */
gar_prng gar_prng_seeded_stream(uint64_t seed, unsigned stream);

/* The next 64 random bits.  Inline: the simulator draws one for every
 * latency, up to tens of millions a second, and the step is a few shifts. */
static inline uint64_t gar_prng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t gar_prng_next(gar_prng *g)
{
    uint64_t *s = g->s;
    uint64_t result = gar_prng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = gar_prng_rotl(s[3], 45);
    return result;
}

/* A uniform double in [0, 1), 53 random bits. */
double gar_prng_uniform(gar_prng *g);

/* A uniform integer in [0, bound), without modulo bias; 0 when bound is 0. */
uint64_t gar_prng_below(gar_prng *g, uint64_t bound);

/* A standard normal deviate (mean 0, sd 1), by Marsaglia's polar method. */
double gar_prng_normal(gar_prng *g);

#endif
