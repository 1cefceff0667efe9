/* backends/interpose/hip_calls.c — the HIP runtime's synchronising calls
 * (hipStreamSynchronize and its _spt variant, hipEventSynchronize,
 * hipDeviceSynchronize), taken over exactly as cuda_calls.c takes over
 * CUDA's: HIP's calls and codes match CUDA's one to one (hipErrorNotReady is
 * 600, hipStreamPerThread is 2), so the same code runs under HIP's names. */
#define GAR_SYNC_HIP 1
#include "cuda_calls.c"
