/* sim/trace/decimal_chunk.h — up to eight decimal digits read at once.
 *
 * Turning digits into numbers is most of what reading a trace costs: a byte
 * loop spends a compare, a branch and a multiply on every digit.  Here eight
 * bytes loaded as one little-endian word are tested with two masks and
 * converted with three multiplications, whatever their count.  The first
 * byte in memory is the word's lowest byte and the number's most significant
 * digit.  Only where the compiler says the machine is little-endian
 * (GAR_DECIMAL_CHUNKS is 1); elsewhere callers keep their byte loop. */
#ifndef GAR_SIM_DECIMAL_CHUNK_H
#define GAR_SIM_DECIMAL_CHUNK_H

#include <stdint.h>

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GAR_DECIMAL_CHUNKS 1
#else
#define GAR_DECIMAL_CHUNKS 0
#endif

#define GAR_DECIMAL_BYTES(b) (UINT64_C(0x0101010101010101) * (b)) /* b in every byte */

/* How many of the chunk's first bytes, in memory order, are '0'..'9' (0..8).
 * A byte is a digit when its high nibble is 3 and stays 3 with 6 added
 * ('9' + 6 is 0x3f, ':' + 6 is 0x40).  Adding 6 carries out of a byte only
 * from 0xfa up, a non-digit, and the carry reaches only the bytes after it,
 * which are not counted. */
static inline unsigned gar_decimal_chunk_digits(uint64_t chunk)
{
    const uint64_t high = GAR_DECIMAL_BYTES(0xf0), three = GAR_DECIMAL_BYTES(0x30);
    uint64_t wrong = ((chunk & high) ^ three) | (((chunk + GAR_DECIMAL_BYTES(6)) & high) ^ three);
    return wrong == 0 ? 8u : (unsigned)__builtin_ctzll(wrong) / 8u;
}

/* The number the chunk's first `count` bytes spell, all digits, count 1..8.
 * The digits are moved to the top of the word (zeros in front change
 * nothing), then neighbours are joined: pairs (10 a + b), fours (100 a + b),
 * the eight (10000 a + b); each lane holds its sum without a carry. */
static inline uint64_t gar_decimal_chunk_value(uint64_t chunk, unsigned count)
{
    uint64_t d = (chunk & GAR_DECIMAL_BYTES(0x0f)) << (8u * (8u - count));
    d = (d * 10 + (d >> 8)) & UINT64_C(0x00ff00ff00ff00ff);
    d = (d * 100 + (d >> 16)) & UINT64_C(0x0000ffff0000ffff);
    return (d * 10000 + (d >> 32)) & UINT64_C(0xffffffff);
}

#endif
