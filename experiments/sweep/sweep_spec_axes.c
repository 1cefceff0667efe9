/* experiments/sweep/sweep_spec_axes.c — a spec's lines onto its axes
 * (sweep_spec_axes.h): traces, plans, estimators, hosts, modes and seeds,
 * each value checked for repeats in constant time. */
#include "sweep/sweep_spec_axes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/alloc.h"
#include "sweep/sweep_spec_common.h"

/* Makes room for element `count` of an array of `count` (zeroed).  The
 * capacity, implicit, is the least power of two above count - 1: it doubles
 * when full, so n elements cost O(n) copying in all, not O(n^2).  False
 * when memory runs out (the array is as it was). */
static bool grow(void **array, size_t count, size_t size)
{
    if (count == 0 || (count & (count - 1)) == 0) {
        size_t capacity = count == 0 ? 1 : 2 * count;
        if (capacity > SIZE_MAX / size)
            return false;
        void *bigger = gar_realloc(*array, capacity * size);
        if (bigger == NULL)
            return false;
        *array = bigger;
    }
    memset((char *)*array + count * size, 0, size);
    return true;
}

const char *const gar_spec_axis_keyword[GAR_SPEC_AXES] = { "trace", "plan", "estimator",
                                                          "host",  "mode", "seed" };

/* Whether the element at `index` of an axis equals the key. */
static bool same_trace(size_t index, const void *key, void *context)
{
    return strcmp(((const gar_sweep_spec *)context)->traces[index].hash, key) == 0;
}

static bool same_plan(size_t index, const void *key, void *context)
{
    return strcmp(((const gar_sweep_spec *)context)->plans[index].label, key) == 0;
}

static bool same_estimator(size_t index, const void *key, void *context)
{
    return strcmp(((const gar_sweep_spec *)context)->estimators[index].label, key) == 0;
}

static bool same_host(size_t index, const void *key, void *context)
{
    return strcmp(((const gar_sweep_spec *)context)->hosts[index].hash, key) == 0;
}

static bool same_seed(size_t index, const void *key, void *context)
{
    return ((const gar_sweep_spec *)context)->seeds[index] == *(const uint64_t *)key;
}

/* An axis's value already added with this key (its index into `*other`):
 * found in constant time, so checking n values for repeats is O(n). */
static bool seen_before(parse_state *s, int axis, const void *key, uint64_t hash,
                        gar_index_set_same_fn same, size_t *other)
{
    return gar_index_set_find(&s->seen[axis], hash, key, same, s->spec, other);
}

/* Remembers the value just added at `index` under its key's hash. */
static int remember(parse_state *s, int axis, uint64_t hash, size_t index)
{
    return gar_index_set_add(&s->seen[axis], hash, index) == 0 ? 0 : -1;
}

uint64_t gar_spec_text_hash(const char *text)
{
    return gar_index_set_hash_bytes(text, strlen(text));
}

static int duplicate(parse_state *s, const char *keyword, const char *value, unsigned other_line,
                     const char *how)
{
    char fault[GAR_ERROR_ARG_BYTES];
    snprintf(fault, sizeof fault, "'%s' %s the one on line %u (a run would repeat)", value, how,
             other_line);
    return gar_spec_fault(s->err, s->file, s->line, keyword, fault);
}

static int add_trace(parse_state *s, const char *value)
{
    gar_sweep_spec *spec = s->spec;
    gar_sweep_trace t;
    int rc = gar_sweep_trace_load(value, s->base_dir, &t, s->err);
    if (rc < 0)
        return gar_spec_located(s->err, rc, s->file, s->line);
    t.line = s->line;
    t.params = *s->params;
    uint64_t hash = gar_spec_text_hash(t.hash);
    size_t i;
    if (seen_before(s, AXIS_TRACE, t.hash, hash, same_trace, &i)) {
        unsigned other = spec->traces[i].line;
        gar_sweep_trace_free(&t);
        return duplicate(s, "trace", value, other, "has the same content as");
    }
    if (!grow((void **)&spec->traces, spec->trace_count, sizeof t)) {
        gar_sweep_trace_free(&t);
        return gar_spec_out_of_memory(s->err);
    }
    spec->traces[spec->trace_count++] = t;
    if (remember(s, AXIS_TRACE, hash, spec->trace_count - 1) < 0)
        return gar_spec_out_of_memory(s->err);
    return 0;
}

