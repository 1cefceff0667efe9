/* experiments/import/import_map.c — profiler records to trace rows: the one
 * mapping both importers share.  The records in memory and their lookups are
 * here; the rules that use them are import_rules.c's (described in import.h
 * and data/README.md), the same over records spilled to SQLite; the lookups
 * over records in memory are import_lookup.c's. */
#include "import/import.h"
#include "sim/trace/alloc.h"
#include "import/import_spill.h"
#include "import/import_lookup.h"
#include "import/import_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/key_index.h"

void gar_import_init(gar_import *im)
{
    memset(im, 0, sizeof *im);
    im->record_budget = GAR_IMPORT_RECORD_BUDGET;
    const char *budget = getenv("GAR_IMPORT_RECORD_BUDGET");
    if (budget != NULL && *budget >= '0' && *budget <= '9') {
        char *end;
        unsigned long long bytes = strtoull(budget, &end, 10);
        if (*end == '\0' && bytes <= SIZE_MAX)
            im->record_budget = (size_t)bytes;
    }
    im->row_budget = GAR_IMPORT_ROW_BUDGET;
    budget = getenv("GAR_IMPORT_ROW_BUDGET");
    if (budget != NULL && *budget >= '0' && *budget <= '9') {
        char *end;
        unsigned long long bytes = strtoull(budget, &end, 10);
        if (*end == '\0' && bytes <= SIZE_MAX)
            im->row_budget = (size_t)bytes;
    }
}

void gar_import_free(gar_import *im)
{
    if (im == NULL)
        return;
    gar_free(im->op);
    gar_free(im->call);
    gar_free(im->sync);
    gar_free(im->process_id);
    gar_import_spill_close(im->spill);
    gar_import_init(im);
}

void gar_import_legend_free(gar_import_legend *legend)
{
    if (legend == NULL)
        return;
    gar_free(legend->process);
    gar_free(legend->stream);
    memset(legend, 0, sizeof *legend);
}

