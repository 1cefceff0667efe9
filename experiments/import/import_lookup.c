/* experiments/import/import_lookup.c — the mapping over records held in
 * memory (import_lookup.h): binary searches over the sorted arrays, the
 * lookups import_rules.c asks for, and the rows collected through them. */
#include "import/import_lookup.h"

#include <stdlib.h>
#include <string.h>

#include "sim/trace/alloc.h"

static int cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

static int op_by_stream(const void *x, const void *y)
{
    const gar_import_op *a = x, *b = y;
    int c = cmp_u64(a->process, b->process);
    if (c == 0)
        c = cmp_u64(a->device, b->device);
    if (c == 0)
        c = cmp_u64(a->stream, b->stream);
    if (c == 0)
        c = cmp_u64(a->start_ns, b->start_ns);
    if (c == 0)
        c = cmp_u64(a->end_ns, b->end_ns);
    return c != 0 ? c : cmp_u64(a->correlation, b->correlation);
}

static int call_by_correlation(const void *x, const void *y)
{
    const gar_import_call *a = x, *b = y;
    int c = cmp_u64(a->process, b->process);
    if (c == 0)
        c = cmp_u64(a->correlation, b->correlation);
    if (c == 0)
        c = cmp_u64(a->start_ns, b->start_ns);
    return c != 0 ? c : cmp_u64(a->end_ns, b->end_ns);
}

static int sync_by_correlation(const void *x, const void *y)
{
    const gar_import_sync *a = x, *b = y;
    int c = cmp_u64(a->process, b->process);
    return c != 0 ? c : cmp_u64(a->correlation, b->correlation);
}

static int op_ptr_by_correlation(const void *x, const void *y)
{
    const gar_import_op *const *a = x, *const *b = y;
    int c = cmp_u64((*a)->process, (*b)->process);
    return c != 0 ? c : cmp_u64((*a)->correlation, (*b)->correlation);
}

/* Launch calls by host thread, then start: the index stream inference uses. */
static int launch_by_thread(const void *x, const void *y)
{
    const gar_import_call *const *a = x, *const *b = y;
    int c = cmp_u64((*a)->process, (*b)->process);
    if (c == 0)
        c = cmp_u64((*a)->thread, (*b)->thread);
    if (c == 0)
        c = cmp_u64((*a)->start_ns, (*b)->start_ns);
    return c != 0 ? c : cmp_u64((*a)->correlation, (*b)->correlation);
}

static const gar_import_call *find_call(const gar_import_mapper *m, uint32_t process,
                                        uint64_t correlation)
{
    if (correlation == 0)
        return NULL;
    size_t lo = 0, hi = m->im->calls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gar_import_call *c = &m->im->call[mid];
        if (c->process < process || (c->process == process && c->correlation < correlation))
            lo = mid + 1;
        else
            hi = mid;
    }
    const gar_import_call *c = lo < m->im->calls ? &m->im->call[lo] : NULL;
    return c != NULL && c->process == process && c->correlation == correlation ? c : NULL;
}

static const gar_import_sync *find_sync(const gar_import_mapper *m, uint32_t process,
                                        uint64_t correlation)
{
    if (correlation == 0 || m->im->syncs == 0)
        return NULL;
    gar_import_sync key = { .correlation = correlation, .process = process };
    return bsearch(&key, m->im->sync, m->im->syncs, sizeof key, sync_by_correlation);
}

static const gar_import_op *find_op(const gar_import_mapper *m, uint32_t process,
                                    uint64_t correlation)
{
    if (correlation == 0 || m->by_corr_count == 0)
        return NULL;
    gar_import_op key = { .correlation = correlation, .process = process };
    const gar_import_op *pkey = &key;
    const gar_import_op **hit = bsearch(&pkey, m->by_corr, m->by_corr_count, sizeof pkey,
                                        op_ptr_by_correlation);
    return hit != NULL ? *hit : NULL;
}

/* The op of `run` that the wait ended on: the one that started last before
 * `before` among those launched no later than `launched_by`.  A sync waits
 * for the work enqueued before it (before its call, or before its event was
 * recorded); work another thread enqueues meanwhile is not what it waited
 * for.  An op whose launch is not in the trace ends the search: it may be the
 * awaited op, and the caller counts it as having no launch. */
static const gar_import_op *last_op(const gar_import_mapper *m, const gar_import_run *run,
                                    uint64_t before, uint64_t launched_by)
{
    const gar_import_op *op = &m->im->op[run->first];
    size_t lo = 0, hi = run->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (op[mid].start_ns < before)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0) {
        const gar_import_op *cand = &op[--lo];
        const gar_import_call *launch = find_call(m, cand->process, cand->correlation);
        if (launch == NULL || launch->start_ns <= launched_by)
            return cand;
    }
    return NULL;
}

/* The op that `call`'s own host thread launched last before the call began
 * (launches are sorted by thread, then start): what stream inference
 * follows.  NULL when the thread launched nothing before it. */
static const gar_import_op *last_launched(const gar_import_mapper *m, const gar_import_call *call)
{
    size_t lo = 0, hi = m->launches;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gar_import_call *l = m->launch[mid];
        int c = cmp_u64(l->process, call->process);
        if (c == 0)
            c = cmp_u64(l->thread, call->thread);
        if (c == 0)
            c = l->start_ns < call->start_ns ? -1 : 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const gar_import_call *l = m->launch[lo - 1];
    if (l->process != call->process || l->thread != call->thread)
        return NULL;
    return find_op(m, l->process, l->correlation);
}

