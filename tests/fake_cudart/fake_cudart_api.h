/* tests/fake_cudart/fake_cudart_api.h — the declarations a test program of
 * the fake libcudart.so.12 (or, with -DFAKE_HIP, libamdhip64.so.6) compiles
 * against: the few runtime types and calls,
 * as the CUDA runtime's own header declares them (the same ABI), and the
 * fake's own launch. */
#ifndef GAR_FAKE_CUDART_API_H
#define GAR_FAKE_CUDART_API_H

#include <stdint.h>

/* Built with -DFAKE_HIP, the same program and the same fake speak HIP: every
 * name below is HIP's (the types, calls and codes match one to one). */
#ifdef FAKE_HIP
#define cudaError_t hipError_t
#define cudaStream_t hipStream_t
#define cudaEvent_t hipEvent_t
#define cudaStreamCreate hipStreamCreate
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamQuery hipStreamQuery
#define cudaStreamQuery_ptsz hipStreamQuery_spt
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamSynchronize_ptsz hipStreamSynchronize_spt
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaEventCreate hipEventCreate
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventDestroy hipEventDestroy
#define cudaEventRecord hipEventRecord
#define cudaEventRecord_ptsz hipEventRecord_spt
#define cudaEventQuery hipEventQuery
#define cudaEventSynchronize hipEventSynchronize
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaSetDeviceFlags hipSetDeviceFlags
#define cudaGetDeviceFlags hipGetDeviceFlags
#define cudaGetDevice hipGetDevice
#define cudaSetDevice hipSetDevice
#define cudaGetLastError hipGetLastError
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaStreamIsCapturing hipStreamIsCapturing
#define cudaStreamIsCapturing_ptsz hipStreamIsCapturing_spt
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaGetErrorName hipGetErrorName
#define fakecudart_launch fakehip_launch
#define fakecudart_pending fakehip_pending
#define fakecudart_record fakehip_record
#endif

typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

#define cudaSuccess 0
#define cudaErrorNotReady 600
#define cudaErrorIllegalAddress 700
#define cudaErrorInvalidConfiguration 9
#define cudaErrorStreamCaptureUnsupported 900
#define cudaErrorStreamCaptureInvalidated 901
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaDeviceScheduleSpin 1u
#define cudaDeviceScheduleBlockingSync 4u

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaSetDeviceFlags(unsigned flags);
cudaError_t cudaGetDeviceFlags(unsigned *flags);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, int *status);
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, int *status);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, void **graph);
const char *cudaGetErrorName(cudaError_t error);

/* The fake's own: enqueues a kernel of `duration_ns` on `stream`; `fault`
 * nonzero is the sticky error it leaves once it completed, `refuse` nonzero
 * a refusal at launch (a pending error, the launch not run). */
cudaError_t fakecudart_launch(cudaStream_t stream, uint64_t duration_ns, int fault, int refuse);
/* Kernels enqueued on `stream` and not yet completed: the ground truth. */
uint64_t fakecudart_pending(cudaStream_t stream);
/* The fake's completion record: stream writes made so far, and stream or
 * event synchronises that found their work still pending when called. */
void fakecudart_record(uint64_t *stores, uint64_t *syncs_found_pending);

#endif
