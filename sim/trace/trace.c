/* sim/trace/trace.c — reads, checks and writes gar-trace v1.
 *
 * One reader serves files, streams and memory: the stream reader hands it
 * whole lines out of a block buffer, the memory reader out of the caller's
 * bytes.  A plain row (digits and commas) is parsed where it lies and
 * written straight into the row array (fast_rows); every other line goes to
 * the line-at-a-time reader, which reads it from scratch and says what is
 * wrong with it, so both give the same rows and the same refusals. */
#define _POSIX_C_SOURCE 200809L

#include "sim/trace/trace.h"

#include "sim/trace/alloc.h"
#include "sim/trace/atomic_file.h"
#include "sim/trace/leftover.h"
#include "sim/trace/decimal_chunk.h"
#include "sim/trace/decimal_wide.h"
#include "sim/trace/mapped_text.h"
#include "sim/trace/unpack.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The columns in their one canonical order; the optional two may be left out. */
enum { COL_POINT, COL_SUBMIT, COL_START, COL_DONE, COL_ROWS, COL_STREAM, COL_COUNT };
static const char *const column_name[COL_COUNT] = {
    "point", "submit_ns", "start_ns", "done_ns", "rows", "stream",
};

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

/* ---- the ordering rules, shared by the reader and gar_trace_check ---- */

/* The last submit and done seen on each stream: open addressing on the stream
 * id, with the last stream hit cached because rows of one stream come in runs. */
typedef struct stream_last {
    uint32_t stream;
    bool used;
    uint64_t submit_ns;
    uint64_t done_ns;
} stream_last;

typedef struct gar_trace_order {
    stream_last *slot;
    size_t slots; /* a power of two */
    size_t used;
    stream_last *recent;
    bool any_row;
    uint64_t last_start_ns;
} order_rules;

static void rules_init(order_rules *r)
{
    memset(r, 0, sizeof *r);
}

static void rules_free(order_rules *r)
{
    gar_free(r->slot);
    rules_init(r);
}

static stream_last *rules_probe(stream_last *slot, size_t slots, uint32_t stream)
{
    size_t i = (size_t)(stream * UINT32_C(2654435761)) & (slots - 1);
    while (slot[i].used && slot[i].stream != stream)
        i = (i + 1) & (slots - 1);
    return &slot[i];
}

