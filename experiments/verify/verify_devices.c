/* experiments/verify/verify_devices.c — the devices behind gar verify's seam,
 * by name (verify_devices.h). */
#include "verify/verify_devices.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#if defined(GAR_HAVE_CUDA_BACKEND)
#include "verify/verify_cuda.h"
#endif

int gar_verify_device_find(const char *name, const char *verb,
                           const gar_verify_device_ops **out, gar_error *err)
{
    assert(name != NULL && out != NULL);
    if (strcmp(name, "emulated") == 0) {
        *out = &gar_verify_emulated_device;
        return 0;
    }
    if (strcmp(name, "cuda") == 0) {
#if defined(GAR_HAVE_CUDA_BACKEND)
        *out = &gar_verify_cuda_device;
        return 0;
#else
        return gar_error_set(err, GAR_E_BACKEND, 2, "opening the CUDA device",
                             "the CUDA backend is not built into this gar (it needs cuda.h "
                             "at build time: -Dcuda=enabled -Dnvidia_toolkit=DIR)");
#endif
    }
    if (strcmp(name, "hip") == 0)
        return gar_error_set(err, GAR_E_BACKEND, 2, "opening the HIP device",
                             "this gar's verify has no HIP device: the HIP backend has no "
                             "device work yet to put behind the seam");
    char what[256];
    snprintf(what, sizeof what, "--device '%s' is none of emulated, cuda, hip", name);
    return gar_error_set(err, GAR_E_USAGE, 2, verb, what);
}
