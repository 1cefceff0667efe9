/* experiments/cli/host_caps.h — the capabilities of the host `gar` runs on, and
 * the --without option that takes some away for a what-if run. */
#ifndef GAR_HOST_CAPS_H
#define GAR_HOST_CAPS_H

#include <gar/caps.h>
#include <gar/posix.h>

/* Probes this host once (its word wait and its io_uring).  The reasons are
 * static text.  Sets the calling thread's timer slack to 1 ns, as the POSIX
 * host that is probed does. */
gar_caps gar_host_caps_probe(void);

/* The same record for a POSIX host the caller set up (NULL: one whose set-up
 * failed): its word wait, and this host's io_uring, probed now. */
gar_caps gar_host_caps_of(const gar_posix_host *host);

/* Applies one `--without NAME` to `caps`: the capability is gone, with the
 * reason "withdrawn by --without" (the same on every host, so what-if runs
 * read the same everywhere).  Returns 0, or -1 when NAME is not a
 * capability (word-wait, io-uring). */
int gar_host_caps_without(gar_caps *caps, const char *name);

/* The --without row of a verb's option table (cli_options.h): `to` is the
 * verb's gar_caps.  Refused with GAR_HOST_CAPS_WITHOUT_REFUSAL. */
int gar_host_caps_without_option(const char *name, void *to);
#define GAR_HOST_CAPS_WITHOUT_REFUSAL "--without takes word-wait or io-uring"

#endif
