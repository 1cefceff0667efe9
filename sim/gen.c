/* sim/gen.c — the synthetic trace kinds (see gen.h for the model). */
#define _POSIX_C_SOURCE 200809L

#include "sim/gen.h"

#include "sim/gen_source.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/prng.h"

#define US_MAX GAR_GEN_US_MAX

/* Every table starts with the two host-loop parameters, in this order. */
enum { P_LAUNCH = GAR_GEN_P_LAUNCH, P_GAP = GAR_GEN_P_GAP, P_KIND0 = GAR_GEN_P_KIND0 };
#define HOST_PARAMS                                                                          \
    { "launch_us", 30, 0, US_MAX, false, "host time from enqueue to the wait's start" },     \
    { "gap_us", 100, 0, US_MAX, false, "host time from the wake to the next enqueue" }

static const gar_gen_param steady_params[] = {
    HOST_PARAMS,
    { "residual_us", 2000, 0, US_MAX, false, "time from the wait's start to done" },
};
enum { STEADY_RESIDUAL = P_KIND0 };

static const gar_gen_param jitter_params[] = {
    HOST_PARAMS,
    { "mean_us", 2000, 0, US_MAX, false, "mean residual" },
    { "sd_us", 200, 0, US_MAX, false, "standard deviation of the residual" },
};
enum { JITTER_MEAN = P_KIND0, JITTER_SD };

static const gar_gen_param bimodal_params[] = {
    HOST_PARAMS,
    { "prefill_us", 20000, 0, US_MAX, false, "residual of a prefill step (point 1)" },
    { "decode_us", 2000, 0, US_MAX, false, "residual of a decode step (point 2)" },
    { "prefill_p", 0.1, 0, 1, false, "chance that a step is a prefill" },
    { "sd_us", 50, 0, US_MAX, false, "standard deviation around either residual" },
};
enum { BIMODAL_PREFILL = P_KIND0, BIMODAL_DECODE, BIMODAL_P, BIMODAL_SD };

static const gar_gen_param drift_params[] = {
    HOST_PARAMS,
    { "base_us", 1000, 0, US_MAX, false, "residual at the start of each ramp" },
    { "step_us", 10, 0, US_MAX, false, "growth of the residual per wait" },
    { "period", 200, 1, 1e9, true, "waits per ramp before the residual jumps back" },
    { "sd_us", 20, 0, US_MAX, false, "standard deviation around the ramp" },
};
enum { DRIFT_BASE = P_KIND0, DRIFT_STEP, DRIFT_PERIOD, DRIFT_SD };

static const gar_gen_param decode_params[] = {
    HOST_PARAMS,
    { "base_us", 1000, 0, US_MAX, false, "residual of a step, before its rows" },
    { "per_row_us", 25, 0, US_MAX, false, "residual added per row of the batch" },
    { "rows_min", 1, 1, UINT32_MAX, true, "rows of a fresh batch" },
    { "rows_max", 64, 1, UINT32_MAX, true, "rows at which the batch drains" },
    { "grow_p", 0.5, 0, 1, false, "chance that the batch gains a row each step" },
    { "sd_us", 20, 0, US_MAX, false, "standard deviation of the residual" },
};
enum { DECODE_BASE = P_KIND0, DECODE_PER_ROW, DECODE_ROWS_MIN, DECODE_ROWS_MAX, DECODE_GROW,
       DECODE_SD };

static const gar_gen_param shift_params[] = {
    HOST_PARAMS,
    { "mean_us", 2000, 0, US_MAX, false, "mean residual outside the shifted stretch" },
    { "sd_us", 100, 0, US_MAX, false, "standard deviation of the residual, likewise" },
    { "factor", 0.2, 0.001, 1000, false, "what the stretch multiplies the residual by" },
    { "shift_at", 3000, 0, 1e9, true, "the first wait of the stretch (0-based)" },
    { "shift_waits", 3000, 0, 1e9, true, "waits in the stretch; then it shifts back" },
};
enum { SHIFT_MEAN = P_KIND0, SHIFT_SD, SHIFT_FACTOR, SHIFT_AT, SHIFT_WAITS };

