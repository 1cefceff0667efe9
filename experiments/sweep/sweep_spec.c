/* experiments/sweep/sweep_spec.c — reading a sweep spec, and loading what it names. */
#define _GNU_SOURCE /* realpath */
#include "sweep/sweep_spec.h"
#include "sim/trace/alloc.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/gen.h"
#include "sim/profile_caps.h"
#include "sweep/hole_check.h"
#include "sweep/host_whatif.h"
#include "sweep/index_set.h"

/* ---- small helpers ------------------------------------------------------ */

void gar_sweep_hash_hex(uint64_t hash, char out[GAR_HASH_HEX_BYTES])
{
    snprintf(out, GAR_HASH_HEX_BYTES, "%016llx", (unsigned long long)hash);
}

static char *copy_text(const char *text, size_t len)
{
    char *copy = gar_malloc(len + 1);
    if (copy != NULL) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    return copy;
}

/* A plain decimal u64: digits only, no sign or space, no overflow. */
static int parse_whole(const char *text, unsigned long long *out)
{
    if (*text < '0' || *text > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *out = value;
    return 0;
}

static int out_of_memory(gar_error *err)
{
    return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep spec", "exhausted");
}

/* Adds " (FILE:LINE)" to the last argument of a refusal from a loader, so the
 * message says both what was wrong and where the spec asked for it. */
static int located(gar_error *err, int rc, const char *file, unsigned line)
{
    if (err != NULL && err->argc > 0) {
        char *last = err->argv[err->argc - 1];
        size_t used = strlen(last);
        snprintf(last + used, GAR_ERROR_ARG_BYTES - used, " (%s:%u)", file, line);
    }
    return rc;
}

/* A fault of the spec's own grammar. */
static int spec_fault(gar_error *err, const char *file, unsigned line, const char *keyword,
                      const char *fault)
{
    char where[GAR_ERROR_ARG_BYTES];
    snprintf(where, sizeof where, "%s:%u", file, line);
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, where, keyword, fault);
}

/* Reads a whole file of at most `limit` bytes into a NUL-terminated buffer;
 * the path "-" is standard input (named so in errors). */
