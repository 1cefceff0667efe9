/* tests/backends/fake_libcuda.c — a shared library that exports (by name
 * only) the CUDA driver's required entry points, built twice: without
 * cuStreamQuery (WITHOUT_QUERY: a driver that open must refuse) and without
 * cuStreamWriteValue64_v2 (WITHOUT_STORE: one that only line creation
 * refuses).  The tests resolve these symbols and never call them, so each is
 * declared with no parameters whatever the real one takes. */
#define EXPORT(name) \
    int name(void);  \
    int name(void) { return 0; }

EXPORT(cuInit)
EXPORT(cuDeviceGet)
EXPORT(cuDevicePrimaryCtxRetain)
EXPORT(cuDevicePrimaryCtxRelease_v2)
EXPORT(cuCtxPushCurrent_v2)
EXPORT(cuCtxPopCurrent_v2)
EXPORT(cuCtxSynchronize)
EXPORT(cuMemHostAlloc)
EXPORT(cuMemFreeHost)
EXPORT(cuMemHostGetDevicePointer_v2)
EXPORT(cuStreamGetCtx)
EXPORT(cuStreamSynchronize)
#ifndef WITHOUT_QUERY
EXPORT(cuStreamQuery)
#endif
#ifndef WITHOUT_STORE
EXPORT(cuStreamWriteValue64_v2)
#endif
