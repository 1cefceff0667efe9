/* backends/interpose/real_hip.c — the real HIP runtime (libamdhip64.so)
 * behind hip_calls.c, found and timed as real_cuda.c finds and times CUDA's,
 * with state of its own. */
#define GAR_SYNC_HIP 1
#include "real_cuda.c"
