/* sim/auto_host.h — what the auto plan's rule (gar/auto_policy.h) is told
 * of a host, from its profile (host_profile.h).
 *
 * The rule reads each park's detection latency, from the completion to the
 * answer that ends the wait, as the simulator charges it:
 *   poll   the rest of the poll turn running when the store lands (its
 *          residual life: a long turn is the likelier one to be running),
 *          then a query that takes max(query, the store's visibility) and
 *          a clock read;
 *   flag   the park's wake, then the confirming query, max(query,
 *          visibility), and a clock read;
 *   block  the blocking wake, then a clock read;
 * where a sum of two independent draws is read by its tail: mostly one of
 * them long while the other is typical, so P(sum > v) is taken as
 * P(first > v − the query's median) + P(query > v).
 * A profile may state the store's visibility by how long the device idled
 * before the store (@LEAD variants): the rule is told the variant nearest
 * `lead_ns`, the length of the waits it will see (a replay gives its
 * trace's median residual), since it can never observe the visibility
 * itself.  The sleep overshoot and the blocking wake are the plain
 * distributions, over every length: the overshoot's variants state their
 * tails by p99 and p100 alone, and read linearly between the two they put
 * a 0.5 % chance of oversleeping by a millisecond or more, which would
 * forbid every sleep — and a rule that never sleeps never learns the host's
 * wakes, which it otherwise does as they come. */
#ifndef GAR_SIM_AUTO_HOST_H
#define GAR_SIM_AUTO_HOST_H

#include <gar/auto_policy.h>

#include "sim/host_profile.h"
#include "sim/trace.h"

/* Fills `out` from `profile` (a valid, parsed one), for waits of about
 * `lead_ns`. */
void gar_auto_host_from_profile(const gar_host_profile *profile, gar_dur_ns lead_ns,
                                gar_auto_host *out);

/* The median residual of `trace` (done less start, 0 when done first): the
 * lead to tell a profile's variants by.  Works in `v` and `tmp`, each
 * trace->count values of room, overwritten. */
gar_dur_ns gar_auto_host_lead_of(const gar_trace *trace, uint64_t *v, uint64_t *tmp);

#endif
