/* sim/host_profile.h — a host profile as the testbed reads it: from a file.
 *
 * The format, its type and its reader are libgar's (gar/host_profile.h),
 * and so is how a profile's distributions are drawn from
 * (gar/host_dist.h); the simulator charges every action from them.  What
 * the testbed adds is the file: gar_host_profile_load reads one and hands
 * its bytes to the library's parser, so there is one reader of the format. */
#ifndef GAR_SIM_HOST_PROFILE_H
#define GAR_SIM_HOST_PROFILE_H

#include <gar/error.h>
#include <gar/host_dist.h>
#include <gar/host_profile.h>

/* Reads and parses the file at `path` (at most 1 MiB: a profile is a few
 * hundred bytes).  Returns 0, -GAR_E_INVALID_ARGUMENT (a NULL argument),
 * -GAR_E_IO when the file cannot be read, or the parser's refusal (a file
 * above 1 MiB is refused as no host profile).  `out` is written only on
 * success. */
int gar_host_profile_load(const char *path, gar_host_profile *out, gar_error *err);

#endif
