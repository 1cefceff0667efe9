/* sim/trace/trace_order.c — the ordering rules every trace obeys (trace.h:
 * times in range, each row's start and done after its submit, starts in
 * file order, each stream's submits and dones in order), shared by the
 * reader, the writer and gar_trace_check (trace_reader.h). */
#include "sim/trace/trace_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/trace/alloc.h"

const char *const gar_trace_column_name[COL_COUNT] = {
    "point", "submit_ns", "start_ns", "done_ns", "rows", "stream",
};

void gar_trace_order_init(gar_trace_order *r)
{
    memset(r, 0, sizeof *r);
}

void gar_trace_order_free(gar_trace_order *r)
{
    gar_free(r->slot);
    gar_trace_order_init(r);
}

static gar_trace_stream_last *rules_probe(gar_trace_stream_last *slot, size_t slots,
                                          uint32_t stream)
{
    size_t i = (size_t)(stream * UINT32_C(2654435761)) & (slots - 1);
    while (slot[i].used && slot[i].stream != stream)
        i = (i + 1) & (slots - 1);
    return &slot[i];
}

/* The entry of `stream`, made on first sight.  NULL when memory runs out. */
static gar_trace_stream_last *rules_stream(gar_trace_order *r, uint32_t stream)
{
    if (r->recent != NULL && r->recent->stream == stream)
        return r->recent;
    if (2 * (r->used + 1) > r->slots) {
        size_t slots = r->slots == 0 ? 16 : r->slots * 2;
        gar_trace_stream_last *grown = gar_calloc(slots, sizeof *grown);
        if (grown == NULL)
            return NULL;
        for (size_t i = 0; i < r->slots; i++)
            if (r->slot[i].used)
                *rules_probe(grown, slots, r->slot[i].stream) = r->slot[i];
        gar_free(r->slot);
        r->slot = grown;
        r->slots = slots;
    }
    gar_trace_stream_last *e = rules_probe(r->slot, r->slots, stream);
    if (!e->used) {
        e->used = true;
        e->stream = stream;
        e->submit_ns = 0;
        e->done_ns = 0;
        r->used++;
    }
    r->recent = e;
    return e;
}

int gar_trace_refuse(gar_error *err, const char *name, uint64_t line, unsigned column,
                     const char *fault)
{
    char line_text[24], column_text[16];
    snprintf(line_text, sizeof line_text, "%" PRIu64, line);
    snprintf(column_text, sizeof column_text, "%u", column);
    return gar_error_set(err, GAR_E_INVALID_TRACE, 4, name, line_text, column_text, fault);
}

/* 1-based position of a column in a header holding `columns`. */
unsigned gar_trace_column_position(unsigned columns, int col)
{
    if (col == COL_STREAM)
        return (columns & GAR_TRACE_HAS_STEP_ROWS) ? 6 : 5;
    return (unsigned)col + 1;
}

/* Checks one row against the rules and records it.  `line` is where it came
 * from (a file line, or a row number). */
int gar_trace_order_admit(gar_trace_order *r, const gar_trace_row *row, unsigned columns,
                          const char *name, uint64_t line, gar_error *err)
{
    char fault[160];
    const uint64_t times[3] = { row->submit_ns, row->start_ns, row->done_ns };
    for (int i = 0; i < 3; i++) {
        if (times[i] > GAR_TRACE_TIME_MAX) {
            snprintf(fault, sizeof fault, "%s %" PRIu64 " is above the limit %" PRIu64,
                     gar_trace_column_name[COL_SUBMIT + i], times[i], GAR_TRACE_TIME_MAX);
            return gar_trace_refuse(err, name, line,
                                    gar_trace_column_position(columns, COL_SUBMIT + i), fault);
        }
    }
    if (row->start_ns < row->submit_ns) {
        snprintf(fault, sizeof fault, "start_ns %" PRIu64 " is before submit_ns %" PRIu64,
                 row->start_ns, row->submit_ns);
        return gar_trace_refuse(err, name, line, gar_trace_column_position(columns, COL_START),
                                fault);
    }
    if (row->done_ns < row->submit_ns) {
        snprintf(fault, sizeof fault, "done_ns %" PRIu64 " is before submit_ns %" PRIu64,
                 row->done_ns, row->submit_ns);
        return gar_trace_refuse(err, name, line, gar_trace_column_position(columns, COL_DONE),
                                fault);
    }
    if (r->any_row && row->start_ns < r->last_start_ns) {
        snprintf(fault, sizeof fault,
                 "start_ns %" PRIu64 " is before the previous row's start_ns %" PRIu64
                 " (rows must be in the order the host waited)",
                 row->start_ns, r->last_start_ns);
        return gar_trace_refuse(err, name, line, gar_trace_column_position(columns, COL_START),
                                fault);
    }
    gar_trace_stream_last *s = rules_stream(r, row->stream);
    if (s == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace stream table", "out of memory");
    if (row->submit_ns < s->submit_ns) {
        snprintf(fault, sizeof fault,
                 "submit_ns %" PRIu64 " is before stream %" PRIu32 "'s previous submit_ns %" PRIu64,
                 row->submit_ns, row->stream, s->submit_ns);
        return gar_trace_refuse(err, name, line, gar_trace_column_position(columns, COL_SUBMIT),
                                fault);
    }
    if (row->done_ns < s->done_ns) {
        snprintf(fault, sizeof fault,
                 "done_ns %" PRIu64 " is before stream %" PRIu32 "'s previous done_ns %" PRIu64,
                 row->done_ns, row->stream, s->done_ns);
        return gar_trace_refuse(err, name, line, gar_trace_column_position(columns, COL_DONE),
                                fault);
    }
    s->submit_ns = row->submit_ns;
    s->done_ns = row->done_ns;
    r->last_start_ns = row->start_ns;
    r->any_row = true;
    return 0;
}

int gar_trace_check(const gar_trace *trace, const char *name, gar_error *err)
{
    if (trace == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_check", "trace",
                             "is NULL");
    if (trace->columns & ~(unsigned)(GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_check", "trace",
                             "has unknown bits in columns");
    if (name == NULL)
        name = "trace";
    if (trace->count == 0)
        return gar_trace_refuse(err, name, 1, 1, "no rows (an empty trace)");
    gar_trace_order rules;
    gar_trace_order_init(&rules);
    int rc = 0;
    for (size_t i = 0; i < trace->count && rc == 0; i++) {
        const gar_trace_row *row = &trace->row[i];
        if (!(trace->columns & GAR_TRACE_HAS_STEP_ROWS) && row->step_rows != 0)
            rc = gar_trace_refuse(err, name, i + 1, 5,
                                  "rows is set but the trace has no rows column");
        else if (!(trace->columns & GAR_TRACE_HAS_STREAM) && row->stream != 0)
            rc = gar_trace_refuse(err, name, i + 1,
                                  gar_trace_column_position(trace->columns, COL_STREAM),
                                  "stream is set but the trace has no stream column");
        else
            rc = gar_trace_order_admit(&rules, row, trace->columns, name, i + 1, err);
    }
    gar_trace_order_free(&rules);
    return rc;
}
