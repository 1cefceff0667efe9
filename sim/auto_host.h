/* sim/auto_host.h — what the auto plan's rule (gar/auto_policy.h) is told
 * of a host, from its profile (host_profile.h).
 *
 * The rule reads each park's detection latency, from the completion to the
 * answer that ends the wait, as the simulator charges it:
 *   poll   the profile's store visibility (or 0 when it states none), then
 *          a median poll turn, a query and a clock read;
 *   flag   the park's wake, then the confirming query and a clock read;
 *   block  the blocking wake, then a clock read;
 * each as the profile's quantiles shifted by those constants (a shift, not a
 * convolution: the turn's spread is a few hundred ns against tails of µs).
 * The sleep overshoot is the profile's plain distribution (its @LEAD
 * variants differ by length; the rule learns the host's own wakes anyway). */
#ifndef GAR_SIM_AUTO_HOST_H
#define GAR_SIM_AUTO_HOST_H

#include <gar/auto_policy.h>

#include "host_profile.h"

/* Fills `out` from `profile` (a valid, parsed one). */
void gar_auto_host_from_profile(const gar_host_profile *profile, gar_auto_host *out);

#endif
