/* experiments/sweep/sweep_spec.c — reading a sweep spec as a whole: its
 * lines in two passes (counting, then adding), the arms, the checks across
 * axes, and the size of a sweep without loading it.  Each line's values
 * are sweep_spec_axes.c's; what they name is loaded by
 * sweep_spec_sources.c. */
#include "sweep/sweep_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/alloc.h"
#include "sweep/index_set.h"
#include "sweep/sweep_spec_axes.h"
#include "sweep/sweep_spec_common.h"
#include "sweep/sweep_spec_sources.h"

void gar_sweep_spec_free(gar_sweep_spec *spec)
{
    if (spec == NULL)
        return;
    for (size_t i = 0; i < spec->trace_count; i++)
        gar_sweep_trace_free(&spec->traces[i]);
    for (size_t i = 0; i < spec->host_count; i++)
        gar_spec_host_free(&spec->hosts[i]);
    gar_free(spec->traces);
    gar_free(spec->plans);
    gar_free(spec->estimators);
    gar_free(spec->hosts);
    gar_free(spec->seeds);
    gar_free(spec->arms);
    gar_free(spec->swept);
    gar_free(spec->path);
    memset(spec, 0, sizeof *spec);
}

#define VALUES_MAX 256 /* values one line may give */
#define WORDS_MAX (VALUES_MAX + 1)

/* Splits `line` in place into words separated by spaces and tabs. */
static size_t split_words(char *line, char **word)
{
    size_t n = 0;
    char *p = line;
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            break;
        if (n == WORDS_MAX)
            return WORDS_MAX + 1;
        word[n++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t')
            p++;
        if (*p != '\0')
            *p++ = '\0';
    }
    return n;
}

bool gar_sweep_bands_predict(const gar_bands *bands)
{
    for (uint32_t b = 0; b < bands->count; b++)
        if (bands->band[b].plan.predict)
            return true;
    return false;
}

/* The arms: each plan with each estimator, or alone when it has no predict. */
static int make_arms(gar_sweep_spec *spec, gar_error *err)
{
    size_t most = spec->plan_count * spec->estimator_count;
    spec->arms = gar_malloc(most * sizeof *spec->arms);
    if (spec->arms == NULL)
        return gar_spec_out_of_memory(err);
    for (size_t p = 0; p < spec->plan_count; p++) {
        if (!gar_sweep_bands_predict(&spec->plans[p].bands)) {
            spec->arms[spec->arm_count++] = (gar_sweep_arm){ p, GAR_SWEEP_NO_ESTIMATOR };
            continue;
        }
        for (size_t e = 0; e < spec->estimator_count; e++)
            spec->arms[spec->arm_count++] = (gar_sweep_arm){ p, e };
    }
    return 0;
}

/* The axis whose swept parameters a run stores, by keyword; -1 for mode
 * and seed, whose values are columns of their own. */
static int stored_axis(const char *keyword)
{
    if (strcmp(keyword, "bands") == 0)
        return AXIS_PLAN;
    for (int a = AXIS_TRACE; a <= AXIS_HOST; a++)
        if (strcmp(keyword, gar_spec_axis_keyword[a]) == 0)
            return a;
    return -1;
}

/* More runs than a sweep may have: `runs` is a count past the limit. */
static int too_many_runs(gar_error *err, const char *file, uint64_t runs)
{
    char what[GAR_ERROR_ARG_BYTES], cap[64];
    if (runs > GAR_SWEEP_RUNS_MAX + 1)
        snprintf(what, sizeof what, "%s: the sweep's runs (%llu asked)", file,
                 (unsigned long long)runs);
    else
        snprintf(what, sizeof what, "%s: the sweep's runs (more than %llu asked)", file,
                 (unsigned long long)GAR_SWEEP_RUNS_MAX);
    snprintf(cap, sizeof cap, "%llu runs", (unsigned long long)GAR_SWEEP_RUNS_MAX);
    return gar_error_set(err, GAR_E_CAPACITY, 2, what, cap);
}

/* A swept parameter's name on one stored axis, as a key of the index set. */
typedef struct param_on_axis {
    const char *name;
    int axis;
} param_on_axis;

static bool same_param_on_axis(size_t index, const void *key, void *context)
{
    const gar_sweep_axis_param *a = &((const gar_sweep_spec *)context)->swept[index];
    const param_on_axis *k = key;
    return stored_axis(a->keyword) == k->axis && strcmp(a->name, k->name) == 0;
}

