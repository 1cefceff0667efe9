/* experiments/cli/host_caps.c — this host's capabilities, as its backends probe
 * them: the word wait through the POSIX host that would park with it, the
 * io_uring through a ring set up and timed out once.  Everything that asks
 * what the host offers goes through gar_host_caps_probe. */
#include <gar/uring.h>

#include "cli/host_caps.h"

#ifdef GAR_HAVE_URING_HOST
#endif

gar_caps gar_host_caps_probe(void)
{
    gar_posix_host host;
    return gar_host_caps_of(gar_posix_host_init(&host, NULL, NULL) == 0 ? &host : NULL);
}

gar_caps gar_host_caps_of(const gar_posix_host *host)
{
    gar_caps caps = { 0 };
    if (host != NULL) {
        gar_posix_host_caps(host, &caps); /* its reasons are static text */
    } else {
        caps.word_wait = false;
        caps.word_wait_why = "the POSIX host could not be set up";
    }
#ifdef GAR_HAVE_URING_HOST
    const char *why = NULL;
    caps.io_uring = gar_uring_probe(&why);
    caps.io_uring_why = why;
#else
    caps.io_uring = false;
    caps.io_uring_why = "this build has no io_uring host (liburing was not found)";
#endif
    return caps;
}

int gar_host_caps_without(gar_caps *caps, const char *name)
{
    return gar_caps_withdraw(caps, name, "withdrawn by --without", NULL) == 0 ? 0 : -1;
}

int gar_host_caps_without_option(const char *name, void *to)
{
    return gar_host_caps_without(to, name);
}
