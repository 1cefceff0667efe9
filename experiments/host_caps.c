/* experiments/host_caps.c — this host's capabilities.
 *
 * The probe is a stand-in that offers nothing, until the backends' real
 * probes (user-mode word wait, io_uring set-up) replace its body; everything
 * that asks what the host offers goes through gar_host_caps_probe. */
#include "host_caps.h"

gar_caps gar_host_caps_probe(void)
{
    gar_caps caps = {
        .word_wait = false,
        .word_wait_why = "no word-wait probe in this build",
        .io_uring = false,
        .io_uring_why = "no io_uring probe in this build",
    };
    return caps;
}

int gar_host_caps_without(gar_caps *caps, const char *name)
{
    return gar_caps_withdraw(caps, name, "withdrawn by --without", NULL) == 0 ? 0 : -1;
}