static const gar_gen_param queue_params[] = {
    { "launch_us", 5, 0, US_MAX, false, "host time of one kernel launch" },
    { "gap_us", 200, 0, US_MAX, false, "host time from a step's last kernel to the next step" },
    { "kernels", 48, 1, 4096, true, "kernels in a step's program" },
    { "names", 12, 1, 4096, true, "distinct kernel names (points) in the program" },
    { "short_us", 8, 0, US_MAX, false, "typical length of a short kernel" },
    { "long_us", 300, 0, US_MAX, false, "typical length of a long kernel" },
    { "short_p", 0.6, 0, 1, false, "chance that a kernel name is short" },
    { "sd", 0.25, 0, 4, false, "log-normal spread of one run around its name's length" },
    { "tail_p", 0.01, 0, 1, false, "chance that a run is a straggler (Pareto, from 2x)" },
    { "burst_p", 0.1, 0, 1, false, "chance that a step is a burst" },
    { "burst_steps", 4, 1, 16, true, "programs a burst launches before the host waits" },
    { "stall_p", 0.01, 0, 1, false, "chance that the host stalls before a launch" },
    { "stall_us", 1000, 0, US_MAX, false, "mean length of a host stall (exponential)" },
};

static const gar_gen_param mix_params[] = {
    { "launch_us", 30, 0, US_MAX, false, "host time from enqueue to the wait's start (loops)" },
    { "gap_us", 100, 0, US_MAX, false, "host time from the wake to the next enqueue (loops)" },
    { "queues", 1, 0, GAR_GEN_MIX_SOURCES, true, "streams that run the queue kind" },
    { "loops", 2, 0, GAR_GEN_MIX_SOURCES, true,
      "streams that run a loop kind (decode, bimodal, jitter, drift, shift in turn)" },
    { "scale_sd", 0.5, 0, 3, false, "log-normal spread of each stream's time scale" },
};

#define TABLE(t) { t, sizeof t / sizeof t[0] }
static const struct {
    const char *name;
    struct {
        const gar_gen_param *param;
        size_t count;
    } table;
} kinds[GAR_GEN_KIND_COUNT] = {
    [GAR_GEN_STEADY] = { "steady", TABLE(steady_params) },
    [GAR_GEN_JITTER] = { "jitter", TABLE(jitter_params) },
    [GAR_GEN_BIMODAL] = { "bimodal", TABLE(bimodal_params) },
    [GAR_GEN_DRIFT] = { "drift", TABLE(drift_params) },
    [GAR_GEN_DECODE] = { "decode", TABLE(decode_params) },
    [GAR_GEN_SHIFT] = { "shift", TABLE(shift_params) },
    [GAR_GEN_QUEUE] = { "queue", TABLE(queue_params) },
    [GAR_GEN_MIX] = { "mix", TABLE(mix_params) },
};

const char *gar_gen_kind_name(gar_gen_kind kind)
{
    return (unsigned)kind < GAR_GEN_KIND_COUNT ? kinds[kind].name : NULL;
}

const char *gar_gen_kind_names(void)
{
    return "steady, jitter, bimodal, drift, decode, shift, queue, mix";
}

int gar_gen_kind_parse(const char *text, gar_gen_kind *out, gar_error *err)
{
    if (text == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_gen_kind_parse",
                             text == NULL ? "text" : "out", "is NULL");
    for (int k = 0; k < GAR_GEN_KIND_COUNT; k++) {
        if (strcmp(text, kinds[k].name) == 0) {
            *out = (gar_gen_kind)k;
            return 0;
        }
    }
    char what[GAR_ERROR_ARG_BYTES];
    snprintf(what, sizeof what, "is not a kind (kinds: %s)", gar_gen_kind_names());
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", text, what);
}

const gar_gen_param *gar_gen_params(gar_gen_kind kind, size_t *count)
{
    if ((unsigned)kind >= GAR_GEN_KIND_COUNT) {
        if (count != NULL)
            *count = 0;
        return NULL;
    }
    if (count != NULL)
        *count = kinds[kind].table.count;
    return kinds[kind].table.param;
}

gar_gen_spec gar_gen_spec_default(gar_gen_kind kind)
{
    gar_gen_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.kind = kind;
    size_t n;
    const gar_gen_param *p = gar_gen_params(kind, &n);
    for (size_t i = 0; i < n; i++)
        spec.value[i] = p[i].fallback;
    return spec;
}

/* Checks one value against its row of the table; `what` gets the fault. */
static bool value_fits(const gar_gen_param *p, double v, char *what, size_t size)
{
    if (!(v >= p->min && v <= p->max)) {
        snprintf(what, size, "is out of bounds (%s is %.15g to %.15g)", p->name, p->min, p->max);
        return false;
    }
    if (p->integer && v != floor(v)) {
        snprintf(what, size, "is not a whole number (%s counts)", p->name);
        return false;
    }
    return true;
}