static uint64_t param_hash(const char *name, int axis)
{
    return gar_spec_text_hash(name) ^ gar_index_set_hash_u64((uint64_t)axis);
}

/* A run stores the parameters of its trace, plan, estimator and host under
 * their names: one name on two of those axes would be ambiguous.  The first
 * brace group (in spec order) whose name an earlier group on another axis
 * has is refused, naming that earlier one; each group is looked up once. */
static int check_param_names(parse_state *s)
{
    gar_sweep_spec *spec = s->spec;
    gar_index_set first; /* the first group of each name on each axis */
    memset(&first, 0, sizeof first);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < spec->swept_count; i++) {
        const gar_sweep_axis_param *b = &spec->swept[i];
        int axis_b = stored_axis(b->keyword);
        if (axis_b < 0)
            continue;
        size_t earliest = SIZE_MAX, j;
        for (int axis = AXIS_TRACE; axis <= AXIS_HOST; axis++) {
            param_on_axis key = { b->name, axis };
            if (axis != axis_b &&
                gar_index_set_find(&first, param_hash(b->name, axis), &key, same_param_on_axis,
                                   spec, &j) &&
                j < earliest)
                earliest = j;
        }
        if (earliest != SIZE_MAX) {
            const gar_sweep_axis_param *a = &spec->swept[earliest];
            char fault[GAR_ERROR_ARG_BYTES];
            snprintf(fault, sizeof fault,
                     "sweeps parameter '%s', which line %u's %s sweeps too: the runs would "
                     "store two values under one name",
                     b->name, a->line, a->keyword);
            rc = gar_spec_fault(s->err, s->file, b->line, b->keyword, fault);
            break;
        }
        param_on_axis key = { b->name, axis_b };
        uint64_t hash = param_hash(b->name, axis_b);
        if (!gar_index_set_find(&first, hash, &key, same_param_on_axis, spec, &j) &&
            gar_index_set_add(&first, hash, i) < 0)
            rc = gar_spec_out_of_memory(s->err);
    }
    gar_index_set_free(&first);
    return rc;
}

/* The runs the counted axes make, as the spec wrote them (before any
 * repeat is refused): traces x arms x hosts x modes x seeds, where a plan
 * with predict is one arm per estimator and one without is one arm; an
 * axis not given counts 1 (its absence is refused later).  At most
 * GAR_SWEEP_RUNS_MAX + 1. */
static uint64_t counted_runs(const parse_state *s, uint64_t *arms)
{
    uint64_t count[6];
    for (int a = 0; a <= AXIS_SEED; a++)
        count[a] = s->counts[a] == 0 ? 1 : s->counts[a];
    uint64_t predict = s->predict_plans, plain = s->counts[AXIS_PLAN] - predict;
    *arms = gar_spec_capped_sum(plain, gar_spec_capped_product(predict, s->counts[AXIS_ESTIMATOR]));
    uint64_t runs = gar_spec_capped_product(count[AXIS_TRACE], *arms == 0 ? 1 : *arms);
    runs = gar_spec_capped_product(runs, count[AXIS_HOST]);
    runs = gar_spec_capped_product(runs, count[AXIS_MODE]);
    runs = gar_spec_capped_product(runs, count[AXIS_SEED]);
    /* No axis may be longer than the cap either, the estimators included
     * (which no plan may consult): each of its values is read. */
    for (int a = 0; a <= AXIS_SEED; a++)
        if (s->counts[a] > GAR_SWEEP_RUNS_MAX)
            runs = GAR_SWEEP_RUNS_MAX + 1;
    return runs;
}

/* Every axis given at least one value (by the counting pass's counts). */
static int check_axes_given(parse_state *s)
{
    for (int a = 0; a <= AXIS_SEED; a++)
        if (s->counts[a] == 0)
            return gar_spec_fault(s->err, s->file, s->line, gar_spec_axis_keyword[a],
                                  "is missing: every axis needs at least one value");
    return 0;
}

static int check_axes(parse_state *s)
{
    gar_sweep_spec *spec = s->spec;
    int rc = check_axes_given(s);
    if (rc == 0)
        rc = check_param_names(s);
    if (rc == 0)
        rc = make_arms(spec, s->err);
    if (rc < 0)
        return rc;
    size_t factors[5] = { spec->trace_count, spec->arm_count, spec->host_count,
                          spec->mode_count, spec->seed_count };
    uint64_t runs = 1;
    for (int f = 0; f < 5; f++) {
        if (runs > GAR_SWEEP_RUNS_MAX / factors[f])
            runs = GAR_SWEEP_RUNS_MAX + 1;
        else
            runs *= factors[f];
    }
    if (runs > GAR_SWEEP_RUNS_MAX)
        return too_many_runs(s->err, s->file, runs);
    spec->runs = runs;
    return 0;
}

