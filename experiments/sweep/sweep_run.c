/* experiments/sweep/sweep_run.c — workers replay, the main thread stores. */
#include "sweep/sweep_run.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "import/content_hash.h"
#include "sweep/progress.h"

/* One finished run on its way from a worker to the main thread. */
typedef struct result {
    uint64_t index; /* in the canonical order */
    uint64_t slot;  /* its place in the list of replays (for its twins) */
    int rc;
    gar_error err;
    gar_replay_metrics metrics;
    gar_replay_streams streams; /* owned: freed by whoever drops or stores the result */
    char plan_ran[GAR_BANDS_LABEL_BYTES]; /* the plan as the host runs it */
    uint64_t run_ns;
} result;

/* What the workers share.  `next` hands out work without a lock; the ring
 * is guarded by `lock`. */
typedef struct pool {
    const gar_sweep_spec *spec;
    const uint64_t *pending; /* canonical indices still to run */
    uint64_t pending_count;
    atomic_uint_fast64_t next;
    atomic_bool stop;        /* the main thread gave up: drop results */

    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    result *ring;
    size_t capacity, head, count;
} pool;

static void replay_one(const gar_sweep_spec *spec, uint64_t index, gar_replay_scratch *scratch,
                       result *out)
{
    gar_sweep_run run = gar_sweep_run_at(spec, index);
    out->index = index;
    out->streams = (gar_replay_streams){ NULL, 0 };
    gar_error_clear(&out->err);
    double t0 = gar_progress_now();
    gar_estimator_spec estimator = gar_sweep_run_estimator(spec, &run);
    gar_bands running;
    gar_sweep_resolve(&spec->plans[run.plan].bands, &spec->hosts[run.host].profile, &running,
                      out->plan_ran, sizeof out->plan_ran);
    out->rc = gar_sweep_replay(&spec->traces[run.trace], &running, &estimator,
                               &spec->hosts[run.host].profile, spec->modes[run.mode],
                               spec->seeds[run.seed], NULL, NULL, scratch, &out->metrics,
                               &out->streams, &out->err);
    out->run_ns = (uint64_t)((gar_progress_now() - t0) * 1e9);
}

static void *worker(void *arg)
{
    pool *p = arg;
    /* The worker's replays share one scratch (NULL when out of memory: each
     * replay then allocates its own, and says so if it cannot). */
    gar_replay_scratch *scratch = gar_replay_scratch_new();
    for (;;) {
        uint64_t k = atomic_fetch_add(&p->next, 1);
        if (k >= p->pending_count || atomic_load(&p->stop))
            break;
        result r;
        replay_one(p->spec, p->pending[k], scratch, &r);
        r.slot = k;
        pthread_mutex_lock(&p->lock);
        while (p->count == p->capacity && !atomic_load(&p->stop))
            pthread_cond_wait(&p->not_full, &p->lock);
        bool kept = !atomic_load(&p->stop);
        if (kept) {
            p->ring[(p->head + p->count) % p->capacity] = r;
            p->count++;
            pthread_cond_signal(&p->not_empty);
        }
        pthread_mutex_unlock(&p->lock);
        if (!kept)
            gar_replay_streams_free(&r.streams);
    }
    gar_replay_scratch_free(scratch);
    return NULL;
}

static gar_db_run key_of(const gar_sweep_spec *spec, uint64_t index)
{
    gar_sweep_run run = gar_sweep_run_at(spec, index);
    gar_db_run key = {
        .trace = spec->traces[run.trace].hash,
        .trace_name = spec->traces[run.trace].name,
        .plan = spec->plans[run.plan].label,
        .estimator = gar_sweep_run_estimator_label(spec, &run),
        .host = spec->hosts[run.host].hash,
        .host_name = spec->hosts[run.host].name,
        .mode = gar_replay_mode_name(spec->modes[run.mode]),
        .seed = spec->seeds[run.seed],
    };
    return key;
}

