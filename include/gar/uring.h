/* gar/uring.h — the io_uring host: the POSIX host with its
 * deadline sleep run by the kernel as one io_uring timeout in ns.
 *
 * Idle port:
 *   sleep_until  one IORING_OP_TIMEOUT on a ring of 8 entries, with an
 *                absolute CLOCK_MONOTONIC __kernel_timespec (IORING_TIMEOUT_ABS:
 *                no remainder to carry, no timer slack).  -ETIME is its
 *                normal completion.  A sleep the ring cannot run — the ring
 *                was refused at set-up, the kernel refused the timeout, the
 *                submission or the wait failed, or the completion came before
 *                its target — runs (or finishes) as the POSIX host's thread
 *                sleep, and is counted as a fallback with its reason: never
 *                hidden.  Either way it never returns before its target.
 *   park         the POSIX host's park (word wait or spin-yield), as is.
 *
 * Each sleep's submission carries a tag; a completion with another tag (a
 * timeout abandoned after a failed wait) is consumed and dropped, so it can
 * never end a later sleep early.
 *
 * Ownership: open allocates the host and its ring; close releases both.
 * The POSIX host is borrowed and must outlive the io_uring host; the gar_idle
 * borrows the io_uring host.  One thread sleeps on a host at a time (the
 * executor's); the stats are that thread's to read. */
#ifndef GAR_URING_H
#define GAR_URING_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/posix.h>

#define GAR_URING_ENTRIES 8u /* the ring's submission entries: one sleep is in flight at a time */

/* Faults to inject, for tests and what-if runs; all zero is a normal host. */
typedef struct gar_uring_host_options {
    int refuse_setup;     /* nonzero: set-up acts as if the ring's creation failed with this errno */
    bool refuse_timeouts; /* submit every timeout with a flag the kernel refuses (EINVAL) */
} gar_uring_host_options;

/* What the host's sleeps did. */
typedef struct gar_uring_stats {
    uint64_t timeouts;            /* sleeps the ring ran to their target (ETIME) */
    uint64_t fallbacks;           /* sleeps run or finished as thread sleeps */
    const char *last_fallback_why; /* static; NULL until the first fallback */
    int last_fallback_errno;      /* the error behind it, when there was one; else 0 */
} gar_uring_stats;

typedef struct gar_uring_host gar_uring_host; /* opaque */

/* Whether an io_uring can be set up here and runs an absolute timeout to
 * ETIME.  Returns true, or false with *why (static text; `why` may be NULL)
 * naming the refusal, e.g. ENOSYS or EPERM from the ring's creation. */
GAR_API bool gar_uring_probe(const char **why);

/* Opens a host over `posix` (set up, borrowed).  `options` may be NULL.  A
 * ring that cannot be set up is not an error: the host then sleeps as the
 * POSIX host does, counting every sleep as a fallback, and
 * gar_uring_host_ring_why says why.  Returns 0 with *out set, or with *out
 * untouched -GAR_E_INVALID_ARGUMENT (NULL out or posix) or -GAR_E_BACKEND
 * (no memory). */
GAR_API int gar_uring_host_open(gar_uring_host **out, gar_posix_host *posix,
                                const gar_uring_host_options *options, gar_error *err);

/* Why the host has no ring (static text), or NULL when it has one. */
GAR_API const char *gar_uring_host_ring_why(const gar_uring_host *host);

/* The counts so far. */
GAR_API gar_uring_stats gar_uring_host_stats(const gar_uring_host *host);

/* The host's Idle port (borrows `host`).  Its sleep refuses nothing and
 * fails only as the POSIX host's sleep does (-GAR_E_BACKEND). */
GAR_API gar_idle gar_uring_host_idle(gar_uring_host *host);

/* Releases the ring and the host.  NULL is allowed. */
GAR_API void gar_uring_host_close(gar_uring_host *host);

#endif
