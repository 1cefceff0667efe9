/* sim/profile_caps.h — the capabilities a host profile describes, as the
 * record plans and bands resolve against (gar/caps.h).
 *
 * Every replay resolves its plan against the host it simulates, whether the
 * command replays one trace or a sweep replays thousands, so both ask here
 * and a run's fallbacks read the same everywhere. */
#ifndef GAR_SIM_PROFILE_CAPS_H
#define GAR_SIM_PROFILE_CAPS_H

#include <gar/caps.h>

#include "sim/host_profile.h"

/* What the host `profile` describes offers: word_wait exactly when its
 * profile says parks are hardware parks (the reason, static text, when not);
 * io_uring always, since the simulator takes every deadline sleep on its
 * virtual clock and needs no ring.  Returns the record by value; it borrows
 * nothing from `profile`. */
gar_caps gar_host_profile_caps(const gar_host_profile *profile);

#endif
