/* experiments/verify/verify_cuda.c — gar verify's CUDA device behind the seam. */
#define _POSIX_C_SOURCE 200809L

#include "verify/verify_cuda.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <gar/cuda.h>
#include <gar/line.h>
#include <gar/mapped.h>
#include <gar/port.h>
#include <gar/posix.h>

#include "backends/hosts/cpu_relax.h"
#include "backends/gpu/cuda/cuda_work.h"

#define DRIVER GAR_MAPPED_FAULT_DRIVER

typedef struct cuda_device cuda_device;

/* What a row's port needs: its device and its row. */
typedef struct row_port {
    cuda_device *dev;
    size_t row;
} row_port;

struct cuda_device {
    const gar_cuda_driver *drv;
    gar_cuda_driver loaded;  /* the table the seam's open loaded (else unused) */
    bool owns_driver;

    gar_mapped_line line;
    CUcontext ctx;
    unsigned streams;
    CUstream stream[GAR_LINE_WORDS];
    gar_mapped_port port[GAR_LINE_WORDS];
    unsigned ports_bound;
    gar_cuda_work work;
    bool work_ready;

    CUevent anchor;           /* recorded at the anchor's host time */
    gar_mono_ns anchor_host;

    size_t rows, submitted, events;
    uint8_t *slot_of_row;
    gar_dur_ns *duration;
    CUevent *done;            /* one per row, recorded after its work */
    gar_descriptor *word;     /* the store behind each row's work */
    row_port *row_ports;
};

/* ---- the row's port ------------------------------------------------------- */

static int event_status(const cuda_device *dev, CUresult rc, const char *what, gar_error *err)
{
    if (rc == CUDA_SUCCESS)
        return 1;
    if (rc == CUDA_ERROR_NOT_READY)
        return 0;
    return gar_cuda_fail(dev->drv, err, DRIVER, what, rc);
}

static int row_query(void *ctx, gar_error *err)
{
    const row_port *p = ctx;
    return event_status(p->dev, p->dev->drv->event_query(p->dev->done[p->row]), "cuEventQuery",
                        err);
}

static int row_poll(void *ctx, gar_error *err)
{
    gar_cpu_relax(); /* before the query, as the mapped port's poll */
    return row_query(ctx, err);
}

static int row_block(void *ctx, gar_error *err)
{
    const row_port *p = ctx;
    int rc = event_status(p->dev, p->dev->drv->event_synchronize(p->dev->done[p->row]),
                          "cuEventSynchronize", err);
    return rc < 0 ? rc : 0;
}

static int row_arm(void *ctx, gar_descriptor *word, gar_error *err)
{
    (void)err;
    const row_port *p = ctx;
    *word = p->dev->word[p->row]; /* enqueued at submit, behind the row's work */
    return 0;
}

static int row_park(void *ctx, const gar_descriptor *word, gar_mono_ns until, gar_error *err)
{
    const row_port *p = ctx;
    gar_port stream_port = gar_mapped_port_port(&p->dev->port[p->dev->slot_of_row[p->row]]);
    return stream_port.ops->park(stream_port.ctx, word, until, err);
}

static const gar_port_ops row_port_ops = {
    .version = GAR_PORT_OPS_VERSION,
    .query = row_query,
    .block = row_block,
    .poll = row_poll,
    .arm = row_arm,
    .park = row_park,
};

/* ---- set-up and tear-down ------------------------------------------------- */

static const char *missing_entry_point(const gar_cuda_driver *drv)
{
    if (drv->stream_create == NULL)
        return "cuStreamCreate";
    if (drv->stream_destroy == NULL)
        return "cuStreamDestroy_v2";
    if (drv->event_create == NULL)
        return "cuEventCreate";
    if (drv->event_destroy == NULL)
        return "cuEventDestroy_v2";
    if (drv->event_record == NULL)
        return "cuEventRecord";
    if (drv->event_query == NULL)
        return "cuEventQuery";
    if (drv->event_synchronize == NULL)
        return "cuEventSynchronize";
    if (drv->event_elapsed_time_v2 == NULL && drv->event_elapsed_time == NULL)
        return "cuEventElapsedTime_v2 (or cuEventElapsedTime)";
    return NULL;
}

static CUresult elapsed_ms(const gar_cuda_driver *drv, float *ms, CUevent from, CUevent to)
{
    return drv->event_elapsed_time_v2 != NULL ? drv->event_elapsed_time_v2(ms, from, to)
                                              : drv->event_elapsed_time(ms, from, to);
}

