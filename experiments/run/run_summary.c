/* experiments/run/run_summary.c — `gar run`'s summary; see run_summary.h. */
#include "run/run_summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim/quantile_interval.h"

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank quantile of sorted v[0..n-1] (0 for none). */
static uint64_t nearest_rank(const uint64_t *v, size_t n, uint32_t level_ppm)
{
    if (n == 0)
        return 0;
    /* ceil(n * level): n is a count of waits, far below 2^44, so the product fits. */
    size_t rank = (size_t)(((uint64_t)n * level_ppm + 999999u) / 1000000u);
    return v[rank ? rank - 1 : 0];
}

static uint64_t overshoot_of(const gar_run_wait *w)
{
    uint64_t from = w->done_ns > w->start_ns ? w->done_ns : w->start_ns;
    return w->end_ns > from ? w->end_ns - from : 0;
}

/* Fills the overshoots of the kept taken waits into a new sorted array. */
static uint64_t *overshoots(const gar_run_logs *logs,
                            bool (*keep)(const gar_run_wait *, const void *), const void *arg,
                            size_t *n)
{
    uint64_t *v = malloc((logs->count ? logs->count : 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < logs->count; i++) {
        const gar_run_wait *w = &logs->wait[i];
        if ((!keep || keep(w, arg)) && w->how == GAR_RUN_TAKEN && !w->failed && w->done_ns)
            v[(*n)++] = overshoot_of(w);
    }
    qsort(v, *n, sizeof *v, by_value);
    return v;
}

void gar_run_totals_of(const gar_run_logs *logs, bool (*keep)(const gar_run_wait *, const void *),
                       const void *arg, gar_run_totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < logs->count; i++) {
        const gar_run_wait *w = &logs->wait[i];
        if (keep && !keep(w, arg))
            continue;
        t->waits++;
        uint64_t wall = w->end_ns - w->start_ns;
        if (w->how == GAR_RUN_BASELINE) {
            t->baseline++;
            t->baseline_cpu_ns += w->cpu_ns;
            t->baseline_wall_ns += wall;
        } else if (w->how == GAR_RUN_FALLBACK) {
            t->fallback++;
        } else {
            t->taken++;
            t->failed += w->failed;
            t->busy_ns += w->cpu_ns;
            t->wall_ns += wall;
            t->with_done += w->done_ns != 0 && !w->failed;
            t->immediate += w->immediate;
        }
    }
    /* The share is pooled over the whole run: a stream has few samples. */
    uint64_t bcpu = 0, bwall = 0;
    for (size_t i = 0; i < logs->count; i++)
        if (logs->wait[i].how == GAR_RUN_BASELINE) {
            bcpu += logs->wait[i].cpu_ns;
            bwall += logs->wait[i].end_ns - logs->wait[i].start_ns;
        }
    t->real_share = bwall ? (double)bcpu / (double)bwall : -1.0;
    if (t->real_share > 1.0)
        t->real_share = 1.0; /* CPU a hair past the wall time is clock granularity */
    t->real_cost_ns = t->real_share < 0 ? -1.0 : (double)t->wall_ns * t->real_share;
    size_t n;
    uint64_t *v = overshoots(logs, keep, arg, &n);
    if (v) {
        t->overshoot_p50 = nearest_rank(v, n, 500000);
        t->overshoot_p90 = nearest_rank(v, n, 900000);
        t->overshoot_p99 = nearest_rank(v, n, 990000);
        t->overshoot_max = n ? v[n - 1] : 0;
    }
    free(v);
}

/* "12.3 [10.1, 15.0]" in µs, an absent end written as "-". */
static void quantile_text(const uint64_t *v, size_t n, uint32_t level, char *buf, size_t size)
{
    if (n == 0) {
        snprintf(buf, size, "-");
        return;
    }
    gar_quantile_interval ci =
        gar_quantile_interval_sorted((const gar_dur_ns *)v, n, level, GAR_CI_LEVEL_DEFAULT);
    char lo[32] = "-", hi[32] = "-";
    if (ci.has_lo)
        snprintf(lo, sizeof lo, "%.1f", (double)ci.lo / 1e3);
    if (ci.has_hi)
        snprintf(hi, sizeof hi, "%.1f", (double)ci.hi / 1e3);
    snprintf(buf, size, "%.1f [%s, %s]", (double)nearest_rank(v, n, level) / 1e3, lo, hi);
}

typedef struct stream_key {
    uint32_t process, stream;
} stream_key;

static bool same_stream(const gar_run_wait *w, const void *arg)
{
    const stream_key *k = arg;
    return w->process == k->process && w->stream == k->stream;
}

/* The paths the kept waits took over: "mapped", "query", "mapped+query",
 * or "-" when none was taken over. */
static const char *path_of(const gar_run_logs *logs,
                           bool (*keep)(const gar_run_wait *, const void *), const void *arg)
{
    bool mapped = false, query = false;
    for (size_t i = 0; i < logs->count; i++) {
        const gar_run_wait *w = &logs->wait[i];
        if (w->how == GAR_RUN_TAKEN && (!keep || keep(w, arg))) {
            mapped |= w->path == GAR_RUN_PATH_MAPPED;
            query |= w->path == GAR_RUN_PATH_QUERY;
        }
    }
    return mapped && query ? "mapped+query" : mapped ? "mapped" : query ? "query" : "-";
}

