/* sim/trace/trace_rows.c — plain rows read straight out of the text, and
 * the whole lines of a block handed to the reader (trace_reader.h).  A
 * plain row (digits and commas) is parsed where it lies and written into
 * the row array; every other line goes to the line reader (trace_lines.c),
 * so both give the same rows and the same refusals.  The hot loop of every
 * trace read. */
#include "sim/trace/trace_reader.h"

#include <string.h>

#include "sim/trace/decimal_chunk.h"
#include "sim/trace/decimal_wide.h"

/* The most bytes a plain row spans, its newline included: six fields of at
 * most 19 digits and their delimiters.  A row is read this way only where
 * at least FAST_SPAN + 8 bytes are left, so no load, eight bytes at a time,
 * reaches past the text. */
#define FAST_SPAN (6 * 20)

/* One field of 1 to max_digits digits at *q, then `delim`: its value in
 * *out and *q moved past the delimiter.  False for anything else (left to
 * the line reader, which says what is wrong).  At most three loads: a
 * field of more than 19 digits is never plain. */
static inline bool fast_field(const char **q, size_t max_digits, char delim, uint64_t *out)
{
    const char *p = *q;
    uint64_t chunk;
    memcpy(&chunk, p, 8);
    unsigned k = gar_decimal_chunk_digits(chunk);
    if (k == 0)
        return false;
    uint64_t v = gar_decimal_chunk_value(chunk, k);
    p += k;
    if (k == 8) {
        memcpy(&chunk, p, 8);
        k = gar_decimal_chunk_digits(chunk);
        if (k > 0) {
            v = v * gar_trace_power_of_ten[k] + gar_decimal_chunk_value(chunk, k);
            p += k;
        }
        if (k == 8) {
            memcpy(&chunk, p, 8);
            k = gar_decimal_chunk_digits(chunk);
            if (k > 3)
                return false;
            if (k > 0) {
                v = v * gar_trace_power_of_ten[k] + gar_decimal_chunk_value(chunk, k);
                p += k;
            }
        }
    }
    if ((size_t)(p - *q) > max_digits || *p != delim)
        return false;
    *q = p + 1;
    *out = v;
    return true;
}

#if GAR_DECIMAL_WIDE
/* A plain row of under 64 bytes at `p` whose numbers have at most 16 digits
 * (9 for rows and stream): its `fields` values into v and *next past its
 * newline, from one classification of its bytes and one conversion a
 * field (decimal_wide.h).  False for any other row (the eight-byte reader
 * and then the line reader take it), and where a field's 16-byte window
 * would start before `base`, the first byte that may be read. */
static inline bool wide_row(const char *p, const char *base, unsigned fields, const char **next,
                            uint64_t v[COL_COUNT])
{
    /* Three chunks first: a row of a long four-column trace is about 45
     * bytes, and the fourth chunk is classified only for a longer one. */
    uint64_t digit = 0, comma = 0, newline = 0;
    for (unsigned k = 0; k < 3; k++)
        gar_decimal_classify16(p, k, &digit, &comma, &newline);
    if (newline == 0)
        gar_decimal_classify16(p, 3, &digit, &comma, &newline);
    if (newline == 0)
        return false;
    unsigned len = (unsigned)__builtin_ctzll(newline);
    uint64_t row = (UINT64_C(1) << len) - 1; /* the bytes before the newline */
    if (((digit | comma) & row) != row)
        return false;
    comma &= row;
    size_t before = (size_t)(p - base); /* bytes readable before p */
    if (before < 16)
        return false; /* a field's window would start before `base` */
    /* Field f ends at the f-th comma (the newline for the last): one comma
     * fewer than fields, each field 1 to 16 digits (9 for rows, stream). */
    unsigned start = 0;
    for (unsigned f = 0; f < fields; f++) {
        unsigned stop = len;
        if (f + 1 < fields) {
            if (comma == 0)
                return false;
            stop = (unsigned)__builtin_ctzll(comma);
            comma &= comma - 1;
        } else if (comma != 0) {
            return false;
        }
        unsigned count = stop - start;
        if (count - 1 >= (f < 4 ? 16u : 9u)) /* count 0 wraps */
            return false;
        v[f] = gar_decimal_value16(p + stop, count);
        start = stop + 1;
    }
    *next = p + len + 1;
    return true;
}
#endif

/* Reads plain rows (gar_trace_reader_line's fast case: digits and commas only, one
                     * field per header column, '\n' right after the last) from `p` on while
 * FAST_SPAN + 8 bytes are left before `end` and the block holds fewer than
 * `stop` rows; returns where it stopped, at the first line it did not take.
 * Such a row is checked against the ordering rules in one test, and only
 * a row that fails it goes through gar_trace_order_admit, which says which rule.
 * The line reader takes every other line, and reads it from scratch: every
 * refusal, its line and column, stays its own.  *rc is 0, or a refusal. */
