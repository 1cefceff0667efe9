/* sim/trace/decimal_wide.h — a trace row's bytes classified, and its numbers
 * converted, sixteen bytes at a time (SSE2, on every x86-64).
 *
 * decimal_chunk.h reads eight bytes at once; on a row of a long trace
 * (times of 13 digits) that is seven chunks, each counted for its digits
 * and converted on its own.  Here the row's first 64 bytes are classified
 * at once (digits, commas, the newline: three masks, a bit a byte), which
 * gives every field's length; then a field of up to 16 digits is one
 * 16-byte load ending at its last digit, the bytes before the field masked
 * off, converted by pairs, fours and eights in 16- and 32-bit lanes.
 * GAR_DECIMAL_WIDE is 1 on x86-64 (SSE2 is part of it); elsewhere callers
 * keep the eight-byte reader. */
#ifndef GAR_SIM_DECIMAL_WIDE_H
#define GAR_SIM_DECIMAL_WIDE_H

#include <stdint.h>

#if defined(__SSE2__) && defined(__x86_64__)
#define GAR_DECIMAL_WIDE 1
#include <emmintrin.h>

/* Bytes 16 k .. 16 k + 15 at p (k 0..3) into the masks: bit i of *digit is
 * set when p[i] is '0'..'9', of *comma when it is ',', of *newline when it
 * is '\n' (the chunk's bits are or-ed in).  Those 16 bytes must be readable. */
static inline void gar_decimal_classify16(const char *p, unsigned k, uint64_t *digit,
                                          uint64_t *comma, uint64_t *newline)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
    __m128i t = _mm_sub_epi8(x, _mm_set1_epi8('0')); /* a digit is 0..9, as unsigned */
    __m128i is_digit = _mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t);
    *digit |= (uint64_t)(unsigned)_mm_movemask_epi8(is_digit) << (16 * k);
    *comma |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(','))) << (16 * k);
    *newline |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')))
                << (16 * k);
}

/* The 64 bytes at p, classified as gar_decimal_classify16 says.  All 64
 * bytes must be readable. */
static inline void gar_decimal_classify64(const char *p, uint64_t *digit, uint64_t *comma,
                                          uint64_t *newline)
{
    *digit = *comma = *newline = 0;
    for (unsigned k = 0; k < 4; k++)
        gar_decimal_classify16(p, k, digit, comma, newline);
}

/* The number the `count` (1..16) digits ending just before `end` spell;
 * the 16 bytes before `end` must be readable (those before the digits may
 * be anything). */
static inline uint64_t gar_decimal_value16(const char *end, unsigned count)
{
    /* 16 zero bytes then 16 of 0xff: from `count` on, the last `count` of
     * a 16-byte window are kept. */
    static const unsigned char keep[32] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    };
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(end - 16));
    __m128i mask = _mm_loadu_si128((const __m128i *)(const void *)(keep + count));
    __m128i t = _mm_and_si128(_mm_sub_epi8(x, _mm_set1_epi8('0')), mask);
    /* Each 16-bit lane holds two digits, the first (more significant) in
     * its low byte: 10 a + b. */
    __m128i pairs = _mm_add_epi16(
        _mm_mullo_epi16(_mm_and_si128(t, _mm_set1_epi16(0x00ff)), _mm_set1_epi16(10)),
        _mm_srli_epi16(t, 8));
    /* Neighbouring lanes: 100 a + b in 32 bits, then (packed back to 16)
     * 10000 a + b: the window's first eight digits and its last eight. */
    __m128i fours = _mm_madd_epi16(pairs, _mm_set1_epi32(0x00010064));
    __m128i eights = _mm_madd_epi16(_mm_packs_epi32(fours, fours), _mm_set1_epi32(0x00012710));
    uint64_t both = (uint64_t)_mm_cvtsi128_si64(eights);
    return (both & UINT32_MAX) * 100000000u + (both >> 32);
}

#else
#define GAR_DECIMAL_WIDE 0
#endif

#endif
