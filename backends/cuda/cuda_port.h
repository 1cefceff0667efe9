/* backends/cuda/cuda_port.h — the completion port of a CUDA stream on a slot
 * of a CUDA mapped line (cuda_line.h).
 *
 * The port is the vendor-neutral mapped port (mapped_port.h) over the CUDA
 * line's operations:
 *   query  cuStreamQuery: CUDA_SUCCESS done, CUDA_ERROR_NOT_READY pending,
 *          any other status an error (Driver);
 *   block  cuStreamSynchronize;
 *   poll   one cuStreamQuery after the CPU's spin hint;
 *   arm    cuStreamWriteValue64_v2 of the slot's next sequence number into
 *          the slot's word (the line's device pointer), behind the stream's
 *          pending work;
 *   park   the host's park (the gar_idle given at init) on the line.
 * Use gar_mapped_port_port for the gar_port and gar_mapped_port_fini to
 * unbind; the ownership rules are mapped_port.h's. */
#ifndef GAR_CUDA_PORT_H
#define GAR_CUDA_PORT_H

#include <cuda.h>

#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>

#include "cuda_line.h"
#include "mapped_port.h"

/* Binds `slot` of the CUDA line `line` to `stream` (see
 * gar_mapped_port_init).  A line that is not a live CUDA line is
 * -GAR_E_INVALID_ARGUMENT; a stream of another context is ForeignStream. */
int gar_cuda_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                       CUstream stream, gar_idle idle, gar_error *err);

#endif