static const char *fast_rows(gar_trace_reader *rd, const char *base, const char *p, const char *end,
                             size_t stop, int *rc)
{
    if (!GAR_DECIMAL_CHUNKS || rd->state != WANT_ROWS)
        return p;
    const unsigned fields = rd->fields;
    const bool has_rows = rd->trace.columns & GAR_TRACE_HAS_STEP_ROWS;
    const bool has_stream = rd->trace.columns & GAR_TRACE_HAS_STREAM;
    gar_trace_order *r = &rd->rules;
    gar_trace *t = &rd->trace;
    while (end - p >= FAST_SPAN + 8 && t->count < stop) {
        const char *q = p;
        uint64_t point, submit, start, done, rows = 0, stream = 0;
#if GAR_DECIMAL_WIDE
        uint64_t v[COL_COUNT];
        /* The four-column row (no step_rows, no stream) with its count of
         * fields a constant: its loop over the fields unrolled, each
         * field's bound known. */
        if (fields == 4 ? wide_row(p, base, 4, &q, v) : wide_row(p, base, fields, &q, v)) {
            point = v[0];
            submit = v[1];
            start = v[2];
            done = v[3];
            rows = has_rows ? v[4] : 0;
            stream = has_stream ? v[fields - 1] : 0;
        } else
#else
        (void)base;
#endif
        {
            if (!fast_field(&q, 19, ',', &point) || !fast_field(&q, 19, ',', &submit) ||
                !fast_field(&q, 19, ',', &start) ||
                !fast_field(&q, 19, fields == 4 ? '\n' : ',', &done))
                break;
            if (has_rows && !fast_field(&q, 9, fields == 5 ? '\n' : ',', &rows))
                break;
            if (has_stream && !fast_field(&q, 9, '\n', &stream))
                break;
        }
        rd->line++;
        /* Written field by field where it goes: a row built aside and
         * copied was stored in words and loaded back in wider ones, which
         * the store buffer cannot forward (a stall a row). */
        gar_trace_row spare;
        gar_trace_row *row = t->count < t->capacity ? &t->row[t->count] : &spare;
        row->point = point;
        row->submit_ns = submit;
        row->start_ns = start;
        row->done_ns = done;
        row->step_rows = (uint32_t)rows;
        row->stream = (uint32_t)stream;
        gar_trace_stream_last *s = r->recent;
        /* Every rule of gar_trace_order_admit at once: the times at most 2^63 - 1,
         * submit first, starts in order, the stream's submits and dones in
         * order (the stream the last row was on: a run of one stream's rows). */
        if (((submit | start | done) >> 63) == 0 && start >= submit && done >= submit &&
            start >= r->last_start_ns && s != NULL && s->stream == (uint32_t)stream &&
            submit >= s->submit_ns && done >= s->done_ns) {
            s->submit_ns = submit;
            s->done_ns = done;
            r->last_start_ns = start;
            r->any_row = true;
        } else if ((*rc = gar_trace_order_admit(r, row, t->columns, rd->name, rd->line,
                                                rd->err)) < 0) {
            return p;
        }
        if (row != &spare)
            t->count++;
        else if ((*rc = gar_trace_append(t, &spare, rd->err)) < 0)
            return p;
        p = q;
    }
    return p;
}

/* Reads the whole lines from `p` up to `end` — the text's last newline at
 * or before end - 1 — until the block holds `stop` rows or more; returns
 * where it stopped (the unfinished line's start, or the first line not yet
 * read).  *rc is 0, or a refusal. */
const char *gar_trace_read_lines(gar_trace_reader *rd, const char *p, const char *end,
                                 size_t stop, int *rc)
{
    *rc = 0;
    const char *base = p;
    for (;;) {
        p = fast_rows(rd, base, p, end, stop, rc);
        if (*rc < 0 || rd->trace.count >= stop || p == end)
            return p;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            return p;
        *rc = nl - p > GAR_TRACE_LINE_MAX ? gar_trace_refuse_long_line(rd)
                                          : gar_trace_reader_line(rd, p, (size_t)(nl - p));
        if (*rc < 0)
            return p;
        p = nl + 1;
    }
}

/* Reads the whole lines of a window of `len` bytes at `text` (a block's
 * worth from the first line not yet read, or the text's last bytes), and
 * says in *unfinished how many bytes of a line without its newline are left
 * at its end.  Returns 0, or the refusal: a line's fault, or an unfinished
 * line already longer than a line may be.  Both stream readers, copying and
 * mapped, read their windows so. */
int gar_trace_read_window(gar_trace_reader *rd, const char *text, size_t len, size_t *unfinished)
{
    int rc;
    const char *p = gar_trace_read_lines(rd, text, text + len, SIZE_MAX, &rc);
    if (rc < 0)
        return rc;
    *unfinished = (size_t)(text + len - p);
    return *unfinished > GAR_TRACE_LINE_MAX ? gar_trace_refuse_long_line(rd) : 0;
}

/* Reads the lines of buf's first held + `added` bytes and keeps the rest. */
int gar_trace_split_lines(gar_trace_line_buffer *lb, size_t added)
{
    size_t len = lb->held + added;
    int rc = gar_trace_read_window(lb->rd, lb->buf, len, &lb->held);
    if (rc < 0)
        return rc;
    memmove(lb->buf, lb->buf + len - lb->held, lb->held);
    return 0;
}

/* The consumer of inflated text (unpack.h): copied in, read line by line. */
int gar_trace_feed_lines(void *context, const unsigned char *bytes, size_t len)
{
    gar_trace_line_buffer *lb = context;
    while (len > 0) {
        size_t n = GAR_TRACE_READ_BLOCK - lb->held; /* at least 7 lines' room: held <= a line */
        if (n > len)
            n = len;
        memcpy(lb->buf + lb->held, bytes, n);
        bytes += n;
        len -= n;
        int rc = gar_trace_split_lines(lb, n);
        if (rc < 0)
            return rc;
    }
    return 0;
}

