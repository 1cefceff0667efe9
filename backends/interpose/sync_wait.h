/* backends/interpose/sync_wait.h — the vendor-neutral half of libgar-sync.so,
 * the preloaded library `gar run` sets up: one wait of an unmodified
 * program taken over by the wait machine, and the log of every wait.
 *
 * A vendor file (cuda_calls.c, hip_calls.c) defines the runtime's
 * synchronising calls.  For each call it decides whether it can take the
 * wait over (not under graph capture, not with an error pending, ...); if
 * so, it describes the wait to gar_sync_take (a status query of the awaited
 * work, the real blocking call) and then makes the real call itself, which
 * returns at once since the work is done, and returns exactly what it
 * returned: the real call is the authority on completion and on errors, so
 * the program can never see a wait end early or a different error.  If not,
 * it makes the real call and logs why (gar_sync_fallback).
 *
 * A stream wait is routed (mapped_lines.h): waited on the mapped line the
 * stream writes, or by status query, or left to the real call.
 *
 * The plan is read once from GAR_PLAN (default "auto:p99_us=20").  Each
 * waiting thread keeps its own auto policies (one per path) and one point
 * per awaited stream.
 * Every wait is logged, one line each, into GAR_RUN_DIR/PID.log (nothing is
 * logged without GAR_RUN_DIR); `gar run` reads the logs when the program has
 * exited.  The line format is gar run's input only (run_log.h).
 *
 * Thread-safe; fork resets the child's log and state (pthread_atfork). */
#ifndef GAR_SYNC_WAIT_H
#define GAR_SYNC_WAIT_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/idle.h>
#include <gar/port.h>

/* What the vendor's calls supply for one wait. */
typedef struct gar_sync_work {
    const char *call;     /* the runtime call's name, for the log */
    const void *key;      /* the awaited stream or event, naming the point */
    uint32_t stream_id;   /* the process's number for the awaited stream */
    /* The real status query: 1 done, 0 pending, <0 the runtime's failure
     * (negated code). */
    int (*query)(void *arg);
    /* The real blocking call: 0 done, <0 the negated runtime code. */
    int (*block)(void *arg);
    void *arg;
    /* Stamps the work's completion on the device clock, or NULL: called
     * before the wait (`mark` true) and after it (`mark` false, returns the
     * completion in ns on gar_posix_now's clock, 0 when unknown). */
    uint64_t (*stamp)(void *arg, bool mark);
    /* The mapped line's port to wait on (mapped_lines.h), or ops NULL: the
     * status-query path, through query and block above.  The mapped path
     * runs the plan as resolved with a word to park on (a flag plan stays
     * flag), and auto weighs flag by whether the host's park holds the
     * core idle; the status-query path has no word (flag runs as poll). */
    gar_port mapped;
    /* Why a stream wait takes the status-query path (mapped_lines.h's
     * texts), or NULL where it is the only path (events, the device). */
    const char *query_why;
} gar_sync_work;

/* Whether waits are to be taken over at all: the plan parsed, and
 * GAR_SYNC_DISABLE unset.  The first call reads the environment. */
bool gar_sync_enabled(void);

/* The host's Idle port, for a mapped port's park (set up by
 * gar_sync_enabled). */
gar_idle gar_sync_idle(void);

/* Whether this thread's next wait is one of the sampled waits left to the
 * real call, to measure what the program's own schedule costs
 * (GAR_SYNC_BASELINE_EVERY, default 16; 0 never). */
bool gar_sync_sample_baseline(void);

/* Runs the wait to its end under the plan, logs it, and returns 0 when it
 * saw the work done or <0 when a query failed (the caller then makes the
 * real call, which returns the failure as the runtime would). */
int gar_sync_take(const gar_sync_work *work);

/* Runs the real call `block` for a wait left to it, measuring and logging
 * it with `why` ("baseline" for a sampled wait, else the reason it was not
 * taken over).  Returns what `block` returns. */
int gar_sync_pass(const gar_sync_work *work, const char *why);

/* The process's number for stream handle `handle` (per_thread: the calling
 * thread's own default stream, which one handle names in every thread).
 * Numbers count from 1 in order of first appearance. */
uint32_t gar_sync_stream_id(const void *handle, bool per_thread);

/* The handles numbered so far (not per-thread ones), for a device-wide
 * query: writes up to `max` into `out`, returns how many. */
unsigned gar_sync_known_streams(const void **out, unsigned max);

#endif
