/* backends/hosts/kind_host.h — the host an executor kind runs on, and one wait run
 * the way that kind runs it.
 *
 *   naive        the POSIX host; a wait is the inline driver
 *                (gar/wait_inline.h) on the calling thread;
 *   gpu-reactor  the POSIX host; a wait is a task of gar's executor (the
 *                reactor driver, gar/wait_task.h) whose idle is the host's:
 *                sleeps are alarms the executor sleeps to, parks are
 *                registrations the reactor parks on;
 *   io-uring     the same executor, idling through the io_uring host: its
 *                deadline sleeps are io_uring timeouts in ns (a ring the
 *                kernel refuses makes them thread sleeps, counted).
 * The kind is the one that runs, as gar_executor_kind_resolve chose it:
 * nothing here resolves or falls back.
 *
 * Ownership: the caller owns the gar_kind_host; open sets the POSIX host up
 * on the calling thread (its timer slack) and, for io-uring, allocates the
 * io_uring host, which close releases.  The idle it hands out borrows it. */
#ifndef GAR_KIND_HOST_H
#define GAR_KIND_HOST_H

#include <stdbool.h>

#include <gar/error.h>
#include <gar/executor.h>
#include <gar/executor_kind.h>
#include <gar/idle.h>
#include <gar/plan.h>
#include <gar/port.h>
#include <gar/time.h>
#include <gar/wait.h>

#include <gar/posix.h>

typedef struct gar_uring_host gar_uring_host;

typedef struct gar_kind_host {
    gar_executor_kind kind;
    gar_posix_host posix;  /* read its report; set up by open */
    gar_uring_host *uring; /* io-uring: the io_uring host; else NULL */
} gar_kind_host;

/* What the io_uring host's sleeps did (zeros for the other kinds). */
typedef struct gar_kind_host_sleeps {
    unsigned long long timeouts;  /* sleeps run as io_uring timeouts */
    unsigned long long fallbacks; /* sleeps run as thread sleeps instead */
    const char *why;              /* static: why the last fallback, or NULL */
} gar_kind_host_sleeps;

/* Sets the host of `kind` up.  Returns 0, or -GAR_E_INVALID_ARGUMENT (NULL
 * host, a value not a kind), -GAR_E_BACKEND (the POSIX host's set-up or the
 * io_uring host's allocation failed, or io-uring asked of a gar built
 * without liburing), with nothing left to close. */
int gar_kind_host_open(gar_kind_host *host, gar_executor_kind kind, gar_error *err);

/* Releases what open allocated.  NULL and a host never opened (zeroed) are
 * allowed. */
void gar_kind_host_close(gar_kind_host *host);

/* The host's Idle port: the io_uring host's for io-uring, else the POSIX
 * host's.  Borrows `host`. */
gar_idle gar_kind_host_idle(gar_kind_host *host);

/* The io_uring host's sleep counts so far. */
gar_kind_host_sleeps gar_kind_host_sleep_stats(const gar_kind_host *host);

/* Runs one wait the way `kind` runs it, on the calling thread, through
 * `clock` and `idle` (usually gar_posix_clock and gar_kind_host_idle; a
 * caller may wrap either to time them).  `plan`, `has_sleep`, `sleep_ns`,
 * `deadline` and `port` are as for gar_wait_inline, and so is what it
 * returns: 0 done, or the wait's (or a refused argument's) negated code,
 * with `report` (may be NULL) holding the machine's report.  The reactor
 * kinds run the wait as the one task of an executor of their own
 * (gar_block_on); `stats` (may be NULL) receives its statistics, zeros for
 * naive. */
int gar_kind_wait(gar_executor_kind kind, const gar_plan *plan, bool has_sleep,
                  gar_dur_ns sleep_ns, gar_mono_ns deadline, gar_port port, gar_clock clock,
                  gar_idle idle, gar_wait_report *report, gar_executor_stats *stats,
                  gar_error *err);

#endif
