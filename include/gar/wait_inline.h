/* gar/wait_inline.h — the inline driver (executor kind "naive").
 *
 * Runs one wait to its end on the calling thread: the wait machine
 * (gar/wait.h) decides, and this driver performs each action with the
 * host's blocking calls — query, arm, park, poll and block through the
 * completion port, the predicted sleep through the Idle port's sleep_until —
 * reading the clock once after each answer.  Nothing is allocated; the
 * machine lives on the caller's stack.  The ports are borrowed for the call. */
#ifndef GAR_WAIT_INLINE_H
#define GAR_WAIT_INLINE_H

#include <stdbool.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/plan.h>
#include <gar/port.h>
#include <gar/time.h>
#include <gar/wait.h>

/* Waits under the resolved `plan`, starting at the clock's now.  `has_sleep`,
 * `sleep_ns` and `deadline` are as for gar_wait_init.  Returns 0 when the work
 * is done, or the negated code of the failure: a port's or idle's error
 * unchanged (with `err` as that port filled it), GAR_E_WAIT_DEADLINE, or
 * GAR_E_INVALID_ARGUMENT for bad arguments — those gar_wait_init refuses, a
 * NULL clock.now or port ops table, an op the plan needs left NULL (see
 * gar/port.h), or no idle sleep_until when the wait may sleep — checked
 * before anything runs; or GAR_E_OPS_VERSION, also checked first, for a port
 * or idle ops table of a version this libgar does not know (gar/port.h,
 * gar/idle.h).  `report` (may be NULL) receives the machine's report
 * in every case but a refusal of arguments: on failure it holds the counters
 * up to the failing action. */
GAR_API int gar_wait_inline(const gar_plan *plan, bool has_sleep, gar_dur_ns sleep_ns,
                            gar_mono_ns deadline, gar_port port, gar_clock clock, gar_idle idle,
                            gar_wait_report *report, gar_error *err);

#endif