/* The entry of `stream`, made on first sight.  NULL when memory runs out. */
static stream_last *rules_stream(order_rules *r, uint32_t stream)
{
    if (r->recent != NULL && r->recent->stream == stream)
        return r->recent;
    if (2 * (r->used + 1) > r->slots) {
        size_t slots = r->slots == 0 ? 16 : r->slots * 2;
        stream_last *grown = gar_calloc(slots, sizeof *grown);
        if (grown == NULL)
            return NULL;
        for (size_t i = 0; i < r->slots; i++)
            if (r->slot[i].used)
                *rules_probe(grown, slots, r->slot[i].stream) = r->slot[i];
        gar_free(r->slot);
        r->slot = grown;
        r->slots = slots;
    }
    stream_last *e = rules_probe(r->slot, r->slots, stream);
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

static int refuse(gar_error *err, const char *name, uint64_t line, unsigned column,
                  const char *fault)
{
    char line_text[24], column_text[16];
    snprintf(line_text, sizeof line_text, "%" PRIu64, line);
    snprintf(column_text, sizeof column_text, "%u", column);
    return gar_error_set(err, GAR_E_INVALID_TRACE, 4, name, line_text, column_text, fault);
}

/* 1-based position of a column in a header holding `columns`. */
static unsigned column_position(unsigned columns, int col)
{
    if (col == COL_STREAM)
        return (columns & GAR_TRACE_HAS_STEP_ROWS) ? 6 : 5;
    return (unsigned)col + 1;
}

/* Checks one row against the rules and records it.  `line` is where it came
 * from (a file line, or a row number). */
static int rules_admit(order_rules *r, const gar_trace_row *row, unsigned columns,
                       const char *name, uint64_t line, gar_error *err)
{
    char fault[160];
    const uint64_t times[3] = { row->submit_ns, row->start_ns, row->done_ns };
    for (int i = 0; i < 3; i++) {
        if (times[i] > GAR_TRACE_TIME_MAX) {
            snprintf(fault, sizeof fault, "%s %" PRIu64 " is above the limit %" PRIu64,
                     column_name[COL_SUBMIT + i], times[i], GAR_TRACE_TIME_MAX);
            return refuse(err, name, line, column_position(columns, COL_SUBMIT + i), fault);
        }
    }
    if (row->start_ns < row->submit_ns) {
        snprintf(fault, sizeof fault, "start_ns %" PRIu64 " is before submit_ns %" PRIu64,
                 row->start_ns, row->submit_ns);
        return refuse(err, name, line, column_position(columns, COL_START), fault);
    }
    if (row->done_ns < row->submit_ns) {
        snprintf(fault, sizeof fault, "done_ns %" PRIu64 " is before submit_ns %" PRIu64,
                 row->done_ns, row->submit_ns);
        return refuse(err, name, line, column_position(columns, COL_DONE), fault);
    }
    if (r->any_row && row->start_ns < r->last_start_ns) {
        snprintf(fault, sizeof fault,
                 "start_ns %" PRIu64 " is before the previous row's start_ns %" PRIu64
                 " (rows must be in the order the host waited)",
                 row->start_ns, r->last_start_ns);
        return refuse(err, name, line, column_position(columns, COL_START), fault);
    }
    stream_last *s = rules_stream(r, row->stream);
    if (s == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace stream table", "out of memory");
    if (row->submit_ns < s->submit_ns) {
        snprintf(fault, sizeof fault,
                 "submit_ns %" PRIu64 " is before stream %" PRIu32 "'s previous submit_ns %" PRIu64,
                 row->submit_ns, row->stream, s->submit_ns);
        return refuse(err, name, line, column_position(columns, COL_SUBMIT), fault);
    }
    if (row->done_ns < s->done_ns) {
        snprintf(fault, sizeof fault,
                 "done_ns %" PRIu64 " is before stream %" PRIu32 "'s previous done_ns %" PRIu64,
                 row->done_ns, row->stream, s->done_ns);
        return refuse(err, name, line, column_position(columns, COL_DONE), fault);
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
        return refuse(err, name, 1, 1, "no rows (an empty trace)");
    order_rules rules;
    rules_init(&rules);
    int rc = 0;
    for (size_t i = 0; i < trace->count && rc == 0; i++) {
        const gar_trace_row *row = &trace->row[i];
        if (!(trace->columns & GAR_TRACE_HAS_STEP_ROWS) && row->step_rows != 0)
            rc = refuse(err, name, i + 1, 5, "rows is set but the trace has no rows column");
        else if (!(trace->columns & GAR_TRACE_HAS_STREAM) && row->stream != 0)
            rc = refuse(err, name, i + 1, column_position(trace->columns, COL_STREAM),
                        "stream is set but the trace has no stream column");
        else
            rc = rules_admit(&rules, row, trace->columns, name, i + 1, err);
    }
    rules_free(&rules);
    return rc;
}

/* ---- the reader ---- */

typedef enum reader_state { WANT_MAGIC, WANT_HEADER, WANT_ROWS } reader_state;

typedef struct reader {
    const char *name;
    gar_error *err;
    uint64_t line;       /* number of the line being read, from 1 */
    reader_state state;
    int field_col[COL_COUNT]; /* the column of each field position */
    unsigned fields;     /* fields per row, from the header */
    order_rules rules;
    gar_trace trace;
    uint64_t rows_handed; /* a streamed read: rows handed out in earlier blocks */
} reader;

static void reader_init(reader *rd, const char *name, gar_error *err)
{
    memset(rd, 0, sizeof *rd);
    rd->name = name != NULL ? name : "trace";
    rd->err = err;
    rules_init(&rd->rules);
    gar_trace_init(&rd->trace);
}

/* A field shown in a fault: cut, so one long field cannot fill the message. */
/* The field's first 32 bytes as a message shows them (escaped: a NUL or a
 * stray byte is seen, not cut at or echoed raw), "..." after a longer one.
 * `size` of SHOWN_BYTES holds any. */
#define SHOWN_BYTES (32 * 4 + 4)
static void show_field(char *out, size_t size, const char *p, size_t n)
{
    size_t len = gar_error_show_bytes(p, n > 32 ? 32 : n, out, size);
    if (n > 32 && len + 4 <= size)
        memcpy(out + len, "...", 4);
}

static int read_magic(reader *rd, const char *p, size_t n)
{
    static const char prefix[] = "# gar-trace ";
    size_t magic_len = sizeof GAR_TRACE_MAGIC - 1;
    if (n == magic_len && memcmp(p, GAR_TRACE_MAGIC, magic_len) == 0) {
        rd->state = WANT_HEADER;
        return 0;
    }
    char fault[256];
    if (n > sizeof prefix - 1 && memcmp(p, prefix, sizeof prefix - 1) == 0) {
        char version[SHOWN_BYTES];
        show_field(version, sizeof version, p + sizeof prefix - 1, n - (sizeof prefix - 1));
        snprintf(fault, sizeof fault, "unsupported version '%s' (this reader reads v1)", version);
    } else {
        snprintf(fault, sizeof fault,
                 "the first line must be '%s' (a profiler's trace is converted by 'gar import')",
                 GAR_TRACE_MAGIC);
    }
    return refuse(rd->err, rd->name, rd->line, 1, fault);
}

static int column_named(const char *p, size_t n)
{
    for (int c = 0; c < COL_COUNT; c++)
        if (strlen(column_name[c]) == n && memcmp(column_name[c], p, n) == 0)
            return c;
    return -1;
}

/* The header names the four required columns in order, then optionally rows,
 * then optionally stream.  One canonical order keeps every file comparable
 * line by line and the row parser free of lookups. */
static int read_header(reader *rd, const char *p, size_t n)
{
    const char *end = p + n;
    unsigned position = 0;
    int next_optional = COL_ROWS;
    char fault[320], shown[SHOWN_BYTES];
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *field_end = comma != NULL ? comma : end;
        size_t len = (size_t)(field_end - p);
        int col = column_named(p, len);
        show_field(shown, sizeof shown, p, len);
        if (position >= COL_COUNT) {
            snprintf(fault, sizeof fault, "too many columns in the header (at most %d)",
                     COL_COUNT);
            return refuse(rd->err, rd->name, rd->line, position + 1, fault);
        }
        if (col < 0) {
            snprintf(fault, sizeof fault, "unknown column '%s' (columns: %s)", shown,
                     "point,submit_ns,start_ns,done_ns[,rows][,stream]");
            return refuse(rd->err, rd->name, rd->line, position + 1, fault);
        }
        if (position < 4 && col != (int)position) {
            snprintf(fault, sizeof fault, "expected column '%s', found '%s' (columns: %s)",
                     column_name[position], shown,
                     "point,submit_ns,start_ns,done_ns[,rows][,stream]");
            return refuse(rd->err, rd->name, rd->line, position + 1, fault);
        }
        if (position >= 4) {
            if (col < next_optional) {
                snprintf(fault, sizeof fault,
                         "column '%s' is out of place (optional columns: rows, then stream)",
                         shown);
                return refuse(rd->err, rd->name, rd->line, position + 1, fault);
            }
            rd->trace.columns |= col == COL_ROWS ? GAR_TRACE_HAS_STEP_ROWS : GAR_TRACE_HAS_STREAM;
            next_optional = col + 1;
        }
        rd->field_col[position++] = col;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    if (position < 4) {
        snprintf(fault, sizeof fault, "missing column '%s'", column_name[position]);
        return refuse(rd->err, rd->name, rd->line, position + 1, fault);
    }
    rd->fields = position;
    rd->state = WANT_ROWS;
    return 0;
}

/* Parses one unsigned decimal field of `n` bytes, at most `max`. */
static int parse_number(reader *rd, const char *p, size_t n, uint64_t max, unsigned position,
                        uint64_t *out)
{
    int col = rd->field_col[position - 1];
    char fault[320], shown[SHOWN_BYTES];
    if (n == 0) {
        snprintf(fault, sizeof fault, "empty field for %s", column_name[col]);
        return refuse(rd->err, rd->name, rd->line, position, fault);
    }
    /* value * 10 + digit <= max, tested without a division per digit. */
    const uint64_t cutoff = max / 10;
    const unsigned cutlim = (unsigned)(max % 10);
    uint64_t value = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned digit = (unsigned)(unsigned char)p[i] - '0';
        if (digit > 9) {
            show_field(shown, sizeof shown, p, n);
            if (p[0] == '-')
                snprintf(fault, sizeof fault, "%s '%s' is negative", column_name[col], shown);
            else {
                char bad[8];
                gar_error_show_bytes(p + i, 1, bad, sizeof bad);
                snprintf(fault, sizeof fault,
                         "%s '%s' is not a decimal number (its byte %zu is '%s')",
                         column_name[col], shown, i, bad);
            }
            return refuse(rd->err, rd->name, rd->line, position, fault);
        }
        if (value > cutoff || (value == cutoff && digit > cutlim)) {
            show_field(shown, sizeof shown, p, n);
            snprintf(fault, sizeof fault, "%s '%s' is out of range (at most %" PRIu64 ")",
                     column_name[col], shown, max);
            return refuse(rd->err, rd->name, rd->line, position, fault);
        }
        value = value * 10 + digit;
    }
    *out = value;
    return 0;
}

/* Reads a row field by field and says what is wrong with it, if anything. */
static int read_row_checked(reader *rd, const char *p, size_t n)
{
    const char *end = p + n;
    gar_trace_row row = { 0, 0, 0, 0, 0, 0 };
    uint64_t value[COL_COUNT] = { 0 };
    char fault[160];
    for (unsigned position = 1;; position++) {
        int col = rd->field_col[position - 1];
        uint64_t max = col >= COL_ROWS ? UINT32_MAX : UINT64_MAX;
        /* The fast path: digits up to a comma or the end, in one pass, with
         * no overflow test while the count of digits cannot overflow (19 for
         * u64, 9 for u32).  Any other field goes to parse_number, which
         * takes longer numbers exactly and says what is wrong with the rest. */
        const size_t safe_digits = col >= COL_ROWS ? 9 : 19;
        const char *q = p;
        uint64_t v = 0;
        for (; q < end && (unsigned)(*q - '0') <= 9; q++)
            v = v * 10 + (unsigned)(*q - '0');
        if (q == p || (size_t)(q - p) > safe_digits || (q < end && *q != ',')) {
            const char *comma = memchr(p, ',', (size_t)(end - p));
            q = comma != NULL ? comma : end;
            int rc = parse_number(rd, p, (size_t)(q - p), max, position, &v);
            if (rc < 0)
                return rc;
        }
        value[col] = v;
        if (q == end) {
            if (position < rd->fields) {
                snprintf(fault, sizeof fault, "missing field for %s (the header names %u)",
                         column_name[rd->field_col[position]], rd->fields);
                return refuse(rd->err, rd->name, rd->line, position + 1, fault);
            }
            break;
        }
        if (position == rd->fields) {
            snprintf(fault, sizeof fault, "too many fields (the header names %u)", rd->fields);
            return refuse(rd->err, rd->name, rd->line, position + 1, fault);
        }
        p = q + 1;
    }
    row.point = value[COL_POINT];
    row.submit_ns = value[COL_SUBMIT];
    row.start_ns = value[COL_START];
    row.done_ns = value[COL_DONE];
    row.step_rows = (uint32_t)value[COL_ROWS];
    row.stream = (uint32_t)value[COL_STREAM];
    int rc = rules_admit(&rd->rules, &row, rd->trace.columns, rd->name, rd->line, rd->err);
    if (rc < 0)
        return rc;
    return gar_trace_append(&rd->trace, &row, rd->err);
}

/* 10^k for a chunk of k digits. */
static const uint64_t power_of_ten[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                          100000000 };

/* The eight bytes from q, those from `end` on read as zeros (a non-digit):
 * the line's last eight bytes, shifted, where fewer than eight are left.
 * The line holds at least eight bytes and q < end. */
static inline uint64_t line_chunk(const char *q, const char *end)
{
    uint64_t chunk;
    size_t left = (size_t)(end - q);
    if (left >= 8) {
        memcpy(&chunk, q, 8);
        return chunk;
    }
    memcpy(&chunk, end - 8, 8);
    return chunk >> (8 * (8 - left));
}

/* The digits from q, eight at a time: returns where they end, their value in
 * *out.  Stops past 19 digits (*out is then no number: the caller refuses
 * such a field here). */
static inline const char *scan_digits(const char *q, const char *end, uint64_t *out)
{
    const char *start = q;
    uint64_t v = 0;
    while (q < end) {
        uint64_t chunk = line_chunk(q, end);
        unsigned k = gar_decimal_chunk_digits(chunk);
        if (k == 0)
            break;
        v = v * power_of_ten[k] + gar_decimal_chunk_value(chunk, k);
        q += k;
        if (k < 8 || q - start > 19)
            break;
    }
    *out = v;
    return q;
}

/* A field of 1 to max_digits digits at q, then a comma: returns the byte
 * after the comma; NULL for anything else. */
static inline const char *field_then_comma(const char *q, const char *end, size_t max_digits,
                                           uint64_t *out)
{
    const char *digits_end = scan_digits(q, end, out);
    size_t digits = (size_t)(digits_end - q);
    if (digits == 0 || digits > max_digits || digits_end == end || *digits_end != ',')
        return NULL;
    return digits_end + 1;
}

/* The same for the row's last field, which ends the line. */
static inline bool last_field(const char *q, const char *end, size_t max_digits, uint64_t *out)
{
    const char *digits_end = scan_digits(q, end, out);
    size_t digits = (size_t)(digits_end - q);
    return digits > 0 && digits <= max_digits && digits_end == end;
}

/* A row of plain numbers (each of 1 to 19 digits, 9 for rows and stream,
 * one per header column, commas between) read without a byte loop; any
 * other row, and every row of a line under eight bytes, goes to
 * read_row_checked, which reads it again and finds what is wrong.  The
 * fields go straight into scalars in the canonical column order: an array
 * indexed by column would be stored a word at a time and read back whole,
 * which stalls. */
static int read_row(reader *rd, const char *p, size_t n)
{
    if (!GAR_DECIMAL_CHUNKS || n < 8)
        return read_row_checked(rd, p, n);
    const char *q = p, *end = p + n;
    const bool has_rows = rd->trace.columns & GAR_TRACE_HAS_STEP_ROWS;
    const bool has_stream = rd->trace.columns & GAR_TRACE_HAS_STREAM;
    uint64_t point, submit, start, done, rows = 0, stream = 0;
    bool plain = (q = field_then_comma(q, end, 19, &point)) != NULL &&
                 (q = field_then_comma(q, end, 19, &submit)) != NULL &&
                 (q = field_then_comma(q, end, 19, &start)) != NULL;
    if (plain && !has_rows && !has_stream)
        plain = last_field(q, end, 19, &done);
    else if (plain && (q = field_then_comma(q, end, 19, &done)) != NULL)
        plain = has_rows && has_stream
                    ? (q = field_then_comma(q, end, 9, &rows)) != NULL &&
                          last_field(q, end, 9, &stream)
                    : last_field(q, end, 9, has_rows ? &rows : &stream);
    else
        plain = false;
    if (!plain)
        return read_row_checked(rd, p, n);
    gar_trace_row row = {
        .point = point,
        .submit_ns = submit,
        .start_ns = start,
        .done_ns = done,
        .step_rows = (uint32_t)rows,
        .stream = (uint32_t)stream,
    };
    int rc = rules_admit(&rd->rules, &row, rd->trace.columns, rd->name, rd->line, rd->err);
    if (rc < 0)
        return rc;
    return gar_trace_append(&rd->trace, &row, rd->err);
}

/* One line, without its '\n'.  A '\r' before it is dropped, so CRLF files read
 * the same as LF ones. */
static int reader_line(reader *rd, const char *p, size_t n)
{
    rd->line++;
    if (n > 0 && p[n - 1] == '\r')
        n--;
    if (rd->state == WANT_MAGIC)
        return read_magic(rd, p, n);
    if (n > 0 && p[0] == '#')
        return 0;
    if (n == 0)
        return refuse(rd->err, rd->name, rd->line, 1,
                      "blank line (only rows and '#' comments may follow the magic line)");
    if (rd->state == WANT_HEADER)
        return read_header(rd, p, n);
    return read_row(rd, p, n);
}

/* Ends a read: `tail` bytes were left after the last newline. */
static int reader_finish(reader *rd, size_t tail)
{
    if (tail > 0 && rd->state == WANT_MAGIC) /* not a line at all: not a trace, or not text */
        return refuse(rd->err, rd->name, 1, 1,
                      "no newline in the file: a trace starts with the line '" GAR_TRACE_MAGIC "'");
    if (tail > 0)
        return refuse(rd->err, rd->name, rd->line + 1, 1,
                      "the last line has no newline (was the file cut short?)");
    if (rd->state == WANT_MAGIC)
        return refuse(rd->err, rd->name, 1, 1, "empty file (expected '" GAR_TRACE_MAGIC "')");
    if (rd->state == WANT_HEADER)
        return refuse(rd->err, rd->name, rd->line + 1, 1, "no header row");
    if (rd->trace.count == 0 && rd->rows_handed == 0)
        return refuse(rd->err, rd->name, rd->line + 1, 1, "no rows (an empty trace)");
    return 0;
}

/* Hands the trace to the caller on success; frees everything otherwise. */
static int reader_end(reader *rd, int rc, gar_trace *out)
{
    rules_free(&rd->rules);
    if (rc < 0) {
        gar_trace_free(&rd->trace);
        gar_trace_init(out);
        return rc;
    }
    *out = rd->trace;
    return 0;
}

static int refuse_long_line(reader *rd)
{
    char fault[96];
    snprintf(fault, sizeof fault, "line longer than %d bytes", GAR_TRACE_LINE_MAX);
    return refuse(rd->err, rd->name, rd->line + 1, 1, fault);
}

/* ---- plain rows, straight out of the text ---- */

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
            v = v * power_of_ten[k] + gar_decimal_chunk_value(chunk, k);
            p += k;
        }
        if (k == 8) {
            memcpy(&chunk, p, 8);
            k = gar_decimal_chunk_digits(chunk);
            if (k > 3)
                return false;
            if (k > 0) {
                v = v * power_of_ten[k] + gar_decimal_chunk_value(chunk, k);
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

/* Reads plain rows (reader_line's fast case: digits and commas only, one
 * field per header column, '\n' right after the last) from `p` on while
 * FAST_SPAN + 8 bytes are left before `end` and the block holds fewer than
 * `stop` rows; returns where it stopped, at the first line it did not take.
 * Such a row is checked against the ordering rules in one test, and only
 * a row that fails it goes through rules_admit, which says which rule.
 * The line reader takes every other line, and reads it from scratch: every
 * refusal, its line and column, stays its own.  *rc is 0, or a refusal. */
static const char *fast_rows(reader *rd, const char *base, const char *p, const char *end,
                             size_t stop, int *rc)
{
    if (!GAR_DECIMAL_CHUNKS || rd->state != WANT_ROWS)
        return p;
    const unsigned fields = rd->fields;
    const bool has_rows = rd->trace.columns & GAR_TRACE_HAS_STEP_ROWS;
    const bool has_stream = rd->trace.columns & GAR_TRACE_HAS_STREAM;
    order_rules *r = &rd->rules;
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
        stream_last *s = r->recent;
        /* Every rule of rules_admit at once: the times at most 2^63 - 1,
         * submit first, starts in order, the stream's submits and dones in
         * order (the stream the last row was on: a run of one stream's rows). */
        if (((submit | start | done) >> 63) == 0 && start >= submit && done >= submit &&
            start >= r->last_start_ns && s != NULL && s->stream == (uint32_t)stream &&
            submit >= s->submit_ns && done >= s->done_ns) {
            s->submit_ns = submit;
            s->done_ns = done;
            r->last_start_ns = start;
            r->any_row = true;
        } else if ((*rc = rules_admit(r, row, t->columns, rd->name, rd->line, rd->err)) < 0) {
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
static const char *read_lines(reader *rd, const char *p, const char *end, size_t stop, int *rc)
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
        *rc = nl - p > GAR_TRACE_LINE_MAX ? refuse_long_line(rd) : reader_line(rd, p, (size_t)(nl - p));
        if (*rc < 0)
            return p;
        p = nl + 1;
    }
}

#define READ_BLOCK (8 * GAR_TRACE_LINE_MAX) /* 64 KiB: under malloc's mmap threshold */

/* Whole lines out of a block buffer of READ_BLOCK bytes; an unfinished line
 * waits at its front for the next bytes. */
typedef struct line_buffer {
    reader *rd;
    char *buf;
    size_t held; /* bytes of an unfinished line at the front of buf */
} line_buffer;

/* Reads the whole lines of a window of `len` bytes at `text` (a block's
 * worth from the first line not yet read, or the text's last bytes), and
 * says in *unfinished how many bytes of a line without its newline are left
 * at its end.  Returns 0, or the refusal: a line's fault, or an unfinished
 * line already longer than a line may be.  Both stream readers, copying and
 * mapped, read their windows so. */
static int read_window(reader *rd, const char *text, size_t len, size_t *unfinished)
{
    int rc;
    const char *p = read_lines(rd, text, text + len, SIZE_MAX, &rc);
    if (rc < 0)
        return rc;
    *unfinished = (size_t)(text + len - p);
    return *unfinished > GAR_TRACE_LINE_MAX ? refuse_long_line(rd) : 0;
}

/* Reads the lines of buf's first held + `added` bytes and keeps the rest. */
static int split_lines(line_buffer *lb, size_t added)
{
    size_t len = lb->held + added;
    int rc = read_window(lb->rd, lb->buf, len, &lb->held);
    if (rc < 0)
        return rc;
    memmove(lb->buf, lb->buf + len - lb->held, lb->held);
    return 0;
}

/* The consumer of inflated text (unpack.h): copied in, read line by line. */
static int feed_lines(void *context, const unsigned char *bytes, size_t len)
{
    line_buffer *lb = context;
    while (len > 0) {
        size_t n = READ_BLOCK - lb->held; /* at least 7 lines' room: held <= a line */
        if (n > len)
            n = len;
        memcpy(lb->buf + lb->held, bytes, n);
        bytes += n;
        len -= n;
        int rc = split_lines(lb, n);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static bool gzip_magic(const void *data, size_t size)
{
    const unsigned char *b = data;
    return size >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

int gar_trace_read_memory(gar_trace *out, const void *data, size_t size, const char *name,
                          gar_error *err)
{
    if (out == NULL || (data == NULL && size > 0))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_read_memory",
                             out == NULL ? "out" : "data", "is NULL");
    reader rd;
    reader_init(&rd, name, err);
    int rc = 0;
    if (gzip_magic(data, size)) {
        line_buffer lb = { .rd = &rd, .buf = gar_malloc(READ_BLOCK) };
        if (lb.buf == NULL)
            return reader_end(&rd, gar_error_set(err, GAR_E_CAPACITY, 2, "trace read buffer",
                                                 "out of memory"), out);
        gar_unpack u;
        gar_unpack_init(&u, feed_lines, &lb, rd.name, err);
        rc = gar_unpack_end(&u, gar_unpack_bytes(&u, data, size));
        if (rc == 0)
            rc = reader_finish(&rd, lb.held);
        gar_free(lb.buf);
        return reader_end(&rd, rc, out);
    }
    const char *end = (const char *)data + size;
    const char *p = read_lines(&rd, data, end, SIZE_MAX, &rc);
    if (rc == 0)
        rc = (size_t)(end - p) > GAR_TRACE_LINE_MAX ? refuse_long_line(&rd)
                                                    : reader_finish(&rd, (size_t)(end - p));
    return reader_end(&rd, rc, out);
}

static int read_failed(gar_error *err, const char *name)
{
    return gar_error_set(err, GAR_E_IO, 3, name, "read", strerror(errno != 0 ? errno : EIO));
}

/* The rest of a gzip stream whose first `got` bytes are in `first`: inflated
 * into a line buffer of its own. */
static int read_gzip_stream(reader *rd, FILE *in, unsigned char *first, size_t got)
{
    line_buffer lb = { .rd = rd, .buf = gar_malloc(READ_BLOCK) };
    if (lb.buf == NULL)
        return gar_error_set(rd->err, GAR_E_CAPACITY, 2, "trace read buffer", "out of memory");
    gar_unpack u;
    gar_unpack_init(&u, feed_lines, &lb, rd->name, rd->err);
    int rc = 0;
    while (rc == 0 && got > 0) {
        rc = gar_unpack_bytes(&u, first, got);
        got = rc == 0 ? fread(first, 1, READ_BLOCK, in) : 0;
    }
    if (rc == 0 && ferror(in))
        rc = read_failed(rd->err, rd->name);
    rc = gar_unpack_end(&u, rc);
    if (rc == 0)
        rc = reader_finish(rd, lb.held);
    gar_free(lb.buf);
    return rc;
}

int gar_trace_read_stream(gar_trace *out, FILE *in, const char *name, gar_error *err)
{
    if (out == NULL || in == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_read_stream",
                             out == NULL ? "out" : "in", "is NULL");
    reader rd;
    reader_init(&rd, name, err);
    line_buffer lb = { .rd = &rd, .buf = gar_malloc(READ_BLOCK) };
    if (lb.buf == NULL)
        return reader_end(&rd, gar_error_set(err, GAR_E_CAPACITY, 2, "trace read buffer",
                                             "out of memory"), out);
    errno = 0;
    size_t got = fread(lb.buf, 1, READ_BLOCK, in);
    int rc;
    if (gzip_magic(lb.buf, got)) {
        rc = read_gzip_stream(&rd, in, (unsigned char *)lb.buf, got);
    } else {
        /* Plain text is read straight into the line buffer: no copy. */
        for (;;) {
            if (got == 0) {
                rc = ferror(in) ? read_failed(err, rd.name) : reader_finish(&rd, lb.held);
                break;
            }
            rc = split_lines(&lb, got);
            if (rc < 0)
                break;
            got = fread(lb.buf + lb.held, 1, READ_BLOCK - lb.held, in);
        }
    }
    gar_free(lb.buf);
    return reader_end(&rd, rc, out);
}

int gar_trace_read_file(gar_trace *out, const char *path, gar_error *err)
{
    if (out == NULL || path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_read_file",
                             out == NULL ? "out" : "path", "is NULL");
    gar_trace_init(out);
    if (strcmp(path, "-") == 0)
        return gar_trace_read_stream(out, stdin, "standard input", err);
    FILE *in = fopen(path, "rb");
    if (in == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    int rc = gar_trace_read_stream(out, in, path, err);
    fclose(in);
    return rc;
}

/* ---- the streamed reader ---- */

/* Rows a block is handed out at; a gzip block may run over by what 4 KiB
 * of compressed text inflate to. */
#define STREAM_BLOCK_ROWS 4096
#define STREAM_GZIP_STEP 4096

struct gar_trace_stream {
    reader rd;
    line_buffer lb;
    FILE *in;
    bool own_file;
    bool decided, gzip, ended;
    bool unpack_open; /* gzip: gar_unpack_end still to call */
    gar_unpack u;
    unsigned char *packed; /* gzip: compressed bytes read, not yet inflated */
    size_t packed_len, packed_at;
    char *name;
    /* A plain regular file is read out of a mapping (mapped_text.h), from
     * `map_at`, the first byte not yet read; the rest through `lb`. */
    bool mapped, map_drained; /* drained: the last window has been read */
    gar_mapped_text map;
    size_t map_at;
};

int gar_trace_stream_open(gar_trace_stream **out, const char *path, gar_error *err)
{
    if (out == NULL || path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_stream_open",
                             out == NULL ? "out" : "path", "is NULL");
    *out = NULL;
    bool from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "standard input" : path;
    gar_trace_stream *s = gar_calloc(1, sizeof *s);
    if (s != NULL) {
        s->name = gar_malloc(strlen(name) + 1);
        s->lb.buf = gar_malloc(READ_BLOCK);
    }
    if (s == NULL || s->name == NULL || s->lb.buf == NULL) {
        if (s != NULL) {
            gar_free(s->name);
            gar_free(s->lb.buf);
        }
        gar_free(s);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace read buffer", "out of memory");
    }
    memcpy(s->name, name, strlen(name) + 1);
    if (from_stdin) {
        s->in = stdin;
    } else if ((s->in = fopen(path, "rb")) == NULL) {
        int rc = gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
        gar_free(s->name);
        gar_free(s->lb.buf);
        gar_free(s);
        return rc;
    } else {
        s->own_file = true;
        /* Mapped unless gzip (inflated through the buffer, as from a pipe). */
        s->mapped = gar_mapped_text_open(&s->map, fileno(s->in));
        size_t head = s->map.size < 2 ? s->map.size : 2;
        if (s->mapped && gzip_magic(gar_mapped_text_bytes(&s->map, 0, head), head)) {
            gar_mapped_text_close(&s->map);
            s->mapped = false;
        }
    }
    reader_init(&s->rd, s->name, err);
    s->lb.rd = &s->rd;
    *out = s;
    return 0;
}

unsigned gar_trace_stream_columns(const gar_trace_stream *s)
{
    return s->rd.trace.columns;
}

uint64_t gar_trace_stream_rows_before(const gar_trace_stream *s)
{
    return s->rd.rows_handed;
}

/* The end of the bytes: the last checks of the text. */
static int stream_at_end(gar_trace_stream *s)
{
    s->ended = true;
    if (ferror(s->in))
        return read_failed(s->rd.err, s->rd.name);
    int rc = 0;
    if (s->unpack_open) {
        s->unpack_open = false;
        rc = gar_unpack_end(&s->u, 0);
    }
    return rc < 0 ? rc : reader_finish(&s->rd, s->lb.held);
}

/* stream_fill for a mapped file: the windows the buffer would hold — each
 * READ_BLOCK bytes from the first line not yet read, or to the end — read
 * where they lie, so that every line is read by the same path (plain row
 * or line reader), every refusal comes at the same place, and the end of
 * the text is seen at the same call. */
static int map_fill(gar_trace_stream *s)
{
    reader *rd = &s->rd;
    while (rd->trace.count < STREAM_BLOCK_ROWS) {
        size_t left = s->map.size - s->map_at;
        if (s->map_drained) { /* as a read that finds nothing more */
            s->ended = true;
            return reader_finish(rd, left);
        }
        size_t window = left < READ_BLOCK ? left : READ_BLOCK;
        const char *text = gar_mapped_text_bytes(&s->map, s->map_at, window);
        size_t unfinished;
        int rc = text != NULL ? read_window(rd, text, window, &unfinished) : 0;
        /* Cut short as it was read, its bytes past the end read as zeros:
         * whatever the window gave, the file is refused. */
        if (gar_mapped_text_cut(&s->map))
            return gar_error_set(rd->err, GAR_E_IO, 3, rd->name, "read",
                                 "the file was cut short while it was read (another"
                                 " process truncated it)");
        if (text == NULL)
            return read_failed(rd->err, rd->name);
        if (rc < 0)
            return rc;
        s->map_at += window - unfinished;
        s->map_drained = window == left;
    }
    return 0;
}

/* Reads on until the block holds STREAM_BLOCK_ROWS rows or the text ends. */
static int stream_fill(gar_trace_stream *s)
{
    reader *rd = &s->rd;
    if (s->mapped)
        return map_fill(s);
    if (!s->decided) {
        errno = 0;
        size_t got = fread(s->lb.buf, 1, READ_BLOCK, s->in);
        s->decided = true;
        if (gzip_magic(s->lb.buf, got)) {
            s->gzip = true;
            s->packed = gar_malloc(READ_BLOCK);
            if (s->packed == NULL)
                return gar_error_set(rd->err, GAR_E_CAPACITY, 2, "trace read buffer",
                                     "out of memory");
            memcpy(s->packed, s->lb.buf, got);
            s->packed_len = got;
            gar_unpack_init(&s->u, feed_lines, &s->lb, rd->name, rd->err);
            s->unpack_open = true;
        } else if (got == 0) {
            return stream_at_end(s);
        } else {
            int rc = split_lines(&s->lb, got);
            if (rc < 0)
                return rc;
        }
    }
    while (rd->trace.count < STREAM_BLOCK_ROWS) {
        if (s->gzip) {
            if (s->packed_at == s->packed_len) {
                s->packed_len = fread(s->packed, 1, READ_BLOCK, s->in);
                s->packed_at = 0;
                if (s->packed_len == 0)
                    return stream_at_end(s);
            }
            /* A few KiB at a time: what they inflate to stays a block's worth. */
            size_t step = s->packed_len - s->packed_at;
            if (step > STREAM_GZIP_STEP)
                step = STREAM_GZIP_STEP;
            int rc = gar_unpack_bytes(&s->u, s->packed + s->packed_at, step);
            if (rc < 0)
                return rc;
            s->packed_at += step;
        } else {
            size_t got = fread(s->lb.buf + s->lb.held, 1, READ_BLOCK - s->lb.held, s->in);
            if (got == 0)
                return stream_at_end(s);
            int rc = split_lines(&s->lb, got);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int gar_trace_stream_next(gar_trace_stream *s, const gar_trace_row **rows, size_t *count)
{
    reader *rd = &s->rd;
    rd->rows_handed += rd->trace.count;
    rd->trace.count = 0;
    if (s->ended)
        return 0;
    int rc = stream_fill(s);
    if (rc < 0) {
        s->ended = true;
        rd->trace.count = 0;
        return rc;
    }
    *rows = rd->trace.row;
    *count = rd->trace.count;
    return rd->trace.count > 0 ? 1 : 0;
}

int gar_trace_stream_source(void *context, const gar_trace_row **rows, size_t *count,
                            gar_error *err)
{
    (void)err;
    return gar_trace_stream_next(context, rows, count);
}

int gar_trace_cursor_source(void *context, const gar_trace_row **rows, size_t *count,
                            gar_error *err)
{
    (void)err;
    gar_trace_cursor *c = context;
    if (c->next >= c->trace->count)
        return 0;
    size_t left = c->trace->count - c->next;
    *rows = c->trace->row + c->next;
    *count = left < STREAM_BLOCK_ROWS ? left : STREAM_BLOCK_ROWS;
    c->next += *count;
    return 1;
}

void gar_trace_stream_close(gar_trace_stream *s)
{
    if (s == NULL)
        return;
    if (s->unpack_open)
        gar_unpack_end(&s->u, -1);
    if (s->own_file)
        fclose(s->in);
    if (s->mapped)
        gar_mapped_text_close(&s->map);
    rules_free(&s->rd.rules);
    gar_trace_free(&s->rd.trace);
    gar_free(s->packed);
    gar_free(s->lb.buf);
    gar_free(s->name);
    gar_free(s);
}

/* ---- the writer ---- */

/* Appends `value` in decimal at `p`; returns the end. */
static char *put_u64(char *p, uint64_t value)
{
    char digits[20];
    int n = 0;
    do {
        digits[n++] = (char)('0' + value % 10);
        value /= 10;
    } while (value != 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

enum { WRITE_BLOCK = 1 << 16, ROW_TEXT_MAX = 6 * 21 };

static int write_failed(gar_error *err, const char *name)
{
    return gar_error_set(err, GAR_E_IO, 3, name, "write", strerror(errno != 0 ? errno : EIO));
}

/* Sends `n` bytes of text to the output: straight, or through deflate with
 * `flush` (Z_NO_FLUSH, or Z_FINISH to end the gzip member). */
static int put_bytes(gar_trace_writer *w, const char *bytes, size_t n, int flush)
{
    if (!w->gzip) {
        errno = 0;
        return n == 0 || fwrite(bytes, 1, n, w->out) == n ? 0 : write_failed(w->err, w->where);
    }
    w->z.next_in = (unsigned char *)bytes; /* zlib's API is not const */
    w->z.avail_in = (uInt)n;
    int zr;
    do {
        w->z.next_out = w->packed;
        w->z.avail_out = WRITE_BLOCK;
        zr = deflate(&w->z, flush);
        size_t made = WRITE_BLOCK - w->z.avail_out;
        errno = 0;
        if (made > 0 && fwrite(w->packed, 1, made, w->out) != made)
            return write_failed(w->err, w->where);
        if (zr == Z_STREAM_ERROR)
            return gar_error_set(w->err, GAR_E_IO, 3, w->where, "compress",
                                 w->z.msg != NULL ? w->z.msg : "deflate failed");
    } while (w->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
    return 0;
}

static int put_text(gar_trace_writer *w, const char *text)
{
    return put_bytes(w, text, strlen(text), Z_NO_FLUSH);
}

/* The magic, comment and header lines, through the output like the rows. */
static int put_head(gar_trace_writer *w, const char *comment)
{
    int rc = put_text(w, GAR_TRACE_MAGIC "\n");
    for (const char *p = comment; rc == 0 && p != NULL && *p != '\0';) {
        const char *nl = strchr(p, '\n');
        size_t n = nl != NULL ? (size_t)(nl - p) : strlen(p);
        rc = put_text(w, n > 0 ? "# " : "#");
        if (rc == 0)
            rc = put_bytes(w, p, n, Z_NO_FLUSH);
        if (rc == 0)
            rc = put_text(w, "\n");
        p += n;
        if (*p == '\n')
            p++;
    }
    if (rc == 0)
        rc = put_text(w, "point,submit_ns,start_ns,done_ns");
    if (rc == 0 && (w->columns & GAR_TRACE_HAS_STEP_ROWS))
        rc = put_text(w, ",rows");
    if (rc == 0 && (w->columns & GAR_TRACE_HAS_STREAM))
        rc = put_text(w, ",stream");
    if (rc == 0)
        rc = put_text(w, "\n");
    return rc;
}

static void writer_release(gar_trace_writer *w)
{
    if (w->rules != NULL)
        rules_free(w->rules);
    gar_free(w->rules);
    gar_free(w->block);
    gar_free(w->packed);
    if (w->z_ready)
        deflateEnd(&w->z);
    w->rules = NULL;
    w->block = NULL;
    w->packed = NULL;
    w->z_ready = false;
}

static int writer_start(gar_trace_writer *w, const char *comment, gar_error *err)
{
    if (w->columns & ~(unsigned)(GAR_TRACE_HAS_STEP_ROWS | GAR_TRACE_HAS_STREAM))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_writer", "columns",
                             "has unknown bits");
    w->rules = gar_malloc(sizeof *w->rules);
    if (w->rules != NULL)
        rules_init(w->rules);
    w->block = gar_malloc(WRITE_BLOCK);
    w->packed = w->gzip ? gar_malloc(WRITE_BLOCK) : NULL;
    if (w->rules == NULL || w->block == NULL || (w->gzip && w->packed == NULL))
        return gar_error_set(err, GAR_E_CAPACITY, 2, "trace write buffer", "out of memory");
    if (w->gzip) {
        w->z.zalloc = gar_unpack_zalloc;
        w->z.zfree = gar_unpack_zfree;
        /* 16 + window bits: a gzip member (header and CRC), as gzip writes.
         * The fastest level: on decimal rows it writes about three times
         * faster than the default level for a file about a quarter larger
         * (bench_trace), and an import of 10^8 waits is bound by writing. */
        if (deflateInit2(&w->z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK)
            return gar_error_set(err, GAR_E_CAPACITY, 2, "gzip compression", "out of memory");
        w->z_ready = true;
    }
    return put_head(w, comment);
}

bool gar_trace_path_is_gzip(const char *path)
{
    size_t n = path != NULL ? strlen(path) : 0;
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

int gar_trace_writer_stream(gar_trace_writer *w, FILE *out, const char *name, bool gzip,
                            unsigned columns, const char *comment, gar_error *err)
{
    memset(w, 0, sizeof *w);
    w->file.fd = -1;
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_writer_stream", "out",
                             "is NULL");
    w->out = out;
    w->name = name != NULL ? name : "trace";
    w->where = w->name;
    w->err = err;
    w->gzip = gzip;
    w->columns = columns;
    int rc = writer_start(w, comment, err);
    if (rc < 0)
        writer_release(w);
    return rc;
}

int gar_trace_writer_file(gar_trace_writer *w, const char *path, unsigned columns,
                          const char *comment, gar_error *err)
{
    memset(w, 0, sizeof *w);
    w->file.fd = -1;
    if (path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_writer_file", "path",
                             "is NULL");
    w->name = path;
    w->err = err;
    w->gzip = gar_trace_path_is_gzip(path);
    w->columns = columns;
    w->atomic = true;
    /* What killed writers of this path left: a trace's text or a gzip
     * member, named as its temporary file is, no longer locked. */
    static const char *const trace_starts[] = { GAR_TRACE_MAGIC "\n", "\x1f\x8b", NULL };
    gar_leftover_clean_beside(path, ".tmp.", trace_starts);
    int rc = gar_atomic_file_begin(&w->file, path, NULL, err);
    if (rc < 0)
        return rc;
    w->where = w->file.temp;
    w->out = fdopen(w->file.fd, "wb");
    if (w->out == NULL)
        rc = gar_error_set(err, GAR_E_IO, 3, w->file.temp, "open", strerror(errno));
    else
        rc = writer_start(w, comment, err);
    /* The head goes out now, so a writer killed later leaves a file that
     * says what it is (leftover.h). */
    if (rc == 0 && fflush(w->out) != 0)
        rc = write_failed(err, w->where);
    if (rc < 0)
        gar_trace_writer_end(w, rc);
    return rc;
}

int gar_trace_writer_row(gar_trace_writer *w, const gar_trace_row *row)
{
    uint64_t number = w->rows + 1;
    int rc;
    if (!(w->columns & GAR_TRACE_HAS_STEP_ROWS) && row->step_rows != 0)
        rc = refuse(w->err, w->name, number, 5, "rows is set but the trace has no rows column");
    else if (!(w->columns & GAR_TRACE_HAS_STREAM) && row->stream != 0)
        rc = refuse(w->err, w->name, number, column_position(w->columns, COL_STREAM),
                    "stream is set but the trace has no stream column");
    else
        rc = rules_admit(w->rules, row, w->columns, w->name, number, w->err);
    if (rc < 0)
        return rc;
    /* Rows are formatted by hand into a block: a million rows is a few dozen
     * writes instead of six million conversions through printf. */
    char *p = w->block + w->used;
    p = put_u64(p, row->point);
    *p++ = ',';
    p = put_u64(p, row->submit_ns);
    *p++ = ',';
    p = put_u64(p, row->start_ns);
    *p++ = ',';
    p = put_u64(p, row->done_ns);
    if (w->columns & GAR_TRACE_HAS_STEP_ROWS) {
        *p++ = ',';
        p = put_u64(p, row->step_rows);
    }
    if (w->columns & GAR_TRACE_HAS_STREAM) {
        *p++ = ',';
        p = put_u64(p, row->stream);
    }
    *p++ = '\n';
    w->used = (size_t)(p - w->block);
    w->rows = number;
    if (w->used > WRITE_BLOCK - ROW_TEXT_MAX) {
        rc = put_bytes(w, w->block, w->used, Z_NO_FLUSH);
        w->used = 0;
    }
    return rc;
}

int gar_trace_writer_finish(gar_trace_writer *w)
{
    if (w->rows == 0)
        return refuse(w->err, w->name, 1, 1, "no rows (an empty trace)");
    int rc = put_bytes(w, w->block, w->used, w->gzip ? Z_FINISH : Z_NO_FLUSH);
    w->used = 0;
    errno = 0;
    if (rc == 0 && fflush(w->out) != 0)
        rc = write_failed(w->err, w->where);
    if (rc == 0 && w->atomic) {
        rc = gar_atomic_file_sync(&w->file, w->err);
        errno = 0;
        int closed = fclose(w->out);
        w->out = NULL;
        w->file.fd = -1; /* fclose closed it */
        if (closed != 0 && rc == 0)
            rc = gar_error_set(w->err, GAR_E_IO, 3, w->file.temp, "close", strerror(errno));
        if (rc == 0)
            rc = gar_atomic_file_commit(&w->file, NULL, w->err);
    }
    return rc;
}

int gar_trace_writer_end(gar_trace_writer *w, int rc)
{
    writer_release(w);
    if (w->atomic) {
        if (w->out != NULL) {
            fclose(w->out);
            w->file.fd = -1;
        }
        w->out = NULL;
        w->atomic = false;
        return gar_atomic_file_end(&w->file, rc);
    }
    return rc;
}

/* Every row of `trace` through a writer begun on `w`. */
static int write_rows(gar_trace_writer *w, const gar_trace *trace)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < trace->count; i++)
        rc = gar_trace_writer_row(w, &trace->row[i]);
    if (rc == 0)
        rc = gar_trace_writer_finish(w);
    return gar_trace_writer_end(w, rc);
}

int gar_trace_write_stream(const gar_trace *trace, const char *comment, FILE *out,
                           const char *name, gar_error *err)
{
    if (trace == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_write_stream",
                             trace == NULL ? "trace" : "out", "is NULL");
    if (name == NULL)
        name = "trace";
    /* Checked before anything is written. */
    int rc = gar_trace_check(trace, name, err);
    if (rc < 0)
        return rc;
    gar_trace_writer w;
    rc = gar_trace_writer_stream(&w, out, name, false, trace->columns, comment, err);
    return rc < 0 ? rc : write_rows(&w, trace);
}

int gar_trace_write_file(const gar_trace *trace, const char *comment, const char *path,
                         gar_error *err)
{
    if (trace == NULL || path == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_trace_write_file",
                             trace == NULL ? "trace" : "path", "is NULL");
    /* Checked before anything touches the file system. */
    int rc = gar_trace_check(trace, path, err);
    if (rc < 0)
        return rc;
    gar_trace_writer w;
    rc = gar_trace_writer_file(&w, path, trace->columns, comment, err);
    return rc < 0 ? rc : write_rows(&w, trace);
}
