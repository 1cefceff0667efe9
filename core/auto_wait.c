/* core/auto_wait.c — decide, wait, learn (gar/auto_wait.h). */
#include <gar/auto_wait.h>

#include <stddef.h>
#include <string.h>

#include <gar/wait_inline.h>

static int refuse_plan(const char *fn, const gar_plan *plan, gar_error *err)
{
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan",
                         plan == NULL ? "is NULL" : "is not an auto plan");
}

int gar_auto_wait_inline(gar_auto_policy *policy, gar_auto_point *point, const gar_plan *plan,
                         gar_mono_ns deadline, gar_port port, gar_clock clock, gar_idle idle,
                         gar_auto_choice *choice, gar_wait_report *report, gar_error *err)
{
    if (plan == NULL || plan->park != GAR_PARK_AUTO)
        return refuse_plan("gar_auto_wait_inline", plan, err);
    gar_auto_choice chosen;
    int rc = gar_auto_decide(policy, point, plan->budget_ns, &chosen, err);
    if (rc < 0)
        return rc;
    gar_wait_report rep;
    memset(&rep, 0, sizeof rep);
    rc = gar_wait_inline(&chosen.plan, chosen.has_sleep, chosen.sleep_ns, deadline, port, clock,
                         idle, &rep, err);
    /* A failed wait teaches what it saw; a refusal of arguments leaves the
     * report zero, which teaches nothing.  The arguments were checked by
     * gar_auto_decide, so learning cannot fail. */
    (void)gar_auto_learn(policy, point, &chosen, &rep, NULL);
    if (choice != NULL)
        *choice = chosen;
    if (report != NULL)
        *report = rep;
    return rc;
}

int gar_auto_wait_task_init(gar_wait_task *wt, const char *name, gar_auto_policy *policy,
                            const gar_auto_point *point, const gar_plan *plan,
                            gar_mono_ns deadline, gar_port port, gar_auto_choice *choice,
                            gar_error *err)
{
    static const char fn[] = "gar_auto_wait_task_init";
    if (plan == NULL || plan->park != GAR_PARK_AUTO)
        return refuse_plan(fn, plan, err);
    if (choice == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "choice", "is NULL");
    gar_auto_choice chosen;
    int rc = gar_auto_decide(policy, point, plan->budget_ns, &chosen, err);
    if (rc < 0)
        return rc;
    rc = gar_wait_task_init(wt, name, &chosen.plan, chosen.has_sleep, chosen.sleep_ns, deadline,
                            port, err);
    if (rc < 0)
        return rc;
    *choice = chosen;
    return 0;
}
