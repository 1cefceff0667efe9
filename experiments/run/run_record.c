/* experiments/run/run_record.c — a run as a trace and its outcomes; see
 * run_record.h. */
#define _POSIX_C_SOURCE 200809L
#include "run/run_record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/trace/atomic_file.h"

#define OUTCOME_MAGIC "# gar-run-outcome v1"
#define OUTCOME_HEADER "end_ns,cpu_ns,taken"
#define FNV_OFFSET 0xcbf29ce484222325u
#define FNV_PRIME 0x100000001b3u

static uint64_t fnv_bytes(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

static uint64_t point_of(const char *call, uint32_t stream)
{
    unsigned char le[4] = { (unsigned char)stream, (unsigned char)(stream >> 8),
                            (unsigned char)(stream >> 16), (unsigned char)(stream >> 24) };
    return fnv_bytes(fnv_bytes(FNV_OFFSET, call, strlen(call)), le, 4);
}

static const gar_run_logs *sorting; /* qsort's context: single-threaded verb */

static int by_start(const void *a, const void *b)
{
    const gar_run_wait *x = &sorting->wait[*(const size_t *)a];
    const gar_run_wait *y = &sorting->wait[*(const size_t *)b];
    if (x->start_ns != y->start_ns)
        return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static uint64_t done_of(const gar_run_wait *w)
{
    return w->how == GAR_RUN_TAKEN && !w->failed && w->done_ns ? w->done_ns : w->end_ns;
}

/* Moves `done` up to the stream's last one; with `last` a small table of
 * (stream, done) pairs. */
typedef struct stream_last {
    uint32_t stream;
    uint64_t done;
} stream_last;

static uint64_t monotone_done(stream_last *last, size_t *n, uint32_t stream, uint64_t done)
{
    for (size_t i = 0; i < *n; i++)
        if (last[i].stream == stream) {
            if (done < last[i].done)
                done = last[i].done;
            last[i].done = done;
            return done;
        }
    last[(*n)++] = (stream_last){ stream, done };
    return done;
}

/* The trace's rows, in the order of `order`, times from `origin`. */
static int build_trace(const gar_run_logs *logs, const size_t *order, gar_trace *trace,
                       uint64_t *origin, gar_error *err)
{
    gar_trace_init(trace);
    trace->columns = GAR_TRACE_HAS_STREAM;
    int rc = gar_trace_reserve(trace, logs->count, err);
    stream_last *last = malloc(logs->count * sizeof *last);
    if (rc < 0 || !last) {
        free(last);
        return rc < 0 ? rc : gar_error_set(err, GAR_E_CAPACITY, 2, "the run's trace", "memory");
    }
    *origin = UINT64_MAX;
    for (size_t i = 0; i < logs->count; i++) {
        const gar_run_wait *w = &logs->wait[i];
        uint64_t lo = done_of(w) < w->start_ns ? done_of(w) : w->start_ns;
        if (lo < *origin)
            *origin = lo;
    }
    size_t nlast = 0;
    for (size_t k = 0; k < logs->count && rc == 0; k++) {
        const gar_run_wait *w = &logs->wait[order[k]];
        uint32_t stream = w->process * 65536u + w->stream;
        uint64_t done = monotone_done(last, &nlast, stream, done_of(w)) - *origin;
        uint64_t start = w->start_ns - *origin;
        gar_trace_row row = { point_of(logs->calls[w->call], stream), done < start ? done : start,
                              start, done, 0, stream };
        rc = gar_trace_append(trace, &row, err);
    }
    free(last);
    return rc;
}

static int write_outcomes(const gar_run_logs *logs, const size_t *order, uint64_t origin,
                          const char *path, gar_error *err)
{
    gar_atomic_file f;
    int rc = gar_atomic_file_begin(&f, path, NULL, err);
    if (rc < 0)
        return gar_atomic_file_end(&f, rc);
    FILE *out = fdopen(dup(f.fd), "w");
    if (!out)
        return gar_atomic_file_end(&f, gar_error_set(err, GAR_E_IO, 3, path, "open",
                                                     strerror(errno)));
    fprintf(out, OUTCOME_MAGIC "\n# plan: %s\n" OUTCOME_HEADER "\n", logs->plan);
    for (size_t k = 0; k < logs->count; k++) {
        const gar_run_wait *w = &logs->wait[order[k]];
        fprintf(out, "%" PRIu64 ",%" PRIu64 ",%d\n", w->end_ns - origin, w->cpu_ns,
                w->how == GAR_RUN_TAKEN);
    }
    if (fclose(out) != 0)
        rc = gar_error_set(err, GAR_E_IO, 3, path, "write", strerror(errno));
    if (rc == 0)
        rc = gar_atomic_file_sync(&f, err);
    if (rc == 0)
        rc = gar_atomic_file_commit(&f, NULL, err);
    return gar_atomic_file_end(&f, rc);
}

int gar_run_record_write(const gar_run_logs *logs, const char *path, const char *comment,
                         gar_error *err)
{
    if (logs->count == 0)
        return gar_error_set(err, GAR_E_INVALID_TRACE, 4, path, "", "",
                             "the program made no wait to record");
    size_t *order = malloc(logs->count * sizeof *order);
    char *outcome_path = malloc(strlen(path) + sizeof ".outcome");
    if (!order || !outcome_path) {
        free(order);
        free(outcome_path);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "the run's trace", "memory");
    }
    for (size_t i = 0; i < logs->count; i++)
        order[i] = i;
    sorting = logs;
    qsort(order, logs->count, sizeof *order, by_start);
    sprintf(outcome_path, "%s.outcome", path);
    gar_trace trace;
    uint64_t origin = 0;
    int rc = build_trace(logs, order, &trace, &origin, err);
    if (rc == 0)
        rc = write_outcomes(logs, order, origin, outcome_path, err);
    if (rc == 0) {
        rc = gar_trace_write_file(&trace, comment, path, err);
        if (rc < 0)
            unlink(outcome_path);
    }
    gar_trace_free(&trace);
    free(order);
    free(outcome_path);
    return rc;
}

/* ---- reading the outcomes back -------------------------------------------- */

static int bad_line(gar_error *err, const char *path, size_t line, const char *what)
{
    char where[32];
    snprintf(where, sizeof where, "%zu", line);
    return gar_error_set(err, GAR_E_INVALID_TRACE, 4, path, where, "", what);
}

static bool parse_row(const char *text, gar_run_outcome *o)
{
    unsigned long long end, cpu;
    int taken, used = 0;
    if (sscanf(text, "%llu,%llu,%d%n", &end, &cpu, &taken, &used) != 3 ||
        (text[used] != '\n' && text[used] != '\0') || (taken != 0 && taken != 1) ||
        text[0] < '0' || text[0] > '9')
        return false;
    *o = (gar_run_outcome){ end, cpu, taken == 1 };
    return true;
}

int gar_run_outcome_read(const char *trace_path, size_t rows, char *plan, size_t plan_size,
                         gar_run_outcome **out, gar_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.outcome", trace_path);
    FILE *in = fopen(path, "r");
    if (!in)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    gar_run_outcome *o = malloc((rows ? rows : 1) * sizeof *o);
    char line[512];
    size_t n = 0, number = 0;
    int rc = o ? 0 : gar_error_set(err, GAR_E_CAPACITY, 2, path, "memory");
    plan[0] = '\0';
    while (rc == 0 && fgets(line, sizeof line, in)) {
        number++;
        if (number == 1 && strcmp(line, OUTCOME_MAGIC "\n") != 0)
            rc = bad_line(err, path, number, "expected '" OUTCOME_MAGIC "'");
        else if (strncmp(line, "# plan: ", 8) == 0)
            snprintf(plan, plan_size, "%.*s", (int)strcspn(line + 8, "\n"), line + 8);
        else if (line[0] == '#' || strcmp(line, OUTCOME_HEADER "\n") == 0)
            continue;
        else if (n == rows)
            rc = bad_line(err, path, number, "more rows than the trace has");
        else if (!parse_row(line, &o[n++]))
            rc = bad_line(err, path, number, "expected END_NS,CPU_NS,TAKEN");
    }
    fclose(in);
    if (rc == 0 && n != rows)
        rc = bad_line(err, path, number, "fewer rows than the trace has");
    if (rc == 0 && !plan[0])
        rc = bad_line(err, path, number, "no '# plan:' line");
    if (rc < 0) {
        free(o);
        return rc;
    }
    *out = o;
    return 0;
}
