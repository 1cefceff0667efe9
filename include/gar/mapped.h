/* gar/mapped.h — a completion line in device-mapped host memory,
 * over any GPU driver that offers the few operations below (CUDA and HIP do),
 * and the completion port of one stream on a slot of it (below).  The vendor
 * headers (gar/cuda.h, gar/hip.h) create lines and ports; this one releases
 * them and says what their faults mean.
 *
 * The line sits alone at the start of one page-locked, device-mapped page of
 * GAR_MAPPED_PAGE_BYTES host memory: the host reads it through `line`, a
 * device stream stores into it through `device_addr`.  Alone, because a
 * monitor-based park wakes on any store to the page's first cache line, and
 * nothing but the device's stores should land there.
 *
 * Lifetime, the same for every vendor:
 *   create   retain the device's primary context (the line's domain), then
 *            allocate and map the page; the line holds that reference from
 *            before the page exists until after it is freed.
 *   use      ports (the mapped port, below) bind a slot to a stream; a stream of any
 *            other context is refused (ForeignStream).
 *   release  settle the domain (wait until everything it ran finished, so
 *            no store into the page is pending), free the page, release the
 *            context.  When the domain does not settle the page is leaked,
 *            and the context reference with it: freeing it under a pending
 *            store would let the device write into memory reused for
 *            something else, which is far worse than 4 KiB lost.
 *
 * Faults.  Every failure is GAR_E_BACKEND ("{what} failed: {status}") whose
 * third, unshown argument names the fault (gar_mapped_fault_of reads it back),
 * so callers and tests can tell the four apart without parsing text:
 *   Driver         the driver returned a failing status ("NAME (N): text")
 *   Unavailable    the library, or an entry point the line needs, is missing
 *   NoDomain       no such device, or its primary context cannot be had
 *   ForeignStream  a stream of another context was offered
 *
 * Ownership: the caller owns the gar_mapped_line (no allocation beyond the
 * page); the ops table and its driver context are borrowed and must outlive
 * the release.  Not thread-safe: one thread creates, binds and releases. */
#ifndef GAR_MAPPED_H
#define GAR_MAPPED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>
#include <gar/port.h>

#define GAR_MAPPED_PAGE_BYTES 4096u

typedef enum gar_mapped_fault {
    GAR_MAPPED_FAULT_NONE = 0,       /* not a mapped-line failure (or no failure) */
    GAR_MAPPED_FAULT_DRIVER,         /* the driver returned a failing status */
    GAR_MAPPED_FAULT_UNAVAILABLE,    /* library or entry point missing */
    GAR_MAPPED_FAULT_NO_DOMAIN,      /* no device, or no primary context for it */
    GAR_MAPPED_FAULT_FOREIGN_STREAM, /* a stream of another context */
} gar_mapped_fault;

/* The device and the context a line lives in, as the vendor names them. */
typedef struct gar_mapped_domain {
    int ordinal;   /* the device's index, as the line was asked for it */
    int device;    /* the vendor's device handle (CUdevice, hipDevice_t) */
    void *context; /* its retained primary context (CUcontext, hipCtx_t) */
} gar_mapped_domain;

/* The version of gar_mapped_ops these headers describe (versions 1 to this
 * one are accepted). */
#define GAR_MAPPED_OPS_VERSION 1u

/* What a vendor supplies.  `drv` is the vendor's driver table.  Each op
 * returns 0 (or the answer documented) or fills `err` through
 * gar_mapped_fail and returns its result.
 *
 * The table can grow, as the port's (gar/port.h): its first field says which
 * version of the struct its writer filled, GAR_MAPPED_OPS_VERSION.
 * gar_mapped_line_create refuses a table whose version this libgar does not
 * know (0, never set; or newer than GAR_MAPPED_OPS_VERSION) with
 * GAR_E_OPS_VERSION before calling an op. */
typedef struct gar_mapped_ops {
    /* GAR_MAPPED_OPS_VERSION: the version of this struct the table fills. */
    unsigned version;
    /* The first entry point the line needs that `drv` lacks, or NULL. */
    const char *(*missing)(const void *drv);
    /* Initialises the driver, finds device `ordinal` and retains its primary
     * context into `domain`. */
    int (*retain)(const void *drv, int ordinal, gar_mapped_domain *domain, gar_error *err);
    /* Drops the reference `retain` took. */
    int (*release)(const void *drv, const gar_mapped_domain *domain, gar_error *err);
    /* Allocates `bytes` of page-locked host memory mapped into the domain's
     * device and returns both views; on failure nothing stays allocated. */
    int (*map)(const void *drv, const gar_mapped_domain *domain, size_t bytes, void **host,
               uint64_t *device_addr, gar_error *err);
    /* Frees what `map` allocated. */
    int (*unmap)(const void *drv, const gar_mapped_domain *domain, void *host, gar_error *err);
    /* Waits until all work of the domain has finished. */
    int (*settle)(const void *drv, const gar_mapped_domain *domain, gar_error *err);
    /* 1 when `stream` belongs to the domain, 0 when it belongs to another. */
    int (*owns_stream)(const void *drv, const gar_mapped_domain *domain, void *stream,
                       gar_error *err);
    /* The stream ops get the domain too: a vendor may need it current for
     * an implicit stream (CUDA's NULL stream). */
    /* 1 when all work on `stream` is done, 0 while some is pending. */
    int (*query)(const void *drv, const gar_mapped_domain *domain, void *stream,
                 gar_error *err);
    /* Returns once all work on `stream` is done. */
    int (*synchronize)(const void *drv, const gar_mapped_domain *domain, void *stream,
                       gar_error *err);
    /* Enqueues on `stream`, behind its work, the store of `value` into the
     * 64-bit word at `device_addr`. */
    int (*write_value)(const void *drv, const gar_mapped_domain *domain, void *stream,
                       uint64_t device_addr, uint64_t value, gar_error *err);
} gar_mapped_ops;