static int add_plan(parse_state *s, const char *value, bool bands)
{
    gar_sweep_spec *spec = s->spec;
    gar_sweep_plan p;
    memset(&p, 0, sizeof p);
    p.line = s->line;
    p.params = *s->params;
    int rc;
    if (bands) {
        rc = gar_bands_parse(value, &p.bands, s->err);
    } else {
        p.bands.count = 1;
        rc = gar_plan_parse(value, &p.bands.band[0].plan, s->err);
    }
    if (rc < 0)
        return gar_spec_located(s->err, rc, s->file, s->line);
    gar_bands_label(&p.bands, p.label, sizeof p.label);
    uint64_t hash = gar_spec_text_hash(p.label);
    size_t i;
    if (seen_before(s, AXIS_PLAN, p.label, hash, same_plan, &i))
        return duplicate(s, bands ? "bands" : "plan", value, spec->plans[i].line, "repeats");
    if (!grow((void **)&spec->plans, spec->plan_count, sizeof p))
        return gar_spec_out_of_memory(s->err);
    spec->plans[spec->plan_count++] = p;
    if (remember(s, AXIS_PLAN, hash, spec->plan_count - 1) < 0)
        return gar_spec_out_of_memory(s->err);
    return 0;
}

static int add_estimator(parse_state *s, const char *value)
{
    gar_sweep_spec *spec = s->spec;
    gar_sweep_estimator e;
    memset(&e, 0, sizeof e);
    e.line = s->line;
    e.params = *s->params;
    int rc = gar_estimator_spec_parse(value, &e.spec, s->err);
    if (rc < 0)
        return gar_spec_located(s->err, rc, s->file, s->line);
    gar_estimator_spec_label(&e.spec, e.label, sizeof e.label);
    uint64_t hash = gar_spec_text_hash(e.label);
    size_t i;
    if (seen_before(s, AXIS_ESTIMATOR, e.label, hash, same_estimator, &i))
        return duplicate(s, "estimator", value, spec->estimators[i].line, "is the same as");
    if (!grow((void **)&spec->estimators, spec->estimator_count, sizeof e))
        return gar_spec_out_of_memory(s->err);
    spec->estimators[spec->estimator_count++] = e;
    return remember(s, AXIS_ESTIMATOR, hash, spec->estimator_count - 1) < 0
               ? gar_spec_out_of_memory(s->err)
               : 0;
}

static int add_host(parse_state *s, const char *value)
{
    gar_sweep_spec *spec = s->spec;
    gar_sweep_host h;
    int rc = gar_spec_host_load(value, s->base_dir, s->file, s->line, s->from_stdin, &h, s->err);
    if (rc < 0)
        return rc == -GAR_E_INVALID_HOST_PROFILE && strchr(value, '@') != NULL &&
                       s->err != NULL && strstr(s->err->argv[2], "what-if") != NULL
                   ? rc /* a what-if refusal names the spec's place already */
                   : gar_spec_located(s->err, rc, s->file, s->line);
    h.line = s->line;
    h.params = *s->params;
    uint64_t hash = gar_spec_text_hash(h.hash);
    size_t i;
    if (seen_before(s, AXIS_HOST, h.hash, hash, same_host, &i)) {
        unsigned other = spec->hosts[i].line;
        gar_spec_host_free(&h);
        return duplicate(s, "host", value, other, "has the same profile as");
    }
    if (!grow((void **)&spec->hosts, spec->host_count, sizeof h)) {
        gar_spec_host_free(&h);
        return gar_spec_out_of_memory(s->err);
    }
    spec->hosts[spec->host_count++] = h;
    if (remember(s, AXIS_HOST, hash, spec->host_count - 1) < 0)
        return gar_spec_out_of_memory(s->err);
    return 0;
}

static int add_mode(parse_state *s, const char *value)
{
    gar_sweep_spec *spec = s->spec;
    int mode = gar_replay_mode_from_name(value);
    if (mode < 0) {
        char fault[GAR_ERROR_ARG_BYTES];
        snprintf(fault, sizeof fault, "'%s' is neither open nor closed", value);
        return gar_spec_fault(s->err, s->file, s->line, "mode", fault);
    }
    for (size_t i = 0; i < spec->mode_count; i++)
        if (spec->modes[i] == (gar_replay_mode)mode)
            return duplicate(s, "mode", value, s->first_line[AXIS_MODE], "repeats");
    spec->modes[spec->mode_count++] = (gar_replay_mode)mode;
    return 0;
}

static int add_seed(parse_state *s, const char *value)
{
    gar_sweep_spec *spec = s->spec;
    unsigned long long seed;
    if (gar_spec_parse_whole(value, &seed) < 0 || seed > GAR_SWEEP_SEED_MAX) {
        char fault[GAR_ERROR_ARG_BYTES];
        snprintf(fault, sizeof fault, "'%s' is not a whole number from 0 to 2^63-1", value);
        return gar_spec_fault(s->err, s->file, s->line, "seed", fault);
    }
    uint64_t key = seed, hash = gar_index_set_hash_u64(key);
    size_t i;
    if (seen_before(s, AXIS_SEED, &key, hash, same_seed, &i))
        return duplicate(s, "seed", value, s->first_line[AXIS_SEED], "repeats");
    if (!grow((void **)&spec->seeds, spec->seed_count, sizeof *spec->seeds))
        return gar_spec_out_of_memory(s->err);
    spec->seeds[spec->seed_count++] = seed;
    if (remember(s, AXIS_SEED, hash, spec->seed_count - 1) < 0)
        return gar_spec_out_of_memory(s->err);
    return 0;
}

