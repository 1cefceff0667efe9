/* backends/hip/hip_port.h — the completion port of a HIP stream on a slot of
 * a HIP mapped line: the mapped port (mapped_port.h) over hipStreamQuery
 * (hipErrorNotReady = pending), hipStreamSynchronize and
 * hipStreamWriteValue64, parking through the host's idle. */
#ifndef GAR_HIP_PORT_H
#define GAR_HIP_PORT_H

#include <gar/error.h>
#include <gar/idle.h>
#include <gar/line.h>

#include "hip_line.h"
#include "mapped_port.h"

/* As gar_mapped_port_init; a line that is not a HIP line is
 * -GAR_E_INVALID_ARGUMENT, a stream of another device ForeignStream. */
int gar_hip_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                      gar_hip_stream stream, gar_idle idle, gar_error *err);

#endif
