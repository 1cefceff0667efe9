/* sim/trace/trace_lines.c — the line-at-a-time reader (trace_reader.h):
 * the magic line, the header, comments, and every row the plain-row reader
 * (trace_rows.c) does not take, read from scratch with what is wrong with
 * it said, its line and column named. */
#include "sim/trace/trace_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/trace/decimal_chunk.h"

void gar_trace_reader_init(gar_trace_reader *rd, const char *name, gar_error *err)
{
    memset(rd, 0, sizeof *rd);
    rd->name = name != NULL ? name : "trace";
    rd->err = err;
    gar_trace_order_init(&rd->rules);
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

static int read_magic(gar_trace_reader *rd, const char *p, size_t n)
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
    return gar_trace_refuse(rd->err, rd->name, rd->line, 1, fault);
}

static int column_named(const char *p, size_t n)
{
    for (int c = 0; c < COL_COUNT; c++)
        if (strlen(gar_trace_column_name[c]) == n && memcmp(gar_trace_column_name[c], p, n) == 0)
            return c;
    return -1;
}

/* The header names the four required columns in order, then optionally rows,
 * then optionally stream.  One canonical order keeps every file comparable
 * line by line and the row parser free of lookups. */
static int read_header(gar_trace_reader *rd, const char *p, size_t n)
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
            return gar_trace_refuse(rd->err, rd->name, rd->line, position + 1, fault);
        }
        if (col < 0) {
            snprintf(fault, sizeof fault, "unknown column '%s' (columns: %s)", shown,
                     "point,submit_ns,start_ns,done_ns[,rows][,stream]");
            return gar_trace_refuse(rd->err, rd->name, rd->line, position + 1, fault);
        }
        if (position < 4 && col != (int)position) {
            snprintf(fault, sizeof fault, "expected column '%s', found '%s' (columns: %s)",
                     gar_trace_column_name[position], shown,
                     "point,submit_ns,start_ns,done_ns[,rows][,stream]");
            return gar_trace_refuse(rd->err, rd->name, rd->line, position + 1, fault);
        }
        if (position >= 4) {
            if (col < next_optional) {
                snprintf(fault, sizeof fault,
                         "column '%s' is out of place (optional columns: rows, then stream)",
                         shown);
                return gar_trace_refuse(rd->err, rd->name, rd->line, position + 1, fault);
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
        snprintf(fault, sizeof fault, "missing column '%s'", gar_trace_column_name[position]);
        return gar_trace_refuse(rd->err, rd->name, rd->line, position + 1, fault);
    }
    rd->fields = position;
    rd->state = WANT_ROWS;
    return 0;
}

/* Parses one unsigned decimal field of `n` bytes, at most `max`. */
static int parse_number(gar_trace_reader *rd, const char *p, size_t n, uint64_t max,
                        unsigned position, uint64_t *out)
{
    int col = rd->field_col[position - 1];
    char fault[320], shown[SHOWN_BYTES];
    if (n == 0) {
        snprintf(fault, sizeof fault, "empty field for %s", gar_trace_column_name[col]);
        return gar_trace_refuse(rd->err, rd->name, rd->line, position, fault);
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
                snprintf(fault, sizeof fault, "%s '%s' is negative", gar_trace_column_name[col],
                         shown);
            else {
                char bad[8];
                gar_error_show_bytes(p + i, 1, bad, sizeof bad);
                snprintf(fault, sizeof fault,
                         "%s '%s' is not a decimal number (its byte %zu is '%s')",
                         gar_trace_column_name[col], shown, i, bad);
            }
            return gar_trace_refuse(rd->err, rd->name, rd->line, position, fault);
        }
        if (value > cutoff || (value == cutoff && digit > cutlim)) {
            show_field(shown, sizeof shown, p, n);
            snprintf(fault, sizeof fault, "%s '%s' is out of range (at most %" PRIu64 ")",
                     gar_trace_column_name[col], shown, max);
            return gar_trace_refuse(rd->err, rd->name, rd->line, position, fault);
        }
        value = value * 10 + digit;
    }
    *out = value;
    return 0;
}

