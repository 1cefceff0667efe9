/* experiments/host_caps.h — the capabilities of the host `gar` runs on, and
 * the --without option that takes some away for a what-if run. */
#ifndef GAR_HOST_CAPS_H
#define GAR_HOST_CAPS_H

#include <gar/caps.h>

/* Probes this host once.  The reasons are static text. */
gar_caps gar_host_caps_probe(void);

/* Applies one `--without NAME` to `caps`: the capability is gone, with the
 * reason "withdrawn by --without" (the same on every host, so what-if runs
 * read the same everywhere).  Returns 0, or -1 when NAME is not a
 * capability (word-wait, io-uring). */
int gar_host_caps_without(gar_caps *caps, const char *name);

#endif
