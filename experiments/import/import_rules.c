/* experiments/import/import_rules.c — which op a synchronizing call waited
 * for, and the row it makes (import_rules.h; the rules in import.h and
 * data/README.md). */
#include "import/import_rules.h"

#include <assert.h>
#include <string.h>

#include "import/content_hash.h"
#include "import/import_sync_names.h"

static int cmp_u32(uint32_t a, uint32_t b)
{
    return (a > b) - (a < b);
}

const gar_import_run *gar_import_exact_run(const gar_import_run *run, size_t runs,
                                           uint32_t process, uint32_t device, uint32_t stream)
{
    size_t lo = 0, hi = runs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gar_import_run *r = &run[mid];
        int c = cmp_u32(r->process, process);
        if (c == 0)
            c = cmp_u32(r->device, device);
        if (c == 0)
            c = cmp_u32(r->stream, stream);
        if (c == 0)
            return r;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The run of (process, device, stream); any device for GAR_IMPORT_ANY. */
static const gar_import_run *find_run(const gar_import_lookup *lk, uint32_t process,
                                      uint32_t device, uint32_t stream)
{
    if (device == GAR_IMPORT_ANY) {
        for (size_t i = 0; i < lk->runs; i++)
            if (lk->run[i].process == process && lk->run[i].stream == stream)
                return &lk->run[i];
        return NULL;
    }
    return gar_import_exact_run(lk->run, lk->runs, process, device, stream);
}

/* The only stream of `device` (any device for GAR_IMPORT_ANY) in `process`,
 * when it has exactly one: the exact answer for a sync whose stream was not
 * recorded. */
static const gar_import_run *only_run(const gar_import_lookup *lk, uint32_t process,
                                      uint32_t device)
{
    const gar_import_run *found = NULL;
    for (size_t i = 0; i < lk->runs; i++) {
        if (lk->run[i].process != process ||
            (device != GAR_IMPORT_ANY && lk->run[i].device != device))
            continue;
        if (found != NULL)
            return NULL;
        found = &lk->run[i];
    }
    return found;
}

/* Stream inference: the run of the op that `call`'s own host thread launched
 * last before the call began (the `.item()` pattern: a kernel or copy, then a
 * sync of its stream).  NULL when the thread launched nothing before it. */
static const gar_import_run *inferred_run(const gar_import_lookup *lk,
                                          const gar_import_call *call)
{
    uint32_t device, stream;
    if (!lk->last_launch(lk->ctx, call, &device, &stream))
        return NULL;
    return gar_import_exact_run(lk->run, lk->runs, call->process, device, stream);
}

/* What one synchronizing call waited for. */
typedef struct awaited {
    bool has_op;               /* false: no row */
    gar_import_op op;
    const gar_import_run *run;   /* the op's run */
    const gar_import_run *named; /* the stream the call names (NULL: device-wide) */
    bool inferred;               /* the named stream was inferred */
} awaited;

/* Finds the op `call` waited for, or counts why there is none.  Returns false
 * for a call that turns out not to wait at all (an async copy that does not
 * block), which is not counted as a synchronizing call. */
static bool find_awaited(const gar_import_lookup *lk, const gar_import_call *call, awaited *out,
                         gar_import_counts *counts)
{
    gar_sync_kind kind = gar_import_sync_kind(call->name);
    gar_import_sync sync = { 0 };
    bool has_sync = lk->sync(lk->ctx, call->process, call->correlation, &sync);
    uint32_t device = has_sync ? sync.device : GAR_IMPORT_ANY;
    const gar_import_run *run = NULL;
    uint64_t launched_by = call->start_ns;
    memset(out, 0, sizeof *out);

    switch (kind) {
    case GAR_SYNC_MEMCPY:
    case GAR_SYNC_MEMCPY_ASYNC: {
        gar_import_op copy = { 0 };
        bool has_copy = lk->op(lk->ctx, call->process, call->correlation, &copy);
        if (kind == GAR_SYNC_MEMCPY_ASYNC && (!has_copy || !copy.dtoh_pageable))
            return false;
        counts->sync_calls++;
        if (!has_copy) {
            counts->no_gpu_op++;
            return true;
        }
        if (copy.end_ns > call->end_ns &&
            copy.end_ns - call->end_ns > GAR_IMPORT_EARLY_RETURN_NS) {
            /* The call came back while its copy was still to run: no wait. */
            counts->returned_early++;
            return true;
        }
        /* The copy itself: it ends after all its stream's earlier work, and
         * may start just after the call is seen to return (clock slop). */
        out->has_op = true;
        out->op = copy;
        out->run = gar_import_exact_run(lk->run, lk->runs, copy.process, copy.device,
                                        copy.stream);
        out->named = out->run;
        return true;
    }
    case GAR_SYNC_STREAM:
    case GAR_SYNC_EVENT: {
        counts->sync_calls++;
        uint32_t stream = GAR_IMPORT_ANY;
        if (has_sync)
            stream = kind == GAR_SYNC_EVENT && sync.event_stream != GAR_IMPORT_ANY
                         ? sync.event_stream
                         : sync.stream;
        /* An event sync waits for the work enqueued before its event was recorded. */
        uint64_t recorded;
        if (kind == GAR_SYNC_EVENT && has_sync && sync.event_correlation != 0 &&
            lk->call_start(lk->ctx, call->process, sync.event_correlation, &recorded) &&
            recorded < launched_by)
            launched_by = recorded;
        if (stream != GAR_IMPORT_ANY) {
            run = find_run(lk, call->process, device, stream);
        } else {
            run = only_run(lk, call->process, device);
            if (run == NULL && !lk->im->options.no_infer) {
                run = inferred_run(lk, call);
                out->inferred = run != NULL;
            }
        }
        if (run == NULL) {
            if (stream == GAR_IMPORT_ANY)
                counts->no_stream++;
            else
                counts->no_gpu_op++;
            return true;
        }
        break;
    }
    case GAR_SYNC_DEVICE: {
        counts->sync_calls++;
        for (size_t i = 0; i < lk->runs; i++) {
            if (lk->run[i].process != call->process ||
                (device != GAR_IMPORT_ANY && lk->run[i].device != device))
                continue;
            gar_import_op op;
            if (lk->last_op(lk->ctx, &lk->run[i], call->end_ns, launched_by, &op) &&
                (!out->has_op || op.end_ns > out->op.end_ns)) {
                out->has_op = true;
                out->op = op;
                out->run = &lk->run[i];
            }
        }
        if (!out->has_op)
            counts->no_gpu_op++;
        return true;
    }
    case GAR_SYNC_NONE:
        return false;
    }
    out->has_op = lk->last_op(lk->ctx, run, call->end_ns, launched_by, &out->op);
    if (!out->has_op)
        counts->no_gpu_op++;
    out->run = run;
    out->named = run;
    return true;
}

int gar_import_map_call(const gar_import_lookup *lk, const gar_import_call *call,
                        gar_import_rows *rows, gar_import_counts *counts, gar_error *err)
{
    if (call->name < 0)
        return 0;
    awaited aw;
    if (!find_awaited(lk, call, &aw, counts) || !aw.has_op)
        return 0;
    uint64_t submit;
    if (!lk->call_start(lk->ctx, aw.op.process, aw.op.correlation, &submit)) {
        counts->no_launch++;
        return 0;
    }
    uint32_t stream = gar_import_trace_stream(lk->im, lk->run, aw.run);
    if (stream == UINT32_MAX) {
        counts->no_stream++;
        return 0;
    }
    /* last_op only returns ops launched by the call's start, so submit <=
     * start holds; an op ending before its launch is clock skew. */
    assert(submit <= call->start_ns);
    if (aw.op.end_ns < submit) {
        counts->inconsistent++;
        return 0;
    }
    uint32_t named =
        aw.named != NULL ? gar_import_trace_stream(lk->im, lk->run, aw.named) : UINT32_MAX;
    gar_trace_row row = {
        .point = gar_import_point(lk->im, call->name, named, call->process),
        .submit_ns = submit,
        .start_ns = call->start_ns,
        .done_ns = aw.op.end_ns,
        .step_rows = aw.inferred ? 1 : 0, /* a mark until the rows are kept; then 0 */
        .stream = stream,
    };
    return gar_import_rows_add(rows, &row, err);
}

int gar_import_map_kernel(const gar_import_lookup *lk, const gar_import_op *op,
                          gar_import_rows *rows, gar_import_counts *counts, gar_error *err)
{
    if (!op->kernel)
        return 0;
    counts->sync_calls++;
    uint64_t submit, returned;
    if (!lk->call_span(lk->ctx, op->process, op->correlation, &submit, &returned)) {
        counts->no_launch++;
        return 0;
    }
    if (op->end_ns < submit) {
        counts->inconsistent++;
        return 0;
    }
    const gar_import_run *run =
        gar_import_exact_run(lk->run, lk->runs, op->process, op->device, op->stream);
    uint32_t stream = run != NULL ? gar_import_trace_stream(lk->im, lk->run, run) : UINT32_MAX;
    if (stream == UINT32_MAX) {
        counts->no_stream++;
        return 0;
    }
    gar_trace_row row = {
        .point = gar_import_kernel_point(lk->im, op->name_hash, stream, op->process),
        .submit_ns = submit,
        .start_ns = returned,
        .done_ns = op->end_ns,
        .stream = stream,
    };
    return gar_import_rows_add(rows, &row, err);
}

uint32_t gar_import_trace_stream(const gar_import *im, const gar_import_run *runs,
                                 const gar_import_run *run)
{
    if (im->processes > 1)
        return (uint32_t)(run - runs);
    if (run->device >= GAR_IMPORT_ID_LIMIT || run->stream >= GAR_IMPORT_ID_LIMIT)
        return UINT32_MAX;
    return run->device * GAR_IMPORT_ID_LIMIT + run->stream;
}

static void le32(unsigned char out[4], uint32_t v)
{
    out[0] = (unsigned char)v;
    out[1] = (unsigned char)(v >> 8);
    out[2] = (unsigned char)(v >> 16);
    out[3] = (unsigned char)(v >> 24);
}

uint64_t gar_import_point(const gar_import *im, int name, uint32_t named_stream, uint32_t process)
{
    const char *base = gar_import_sync_base(name);
    unsigned char le[4];
    le32(le, named_stream);
    /* FNV-1a, 64 bits: small, stable, and documented everywhere. */
    uint64_t h = gar_hash_bytes(GAR_HASH_OFFSET, base, strlen(base));
    h = gar_hash_bytes(h, le, sizeof le);
    if (im->processes > 1) {
        /* Each process's (rank's) host loop is its own set of call sites. */
        le32(le, (uint32_t)im->process_id[process]);
        h = gar_hash_bytes(h, le, sizeof le);
    }
    return h;
}

uint64_t gar_import_kernel_point(const gar_import *im, uint64_t name_hash, uint32_t stream,
                                 uint32_t process)
{
    unsigned char le[4];
    le32(le, stream);
    uint64_t h = gar_hash_bytes(name_hash, le, sizeof le);
    if (im->processes > 1) {
        le32(le, (uint32_t)im->process_id[process]);
        h = gar_hash_bytes(h, le, sizeof le);
    }
    return h;
}
