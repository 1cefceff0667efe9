/* sim/sim_host.c — the simulator's driver of the wait machine.
 *
 * One loop: ask the machine for its action, perform it in virtual time with
 * the profile's costs, feed back the answer and the time it was seen.  The
 * cost rules are in sim_host.h. */
#include "sim_host.h"

#include <assert.h>
#include <stdio.h>

int gar_sim_host_init(gar_sim_host *host, const gar_host_profile *profile, uint64_t seed,
                      gar_error *err)
{
    if (host == NULL || profile == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_host_init",
                             host == NULL ? "host" : "profile", "is NULL");
    host->profile = *profile;
    host->prng = gar_prng_seeded(seed);
    return 0;
}

static gar_dur_ns draw(gar_sim_host *host, const gar_host_dist *dist)
{
    return gar_host_dist_sample(dist, gar_prng_next(&host->prng));
}

/* The time accounts of one wait, and where charges go. */
typedef struct accounts {
    gar_dur_ns busy, parked, asleep;
} accounts;

static int deadline_passed(gar_mono_ns deadline, gar_error *err)
{
    char at[24];
    snprintf(at, sizeof at, "%llu ns", (unsigned long long)deadline);
    return gar_error_set(err, GAR_E_WAIT_DEADLINE, 2, "simulated blocking wait", at);
}

/* The block's answer: 0 once the status is done, the status's error else. */
static int block_answer(gar_sim_device *dev, const gar_sim_work *work, gar_mono_ns at,
                        gar_error *err)
{
    int status = gar_sim_device_status(dev, work, at, err);
    assert(status != 0);
    return status < 0 ? status : 0;
}

/* BLOCK at `t`: returns the answer and moves `t` to when it is seen. */
static int perform_block(gar_sim_host *host, gar_sim_device *dev, const gar_sim_work *work,
                         gar_mono_ns deadline, gar_mono_ns *t, accounts *acc, gar_error *err)
{
    gar_dur_ns q = host->profile.query_ns;
    gar_mono_ns called = gar_after(*t, q);
    acc->busy += called - *t;
    *t = called;
    if (work->done_at <= called)
        return block_answer(dev, work, called, err);
    gar_mono_ns wake = work->done_at == GAR_MONO_NEVER
                           ? GAR_MONO_NEVER
                           : gar_after(work->done_at, draw(host, &host->profile.block_wake));
    if (wake > deadline) {
        gar_mono_ns end = deadline > called ? deadline : called;
        acc->asleep += end - called;
        *t = end;
        return deadline_passed(deadline, err);
    }
    acc->asleep += wake - called;
    *t = wake;
    return block_answer(dev, work, wake, err);
}

/* PARK at `t` until `until`. */
static int perform_park(gar_sim_host *host, gar_sim_device *dev, const gar_sim_work *work,
                        gar_mono_ns until, gar_mono_ns *t, accounts *acc)
{
    gar_sim_device_advance(dev, *t);
    if (gar_descriptor_reached(&work->word))
        return 1;
    if (until <= *t)
        return 0;
    gar_mono_ns wake = until;
    int answer = 0;
    if (work->store_at <= until) {
        gar_mono_ns seen = gar_after(work->store_at, draw(host, &host->profile.park_wake));
        wake = seen < until ? seen : until;
        answer = 1;
    }
    gar_dur_ns d = wake - *t;
    if (host->profile.word_wait)
        acc->parked += d;
    else
        acc->busy += d;
    *t = wake;
    gar_sim_device_advance(dev, wake);
    assert(answer == 0 || gar_descriptor_reached(&work->word));
    return answer;
}

int gar_sim_host_wait(gar_sim_host *host, gar_sim_device *dev, gar_sim_work *work,
                      const gar_plan *plan, bool has_sleep, gar_dur_ns sleep_ns,
                      gar_mono_ns start, gar_mono_ns deadline, gar_sim_wait_result *out,
                      gar_error *err)
{
    if (host == NULL || dev == NULL || work == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sim_host_wait",
                             host == NULL ? "host" : dev == NULL ? "dev"
                                                   : work == NULL ? "work" : "out",
                             "is NULL");
    gar_wait w;
    int rc = gar_wait_init(&w, plan, has_sleep, sleep_ns, start, deadline, err);
    if (rc < 0)
        return rc;

    const gar_host_profile *hp = &host->profile;
    accounts acc = { 0, 0, 0 };
    gar_mono_ns t = start;
    for (;;) {
        gar_wait_action a = gar_wait_next(&w);
        int answer;
        gar_mono_ns from = t;
        switch (a.op) {
        case GAR_WAIT_OP_QUERY:
            t = gar_after(t, hp->query_ns);
            acc.busy += t - from;
            answer = gar_sim_device_status(dev, work, t, err);
            break;
        case GAR_WAIT_OP_POLL:
            t = gar_after(gar_after(t, draw(host, &hp->poll_period)), hp->query_ns);
            acc.busy += t - from;
            answer = gar_sim_device_status(dev, work, t, err);
            break;
        case GAR_WAIT_OP_ARM:
            t = gar_after(t, hp->query_ns);
            acc.busy += t - from;
            gar_sim_device_arm(dev, work, t);
            answer = 0;
            break;
        case GAR_WAIT_OP_SLEEP_UNTIL:
            t = gar_after(a.until > t ? a.until : t, draw(host, &hp->sleep_overshoot));
            acc.asleep += t - from;
            answer = 0;
            break;
        case GAR_WAIT_OP_PARK:
            answer = perform_park(host, dev, work, a.until, &t, &acc);
            break;
        case GAR_WAIT_OP_BLOCK:
            answer = perform_block(host, dev, work, deadline, &t, &acc, err);
            break;
        case GAR_WAIT_OP_DONE:
        case GAR_WAIT_OP_FAILED:
        default:
            goto ended;
        }
        /* The driver reads the clock after every answer. */
        gar_mono_ns seen = gar_after(t, hp->clock_ns);
        acc.busy += seen - t;
        t = seen;
        gar_wait_feed(&w, answer, t, err);
    }
ended:;
    gar_wait_action last = gar_wait_next(&w);
    *out = (gar_sim_wait_result){
        .report = gar_wait_report_of(&w),
        .start = start,
        .end = t,
        .busy_ns = acc.busy,
        .parked_ns = acc.parked,
        .asleep_ns = acc.asleep,
    };
    return last.op == GAR_WAIT_OP_DONE ? 0 : last.code;
}
