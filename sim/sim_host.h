/* sim/sim_host.h — a simulated host: runs one wait in virtual time.
 *
 * The host drives the very same sans-I/O wait machine (gar/wait.h) as the
 * real drivers, and performs each action it names against a simulated device
 * (sim_device.h) with the costs of a host profile (host_profile.h), drawing
 * every random latency from one seeded generator.  A direct switch on the
 * action stands where a real driver calls its ports: the decisions are the
 * machine's, only the world is simulated.
 *
 * What each action costs, starting at the time t the previous answer was seen
 * (the wait's start for the first):
 *   QUERY        query_ns, busy; answers the status at t + query_ns.
 *   ARM          query_ns, busy (one driver call, like a query); the store is
 *                enqueued at t + query_ns.
 *   POLL         one poll_period_ns sample then a query, busy; answers the
 *                status at the end.
 *   SLEEP_UNTIL  wakes at max(until, t) + one sleep_overshoot_ns sample,
 *                asleep (the core is free).
 *   PARK         wakes at min(store + one park_wake_ns sample, until) and
 *                answers 1 when the awaited store landed by `until`, else
 *                wakes at `until` and answers 0; a word already reached
 *                answers 1 at once.  Parked (the core is held but idle) when
 *                the profile has word_wait, else busy (a spin).  Only the
 *                awaited word's store wakes a park: in a replay the waiting
 *                host is the only one that arms stores.
 *   BLOCK        query_ns busy; then, unless already done, asleep until
 *                completion + one block_wake_ns sample.  A block that would
 *                end past the deadline ends at the deadline with
 *                GAR_E_WAIT_DEADLINE (the machine cannot bound a block; the
 *                driver does).
 * and after every action the driver reads the clock: clock_ns, busy.  So the
 * three CPU counters of a wait always sum to its wait_ns.
 *
 * A host is a caller-owned plain value: the profile (copied) and the
 * generator.  It allocates nothing; not thread-safe. */
#ifndef GAR_SIM_HOST_H
#define GAR_SIM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/plan.h>
#include <gar/time.h>
#include <gar/wait.h>

#include "host_profile.h"
#include "prng.h"
#include "sim_device.h"

typedef struct gar_sim_host {
    gar_host_profile profile;
    gar_prng prng;
} gar_sim_host;

/* What one simulated wait did. */
typedef struct gar_sim_wait_result {
    gar_wait_report report; /* the machine's report (counters up to a failure) */
    gar_mono_ns start;
    gar_mono_ns end;        /* when the answer that ended the wait was seen */
    gar_dur_ns busy_ns;     /* querying, polling, spinning, clock reads */
    gar_dur_ns parked_ns;   /* hardware parks: the core held, idle */
    gar_dur_ns asleep_ns;   /* sleeps and blocking waits: the core free */
} gar_sim_wait_result;

/* A host with a copy of `profile`, its generator seeded by `seed`.  Returns
 * 0, or -GAR_E_INVALID_ARGUMENT for NULL pointers. */
int gar_sim_host_init(gar_sim_host *host, const gar_host_profile *profile, uint64_t seed,
                      gar_error *err);

/* Runs one wait for `work` (enqueued on `dev`) under the resolved `plan`,
 * starting at `start`, with the point's predicted sleep (`has_sleep`,
 * `sleep_ns`, as gar_wait_init takes them) and an absolute `deadline`
 * (GAR_MONO_NEVER for none — only safe on a device that completes).  Arms
 * `work` when the plan does.  Returns 0 once the wait saw the work done, or
 * the negated code it ended with: GAR_E_DEVICE_FAULT from the device,
 * GAR_E_WAIT_DEADLINE, or GAR_E_INVALID_ARGUMENT for arguments
 * gar_wait_init refuses (then `out` is untouched).  `out` (required) is
 * filled on every other return. */
int gar_sim_host_wait(gar_sim_host *host, gar_sim_device *dev, gar_sim_work *work,
                      const gar_plan *plan, bool has_sleep, gar_dur_ns sleep_ns,
                      gar_mono_ns start, gar_mono_ns deadline, gar_sim_wait_result *out,
                      gar_error *err);

#endif
