/* experiments/verify/verify_cuda.h — gar verify's CUDA device: a trace's work run on
 * device 0 of the CUDA driver, behind the device seam of verify_real.h.
 *
 * open     loads the driver (gar/cuda.h: libcuda.so.1, or
 *          $GAR_CUDA_LIBRARY), creates the mapped line on device 0
 *          (gar/cuda.h), one non-blocking stream per trace stream in the
 *          line's context, each bound to its slot of the line by a CUDA
 *          port (gar/cuda.h), the work (cuda_work.h: the spin kernel,
 *          else a sized memset), one timing event per row, and the clock
 *          anchor below; the run's origin moves later by the time all
 *          this took (the seam's open), so the trace keeps its head start.
 * submit   enqueues on the row's stream work of the row's device duration
 *          (gar_verify_work_durations), then the row's event, then the
 *          store of the slot's next sequence number (the stream port's
 *          arm), and hands back the row's port.
 * close    settles the context (with `stop` too: queued work cannot be
 *          taken back, so it is waited out, never freed under), reads each
 *          row's completion time, and releases events, ports, streams,
 *          work, line and driver in that order.  A line that did not
 *          settle is leaked (gar/mapped.h), and the driver stays loaded
 *          with it.
 *
 * The row's port, not the stream's.  A stream's query answers for all its
 * work, and a later row's work may already be queued behind this row's
 * (every row due before a wait starts is submitted first): the stream's
 * port would then report the wait late.  So a row's port asks about the
 * row alone: query and poll are cuEventQuery of its event, block is
 * cuEventSynchronize, arm answers the store already enqueued behind the
 * row's work (line, slot, its number), and park is the stream port's park
 * on that descriptor.  Where no later work is queued on the stream, this is
 * the stream's port exactly.
 *
 * Completion times.  A row's completion on the device is not seen by the
 * host; it is read from the row's event, recorded on the stream right
 * after the work: completed = anchor + cuEventElapsedTime(anchor event,
 * row's event).  The anchor ties the device's timer to gar_posix_now's
 * clock: an event recorded on an idle stream and synchronized at once, the
 * host clock read before the record and after the sync; of
 * GAR_VERIFY_CUDA_ANCHOR_TRIES tries the narrowest bracket is kept, and its
 * midpoint taken.  The error of a completion time is thus
 *   - half that bracket (a few µs; the tries make it the host's best case),
 *   - the event timer's resolution (about 0.5 µs, as the driver documents),
 *   - the float milliseconds cuEventElapsedTime answers in (24 bits: 60 ns
 *     per second since the anchor, 3.6 µs at verify's 60 s limit),
 *   - the two clocks' rate difference (parts per million: µs per second).
 * The wait's own observation of completion is not used: it is what verify
 * measures (overshoot = the wait's end less completion), so it cannot be
 * its own reference.
 *
 * Ownership: the device owns everything it creates; the trace and the Idle
 * port are borrowed until close.  One thread opens, submits, waits on the
 * ports and closes. */
#ifndef GAR_VERIFY_CUDA_H
#define GAR_VERIFY_CUDA_H

#include <gar/cuda.h>
#include <gar/error.h>
#include <gar/idle.h>
#include <gar/time.h>

#include "sim/trace/trace.h"
#include "verify/verify_real.h"

#define GAR_VERIFY_CUDA_ORDINAL 0       /* the device used */
#define GAR_VERIFY_CUDA_ANCHOR_TRIES 8u /* clock anchors tried; the narrowest is kept */

/* The device's table ("cuda"); its open loads the driver itself. */
extern const gar_verify_device_ops gar_verify_cuda_device;

/* The device's open over the driver table `drv` (loaded, or built by hand;
 * borrowed until close, which does not unload it).  As the seam's open
 * otherwise: returns 0 with *ctx set for gar_verify_cuda_device's
 * submit_row and close, or a negated code with nothing held:
 * -GAR_E_CAPACITY (more streams than the line's slots, memory),
 * -GAR_E_BACKEND (the line's faults; Unavailable when the driver lacks
 * cuStreamCreate, cuStreamDestroy_v2 or an event call, naming it). */
int gar_verify_cuda_open(void **ctx, const gar_cuda_driver *drv, const gar_trace *trace,
                         gar_idle park, gar_error *err);

#endif
