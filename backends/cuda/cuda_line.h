/* backends/cuda/cuda_line.h — the mapped line (mapped_line.h) on CUDA.
 *
 * The domain is the device's primary context, retained with
 * cuDevicePrimaryCtxRetain; the page is cuMemHostAlloc(DEVICEMAP|PORTABLE)
 * of GAR_MAPPED_PAGE_BYTES, its device view cuMemHostGetDevicePointer_v2;
 * the domain settles when cuCtxSynchronize succeeds with it current; a
 * stream belongs to the line when cuStreamGetCtx names the line's context.
 * Calls that need a current context (allocation, free, settle, and every
 * call on the implicit streams NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD)
 * push the line's context and pop it after, so the caller's current context
 * is left as it was; an implicit stream is thus the default stream of the
 * line's context.
 *
 * Fault mapping (the driver's status is always the error's text):
 *   cuInit            CUDA_ERROR_STUB_LIBRARY -> Unavailable (a stub, no driver),
 *                     CUDA_ERROR_NO_DEVICE -> NoDomain, else Driver
 *   cuDeviceGet, cuDevicePrimaryCtxRetain failing -> NoDomain
 *   every other failing call -> Driver
 *   a driver without cuStreamWriteValue64_v2 -> Unavailable, at creation
 *
 * Release with gar_mapped_line_release (0 freed, 1 leaked: see there).
 * The driver table is borrowed for the line's life. */
#ifndef GAR_CUDA_LINE_H
#define GAR_CUDA_LINE_H

#include <cuda.h>

#include <gar/error.h>

#include "cuda_driver.h"
#include "mapped_line.h"

/* The mapped-line operations over a gar_cuda_driver (the `drv` of every op). */
extern const gar_mapped_ops gar_cuda_mapped_ops;

/* Creates a line on device `ordinal` (see gar_mapped_line_create). */
int gar_cuda_line_create(gar_mapped_line *line, const gar_cuda_driver *drv, int ordinal,
                         gar_error *err);

/* The line's context (its retained primary context), for making streams
 * and work in it; NULL for a line that is not a live CUDA line. */
CUcontext gar_cuda_line_context(const gar_mapped_line *line);

/* Pushes `ctx` current on the calling thread, or pops it, as a pair around
 * calls that need it: each returns 0 or -GAR_E_BACKEND (Driver). */
int gar_cuda_push(const gar_cuda_driver *drv, CUcontext ctx, gar_error *err);
int gar_cuda_pop(const gar_cuda_driver *drv, gar_error *err);

#endif
