/* gar/auto_host.h — an `auto:p99_us=B` plan's rule (gar/auto_policy.h)
 * seeded from a host profile (gar/host_profile.h) instead of gar's guesses
 * (gar_auto_host_default): the tails `gar calibrate` measured on the machine.
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
 * `lead_ns`, the length of the waits it will see (the simulator gives its
 * trace's median residual), since it can never observe the visibility
 * itself.  The sleep overshoot and the blocking wake are the plain
 * distributions, over every length: the overshoot's variants state their
 * tails by p99 and p100 alone, and read linearly between the two they put
 * a 0.5 % chance of oversleeping by a millisecond or more, which would
 * forbid every sleep — and a rule that never sleeps never learns the host's
 * wakes, which it otherwise does as they come.
 *
 * The simulator seeds its auto runs with this very function, so a program
 * seeded from a profile starts where a replay of it on that profile does. */
#ifndef GAR_AUTO_HOST_H
#define GAR_AUTO_HOST_H

#include <gar/api.h>
#include <gar/auto_policy.h>
#include <gar/host_profile.h>
#include <gar/time.h>

/* Fills `out` from `profile` (one gar_host_profile_parse accepted), for
 * waits of about `lead_ns` from their start to the completion (0 when not
 * known: the shortest stated visibility variant).  The driver flags
 * (no_block, no_sleep) come out false: a driver that cannot block or sleep
 * sets them after.  Pure; `out` is the caller's. */
GAR_API void gar_auto_host_from_profile(const gar_host_profile *profile, gar_dur_ns lead_ns,
                                        gar_auto_host *out);

#endif