/* Runs already stored whose parameters are still to be added. */
#define PRESENT_BATCH 256
typedef struct present_entry {
    gar_db_run run;
    gar_sweep_param params[4 * GAR_SWEEP_PARAMS_MAX];
} present_entry;
typedef struct present_batch {
    present_entry entry[PRESENT_BATCH];
    const gar_db_run *runs[PRESENT_BATCH];
    size_t count;
} present_batch;

static int flush_present(gar_db *db, present_batch *b, gar_error *err)
{
    for (size_t i = 0; i < b->count; i++)
        b->runs[i] = &b->entry[i].run;
    int rc = b->count > 0 ? gar_db_add_params(db, b->runs, b->count, err) : 0;
    b->count = 0;
    return rc;
}

/* The shard's runs that the database lacks, in the canonical order. */
static int list_pending(const gar_sweep_spec *spec, gar_db *db,
                        const gar_sweep_options *o, uint64_t **pending, gar_sweep_stats *stats,
                        gar_error *err)
{
    uint64_t *list = malloc((size_t)spec->runs * sizeof *list);
    if (list == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep's run list",
                             "exhausted");
    uint64_t n = 0;
    double t0 = gar_progress_now();
    /* A run already stored (by another spec that wrote this plan out, say)
     * still gets this spec's parameters: in batches, a transaction each. */
    present_batch *batch = spec->swept_count > 0 ? calloc(1, sizeof *batch) : NULL;
    if (spec->swept_count > 0 && batch == NULL) {
        free(list);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep's run list",
                             "exhausted");
    }
    int rc = 0;
    for (uint64_t i = 0; rc == 0 && i < spec->runs; i++) {
        gar_sweep_run run = gar_sweep_run_at(spec, i);
        if (gar_sweep_run_key_hash(spec, &run) % o->shards != o->shard)
            continue;
        stats->in_shard++;
        gar_db_run key = key_of(spec, i);
        rc = gar_db_has(db, &key, err);
        if (rc == 1) {
            stats->present++;
            rc = 0;
            if (batch != NULL) {
                present_entry *e = &batch->entry[batch->count];
                e->run = key;
                e->run.params = e->params;
                e->run.param_count = gar_sweep_run_params(spec, &run, e->params);
                if (e->run.param_count > 0 && ++batch->count == PRESENT_BATCH)
                    rc = flush_present(db, batch, err);
            }
        } else if (rc == 0) {
            list[n++] = i;
        }
    }
    if (rc == 0 && batch != NULL)
        rc = flush_present(db, batch, err);
    free(batch);
    if (rc < 0) {
        free(list);
        return rc;
    }
    stats->store_s += gar_progress_now() - t0;
    *pending = list;
    return (int)(n > 0);
}

/* The test hook GAR_SWEEP_CRASH_AFTER=N (sweep_run.h): the process kills
 * itself (SIGKILL, as kill -9 would) once it has stored N runs. */
static void crash_if_asked(uint64_t stored)
{
    static long long after = -2; /* -2: not read yet; -1: not asked */
    if (after == -2) {
        const char *text = getenv("GAR_SWEEP_CRASH_AFTER");
        char *end = NULL;
        long long n = text != NULL ? strtoll(text, &end, 10) : -1;
        after = text != NULL && end != text && *end == '\0' && n > 0 ? n : -1;
    }
    if (after > 0 && stored == (uint64_t)after)
        raise(SIGKILL);
}

