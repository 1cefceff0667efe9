/* backends/interpose/real_cuda.h — the real CUDA runtime behind
 * libgar-sync.so's calls, found with dlsym(RTLD_NEXT) (or, for a runtime
 * the program loaded privately, in a loaded libcudart.so.12 or .13), again
 * whenever the program has loaded or unloaded a library since (dl_iterate_phdr's
 * counts), so a runtime loaded after the first call is found, and a dlclose and
 * a new dlopen of it never leave a stale pointer.
 *
 * The completion time of a wait's work, on the host clock: an event with
 * timing is recorded behind the work before the wait (gar_real_cuda_mark,
 * one event per thread), and after it its time is read against an anchor
 * event whose host time is known (recorded on an idle private stream and
 * bracketed by two clock readings; renewed each second, since the elapsed
 * time is a float of milliseconds).  0 when anything of this fails. */
#ifndef GAR_REAL_CUDA_H
#define GAR_REAL_CUDA_H

/* The same code serves HIP (real_hip.c, hip_calls.c define GAR_SYNC_HIP
 * before including it): its calls and codes match CUDA's one to one, so only
 * the names differ.  Each vendor's translation units keep their own state. */
#ifdef GAR_SYNC_HIP
#define GAR_RT_NAME(call) "hip" call
#define gar_real_cuda_find gar_real_hip_find
#define gar_real_cuda_mark gar_real_hip_mark
#define gar_real_cuda_marked_done gar_real_hip_marked_done
#define gar_real_cuda_event_done gar_real_hip_event_done
#else
#define GAR_RT_NAME(call) "cuda" call
#endif

#include <stdint.h>

typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

typedef struct gar_real_cuda {
    cudaError_t (*stream_synchronize)(cudaStream_t);
    cudaError_t (*stream_query)(cudaStream_t);
    cudaError_t (*event_synchronize)(cudaEvent_t);
    cudaError_t (*event_query)(cudaEvent_t);
    cudaError_t (*device_synchronize)(void);
    cudaError_t (*peek_at_last_error)(void);
    cudaError_t (*stream_is_capturing)(cudaStream_t, int *);
    /* For completion times; any may be NULL (times are then unknown). */
    cudaError_t (*event_create_with_flags)(cudaEvent_t *, unsigned);
    cudaError_t (*event_record)(cudaEvent_t, cudaStream_t);
    cudaError_t (*event_elapsed_time)(float *, cudaEvent_t, cudaEvent_t);
    cudaError_t (*stream_create_with_flags)(cudaStream_t *, unsigned);
    cudaError_t (*get_device)(int *);
} gar_real_cuda;

/* The real runtime, or NULL when no loaded library has every call of the
 * first seven. */
const gar_real_cuda *gar_real_cuda_find(void);

/* Records the thread's timing event behind the work on `stream`; returns 0. */
uint64_t gar_real_cuda_mark(const gar_real_cuda *real, cudaStream_t stream);
/* The completion time of the work the last mark followed, or 0. */
uint64_t gar_real_cuda_marked_done(const gar_real_cuda *real);
/* The completion time of the program's own `event` (0 without timing). */
uint64_t gar_real_cuda_event_done(const gar_real_cuda *real, cudaEvent_t event);

#endif