/* ---- the lookups the rules ask for (import_rules.h), over the arrays ---- */

static bool call_start_of(void *ctx, uint32_t process, uint64_t correlation, uint64_t *start)
{
    const gar_import_call *call = find_call(ctx, process, correlation);
    if (call != NULL)
        *start = call->start_ns;
    return call != NULL;
}

static bool call_span_of(void *ctx, uint32_t process, uint64_t correlation, uint64_t *start,
                         uint64_t *end)
{
    const gar_import_call *call = find_call(ctx, process, correlation);
    if (call != NULL) {
        *start = call->start_ns;
        *end = call->end_ns;
    }
    return call != NULL;
}

static bool sync_of(void *ctx, uint32_t process, uint64_t correlation, gar_import_sync *out)
{
    const gar_import_sync *sync = find_sync(ctx, process, correlation);
    if (sync != NULL)
        *out = *sync;
    return sync != NULL;
}

static bool op_of(void *ctx, uint32_t process, uint64_t correlation, gar_import_op *out)
{
    const gar_import_op *op = find_op(ctx, process, correlation);
    if (op != NULL)
        *out = *op;
    return op != NULL;
}

static bool last_op_of(void *ctx, const gar_import_run *run, uint64_t before,
                       uint64_t launched_by, gar_import_op *out)
{
    const gar_import_op *op = last_op(ctx, run, before, launched_by);
    if (op != NULL)
        *out = *op;
    return op != NULL;
}

static bool last_launch_of(void *ctx, const gar_import_call *call, uint32_t *device,
                           uint32_t *stream)
{
    const gar_import_op *op = last_launched(ctx, call);
    if (op != NULL) {
        *device = op->device;
        *stream = op->stream;
    }
    return op != NULL;
}

/* qsort of an empty table: its base may be NULL, which qsort may not see. */
static void sort_table(void *base, size_t count, size_t size, int (*order)(const void *, const void *))
{
    if (count > 0)
        qsort(base, count, size, order);
}

static int build_tables(gar_import_mapper *m, gar_error *err)
{
    gar_import *im = m->im;
    sort_table(im->op, im->ops, sizeof *im->op, op_by_stream);
    sort_table(im->call, im->calls, sizeof *im->call, call_by_correlation);
    sort_table(im->sync, im->syncs, sizeof *im->sync, sync_by_correlation);

    m->run = gar_malloc((im->ops > 0 ? im->ops : 1) * sizeof *m->run);
    m->by_corr = gar_malloc((im->ops > 0 ? im->ops : 1) * sizeof *m->by_corr);
    m->launch = gar_malloc((im->calls > 0 ? im->calls : 1) * sizeof *m->launch);
    if (m->run == NULL || m->by_corr == NULL || m->launch == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import tables", "out of memory");
    for (size_t i = 0; i < im->ops; i++) {
        const gar_import_op *op = &im->op[i];
        const gar_import_run *last = m->runs > 0 ? &m->run[m->runs - 1] : NULL;
        if (last == NULL || last->process != op->process || last->device != op->device ||
            last->stream != op->stream)
            m->run[m->runs++] = (gar_import_run){ op->process, op->device, op->stream, i, 0 };
        m->run[m->runs - 1].count++;
        if (op->correlation != 0)
            m->by_corr[m->by_corr_count++] = op;
    }
    sort_table(m->by_corr, m->by_corr_count, sizeof *m->by_corr, op_ptr_by_correlation);
    for (size_t i = 0; i < im->calls; i++)
        if (find_op(m, im->call[i].process, im->call[i].correlation) != NULL)
            m->launch[m->launches++] = &im->call[i];
    sort_table(m->launch, m->launches, sizeof *m->launch, launch_by_thread);
    return 0;
}

/* One row per call that waited (with --wait-on kernel: per kernel), in call
 * (op) order; `rows` marks an inferred stream. */
int gar_import_collect_rows(gar_import_mapper *m, gar_import_rows *trace, gar_import_counts *counts,
                            gar_error *err)
{
    gar_import *im = m->im;
    int rc = build_tables(m, err);
    if (rc < 0)
        return rc;
    /* Sorted by (process, correlation): a repeat follows its first. */
    for (size_t i = 1; i < im->calls; i++)
        counts->duplicate_correlation += im->call[i].correlation != 0 &&
                                         im->call[i].correlation == im->call[i - 1].correlation &&
                                         im->call[i].process == im->call[i - 1].process;
    gar_import_lookup lookup = {
        .ctx = m,
        .im = im,
        .run = m->run,
        .runs = m->runs,
        .call_start = call_start_of,
        .call_span = call_span_of,
        .sync = sync_of,
        .op = op_of,
        .last_op = last_op_of,
        .last_launch = last_launch_of,
    };
    if (im->options.wait_on == GAR_IMPORT_WAIT_ON_KERNEL) {
        for (size_t i = 0; rc == 0 && i < im->ops; i++)
            rc = gar_import_map_kernel(&lookup, &im->op[i], trace, counts, err);
        return rc;
    }
    for (size_t i = 0; rc == 0 && i < im->calls; i++)
        rc = gar_import_map_call(&lookup, &im->call[i], trace, counts, err);
    return rc;
}