typedef struct add_context {
    parse_state *s;
    int axis;
    bool bands;
} add_context;

/* One expanded value onto its axis. */
static int add_value(const char *value, const gar_sweep_params *params, void *context)
{
    add_context *c = context;
    parse_state *s = c->s;
    s->params = params;
    switch (c->axis) {
    case AXIS_TRACE:
        return add_trace(s, value);
    case AXIS_PLAN:
        return add_plan(s, value, c->bands);
    case AXIS_ESTIMATOR:
        return add_estimator(s, value);
    case AXIS_HOST:
        return add_host(s, value);
    case AXIS_MODE:
        return add_mode(s, value);
    default:
        return add_seed(s, value);
    }
}

/* Notes the brace groups of `value` for --dry-run. */
static int record_swept(parse_state *s, const char *value, const char *keyword, const char *place)
{
    gar_sweep_group groups[GAR_SWEEP_PARAMS_MAX];
    size_t n = 0;
    int rc = gar_sweep_groups(value, keyword, place, groups, &n, s->err);
    if (rc < 0)
        return rc;
    gar_sweep_spec *spec = s->spec;
    for (size_t i = 0; i < n; i++) {
        if (!grow((void **)&spec->swept, spec->swept_count, sizeof *spec->swept))
            return gar_spec_out_of_memory(s->err);
        gar_sweep_axis_param *a = &spec->swept[spec->swept_count++];
        memcpy(a->name, groups[i].name, sizeof a->name); /* same size, NUL-terminated */
        a->keyword = keyword;
        a->line = s->line;
        a->values = groups[i].values;
    }
    return 0;
}

/* a + b, at most GAR_SWEEP_RUNS_MAX + 1. */
uint64_t gar_spec_capped_sum(uint64_t a, uint64_t b)
{
    return a > GAR_SWEEP_RUNS_MAX + 1 - b || b > GAR_SWEEP_RUNS_MAX + 1 ? GAR_SWEEP_RUNS_MAX + 1
                                                                          : a + b;
}

/* a * b, at most GAR_SWEEP_RUNS_MAX + 1. */
uint64_t gar_spec_capped_product(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > (GAR_SWEEP_RUNS_MAX + 1) / b ? GAR_SWEEP_RUNS_MAX + 1 : a * b;
}

/* One "KEYWORD VALUE..." line, already split into NUL-terminated words. */
int gar_spec_parse_line(parse_state *s, char **word, size_t words)
{
    const char *keyword = word[0];
    int axis = -1;
    bool bands = false;
    for (int a = 0; a <= AXIS_SEED; a++)
        if (strcmp(keyword, gar_spec_axis_keyword[a]) == 0)
            axis = a;
    if (strcmp(keyword, "bands") == 0) {
        axis = AXIS_PLAN;
        bands = true;
    }
    /* The counting pass leaves the line's own faults to the second pass,
     * which meets them in the order they come. */
    bool counting = s->pass == PASS_COUNT;
    if (axis < 0)
        return counting ? 0
                        : gar_spec_fault(s->err, s->file, s->line, keyword,
                                         "is no keyword (trace, plan, bands, estimator, host, "
                                         "mode, seed)");
    if (words < 2)
        return counting ? 0 : gar_spec_fault(s->err, s->file, s->line, keyword, "has no value");
    keyword = bands ? "bands" : gar_spec_axis_keyword[axis]; /* static: the swept list keeps it */
    if (s->first_line[axis] == 0)
        s->first_line[axis] = s->line;
    char place[GAR_ERROR_ARG_BYTES];
    snprintf(place, sizeof place, "%s:%u", s->file, s->line);
    for (size_t i = 1; i < words; i++) {
        if (counting) {
            uint64_t n = 0;
            int rc = gar_sweep_expand(word[i], keyword, place, NULL, NULL, &n, s->err);
            if (rc < 0)
                return rc;
            s->counts[axis] = gar_spec_capped_sum(s->counts[axis], n);
            if (axis == AXIS_PLAN) {
                /* A plan sleeps to a prediction exactly when its text says
                 * "+predict" (in any band): counted without expanding. */
                uint64_t predict = 0;
                rc = gar_sweep_count_holding(word[i], keyword, place, "+predict", &predict,
                                             s->err);
                if (rc < 0)
                    return rc;
                s->predict_plans = gar_spec_capped_sum(s->predict_plans, predict);
            }
            if (n > 1 || strchr(word[i], '{') != NULL) {
                rc = record_swept(s, word[i], keyword, place);
                if (rc < 0)
                    return rc;
            }
            continue;
        }
        if (s->pass == PASS_ADD_PLAIN && strchr(word[i], '{') != NULL)
            continue; /* a size only: counted, not expanded */
        add_context c = { s, axis, bands };
        int rc = gar_sweep_expand(word[i], keyword, place, add_value, &c, NULL, s->err);
        if (rc < 0)
            return rc;
    }
    return 0;
}
