/* sim/trace/trace.c — a trace's rows in memory: made, grown, compared
 * (trace.h).  Reading, checking and writing the file format are in the
 * trace_*.c files beside it (trace_reader.h says which does what). */
#include "sim/trace/trace.h"

#include "sim/trace/alloc.h"

void gar_trace_init(gar_trace *trace)
{
    if (trace == NULL)
        return;
    trace->row = NULL;
    trace->count = 0;
    trace->capacity = 0;
    trace->columns = 0;
}

void gar_trace_free(gar_trace *trace)
{
    if (trace == NULL)
        return;
    gar_free(trace->row);
    gar_trace_init(trace);
}

int gar_trace_reserve(gar_trace *trace, size_t capacity, gar_error *err)
{
    if (trace == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_reserve", "trace",
                             "is NULL");
    if (capacity <= trace->capacity)
        return 0;
    if (capacity > SIZE_MAX / sizeof(gar_trace_row))
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace", "the address space");
    gar_trace_row *grown = gar_realloc(trace->row, capacity * sizeof(gar_trace_row));
    if (grown == NULL) {
        char text[GAR_ERROR_ARG_BYTES];
        snprintf(text, sizeof text, "%zu rows: out of memory", capacity);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace", text);
    }
    trace->row = grown;
    trace->capacity = capacity;
    return 0;
}

int gar_trace_append(gar_trace *trace, const gar_trace_row *row, gar_error *err)
{
    if (trace == NULL || row == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_append",
                             trace == NULL ? "trace" : "row", "is NULL");
    if (trace->count == trace->capacity) {
        size_t want = trace->capacity < 1024 ? 1024 : trace->capacity * 2;
        int rc = gar_trace_reserve(trace, want, err);
        if (rc < 0)
            return rc;
    }
    trace->row[trace->count++] = *row;
    return 0;
}

bool gar_trace_equal(const gar_trace *a, const gar_trace *b)
{
    if (a->count != b->count || a->columns != b->columns)
        return false;
    for (size_t i = 0; i < a->count; i++) {
        const gar_trace_row *x = &a->row[i], *y = &b->row[i];
        if (x->point != y->point || x->submit_ns != y->submit_ns || x->start_ns != y->start_ns ||
            x->done_ns != y->done_ns || x->step_rows != y->step_rows || x->stream != y->stream)
            return false;
    }
    return true;
}
