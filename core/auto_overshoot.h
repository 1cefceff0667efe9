/* core/auto_overshoot.h — the auto policy's view of its sleeps' overshoot,
 * for the tests that check what it learned.
 *
 * Internal to libgar (not installed, not exported): the policy's choices
 * (gar/auto_policy.h) are its public face; this reads one of their inputs. */
#ifndef GAR_AUTO_OVERSHOOT_H
#define GAR_AUTO_OVERSHOOT_H

#include <stdint.h>

#include <gar/auto_policy.h>

/* The sleep overshoot's survival as the policy now weighs it: P(O > v), in
 * ppm (GAR_AUTO_LEVEL_ONE is certain), prior and wakes learned mixed. */
uint32_t gar_auto_overshoot_above(gar_auto_policy *policy, gar_dur_ns v);

#endif