static int read_whole(const char *path, size_t limit, char **text, size_t *len, gar_error *err)
{
    bool from_stdin = strcmp(path, "-") == 0;
    if (from_stdin)
        path = "standard input";
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (f == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    char *buf = gar_malloc(limit + 1);
    if (buf == NULL) {
        if (!from_stdin)
            fclose(f);
        return out_of_memory(err);
    }
    errno = 0;
    size_t n = fread(buf, 1, limit + 1, f);
    int failed = ferror(f) ? (errno != 0 ? errno : EIO) : 0; /* EISDIR: a folder */
    if (!from_stdin)
        fclose(f);
    if (failed) {
        gar_free(buf);
        return gar_error_set(err, GAR_E_IO, 3, path, "read", strerror(failed));
    }
    if (n > limit) {
        gar_free(buf);
        char why[96];
        snprintf(why, sizeof why, "is larger than %zu bytes, the most a spec or profile may be",
                 limit);
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, path, "file", why);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

/* `path` taken from `base_dir` unless it is absolute (malloc'd). */
static char *joined_path(const char *base_dir, const char *path)
{
    if (path[0] == '/' || base_dir == NULL || base_dir[0] == '\0')
        return copy_text(path, strlen(path));
    size_t a = strlen(base_dir), b = strlen(path);
    char *out = gar_malloc(a + 1 + b + 1);
    if (out != NULL)
        snprintf(out, a + 1 + b + 1, "%s/%s", base_dir, path);
    return out;
}

/* ---- hashes ------------------------------------------------------------- */

uint64_t gar_sweep_trace_hash(const gar_trace *trace)
{
    uint64_t h = gar_hash_u64(GAR_HASH_OFFSET, trace->columns);
    h = gar_hash_u64(h, trace->count);
    for (size_t i = 0; i < trace->count; i++) {
        const gar_trace_row *r = &trace->row[i];
        h = gar_hash_u64(h, r->point);
        h = gar_hash_u64(h, r->submit_ns);
        h = gar_hash_u64(h, r->start_ns);
        h = gar_hash_u64(h, r->done_ns);
        h = gar_hash_u64(h, ((uint64_t)r->step_rows << 32) | r->stream);
    }
    return h;
}

static uint64_t hash_dist(uint64_t h, const gar_host_dist *d)
{
    h = gar_hash_u64(h, d->count);
    for (unsigned i = 0; i < d->count; i++) {
        h = gar_hash_u64(h, d->level[i]);
        h = gar_hash_u64(h, d->value[i]);
    }
    return h;
}

uint64_t gar_sweep_host_hash(const gar_host_profile *p)
{
    uint64_t h = gar_hash_u64(GAR_HASH_OFFSET, p->query_ns);
    h = gar_hash_u64(h, p->clock_ns);
    h = gar_hash_u64(h, p->word_wait);
    h = hash_dist(h, &p->sleep_overshoot);
    h = hash_dist(h, &p->block_wake);
    h = hash_dist(h, &p->park_wake);
    h = hash_dist(h, &p->poll_period);
    /* The optional keys count only when stated, so a profile without them
     * keeps the hash it had before they existed. */
    if (p->store_visible.count > 0)
        h = hash_dist(gar_hash_u64(h, 1), &p->store_visible);
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        if (p->sleep_overshoot_at[k].count > 0)
            h = hash_dist(gar_hash_u64(h, 2 + k), &p->sleep_overshoot_at[k]);
        if (p->block_wake_at[k].count > 0)
            h = hash_dist(gar_hash_u64(h, 2 + GAR_HOST_LEADS + k), &p->block_wake_at[k]);
        if (p->store_visible_at[k].count > 0)
            h = hash_dist(gar_hash_u64(h, 2 + 2 * GAR_HOST_LEADS + k), &p->store_visible_at[k]);
    }
    return h;
}

/* ---- parameters --------------------------------------------------------- */

size_t gar_sweep_run_params(const gar_sweep_spec *spec, const gar_sweep_run *run,
                            gar_sweep_param *out)
{
    const gar_sweep_params *sets[4] = {
        &spec->traces[run->trace].params,
        &spec->plans[run->plan].params,
        run->estimator == GAR_SWEEP_NO_ESTIMATOR ? NULL : &spec->estimators[run->estimator].params,
        &spec->hosts[run->host].params,
    };
    size_t n = 0;
    for (size_t s = 0; s < 4; s++)
        for (unsigned i = 0; sets[s] != NULL && i < sets[s]->count; i++)
            out[n++] = sets[s]->param[i];
    return n;
}

/* ---- traces ------------------------------------------------------------- */

void gar_sweep_trace_free(gar_sweep_trace *t)
{
    if (t == NULL)
        return;
    gar_free(t->name);
    gar_free(t->source);
    if (t->cache.map != NULL) {
        gar_trace_cache_close(&t->cache); /* the trace and index were its */
    } else {
        gar_trace_free(&t->trace);
        gar_replay_index_free(&t->index);
    }
    memset(t, 0, sizeof *t);
}

/* "gen:KIND:waits=N,seed=S[,KEY=VALUE...]": the trace a generator makes.  The
 * wait count and the seed are required, since nothing else says how long
 * the trace is or which one it is; the kind's other parameters default. */
static int generate(const char *text, gar_trace *out, gar_error *err)
{
    const char *fn = "trace generator";
    const char *kind_text = text + strlen("gen:");
    const char *colon = strchr(kind_text, ':');
    size_t kind_len = colon != NULL ? (size_t)(colon - kind_text) : strlen(kind_text);
    char kind_name[32];
    if (kind_len == 0 || kind_len >= sizeof kind_name)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, text,
                             "has no generator kind (gen:KIND:waits=N,seed=S,...)");
    memcpy(kind_name, kind_text, kind_len);
    kind_name[kind_len] = '\0';
    gar_gen_kind kind;
    int rc = gar_gen_kind_parse(kind_name, &kind, err);
    if (rc < 0)
        return rc;
    gar_gen_spec spec = gar_gen_spec_default(kind);
    unsigned long long waits = 0, seed = 0;
    bool have_waits = false, have_seed = false;
    unsigned given = 0; /* the kind's parameters set so far: each once */
    const char *p = colon != NULL ? colon + 1 : NULL;
    while (p != NULL) {
        const char *comma = strchr(p, ',');
        size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char assignment[128];
        if (n == 0 || n >= sizeof assignment)
            return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, text,
                                 "has an empty or overlong KEY=VALUE");
        memcpy(assignment, p, n);
        assignment[n] = '\0';
        if (strncmp(assignment, "waits=", 6) == 0 || strncmp(assignment, "seed=", 5) == 0) {
            bool is_waits = assignment[0] == 'w';
            unsigned long long *value = is_waits ? &waits : &seed;
            bool *have = is_waits ? &have_waits : &have_seed;
            if (*have)
                return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, text,
                                     is_waits ? "gives waits twice" : "gives seed twice");
            if (parse_whole(strchr(assignment, '=') + 1, value) < 0)
                return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, text,
                                     is_waits ? "has a waits that is not a whole number"
                                              : "has a seed that is not a whole number");
            *have = true;
        } else if ((rc = gar_gen_spec_set_once(&spec, &given, assignment, err)) < 0) {
            return rc;
        }
        p = comma != NULL ? comma + 1 : NULL;
    }
    if (!have_waits || !have_seed)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, text,
                             "needs both waits=N and seed=S");
    return gar_gen_run(&spec, waits, seed, out, err);
}

