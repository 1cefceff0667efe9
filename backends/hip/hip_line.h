/* backends/hip/hip_line.h — the mapped line (mapped_line.h) on HIP.
 *
 * The domain is the device's primary context, retained with
 * hipDevicePrimaryCtxRetain for the line's life; the page is
 * hipHostMalloc(Mapped|Coherent) of GAR_MAPPED_PAGE_BYTES (coherent, so the
 * device's store is seen by the host without a flush), its device view
 * hipHostGetDevicePointer; the domain settles when hipDeviceSynchronize
 * succeeds with the line's device current; a stream belongs to the line
 * when hipStreamGetDevice names the line's device.  HIP binds work to the
 * thread's current device rather than a context stack, so calls that need
 * it (allocation, settle, and every call on the NULL stream, which is then
 * the line's device's) set the line's device and set the caller's back.
 *
 * Fault mapping: hipInit hipErrorNoDevice -> NoDomain; hipDeviceGet,
 * hipDevicePrimaryCtxRetain failing -> NoDomain; a runtime without
 * hipStreamWriteValue64 -> Unavailable at creation; all else Driver.
 * Release with gar_mapped_line_release. */
#ifndef GAR_HIP_LINE_H
#define GAR_HIP_LINE_H

#include <gar/error.h>

#include "hip_driver.h"
#include "mapped_line.h"

/* The mapped-line operations over a gar_hip_driver. */
extern const gar_mapped_ops gar_hip_mapped_ops;

/* Creates a line on device `ordinal` (see gar_mapped_line_create). */
int gar_hip_line_create(gar_mapped_line *line, const gar_hip_driver *drv, int ordinal,
                        gar_error *err);

#endif
