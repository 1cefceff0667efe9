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

/* The next 64 random bits. */
uint64_t gar_prng_next(gar_prng *g);

/* A uniform double in [0, 1), 53 random bits. */
double gar_prng_uniform(gar_prng *g);

/* A uniform integer in [0, bound), without modulo bias; 0 when bound is 0. */
uint64_t gar_prng_below(gar_prng *g, uint64_t bound);

/* A standard normal deviate (mean 0, sd 1), by Marsaglia's polar method. */
double gar_prng_normal(gar_prng *g);

#endif