/* A long trace from its cache: the trace and index are the mapping's;
 * read from the text where no cache could be written anywhere. */
static int load_cached(const char *path, gar_sweep_trace *t, gar_error *err)
{
    /* The cache hashes all of the text first: a hole no line may span is
     * refused before (a sparse file of GBs, in no time). */
    if (gar_trace_hole_check(path, err) < 0)
        return -GAR_E_INVALID_TRACE;
    int rc = gar_trace_cache_open(&t->cache, path, NULL, err);
    if (rc == 0 && t->cache.how == GAR_TRACE_CACHE_NONE)
        return gar_trace_read_file(&t->trace, path, err);
    if (rc == 0) {
        t->trace = t->cache.trace;
        t->index = t->cache.index;
    }
    return rc;
}

int gar_sweep_trace_load(const char *text, const char *base_dir, gar_sweep_trace *out,
                         gar_error *err)
{
    if (text == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sweep_trace_load",
                             text == NULL ? "text" : "out", "is NULL");
    gar_sweep_trace t;
    memset(&t, 0, sizeof t);
    gar_trace_init(&t.trace);
    int rc;
    t.name = copy_text(text, strlen(text));
    if (t.name == NULL)
        return out_of_memory(err);
    if (strcmp(text, "-") == 0) {
        /* A sweep's results name their trace and read it again (reports,
         * plots); standard input is read once, and may hold the spec. */
        rc = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "-", "trace",
                           "cannot be standard input in a sweep (its results read their"
                           " trace again later); save the trace to a file and name that");
    } else if (strncmp(text, "gen:", 4) == 0) {
        t.source = copy_text(text, strlen(text));
        rc = t.source == NULL ? out_of_memory(err) : generate(text, &t.trace, err);
    } else {
        char *path = joined_path(base_dir, text);
        struct stat st;
        if (path == NULL)
            rc = out_of_memory(err);
        else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) /* stat never waits on a FIFO */
            rc = gar_error_set(err, GAR_E_IO, 3, path, "open",
                               "is not a regular file (a FIFO, device or folder): a sweep's"
                               " results read their trace again later (reports, plots); save"
                               " the trace to a file and name that");
        else if (stat(path, &st) == 0 && st.st_size >= (off_t)GAR_SWEEP_CACHE_MIN_BYTES)
            rc = load_cached(path, &t, err);
        else
            rc = gar_trace_read_file(&t.trace, path, err);
        if (rc == 0) {
            t.source = realpath(path, NULL);
            if (t.source == NULL)
                rc = gar_error_set(err, GAR_E_IO, 3, path, "resolve", strerror(errno));
        }
        gar_free(path);
    }
    if (rc == 0 && t.cache.map == NULL)
        rc = gar_replay_index_build(&t.trace, &t.index, err);
    if (rc == 0) {
        gar_sweep_hash_hex(gar_sweep_trace_hash(&t.trace), t.hash);
        rc = gar_trace_cache_intact(&t.cache, err); /* the hash read every row */
    }
    if (rc < 0) {
        gar_sweep_trace_free(&t);
        return rc;
    }
    *out = t;
    return 0;
}

