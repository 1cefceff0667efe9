/* examples/cuda_stream_wait.c — wait for work on a CUDA stream with a wait
 * plan, instead of cuStreamSynchronize.
 *
 *   cuda_stream_wait [PLAN]    (default: flag:park_us=100,backstop_us=1000)
 *
 * The steps a server takes once per device and once per stream, then per
 * wait: load the driver (gar loads libcuda at run time: nothing links it),
 * create a mapped line on device 0 (one page of host memory the GPU stores
 * into), bind a stream to one of its slots (a port), and wait through the
 * port.  A `flag` plan enqueues, behind the stream's work, the store of a
 * sequence number into the slot and parks on that word, with a status query
 * at least every backstop; the status query stays the authority.
 *
 * The work here is a large cuMemsetD8Async, as a stand-in for a kernel.
 * Build against an installed gar with the CUDA backend (examples/README.md):
 *   cc -std=c11 -O2 cuda_stream_wait.c $(pkg-config --cflags --libs gar) -o cuda_stream_wait
 * Exits 0, 77 where there is no CUDA driver or GPU, 1 when a step failed. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>

#include <gar/cuda.h>
#include <gar/gar.h>

#define DEFAULT_PLAN "flag:park_us=100,backstop_us=1000"
#define WORK_BYTES ((size_t)256 << 20) /* 256 MiB of memset: about a millisecond of work */
#define WAITS 5
#define DEADLINE_NS (10 * GAR_NS_PER_S)

#define SKIP 77

static int failed(const char *what, const gar_error *err)
{
    char text[512];
    gar_error_format(err, text, sizeof text);
    fprintf(stderr, "cuda_stream_wait: %s: %s\n", what, text);
    /* No driver (or only the toolkit's link-time libcuda), or no device:
     * nothing to wait on here. */
    gar_mapped_fault fault = gar_mapped_fault_of(err);
    return fault == GAR_MAPPED_FAULT_UNAVAILABLE || fault == GAR_MAPPED_FAULT_NO_DOMAIN ? SKIP : 1;
}

static int cuda_failed(const gar_cuda_driver *drv, const char *what, CUresult rc)
{
    char text[256];
    gar_cuda_status_text(drv, rc, text, sizeof text);
    fprintf(stderr, "cuda_stream_wait: %s: %s\n", what, text);
    return 1;
}

int main(int argc, char **argv)
{
    const char *plan_text = argc > 1 ? argv[1] : DEFAULT_PLAN;
    gar_error err;
    gar_error_clear(&err);

    gar_plan asked, plan;
    if (gar_plan_parse(plan_text, &asked, &err) != 0) {
        failed("plan", &err);
        return 2;
    }
    gar_posix_host host; /* this machine's clock, sleep and park */
    if (gar_posix_host_init(&host, NULL, &err) != 0)
        return failed("host", &err);
    gar_caps caps;
    gar_posix_host_caps(&host, &caps);
    gar_error warning;
    gar_error_clear(&warning);
    if (gar_plan_resolve(&asked, &caps, &plan, &warning) == 1)
        failed("plan", &warning); /* a flag plan runs as poll without a word wait */

    /* Once per process: the driver table.  Once per device: the line. */
    gar_cuda_driver drv;
    if (gar_cuda_driver_open(&drv, NULL, &err) != 0)
        return failed("driver", &err);
    gar_mapped_line line;
    int status = 0;
    if (gar_cuda_line_create(&line, &drv, 0, &err) != 0) {
        status = failed("line", &err);
        gar_cuda_driver_close(&drv);
        return status;
    }
    if (drv.stream_create == NULL || drv.stream_destroy == NULL || drv.mem_alloc == NULL ||
        drv.mem_free == NULL || drv.memset_d8_async == NULL) {
        fprintf(stderr, "cuda_stream_wait: the driver lacks a stream or memory call\n");
        gar_mapped_line_release(&line, &err);
        gar_cuda_driver_close(&drv);
        return SKIP;
    }

    /* Streams and memory live in the line's context: make it current. */
    CUstream stream = NULL;
    CUdeviceptr buffer = 0;
    CUresult rc;
    if (gar_cuda_push(&drv, gar_cuda_line_context(&line), &err) != 0) {
        status = failed("push", &err);
        goto release;
    }
    if ((rc = drv.stream_create(&stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
        status = cuda_failed(&drv, "cuStreamCreate", rc);
        goto pop;
    }
    if ((rc = drv.mem_alloc(&buffer, WORK_BYTES)) != CUDA_SUCCESS) {
        status = cuda_failed(&drv, "cuMemAlloc", rc);
        goto destroy;
    }

    /* Once per stream: its port, on slot 0 of the line. */
    gar_mapped_port port;
    gar_idle idle = gar_posix_host_idle(&host);
    gar_slot slot;
    gar_slot_make(0, &slot, NULL); /* 0..7 are the line's words */
    if (gar_cuda_port_init(&port, &line, slot, stream, idle, &err) != 0) {
        status = failed("port", &err);
        goto free_buffer;
    }

    char label[GAR_PLAN_LABEL_BYTES];
    gar_plan_label(&plan, label, sizeof label);
    printf("plan: %s\n", label);
    for (int i = 0; i < WAITS && status == 0; i++) {
        /* Enqueue the work, then wait for it under the plan. */
        rc = drv.memset_d8_async(buffer, (unsigned char)i, WORK_BYTES, stream);
        if (rc != CUDA_SUCCESS) {
            status = cuda_failed(&drv, "cuMemsetD8Async", rc);
            break;
        }
        gar_wait_report report;
        if (gar_wait_inline(&plan, false, 0, gar_posix_now() + DEADLINE_NS,
                            gar_mapped_port_port(&port), gar_posix_clock(), idle, &report,
                            &err) != 0) {
            status = failed("wait", &err);
            break;
        }
        /* The wait returned: the stream's status must agree. */
        if ((rc = drv.stream_query(stream)) != CUDA_SUCCESS) {
            status = cuda_failed(&drv, "cuStreamQuery after the wait", rc);
            break;
        }
        printf("wait %d: %s after %llu ns (%llu queries, %llu parks, %llu polls)\n", i,
               gar_wait_kind_name(report.kind), (unsigned long long)report.wait_ns,
               (unsigned long long)report.queries, (unsigned long long)report.parks,
               (unsigned long long)report.polls);
    }

    /* Tear down in reverse: the port, the work's memory and stream, then
     * the line (which settles the device before freeing its page). */
    gar_mapped_port_fini(&port);
free_buffer:
    drv.mem_free(buffer);
destroy:
    drv.stream_destroy(stream);
pop:
    gar_cuda_pop(&drv, NULL);
release:
    if (gar_mapped_line_release(&line, &err) != 0 && status == 0)
        status = failed("release", &err);
    gar_cuda_driver_close(&drv);
    if (status == 0)
        printf("cuda_stream_wait: ok\n");
    return status;
}