static int store_result(const gar_sweep_spec *spec, gar_db *db, const result *r,
                        gar_sweep_stats *stats, gar_error *err)
{
    gar_db_run row = key_of(spec, r->index);
    gar_sweep_param params[4 * GAR_SWEEP_PARAMS_MAX];
    gar_sweep_run run = gar_sweep_run_at(spec, r->index);
    /* A trace cache cut short under the sweep ends it, storing nothing
     * of the run: the trace's other runs could not be read either. */
    if (r->rc < 0 && gar_trace_cache_intact(&spec->traces[run.trace].cache, err) < 0)
        return r->rc;
    row.params = params;
    row.param_count = gar_sweep_run_params(spec, &run, params);
    row.plan_ran = r->plan_ran;
    row.failure = r->rc < 0 ? &r->err : NULL;
    row.metrics = &r->metrics;
    row.streams = &r->streams;
    row.run_ns = r->run_ns;
    /* The notes of this key (a twin's differ from its original's in the
     * fallback alone): the bands as the host ran them, and a fallback where
     * the label ran is not the one asked for. */
    gar_replay_notes notes;
    if (r->rc >= 0) {
        const gar_bands *asked = &spec->plans[run.plan].bands;
        gar_bands running;
        char ran[GAR_BANDS_LABEL_BYTES], wanted[GAR_BANDS_LABEL_BYTES];
        gar_sweep_resolve(asked, &spec->hosts[run.host].profile, &running, ran, sizeof ran);
        gar_bands_label(asked, wanted, sizeof wanted);
        gar_estimator_spec estimator = gar_sweep_run_estimator(spec, &run);
        gar_replay_notes_of(&r->metrics, &running, &estimator,
                            strcmp(ran, wanted) != 0 ? r->plan_ran : NULL, &notes);
        row.notes = &notes;
    }
    double t0 = gar_progress_now();
    int rc = gar_db_insert(db, &row, err);
    stats->store_s += gar_progress_now() - t0;
    if (rc < 0)
        return rc;
    stats->ran++;
    stats->replay_s += (double)r->run_ns * 1e-9;
    if (r->rc < 0)
        stats->failed++;
    else
        stats->ok++;
    if (rc == 0)
        stats->raced++;
    crash_if_asked(stats->ran);
    return 0;
}

/* ---- twins: runs that would replay exactly the same ------------------- */

/* Two runs are twins when they differ only in a plan that this host runs as
 * the same plan (on a host without word wait, `flag` runs as `poll`): the
 * replay is a function of the running plan, so one replay serves both, and
 * each still gets its own row under its own key. */
typedef struct twins {
    uint64_t *replays;     /* canonical indices to replay, in the canonical order */
    uint64_t replay_count;
    uint64_t *first;       /* per replay: the pending position of its first twin, or NONE */
    uint64_t *next;        /* per pending position: the next twin of the same replay, or NONE */
    const uint64_t *pending; /* borrowed */
} twins;
#define NONE UINT64_MAX

/* canon[plan * hosts + host]: the first plan that runs as `plan` does on `host`. */
static size_t *canonical_plans(const gar_sweep_spec *spec)
{
    size_t hosts = spec->host_count;
    size_t *canon = malloc(spec->plan_count * hosts * sizeof *canon);
    gar_bands *running = malloc(spec->plan_count * hosts * sizeof *running);
    if (canon == NULL || running == NULL) {
        free(canon);
        free(running);
        return NULL;
    }
    char label[GAR_BANDS_LABEL_BYTES];
    for (size_t p = 0; p < spec->plan_count; p++)
        for (size_t h = 0; h < hosts; h++) {
            gar_bands *r = &running[p * hosts + h];
            gar_sweep_resolve(&spec->plans[p].bands, &spec->hosts[h].profile, r, label,
                              sizeof label);
            /* Compare what runs, not how it came to run. */
            for (uint32_t b = 0; b < r->count; b++) {
                r->band[b].plan.fell_back = false;
                r->band[b].plan.requested_park = r->band[b].plan.park;
            }
            canon[p * hosts + h] = p;
            for (size_t q = 0; q < p; q++)
                if (gar_bands_equal(&running[q * hosts + h], r)) {
                    canon[p * hosts + h] = q;
                    break;
                }
        }
    free(running);
    return canon;
}

typedef struct exec_key {
    uint64_t hash;
    uint64_t pos; /* pending position */
    size_t field[6];
} exec_key;