int gar_gen_spec_set(gar_gen_spec *spec, const char *assignment, gar_error *err)
{
    if (spec == NULL || assignment == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_gen_spec_set",
                             spec == NULL ? "spec" : "assignment", "is NULL");
    size_t n;
    const gar_gen_param *p = gar_gen_params(spec->kind, &n);
    const char *eq = strchr(assignment, '=');
    char what[GAR_ERROR_ARG_BYTES];
    if (eq == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", assignment,
                             "is not key=value");
    size_t key_len = (size_t)(eq - assignment);
    for (size_t i = 0; i < n; i++) {
        if (strlen(p[i].name) != key_len || memcmp(p[i].name, assignment, key_len) != 0)
            continue;
        const char *text = eq + 1;
        char *end = NULL;
        errno = 0;
        double v = strtod(text, &end);
        /* Only plain decimals: strtod also takes hex, inf and nan, which
         * nobody means in a parameter. */
        bool plain = *text != '\0' && strspn(text, "0123456789.eE+-") == strlen(text);
        if (!plain || end == text || *end != '\0' || errno == ERANGE)
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", assignment,
                                 "is not a decimal number");
        if (!value_fits(&p[i], v, what, sizeof what))
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", assignment, what);
        spec->value[i] = v;
        return 0;
    }
    size_t at = (size_t)snprintf(what, sizeof what, "names no parameter of %s (parameters:",
                                 gar_gen_kind_name(spec->kind));
    for (size_t i = 0; i < n && at < sizeof what; i++)
        at += (size_t)snprintf(what + at, sizeof what - at, " %s", p[i].name);
    if (at < sizeof what)
        snprintf(what + at, sizeof what - at, ")");
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", assignment, what);
}

int gar_gen_spec_set_once(gar_gen_spec *spec, unsigned *given, const char *assignment,
                          gar_error *err)
{
    if (given == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_gen_spec_set_once", "given",
                             "is NULL");
    if (spec == NULL || assignment == NULL)
        return gar_gen_spec_set(spec, assignment, err); /* its refusal */
    size_t n;
    const gar_gen_param *p = gar_gen_params(spec->kind, &n);
    size_t key_len = strcspn(assignment, "=");
    size_t i = 0;
    while (i < n && (strlen(p[i].name) != key_len || memcmp(p[i].name, assignment, key_len) != 0))
        i++;
    /* Checked before setting, so a refused repeat leaves the first value. */
    if (i < n && (*given & (1u << i)))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", assignment,
                             "sets a parameter given before (give each once)");
    int rc = gar_gen_spec_set(spec, assignment, err);
    if (rc == 0 && i < n)
        *given |= 1u << i;
    return rc;
}

size_t gar_gen_spec_label(const gar_gen_spec *spec, char *buf, size_t size)
{
    size_t n, len = 0;
    const gar_gen_param *p = gar_gen_params(spec->kind, &n);
    if (size > 0)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char item[96];
        int m = snprintf(item, sizeof item, "%s%s=%.15g", i == 0 ? "" : " ", p[i].name,
                         spec->value[i]);
        if (m > 0 && len + (size_t)m < size)
            memcpy(buf + len, item, (size_t)m + 1);
        len += m > 0 ? (size_t)m : 0;
    }
    return len;
}

/* Microseconds to whole nanoseconds; negative draws become 0. */
uint64_t gar_gen_us_to_ns(double us)
{
    double ns = us * 1000.0;
    return ns <= 0.0 ? 0 : (uint64_t)(ns + 0.5);
}

int gar_gen_refuse_time(gar_error *err)
{
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", "--waits",
                         "makes a trace longer than 2^63 ns; use fewer waits or shorter steps");
}

/* ---- the single-loop kinds ---------------------------------------------- */

static double noise(gar_gen_loop *st, double sd)
{
    /* sd 0 draws nothing, so noiseless kinds are exact and cheap. */
    return sd > 0.0 ? sd * gar_prng_normal(&st->prng) : 0.0;
}

