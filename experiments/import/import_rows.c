/* experiments/import/import_rows.c — rows in start order in bounded memory
 * (import_rows.h): sorted runs in a temporary file, merged. */
#define _POSIX_C_SOURCE 200809L /* pread, pwrite */

#include "import/import_rows.h"

#include "sim/trace/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROWS_FILE "temporary file of import rows"

static int cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

static int row_order(const gar_trace_row *a, const gar_trace_row *b)
{
    int c = cmp_u64(a->start_ns, b->start_ns);
    if (c == 0)
        c = cmp_u64(a->stream, b->stream);
    if (c == 0)
        c = cmp_u64(a->submit_ns, b->submit_ns);
    if (c == 0)
        c = cmp_u64(a->done_ns, b->done_ns);
    return c != 0 ? c : cmp_u64(a->point, b->point);
}

static int row_by_start(const void *x, const void *y)
{
    return row_order(x, y);
}

void gar_import_rows_init(gar_import_rows *r, size_t budget)
{
    memset(r, 0, sizeof *r);
    r->cap = budget / sizeof(gar_trace_row);
    if (r->cap == 0)
        r->cap = 1;
}

void gar_import_rows_free(gar_import_rows *r)
{
    if (r == NULL)
        return;
    gar_free(r->row);
    if (r->file != NULL)
        fclose(r->file);
    gar_import_rows_init(r, 0);
}

static int io_failed(gar_error *err, const char *what)
{
    return gar_error_set(err, GAR_E_IO, 3, ROWS_FILE, what, strerror(errno != 0 ? errno : EIO));
}

/* Writes `n` rows at row index `at` of the file. */
static int put_rows(gar_import_rows *r, const gar_trace_row *rows, size_t n, uint64_t at,
                    gar_error *err)
{
    const char *p = (const char *)rows;
    size_t left = n * sizeof *rows;
    off_t offset = (off_t)(at * sizeof *rows);
    while (left > 0) {
        errno = 0;
        ssize_t put = pwrite(fileno(r->file), p, left, offset);
        if (put <= 0)
            return io_failed(err, "write");
        p += put;
        left -= (size_t)put;
        offset += put;
    }
    return 0;
}

/* Reads `n` rows from row index `at` of the file. */
static int get_rows(gar_import_rows *r, gar_trace_row *rows, size_t n, uint64_t at,
                    gar_error *err)
{
    char *p = (char *)rows;
    size_t left = n * sizeof *rows;
    off_t offset = (off_t)(at * sizeof *rows);
    while (left > 0) {
        errno = 0;
        ssize_t got = pread(fileno(r->file), p, left, offset);
        if (got <= 0)
            return got == 0 ? gar_error_set(err, GAR_E_IO, 3, ROWS_FILE, "read",
                                            "the file is shorter than its rows")
                            : io_failed(err, "read");
        p += got;
        left -= (size_t)got;
        offset += got;
    }
    return 0;
}

/* ---- merging ---- */

typedef int (*row_fn)(void *context, const gar_trace_row *row);

typedef struct cursor {
    uint64_t next;        /* file index of the next row to read */
    uint64_t left;        /* rows of the run not yet read */
    gar_trace_row *buf;   /* GAR_IMPORT_ROWS_READ rows */
    size_t at, have;
} cursor;

static int refill(gar_import_rows *r, cursor *c, gar_error *err)
{
    size_t n = c->left < GAR_IMPORT_ROWS_READ ? (size_t)c->left : GAR_IMPORT_ROWS_READ;
    c->at = 0;
    c->have = n;
    int rc = n > 0 ? get_rows(r, c->buf, n, c->next, err) : 0;
    c->next += n;
    c->left -= n;
    return rc;
}

/* Merges runs run[0..n) (n <= fan-in) into `each`, in order. */
static int merge_runs(gar_import_rows *r, const gar_import_rows_run *run, size_t n, row_fn each,
                      void *context, gar_error *err)
{
    cursor c[GAR_IMPORT_ROWS_FAN_IN];
    /* Buffers for a full fan-in whatever `n`: the merge's memory is one
     * constant, not a function of how many runs the rows made. */
    gar_trace_row *buf =
        gar_malloc((size_t)GAR_IMPORT_ROWS_FAN_IN * GAR_IMPORT_ROWS_READ * sizeof *buf);
    if (buf == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import row merge", "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        c[i] = (cursor){ run[i].first, run[i].count, buf + i * GAR_IMPORT_ROWS_READ, 0, 0 };
        if (rc == 0)
            rc = refill(r, &c[i], err);
    }
    while (rc == 0) {
        cursor *least = NULL;
        for (size_t i = 0; i < n; i++) /* a few runs: a scan beats a heap's bookkeeping */
            if (c[i].at < c[i].have &&
                (least == NULL || row_order(&c[i].buf[c[i].at], &least->buf[least->at]) < 0))
                least = &c[i];
        if (least == NULL)
            break;
        rc = each(context, &least->buf[least->at++]);
        if (rc == 0 && least->at == least->have)
            rc = refill(r, least, err);
    }
    gar_free(buf);
    return rc;
}

