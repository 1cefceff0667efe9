/* experiments/sweep/word_checksum.c — four lanes of xor-multiply over
 * 8-byte words (word_checksum.h). */
#include "sweep/word_checksum.h"

#include <string.h>

#include "import/content_hash.h"

#define LANE_PRIME UINT64_C(0x9E3779B97F4A7C15) /* odd: multiplying by it is a bijection */
#define LANE_STEP(lane, word) ((lane) = ((lane) ^ (word)) * LANE_PRIME)

uint64_t gar_word_checksum(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t lane[4] = { 1, 2, 3, 4 }, word[4];
    size_t at = 0;
    for (; at + sizeof word <= n; at += sizeof word) {
        memcpy(word, p + at, sizeof word);
        LANE_STEP(lane[0], word[0]);
        LANE_STEP(lane[1], word[1]);
        LANE_STEP(lane[2], word[2]);
        LANE_STEP(lane[3], word[3]);
    }
    memset(word, 0, sizeof word);
    memcpy(word, p + at, n - at);
    for (unsigned k = 0; k < 4; k++)
        LANE_STEP(lane[k], word[k]);
    uint64_t h = gar_hash_u64(GAR_HASH_OFFSET, n);
    for (unsigned k = 0; k < 4; k++)
        h = gar_hash_u64(h, lane[k]);
    return h;
}
