/* sim/profile_caps.c — a host profile's capabilities (profile_caps.h). */
#include "sim/profile_caps.h"

#include <assert.h>

gar_caps gar_host_profile_caps(const gar_host_profile *profile)
{
    assert(profile != NULL);
    return (gar_caps){ .word_wait = profile->word_wait,
                       .word_wait_why = "the host profile says word_wait no",
                       .io_uring = true,
                       .io_uring_why = NULL };
}
