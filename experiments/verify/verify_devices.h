/* experiments/verify/verify_devices.h — the devices behind gar verify's seam
 * (verify_real.h), by the name --device gives.
 *
 * The registry sits apart from the seam and from each device: a device
 * (verify_cuda.c) builds on the seam's helpers, and the registry names every
 * device, so the dependency runs one way, verify_devices -> verify_cuda ->
 * verify_real. */
#ifndef GAR_VERIFY_DEVICES_H
#define GAR_VERIFY_DEVICES_H

#include <gar/error.h>

#include "verify/verify_real.h"

/* The device named `name`: "emulated" is always built in; "cuda" where this
 * gar was built with the CUDA backend (GAR_HAVE_CUDA_BACKEND; verify_cuda.h),
 * else -GAR_E_BACKEND (not built into this gar); "hip" is -GAR_E_BACKEND
 * (no HIP device behind the seam yet); anything else is -GAR_E_USAGE naming
 * `verb`.  A device built in but absent is refused by its open. */
int gar_verify_device_find(const char *name, const char *verb,
                           const gar_verify_device_ops **out, gar_error *err);

#endif
