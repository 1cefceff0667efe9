/* tests/backends/fake_cuda.h — a fake CUDA driver table for the CUDA tests.
 *
 * Every entry point records its call in a log (with the context current at
 * the time) and answers with the status the test set for it.  It models
 * just enough of the driver to check what gar does with it: a reference
 * count on the primary context, a context stack, one "pinned" page with a
 * fake device address, and stream stores that land in that page at once
 * (or never, when the test says so). */
#ifndef GAR_TEST_FAKE_CUDA_H
#define GAR_TEST_FAKE_CUDA_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda.h>

#include <gar/cuda.h>

#define FAKE_LOG_MAX 128
#define FAKE_DEVICE_BASE UINT64_C(0x7f0000000000)
#define FAKE_STACK_MAX 8
#define FAKE_EVENTS_MAX 64 /* events the fake can hand out between resets */

/* Contexts and streams are opaque pointers; any distinct addresses do. */
#define FAKE_PRIMARY ((CUcontext)(uintptr_t)0x1000)
#define FAKE_OTHER_CTX ((CUcontext)(uintptr_t)0x2000)
#define FAKE_STREAM ((CUstream)(uintptr_t)0x3000)

typedef struct fake_call {
    const char *name;  /* the entry point's symbol */
    CUcontext current; /* the context current when it was called */
} fake_call;

typedef struct fake_cuda {
    /* statuses to answer with (CUDA_SUCCESS unless a test says otherwise) */
    CUresult init_rc, device_get_rc, retain_rc, release_rc, push_rc, pop_rc, ctx_sync_rc,
        alloc_rc, free_rc, devptr_rc, get_ctx_rc, query_rc, stream_sync_rc, write_rc,
        module_load_rc, get_function_rc, launch_rc, mem_alloc_rc, memset_rc;
    CUcontext stream_ctx;    /* what cuStreamGetCtx answers */
    bool stores_land;        /* a stream store reaches the page at once */
    unsigned page_offset;    /* added to the page cuMemHostAlloc returns (misalignment) */

    /* what happened */
    int retained;            /* primary context references held */
    CUcontext stack[FAKE_STACK_MAX];
    int depth;               /* contexts pushed */
    bool page_allocated;
    size_t alloc_bytes;
    unsigned alloc_flags;
    unsigned writes;
    CUstream write_stream;
    CUdeviceptr write_addr;
    uint64_t write_value;
    const void *module_image;
    unsigned launches;
    unsigned long long launch_ns;
    unsigned memsets;
    size_t memset_bytes;     /* summed over memsets */
    size_t memset_largest;
    fake_call log[FAKE_LOG_MAX];
    unsigned log_len;

    /* streams and events (gar verify's CUDA device) */
    CUresult stream_create_rc, event_create_rc, event_record_rc, event_query_rc, elapsed_rc;
    double clock_ms;         /* the device's timer: what an event records */
    unsigned streams_created, streams_destroyed;
    unsigned events_created, events_destroyed, event_records;
} fake_cuda;

extern fake_cuda fake;

/* The page the fake hands out (4096 bytes, page-aligned). */
unsigned char *fake_page(void);

/* Resets `fake` (all statuses success, stores land, the stream is of the
 * primary context, the timer at 0 ms) and returns a full driver table over
 * it.  Streams it creates are distinct handles, all of the primary context
 * (as stream_ctx says); an event records clock_ms, and the elapsed time of
 * two recorded events is the difference of theirs. */
gar_cuda_driver fake_cuda_reset(void);

/* Index of the first call named `name` in the log, or -1. */
int fake_called_at(const char *name);

/* How many calls named `name` the log holds. */
unsigned fake_calls(const char *name);

/* The context current at the first call named `name` (NULL if none). */
CUcontext fake_current_at(const char *name);

#endif