/* Reads a row field by field and says what is wrong with it, if anything. */
static int read_row_checked(gar_trace_reader *rd, const char *p, size_t n)
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
                         gar_trace_column_name[rd->field_col[position]], rd->fields);
                return gar_trace_refuse(rd->err, rd->name, rd->line, position + 1, fault);
            }
            break;
        }
        if (position == rd->fields) {
            snprintf(fault, sizeof fault, "too many fields (the header names %u)", rd->fields);
            return gar_trace_refuse(rd->err, rd->name, rd->line, position + 1, fault);
        }
        p = q + 1;
    }
    row.point = value[COL_POINT];
    row.submit_ns = value[COL_SUBMIT];
    row.start_ns = value[COL_START];
    row.done_ns = value[COL_DONE];
    row.step_rows = (uint32_t)value[COL_ROWS];
    row.stream = (uint32_t)value[COL_STREAM];
    int rc = gar_trace_order_admit(&rd->rules, &row, rd->trace.columns, rd->name, rd->line,
                                   rd->err);
    if (rc < 0)
        return rc;
    return gar_trace_append(&rd->trace, &row, rd->err);
}

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
        v = v * gar_trace_power_of_ten[k] + gar_decimal_chunk_value(chunk, k);
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
static int read_row(gar_trace_reader *rd, const char *p, size_t n)
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
    int rc = gar_trace_order_admit(&rd->rules, &row, rd->trace.columns, rd->name, rd->line,
                                   rd->err);
    if (rc < 0)
        return rc;
    return gar_trace_append(&rd->trace, &row, rd->err);
}

/* One line, without its '\n'.  A '\r' before it is dropped, so CRLF files read
 * the same as LF ones. */
int gar_trace_reader_line(gar_trace_reader *rd, const char *p, size_t n)
{
    rd->line++;
    if (n > 0 && p[n - 1] == '\r')
        n--;
    if (rd->state == WANT_MAGIC)
        return read_magic(rd, p, n);
    if (n > 0 && p[0] == '#')
        return 0;
    if (n == 0)
        return gar_trace_refuse(rd->err, rd->name, rd->line, 1,
                      "blank line (only rows and '#' comments may follow the magic line)");
    if (rd->state == WANT_HEADER)
        return read_header(rd, p, n);
    return read_row(rd, p, n);
}

/* Ends a read: `tail` bytes were left after the last newline. */
int gar_trace_reader_finish(gar_trace_reader *rd, size_t tail)
{
    if (tail > 0 && rd->state == WANT_MAGIC) /* not a line at all: not a trace, or not text */
        return gar_trace_refuse(rd->err, rd->name, 1, 1,
                      "no newline in the file: a trace starts with the line '" GAR_TRACE_MAGIC "'");
    if (tail > 0)
        return gar_trace_refuse(rd->err, rd->name, rd->line + 1, 1,
                                "the last line has no newline (was the file cut short?)");
    if (rd->state == WANT_MAGIC)
        return gar_trace_refuse(rd->err, rd->name, 1, 1,
                                "empty file (expected '" GAR_TRACE_MAGIC "')");
    if (rd->state == WANT_HEADER)
        return gar_trace_refuse(rd->err, rd->name, rd->line + 1, 1, "no header row");
    if (rd->trace.count == 0 && rd->rows_handed == 0)
        return gar_trace_refuse(rd->err, rd->name, rd->line + 1, 1, "no rows (an empty trace)");
    return 0;
}

/* Hands the trace to the caller on success; frees everything otherwise. */
int gar_trace_reader_end(gar_trace_reader *rd, int rc, gar_trace *out)
{
    gar_trace_order_free(&rd->rules);
    if (rc < 0) {
        gar_trace_free(&rd->trace);
        gar_trace_init(out);
        return rc;
    }
    *out = rd->trace;
    return 0;
}

int gar_trace_refuse_long_line(gar_trace_reader *rd)
{
    char fault[96];
    snprintf(fault, sizeof fault, "line longer than %d bytes", GAR_TRACE_LINE_MAX);
    return gar_trace_refuse(rd->err, rd->name, rd->line + 1, 1, fault);
}
