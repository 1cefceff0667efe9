/* experiments/sweep/word_checksum.h — a fast checksum of bytes in memory,
 * for a file gar wrote itself and maps again (the trace cache).
 *
 * Four lanes of xor-then-multiply over 8-byte words (host byte order: the
 * file does not travel), the last bytes zero-padded, folded with the
 * length by FNV-1a (import/content_hash.h).  Each step is a bijection of
 * the lane for any word and of the word for any lane, so any change
 * confined to one word always changes the checksum; other changes go
 * unseen with odds of about 2^-64.  Not cryptographic: it tells a file
 * changed by accident or by hand from the one written, not from a forgery.
 * A multiply per 8 bytes, four at a time: a small part of what FNV-1a,
 * a multiply per byte, costs over the same bytes. */
#ifndef GAR_WORD_CHECKSUM_H
#define GAR_WORD_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* The checksum of the `n` bytes at `p` (any alignment). */
uint64_t gar_word_checksum(const void *p, size_t n);

#endif