/* Creates the streams and events with the line's context current. */
static int create_streams_and_events(cuda_device *dev, gar_error *err)
{
    const gar_cuda_driver *drv = dev->drv;
    for (unsigned s = 0; s < dev->streams; s++) {
        CUresult rc = drv->stream_create(&dev->stream[s], CU_STREAM_NON_BLOCKING);
        if (rc != CUDA_SUCCESS) {
            dev->stream[s] = NULL;
            return gar_cuda_fail(drv, err, DRIVER, "cuStreamCreate", rc);
        }
    }
    for (; dev->events < dev->rows; dev->events++) {
        CUresult rc = drv->event_create(&dev->done[dev->events], CU_EVENT_DEFAULT);
        if (rc != CUDA_SUCCESS)
            return gar_cuda_fail(drv, err, DRIVER, "cuEventCreate", rc);
    }
    return 0;
}

/* Ties the device's event timer to the host clock (verify_cuda.h): of the
 * tries, the one whose record-to-sync bracket on the host was narrowest.
 * Runs with the line's context current. */
static int anchor_clock(cuda_device *dev, gar_error *err)
{
    const gar_cuda_driver *drv = dev->drv;
    CUevent tries[GAR_VERIFY_CUDA_ANCHOR_TRIES];
    unsigned created = 0, best = 0;
    gar_dur_ns narrowest = GAR_MONO_NEVER;
    int rc = 0;
    for (; created < GAR_VERIFY_CUDA_ANCHOR_TRIES; created++) {
        CUresult status = drv->event_create(&tries[created], CU_EVENT_DEFAULT);
        if (status != CUDA_SUCCESS) {
            rc = gar_cuda_fail(drv, err, DRIVER, "cuEventCreate", status);
            break;
        }
        gar_mono_ns before = gar_posix_now();
        status = drv->event_record(tries[created], dev->stream[0]);
        if (status == CUDA_SUCCESS)
            status = drv->event_synchronize(tries[created]);
        gar_mono_ns after = gar_posix_now();
        if (status != CUDA_SUCCESS) {
            created++;
            rc = gar_cuda_fail(drv, err, DRIVER, "the clock anchor's event", status);
            break;
        }
        if (gar_since(after, before) < narrowest) {
            narrowest = gar_since(after, before);
            best = created;
            dev->anchor_host = before + narrowest / 2;
        }
    }
    for (unsigned i = 0; i < created; i++)
        if (rc < 0 || i != best)
            drv->event_destroy(tries[i]);
    if (rc == 0)
        dev->anchor = tries[best];
    return rc;
}

/* Releases whatever `dev` holds, in reverse order of creation, after
 * settling the context; fills completed_at first when it settled.  Returns
 * 0 or the first failure's code. */
static int tear_down(cuda_device *dev, gar_mono_ns *completed_at, gar_error *err)
{
    const gar_cuda_driver *drv = dev->drv;
    int rc = 0;
    bool settled = false, pushed = false;
    if (dev->line.state == GAR_MAPPED_LIVE) {
        rc = gar_cuda_push(drv, dev->ctx, err);
        pushed = rc == 0;
        if (pushed) {
            CUresult status = drv->ctx_synchronize();
            settled = status == CUDA_SUCCESS;
            if (!settled)
                rc = gar_cuda_fail(drv, err, DRIVER, "cuCtxSynchronize", status);
        }
    }

    for (size_t i = 0; completed_at != NULL && i < dev->rows; i++) {
        completed_at[i] = GAR_MONO_NEVER;
        if (!settled || i >= dev->submitted || dev->anchor == NULL)
            continue;
        float ms = 0.0f;
        CUresult status = elapsed_ms(drv, &ms, dev->anchor, dev->done[i]);
        if (status != CUDA_SUCCESS) {
            if (rc == 0)
                rc = gar_cuda_fail(drv, err, DRIVER, "cuEventElapsedTime", status);
            continue;
        }
        double ns = (double)ms * 1e6;
        completed_at[i] = gar_after(dev->anchor_host, ns > 0.0 ? (gar_dur_ns)(ns + 0.5) : 0);
    }

    /* Events and streams may go under pending work (the driver frees them
     * once it is done); only the line's page may not, which its release
     * guards. */
    if (pushed) {
        if (dev->anchor != NULL)
            drv->event_destroy(dev->anchor);
        for (size_t i = 0; i < dev->events; i++)
            drv->event_destroy(dev->done[i]);
    }
    for (unsigned s = 0; s < dev->ports_bound; s++)
        gar_mapped_port_fini(&dev->port[s]);
    if (pushed) {
        for (unsigned s = 0; s < dev->streams; s++)
            if (dev->stream[s] != NULL)
                drv->stream_destroy(dev->stream[s]);
        int popped = gar_cuda_pop(drv, rc < 0 ? NULL : err);
        if (rc == 0)
            rc = popped;
    }
    if (dev->work_ready) {
        int finished = gar_cuda_work_fini(&dev->work, rc < 0 ? NULL : err);
        if (rc == 0)
            rc = finished;
    }
    bool leaked = false;
    if (dev->line.state == GAR_MAPPED_LIVE) {
        int released = gar_mapped_line_release(&dev->line, rc < 0 ? NULL : err);
        leaked = released == 1;
        if (rc == 0 && released != 0)
            rc = released < 0 ? released : -GAR_E_BACKEND;
    }
    /* A leaked line keeps its context, which may still store into the
     * page: the driver must stay loaded under it. */
    if (dev->owns_driver && !leaked)
        gar_cuda_driver_close(&dev->loaded);
    free(dev->slot_of_row);
    free(dev->duration);
    free(dev->done);
    free(dev->word);
    free(dev->row_ports);
    free(dev);
    return rc;
}

