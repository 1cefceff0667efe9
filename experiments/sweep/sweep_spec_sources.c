/* experiments/sweep/sweep_spec_sources.c — loading what a spec names: a
 * trace (a file, cached, or a gen: call) and a host profile (a file, "-",
 * with what-if factors). */
#define _GNU_SOURCE /* realpath */
#include "sweep/sweep_spec_sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/trace/alloc.h"
#include "sim/gen.h"
#include "sweep/hole_check.h"
#include "sweep/host_whatif.h"
#include "sweep/sweep_spec_common.h"

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
            if (gar_spec_parse_whole(strchr(assignment, '=') + 1, value) < 0)
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
    t.name = gar_spec_copy_text(text, strlen(text));
    if (t.name == NULL)
        return gar_spec_out_of_memory(err);
    if (strcmp(text, "-") == 0) {
        /* A sweep's results name their trace and read it again (reports,
         * plots); standard input is read once, and may hold the spec. */
        rc = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "-", "trace",
                           "cannot be standard input in a sweep (its results read their"
                           " trace again later); save the trace to a file and name that");
    } else if (strncmp(text, "gen:", 4) == 0) {
        t.source = gar_spec_copy_text(text, strlen(text));
        rc = t.source == NULL ? gar_spec_out_of_memory(err) : generate(text, &t.trace, err);
    } else {
        char *path = gar_spec_joined_path(base_dir, text);
        struct stat st;
        if (path == NULL)
            rc = gar_spec_out_of_memory(err);
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

void gar_spec_host_free(gar_sweep_host *h)
{
    gar_free(h->name);
    gar_free(h->source);
    gar_free(h->text);
    memset(h, 0, sizeof *h);
}


/* The text of the profile file FILE at `path`, or of standard input for
 * FILE "-" (read once into `from_stdin`, refused when the spec itself came
 * from there), copied into `*text`. */
static int host_text(const char *path, bool is_stdin, const char *file, stdin_profile *from_stdin,
                     char **text, size_t *len, gar_error *err)
{
    if (!is_stdin)
        return gar_spec_read_whole(path, GAR_SWEEP_FILE_MAX, text, len, err);
    if (strcmp(file, "standard input") == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "-", "host",
                             "cannot be standard input when the spec is read from there: save"
                             " the profile or the spec to a file");
    if (from_stdin->text == NULL) {
        int rc =
            gar_spec_read_whole("-", GAR_SWEEP_FILE_MAX, &from_stdin->text, &from_stdin->len, err);
        if (rc < 0)
            return rc;
    }
    *text = gar_spec_copy_text(from_stdin->text, from_stdin->len);
    *len = from_stdin->len;
    return *text == NULL ? gar_spec_out_of_memory(err) : 0;
}

/* `text` is FILE or FILE@TERMS (the '@' after the last '/'); FILE "-" is
 * standard input. */
int gar_spec_host_load(const char *text, const char *base_dir, const char *file, unsigned line,
                       stdin_profile *from_stdin, gar_sweep_host *out, gar_error *err)
{
    gar_sweep_host h;
    memset(&h, 0, sizeof h);
    const char *slash = strrchr(text, '/');
    const char *at = strchr(slash != NULL ? slash : text, '@');
    size_t file_len = at != NULL ? (size_t)(at - text) : strlen(text);
    char *file_text = gar_spec_copy_text(text, file_len);
    bool is_stdin = file_text != NULL && strcmp(file_text, "-") == 0;
    char *path = NULL;
    if (is_stdin)
        path = gar_spec_copy_text("standard input", strlen("standard input"));
    else if (file_text != NULL)
        path = gar_spec_joined_path(base_dir, file_text);
    gar_free(file_text);
    h.name = gar_spec_copy_text(text, strlen(text));
    int rc = path == NULL || h.name == NULL ? gar_spec_out_of_memory(err) : 0;
    size_t len = 0;
    if (rc == 0)
        rc = host_text(path, is_stdin, file, from_stdin, &h.text, &len, err);
    if (rc == 0)
        rc = gar_host_profile_parse(h.text, len, path, &h.profile, err);
    if (rc == 0) {
        /* The database keeps the profile's text; its source only says where
         * it came from. */
        h.source = is_stdin ? gar_spec_copy_text(path, strlen(path)) : realpath(path, NULL);
        if (h.source == NULL)
            rc = is_stdin ? gar_spec_out_of_memory(err)
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
                rc = gar_spec_out_of_memory(err);
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
        gar_spec_host_free(&h);
        return rc;
    }
    gar_sweep_hash_hex(gar_sweep_host_hash(&h.profile), h.hash);
    *out = h;
    return 0;
}
