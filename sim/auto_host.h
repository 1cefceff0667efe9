/* sim/auto_host.h — the length of wait a replay tells the auto rule's seed
 * (gar/auto_host.h) to read a host profile for.
 *
 * A profile may state the store's visibility by how long the device idled
 * before the store (@LEAD variants); the seed takes the variant nearest the
 * waits it will see, which for a replay are its trace's. */
#ifndef GAR_SIM_AUTO_HOST_H
#define GAR_SIM_AUTO_HOST_H

#include <gar/auto_host.h>

#include "sim/host_profile.h"
#include "sim/trace/trace.h"

/* The median residual of `trace` (done less start, 0 when done first): the
 * lead to tell a profile's variants by.  Works in `v` and `tmp`, each
 * trace->count values of room, overwritten. */
gar_dur_ns gar_auto_host_lead_of(const gar_trace *trace, uint64_t *v, uint64_t *tmp);

#endif
