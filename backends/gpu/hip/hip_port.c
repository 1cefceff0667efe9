/* backends/gpu/hip/hip_port.c — a HIP stream's port: the mapped port, typed. */
#include <gar/hip.h>

int gar_hip_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                      gar_hip_stream stream, gar_idle idle, gar_error *err)
{
    if (line != NULL && line->ops != NULL && line->ops != &gar_hip_mapped_ops)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_hip_port_init", "line",
                             "is not a HIP line");
    return gar_mapped_port_init(port, line, slot, (void *)stream, idle, err);
}
