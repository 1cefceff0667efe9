/* sim/host_profile.h — a host profile as the testbed reads it: from a file.
 *
 * The format, its type and its reader are libgar's (gar/host_profile.h),
 * and so is how a profile's distributions are drawn from
 * (core/host_dist.h); the simulator charges every action from them.  What
 * the testbed adds is the file: gar_host_profile_load reads one and hands
 * its bytes to the library's parser, so there is one reader of the format. */
#ifndef GAR_SIM_HOST_PROFILE_H
#define GAR_SIM_HOST_PROFILE_H

#include <gar/error.h>
#include <gar/host_profile.h>

#include "core/host_dist.h"

/* Reads the profile file at `path` whole, without parsing it; "-" reads
 * standard input to its end (named "standard input" in refusals).  Returns 0
 * with a malloc'd NUL-terminated copy in `*text` (the caller frees it) and
 * its length, NUL not counted, in `*len`; or -GAR_E_IO when the file cannot
 * be read, or -GAR_E_INVALID_HOST_PROFILE for a file over 1 MiB (`*text`
 * then untouched).  For a caller that wants the text besides the profile. */
int gar_host_profile_read_text(const char *path, char **text, size_t *len, gar_error *err);

/* Reads (as gar_host_profile_read_text, so "-" is standard input) and
 * parses the file at `path` (at most 1 MiB: a profile is a few
 * hundred bytes).  Returns 0, -GAR_E_INVALID_ARGUMENT (a NULL argument),
 * -GAR_E_IO when the file cannot be read, or the parser's refusal (a file
 * above 1 MiB is refused as no host profile).  `out` is written only on
 * success. */
int gar_host_profile_load(const char *path, gar_host_profile *out, gar_error *err);

#endif