static void print_line(const gar_run_logs *logs, bool (*keep)(const gar_run_wait *, const void *),
                       const void *arg, const char *name, FILE *out)
{
    gar_run_totals t;
    gar_run_totals_of(logs, keep, arg, &t);
    size_t n;
    uint64_t *v = overshoots(logs, keep, arg, &n);
    char q[3][64];
    static const uint32_t levels[3] = { 500000, 900000, 990000 };
    for (int i = 0; i < 3; i++)
        quantile_text(v, v ? n : 0, levels[i], q[i], sizeof q[i]);
    free(v);
    char real[32] = "-";
    if (t.real_cost_ns >= 0)
        snprintf(real, sizeof real, "%.2f", t.real_cost_ns / 1e6);
    fprintf(out, "%-10s %7" PRIu64 " %7" PRIu64 " %6" PRIu64 "  %-22s %-22s %-22s %9.2f %9s  %s\n",
            name, t.waits, t.taken, t.fallback + t.baseline, q[0], q[1], q[2],
            (double)t.busy_ns / 1e6, real, path_of(logs, keep, arg));
}

/* The waits taken over by path, the status-query waits that wanted the
 * mapped line by reason, and the waits passed to the real call by reason. */
static void print_paths(const gar_run_logs *logs, FILE *out)
{
    uint64_t mapped = 0, query = 0;
    for (size_t i = 0; i < logs->count; i++) {
        mapped += logs->wait[i].how == GAR_RUN_TAKEN && logs->wait[i].path == GAR_RUN_PATH_MAPPED;
        query += logs->wait[i].how == GAR_RUN_TAKEN && logs->wait[i].path == GAR_RUN_PATH_QUERY;
    }
    if (mapped + query)
        fprintf(out, "gar run: taken over on the mapped line: %" PRIu64 ", by status query: %" PRIu64
                     "\n", mapped, query);
    for (unsigned r = 0; r < logs->reason_count; r++) {
        uint64_t passed = 0, queried = 0;
        for (size_t i = 0; i < logs->count; i++) {
            const gar_run_wait *w = &logs->wait[i];
            passed += w->how == GAR_RUN_FALLBACK && w->reason == r;
            queried += w->how != GAR_RUN_FALLBACK && w->path == GAR_RUN_PATH_QUERY &&
                       w->path_why == r;
        }
        if (passed)
            fprintf(out, "gar run: passed to the real call: %" PRIu64 " wait%s (%s)\n", passed,
                    passed == 1 ? "" : "s", logs->reasons[r]);
        if (queried)
            fprintf(out, "gar run: status query in place of the mapped line: %" PRIu64
                         " wait%s (%s)\n", queried, queried == 1 ? "" : "s", logs->reasons[r]);
    }
}

static void print_overall(const gar_run_logs *logs, FILE *out)
{
    gar_run_totals t;
    gar_run_totals_of(logs, NULL, NULL, &t);
    fprintf(out, "gar run: plan %s, %u process%s, %" PRIu64 " waits (%" PRIu64
                 " taken over, %" PRIu64 " sampled real calls, %" PRIu64 " passed through)\n",
            logs->plan[0] ? logs->plan : "(none read)", logs->processes,
            logs->processes == 1 ? "" : "es", t.waits, t.taken, t.baseline, t.fallback);
    if (logs->plan_note[0])
        fprintf(out, "gar run: note: %s\n", logs->plan_note);
    fprintf(out, "gar run: overshoot (us) p50 %.1f p90 %.1f p99 %.1f max %.1f over %" PRIu64
                 " waits with a completion time\n",
            (double)t.overshoot_p50 / 1e3, (double)t.overshoot_p90 / 1e3,
            (double)t.overshoot_p99 / 1e3, (double)t.overshoot_max / 1e3, t.with_done);
    if (t.real_share >= 0)
        fprintf(out, "gar run: busy CPU %.2f ms over %.2f ms of waiting; the real call: %.2f ms"
                     " (CPU share %.3f measured on %" PRIu64 " sampled waits)\n",
                (double)t.busy_ns / 1e6, (double)t.wall_ns / 1e6, t.real_cost_ns / 1e6,
                t.real_share, t.baseline);
    else
        fprintf(out, "gar run: busy CPU %.2f ms over %.2f ms of waiting; the real call's cost"
                     " was not measured (no sampled wait)\n",
                (double)t.busy_ns / 1e6, (double)t.wall_ns / 1e6);
    print_paths(logs, out);
    if (t.failed)
        fprintf(out, "gar run: %" PRIu64 " taken-over waits met a runtime error (returned as the"
                     " real call returned it)\n", t.failed);
    if (logs->skipped_lines)
        fprintf(out, "gar run: %" PRIu64 " log lines cut short were skipped\n",
                logs->skipped_lines);
}

int gar_run_summary_print(const gar_run_logs *logs, bool per_stream, FILE *out)
{
    print_overall(logs, out);
    if (!per_stream)
        return 0;
    fprintf(out, "%-10s %7s %7s %6s  %-22s %-22s %-22s %9s %9s  %s\n", "stream", "waits",
            "taken", "real", "overshoot_p50_us[95%]", "overshoot_p90_us", "overshoot_p99_us",
            "busy_ms", "real_ms", "path");
    stream_key *seen = malloc((logs->count ? logs->count : 1) * sizeof *seen);
    if (!seen)
        return -1;
    size_t nseen = 0;
    for (size_t i = 0; i < logs->count; i++) {
        stream_key k = { logs->wait[i].process, logs->wait[i].stream };
        bool known = false;
        for (size_t j = 0; j < nseen && !known; j++)
            known = seen[j].process == k.process && seen[j].stream == k.stream;
        if (known)
            continue;
        seen[nseen++] = k;
        char name[32];
        if (k.stream == 0)
            snprintf(name, sizeof name, "%u:none", (unsigned)k.process);
        else
            snprintf(name, sizeof name, "%u:%u", (unsigned)k.process, (unsigned)k.stream);
        print_line(logs, same_stream, &k, name, out);
    }
    free(seen);
    print_line(logs, NULL, NULL, "overall", out);
    return 0;
}