/* ---- hosts -------------------------------------------------------------- */

static void host_free(gar_sweep_host *h)
{
    gar_free(h->name);
    gar_free(h->source);
    gar_free(h->text);
    memset(h, 0, sizeof *h);
}

/* A profile read from standard input, kept for every `host -` of the spec:
 * standard input can be read only once. */
typedef struct stdin_profile {
    char *text; /* NULL until read */
    size_t len;
} stdin_profile;

/* The text of the profile file FILE at `path`, or of standard input for
 * FILE "-" (read once into `from_stdin`, refused when the spec itself came
 * from there), copied into `*text`. */
static int host_text(const char *path, bool is_stdin, const char *file, stdin_profile *from_stdin,
                     char **text, size_t *len, gar_error *err)
{
    if (!is_stdin)
        return read_whole(path, GAR_SWEEP_FILE_MAX, text, len, err);
    if (strcmp(file, "standard input") == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "-", "host",
                             "cannot be standard input when the spec is read from there: save"
                             " the profile or the spec to a file");
    if (from_stdin->text == NULL) {
        int rc = read_whole("-", GAR_SWEEP_FILE_MAX, &from_stdin->text, &from_stdin->len, err);
        if (rc < 0)
            return rc;
    }
    *text = copy_text(from_stdin->text, from_stdin->len);
    *len = from_stdin->len;
    return *text == NULL ? out_of_memory(err) : 0;
}

/* `text` is FILE or FILE@TERMS (the '@' after the last '/'); FILE "-" is
 * standard input. */
static int host_load(const char *text, const char *base_dir, const char *file, unsigned line,
                     stdin_profile *from_stdin, gar_sweep_host *out, gar_error *err)
{
    gar_sweep_host h;
    memset(&h, 0, sizeof h);
    const char *slash = strrchr(text, '/');
    const char *at = strchr(slash != NULL ? slash : text, '@');
    size_t file_len = at != NULL ? (size_t)(at - text) : strlen(text);
    char *file_text = copy_text(text, file_len);
    bool is_stdin = file_text != NULL && strcmp(file_text, "-") == 0;
    char *path = NULL;
    if (is_stdin)
        path = copy_text("standard input", strlen("standard input"));
    else if (file_text != NULL)
        path = joined_path(base_dir, file_text);
    gar_free(file_text);
    h.name = copy_text(text, strlen(text));
    int rc = path == NULL || h.name == NULL ? out_of_memory(err) : 0;
    size_t len = 0;
    if (rc == 0)
        rc = host_text(path, is_stdin, file, from_stdin, &h.text, &len, err);
    if (rc == 0)
        rc = gar_host_profile_parse(h.text, len, path, &h.profile, err);
    if (rc == 0) {
        /* The database keeps the profile's text; its source only says where
         * it came from. */
        h.source = is_stdin ? copy_text(path, strlen(path)) : realpath(path, NULL);
        if (h.source == NULL)
            rc = is_stdin ? out_of_memory(err)
                          : gar_error_set(err, GAR_E_IO, 3, path, "resolve", strerror(errno));
    }
    if (rc == 0 && at != NULL) {
        /* A what-if: the changed profile, written out, is what the database
         * keeps, so a re-run from it replays this very host. */
        rc = gar_host_whatif_apply(&h.profile, at + 1, file, line, err);
        if (rc < 0 && err != NULL && err->argc == 3) {
            char fault[GAR_ERROR_ARG_BYTES];
            snprintf(fault, sizeof fault, "host '%.150s': %.340s", text, err->argv[2]);
            snprintf(err->argv[2], GAR_ERROR_ARG_BYTES, "%s", fault);
        }
        char *source = NULL, *changed = NULL;
        if (rc == 0) {
            size_t n = strlen(h.source) + strlen(at) + 1;
            source = gar_malloc(n);
            char comment[GAR_SWEEP_FILE_MAX < 4096 ? GAR_SWEEP_FILE_MAX : 4096];
            snprintf(comment, sizeof comment, "what-if: %s with %s", h.source, at + 1);
            changed = gar_host_profile_text(&h.profile, comment);
            if (source == NULL || changed == NULL) {
                gar_free(source);
                gar_free(changed);
                rc = out_of_memory(err);
            } else {
                snprintf(source, n, "%s%s", h.source, at);
            }
        }
        if (rc == 0) {
            gar_free(h.source);
            gar_free(h.text);
            h.source = source;
            h.text = changed;
        }
    }
    gar_free(path);
    if (rc < 0) {
        host_free(&h);
        return rc;
    }
    gar_sweep_hash_hex(gar_sweep_host_hash(&h.profile), h.hash);
    *out = h;
    return 0;
}

