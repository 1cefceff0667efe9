/* experiments/cli/replay_output.c — what `gar replay` prints
 * (replay_output.h): the metrics as a text table (with the busiest
 * streams) or one JSON object. */
#include "cli/replay_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>

#include "cli/cli.h"
#include "cli/json_put.h"
#include "sim/quantile_words.h"
#include "sim/replay_metric_table.h"

/* How a run past GAR_SKETCH_EXACT_MAX waits reads its quantiles. */
#define QUANTILES_HISTOGRAM "histogram, relative error \u2264 0.1 %"
#define STREAMS_SHOWN 10 /* the text table's rows: the streams with the most waits */

typedef struct ranked_stream {
    uint64_t waits;
    size_t index; /* in the trace's order */
} ranked_stream;

/* Most waits first; ties in the trace's order. */
static int by_waits(const void *x, const void *y)
{
    const ranked_stream *a = x, *b = y;
    if (a->waits != b->waits)
        return a->waits > b->waits ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The per-stream table of the text output, when the trace has more than one
 * stream: the STREAMS_SHOWN with the most waits.  Returns false when memory
 * for the ordering runs out (nothing printed). */
bool gar_cli_replay_print_streams(const gar_replay_streams *streams)
{
    if (streams->count < 2)
        return true;
    ranked_stream *order = malloc(streams->count * sizeof *order);
    if (order == NULL)
        return false;
    for (size_t k = 0; k < streams->count; k++)
        order[k] = (ranked_stream){ streams->stream[k].waits, k };
    qsort(order, streams->count, sizeof *order, by_waits);
    size_t shown = streams->count < STREAMS_SHOWN ? streams->count : STREAMS_SHOWN;
    if (shown < streams->count)
        printf("streams: %zu (the %zu with the most waits)\n", streams->count, shown);
    else
        printf("streams: %zu\n", streams->count);
    printf("  %10s %12s %18s %18s %16s\n", "stream", "waits", "overshoot_p50_ns",
           "overshoot_p99_ns", "busy_ns");
    for (size_t k = 0; k < shown; k++) {
        const gar_replay_stream *s = &streams->stream[order[k].index];
        printf("  %10lu %12llu %18llu %18llu %16llu\n", (unsigned long)s->stream,
               (unsigned long long)s->waits, (unsigned long long)s->overshoot_ns.p50,
               (unsigned long long)s->overshoot_ns.p99, (unsigned long long)s->busy_ns);
    }
    free(order);
    return true;
}

/* A metric's value as `gar replay` prints it, by its TYPE
 * (replay_metric_table.h): a decimal count, or a fraction to six decimals. */
static void value_text_COUNT(uint64_t v, char *out, size_t size)
{
    snprintf(out, size, "%llu", (unsigned long long)v);
}

static void value_text_FRACTION(double v, char *out, size_t size)
{
    snprintf(out, size, "%.6f", v);
}

/* The `key: value` lines, one metric at a time: a metric alone is its own
 * line; the members of a group share one, "GROUP: MEMBER value ...", which
 * the next metric outside the group (or text_end) ends. */
typedef struct text_lines {
    const char *group;       /* the group whose line is open, or NULL */
    const char *over;        /* its quantiles' count, to end it "(over N OVER)", or NULL */
    uint64_t over_count;
} text_lines;

static void text_end(text_lines *t)
{
    if (t->group == NULL)
        return;
    if (t->over != NULL)
        printf(" (over %llu %s)", (unsigned long long)t->over_count, t->over);
    printf("\n");
    t->group = NULL;
    t->over = NULL;
}

static void text_metric(text_lines *t, const char *name, const char *group, const char *member,
                        const char *value)
{
    if (t->group != NULL && strcmp(t->group, group) != 0)
        text_end(t);
    if (group[0] == '\0') {
        printf("%s: %s\n", name, value);
        return;
    }
    if (t->group == NULL)
        printf("%s:", group);
    t->group = group;
    printf(" %s %s", member, value);
}

/* The metrics that `gar replay` prints (GAR_METRIC_TEXT), in the table's
 * order; a group's line names the count its quantiles are over where the
 * table says so (GAR_METRIC_TEXT_OVER). */
static void print_metrics(const gar_replay_metrics *m)
{
    text_lines t = { NULL, NULL, 0 };
    char value[32];
#define TEXT_METRIC(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...)                                   \
    if (GAR_METRIC_USES(__VA_ARGS__) & GAR_METRIC_TEXT) {                                          \
        value_text_##TYPE(m->FIELD, value, sizeof value);                                          \
        text_metric(&t, #NAME UNIT, GROUP, MEMBER, value);                                         \
    }
#define TEXT_QUANTILE(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES, CI, CI_GROUP, LEVEL_PPM, OVER) \
    TEXT_METRIC(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES)                                      \
    if ((USES) & GAR_METRIC_TEXT_OVER) {                                                           \
        t.over = #OVER;                                                                            \
        t.over_count = m->OVER;                                                                    \
    }
    GAR_REPLAY_METRICS(TEXT_METRIC, TEXT_QUANTILE)
#undef TEXT_QUANTILE
#undef TEXT_METRIC
    text_end(&t);
}

/* An interval's end as the text prints it: the value, or "-" when absent. */
static void end_text(bool present, gar_dur_ns v, char *out, size_t size)
{
    if (present)
        snprintf(out, size, "%llu", (unsigned long long)v);
    else
        snprintf(out, size, "-");
}

/* Every quantile's interval, a line per group: "overshoot_ci_ns: level L
 * p50 LO HI p90 LO HI p99 LO HI", an absent end as "-"; then each in words,
 * "overshoot_p99: 31.8 µs (...)". */
static void print_intervals(const gar_replay_metrics *m)
{
    const char *open = NULL; /* the group whose line is open */
    char lo[32], hi[32], words[256];
#define INTERVAL_ENDS(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES, CI, CI_GROUP, LEVEL_PPM, OVER) \
    if (open != NULL && strcmp(open, CI_GROUP) != 0)                                               \
        printf("\n");                                                                              \
    if (open == NULL || strcmp(open, CI_GROUP) != 0)                                               \
        printf("%s: level %g", CI_GROUP, m->ci_level);                                             \
    open = CI_GROUP;                                                                               \
    end_text(m->CI.has_lo, m->CI.lo, lo, sizeof lo);                                               \
    end_text(m->CI.has_hi, m->CI.hi, hi, sizeof hi);                                               \
    printf(" %s %s %s", MEMBER, lo, hi);
#define IN_WORDS(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES, CI, CI_GROUP, LEVEL_PPM, OVER)      \
    gar_words_quantile(LEVEL_PPM, m->FIELD, &m->CI, m->OVER, #OVER, m->ci_level, words,            \
                       sizeof words);                                                              \
    printf("%s: %s\n", #NAME, words);
#define NOT_A_QUANTILE(...)
    GAR_REPLAY_METRICS(NOT_A_QUANTILE, INTERVAL_ENDS)
    if (open != NULL)
        printf("\n");
    GAR_REPLAY_METRICS(NOT_A_QUANTILE, IN_WORDS)
#undef NOT_A_QUANTILE
#undef IN_WORDS
#undef INTERVAL_ENDS
}

void gar_cli_replay_print_table(const gar_cli_replay_run *a, const char *plan_label,
                                const char *est_label, const gar_replay_metrics *m,
                                const gar_replay_notes *notes)
{
    printf("trace: %s\n", a->trace);
    printf("plan: %s\n", plan_label);
    printf("estimator: %s\n", est_label);
    printf("host: %s\n", a->host);
    printf("mode: %s\n", a->mode);
    printf("seed: %llu\n", a->seed);
    print_metrics(m);
    const gar_auto_counts *c = &m->auto_counts;
    if (c->waits > 0)
        printf("auto: block %llu poll %llu flag %llu sleeps %llu late %llu over_budget %llu "
               "over_budget_waits %llu held %llu\n",
               (unsigned long long)c->block, (unsigned long long)c->poll,
               (unsigned long long)c->flag, (unsigned long long)c->sleeps,
               (unsigned long long)c->late, (unsigned long long)c->over_budget,
               (unsigned long long)m->auto_over_budget_waits, (unsigned long long)c->held);
    printf("quantiles: %s\n", m->quantiles_histogram ? QUANTILES_HISTOGRAM : "exact");
    print_intervals(m);
    for (size_t k = 0; k < notes->count; k++)
        printf("note: %s\n", notes->note[k].message);
}

/* A stream's overshoot quantiles (the streams array; the run's own come
 * from the metric table). */
static void put_quantiles(yajl_gen g, const char *key, const gar_replay_quantiles *q)
{
    gar_json_key(g, key);
    yajl_gen_map_open(g);
    gar_json_u64(g, "p50", q->p50);
    gar_json_u64(g, "p90", q->p90);
    gar_json_u64(g, "p99", q->p99);
    gar_json_u64(g, "max", q->max);
    yajl_gen_map_close(g);
}

/* A metric's JSON value by its TYPE: a count, or a fraction to six decimals. */
static void json_value_COUNT(yajl_gen g, const char *key, uint64_t v)
{
    gar_json_u64(g, key, v);
}

static void json_value_FRACTION(yajl_gen g, const char *key, double v)
{
    char text[32];
    int n = snprintf(text, sizeof text, "%.6f", v);
    gar_json_key(g, key);
    yajl_gen_number(g, text, (size_t)n);
}

/* Opens the object of `group` for its first member ("" alone: none),
 * closing the one open before it.  Returns the group now open. */
static const char *json_group(yajl_gen g, const char *open, const char *group)
{
    if (open != NULL && strcmp(open, group) == 0)
        return open;
    if (open != NULL && open[0] != '\0')
        yajl_gen_map_close(g);
    if (group[0] != '\0') {
        gar_json_key(g, group);
        yajl_gen_map_open(g);
    }
    return group;
}

/* The metrics that --json has (GAR_METRIC_JSON), in the table's order: a
 * metric alone under its name, a group's members in one object. */
static void put_metrics(yajl_gen g, const gar_replay_metrics *m)
{
    const char *open = NULL;
#define JSON_METRIC(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...)                                   \
    if (GAR_METRIC_USES(__VA_ARGS__) & GAR_METRIC_JSON) {                                          \
        open = json_group(g, open, GROUP);                                                         \
        json_value_##TYPE(g, (GROUP)[0] != '\0' ? MEMBER : #NAME UNIT, m->FIELD);                  \
    }
    GAR_REPLAY_METRICS(JSON_METRIC, JSON_METRIC)
#undef JSON_METRIC
    json_group(g, open, "");
}

/* An interval's end, null when absent. */
static void put_end(yajl_gen g, const char *key, bool present, gar_dur_ns v)
{
    if (present) {
        gar_json_u64(g, key, v);
    } else {
        gar_json_key(g, key);
        yajl_gen_null(g);
    }
}

/* Every quantile's interval, an object per group: "overshoot_ci_ns":
 * {"p50": {"lo": N, "hi": N}, ...}, an absent end as null. */
static void put_intervals(yajl_gen g, const gar_replay_metrics *m)
{
    const char *open = NULL;
#define NOT_A_QUANTILE(...)
#define JSON_INTERVAL(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES, CI, CI_GROUP, LEVEL_PPM, OVER) \
    open = json_group(g, open, CI_GROUP);                                                          \
    gar_json_key(g, MEMBER);                                                                       \
    yajl_gen_map_open(g);                                                                          \
    put_end(g, "lo", m->CI.has_lo, m->CI.lo);                                                      \
    put_end(g, "hi", m->CI.has_hi, m->CI.hi);                                                      \
    yajl_gen_map_close(g);
    GAR_REPLAY_METRICS(NOT_A_QUANTILE, JSON_INTERVAL)
#undef JSON_INTERVAL
#undef NOT_A_QUANTILE
    json_group(g, open, "");
}

int gar_cli_replay_print_json(const gar_cli_replay_run *a, const char *plan_label,
                              const char *est_label, const gar_replay_metrics *m,
                              const gar_replay_streams *streams, const gar_replay_notes *notes)
{
    yajl_gen g = yajl_gen_alloc(NULL);
    if (g == NULL)
        return GAR_EXIT_FAILED;
    yajl_gen_map_open(g);
    put_metrics(g, m);
    if (m->auto_counts.waits > 0) {
        gar_json_key(g, "auto");
        yajl_gen_map_open(g);
        gar_json_u64(g, "block", m->auto_counts.block);
        gar_json_u64(g, "poll", m->auto_counts.poll);
        gar_json_u64(g, "flag", m->auto_counts.flag);
        gar_json_u64(g, "sleeps", m->auto_counts.sleeps);
        gar_json_u64(g, "late", m->auto_counts.late);
        gar_json_u64(g, "over_budget", m->auto_counts.over_budget);
        gar_json_u64(g, "over_budget_waits", m->auto_over_budget_waits);
        gar_json_u64(g, "held", m->auto_counts.held);
        yajl_gen_map_close(g);
    }
    gar_json_text(g, "plan", plan_label);
    gar_json_text(g, "estimator", est_label);
    gar_json_text(g, "host", a->host);
    gar_json_text(g, "mode", a->mode);
    gar_json_u64(g, "seed", a->seed);
    gar_json_text(g, "trace", a->trace);
    /* The intervals and notes: added after the keys that were there before
     * them, which read as they always have. */
    char level[32];
    int n = snprintf(level, sizeof level, "%g", m->ci_level);
    gar_json_key(g, "ci_level");
    yajl_gen_number(g, level, (size_t)n);
    put_intervals(g, m);
    /* Only where it is so: an exact run reads as it always has. */
    if (m->quantiles_histogram)
        gar_json_text(g, "quantiles", QUANTILES_HISTOGRAM);
    gar_json_key(g, "notes");
    yajl_gen_array_open(g);
    for (size_t k = 0; k < notes->count; k++) {
        const gar_replay_note *note = &notes->note[k];
        yajl_gen_map_open(g);
        gar_json_text(g, "note", note->name);
        gar_json_u64(g, "count", note->count);
        if (note->has_worst)
            gar_json_u64(g, "worst_ns", note->worst_ns);
        else {
            gar_json_key(g, "worst_ns");
            yajl_gen_null(g);
        }
        gar_json_text(g, "message", note->message);
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    /* Last, so the keys before it read as they always have. */
    gar_json_key(g, "streams");
    yajl_gen_array_open(g);
    for (size_t k = 0; k < streams->count; k++) {
        const gar_replay_stream *s = &streams->stream[k];
        yajl_gen_map_open(g);
        gar_json_u64(g, "stream", s->stream);
        gar_json_u64(g, "waits", s->waits);
        put_quantiles(g, "overshoot_ns", &s->overshoot_ns);
        gar_json_u64(g, "busy_ns", s->busy_ns);
        yajl_gen_map_close(g);
    }
    yajl_gen_array_close(g);
    yajl_gen_map_close(g);
    const unsigned char *buf;
    size_t len;
    int status = yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok ? GAR_EXIT_OK
                                                                        : GAR_EXIT_FAILED;
    if (status == GAR_EXIT_OK)
        printf("%.*s\n", (int)len, (const char *)buf);
    yajl_gen_free(g);
    return status;
}
