/* sim/sim_host_parts.h — what the simulated host's files share (internal
 * to sim/sim_host*.c).
 *
 * The host is three rooms: sim_host.c the wait loop (gar_sim_host_wait
 * and the actions it performs each wait, in one translation unit so they
 * inline); sim_host_polls.c the POLL step's turns, fast-forwarded in
 * blocks or turn by turn (sim_host.h, "Fast-forwarded polls");
 * sim_host_setup.c gar_sim_host_init, which lays out the poll turn's body
 * and tail and the @LEAD picks once per host.  sim_host.c calls the polls,
 * never the other way (the link-cycles test). */
#ifndef GAR_SIM_SIM_HOST_PARTS_H
#define GAR_SIM_SIM_HOST_PARTS_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <gar/time.h>
#include <gar/wait.h>

#include "sim/sim_host.h"

/* Fast-forwarded polls (sim_host.h): a block leaves this many standard
 * deviations of its total to spare, and has at least this many turns. */
#define BLOCK_SPARE_SD 4.0
#define BLOCK_MIN_TURNS 8

/* The time accounts of one wait, and where charges go. */
typedef struct accounts {
    gar_dur_ns busy, parked, asleep;
} accounts;

/* Tells the host's observer, if any, of an action performed (`repeat` of
 * them as one batch).  Returns nothing. */
static inline void observe(const gar_sim_host *host, gar_wait_op op, gar_mono_ns until,
                           gar_mono_ns at, gar_mono_ns answered, int answer, uint64_t repeat)
{
    if (host->on_action != NULL)
        host->on_action(host->on_action_ctx,
                        &(gar_sim_action){ op, until, at, answered, answer, repeat });
}

/* Feeds a batch of `count` polls (op POLL) or parks (PARK) that the
 * simulator built to the machine's rules for batches (gar/wait.h: the step
 * pending, time not going back, the batch ending before the deadline or
 * the due time): the batch's transition alone, since the checks of
 * gar_wait_feed_polls and gar_wait_feed_parks catch only a driver that
 * breaks those rules.  Debug builds run the checked feed on a copy and
 * hold the two machines to the same bytes.  Returns nothing. */
static inline void feed_built_batch(gar_wait *w, gar_wait_op op, uint64_t count, gar_mono_ns now)
{
#ifndef NDEBUG
    gar_wait checked;
    memcpy(&checked, w, sizeof checked);
    int rc = op == GAR_WAIT_OP_POLL ? gar_wait_feed_polls(&checked, count, now, NULL)
                                    : gar_wait_feed_parks(&checked, count, now, NULL);
    assert(rc == 0);
    (void)rc;
#endif
    if (op == GAR_WAIT_OP_POLL)
        gar__wait_take_polls(w, count, now);
    else
        gar__wait_take_parks(w, count, now);
#ifndef NDEBUG
    assert(memcmp(&checked, w, sizeof checked) == 0);
#endif
}

/* ---- sim_host_polls.c --------------------------------------------------- */

/* At a POLL step at `*t`, fast-forwarded: the turns that surely answer
 * pending before `limit` fed to the machine as one batch (`*t` and the
 * accounts moved past them).  Returns the period of the turn that may
 * not, for the caller to perform alone. */
gar_dur_ns gar__sim_host_fast_turns(gar_sim_host *host, gar_wait *w, gar_mono_ns limit,
                                    gar_mono_ns *t, accounts *acc);

/* At a POLL step at `*t`, turn by turn (exact_polls), the same batch fed.
 * Returns the drawn period of the first turn that may not answer pending
 * before `limit`. */
gar_dur_ns gar__sim_host_single_turns(gar_sim_host *host, gar_wait *w, gar_mono_ns limit,
                                      gar_mono_ns *t, accounts *acc);

/* At a POLL step at `*t` on a hung item: the turns before the deadline fed
 * as one batch.  Returns false when no time is left before the deadline
 * (the turn runs alone), true when fed. */
bool gar__sim_host_skip_hung_polls(gar_sim_host *host, gar_wait *w, gar_mono_ns deadline,
                                   gar_mono_ns *t, accounts *acc);

#endif