typedef enum gar_mapped_state {
    GAR_MAPPED_UNSET = 0, /* never created, or creation failed */
    GAR_MAPPED_LIVE,      /* created; may be bound and stored into */
    GAR_MAPPED_RELEASED,  /* released: page freed, context released */
    GAR_MAPPED_LEAKED,    /* released without settling: page and context kept */
} gar_mapped_state;

typedef struct gar_mapped_line {
    gar_line *line;         /* host view of the line (the page's start); read only */
    uint64_t device_addr;   /* device view of the same line; read only */
    gar_mapped_state state; /* read only */
    /* private */
    const gar_mapped_ops *ops;
    const void *drv;
    gar_mapped_domain domain;
    void *page;
    uint8_t bound;                      /* bit i: slot i is held by a port */
    uint64_t issued[GAR_LINE_WORDS];    /* the last sequence number enqueued per slot */
} gar_mapped_line;

/* Fills `err` with GAR_E_BACKEND for `fault`: "{what} failed: {status}",
 * where `status` is prefixed with the fault's name for every fault but
 * Driver (whose status already says what the driver said).  Returns
 * -GAR_E_BACKEND. */
GAR_API int gar_mapped_fail(gar_error *err, gar_mapped_fault fault, const char *what,
                            const char *status);

/* The fault a backend error names, or GAR_MAPPED_FAULT_NONE for NULL, any
 * other code, or a GAR_E_BACKEND that no mapped line produced. */
GAR_API gar_mapped_fault gar_mapped_fault_of(const gar_error *err);

/* The fault's name: "Driver", "Unavailable", "NoDomain", "ForeignStream";
 * "None" for GAR_MAPPED_FAULT_NONE and anything else. */
GAR_API const char *gar_mapped_fault_name(gar_mapped_fault fault);

/* Creates a line on device `ordinal`: checks the entry points, retains the
 * domain, maps the page, puts the (zeroed) line at its start.  Returns 0
 * with the line LIVE, or a negated code with the line UNSET and nothing
 * held: -GAR_E_INVALID_ARGUMENT (NULL line/ops/drv, negative ordinal),
 * -GAR_E_OPS_VERSION (`ops` is of a version this libgar does not know),
 * -GAR_E_BACKEND (a fault as above; a page the driver could not map at
 * 64-byte alignment is Driver). */
GAR_API int gar_mapped_line_create(gar_mapped_line *line, const gar_mapped_ops *ops, const void *drv,
                                   int ordinal, gar_error *err);

/* Releases a LIVE line with no slot bound.  Returns
 *   0  the domain settled, the page was freed, the context released
 *      (state RELEASED);
 *   1  the page was leaked, with the context reference (state LEAKED):
 *      the domain did not settle, or freeing the page failed after it did;
 *      `err` says why;
 *  <0  -GAR_E_INVALID_ARGUMENT (NULL, not LIVE, a slot still bound: the
 *      line is untouched), or -GAR_E_BACKEND when only the final context
 *      release failed (the page is freed; state RELEASED). */
GAR_API int gar_mapped_line_release(gar_mapped_line *line, gar_error *err);

/* The mapped port: the completion port of one GPU stream over one
 * slot of a mapped line (above), vendor-neutral.
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
 * -GAR_E_OPS_VERSION (an idle ops table of a version this libgar does not
 * know, gar/idle.h), -GAR_E_BACKEND (ForeignStream, or the driver failed to say whose the
 * stream is).  On failure nothing is bound. */
GAR_API int gar_mapped_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                                 void *stream, gar_idle idle, gar_error *err);

/* Frees the port's slot.  Pending stores stay queued on the stream; the
 * line's release settles them.  Accepts NULL and an unbound port. */
GAR_API void gar_mapped_port_fini(gar_mapped_port *port);

/* The completion port (borrows `port`; every op is set). */
GAR_API gar_port gar_mapped_port_port(gar_mapped_port *port);

/* The last sequence number enqueued on the slot (0 before the first arm). */
GAR_API uint64_t gar_mapped_port_issued(const gar_mapped_port *port);

#endif
