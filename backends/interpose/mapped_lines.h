/* backends/interpose/mapped_lines.h — the mapped lines behind libgar-sync.so's
 * stream waits, and the route each stream wait takes.
 *
 * A stream wait is routed one of three ways (gar_sync_route):
 *   mapped  a gar wait on the mapped port (gar/mapped.h): the stream writes
 *           the slot's next sequence number into a word of host memory the
 *           device maps, behind the awaited work, and the plan parks on the
 *           word (a flag plan) or queries the stream;
 *   query   the status-query path (sync_wait.h): where the device has no
 *           stream memory operations, no driver entry point was found, or no
 *           line could be made; `why` says which;
 *   pass    left to the real call untouched: a stream of another context
 *           than the current one (or than the device's primary context, the
 *           runtime's).
 * The vendor files (mapped_cuda.c, mapped_hip.c) decide; the lines here are
 * vendor-neutral.
 *
 * Lines.  Each waiting thread owns one line per device it waited on, so no
 * line is ever shared between threads (the mapped line is not thread-safe);
 * each stream it waits on holds a slot of it, the least recently used slot
 * being rebound when all GAR_LINE_WORDS are taken.  A slot is rebound only
 * between waits, and every wait on it ended: the only store still queued can
 * be that of a wait that failed on a faulted stream, whose number is below
 * any the slot arms later, so it can delay a later wait's park until its
 * backstop query but never end it early.  A thread's lines outlive it: at
 * its exit they go to a pool the next thread takes them from, so no exit
 * waits for the device to settle.
 *
 * fork: a child never uses its parent's lines (its device mappings are not
 * the parent's): the forking thread's lines and the pool are forgotten in
 * the child, and made anew on its first wait.  dlclose: the vendor files
 * hold their own reference on the driver, so the tables here never point
 * into an unloaded library. */
#ifndef GAR_SYNC_MAPPED_LINES_H
#define GAR_SYNC_MAPPED_LINES_H

#include <gar/idle.h>
#include <gar/mapped.h>
#include <gar/port.h>

typedef enum gar_sync_path {
    GAR_SYNC_MAPPED, /* `port` is the wait's mapped port */
    GAR_SYNC_QUERY,  /* the status-query path; `why` is the reason, or NULL */
    GAR_SYNC_PASS,   /* the real call; `why` is the reason */
} gar_sync_path;

typedef struct gar_sync_route {
    gar_sync_path path;
    const char *why; /* static text */
    gar_port port;   /* MAPPED only */
} gar_sync_route;

#define GAR_SYNC_NO_MEM_OPS "no stream memory operations"
#define GAR_SYNC_NO_DRIVER "no driver entry points"
#define GAR_SYNC_NO_LINE "no mapped line"
#define GAR_SYNC_OTHER_CONTEXT "other context"

/* Routes the calling thread's wait on `stream` of device `ordinal`, whose
 * vendor's line ops are `ops` over the driver table `drv` (both must live
 * as long as the process): binds the thread's port for the stream (making
 * its line on first use) and routes MAPPED, or routes PASS for a stream the
 * line's domain does not own (ForeignStream), or QUERY (GAR_SYNC_NO_LINE)
 * when no line or port could be had.  `idle` is the host's, for the park. */
void gar_sync_mapped_route(const gar_mapped_ops *ops, const void *drv, int ordinal,
                           void *stream, gar_idle idle, gar_sync_route *out);

/* The vendors' routers (mapped_cuda.c, mapped_hip.c): the route of a wait
 * on `stream` of the current device `ordinal` (negative: unknown, routed
 * QUERY). */
void gar_sync_cuda_route(void *stream, int ordinal, gar_idle idle, gar_sync_route *out);
void gar_sync_hip_route(void *stream, int ordinal, gar_idle idle, gar_sync_route *out);

/* A number that changes whenever the process loaded or unloaded a library
 * (dl_iterate_phdr's counts): a failed search is retried when it moved. */
unsigned long long gar_sync_dl_generation(void);

#endif