static int set_up(cuda_device *dev, const gar_trace *trace, gar_idle park, gar_error *err)
{
    const gar_cuda_driver *drv = dev->drv;
    const size_t n = trace->count;
    dev->rows = n;
    dev->slot_of_row = malloc(n);
    dev->duration = malloc(n * sizeof *dev->duration);
    dev->done = calloc(n, sizeof *dev->done);
    dev->word = calloc(n, sizeof *dev->word);
    dev->row_ports = malloc(n * sizeof *dev->row_ports);
    if (dev->slot_of_row == NULL || dev->duration == NULL || dev->done == NULL ||
        dev->word == NULL || dev->row_ports == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the CUDA device", "exhausted");
    int rc = gar_verify_stream_slots(trace, GAR_LINE_WORDS, dev->slot_of_row, &dev->streams, err);
    if (rc < 0)
        return rc;
    gar_verify_work_durations(trace, dev->slot_of_row, GAR_LINE_WORDS, dev->duration);
    for (size_t i = 0; i < n; i++)
        dev->row_ports[i] = (row_port){ .dev = dev, .row = i };

    const char *missing = missing_entry_point(drv);
    if (missing != NULL) {
        char what[GAR_ERROR_ARG_BYTES];
        snprintf(what, sizeof what, "open the CUDA verify device with %s", drv->library);
        char why[GAR_ERROR_ARG_BYTES];
        snprintf(why, sizeof why, "the driver has no %s", missing);
        return gar_mapped_fail(err, GAR_MAPPED_FAULT_UNAVAILABLE, what, why);
    }
    if ((rc = gar_cuda_line_create(&dev->line, drv, GAR_VERIFY_CUDA_ORDINAL, err)) < 0)
        return rc;
    dev->ctx = gar_cuda_line_context(&dev->line);

    if ((rc = gar_cuda_push(drv, dev->ctx, err)) < 0)
        return rc;
    rc = create_streams_and_events(dev, err);
    int popped = gar_cuda_pop(drv, rc < 0 ? NULL : err);
    if (rc == 0)
        rc = popped;
    while (rc == 0 && dev->ports_bound < dev->streams) {
        unsigned s = dev->ports_bound;
        rc = gar_cuda_port_init(&dev->port[s], &dev->line, (gar_slot){ .index = (uint8_t)s },
                                dev->stream[s], park, err);
        dev->ports_bound += rc == 0;
    }
    if (rc == 0 && (rc = gar_cuda_work_init(&dev->work, drv, dev->ctx, NULL, err)) == 0)
        dev->work_ready = true;
    /* One nanosecond of work first: a driver that loads modules lazily
     * does it at the first launch, which must be neither a row's nor the
     * anchor's (the first try waits it out; the narrowest is kept). */
    if (rc == 0)
        rc = gar_cuda_work_submit(&dev->work, dev->stream[0], 1, err);
    if (rc < 0 || (rc = gar_cuda_push(drv, dev->ctx, err)) < 0)
        return rc;
    rc = anchor_clock(dev, err);
    popped = gar_cuda_pop(drv, rc < 0 ? NULL : err);
    return rc < 0 ? rc : popped;
}

/* Opens over `drv`, or over `loaded` (then owned: unloaded by close, or
 * here on failure) where `drv` is NULL. */
static int cuda_device_open(void **ctx, const gar_cuda_driver *drv, gar_cuda_driver *loaded,
                            const gar_trace *trace, gar_idle park, gar_error *err)
{
    const bool owns_driver = drv == NULL;
    cuda_device *dev = calloc(1, sizeof *dev);
    if (dev == NULL) {
        if (owns_driver)
            gar_cuda_driver_close(loaded);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the CUDA device", "exhausted");
    }
    dev->owns_driver = owns_driver;
    if (owns_driver) {
        dev->loaded = *loaded;
        dev->drv = &dev->loaded;
    } else {
        dev->drv = drv;
    }
    int rc = set_up(dev, trace, park, err);
    if (rc < 0) {
        tear_down(dev, NULL, NULL);
        return rc;
    }
    *ctx = dev;
    return 0;
}

int gar_verify_cuda_open(void **ctx, const gar_cuda_driver *drv, const gar_trace *trace,
                         gar_idle park, gar_error *err)
{
    if (ctx == NULL || drv == NULL || trace == NULL || trace->count == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_verify_cuda_open",
                             ctx == NULL ? "ctx" : drv == NULL ? "drv" : "trace",
                             trace != NULL && trace->count == 0 ? "has no rows" : "is NULL");
    return cuda_device_open(ctx, drv, NULL, trace, park, err);
}

/* ---- the seam ------------------------------------------------------------- */

static int seam_open(void **ctx, const gar_trace *trace, gar_mono_ns *origin, gar_idle park,
                     int cpu, gar_error *err)
{
    (void)cpu; /* the device needs no CPU of its own */
    const gar_mono_ns called = gar_posix_now();
    const gar_dur_ns head_start = gar_since(*origin, called);
    gar_cuda_driver loaded;
    int rc = gar_cuda_driver_open(&loaded, NULL, err);
    if (rc == 0)
        rc = cuda_device_open(ctx, NULL, &loaded, trace, park, err);
    if (rc < 0)
        return rc;
    /* The driver's set-up (context, kernel JIT) is not the trace's time:
     * the run keeps its whole head start, counted from here. */
    gar_mono_ns ready = gar_after(gar_posix_now(), head_start);
    if (ready > *origin)
        *origin = ready;
    return 0;
}

static int seam_submit_row(void *ctx, size_t row, gar_port *port, gar_error *err)
{
    cuda_device *dev = ctx;
    if (row != dev->submitted || row >= dev->rows)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "the CUDA device's submit_row",
                             "row", "is not the next row of the trace");
    const gar_cuda_driver *drv = dev->drv;
    unsigned s = dev->slot_of_row[row];
    int rc = gar_cuda_work_submit(&dev->work, dev->stream[s], dev->duration[row], err);
    if (rc < 0)
        return rc;
    if ((rc = gar_cuda_push(drv, dev->ctx, err)) < 0)
        return rc;
    CUresult status = drv->event_record(dev->done[row], dev->stream[s]);
    int popped = gar_cuda_pop(drv, status != CUDA_SUCCESS ? NULL : err);
    if (status != CUDA_SUCCESS)
        return gar_cuda_fail(drv, err, DRIVER, "cuEventRecord", status);
    if (popped < 0)
        return popped;
    /* Counted submitted from here: the event is queued, so close may read it. */
    dev->submitted++;
    gar_port stream_port = gar_mapped_port_port(&dev->port[s]);
    if ((rc = stream_port.ops->arm(stream_port.ctx, &dev->word[row], err)) < 0)
        return rc;
    *port = (gar_port){ .ops = &row_port_ops, .ctx = &dev->row_ports[row] };
    return 0;
}

static int seam_close(void *ctx, bool stop, gar_mono_ns *completed_at, gar_error *err)
{
    /* Work once queued cannot be taken back: with `stop` as without, the
     * context is settled before anything is released. */
    (void)stop;
    return tear_down(ctx, completed_at, err);
}

const gar_verify_device_ops gar_verify_cuda_device = {
    .name = "cuda",
    .open = seam_open,
    .submit_row = seam_submit_row,
    .close = seam_close,
};
