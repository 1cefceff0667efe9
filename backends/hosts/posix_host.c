/* backends/hosts/posix_host.c — the plain POSIX host's clock, sleep and park. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep, sched_yield */

#include <assert.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <gar/posix.h>

#include "cpu_relax.h"
#include "monotonic_now.h"

/* ---- clock ---------------------------------------------------------------- */

gar_mono_ns gar_posix_now(void)
{
    return gar__monotonic_now();
}

static gar_mono_ns posix_clock_now(void *ctx)
{
    (void)ctx;
    return gar_posix_now();
}

gar_clock gar_posix_clock(void)
{
    return (gar_clock){ .now = posix_clock_now, .ctx = NULL };
}

/* ---- timer slack ---------------------------------------------------------- */

void gar_posix_tighten_timer_slack(gar_timer_slack *out)
{
    assert(out != NULL);
    *out = (gar_timer_slack){ 0 };
#ifdef __linux__
    /* 1 ns is the least there is: 0 would mean "back to the default". */
    out->set = prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) == 0;
    int slack = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    out->known = slack >= 0;
    out->ns = out->known ? (uint64_t)slack : 0;
    if (!out->set)
        out->why = "the system refused PR_SET_TIMERSLACK";
    else if (!out->known)
        out->why = "the system refused PR_GET_TIMERSLACK";
#else
    out->why = "timer slack is a Linux setting; this system has none to set";
#endif
}

/* ---- sleep ---------------------------------------------------------------- */

static int posix_sleep_until(void *ctx, gar_mono_ns until, gar_error *err)
{
    (void)ctx;
    const struct timespec target = {
        .tv_sec = (time_t)(until / GAR_NS_PER_S),
        .tv_nsec = (long)(until % GAR_NS_PER_S),
    };
    int rc;
    /* An absolute target makes resuming after a signal exact: no remainder
     * to carry, and no drift from the time spent in the handler. */
    do
        rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, NULL);
    while (rc == EINTR);
    if (rc != 0)
        return gar_error_set(err, GAR_E_BACKEND, 2, "clock_nanosleep(CLOCK_MONOTONIC)",
                             strerror(rc));
    return 0;
}

/* ---- park: spin-yield ----------------------------------------------------- */

/* Both parks' refusal of a missing line or snapshot: its code, else 0. */
static int refuse_null_park(const gar_line *line, const uint64_t *seen, gar_error *err)
{
    if (line == NULL || seen == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_posix_host park",
                             line == NULL ? "line" : "seen", "is NULL");
    return 0;
}

/* Looks at the line until it differs from `seen` (1) or the clock reaches
 * `until` (0).  The line is checked before the clock, so a line that already
 * differs answers 1 even when `until` has passed. */
static int park_spin_yield(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                           gar_mono_ns until, gar_error *err)
{
    const gar_posix_host *host = ctx;
    assert(host != NULL);
    int rc = refuse_null_park(line, seen, err);
    if (rc < 0)
        return rc;

    const uint32_t spins_per_yield = host->report.spins_per_yield;
    assert(spins_per_yield > 0);
    for (uint32_t spins = 1;; spins++) {
        if (!gar_line_unchanged(line, seen))
            return 1;
        if (gar_posix_now() >= until)
            return 0;
        if (spins % spins_per_yield == 0)
            sched_yield(); /* let a thread that shares this core run (maybe the storer) */
        else
            gar_cpu_relax();
    }
}

static const gar_idle_ops spin_yield_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = posix_sleep_until,
    .park = park_spin_yield,
};

/* ---- park: word wait ------------------------------------------------------ */

static int park_word_wait(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                          gar_mono_ns until, gar_error *err)
{
    const gar_posix_host *host = ctx;
    assert(host != NULL);
    int rc = refuse_null_park(line, seen, err);
    if (rc < 0)
        return rc;
    return gar_word_wait_park(&host->report.word_wait, line, seen, until, err);
}

static const gar_idle_ops word_wait_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = posix_sleep_until,
    .park = park_word_wait,
};

/* ---- set-up --------------------------------------------------------------- */

int gar_posix_host_init(gar_posix_host *host, const gar_posix_host_options *options,
                        gar_error *err)
{
    static const gar_posix_host_options defaults = { 0 };
    if (host == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_posix_host_init", "host",
                             "is NULL");
    if (options == NULL)
        options = &defaults;
    if (options->park != GAR_POSIX_PARK_BEST && options->park != GAR_POSIX_PARK_SPIN_YIELD &&
        options->park != GAR_POSIX_PARK_WORD_WAIT)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_posix_host_init",
                             "options->park", "is not a gar_posix_park");

    gar_posix_host_report report = { 0 };
    const gar_idle_ops *ops = &spin_yield_ops;
    if (options->park == GAR_POSIX_PARK_SPIN_YIELD) {
        /* Not probed: a spin-yield host runs no instruction it has not asked for. */
        report.word_wait = (gar_word_wait){ .kind = GAR_WORD_WAIT_NONE, .name = "none",
                                            .why = "spin-yield was asked for" };
    } else if (gar_word_wait_probe(&report.word_wait, NULL) == 1) {
        ops = &word_wait_ops;
    } else if (options->park == GAR_POSIX_PARK_WORD_WAIT) {
        return gar_error_set(err, GAR_E_BACKEND, 2, "the word wait probe", report.word_wait.why);
    }
    if (ops == &word_wait_ops) {
        report.park = report.word_wait.name;
    } else {
        report.park = "spin-yield";
        report.word_wait_why = report.word_wait.why;
    }
    report.spins_per_yield = options->spins_per_yield != 0 ? options->spins_per_yield
                                                           : GAR_POSIX_SPINS_PER_YIELD_DEFAULT;
    gar_posix_tighten_timer_slack(&report.timer_slack);

    host->report = report;
    host->idle_ops = ops;
    return 0;
}

gar_idle gar_posix_host_idle(gar_posix_host *host)
{
    assert(host != NULL && host->idle_ops != NULL); /* set up by gar_posix_host_init */
    return (gar_idle){ .ops = host->idle_ops, .ctx = host };
}

void gar_posix_host_caps(const gar_posix_host *host, gar_caps *out)
{
    assert(host != NULL && out != NULL);
    *out = (gar_caps){
        .word_wait = host->report.word_wait_why == NULL,
        .word_wait_why = host->report.word_wait_why,
        .io_uring = false,
        .io_uring_why = "the POSIX host sleeps with clock_nanosleep",
    };
}
