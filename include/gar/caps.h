/* gar/caps.h — what a host offers, as probed once by the host (never by the core).
 *
 * Plans and executor kinds resolve against this record.  Each capability that
 * is missing carries the reason, which the fallback warnings quote.  The
 * record borrows its reason strings: they must outlive every resolution that
 * reads them (a host keeps them for its own lifetime; static text is usual). */
#ifndef GAR_CAPS_H
#define GAR_CAPS_H

#include <stdbool.h>

#include <gar/api.h>
#include <gar/error.h>

typedef struct gar_caps {
    bool word_wait;              /* "word-wait": a device-written word the host can park on in user mode */
    const char *word_wait_why;   /* why not, when !word_wait */
    bool io_uring;               /* an io_uring that can be set up, for ns deadline sleeps */
    const char *io_uring_why;    /* why not, when !io_uring */
} gar_caps;

/* Names of the capabilities as warnings and the CLI's --without spell them. */
#define GAR_CAP_WORD_WAIT "word-wait"
#define GAR_CAP_IO_URING "io-uring"

/* Whether `caps` offers the capability spelled `name` (GAR_CAP_*).  When it
 * does not and `why` is not NULL, `*why` gets the record's reason ("no reason
 * given" when it has none; "not a capability" for an unknown name). */
GAR_API bool gar_caps_has(const gar_caps *caps, const char *name, const char **why);

/* Takes capability `name` away from `caps`, with `why` (borrowed, like every
 * reason of the record) as the reason.  For what-if runs: "this host without
 * word-wait".  Returns 0, or -GAR_E_INVALID_ARGUMENT when `name` is not a
 * capability or an argument is NULL. */
GAR_API int gar_caps_withdraw(gar_caps *caps, const char *name, const char *why, gar_error *err);

#endif
