/* experiments/verify/profile_check.h — does a host profile still describe this
 * machine?  Two profiles compared by what they make the simulator say.
 *
 * A profile's numbers move with the machine (load, where the hypervisor puts
 * the vCPUs), and what matters is not each number but what the simulator
 * concludes from them.  So two profiles — one stated, one measured now —
 * are compared by the simulated overshoot p50 and p90 of the three plans a
 * verification judges (poll, poll+predict, block) on one synthetic trace
 * (gar gen jitter, GAR_PROFILE_CHECK_WAITS waits of the default 2 ms ± 0.2 ms,
 * seed 3), replayed open loop with the same seed under each.  The profile
 * holds when every one of the six quantiles moved by less than
 * GAR_PROFILE_CHECK_REL of its stated value: the stability asked of two
 * calibrations a few minutes apart on a quiet machine.
 *
 * Pure: the replays only, no real time. */
#ifndef GAR_PROFILE_CHECK_H
#define GAR_PROFILE_CHECK_H

#include <stdbool.h>

#include <gar/error.h>
#include <gar/time.h>

#include "sim/host_profile.h"

#define GAR_PROFILE_CHECK_PLANS 3
#define GAR_PROFILE_CHECK_REL 0.15
#define GAR_PROFILE_CHECK_WAITS 10000u

typedef struct gar_profile_check_row {
    const char *plan;            /* static text: "poll", "poll+predict:...", "block" */
    const char *name;            /* static short name: "poll", "poll+predict", "block" */
    gar_dur_ns stated[2], now[2]; /* simulated overshoot p50, p90 under each profile */
    double change[2];            /* (now - stated) / stated; 0 when both are 0 */
    bool holds;                  /* both changes under the bound */
} gar_profile_check_row;

typedef struct gar_profile_check {
    gar_profile_check_row row[GAR_PROFILE_CHECK_PLANS];
    bool holds;                  /* every row does */
} gar_profile_check;

/* Compares `stated` with `now` as above.  Returns 0 with `out` filled, or
 * the replay's or the generator's refusal (memory). */
int gar_profile_check_run(const gar_host_profile *stated, const gar_host_profile *now,
                          gar_profile_check *out, gar_error *err);

#endif