static int by_hash_then_pos(const void *a, const void *b)
{
    const exec_key *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

static void twins_free(twins *t)
{
    free(t->replays);
    free(t->first);
    free(t->next);
    memset(t, 0, sizeof *t);
}

static int find_twins(const gar_sweep_spec *spec, const uint64_t *pending, uint64_t n,
                      twins *t, gar_error *err)
{
    memset(t, 0, sizeof *t);
    t->pending = pending;
    size_t *canon = canonical_plans(spec);
    exec_key *keys = malloc((size_t)n * sizeof *keys);
    uint64_t *leader = malloc((size_t)n * sizeof *leader); /* pending pos -> its leader's */
    uint64_t *slot = malloc((size_t)n * sizeof *slot);     /* leader's pos -> replay slot */
    uint64_t *last = malloc((size_t)n * sizeof *last);     /* slot -> its last twin so far */
    t->replays = malloc((size_t)n * sizeof *t->replays);
    t->first = malloc((size_t)n * sizeof *t->first);
    t->next = malloc((size_t)n * sizeof *t->next);
    int rc = 0;
    if (canon == NULL || keys == NULL || leader == NULL || slot == NULL || last == NULL ||
        t->replays == NULL || t->first == NULL || t->next == NULL) {
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep's run list",
                           "exhausted");
        goto out;
    }
    for (uint64_t i = 0; i < n; i++) {
        gar_sweep_run r = gar_sweep_run_at(spec, pending[i]);
        exec_key *k = &keys[i];
        k->pos = i;
        k->field[0] = r.trace;
        k->field[1] = canon[r.plan * spec->host_count + r.host];
        k->field[2] = r.estimator;
        k->field[3] = r.host;
        k->field[4] = r.mode;
        k->field[5] = r.seed;
        k->hash = GAR_HASH_OFFSET;
        for (int f = 0; f < 6; f++)
            k->hash = gar_hash_u64(k->hash, k->field[f]);
        leader[i] = i;
        t->next[i] = NONE;
    }
    qsort(keys, (size_t)n, sizeof *keys, by_hash_then_pos);
    /* Within one hash, the earliest position of each exact key leads. */
    for (uint64_t i = 0; i < n;) {
        uint64_t end = i;
        while (end < n && keys[end].hash == keys[i].hash)
            end++;
        for (uint64_t a = i + 1; a < end; a++)
            for (uint64_t b = i; b < a; b++)
                if (leader[keys[b].pos] == keys[b].pos &&
                    memcmp(keys[a].field, keys[b].field, sizeof keys[a].field) == 0) {
                    leader[keys[a].pos] = keys[b].pos;
                    break;
                }
        i = end;
    }
    /* Leaders replay, in the canonical order; each twin is chained behind its
     * leader's slot, in the canonical order too. */
    for (uint64_t i = 0; i < n; i++) {
        if (leader[i] != i)
            continue;
        slot[i] = t->replay_count;
        t->first[t->replay_count] = NONE;
        last[t->replay_count] = NONE;
        t->replays[t->replay_count++] = pending[i];
    }
    for (uint64_t i = 0; i < n; i++) {
        if (leader[i] == i)
            continue;
        uint64_t s = slot[leader[i]];
        if (last[s] == NONE)
            t->first[s] = i;
        else
            t->next[last[s]] = i;
        last[s] = i;
    }
out:
    free(canon);
    free(keys);
    free(leader);
    free(slot);
    free(last);
    if (rc < 0)
        twins_free(t);
    return rc;
}

