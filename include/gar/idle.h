/* gar/idle.h — the Idle port: the only way the core lets time pass.
 *
 * A host implements it (POSIX: clock_nanosleep and a bounded park on the
 * line; the simulator: virtual time; tests: a script).  Both calls may return
 * early — a spurious wake is always allowed — so callers re-check what they
 * wait for and call again; neither may return late by design (a real host's
 * lateness is its overshoot, which gar measures rather than hides).
 *
 * The table can grow, as the port's (gar/port.h): its first field says which
 * version of the struct its writer filled, GAR_IDLE_OPS_VERSION.  Whoever
 * takes an Idle port (the inline driver, the executor and its reactor, the
 * devices that park) refuses a table whose version this libgar does not
 * know (0, never set; or newer than GAR_IDLE_OPS_VERSION) with
 * GAR_E_OPS_VERSION before calling it. */
#ifndef GAR_IDLE_H
#define GAR_IDLE_H

#include <gar/error.h>
#include <gar/line.h>
#include <gar/time.h>

/* The version of gar_idle_ops these headers describe (versions 1 to this
 * one are accepted). */
#define GAR_IDLE_OPS_VERSION 1u

typedef struct gar_idle_ops {
    /* GAR_IDLE_OPS_VERSION: the version of this struct the table fills. */
    unsigned version;

    /* Sleeps until `until` (on the host's clock) with the core free.
     * Returns 0, or a negative gar code with `err` filled. */
    int (*sleep_until)(void *ctx, gar_mono_ns until, gar_error *err);

    /* Parks on `line` while its eight words equal `seen` (a snapshot the
     * caller took after deciding to park, so a store between the snapshot
     * and the park is never lost), at most until `until`.  Returns 1 when the
     * line no longer equals `seen`, 0 when `until` came first (or a spurious
     * wake), or a negative gar code with `err` filled. */
    int (*park)(void *ctx, gar_line *line, const uint64_t seen[GAR_LINE_WORDS],
                gar_mono_ns until, gar_error *err);
} gar_idle_ops;

typedef struct gar_idle {
    const gar_idle_ops *ops;
    void *ctx;
} gar_idle;

/* Copies the line's words into `seen` (acquire loads), for a park. */
static inline void gar_line_snapshot(gar_line *line, uint64_t seen[GAR_LINE_WORDS])
{
    for (unsigned i = 0; i < GAR_LINE_WORDS; i++)
        seen[i] = atomic_load_explicit(&line->words[i], memory_order_acquire);
}

/* Whether the line still holds exactly `seen`. */
static inline bool gar_line_unchanged(gar_line *line, const uint64_t seen[GAR_LINE_WORDS])
{
    for (unsigned i = 0; i < GAR_LINE_WORDS; i++)
        if (atomic_load_explicit(&line->words[i], memory_order_acquire) != seen[i])
            return false;
    return true;
}

#endif
