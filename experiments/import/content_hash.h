/* experiments/import/content_hash.h — the 64-bit FNV-1a hash that names a trace or a
 * host profile by its content in a sweep's database.
 *
 * FNV-1a (offset basis 14695981039346656037, prime 1099511628211) is not
 * cryptographic: it tells a changed file from the one a database was made
 * with, which is all a sweep asks of it.  Values are fed in a fixed
 * little-endian byte order, so every platform gets the same hash.  The
 * importers name a readback point with it too (import.h). */
#ifndef GAR_CONTENT_HASH_H
#define GAR_CONTENT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define GAR_HASH_OFFSET UINT64_C(14695981039346656037)
#define GAR_HASH_PRIME UINT64_C(1099511628211)
#define GAR_HASH_HEX_BYTES 17 /* 16 hex digits and the NUL */

/* `h` (GAR_HASH_OFFSET to start) carried on over `size` bytes at `data`. */
static inline uint64_t gar_hash_bytes(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= GAR_HASH_PRIME;
    }
    return h;
}

/* `h` carried on over the 8 bytes of `value`, least significant first. */
static inline uint64_t gar_hash_u64(uint64_t h, uint64_t value)
{
    for (unsigned i = 0; i < 8; i++) {
        h ^= (unsigned char)(value >> (8 * i));
        h *= GAR_HASH_PRIME;
    }
    return h;
}

#endif
