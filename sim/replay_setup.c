/* sim/replay_setup.c — a replay's config checked, and its run set up and
 * released.
 *
 * Owns the config's defaults and checks, the mode's names, the replay's
 * scratch (its blocks of memory, kept between runs), gar_replay_lead_of,
 * the run's start (sketches, auto rule, device, host) and release, and
 * the state of each stream and point as the blocks first name them.
 * Nothing here runs per wait (replay_parts.h). */
#include "sim/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/family_rule.h"
#include "core/nearest_rank.h"
#include "sim/replay_parts.h"

void gar_replay_config_init(gar_replay_config *config)
{
    if (config == NULL)
        return;
    memset(config, 0, sizeof *config);
    config->estimator = gar_estimator_spec_default();
    config->mode = GAR_REPLAY_OPEN;
    config->wait_deadline_ns = GAR_REPLAY_DEADLINE_DEFAULT_NS;
    config->fault = GAR_SIM_FAULT_NONE;
    config->ci_level = GAR_CI_LEVEL_DEFAULT;
}

const char *gar_replay_mode_name(gar_replay_mode mode)
{
    switch (mode) {
    case GAR_REPLAY_OPEN:
        return "open";
    case GAR_REPLAY_CLOSED:
        return "closed";
    }
    return "?";
}

int gar_replay_mode_from_name(const char *name)
{
    if (name != NULL && strcmp(name, "open") == 0)
        return GAR_REPLAY_OPEN;
    if (name != NULL && strcmp(name, "closed") == 0)
        return GAR_REPLAY_CLOSED;
    return -1;
}

int gar__replay_check_config(const gar_replay_config *c, gar_error *err)
{
    const char *fn = "gar_replay_run";
    if (c == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "config", "is NULL");
    if (c->host == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "host", "is NULL");
    if ((c->trace == NULL) == (c->rows == NULL))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "trace and rows",
                             "are not exactly one given");
    if ((c->plan == NULL) == (c->bands == NULL))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "plan and bands",
                             "are not exactly one given");
    if (c->bands != NULL && (c->bands->count < 1 || c->bands->count > GAR_BANDS_MAX))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "bands", "has no band or too many");
    if (c->trace != NULL && c->trace->count == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "trace", "has no rows");
    if (c->wait_deadline_ns == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "wait_deadline_ns", "is 0");
    if (c->mode != GAR_REPLAY_OPEN && c->mode != GAR_REPLAY_CLOSED)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "mode", "is neither open nor closed");
    if (!(c->ci_level > 0.0 && c->ci_level < 1.0))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "ci_level",
                             "is not between 0 and 1 (exclusive)");
    if (strcmp(gar_sim_fault_name(c->fault), "?") == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "fault", "is not a gar_sim_fault");
    char label[GAR_ESTIMATOR_LABEL_BYTES];
    gar_estimator_spec_label(&c->estimator, label, sizeof label);
    if (strcmp(label, "?") == 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, fn, "estimator", "is of no family");
    return 0;
}

gar_replay_scratch *gar_replay_scratch_new(void)
{
    gar_replay_scratch *s = calloc(1, sizeof(gar_replay_scratch));
    if (s != NULL) {
        gar_quantile_sketch_init(&s->overshoot, 0);
        gar_quantile_sketch_init(&s->est_error, 0);
    }
    return s;
}

void gar_replay_scratch_free(gar_replay_scratch *scratch)
{
    if (scratch == NULL)
        return;
    gar_quantile_sketch_free(&scratch->overshoot);
    gar_quantile_sketch_free(&scratch->est_error);
    free(scratch->sort_space.at);
    free(scratch->estimators.at);
    free(scratch->streams.at);
    free(scratch->slots.at);
    free(scratch->points.at);
    free(scratch);
}

/* `b` holding at least `count` items of `size` bytes (its contents not
 * kept).  False when memory runs out (or the size overflows); `b` is
 * unchanged then. */
bool gar__replay_reserve(block *b, size_t count, size_t size)
{
    if (count > SIZE_MAX / size)
        return false;
    size_t bytes = count * size;
    if (bytes <= b->bytes && b->at != NULL)
        return true;
    void *at = malloc(bytes > 0 ? bytes : 1);
    if (at == NULL)
        return false;
    free(b->at);
    *b = (block){ at, bytes };
    return true;
}

/* `b` holding at least `count` items of `size` bytes, its first bytes kept
 * (room doubles, so a run that learns its points one by one copies little).
 * False when memory runs out; `b` is unchanged then. */
bool gar__replay_grow(block *b, size_t count, size_t size)
{
    if (count > SIZE_MAX / 2 / size)
        return false;
    if (count * size <= b->bytes && b->at != NULL)
        return true;
    size_t bytes = count * size > 2 * b->bytes ? count * size : 2 * b->bytes;
    void *at = realloc(b->at, bytes > 0 ? bytes : 1);
    if (at == NULL)
        return false;
    *b = (block){ at, bytes };
    return true;
}