static int run_pool(const gar_sweep_spec *spec, gar_db *db, const gar_sweep_options *o,
                    const twins *t, uint64_t count, gar_sweep_stats *stats, gar_error *err)
{
    pool p;
    memset(&p, 0, sizeof p);
    p.spec = spec;
    p.pending = t->replays;
    p.pending_count = t->replay_count;
    atomic_init(&p.next, 0);
    atomic_init(&p.stop, false);
    p.capacity = 4 * (size_t)o->jobs;
    p.ring = malloc(p.capacity * sizeof *p.ring);
    pthread_t *threads = malloc(o->jobs * sizeof *threads);
    if (p.ring == NULL || threads == NULL) {
        free(p.ring);
        free(threads);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep's workers",
                             "exhausted");
    }
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.not_empty, NULL);
    pthread_cond_init(&p.not_full, NULL);

    int rc = 0;
    unsigned started = 0;
    for (; started < o->jobs; started++)
        if (pthread_create(&threads[started], NULL, worker, &p) != 0)
            break;
    if (started == 0)
        rc = gar_error_set(err, GAR_E_CAPACITY, 2, "the sweep's worker threads", "0 started");

    gar_progress bar;
    gar_progress_start(&bar, o->progress, o->progress_terminal, "sweep", count);
    uint64_t stored = 0;
    while (rc == 0 && stored < count) {
        pthread_mutex_lock(&p.lock);
        while (p.count == 0)
            pthread_cond_wait(&p.not_empty, &p.lock);
        result r = p.ring[p.head];
        p.head = (p.head + 1) % p.capacity;
        p.count--;
        pthread_cond_signal(&p.not_full);
        pthread_mutex_unlock(&p.lock);
        rc = store_result(spec, db, &r, stats, err);
        if (rc == 0)
            stored++;
        for (uint64_t j = t->first[r.slot]; rc == 0 && j != NONE; j = t->next[j]) {
            result twin = r;
            twin.index = t->pending[j];
            twin.run_ns = 0; /* not replayed: copied from its twin */
            gar_sweep_run run = gar_sweep_run_at(spec, twin.index);
            gar_bands running;
            gar_sweep_resolve(&spec->plans[run.plan].bands, &spec->hosts[run.host].profile,
                              &running, twin.plan_ran, sizeof twin.plan_ran);
            rc = store_result(spec, db, &twin, stats, err);
            if (rc == 0) {
                stored++;
                stats->copied++;
            }
        }
        gar_replay_streams_free(&r.streams); /* the twins shared it */
        if (rc == 0)
            gar_progress_update(&bar, stored);
    }
    if (rc < 0) {
        pthread_mutex_lock(&p.lock);
        atomic_store(&p.stop, true);
        pthread_cond_broadcast(&p.not_full);
        pthread_mutex_unlock(&p.lock);
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    gar_progress_finish(&bar, stored);
    for (; p.count > 0; p.count--, p.head = (p.head + 1) % p.capacity)
        gar_replay_streams_free(&p.ring[p.head].streams); /* results left when it gave up */

    pthread_cond_destroy(&p.not_full);
    pthread_cond_destroy(&p.not_empty);
    pthread_mutex_destroy(&p.lock);
    free(threads);
    free(p.ring);
    return rc;
}

int gar_sweep_execute(const gar_sweep_spec *spec, gar_db *db,
                      const gar_sweep_options *o, gar_sweep_stats *stats, gar_error *err)
{
    const char *fn = "gar_sweep_execute";
    if (spec == NULL || db == NULL || o == NULL || stats == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "spec, db, options or stats",
                             "is NULL");
    if (o->jobs < 1 || o->jobs > GAR_SWEEP_JOBS_MAX)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "jobs", "is not 1..1024");
    if (o->shards < 1 || o->shard >= o->shards)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "shard",
                             "is not 0..shards-1 of at least one shard");
    memset(stats, 0, sizeof *stats);
    stats->runs = spec->runs;
    double t0 = gar_progress_now();
    double s0 = gar_progress_now();
    int rc = gar_db_put_sources(db, spec, err);
    stats->store_s += gar_progress_now() - s0;
    uint64_t *pending = NULL;
    if (rc == 0)
        rc = list_pending(spec, db, o, &pending, stats, err);
    if (rc > 0) {
        uint64_t count = stats->in_shard - stats->present;
        unsigned jobs = o->jobs;
        twins t;
        rc = find_twins(spec, pending, count, &t, err);
        if (rc == 0) {
            gar_sweep_options fitted = *o;
            fitted.jobs = t.replay_count < jobs ? (unsigned)t.replay_count : jobs;
            rc = run_pool(spec, db, &fitted, &t, count, stats, err);
            twins_free(&t);
        }
    }
    free(pending);
    stats->wall_s = gar_progress_now() - t0;
    return rc < 0 ? rc : 0;
}