static int parse_lines(parse_state *s, char *text, size_t len)
{
    char *end = text + len;
    char *p = text;
    bool magic_seen = false;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *line_end = nl != NULL ? nl : end;
        s->line++;
        if (memchr(p, '\0', (size_t)(line_end - p)) != NULL)
            return gar_spec_fault(s->err, s->file, s->line, "line", "holds a NUL byte");
        *line_end = '\0';
        if (line_end > p && line_end[-1] == '\r')
            line_end[-1] = '\0';
        if (!magic_seen) {
            if (strcmp(p, GAR_SWEEP_MAGIC) != 0)
                return gar_spec_fault(s->err, s->file, s->line, "header",
                                      "is not 'gar-sweep v1' (the first line names the format)");
            magic_seen = true;
        } else {
            char *hash = strchr(p, '#');
            if (hash != NULL)
                *hash = '\0';
            char *word[WORDS_MAX];
            size_t words = split_words(p, word);
            if (words > WORDS_MAX)
                return gar_spec_fault(s->err, s->file, s->line, word[0], "has over 256 values");
            if (words > 0) {
                int rc = gar_spec_parse_line(s, word, words);
                if (rc < 0)
                    return rc;
            }
        }
        p = line_end + 1;
    }
    if (!magic_seen)
        return gar_spec_fault(s->err, s->file, 1, "header", "is missing: the file is empty");
    if (s->pass == PASS_COUNT)
        return 0;
    if (s->pass == PASS_ADD)
        return check_axes(s);
    int rc = check_axes_given(s);
    return rc < 0 ? rc : check_param_names(s);
}

/* Reads a spec in two passes.  The first counts each axis's values (the
 * ranges expanded in number only, plans with predict told apart by their
 * text), so a sweep over the limit is refused before a value is expanded or
 * a trace generated; the second adds them (`pass` PASS_ADD), or, for a
 * size only (PASS_ADD_PLAIN), only the values without ranges.  `*arms` and
 * `*runs` get the counted arms and runs. */
static int parse_spec(const char *text, size_t len, const char *name, const char *base_dir,
                      int pass, gar_sweep_spec *spec, uint64_t counts[6], uint64_t *arms,
                      uint64_t *runs, gar_error *err)
{
    memset(spec, 0, sizeof *spec);
    char *copy = gar_spec_copy_text(text, len);
    spec->path = gar_spec_copy_text(name, strlen(name));
    if (copy == NULL || spec->path == NULL) {
        gar_free(copy);
        gar_free(spec->path);
        spec->path = NULL;
        return gar_spec_out_of_memory(err);
    }
    parse_state s = {
        .file = name, .base_dir = base_dir, .spec = spec, .err = err, .pass = PASS_COUNT
    };
    int rc = parse_lines(&s, copy, len);
    if (rc == 0) {
        *runs = counted_runs(&s, arms);
        if (*runs > GAR_SWEEP_RUNS_MAX)
            rc = too_many_runs(err, name, *runs);
    }
    if (rc == 0) {
        memcpy(counts, s.counts, sizeof s.counts);
        memcpy(copy, text, len);
        copy[len] = '\0';
        stdin_profile from_stdin = { NULL, 0 };
        parse_state add = { .file = name, .base_dir = base_dir, .spec = spec, .err = err,
                            .pass = pass, .predict_plans = s.predict_plans,
                            .from_stdin = &from_stdin };
        memcpy(add.counts, s.counts, sizeof s.counts);
        rc = parse_lines(&add, copy, len);
        for (int a = 0; a <= AXIS_SEED; a++)
            gar_index_set_free(&add.seen[a]);
        gar_free(from_stdin.text);
    }
    gar_free(copy);
    if (rc < 0)
        gar_sweep_spec_free(spec);
    return rc;
}

int gar_sweep_spec_parse(const char *text, size_t len, const char *name, const char *base_dir,
                         gar_sweep_spec *out, gar_error *err)
{
    if (text == NULL || out == NULL || name == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sweep_spec_parse",
                             out == NULL ? "out" : text == NULL ? "text" : "name", "is NULL");
    uint64_t counts[6], arms, runs;
    return parse_spec(text, len, name, base_dir, PASS_ADD, out, counts, &arms, &runs, err);
}