/* The merge's output appended to the file as a new run. */
typedef struct appender {
    gar_import_rows *r;
    gar_error *err;
    gar_trace_row *buf; /* GAR_IMPORT_ROWS_READ rows */
    size_t used;
    uint64_t at;        /* file index of buf[0] */
} appender;

static int append_row(void *context, const gar_trace_row *row)
{
    appender *a = context;
    a->buf[a->used++] = *row;
    if (a->used < GAR_IMPORT_ROWS_READ)
        return 0;
    int rc = put_rows(a->r, a->buf, a->used, a->at, a->err);
    a->at += a->used;
    a->used = 0;
    return rc;
}

/* Merges the last `n` runs into one run at the end of the file. */
static int collapse(gar_import_rows *r, size_t n, gar_error *err)
{
    gar_import_rows_run *first = &r->run[r->runs - n];
    appender a = { r, err, gar_malloc(GAR_IMPORT_ROWS_READ * sizeof(gar_trace_row)), 0,
                   r->file_rows };
    if (a.buf == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import row merge", "out of memory");
    unsigned level = 0;
    uint64_t count = 0;
    for (size_t i = 0; i < n; i++) {
        count += first[i].count;
        if (first[i].level > level)
            level = first[i].level;
    }
    int rc = merge_runs(r, first, n, append_row, &a, err);
    if (rc == 0 && a.used > 0)
        rc = put_rows(r, a.buf, a.used, a.at, err);
    gar_free(a.buf);
    if (rc < 0)
        return rc;
    *first = (gar_import_rows_run){ r->file_rows, count, level + 1 };
    r->runs -= n - 1;
    r->file_rows += count;
    return 0;
}

/* Sorts the held rows and writes them as a run; then merges while the last
 * fan-in runs are of one size class. */
static int write_run(gar_import_rows *r, gar_error *err)
{
    if (r->count == 0)
        return 0;
    if (r->runs == GAR_IMPORT_ROWS_RUNS)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "import rows", "too many sorted runs");
    if (r->file == NULL) {
        errno = 0;
        r->file = tmpfile();
        if (r->file == NULL)
            return io_failed(err, "create");
    }
    qsort(r->row, r->count, sizeof *r->row, row_by_start);
    int rc = put_rows(r, r->row, r->count, r->file_rows, err);
    if (rc < 0)
        return rc;
    r->run[r->runs++] = (gar_import_rows_run){ r->file_rows, r->count, 0 };
    r->file_rows += r->count;
    r->count = 0;
    while (r->runs >= GAR_IMPORT_ROWS_FAN_IN) {
        const gar_import_rows_run *last = &r->run[r->runs - GAR_IMPORT_ROWS_FAN_IN];
        bool one_class = true;
        for (size_t i = 1; i < GAR_IMPORT_ROWS_FAN_IN; i++)
            one_class = one_class && last[i].level == last[0].level;
        if (!one_class)
            break;
        rc = collapse(r, GAR_IMPORT_ROWS_FAN_IN, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int gar_import_rows_add(gar_import_rows *r, const gar_trace_row *row, gar_error *err)
{
    if (r->count == r->grown && r->grown < r->cap) {
        size_t want = r->grown < 256 ? 256 : r->grown * 2;
        if (want > r->cap)
            want = r->cap;
        gar_trace_row *grown = gar_realloc(r->row, want * sizeof *grown);
        if (grown == NULL)
            return gar_error_set(err, GAR_E_CAPACITY, 2, "import rows", "out of memory");
        r->row = grown;
        r->grown = want;
    }
    if (r->count == r->cap) {
        int rc = write_run(r, err);
        if (rc < 0)
            return rc;
    }
    r->row[r->count++] = *row;
    r->total++;
    r->sorted = false;
    return 0;
}

int gar_import_rows_each(gar_import_rows *r, int (*each)(void *context, const gar_trace_row *row),
                         void *context, gar_error *err)
{
    if (r->file == NULL) { /* everything fit: sorted where it is */
        if (!r->sorted && r->count > 0)
            qsort(r->row, r->count, sizeof *r->row, row_by_start);
        r->sorted = true;
        for (size_t i = 0; i < r->count; i++) {
            int rc = each(context, &r->row[i]);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    int rc = write_run(r, err);
    if (rc < 0)
        return rc;
    gar_free(r->row); /* the merge's buffers take its place */
    r->row = NULL;
    r->grown = r->cap = 0;
    while (rc == 0 && r->runs > GAR_IMPORT_ROWS_FAN_IN)
        rc = collapse(r, GAR_IMPORT_ROWS_FAN_IN, err);
    return rc < 0 ? rc : merge_runs(r, r->run, r->runs, each, context, err);
}
