/* experiments/import/kineto_numbers.h — a Kineto trace's JSON number text
 * to integers (kineto_numbers.c), converted from the text so a decimal's
 * nanosecond digits are kept exactly.  Pure functions. */
#ifndef GAR_KINETO_NUMBERS_H
#define GAR_KINETO_NUMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Microseconds as JSON number text (`n` bytes at `s`) to whole
 * nanoseconds, rounded half up, into `*out`.  False for a negative
 * (`*negative` set), malformed or too large value. */
bool gar_kineto_us_text_to_ns(const char *s, size_t n, uint64_t *out, bool *negative);

/* A JSON integer's text to int64.  False for fractions, exponents,
 * overflow. */
bool gar_kineto_int_text(const char *s, size_t n, int64_t *out);

/* A JSON integer's text to sign and magnitude.  False for fractions,
 * exponents, and magnitudes past 2^64 - 1. */
bool gar_kineto_integer_text(const char *s, size_t n, bool *negative, uint64_t *magnitude);

#endif