/* Grows `*array` of `*cap` elements of `size` bytes to hold one more. */
static int grow(void **array, size_t *cap, size_t used, size_t size, gar_error *err)
{
    if (used < *cap)
        return 0;
    size_t want = *cap == 0 ? 256 : *cap * 2;
    void *grown = want <= SIZE_MAX / size ? gar_realloc(*array, want * size) : NULL;
    if (grown == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import records", "out of memory");
    *array = grown;
    *cap = want;
    return 0;
}

/* Whether the records must move to the database before an array of `cap`
 * elements of `size` bytes grows: when it is full and its growth would take
 * the three arrays past the budget.  Returns 0 or the spill's failure. */
static int spill_if_over(gar_import *im, size_t used, size_t cap, size_t size, gar_error *err)
{
    if (im->spill != NULL || used < cap)
        return 0;
    size_t held = im->ops_cap * sizeof *im->op + im->calls_cap * sizeof *im->call +
                  im->syncs_cap * sizeof *im->sync;
    size_t more = (cap == 0 ? 256 : cap) * size;
    if (held <= im->record_budget && more <= im->record_budget - held)
        return 0;
    return gar_import_spill_open(im, err);
}

int gar_import_add_op(gar_import *im, const gar_import_op *op, gar_error *err)
{
    int rc = spill_if_over(im, im->ops, im->ops_cap, sizeof *op, err);
    if (rc == 0 && im->spill != NULL)
        return gar_import_spill_op(im->spill, op, err);
    if (rc == 0)
        rc = grow((void **)&im->op, &im->ops_cap, im->ops, sizeof *op, err);
    if (rc == 0)
        im->op[im->ops++] = *op;
    return rc;
}

int gar_import_add_call(gar_import *im, const gar_import_call *call, gar_error *err)
{
    int rc = spill_if_over(im, im->calls, im->calls_cap, sizeof *call, err);
    if (rc == 0 && im->spill != NULL)
        return gar_import_spill_call(im->spill, call, err);
    if (rc == 0)
        rc = grow((void **)&im->call, &im->calls_cap, im->calls, sizeof *call, err);
    if (rc == 0)
        im->call[im->calls++] = *call;
    return rc;
}

int gar_import_add_sync(gar_import *im, const gar_import_sync *sync, gar_error *err)
{
    int rc = spill_if_over(im, im->syncs, im->syncs_cap, sizeof *sync, err);
    if (rc == 0 && im->spill != NULL)
        return gar_import_spill_sync(im->spill, sync, err);
    if (rc == 0)
        rc = grow((void **)&im->sync, &im->syncs_cap, im->syncs, sizeof *sync, err);
    if (rc == 0)
        im->sync[im->syncs++] = *sync;
    return rc;
}

int gar_import_process(gar_import *im, uint64_t id, uint32_t *index, gar_error *err)
{
    for (size_t i = im->processes; i > 0; i--) {
        if (im->process_id[i - 1] == id) {
            *index = (uint32_t)(i - 1);
            return 0;
        }
    }
    if (im->processes >= UINT32_MAX)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import processes", "too many");
    int rc = grow((void **)&im->process_id, &im->processes_cap, im->processes,
                  sizeof *im->process_id, err);
    if (rc < 0)
        return rc;
    im->process_id[im->processes] = id;
    *index = (uint32_t)im->processes++;
    return 0;
}

/* A pass over the rows in start order that drops those which would move
 * their stream's submit or done backwards (calls from several host threads
 * can overlap), counting them.  Streams are numbered by first appearance
 * (sim/trace/key_index.h) and their last submit and done kept by number, so a
 * pass is linear in the rows whatever the number of streams.  The first
 * pass counts and finds the origin; the second moves the kept rows to it
 * and hands them to the sink. */
typedef struct stream_last {
    uint64_t submit_ns, done_ns;
} stream_last;

typedef struct keep_pass {
    gar_key_index streams;
    stream_last *seen;
    size_t seen_cap;
    uint64_t kept, dropped, inferred;
    uint64_t origin;               /* the least submit kept */
    uint64_t latest;               /* the greatest start or done kept */
    const gar_import_sink *sink;   /* NULL on the counting pass */
    gar_error *err;
    bool out_of_memory;
} keep_pass;

static bool keep_begin(keep_pass *k, const gar_import_sink *sink, uint64_t origin, gar_error *err)
{
    memset(k, 0, sizeof *k);
    k->origin = origin;
    k->sink = sink;
    k->err = err;
    return gar_key_index_init(&k->streams);
}

static void keep_end(keep_pass *k)
{
    gar_key_index_free(&k->streams);
    gar_free(k->seen);
    k->seen = NULL;
}

static int keep_row(void *context, const gar_trace_row *row)
{
    keep_pass *k = context;
    uint32_t number = gar_key_index_add(&k->streams, row->stream);
    if (number != GAR_KEY_INDEX_NONE && number >= k->seen_cap) {
        size_t want = k->seen_cap == 0 ? 64 : k->seen_cap * 2;
        stream_last *grown = gar_realloc(k->seen, want * sizeof *grown);
        if (grown == NULL) {
            number = GAR_KEY_INDEX_NONE;
        } else {
            memset(grown + k->seen_cap, 0, (want - k->seen_cap) * sizeof *grown);
            k->seen = grown;
            k->seen_cap = want;
        }
    }
    if (number == GAR_KEY_INDEX_NONE) {
        k->out_of_memory = true;
        return gar_error_set(k->err, GAR_E_CAPACITY, 2, "import stream table", "out of memory");
    }
    stream_last *s = &k->seen[number];
    if (row->submit_ns < s->submit_ns || row->done_ns < s->done_ns) {
        k->dropped++;
        return 0;
    }
    s->submit_ns = row->submit_ns;
    s->done_ns = row->done_ns;
    k->kept++;
    k->inferred += row->step_rows;
    if (k->sink == NULL) {
        if (row->submit_ns < k->origin)
            k->origin = row->submit_ns;
        uint64_t later = row->start_ns > row->done_ns ? row->start_ns : row->done_ns;
        if (later > k->latest)
            k->latest = later;
        return 0;
    }
    gar_trace_row moved = *row;
    moved.submit_ns -= k->origin;
    moved.start_ns -= k->origin;
    moved.done_ns -= k->origin;
    moved.step_rows = 0; /* the mark of an inferred stream, counted above */
    return k->sink->row(k->sink->context, &moved, k->err);
}

/* One pass over the rows; `sink` NULL counts only. */
static int keep_rows(gar_import_rows *rows, keep_pass *k, const gar_import_sink *sink,
                     uint64_t origin, gar_error *err)
{
    if (!keep_begin(k, sink, origin, err)) {
        keep_end(k);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import stream table", "out of memory");
    }
    int rc = gar_import_rows_each(rows, keep_row, k, err);
    keep_end(k);
    return rc;
}

static int refuse_no_rows(const gar_import *im, const char *name, const gar_import_counts *counts,
                          gar_error *err)
{
    char fault[GAR_ERROR_ARG_BYTES];
    if (im->options.wait_on == GAR_IMPORT_WAIT_ON_KERNEL)
        snprintf(fault, sizeof fault,
                 "no kernel could be waited for: of its %llu kernels (no launch %llu,"
                 " no stream %llu, inconsistent %llu, out of order %llu); record the"
                 " CUDA or HIP runtime calls and the GPU activity",
                 (unsigned long long)counts->sync_calls,
                 (unsigned long long)counts->no_launch, (unsigned long long)counts->no_stream,
                 (unsigned long long)counts->inconsistent,
                 (unsigned long long)counts->out_of_order);
    else if (counts->sync_calls == 0)
        snprintf(fault, sizeof fault,
                 "no host call waited for GPU work: it has no stream, event or device"
                 " synchronize nor blocking copy; record the CUDA or HIP runtime calls"
                 " and the GPU activity, or import with --wait-on kernel for a what-if"
                 " trace that waits for every kernel");
    else
        snprintf(fault, sizeof fault,
                 "no host call waited for GPU work: none of its %llu synchronizing"
                 " calls could be tied to work it waited for (no gpu op %llu, no stream %llu,"
                 " no launch %llu, inconsistent %llu, out of order %llu, returned early %llu);"
                 " import with --wait-on kernel for a what-if trace that waits for every"
                 " kernel",
                 (unsigned long long)counts->sync_calls,
                 (unsigned long long)counts->no_gpu_op, (unsigned long long)counts->no_stream,
                 (unsigned long long)counts->no_launch,
                 (unsigned long long)counts->inconsistent,
                 (unsigned long long)counts->out_of_order,
                 (unsigned long long)counts->returned_early);
    /* a fault of the whole file: no line or column to name */
    return gar_error_set(err, GAR_E_INVALID_TRACE, 4, name, "", "", fault);
}

static int fill_legend(const gar_import_mapper *m, gar_import_legend *legend, gar_error *err);

/* Maps the records into `rows`, counts the pass that keeps stream order,
 * then begins the sink and hands it the kept rows. */
static int map_records(gar_import_mapper *m, const char *name, gar_import_rows *rows,
                       const gar_import_sink *sink, gar_import_counts *counts, gar_error *err)
{
    int rc = m->im->spill != NULL
                 ? gar_import_spill_map(m->im, rows, &m->run, &m->runs, counts, err)
                 : gar_import_collect_rows(m, rows, counts, err);
    keep_pass k;
    if (rc == 0)
        rc = keep_rows(rows, &k, NULL, UINT64_MAX, err);
    if (rc < 0)
        return rc;
    counts->out_of_order += k.dropped;
    counts->waits = k.kept;
    counts->inferred_stream = k.inferred;
    if (k.kept == 0)
        return refuse_no_rows(m->im, name, counts, err);
    uint64_t origin = k.origin;
    /* The one rule of a trace the mapping does not keep by construction
     * (start order, stream order and submit <= start, done are): checked
     * here, before the sink has begun, so a refusal never leaves half a
     * trace on standard output. */
    if (k.latest - origin > GAR_TRACE_TIME_MAX) {
        char fault[160];
        snprintf(fault, sizeof fault,
                 "its waits span more than %llu ns from the earliest submit, more than a"
                 " trace's times can hold",
                 (unsigned long long)GAR_TRACE_TIME_MAX);
        return gar_error_set(err, GAR_E_INVALID_TRACE, 4, name, "", "", fault);
    }
    gar_import_legend legend;
    memset(&legend, 0, sizeof legend);
    rc = fill_legend(m, &legend, err);
    if (rc == 0)
        rc = sink->begin(sink->context, counts, &legend, err);
    gar_import_legend_free(&legend);
    if (rc == 0)
        rc = keep_rows(rows, &k, sink, origin, err);
    return rc;
}

/* The processes, and with several the qualified streams, for the header. */
static int fill_legend(const gar_import_mapper *m, gar_import_legend *legend, gar_error *err)
{
    const gar_import *im = m->im;
    legend->process = gar_malloc((im->processes > 0 ? im->processes : 1) * sizeof *legend->process);
    if (legend->process == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import legend", "out of memory");
    if (im->processes > 0)
        memcpy(legend->process, im->process_id, im->processes * sizeof *legend->process);
    legend->processes = im->processes;
    if (im->processes <= 1)
        return 0;
    legend->stream = gar_malloc((m->runs > 0 ? m->runs : 1) * sizeof *legend->stream);
    if (legend->stream == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import legend", "out of memory");
    for (size_t i = 0; i < m->runs; i++)
        legend->stream[i] = (gar_import_stream_name){ (uint32_t)i,
                                                      im->process_id[m->run[i].process],
                                                      m->run[i].device, m->run[i].stream };
    legend->streams = m->runs;
    return 0;
}

int gar_import_finish_to(gar_import *im, const char *name, const gar_import_sink *sink,
                         gar_import_counts *counts, gar_error *err)
{
    if (im == NULL || sink == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_finish_to",
                             im == NULL ? "im" : "sink", "is NULL");
    gar_import_counts local;
    if (counts == NULL)
        counts = &local;
    memset(counts, 0, sizeof *counts);
    gar_import_mapper m = { .im = im };
    gar_import_rows rows;
    gar_import_rows_init(&rows, im->row_budget);
    int rc = map_records(&m, name != NULL ? name : "profile", &rows, sink, counts, err);
    gar_import_rows_free(&rows);
    gar_free(m.run);
    gar_free(m.by_corr);
    gar_free(m.launch);
    return rc;
}

/* ---- the sink that collects a trace in memory ---- */

static int trace_begin(void *context, const gar_import_counts *counts, gar_import_legend *legend,
                       gar_error *err)
{
    (void)counts;
    gar_import_to_trace *t = context;
    t->out->columns = GAR_TRACE_HAS_STREAM;
    if (t->legend != NULL) { /* taken, not copied */
        *t->legend = *legend;
        memset(legend, 0, sizeof *legend);
    }
    (void)err;
    return 0;
}

static int trace_row(void *context, const gar_trace_row *row, gar_error *err)
{
    gar_import_to_trace *t = context;
    return gar_trace_append(t->out, row, err);
}

gar_import_sink gar_import_trace_sink(gar_import_to_trace *t, gar_trace *out,
                                      gar_import_legend *legend)
{
    t->out = out;
    t->legend = legend;
    gar_trace_init(out);
    if (legend != NULL)
        memset(legend, 0, sizeof *legend);
    return (gar_import_sink){ trace_begin, trace_row, t };
}

int gar_import_trace_sink_end(gar_import_to_trace *t, const char *name, int rc, gar_error *err)
{
    if (rc == 0)
        rc = gar_trace_check(t->out, name != NULL ? name : "profile", err);
    if (rc < 0) {
        gar_trace_free(t->out);
        gar_import_legend_free(t->legend);
    }
    return rc;
}

int gar_import_finish_legend(gar_import *im, const char *name, gar_trace *out,
                             gar_import_counts *counts, gar_import_legend *legend,
                             gar_error *err)
{
    if (legend != NULL)
        memset(legend, 0, sizeof *legend);
    if (im == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_import_finish",
                             im == NULL ? "im" : "out", "is NULL");
    gar_import_to_trace t;
    gar_import_sink sink = gar_import_trace_sink(&t, out, legend);
    int rc = gar_import_finish_to(im, name, &sink, counts, err);
    return gar_import_trace_sink_end(&t, name, rc, err);
}

int gar_import_finish(gar_import *im, const char *name, gar_trace *out,
                      gar_import_counts *counts, gar_error *err)
{
    return gar_import_finish_legend(im, name, out, counts, NULL, err);
}
