/* backends/hosts/uring_host.c — deadline sleeps as io_uring timeouts. */
#define _POSIX_C_SOURCE 200809L

#include <assert.h>
#include <errno.h>
#include <stdlib.h>

#include <liburing.h>

#include <gar/uring.h>

/* A timeout flag no kernel accepts (io_uring refuses unknown flags with
 * EINVAL): how refuse_timeouts makes the kernel itself refuse. */
#define TIMEOUT_FLAG_NONE_ACCEPTS (1u << 31)

struct gar_uring_host {
    struct io_uring ring;
    bool ring_up;
    const char *ring_why; /* why not ring_up */
    int ring_errno;
    bool refuse_timeouts;
    uint64_t last_tag; /* of the latest submission */
    gar_idle posix;    /* the thread sleep of the fallbacks, and the park */
    gar_uring_stats stats;
};

/* Why the ring's creation failed, as static text. */
static const char *setup_why(int error)
{
    switch (error) {
    case ENOSYS:
        return "io_uring_queue_init: ENOSYS (the kernel has no io_uring)";
    case EPERM:
        return "io_uring_queue_init: EPERM (io_uring is disabled for this process: "
               "kernel.io_uring_disabled, or a seccomp filter)";
    case ENOMEM:
        return "io_uring_queue_init: ENOMEM (no memory for the ring, or RLIMIT_MEMLOCK)";
    case EMFILE:
    case ENFILE:
        return "io_uring_queue_init: no file descriptor left for the ring";
    case EINVAL:
        return "io_uring_queue_init: EINVAL (the kernel refused the ring's parameters)";
    default:
        return "io_uring_queue_init failed";
    }
}

/* Runs one absolute timeout to `until` on `ring`, tagged `tag`: 0 when it
 * completed with ETIME, else -1 with *why and *error. */
static int ring_timeout(struct io_uring *ring, uint64_t tag, gar_mono_ns until, unsigned extra_flags,
                        const char **why, int *error)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (sqe == NULL) {
        *why = "the ring had no free submission entry";
        *error = 0;
        return -1;
    }
    /* The kernel reads the timespec at submission, which the call below
     * makes before it returns: a local outlives its use. */
    struct __kernel_timespec ts = {
        .tv_sec = (long long)(until / GAR_NS_PER_S),
        .tv_nsec = (long long)(until % GAR_NS_PER_S),
    };
    io_uring_prep_timeout(sqe, &ts, 0, IORING_TIMEOUT_ABS | extra_flags);
    sqe->user_data = tag;

    int rc;
    do /* interrupted before submitting: the entry stays queued, so retry */
        rc = io_uring_submit_and_wait(ring, 1);
    while (rc == -EINTR);
    if (rc < 0) {
        *why = "io_uring_submit_and_wait failed";
        *error = -rc;
        return -1;
    }
    for (;;) {
        struct io_uring_cqe *cqe;
        rc = io_uring_wait_cqe(ring, &cqe);
        if (rc == -EINTR)
            continue;
        if (rc < 0) {
            *why = "io_uring_wait_cqe failed";
            *error = -rc;
            return -1;
        }
        const uint64_t got = cqe->user_data;
        const int res = cqe->res;
        io_uring_cqe_seen(ring, cqe);
        if (got != tag)
            continue; /* an abandoned earlier timeout, come in late */
        if (res == -ETIME)
            return 0;
        *why = res == -EINVAL ? "the kernel refused the timeout (EINVAL)"
                              : "the timeout completed with an error instead of ETIME";
        *error = -res;
        return -1;
    }
}

bool gar_uring_probe(const char **why)
{
    struct io_uring ring;
    const char *refusal = NULL;
    int rc = io_uring_queue_init(GAR_URING_ENTRIES, &ring, 0);
    if (rc < 0) {
        refusal = setup_why(-rc);
    } else {
        /* An absolute timeout already due: the one operation the host
         * needs, answered at once.  On failure it names the refusal. */
        int error = 0;
        (void)ring_timeout(&ring, 1, gar_posix_now(), 0, &refusal, &error);
        io_uring_queue_exit(&ring);
    }
    if (why != NULL)
        *why = refusal;
    return refusal == NULL;
}

static int uring_sleep_until(void *ctx, gar_mono_ns until, gar_error *err)
{
    gar_uring_host *host = ctx;
    assert(host != NULL);
    if (gar_posix_now() >= until)
        return 0; /* nothing to sleep: neither the ring nor a thread sleep runs */

    const char *why = host->ring_why;
    int error = host->ring_errno;
    if (host->ring_up) {
        const unsigned flags = host->refuse_timeouts ? TIMEOUT_FLAG_NONE_ACCEPTS : 0;
        if (ring_timeout(&host->ring, ++host->last_tag, until, flags, &why, &error) == 0) {
            if (gar_posix_now() >= until) {
                host->stats.timeouts++;
                return 0;
            }
            why = "the ring's timeout completed before its target";
            error = 0;
        }
    }
    host->stats.fallbacks++;
    host->stats.last_fallback_why = why;
    host->stats.last_fallback_errno = error;
    return host->posix.ops->sleep_until(host->posix.ctx, until, err);
}

static int uring_park(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                      gar_mono_ns until, gar_error *err)
{
    gar_uring_host *host = ctx;
    assert(host != NULL);
    return host->posix.ops->park(host->posix.ctx, line, seen, until, err);
}

static const gar_idle_ops uring_ops = {
    .version = GAR_IDLE_OPS_VERSION,
    .sleep_until = uring_sleep_until,
    .park = uring_park,
};

int gar_uring_host_open(gar_uring_host **out, gar_posix_host *posix,
                        const gar_uring_host_options *options, gar_error *err)
{
    static const gar_uring_host_options defaults = { 0 };
    if (out == NULL || posix == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_uring_host_open",
                             out == NULL ? "out" : "posix", "is NULL");
    if (options == NULL)
        options = &defaults;

    gar_uring_host *host = calloc(1, sizeof *host);
    if (host == NULL)
        return gar_error_set(err, GAR_E_BACKEND, 2, "allocating the io_uring host", "no memory");
    host->posix = gar_posix_host_idle(posix);
    host->refuse_timeouts = options->refuse_timeouts;

    int rc = options->refuse_setup != 0 ? -options->refuse_setup
                                        : io_uring_queue_init(GAR_URING_ENTRIES, &host->ring, 0);
    if (rc < 0) {
        host->ring_errno = -rc;
        host->ring_why = setup_why(-rc);
    } else {
        host->ring_up = true;
    }
    *out = host;
    return 0;
}

const char *gar_uring_host_ring_why(const gar_uring_host *host)
{
    assert(host != NULL);
    return host->ring_why;
}

gar_uring_stats gar_uring_host_stats(const gar_uring_host *host)
{
    assert(host != NULL);
    return host->stats;
}

gar_idle gar_uring_host_idle(gar_uring_host *host)
{
    assert(host != NULL);
    return (gar_idle){ .ops = &uring_ops, .ctx = host };
}

void gar_uring_host_close(gar_uring_host *host)
{
    if (host == NULL)
        return;
    if (host->ring_up)
        io_uring_queue_exit(&host->ring);
    free(host);
}
