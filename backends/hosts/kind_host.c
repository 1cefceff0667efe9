/* backends/hosts/kind_host.c — the host an executor kind runs on (kind_host.h). */
#include "kind_host.h"

#include <string.h>

#include <gar/wait_inline.h>
#include <gar/wait_task.h>

#ifdef GAR_HAVE_URING_HOST
#include <gar/uring.h>
#endif

int gar_kind_host_open(gar_kind_host *host, gar_executor_kind kind, gar_error *err)
{
    static const char fn[] = "gar_kind_host_open";
    if (host == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "host", "is NULL");
    if (kind != GAR_EXECUTOR_NAIVE && kind != GAR_EXECUTOR_GPU_REACTOR &&
        kind != GAR_EXECUTOR_IO_URING)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "kind", "is not a kind");
#ifndef GAR_HAVE_URING_HOST
    if (kind == GAR_EXECUTOR_IO_URING)
        return gar_error_set(err, GAR_E_BACKEND, 2, "setting up the io-uring executor",
                             "this gar was built without liburing");
#endif
    memset(host, 0, sizeof *host);
    int rc = gar_posix_host_init(&host->posix, NULL, err);
    if (rc < 0)
        return rc;
    host->kind = kind;
#ifdef GAR_HAVE_URING_HOST
    if (kind == GAR_EXECUTOR_IO_URING)
        return gar_uring_host_open(&host->uring, &host->posix, NULL, err);
#endif
    return 0;
}

void gar_kind_host_close(gar_kind_host *host)
{
    if (host == NULL)
        return;
#ifdef GAR_HAVE_URING_HOST
    gar_uring_host_close(host->uring);
#endif
    host->uring = NULL;
}

gar_idle gar_kind_host_idle(gar_kind_host *host)
{
#ifdef GAR_HAVE_URING_HOST
    if (host->uring != NULL)
        return gar_uring_host_idle(host->uring);
#endif
    return gar_posix_host_idle(&host->posix);
}

gar_kind_host_sleeps gar_kind_host_sleep_stats(const gar_kind_host *host)
{
    gar_kind_host_sleeps out = { 0, 0, NULL };
#ifdef GAR_HAVE_URING_HOST
    if (host->uring != NULL) {
        gar_uring_stats s = gar_uring_host_stats(host->uring);
        out.timeouts = s.timeouts;
        out.fallbacks = s.fallbacks;
        out.why = s.last_fallback_why;
    }
#else
    (void)host;
#endif
    return out;
}

int gar_kind_wait(gar_executor_kind kind, const gar_plan *plan, bool has_sleep,
                  gar_dur_ns sleep_ns, gar_mono_ns deadline, gar_port port, gar_clock clock,
                  gar_idle idle, gar_wait_report *report, gar_executor_stats *stats,
                  gar_error *err)
{
    if (stats != NULL)
        memset(stats, 0, sizeof *stats);
    if (kind == GAR_EXECUTOR_NAIVE)
        return gar_wait_inline(plan, has_sleep, sleep_ns, deadline, port, clock, idle, report,
                               err);
    if (kind != GAR_EXECUTOR_GPU_REACTOR && kind != GAR_EXECUTOR_IO_URING)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_kind_wait", "kind",
                             "is not a kind");
    gar_wait_task wt;
    int rc = gar_wait_task_init(&wt, "wait", plan, has_sleep, sleep_ns, deadline, port, err);
    if (rc < 0)
        return rc;
    rc = gar_block_on(&wt.task, clock, idle, stats, err);
    if (report != NULL)
        *report = gar_wait_task_report(&wt);
    return rc;
}