int gar_sweep_size_parse(const char *text, size_t len, const char *name, const char *base_dir,
                         gar_sweep_size *out, gar_error *err)
{
    if (text == NULL || out == NULL || name == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sweep_size_parse",
                             out == NULL ? "out" : text == NULL ? "text" : "name", "is NULL");
    memset(out, 0, sizeof *out);
    gar_sweep_spec spec;
    uint64_t counts[6], arms, runs;
    int rc = parse_spec(text, len, name, base_dir, PASS_ADD_PLAIN, &spec, counts, &arms, &runs,
                        err);
    if (rc < 0)
        return rc;
    out->arms = arms;
    out->runs = runs;
    out->traces = counts[AXIS_TRACE];
    out->plans = counts[AXIS_PLAN];
    out->estimators = counts[AXIS_ESTIMATOR];
    out->hosts = counts[AXIS_HOST];
    out->modes = counts[AXIS_MODE];
    out->seeds = counts[AXIS_SEED];
    out->swept = spec.swept; /* the groups move over; the plain values go */
    out->swept_count = spec.swept_count;
    spec.swept = NULL;
    spec.swept_count = 0;
    gar_sweep_spec_free(&spec);
    return 0;
}

void gar_sweep_size_free(gar_sweep_size *size)
{
    if (size == NULL)
        return;
    gar_free(size->swept);
    memset(size, 0, sizeof *size);
}

/* How a refusal names the spec at `path`. */
static const char *spec_subject(const char *path)
{
    return strcmp(path, "-") == 0 ? "standard input" : path;
}

/* The spec file's text and the folder its relative paths are taken from. */
static int read_spec(const char *path, char **text, size_t *len, char **dir, gar_error *err)
{
    int rc = gar_spec_read_whole(path, GAR_SWEEP_FILE_MAX, text, len, err);
    if (rc < 0)
        return rc;
    /* A spec from standard input names its traces from the working folder. */
    bool from_stdin = strcmp(path, "-") == 0;
    *dir = gar_spec_copy_text(from_stdin ? "." : path, from_stdin ? 1 : strlen(path));
    if (*dir == NULL) {
        gar_free(*text);
        return gar_spec_out_of_memory(err);
    }
    char *slash = strrchr(*dir, '/');
    if (slash == NULL)
        strcpy(*dir, ".");
    else if (slash == *dir)
        (*dir)[1] = '\0';
    else
        *slash = '\0';
    return 0;
}

/* A parse of a spec's text into `out`: a whole spec, or only its size. */
typedef int (*spec_parser)(const char *text, size_t len, const char *name, const char *base_dir,
                           void *out, gar_error *err);

static int parse_into_spec(const char *text, size_t len, const char *name, const char *base_dir,
                       void *out, gar_error *err)
{
    return gar_sweep_spec_parse(text, len, name, base_dir, out, err);
}

static int parse_into_size(const char *text, size_t len, const char *name, const char *base_dir,
                      void *out, gar_error *err)
{
    return gar_sweep_size_parse(text, len, name, base_dir, out, err);
}

/* The spec file at `path` ("-": standard input) read, and parsed by `parse`
 * into `out` (`out_size` bytes, zeroed first), under the name and folder the
 * path gives.  `function` names the public caller when an argument is NULL. */
static int load_spec(const char *path, const char *function, spec_parser parse, void *out,
                     size_t out_size, gar_error *err)
{
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, function,
                             path == NULL ? "path" : "out", "is NULL");
    memset(out, 0, out_size);
    char *text = NULL, *dir = NULL;
    size_t len = 0;
    int rc = read_spec(path, &text, &len, &dir, err);
    if (rc < 0)
        return rc;
    rc = parse(text, len, spec_subject(path), dir, out, err);
    gar_free(dir);
    gar_free(text);
    return rc;
}

int gar_sweep_size_load(const char *path, gar_sweep_size *out, gar_error *err)
{
    return load_spec(path, "gar_sweep_size_load", parse_into_size, out, sizeof *out, err);
}

int gar_sweep_spec_load(const char *path, gar_sweep_spec *out, gar_error *err)
{
    return load_spec(path, "gar_sweep_spec_load", parse_into_spec, out, sizeof *out, err);
}
