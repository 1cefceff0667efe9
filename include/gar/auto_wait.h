/* gar/auto_wait.h — an "auto:p99_us=B" wait through the inline driver or the
 * reactor driver: the rule (gar/auto_policy.h) chooses, the driver runs the
 * plan it chose exactly as it runs a fixed one, and the report is fed back.
 *
 * The three steps are the same in every driver — gar_auto_decide, the wait,
 * gar_auto_learn — so a simulated run (sim/replay.h) and a real one make the
 * same choices from the same reports.  These helpers only save writing them
 * out; a driver of one's own (the libuv adapter's user, gar/uv.h) calls the
 * two functions around its own wait.
 *
 * Ownership: the policy and the point are the caller's (gar/auto_policy.h:
 * one policy per waiting thread, one point per call site); the ports are
 * borrowed for the call, as gar_wait_inline and gar_wait_task_init borrow
 * them. */
#ifndef GAR_AUTO_WAIT_H
#define GAR_AUTO_WAIT_H

#include <gar/api.h>
#include <gar/auto_policy.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/plan.h>
#include <gar/port.h>
#include <gar/time.h>
#include <gar/wait.h>
#include <gar/wait_task.h>

/* One wait at `point` under `plan` (an auto plan: its budget_ns is the
 * budget), on the calling thread: decides, runs gar_wait_inline with the
 * choice, and learns from its report when the wait ran (done or failed).
 * `choice` and `report` (each may be NULL) receive what was chosen and the
 * report.  Returns what gar_wait_inline returns, or -GAR_E_INVALID_ARGUMENT
 * (nothing run) for a NULL policy, point or plan, or a plan that is not
 * auto. */
GAR_API int gar_auto_wait_inline(gar_auto_policy *policy, gar_auto_point *point,
                                 const gar_plan *plan, gar_mono_ns deadline, gar_port port,
                                 gar_clock clock, gar_idle idle, gar_auto_choice *choice,
                                 gar_wait_report *report, gar_error *err);

/* Prepares `wt` (gar/wait_task.h) for the next wait at `point` under the
 * auto `plan`: decides, writes the choice to `*choice`, and initialises the
 * task with its plan and sleep.  Spawn `&wt->task`; once it finished, call
 * gar_auto_learn(policy, point, choice, &report) with
 * gar_wait_task_report(wt).  Returns 0, -GAR_E_INVALID_ARGUMENT for a NULL
 * argument or a plan that is not auto, or what gar_wait_task_init refuses
 * (with its code). */
GAR_API int gar_auto_wait_task_init(gar_wait_task *wt, const char *name, gar_auto_policy *policy,
                                    const gar_auto_point *point, const gar_plan *plan,
                                    gar_mono_ns deadline, gar_port port, gar_auto_choice *choice,
                                    gar_error *err);

#endif
