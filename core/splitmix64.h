/* core/splitmix64.h — splitmix64 (Steele, Lea and Flood; Vigna's constants):
 * a 64-bit counter stepped by the golden ratio and mixed.  The one source of
 * seeded spreads in gar: it seeds the simulator's xoshiro256**, spreads the
 * calibration's schedules, and drives the randomised tests, so a seed means
 * the same sequence everywhere.  Not for anything secret. */
#ifndef GAR_SPLITMIX64_H
#define GAR_SPLITMIX64_H

#include <stdint.h>

/* splitmix64's finaliser (Stafford's "Mix13" constants): xor-shifts and odd
 * multipliers, each step invertible, so it is a bijection of u64 in which
 * every input bit reaches every output bit.  0 maps to 0.  Core's point
 * table hashes keys with it (gar_point_key_hash). */
static inline uint64_t gar_splitmix64_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Advances `*state` by 0x9e3779b97f4a7c15 (wrapping) and returns the mixed
 * new state.  A bijection of the state: 2^64 calls visit every output once.
 * The caller owns the state; share it between threads only under a lock. */
static inline uint64_t gar_splitmix64(uint64_t *state)
{
    return gar_splitmix64_mix(*state += UINT64_C(0x9e3779b97f4a7c15));
}

#endif
