/* experiments/sweep/host_whatif.h — a host profile changed by what-if terms, and a
 * profile written back as gar-host v1 text.
 *
 * A sweep's `host FILE@TERM,TERM...` asks "what if this machine were
 * different" without a new profile file.  A term is
 *
 *   KEY*F    scale: every quantile of distribution KEY (or the constant KEY)
 *            times F (a plain decimal, 0 < F <= 1000), rounded to whole ns
 *   KEY=V    set: the constant KEY to V (whole ns; word_wait: yes or no), or
 *            distribution KEY to the constant V (every quantile V)
 *
 * KEY is a profile key (data/hosts/README.md).  On the lead-dependent keys
 * (sleep_overshoot_ns, block_wake_ns, store_visible_ns): `KEY*F` scales the
 * plain distribution and every stated `KEY@LEAD` variant alike (a wake-up
 * twice as slow is twice as slow whatever the sleep's length); `KEY=V` sets
 * the plain one and drops the variants, so V holds for every lead;
 * `KEY@LEAD*F` and `KEY@LEAD=V` change that one variant (scaling needs it
 * stated).  Terms apply left to right.  The result must be a valid profile
 * (every value at most 10 s, a poll turn at least 1 ns).
 *
 * Refusals are GAR_E_INVALID_HOST_PROFILE with (place, line, fault): the
 * term and what is wrong with it (an unknown key, a bad factor or value, a
 * negative value, a distribution not stated, a result out of range). */
#ifndef GAR_HOST_WHATIF_H
#define GAR_HOST_WHATIF_H

#include <stddef.h>

#include <gar/error.h>

#include "sim/host_profile.h"

#define GAR_WHATIF_FACTOR_MAX 1000.0

/* Applies the comma-separated `terms` to `profile` in place.  `file` and
 * `line` name the place for refusals.  Returns 0, or the refusal with the
 * profile unchanged. */
int gar_host_whatif_apply(gar_host_profile *profile, const char *terms, const char *file,
                          unsigned line, gar_error *err);

/* Writes `profile` as gar-host v1 text (a comment line `# COMMENT` after
 * the header when `comment` is not NULL), which gar_host_profile_parse reads
 * back to the same profile.  Returns a malloc'd NUL-terminated text (free
 * it), or NULL when memory runs out. */
char *gar_host_profile_text(const gar_host_profile *profile, const char *comment);

#endif
