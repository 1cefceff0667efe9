/* sim/quantile_words.h — a duration and a quantile with its interval, in
 * words a reader takes in at a glance: "31.8 µs (the largest of 21 waits;
 * too few waits for a p99)", "1.20 µs (95 % interval 1.10 µs to 1.30 µs)".
 * Shared by every verb that prints a quantile, so they say it alike.  Pure:
 * writes into the caller's buffer, snprintf style (the length it needed). */
#ifndef GAR_SIM_QUANTILE_WORDS_H
#define GAR_SIM_QUANTILE_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include <gar/time.h>

#include "sim/quantile_interval.h"

/* "850 ns", "31.8 µs", "1.20 ms", "12.0 s": three significant digits, the
 * unit that keeps the number below 1000 (ns whole). */
size_t gar_words_ns(gar_dur_ns ns, char *buf, size_t size);

/* The quantile at `level_ppm` (500000: p50) of `n` values named `noun`
 * ("waits", "predictions"), its value and interval at `confidence`:
 *   both ends       "1.20 µs (95 % interval 1.10 µs to 1.30 µs)"
 *   no upper end    "31.8 µs (the largest of 21 waits; too few waits for a p99)"
 *                   or, when it is not the largest, "4.10 µs (too few waits
 *                   for a p99: at least 3.90 µs at 95 %, no upper bound
 *                   below 368 waits)"
 *   no values       "none (no waits)" */
size_t gar_words_quantile(uint32_t level_ppm, gar_dur_ns value, const gar_quantile_interval *ci,
                          size_t n, const char *noun, double confidence, char *buf, size_t size);

#endif