/* A sketch readied for a run exact up to `limit` values. */
static void sketch_ready(gar_quantile_sketch *sk, size_t limit)
{
    if (sk->capacity > limit || sk->limit != limit) {
        gar_quantile_sketch_free(sk);
        gar_quantile_sketch_init(sk, limit);
    }
    gar_quantile_sketch_reset(sk);
}

int gar__replay_out_of_memory(gar_error *err)
{
    return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay", "exhausted");
}

static bool bands_have_auto(const gar_bands *bands)
{
    for (uint32_t b = 0; b < bands->count; b++)
        if (bands->band[b].plan.park == GAR_PARK_AUTO)
            return true;
    return false;
}

int gar_replay_lead_of(gar_replay_rows_fn rows, void *context, gar_dur_ns *out, gar_error *err)
{
    if (rows == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_lead_of",
                             rows == NULL ? "rows" : "out", "is NULL");
    gar_quantile_sketch residuals;
    gar_quantile_sketch_init(&residuals, 0);
    const gar_trace_row *row;
    size_t count;
    int rc;
    while ((rc = rows(context, &row, &count, err)) > 0)
        for (size_t i = 0; i < count && rc > 0; i++)
            if (!gar_quantile_sketch_add(&residuals, gar_since(row[i].done_ns, row[i].start_ns)))
                rc = gar__replay_out_of_memory(err);
    *out = 0;
    if (rc == 0 && residuals.count > 0) {
        uint64_t *tmp = residuals.histogram ? NULL : malloc((size_t)residuals.count * 8);
        if (!residuals.histogram && tmp == NULL) {
            rc = gar__replay_out_of_memory(err);
        } else {
            const size_t rank[] = { gar_nearest_rank_index((size_t)residuals.count, 500000) };
            gar_sketch_bucket median;
            gar_quantile_sketch_select(&residuals, tmp, rank, 1, &median);
            *out = gar_sketch_bucket_mid(median);
        }
        free(tmp);
    }
    gar_quantile_sketch_free(&residuals);
    return rc;
}

void gar__replay_run_release(run *r)
{
    gar_key_index_free(&r->stream_keys);
    gar_key_index_free(&r->point_keys);
    free(r->stream_id.at);
    if (r->autos != NULL) {
        free(r->autos->points.at);
        free(r->autos);
    }
    for (size_t s = 0; s < r->streams_ready && r->stream_sketch != NULL; s++)
        gar_stream_sketch_free(&r->stream_sketch[s]);
    free(r->stream_sketch);
    gar_sim_device_free(&r->dev);
    if (r->own_scratch)
        gar_replay_scratch_free(r->scratch);
}

/* Sets up the state of streams and points numbered since the last block:
 * cold estimators and auto histories, empty streams and their sketches,
 * and room on the device.  Returns 0 or a refusal. */
