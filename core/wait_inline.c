/* core/wait_inline.c — the inline driver: a loop over the machine's actions. */
#include <gar/wait_inline.h>

#include <stddef.h>

#include "ops_version.h"

/* Whether `port` has every op `plan` can ask for. */
static bool port_serves(const gar_port_ops *ops, gar_park park)
{
    switch (park) {
    case GAR_PARK_BLOCK:
        return ops->block != NULL;
    case GAR_PARK_POLL:
        return ops->query != NULL && ops->poll != NULL;
    case GAR_PARK_FLAG:
        return ops->query != NULL && ops->arm != NULL && ops->park != NULL;
    case GAR_PARK_AUTO:
        return false; /* never reached: gar_wait_init refuses it */
    }
    return false;
}

int gar_wait_inline(const gar_plan *plan, bool has_sleep, gar_dur_ns sleep_ns,
                    gar_mono_ns deadline, gar_port port, gar_clock clock, gar_idle idle,
                    gar_wait_report *report, gar_error *err)
{
    static const char fn[] = "gar_wait_inline";
    if (clock.now == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "clock", "has no now");
    if (port.ops == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "port", "has no ops table");
    int rc = gar__ops_version_check(fn, "gar_port_ops", port.ops->version, GAR_PORT_OPS_VERSION,
                                    err);
    if (rc == 0 && idle.ops != NULL)
        rc = gar__ops_version_check(fn, "gar_idle_ops", idle.ops->version, GAR_IDLE_OPS_VERSION,
                                    err);
    if (rc < 0)
        return rc;

    gar_wait w;
    rc = gar_wait_init(&w, plan, has_sleep, sleep_ns, gar_clock_now(clock), deadline, err);
    if (rc < 0)
        return rc;
    if (!port_serves(port.ops, plan->park))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "port",
                             "lacks an op the plan needs");
    bool may_sleep = plan->predict && has_sleep && sleep_ns > 0;
    if (may_sleep && (idle.ops == NULL || idle.ops->sleep_until == NULL))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "idle",
                             "has no sleep_until, and the wait may sleep");

    gar_descriptor word = { 0 }; /* written by ARM, parked on by PARK */
    for (;;) {
        gar_wait_action a = gar_wait_next(&w);
        switch (a.op) {
        case GAR_WAIT_OP_QUERY:
            rc = port.ops->query(port.ctx, err);
            break;
        case GAR_WAIT_OP_ARM:
            rc = port.ops->arm(port.ctx, &word, err);
            break;
        case GAR_WAIT_OP_SLEEP_UNTIL:
            rc = idle.ops->sleep_until(idle.ctx, a.until, err);
            break;
        case GAR_WAIT_OP_PARK:
            rc = port.ops->park(port.ctx, &word, a.until, err);
            break;
        case GAR_WAIT_OP_POLL:
            rc = port.ops->poll(port.ctx, err);
            break;
        case GAR_WAIT_OP_BLOCK:
            rc = port.ops->block(port.ctx, err);
            break;
        case GAR_WAIT_OP_DONE:
        case GAR_WAIT_OP_FAILED:
            if (report != NULL)
                *report = gar_wait_report_of(&w);
            return a.code; /* 0 when done */
        }
        /* A refused feed ends the wait; the next turn returns its code. */
        (void)gar_wait_feed(&w, rc, gar_clock_now(clock), err);
    }
}
