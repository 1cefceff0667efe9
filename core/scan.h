/* core/scan.h — a cursor over a span of text for gar's small grammars (plans,
 * bands, estimator specs), and the first fault it met.
 * Internal: not installed, not exported from the shared libgar, and named
 * gar__ so no one mistakes them for the public API.
 *
 * A scan reads `len` bytes (no NUL needed; NUL bytes are just bytes) and keeps
 * the first fault only: once one is recorded every later call fails without
 * touching it, so a parser may chain calls and test `failed` at the end, or
 * stop at the first false.  A fault reads "at byte N: what was expected, what
 * was found", N counting from the start of the span.
 *
 * What a fault says was found, when that is not quoted text of its own:
 *   "the end"        the span ended there;
 *   "white space"    a space, tab or line break (gar's grammars have none);
 *   "byte 0xNN"      a control byte, or a byte outside ASCII;
 *   'word'           the run of letters, digits, '_' and bytes outside ASCII
 *                    starting there (cut with "..." past GAR__SCAN_SHOWN_BYTES),
 *                    else the one byte; quoted bytes are escaped as
 *                    gar_error_show_bytes writes them. */
#ifndef GAR_CORE_SCAN_H
#define GAR_CORE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "text.h"

#define GAR__SCAN_FAULT_BYTES GAR_ERROR_ARG_BYTES /* a fault is one error argument */
#define GAR__SCAN_SHOWN_BYTES 24                  /* longest word a fault quotes whole */

typedef struct gar__scan {
    const char *text;
    size_t len;
    size_t pos;  /* next byte to read, 0..len */
    bool failed; /* a fault is recorded */
    char fault[GAR__SCAN_FAULT_BYTES];
} gar__scan;

/* A key of a "key=N,key=N,..." list: its name and the bounds of its value.
 * When `floor_key` is a valid index of an earlier key (else -1), that key's
 * value is a further lower bound ("backstop_us is at least park_us"). */
typedef struct gar__scan_key {
    const char *name;
    uint64_t min;
    uint64_t max;
    int floor_key;
} gar__scan_key;

gar__scan gar__scan_make(const char *text, size_t len);

static inline bool gar__scan_at_end(const gar__scan *s)
{
    return s->pos == s->len;
}

/* Whether the bytes at the cursor begin with `literal` (the cursor stays). */
bool gar__scan_looking_at(const gar__scan *s, const char *literal);

/* Consumes `literal`, or records "expected 'LITERAL', found '...'" quoting as
 * many bytes as the literal has, and returns false. */
bool gar__scan_literal(gar__scan *s, const char *literal);

/* Consumes the word (letters, digits, '_') at the cursor and returns its
 * length, 0 when none starts there. */
size_t gar__scan_word(gar__scan *s);

/* Reads a decimal number N := "0" | [1-9][0-9]* for `what` into `out`,
 * refusing a non-number, a leading zero, and a value outside min..max
 * (overflow beyond u64 included: it is outside any max).  When the value is
 * below `min` and `min_why` is not NULL, the fault explains the lower bound:
 * "WHAT must be at least MIN (MIN_WHY), found V"; otherwise it reads
 * "WHAT must be MIN..MAX, found V". */
bool gar__scan_decimal(gar__scan *s, const char *what, uint64_t min, uint64_t max,
                      const char *min_why, uint64_t *out);

/* Reads "k0=N,k1=N,...,kn=N" with the keys in `keys` order, each once, values
 * into `values[i]` (and their byte offsets into `offsets[i]` when not NULL).
 * Faults name the missing, duplicate, out-of-order or unknown key.  Stops
 * before whatever follows the last value, except that a ',' followed by one
 * of the keys again is refused as a duplicate. */
bool gar__scan_keys(gar__scan *s, const gar__scan_key *keys, size_t count, uint64_t *values,
                   size_t *offsets);

/* Records "at byte AT: " followed by the pieces, NULL-terminated (the first
 * fault only).  Returns false. */
bool gar__scan_fail(gar__scan *s, size_t at, ...);

/* Records "at byte AT: EXPECTED, found X" with X described as the header says.
 * Returns false. */
bool gar__scan_fail_found(gar__scan *s, size_t at, const char *expected);

/* Appends the description of what is at byte `at` ("the end", "'poll'"...). */
void gar__scan_put_found(gar__text_out *out, const gar__scan *s, size_t at);

/* Writes the span into `buf` (at most `size - 1` bytes and a NUL) for an
 * error's text argument, escaped as gar_error_show_bytes writes it (a NUL
 * inside shows as \x00, not as the end); one byte more than the error
 * record keeps is enough for it to mark a cut with "...". */
void gar__scan_copy_text(const char *text, size_t len, char *buf, size_t size);

#endif