/* One step's residual (µs) and row count; advances the kind's state. */
static double next_residual(gar_gen_loop *st, gar_trace_row *row)
{
    const double *v = st->spec.value;
    row->point = 1;
    switch (st->spec.kind) {
    case GAR_GEN_STEADY:
        return v[STEADY_RESIDUAL];
    case GAR_GEN_JITTER:
        return v[JITTER_MEAN] + noise(st, v[JITTER_SD]);
    case GAR_GEN_BIMODAL: {
        bool prefill = gar_prng_uniform(&st->prng) < v[BIMODAL_P];
        row->point = prefill ? 1 : 2;
        return (prefill ? v[BIMODAL_PREFILL] : v[BIMODAL_DECODE]) + noise(st, v[BIMODAL_SD]);
    }
    case GAR_GEN_DRIFT: {
        uint64_t along = st->index % (uint64_t)v[DRIFT_PERIOD];
        return v[DRIFT_BASE] + v[DRIFT_STEP] * (double)along + noise(st, v[DRIFT_SD]);
    }
    case GAR_GEN_DECODE: {
        if (st->index == 0 || st->step_rows >= (uint32_t)v[DECODE_ROWS_MAX])
            st->step_rows = (uint32_t)v[DECODE_ROWS_MIN];
        else if (gar_prng_uniform(&st->prng) < v[DECODE_GROW])
            st->step_rows++;
        row->step_rows = st->step_rows;
        return v[DECODE_BASE] + v[DECODE_PER_ROW] * st->step_rows + noise(st, v[DECODE_SD]);
    }
    case GAR_GEN_SHIFT: {
        double r = v[SHIFT_MEAN] + noise(st, v[SHIFT_SD]);
        uint64_t from = (uint64_t)v[SHIFT_AT];
        bool shifted = st->index >= from && st->index - from < (uint64_t)v[SHIFT_WAITS];
        return shifted ? r * v[SHIFT_FACTOR] : r;
    }
    case GAR_GEN_QUEUE:
    case GAR_GEN_MIX:
    case GAR_GEN_KIND_COUNT:
        break;
    }
    return 0.0;
}

void gar_gen_loop_init(gar_gen_loop *loop, const gar_gen_spec *spec, uint64_t seed)
{
    *loop = (gar_gen_loop){ .spec = *spec, .prng = gar_prng_seeded(seed) };
}

int gar_gen_loop_next(gar_gen_loop *loop, gar_trace_row *row, gar_error *err)
{
    uint64_t launch = gar_gen_us_to_ns(loop->spec.value[P_LAUNCH]);
    uint64_t gap = gar_gen_us_to_ns(loop->spec.value[P_GAP]);
    *row = (gar_trace_row){ 0, 0, 0, 0, 0, 0 };
    double residual = next_residual(loop, row);
    uint64_t r = gar_gen_us_to_ns(residual < US_MAX ? residual : US_MAX);
    /* Each step adds at most launch + residual + gap, each at most 10^12 ns,
     * so checking the running time against the limit before each step keeps
     * every sum far from wrapping. */
    if (loop->submit > GAR_TRACE_TIME_MAX - launch - r - gap)
        return gar_gen_refuse_time(err);
    row->submit_ns = loop->submit;
    row->start_ns = loop->submit + launch;
    row->done_ns = row->start_ns + r;
    loop->submit = row->done_ns + gap;
    loop->index++;
    return 0;
}

/* Refuses a spec or count gar_gen_each would not generate: 0 or
 * -GAR_E_INVALID_ARGUMENT. */
int gar_gen_check_spec(const gar_gen_spec *spec, uint64_t waits, gar_error *err)
{
    size_t n;
    const gar_gen_param *p = gar_gen_params(spec->kind, &n);
    if (p == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_gen_run", "spec",
                             "has no such kind");
    char what[GAR_ERROR_ARG_BYTES];
    for (size_t i = 0; i < n; i++)
        if (!value_fits(&p[i], spec->value[i], what, sizeof what))
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", p[i].name, what);
    const double *v = spec->value;
    if (spec->kind == GAR_GEN_DECODE && v[DECODE_ROWS_MIN] > v[DECODE_ROWS_MAX])
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", "rows_min",
                             "is above rows_max");
    if (spec->kind == GAR_GEN_MIX) {
        double parts = v[GAR_GEN_MIX_QUEUES] + v[GAR_GEN_MIX_LOOPS];
        if (parts < 1 || parts > GAR_GEN_MIX_SOURCES)
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", "queues + loops",
                                 "must be 1 to 16 streams");
    }
    if (waits == 0 || waits > GAR_GEN_WAITS_MAX) {
        snprintf(what, sizeof what, "must be 1 to %llu", (unsigned long long)GAR_GEN_WAITS_MAX);
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gen", "--waits", what);
    }
    return 0;
}

