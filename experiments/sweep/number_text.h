/* experiments/sweep/number_text.h — numbers written for people to read.
 *
 * The report's tables and the auto section print figures that span many
 * decades (a busy CPU of 100 % beside one of 0.0000728 %).  printf's %g
 * turns the small ones into exponent notation ("7.28e-05"), which a reader
 * has to decode; these write plain decimals with a fixed count of
 * significant digits instead, trailing zeros dropped, and say "<0.001 %"
 * for a share too small to matter.  Each writes into `out` (`size` bytes,
 * NUL included; cut, never overflowed) and returns `out`. */
#ifndef GAR_NUMBER_TEXT_H
#define GAR_NUMBER_TEXT_H

#include <stddef.h>

/* The least share of time a table prints as a number: below it, "<0.001 %". */
#define GAR_PERCENT_SHOWN_MIN 0.001

/* `v` with `digits` significant digits (1 to 9), in plain decimals:
 * 0.0000728 -> "0.0000728", 52.61 -> "52.6", 1234567 -> "1234567". */
char *gar_number_text(double v, int digits, char *out, size_t size);

/* A share in percent with three significant digits and its unit:
 * "52.6 %", "0.000602 %", "0 %", and "<0.001 %" below GAR_PERCENT_SHOWN_MIN. */
char *gar_percent_text(double percent, char *out, size_t size);

/* A duration given in ns, with three significant digits in the unit that
 * keeps it readable: "640 ns" is written "0.64 µs", then "17.5 µs", "1.6 ms",
 * "10 s"; an infinite one "∞". */
char *gar_duration_text(double ns, char *out, size_t size);

#endif
