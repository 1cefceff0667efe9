/* backends/mapped_port.h — the completion port of one GPU stream over one
 * slot of a mapped line (mapped_line.h), vendor-neutral.
 *
 * The port's ops (gar/port.h) are the line's vendor ops on the stream:
 *   query  the stream's status query: done 1, pending 0 (CUDA_ERROR_NOT_READY,
 *          hipErrorNotReady), any other failure an error;
 *   block  the stream's synchronize;
 *   poll   one status query, after the CPU's spin hint;
 *   arm    enqueues on the stream, behind its pending work, the store of the
 *          slot's next sequence number into the slot's word (through the
 *          line's device address), and answers (line, slot, that number);
 *   park   parks through the host's Idle port on the line, from a snapshot
 *          taken after checking the word, bounded by `until`; answers 1 when
 *          the descriptor is reached (a change of another slot is 0).
 *
 * Binding.  init checks that the stream belongs to the line's domain
 * (ForeignStream otherwise) and holds the slot until fini, so two streams
 * never store into one word.  The slot's sequence lives in the line, so a
 * later port on the same slot goes on counting where the last one stopped.
 *
 * Ownership: the caller owns the gar_mapped_port; the line, the stream and
 * the idle's context are borrowed and must outlive fini (and every wait on
 * the port).  Not thread-safe: one thread waits on a port at a time. */
#ifndef GAR_MAPPED_PORT_H
#define GAR_MAPPED_PORT_H

#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/port.h>

#include "mapped_line.h"

typedef struct gar_mapped_port {
    /* private */
    gar_mapped_line *line;
    void *stream;
    gar_slot slot;
    gar_idle idle;
} gar_mapped_port;

/* Binds `slot` of the LIVE `line` to `stream`, parking through `idle` (its
 * park op is needed).  Returns 0, or -GAR_E_INVALID_ARGUMENT (NULL port or
 * line, a line not LIVE, an idle without park, the slot already bound),
 * -GAR_E_BACKEND (ForeignStream, or the driver failed to say whose the
 * stream is).  On failure nothing is bound. */
int gar_mapped_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                         void *stream, gar_idle idle, gar_error *err);

/* Frees the port's slot.  Pending stores stay queued on the stream; the
 * line's release settles them.  Accepts NULL and an unbound port. */
void gar_mapped_port_fini(gar_mapped_port *port);

/* The completion port (borrows `port`; every op is set). */
gar_port gar_mapped_port_port(gar_mapped_port *port);

/* The last sequence number enqueued on the slot (0 before the first arm). */
uint64_t gar_mapped_port_issued(const gar_mapped_port *port);

#endif
