/* tests/fake_cudart/fake_runtime.h — the vendor-neutral heart of the fake GPU
 * runtimes (fake_cudart.c: libcudart.so.12; fake_hip.c: libamdhip64.so).
 *
 * A stream is a thread that runs "kernels" in order: each takes its given
 * duration on the host clock (the thread sleeps it away, so a kernel costs no
 * CPU), then counts as completed.  An event is a mark in a stream: done once
 * everything enqueued before it completed, stamped with that time.  The
 * synchronising calls wait as the real runtime does under the device flags:
 * spin (the default), yield, or block on a condition variable.
 *
 * Errors, as the real runtimes make them:
 *   a launch refused at launch time   pending: the launch returns it and the
 *                                     last-error call returns (and clears) it;
 *   a kernel that faults              sticky: once it completed, every query,
 *                                     synchronise and last-error call returns it.
 * Graph capture: launches into a capturing stream are recorded, not run; a
 * synchronise of it is refused and invalidates the capture.
 *
 * A stream belongs to a context (fake_context.h): the legacy stream to
 * device 0's primary one, the others to the context current when made.
 *
 * Codes are the vendor's numbers, passed in by the wrapper (fake_codes).  All
 * functions are thread-safe.  Nothing here is exported: the wrappers are. */
#ifndef GAR_FAKE_RUNTIME_H
#define GAR_FAKE_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "fake_context.h"

typedef struct fake_stream fake_stream;
typedef struct fake_event fake_event;

/* The vendor's numbers for the outcomes the fake produces. */
typedef struct fake_codes {
    int success, not_ready, invalid_value, capture_unsupported, capture_invalidated;
} fake_codes;

enum fake_schedule { FAKE_SPIN, FAKE_YIELD, FAKE_BLOCK };
enum fake_capture { FAKE_CAPTURE_NONE, FAKE_CAPTURE_ACTIVE, FAKE_CAPTURE_INVALIDATED };

/* Set once by the wrapper's first call. */
void fake_set_codes(const fake_codes *codes);

uint64_t fake_now_ns(void);

/* The legacy default stream (handle 0), the calling thread's own default
 * stream, and streams made on demand.  Streams are never freed while the
 * process runs (a destroyed one stops taking work). */
fake_stream *fake_legacy_stream(void);
fake_stream *fake_thread_stream(void);
fake_stream *fake_stream_new(fake_ctx *ctx);
/* The stream a handle names: 0 the legacy stream (`per_thread`: the
 * thread's own), 1 the legacy stream, 2 the thread's own, else a stream
 * made by fake_stream_new. */
fake_stream *fake_stream_of(uintptr_t handle, int per_thread);
fake_ctx *fake_stream_ctx(fake_stream *s);
void fake_stream_destroy(fake_stream *s);

/* Enqueues a kernel of `duration_ns`; `fault` 0 runs it clean, else the
 * sticky code it leaves when it completes; `refuse` nonzero refuses it at
 * launch (pending error).  Returns success or `refuse`. */
int fake_launch(fake_stream *s, uint64_t duration_ns, int fault, int refuse);

int fake_stream_query(fake_stream *s);
int fake_stream_synchronize(fake_stream *s);
int fake_device_synchronize(void);
/* Kernels enqueued and not yet completed on `s` (for tests' ground truth). */
uint64_t fake_stream_pending(fake_stream *s);

/* Enqueues behind the stream's work the store of `value` into the mapped
 * word `device_addr` names (fake_context.h); the stream's thread makes it
 * when the work before it completed.  invalid_value for an address that
 * names no mapped word. */
int fake_write_value(fake_stream *s, uint64_t device_addr, uint64_t value);
/* The completion record beside the streams' counts: stream writes made, and
 * the runtime's stream or event synchronises that found their work still
 * pending when called (a wait taken over and ended early leaves the real
 * call such work), which the runtime's wrappers count. */
uint64_t fake_stores_done(void);
void fake_count_found_pending(void);
uint64_t fake_syncs_found_pending(void);
/* Whether `e` was recorded and is not yet done. */
bool fake_event_pending(fake_event *e);

fake_event *fake_event_new(void);
void fake_event_destroy(fake_event *e);
int fake_event_record(fake_event *e, fake_stream *s);
int fake_event_query(fake_event *e);
int fake_event_synchronize(fake_event *e);
/* Milliseconds from a's completion to b's; not_ready when either is not
 * done, invalid_value when either was never recorded. */
int fake_event_elapsed(float *ms, fake_event *a, fake_event *b);

int fake_set_schedule(enum fake_schedule schedule);
enum fake_schedule fake_get_schedule(void);

/* The last error: `clear` resets a pending one (a sticky one stays). */
int fake_last_error(bool clear);

int fake_capture_begin(fake_stream *s);
int fake_capture_end(fake_stream *s);
enum fake_capture fake_capture_status(fake_stream *s);

#endif