int gar__replay_fit_numbers(run *r, gar_error *err)
{
    gar_replay_scratch *s = r->scratch;
    if (r->points > r->points_ready) {
        if (!gar__replay_grow(&s->estimators, r->points, sizeof(gar_family_point)) ||
            (r->autos != NULL &&
             !gar__replay_grow(&r->autos->points, r->points, sizeof(gar_auto_point))))
            return gar__replay_out_of_memory(err);
        gar_family_point *estimators = s->estimators.at;
        for (size_t p = r->points_ready; p < r->points; p++)
            gar_family_point_init(&estimators[p]);
        if (r->autos != NULL)
            memset((gar_auto_point *)r->autos->points.at + r->points_ready, 0,
                   (r->points - r->points_ready) * sizeof(gar_auto_point));
        r->points_ready = r->points;
    }
    if (r->streams > r->streams_ready) {
        if (!gar__replay_grow(&s->streams, r->streams, sizeof(stream_state)))
            return gar__replay_out_of_memory(err);
        memset((stream_state *)s->streams.at + r->streams_ready, 0,
               (r->streams - r->streams_ready) * sizeof(stream_state));
        if (r->config->streams_out != NULL) {
            if (r->streams > r->stream_sketch_room) {
                size_t room = r->streams > 2 * r->stream_sketch_room ? r->streams
                                                                     : 2 * r->stream_sketch_room;
                gar_stream_sketch *more = realloc(r->stream_sketch, room * sizeof *more);
                if (more == NULL)
                    return gar__replay_out_of_memory(err);
                r->stream_sketch = more;
                r->stream_sketch_room = room;
            }
            for (size_t k = r->streams_ready; k < r->streams; k++) {
                gar_stream_sketch_init(&r->stream_sketch[k], r->limit);
                r->stream_sketch[k].histogram = r->streams_histogram;
            }
            if (r->stream0_shadowed && r->streams > 1) {
                /* Every wait so far was on the first stream. */
                gar_stream_sketch *first = &r->stream_sketch[0];
                if (!gar_stream_sketch_from(first, &s->overshoot) ||
                    (r->streams_histogram && !gar_stream_sketch_to_histogram(first)))
                    return gar__replay_out_of_memory(err);
                r->stream0_shadowed = false;
            }
        }
        r->streams_ready = r->streams;
        if (r->streams > r->dev.options.streams) {
            if (r->streams > GAR_SIM_STREAMS_MAX)
                return gar_error_set(err, GAR_E_CAPACITY, 2, "the replay's streams",
                                     "more than a simulated device takes");
            size_t room = 2 * (size_t)r->dev.options.streams;
            if (room < r->streams)
                room = r->streams;
            if (room > GAR_SIM_STREAMS_MAX)
                room = GAR_SIM_STREAMS_MAX;
            int rc = gar_sim_device_grow(&r->dev, (unsigned)room, err);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* Finds or makes the run's scratch, readies its sketches, and sets up the
 * auto rule, the device and the host.  Returns 0 or a refusal; release the
 * run either way. */
int gar__replay_run_start(run *r, gar_replay_rows_fn rows, void *context, gar_error *err)
{
    const gar_replay_config *c = r->config;
    r->limit = c->exact_max > 0 ? c->exact_max : GAR_SKETCH_EXACT_MAX;
    r->scratch = c->scratch;
    if (r->scratch == NULL) {
        r->scratch = gar_replay_scratch_new();
        r->own_scratch = true;
        if (r->scratch == NULL)
            return gar__replay_out_of_memory(err);
    }
    sketch_ready(&r->scratch->overshoot, r->limit);
    sketch_ready(&r->scratch->est_error, r->limit);
    /* Room for the default budget's values in two steps, the second in
     * huge pages (gar_quantile_sketch_expect): a long run would otherwise
     * copy them at each doubling and fault every 4 KiB page of them in (a
     * run that stays short touches only what it fills).  Without the
     * memory, they grow as they fill. */
    gar_quantile_sketch_expect(&r->scratch->overshoot, GAR_SKETCH_EXACT_MAX);
    gar_quantile_sketch_expect(&r->scratch->est_error, GAR_SKETCH_EXACT_MAX);
    bool keys_ready = gar_key_index_init(&r->stream_keys); /* both made: both freed */
    keys_ready = gar_key_index_init(&r->point_keys) && keys_ready;
    if (!keys_ready)
        return gar__replay_out_of_memory(err);
    if (r->index != NULL) {
        r->streams = r->index->streams;
        r->points = r->index->points;
    }
    int rc;
    if (bands_have_auto(r->bands)) {
        gar_dur_ns lead = c->lead_ns;
        if (!c->has_lead && (rc = gar_replay_lead_of(rows, context, &lead, err)) < 0)
            return rc;
        gar_auto_host auto_host;
        gar_auto_host_from_profile(c->host, lead, &auto_host);
        r->autos = calloc(1, sizeof *r->autos);
        if (r->autos == NULL)
            return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the auto rule", "exhausted");
        if ((rc = gar_auto_init(&r->autos->policy, &auto_host, err)) < 0)
            return rc;
    }
    gar_sim_device_options dev_options = {
        .streams = r->streams > 0 ? (unsigned)r->streams : 8,
        .store_delay_ns = c->store_delay_ns,
        .late_store_ns = c->late_store_ns,
    };
    if ((rc = gar_sim_device_init(&r->dev, &dev_options, err)) < 0)
        return rc;
    r->stream0_shadowed = c->streams_out != NULL;
    if ((rc = gar__replay_fit_numbers(r, err)) < 0)
        return rc;
    if ((rc = gar_sim_host_init(&r->host, c->host, c->seed, err)) < 0)
        return rc;
    r->host.exact_polls = c->exact_polls;
    return 0;
}

/* What gar__replay_check_config cannot see alone, checked with the run's bands: each
 * predicting plan's deadline against the estimator (the waits run the
 * estimator's rule unchecked, core/family_rule.h), an auto plan's lead
 * over streamed rows, and the index against the trace.  Returns 0 or the
 * refusal. */
int gar__replay_check_run(const gar_replay_config *config, const gar_bands *bands,
                          gar_error *err)
{
    int rc;
    for (size_t k = 0; config->estimator.family != GAR_ESTIMATOR_NONE && k < bands->count; k++)
        if (bands->band[k].plan.predict &&
            (rc = gar__family_check(&config->estimator, &bands->band[k].plan.deadline,
                                    "gar_replay_run", err)) < 0)
            return rc;
    if (config->trace == NULL && bands_have_auto(bands) && !config->has_lead)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "lead_ns",
                             "is not given for an auto plan over streamed rows (gar_replay_lead_of"
                             " reads it from a first pass)");
    if (config->index != NULL && (config->trace == NULL || config->index->rows != config->trace->count))
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "index",
                             "was built for another trace (its row count differs)");
    return 0;
}
