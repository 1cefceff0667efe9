/* backends/gpu/cuda/cuda_port.c — a CUDA stream's port: the mapped port, typed. */
#include <gar/cuda.h>

int gar_cuda_port_init(gar_mapped_port *port, gar_mapped_line *line, gar_slot slot,
                       CUstream stream, gar_idle idle, gar_error *err)
{
    if (line != NULL && line->ops != NULL && line->ops != &gar_cuda_mapped_ops)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_cuda_port_init", "line",
                             "is not a CUDA line");
    return gar_mapped_port_init(port, line, slot, (void *)stream, idle, err);
}
