/* tests/sim/sim_world.h — what the sim tests share: a degenerate host profile
 * (every distribution a constant, so every number is exact) and plans built
 * field by field (no parser needed). */
#ifndef GAR_TESTS_SIM_WORLD_H
#define GAR_TESTS_SIM_WORLD_H

#include <gar/plan.h>

#include "sim/host_profile.h"

#define Q_NS 1000u      /* a status query (and an arm) */
#define POLL_NS 1000u   /* a poll turn besides its query */
#define OVER_NS 20000u  /* sleep overshoot */
#define BLOCK_NS 30000u /* blocking wake after completion */
#define PARK_NS 300u    /* park wake after the store */

static inline gar_host_dist constant_dist(gar_dur_ns v)
{
    return (gar_host_dist){ 5, { 0, 500000, 900000, 990000, 1000000 }, { v, v, v, v, v } };
}

/* Clock reads cost nothing, so the sums below stay short. */
static inline gar_host_profile exact_profile(bool word_wait)
{
    return (gar_host_profile){
        .query_ns = Q_NS,
        .clock_ns = 0,
        .word_wait = word_wait,
        .sleep_overshoot = constant_dist(OVER_NS),
        .block_wake = constant_dist(BLOCK_NS),
        .park_wake = constant_dist(PARK_NS),
        .poll_period = constant_dist(POLL_NS),
    };
}

static inline gar_plan plan_of(gar_park park, bool predict)
{
    gar_plan p = { .park = park };
    if (park == GAR_PARK_FLAG) {
        p.park_ns = 100 * GAR_NS_PER_US;
        p.backstop_ns = 1000 * GAR_NS_PER_US;
    }
    if (predict) {
        p.predict = true;
        p.deadline = (gar_deadline){ 150 * GAR_NS_PER_US, 20 * GAR_NS_PER_US,
                                     50 * GAR_NS_PER_MS, 8 };
    }
    return p;
}

#endif
