/* gar/port.h — the completion port: how a wait asks about pending work.
 *
 * A port is a table of operations with a context pointer (the model is
 * SQLite's VFS).  One port instance stands for one piece of pending work on
 * one device queue — for CUDA, the work enqueued on a stream before the wait
 * began — and its context says which.  The core never calls a port itself:
 * the wait machine (gar/wait.h) names the next operation and a driver calls
 * it, so a real device, an emulated one and the simulator answer the same
 * questions.
 *
 * Ownership: the caller owns the ops table and the context and keeps both
 * alive while any wait uses the port.  A port op never keeps `err` beyond the
 * call.  Every op that fails returns a negated gar code and fills `err` (which
 * may be NULL); the wait ends with that code unchanged, so a port reports
 * vendor failures as GAR_E_BACKEND and device faults as GAR_E_DEVICE_FAULT.
 *
 * Ops a plan never uses may be NULL: `block` is used only by "block", `poll`
 * only by "poll", `arm` and `park` only by "flag"; every plan but "block"
 * uses `query`.  Drivers refuse a port that lacks an op its plan needs before
 * the wait starts.
 *
 * The table can grow.  Its first field says which version of the struct its
 * writer filled: set it to GAR_PORT_OPS_VERSION.  A later libgar that adds
 * ops appends them and raises the version, and still runs a table of an
 * earlier version without reading past what it holds.  Drivers refuse a
 * table whose version this libgar does not know (0, never set; or newer
 * than GAR_PORT_OPS_VERSION) with GAR_E_OPS_VERSION before calling an op. */
#ifndef GAR_PORT_H
#define GAR_PORT_H

#include <gar/error.h>
#include <gar/line.h>
#include <gar/time.h>

/* The version of gar_port_ops these headers describe (versions 1 to this
 * one are accepted). */
#define GAR_PORT_OPS_VERSION 1u

typedef struct gar_port_ops {
    /* GAR_PORT_OPS_VERSION: the version of this struct the table fills. */
    unsigned version;

    /* The status query, the authority on completion and on errors: returns 1
     * when the work is done, 0 while it is pending, or a negated code.  It
     * never waits. */
    int (*query)(void *ctx, gar_error *err);

    /* The vendor's blocking wait (CUDA: cuStreamSynchronize): returns 0 once
     * the work is done, or a negated code.  It may take as long as the work
     * does; nothing bounds it. */
    int (*block)(void *ctx, gar_error *err);

    /* One step of a poll loop: a status query as a spin loop issues it.
     * Answers as `query` (1 done, 0 pending, <0 error).  It exists apart from
     * `query` so that a host may add its pause hint between steps and the
     * simulator may charge its poll period; a host with nothing to add
     * implements it as `query`. */
    int (*poll)(void *ctx, gar_error *err);

    /* Enqueues the store of the next sequence number behind the pending work
     * and writes to `word` the descriptor that store will satisfy.  Returns 0,
     * or a negated code (`word` is then unspecified).  The line `word` points
     * to belongs to the port and stays valid at least until the wait ends. */
    int (*arm)(void *ctx, gar_descriptor *word, gar_error *err);

    /* Parks on `word` (as `arm` wrote it) at most until the absolute time
     * `until` on the wait's clock.  Returns 1 when it saw the word reach its
     * target, 0 when `until` came first or on a spurious wake, or a negated
     * code.  A 1 is a hint only: the wait confirms it with `query`, so a port
     * may return 1 on any change of the word's line.  It must never park past
     * `until` by design (a real host's lateness is its overshoot, which gar
     * measures rather than hides); an `until` already past returns at once. */
    int (*park)(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err);
} gar_port_ops;

/* A port: the caller-owned ops table and the context every op receives. */
typedef struct gar_port {
    const gar_port_ops *ops;
    void *ctx;
} gar_port;

#endif
