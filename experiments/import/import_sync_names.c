/* experiments/import/import_sync_names.c — the synchronizing calls' table
 * (import_sync_names.h). */
#include "import/import_sync_names.h"

#include <string.h>

/* The host calls that wait for the device (CUDA runtime and driver, HIP). */
static const struct {
    const char *name;
    gar_sync_kind kind;
} sync_names[] = {
    { "cudaStreamSynchronize", GAR_SYNC_STREAM },
    { "cudaEventSynchronize", GAR_SYNC_EVENT },
    { "cudaDeviceSynchronize", GAR_SYNC_DEVICE },
    { "cudaThreadSynchronize", GAR_SYNC_DEVICE },
    { "cudaMemcpy", GAR_SYNC_MEMCPY },
    { "cudaMemcpyAsync", GAR_SYNC_MEMCPY_ASYNC },
    { "cuStreamSynchronize", GAR_SYNC_STREAM },
    { "cuEventSynchronize", GAR_SYNC_EVENT },
    { "cuCtxSynchronize", GAR_SYNC_DEVICE },
    { "cuMemcpyDtoH", GAR_SYNC_MEMCPY },
    { "cuMemcpyDtoHAsync", GAR_SYNC_MEMCPY_ASYNC },
    { "hipStreamSynchronize", GAR_SYNC_STREAM },
    { "hipEventSynchronize", GAR_SYNC_EVENT },
    { "hipDeviceSynchronize", GAR_SYNC_DEVICE },
    { "hipMemcpy", GAR_SYNC_MEMCPY },
    { "hipMemcpyWithStream", GAR_SYNC_MEMCPY },
    { "hipMemcpyAsync", GAR_SYNC_MEMCPY_ASYNC },
};
enum { SYNC_NAMES = sizeof sync_names / sizeof sync_names[0] };

int gar_import_sync_name(const char *name, size_t len)
{
    /* Nsight writes versioned names: cudaStreamSynchronize_v3020. */
    size_t digits = 0;
    while (digits < len && name[len - 1 - digits] >= '0' && name[len - 1 - digits] <= '9')
        digits++;
    if (digits > 0 && digits + 2 <= len && name[len - 1 - digits] == 'v' &&
        name[len - 2 - digits] == '_')
        len -= digits + 2;
    /* Per-thread default stream builds call the _ptsz / _ptds entry points
     * (cudaStreamSynchronize_ptsz_v7000, cudaMemcpy_ptds_v7000): the same
     * calls, as CUPTI names them. */
    if (len > 5 && (memcmp(name + len - 5, "_ptsz", 5) == 0 ||
                    memcmp(name + len - 5, "_ptds", 5) == 0))
        len -= 5;
    for (int i = 0; i < SYNC_NAMES; i++)
        if (strlen(sync_names[i].name) == len && memcmp(sync_names[i].name, name, len) == 0)
            return i;
    return -1;
}

gar_sync_kind gar_import_sync_kind(int name)
{
    return name >= 0 && name < SYNC_NAMES ? sync_names[name].kind : GAR_SYNC_NONE;
}

const char *gar_import_sync_base(int name)
{
    return name >= 0 && name < SYNC_NAMES ? sync_names[name].name : NULL;
}
