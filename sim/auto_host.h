/* sim/auto_host.h — what the auto plan's rule (gar/auto_policy.h) is told
 * of a host, from its profile (host_profile.h).
 *
 * The rule reads each park's detection latency, from the completion to the
 * answer that ends the wait, as the simulator charges it:
 *   poll   a median poll turn, then a query that takes max(query, the
 *          store's visibility) and a clock read;
 *   flag   the park's wake, then the confirming query, max(query,
 *          visibility), and a clock read;
 *   block  the blocking wake, then a clock read;
 * a sum of two draws taken quantile by quantile (their tails together: the
 * cautious reading, since the profile says nothing of how they relate).
 * The sleep overshoot is the profile's plain distribution (its @LEAD
 * variants differ by length; the rule learns the host's own wakes anyway). */
#ifndef GAR_SIM_AUTO_HOST_H
#define GAR_SIM_AUTO_HOST_H

#include <gar/auto_policy.h>

#include "host_profile.h"

/* Fills `out` from `profile` (a valid, parsed one). */
void gar_auto_host_from_profile(const gar_host_profile *profile, gar_auto_host *out);

#endif
