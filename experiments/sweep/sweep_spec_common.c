/* experiments/sweep/sweep_spec_common.c — the spec reader's small helpers
 * (sweep_spec_common.h), the content hashes of traces and hosts, and a
 * run's swept parameters (sweep_spec.h). */
#include "sweep/sweep_spec_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/trace/alloc.h"
#include "sim/trace/whole_file.h"
#include "sweep/sweep_spec.h"

void gar_sweep_hash_hex(uint64_t hash, char out[GAR_HASH_HEX_BYTES])
{
    snprintf(out, GAR_HASH_HEX_BYTES, "%016llx", (unsigned long long)hash);
}

char *gar_spec_copy_text(const char *text, size_t len)
{
    char *copy = gar_malloc(len + 1);
    if (copy != NULL) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    return copy;
}

/* A plain decimal u64: digits only, no sign or space, no overflow. */
int gar_spec_parse_whole(const char *text, unsigned long long *out)
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

int gar_spec_out_of_memory(gar_error *err)
{
    return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep spec", "exhausted");
}

/* Adds " (FILE:LINE)" to the last argument of a refusal from a loader, so the
 * message says both what was wrong and where the spec asked for it. */
int gar_spec_located(gar_error *err, int rc, const char *file, unsigned line)
{
    if (err != NULL && err->argc > 0) {
        char *last = err->argv[err->argc - 1];
        size_t used = strlen(last);
        snprintf(last + used, GAR_ERROR_ARG_BYTES - used, " (%s:%u)", file, line);
    }
    return rc;
}

/* A fault of the spec's own grammar. */
int gar_spec_fault(gar_error *err, const char *file, unsigned line, const char *keyword,
                   const char *fault)
{
    char where[GAR_ERROR_ARG_BYTES];
    snprintf(where, sizeof where, "%s:%u", file, line);
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, where, keyword, fault);
}

/* Reads a whole file of at most `limit` bytes into a NUL-terminated buffer;
 * the path "-" is standard input (named so in errors). */
int gar_spec_read_whole(const char *path, size_t limit, char **text, size_t *len, gar_error *err)
{
    int rc = gar_whole_file_read(path, limit, text, len, err);
    if (rc == GAR_WHOLE_FILE_NO_MEMORY)
        return gar_spec_out_of_memory(err);
    if (rc == GAR_WHOLE_FILE_TOO_LARGE) {
        char why[96];
        snprintf(why, sizeof why, "is larger than %zu bytes, the most a spec or profile may be",
                 limit);
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3,
                             strcmp(path, "-") == 0 ? "standard input" : path, "file", why);
    }
    return rc;
}

/* `path` taken from `base_dir` unless it is absolute (malloc'd). */
char *gar_spec_joined_path(const char *base_dir, const char *path)
{
    if (path[0] == '/' || base_dir == NULL || base_dir[0] == '\0')
        return gar_spec_copy_text(path, strlen(path));
    size_t a = strlen(base_dir), b = strlen(path);
    char *out = gar_malloc(a + 1 + b + 1);
    if (out != NULL)
        snprintf(out, a + 1 + b + 1, "%s/%s", base_dir, path);
    return out;
}

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