/* ---- the spec ----------------------------------------------------------- */

void gar_sweep_spec_free(gar_sweep_spec *spec)
{
    if (spec == NULL)
        return;
    for (size_t i = 0; i < spec->trace_count; i++)
        gar_sweep_trace_free(&spec->traces[i]);
    for (size_t i = 0; i < spec->host_count; i++)
        host_free(&spec->hosts[i]);
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

typedef struct parse_state {
    const char *file;
    const char *base_dir;
    unsigned line;
    gar_sweep_spec *spec;
    gar_error *err;
    unsigned first_line[6]; /* per axis, the line that first gave it; 0: none */
    const gar_sweep_params *params; /* the value being added's swept parameters */
    enum {
        PASS_COUNT,     /* the first pass: count each axis's values, add none */
        PASS_ADD,       /* the second: add every value, its ranges expanded */
        PASS_ADD_PLAIN, /* a size only: add the values without ranges, count the rest */
    } pass;
    uint64_t counts[6];     /* per axis, values counted (saturating) */
    uint64_t predict_plans; /* of counts[AXIS_PLAN], those that sleep to a prediction */
    gar_index_set seen[6];  /* per axis, the values added so far, by key */
    stdin_profile *from_stdin; /* the profile of `host -`, once read */
} parse_state;

enum { AXIS_TRACE, AXIS_PLAN, AXIS_ESTIMATOR, AXIS_HOST, AXIS_MODE, AXIS_SEED };
static const char *const axis_keyword[] = { "trace", "plan", "estimator", "host", "mode", "seed" };

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

static uint64_t text_hash(const char *text)
{
    return gar_index_set_hash_bytes(text, strlen(text));
}

static int duplicate(parse_state *s, const char *keyword, const char *value, unsigned other_line,
                     const char *how)
{
    char fault[GAR_ERROR_ARG_BYTES];
    snprintf(fault, sizeof fault, "'%s' %s the one on line %u (a run would repeat)", value, how,
             other_line);
    return spec_fault(s->err, s->file, s->line, keyword, fault);
}

static int add_trace(parse_state *s, const char *value)
{
    gar_sweep_spec *spec = s->spec;
    gar_sweep_trace t;
    int rc = gar_sweep_trace_load(value, s->base_dir, &t, s->err);
    if (rc < 0)
        return located(s->err, rc, s->file, s->line);
    t.line = s->line;
    t.params = *s->params;
    uint64_t hash = text_hash(t.hash);
    size_t i;
    if (seen_before(s, AXIS_TRACE, t.hash, hash, same_trace, &i)) {
        unsigned other = spec->traces[i].line;
        gar_sweep_trace_free(&t);
        return duplicate(s, "trace", value, other, "has the same content as");
    }
    if (!grow((void **)&spec->traces, spec->trace_count, sizeof t)) {
        gar_sweep_trace_free(&t);
        return out_of_memory(s->err);
    }
    spec->traces[spec->trace_count++] = t;
    return remember(s, AXIS_TRACE, hash, spec->trace_count - 1) < 0 ? out_of_memory(s->err) : 0;
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
        return located(s->err, rc, s->file, s->line);
    gar_bands_label(&p.bands, p.label, sizeof p.label);
    uint64_t hash = text_hash(p.label);
    size_t i;
    if (seen_before(s, AXIS_PLAN, p.label, hash, same_plan, &i))
        return duplicate(s, bands ? "bands" : "plan", value, spec->plans[i].line, "repeats");
    if (!grow((void **)&spec->plans, spec->plan_count, sizeof p))
        return out_of_memory(s->err);
    spec->plans[spec->plan_count++] = p;
    return remember(s, AXIS_PLAN, hash, spec->plan_count - 1) < 0 ? out_of_memory(s->err) : 0;
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
        return located(s->err, rc, s->file, s->line);
    gar_estimator_spec_label(&e.spec, e.label, sizeof e.label);
    uint64_t hash = text_hash(e.label);
    size_t i;
    if (seen_before(s, AXIS_ESTIMATOR, e.label, hash, same_estimator, &i))
        return duplicate(s, "estimator", value, spec->estimators[i].line, "is the same as");
    if (!grow((void **)&spec->estimators, spec->estimator_count, sizeof e))
        return out_of_memory(s->err);
    spec->estimators[spec->estimator_count++] = e;
    return remember(s, AXIS_ESTIMATOR, hash, spec->estimator_count - 1) < 0
               ? out_of_memory(s->err)
               : 0;
}

static int add_host(parse_state *s, const char *value)
{
    gar_sweep_spec *spec = s->spec;
    gar_sweep_host h;
    int rc = host_load(value, s->base_dir, s->file, s->line, s->from_stdin, &h, s->err);
    if (rc < 0)
        return rc == -GAR_E_INVALID_HOST_PROFILE && strchr(value, '@') != NULL &&
                       s->err != NULL && strstr(s->err->argv[2], "what-if") != NULL
                   ? rc /* a what-if refusal names the spec's place already */
                   : located(s->err, rc, s->file, s->line);
    h.line = s->line;
    h.params = *s->params;
    uint64_t hash = text_hash(h.hash);
    size_t i;
    if (seen_before(s, AXIS_HOST, h.hash, hash, same_host, &i)) {
        unsigned other = spec->hosts[i].line;
        host_free(&h);
        return duplicate(s, "host", value, other, "has the same profile as");
    }
    if (!grow((void **)&spec->hosts, spec->host_count, sizeof h)) {
        host_free(&h);
        return out_of_memory(s->err);
    }
    spec->hosts[spec->host_count++] = h;
    return remember(s, AXIS_HOST, hash, spec->host_count - 1) < 0 ? out_of_memory(s->err) : 0;
}

static int add_mode(parse_state *s, const char *value)
{
    gar_sweep_spec *spec = s->spec;
    int mode = gar_replay_mode_from_name(value);
    if (mode < 0) {
        char fault[GAR_ERROR_ARG_BYTES];
        snprintf(fault, sizeof fault, "'%s' is neither open nor closed", value);
        return spec_fault(s->err, s->file, s->line, "mode", fault);
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
    if (parse_whole(value, &seed) < 0 || seed > GAR_SWEEP_SEED_MAX) {
        char fault[GAR_ERROR_ARG_BYTES];
        snprintf(fault, sizeof fault, "'%s' is not a whole number from 0 to 2^63-1", value);
        return spec_fault(s->err, s->file, s->line, "seed", fault);
    }
    uint64_t key = seed, hash = gar_index_set_hash_u64(key);
    size_t i;
    if (seen_before(s, AXIS_SEED, &key, hash, same_seed, &i))
        return duplicate(s, "seed", value, s->first_line[AXIS_SEED], "repeats");
    if (!grow((void **)&spec->seeds, spec->seed_count, sizeof *spec->seeds))
        return out_of_memory(s->err);
    spec->seeds[spec->seed_count++] = seed;
    return remember(s, AXIS_SEED, hash, spec->seed_count - 1) < 0 ? out_of_memory(s->err) : 0;
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
            return out_of_memory(s->err);
        gar_sweep_axis_param *a = &spec->swept[spec->swept_count++];
        memcpy(a->name, groups[i].name, sizeof a->name); /* same size, NUL-terminated */
        a->keyword = keyword;
        a->line = s->line;
        a->values = groups[i].values;
    }
    return 0;
}

/* a + b, at most GAR_SWEEP_RUNS_MAX + 1. */
static uint64_t capped_sum(uint64_t a, uint64_t b)
{
    return a > GAR_SWEEP_RUNS_MAX + 1 - b || b > GAR_SWEEP_RUNS_MAX + 1 ? GAR_SWEEP_RUNS_MAX + 1
                                                                          : a + b;
}

/* a * b, at most GAR_SWEEP_RUNS_MAX + 1. */
static uint64_t capped_product(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > (GAR_SWEEP_RUNS_MAX + 1) / b ? GAR_SWEEP_RUNS_MAX + 1 : a * b;
}

/* One "KEYWORD VALUE..." line, already split into NUL-terminated words. */
static int parse_line(parse_state *s, char **word, size_t words)
{
    const char *keyword = word[0];
    int axis = -1;
    bool bands = false;
    for (int a = 0; a <= AXIS_SEED; a++)
        if (strcmp(keyword, axis_keyword[a]) == 0)
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
                           : spec_fault(s->err, s->file, s->line, keyword,
                                        "is no keyword (trace, plan, bands, estimator, host, "
                                        "mode, seed)");
    if (words < 2)
        return counting ? 0 : spec_fault(s->err, s->file, s->line, keyword, "has no value");
    keyword = bands ? "bands" : axis_keyword[axis]; /* static: the swept list keeps it */
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
            s->counts[axis] = capped_sum(s->counts[axis], n);
            if (axis == AXIS_PLAN) {
                /* A plan sleeps to a prediction exactly when its text says
                 * "+predict" (in any band): counted without expanding. */
                uint64_t predict = 0;
                rc = gar_sweep_count_holding(word[i], keyword, place, "+predict", &predict,
                                             s->err);
                if (rc < 0)
                    return rc;
                s->predict_plans = capped_sum(s->predict_plans, predict);
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
        return out_of_memory(err);
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
        if (strcmp(keyword, axis_keyword[a]) == 0)
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
    return text_hash(name) ^ gar_index_set_hash_u64((uint64_t)axis);
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
            rc = spec_fault(s->err, s->file, b->line, b->keyword, fault);
            break;
        }
        param_on_axis key = { b->name, axis_b };
        uint64_t hash = param_hash(b->name, axis_b);
        if (!gar_index_set_find(&first, hash, &key, same_param_on_axis, spec, &j) &&
            gar_index_set_add(&first, hash, i) < 0)
            rc = out_of_memory(s->err);
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
    *arms = capped_sum(plain, capped_product(predict, s->counts[AXIS_ESTIMATOR]));
    uint64_t runs = capped_product(count[AXIS_TRACE], *arms == 0 ? 1 : *arms);
    runs = capped_product(runs, count[AXIS_HOST]);
    runs = capped_product(runs, count[AXIS_MODE]);
    runs = capped_product(runs, count[AXIS_SEED]);
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
            return spec_fault(s->err, s->file, s->line, axis_keyword[a],
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
            return spec_fault(s->err, s->file, s->line, "line", "holds a NUL byte");
        *line_end = '\0';
        if (line_end > p && line_end[-1] == '\r')
            line_end[-1] = '\0';
        if (!magic_seen) {
            if (strcmp(p, GAR_SWEEP_MAGIC) != 0)
                return spec_fault(s->err, s->file, s->line, "header",
                                  "is not 'gar-sweep v1' (the first line names the format)");
            magic_seen = true;
        } else {
            char *hash = strchr(p, '#');
            if (hash != NULL)
                *hash = '\0';
            char *word[WORDS_MAX];
            size_t words = split_words(p, word);
            if (words > WORDS_MAX)
                return spec_fault(s->err, s->file, s->line, word[0], "has over 256 values");
            if (words > 0) {
                int rc = parse_line(s, word, words);
                if (rc < 0)
                    return rc;
            }
        }
        p = line_end + 1;
    }
    if (!magic_seen)
        return spec_fault(s->err, s->file, 1, "header", "is missing: the file is empty");
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
    char *copy = copy_text(text, len);
    spec->path = copy_text(name, strlen(name));
    if (copy == NULL || spec->path == NULL) {
        gar_free(copy);
        gar_free(spec->path);
        spec->path = NULL;
        return out_of_memory(err);
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
    int rc = read_whole(path, GAR_SWEEP_FILE_MAX, text, len, err);
    if (rc < 0)
        return rc;
    /* A spec from standard input names its traces from the working folder. */
    bool from_stdin = strcmp(path, "-") == 0;
    *dir = copy_text(from_stdin ? "." : path, from_stdin ? 1 : strlen(path));
    if (*dir == NULL) {
        gar_free(*text);
        return out_of_memory(err);
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

/* ---- runs --------------------------------------------------------------- */

gar_sweep_run gar_sweep_run_at(const gar_sweep_spec *spec, uint64_t index)
{
    gar_sweep_run r;
    r.seed = (size_t)(index % spec->seed_count);
    index /= spec->seed_count;
    r.mode = (size_t)(index % spec->mode_count);
    index /= spec->mode_count;
    r.host = (size_t)(index % spec->host_count);
    index /= spec->host_count;
    const gar_sweep_arm *arm = &spec->arms[index % spec->arm_count];
    r.plan = arm->plan;
    r.estimator = arm->estimator;
    index /= spec->arm_count;
    r.trace = (size_t)index;
    return r;
}

const char *gar_sweep_run_estimator_label(const gar_sweep_spec *spec, const gar_sweep_run *run)
{
    if (run->estimator == GAR_SWEEP_NO_ESTIMATOR)
        return GAR_SWEEP_NO_ESTIMATOR_LABEL;
    return spec->estimators[run->estimator].label;
}

gar_estimator_spec gar_sweep_run_estimator(const gar_sweep_spec *spec, const gar_sweep_run *run)
{
    if (run->estimator == GAR_SWEEP_NO_ESTIMATOR)
        return gar_estimator_spec_default();
    return spec->estimators[run->estimator].spec;
}

uint64_t gar_sweep_run_key_hash(const gar_sweep_spec *spec, const gar_sweep_run *run)
{
    const char *texts[] = {
        spec->traces[run->trace].hash,
        spec->plans[run->plan].label,
        gar_sweep_run_estimator_label(spec, run),
        spec->hosts[run->host].hash,
        gar_replay_mode_name(spec->modes[run->mode]),
    };
    uint64_t h = GAR_HASH_OFFSET;
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        h = gar_hash_bytes(h, texts[i], strlen(texts[i]) + 1); /* the NUL separates */
    return gar_hash_u64(h, spec->seeds[run->seed]);
}

void gar_sweep_resolve(const gar_bands *requested, const gar_host_profile *host,
                       gar_bands *running, char *label, size_t size)
{
    gar_caps caps = gar_host_profile_caps(host);
    gar_error warning; /* the fallback's warning: the label names it */
    int rc = gar_bands_resolve(requested, &caps, running, &warning);
    assert(rc == 0 || rc == 1); /* 1: a band fell back */
    (void)rc;
    gar_bands_label(running, label, size);
}

int gar_sweep_replay(const gar_sweep_trace *trace, const gar_bands *bands,
                     const gar_estimator_spec *estimator, const gar_host_profile *host,
                     gar_replay_mode mode, uint64_t seed, gar_replay_observer on_wait,
                     void *context, gar_replay_scratch *scratch, gar_replay_metrics *out,
                     gar_replay_streams *streams, gar_error *err)
{
    gar_replay_config config;
    gar_replay_config_init(&config);
    config.trace = &trace->trace;
    config.index = &trace->index;
    config.scratch = scratch;
    if (bands->count == 1)
        config.plan = &bands->band[0].plan;
    else
        config.bands = bands;
    config.estimator = *estimator;
    config.host = host;
    config.mode = mode;
    config.seed = seed;
    config.on_wait = on_wait;
    config.on_wait_context = context;
    config.streams_out = streams;
    int rc = gar_replay_run(&config, out, err);
    /* A cache cut short under the replay gave zeros for rows: refused,
     * whatever the replay made of them. */
    int intact = gar_trace_cache_intact(&trace->cache, err);
    if (intact < 0 && rc >= 0)
        gar_replay_streams_free(streams);
    return intact < 0 ? intact : rc;
}
