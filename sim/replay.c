/* sim/replay.c — a trace's waits, in order, on a simulated device and host.
 *
 * The rows come a block at a time (a trace in memory in slices, a streamed
 * one as its source reads it).  Before each block its rows are numbered
 * (from the index, or by key as they first appear) and the state of any
 * stream or point new in it is set up; the loop over the block then only
 * adds each wait's values to the sketches, which grow up to their budget
 * and then count in histograms (quantile_sketch.h).
 *
 * This file owns the run itself: gar_replay_run, the numbering of each
 * block's rows and the loop over its waits (replay_block), with the
 * helpers the loop calls each wait beside it so that they inline: a
 * wait's plan (choose_plan), its times on the simulated clock
 * (place_wait, deadline_of), its sleep (predict_sleep), the host's change
 * when due (change_host_when_due), and what it leaves: its overshoot and
 * what went wrong (record_wait), the observer's view (show_wait) and the
 * totals (add_wait).  The config's checks, setup and teardown are
 * replay_setup.c's; the numbers gathered into the results are
 * replay_output.c's (replay_parts.h). */
#include "sim/replay.h"

#include <stdlib.h>
#include <string.h>

#include <gar/wait.h>

#include "core/family_rule.h"
#include "sim/replay_parts.h"

/* Adds one wait's result to the run's totals, saturating (wide_sum), so
 * that a sum past 2^63 - 1 is caught by gar__replay_check_range, not wrapped. */
static void add_wait(totals *tot, stream_state *stream, const gar_sim_wait_result *res)
{
    stream->waits++;
    wide_add(&stream->busy, res->busy_ns);
    wide_add(&tot->busy, res->busy_ns);
    wide_add(&tot->parked, res->parked_ns);
    wide_add(&tot->asleep, res->asleep_ns);
    wide_add(&tot->sleeps, res->report.sleeps);
    wide_add(&tot->parks, res->report.parks);
    /* A poll is a query: the two are counted together, saturating, as
     * the metrics have always counted them. */
    wide_add(&tot->queries, gar_after(res->report.queries, res->report.polls));
    wide_add(&tot->polls, res->report.polls);
    wide_add(&tot->backstop_queries, res->report.backstop_queries);
    tot->kinds[(unsigned)res->report.kind <= GAR_WAIT_KIND_PARKED ? res->report.kind
                                                                  : GAR_WAIT_KIND_NONE]++;
}

/* Numbers the block's rows (from the index, or by first appearance) into
 * the scratch's slots and points, the first being row `first` of the trace. */
static bool number_block(run *r, const gar_trace_row *rows, size_t count, uint64_t first)
{
    gar_replay_scratch *s = r->scratch;
    if (!gar__replay_reserve(&s->slots, count, sizeof(uint32_t)) ||
        !gar__replay_reserve(&s->points, count, sizeof(uint32_t)))
        return false;
    uint32_t *slot = s->slots.at, *point = s->points.at;
    if (r->index != NULL) {
        memcpy(slot, r->index->stream_of_row + first, count * sizeof *slot);
        memcpy(point, r->index->point_of_row + first, count * sizeof *point);
        return true;
    }
    /* Rows come in runs of one stream and one point: a key equal to the
     * previous row's has its number (the index gives a key one number), and
     * only a new key is looked up, checked and, for a stream, recorded. */
    uint64_t stream_key = 0, point_key = 0;
    uint32_t stream_no = GAR_KEY_INDEX_NONE, point_no = GAR_KEY_INDEX_NONE;
    for (size_t j = 0; j < count; j++) {
        if (j == 0 || rows[j].stream != stream_key) {
            stream_key = rows[j].stream;
            stream_no = gar_key_index_add(&r->stream_keys, stream_key);
            if (stream_no == GAR_KEY_INDEX_NONE)
                return false;
            if (stream_no == r->streams) { /* a stream named for the first time */
                if (!gar__replay_grow(&r->stream_id, r->streams + 1, sizeof(uint32_t)))
                    return false;
                ((uint32_t *)r->stream_id.at)[r->streams++] = rows[j].stream;
            }
        }
        if (j == 0 || rows[j].point != point_key) {
            point_key = rows[j].point;
            point_no = gar_key_index_add(&r->point_keys, point_key);
            if (point_no == GAR_KEY_INDEX_NONE)
                return false;
        }
        slot[j] = stream_no;
        point[j] = point_no;
    }
    r->points = r->point_keys.count;
    return true;
}

/* The streams' sketches share one budget: once the run's waits pass it,
 * every stream's values go into its histogram. */
static bool streams_over_budget(run *r, uint64_t waits)
{
    if (r->stream_sketch == NULL || r->streams_histogram || waits <= r->limit)
        return true;
    for (size_t k = 0; k < r->streams_ready; k++)
        if (!gar_stream_sketch_to_histogram(&r->stream_sketch[k]))
            return false;
    r->streams_histogram = true;
    return true;
}

/* What one wait runs (choose_plan): its band's plan, or what an auto band's
 * rule chose.  The choice itself stays with the caller: the rule writes it
 * through a pointer, and this, kept apart, can stay in registers. */
typedef struct wait_plan {
    const gar_plan *plan;          /* resolved: what the host runs */
    gar_auto_point *auto_point;    /* an auto band's: the point's history; else NULL */
    const gar_auto_choice *choice; /* with auto_point: the rule's plan and sleep */
    gar_dur_ns budget;             /* an auto band's B */
} wait_plan;

/* Where a wait falls on the simulated clock (place_wait). */
typedef struct wait_times {
    gar_mono_ns start, submit;
    gar_dur_ns duration; /* of its work, once its stream is free */
} wait_times;

/* The sleep a wait takes before it parks (predict_sleep), and the
 * prediction it stands for. */
typedef struct wait_sleep {
    gar_family_point *point; /* the estimator's state the wait teaches, or NULL */
    bool has_sleep;
    gar_dur_ns sleep_ns;
    bool predicted;          /* a prediction was made (auto: a sleep given) */
    gar_dur_ns prediction;
} wait_sleep;

/* The plan `row` runs, at point `point_no`: its band's, or the plan and
 * sleep an auto band's rule chooses into `choice`.  Returns 0 or more, or
 * the rule's failure. */
static int choose_plan(const gar_bands *bands, replay_auto *autos, const gar_trace_row *row,
                       uint32_t point_no, gar_auto_choice *choice, wait_plan *w, gar_error *err)
{
    /* One band (a plain plan) needs no choosing, wait after wait. */
    w->plan = bands->count == 1 ? &bands->band[0].plan : gar_bands_select(bands, row->step_rows);
    w->auto_point = NULL;
    w->budget = 0;
    if (w->plan->park != GAR_PARK_AUTO)
        return 0;
    /* An auto plan is a rule: the wait runs the plan and sleep it gives. */
    w->budget = w->plan->budget_ns;
    w->auto_point = (gar_auto_point *)autos->points.at + point_no;
    w->choice = choice;
    int rc = gar_auto_decide(&autos->policy, w->auto_point, w->budget, choice, err);
    if (rc >= 0)
        w->plan = &choice->plan;
    return rc;
}

/* When wait `i` (row `j` of the block `rows`, `last_row` the row before
 * the block) starts and submits, and how long its work runs once `stream`
 * is free: the trace's times, or, replayed closed, the trace's gap after
 * the row before laid after the previous wait's simulated end `last_end`.
 * Notes the row's done as the stream's latest. */
static wait_times place_wait(gar_replay_mode mode, uint64_t i, const gar_trace_row *rows, size_t j,
                             const gar_trace_row *last_row, gar_mono_ns last_end,
                             stream_state *stream)
{
    const gar_trace_row *row = &rows[j];
    gar_mono_ns stream_free = row->submit_ns > stream->recorded_done ? row->submit_ns
                                                                     : stream->recorded_done;
    wait_times at = { .start = row->start_ns, .submit = row->submit_ns,
                      .duration = gar_since(row->done_ns, stream_free) };
    stream->recorded_done = row->done_ns;
    if (mode == GAR_REPLAY_CLOSED && i > 0) {
        const gar_trace_row *prev = j > 0 ? &rows[j - 1] : last_row;
        gar_mono_ns prev_end = prev->start_ns > prev->done_ns ? prev->start_ns : prev->done_ns;
        at.start = gar_after(last_end, gar_since(row->start_ns, prev_end));
        at.submit = gar_since(at.start, gar_since(row->start_ns, row->submit_ns));
    }
    return at;
}

/* When a wait that starts at `start` fails, still pending: `after` later,
 * saturated at the clock's last instant (GAR_MONO_NEVER would be "no
 * deadline", and a hung item must still fail). */
static gar_mono_ns deadline_of(gar_mono_ns start, gar_dur_ns after)
{
    gar_mono_ns deadline = gar_after(start, after);
    return deadline == GAR_MONO_NEVER ? GAR_MONO_NEVER - 1 : deadline;
}

/* The sleep of a wait under `w` at point `point_no` whose work takes
 * `truth` (done at `done_at`): the auto rule's, or under a predicting plan
 * the estimator's prediction less the plan's margin.  An estimator's
 * prediction counts in `predictions` and its error in the scratch's
 * sketch; a predicting plan's wait counts in `d`.  Returns false when
 * memory runs out. */
static bool predict_sleep(const gar_estimator_spec *spec, gar_replay_scratch *s,
                          uint32_t point_no, const wait_plan *w, gar_mono_ns done_at,
                          gar_dur_ns truth, uint64_t *predictions, gar_replay_diagnosis *d,
                          wait_sleep *sl)
{
    const gar_plan *plan = w->plan;
    sl->point = NULL;
    sl->has_sleep = false;
    sl->sleep_ns = 0;
    sl->predicted = false;
    sl->prediction = 0;
    if (w->auto_point != NULL) {
        sl->has_sleep = w->choice->has_sleep;
        sl->sleep_ns = w->choice->sleep_ns;
        /* The rule's sleep stands for a prediction, so the diagnosis counts
         * its sleeps as slept.  No estimator error: the rule sleeps short
         * of the residual on purpose (its miss chance within the budget),
         * so |sleep - truth| is that margin, not an error of the estimate. */
        sl->predicted = sl->has_sleep;
        sl->prediction = sl->sleep_ns;
    } else if (plan->predict && spec->family != GAR_ESTIMATOR_NONE) {
        gar_family_point *point = (gar_family_point *)s->estimators.at + point_no;
        sl->point = point;
        gar_dur_ns p = 0;
        bool have_p;
        if (spec->family == GAR_ESTIMATOR_ORACLE) {
            have_p = done_at != GAR_MONO_NEVER;
            p = truth;
        } else {
            have_p = gar__family_prediction(spec, point, plan->deadline.window, &p) == 1;
        }
        if (have_p) {
            sl->predicted = true;
            sl->prediction = p;
            (*predictions)++;
            if (!gar_quantile_sketch_add(&s->est_error, p > truth ? p - truth : truth - p))
                return false;
            sl->has_sleep = gar__deadline_sleep_for(&plan->deadline, p, &sl->sleep_ns) == 1;
        }
    }
    if (plan->predict) {
        d->predict_waits++;
        if (!sl->predicted)
            d->unpredicted++;
        else if (!sl->has_sleep)
            d->short_predictions++;
    }
    return true;
}

/* Changes `host` to the config's host_after, once, at the first wait that
 * starts at or after host_change_ns (`*changed` says whether it has).
 * Returns 0 or more, or the host's refusal. */
static int change_host_when_due(const gar_replay_config *config, gar_sim_host *host,
                                gar_mono_ns start, bool *changed, gar_error *err)
{
    if (config->host_after == NULL || *changed || start < config->host_change_ns)
        return 0;
    *changed = true;
    int rc = gar_sim_host_init(host, config->host_after, config->seed ^ config->host_change_ns,
                               err);
    if (rc >= 0)
        host->exact_polls = config->exact_polls;
    return rc;
}

/* Adds a finished wait's overshoot to the run's sketch and its stream's
 * (`stream_sketch[slot]`, where there are those), and counts in `d` and
 * `pg` what went wrong: an auto wait over its budget, a late wake, a wait
 * a backstop query ended.  Returns false when memory runs out. */
static bool record_wait(gar_quantile_sketch *overshoots, gar_stream_sketch *stream_sketch,
                        uint32_t slot, const wait_plan *w, const gar_sim_wait_result *res,
                        gar_dur_ns overshoot, progress *pg, gar_replay_diagnosis *d)
{
    if (!gar_quantile_sketch_add(overshoots, overshoot) ||
        (stream_sketch != NULL && !gar_stream_sketch_add(&stream_sketch[slot], overshoot)))
        return false;
    if (w->auto_point != NULL && overshoot > w->budget)
        pg->auto_over_budget_waits++;
    if (res->report.kind == GAR_WAIT_KIND_LATE) {
        d->late_wakes++;
        d->late_worst_ns = overshoot > d->late_worst_ns ? overshoot : d->late_worst_ns;
    }
    /* Ended by a backstop query: no query but the first (or the sleep's
     * wake query) was other than a backstop one, so no park's hint was
     * ever confirmed — the word never woke the wait (wait.h, counters). */
    if (res->report.kind == GAR_WAIT_KIND_PARKED && res->report.backstop_queries > 0 &&
        res->report.queries - res->report.backstop_queries <= 1) {
        d->backstop_waits++;
        d->backstop_worst_ns = overshoot > d->backstop_worst_ns ? overshoot : d->backstop_worst_ns;
    }
    return true;
}

/* Shows wait `i` to the config's on_wait observer. */
static void show_wait(const gar_replay_config *config, uint64_t i, gar_mono_ns start,
                      gar_mono_ns done_at, gar_mono_ns end, gar_dur_ns overshoot, gar_dur_ns truth,
                      const wait_sleep *sl)
{
    /* Zeroed whole, padding too: an observer may keep and compare the
     * bytes of what it saw. */
    gar_replay_wait seen;
    memset(&seen, 0, sizeof seen);
    seen.index = i;
    seen.start = start;
    seen.done = done_at;
    seen.end = end;
    seen.overshoot_ns = overshoot;
    seen.truth_ns = truth;
    seen.predicted = sl->predicted;
    seen.prediction_ns = sl->prediction;
    seen.sleep_ns = sl->has_sleep ? sl->sleep_ns : 0;
    config->on_wait(config->on_wait_context, &seen);
}

/* The waits of one block of rows, in order, on the run's device and host:
 * the per-wait values into the sketches, the totals into `pg`.
 * Returns 0, or the first failure. */
static int replay_block(run *r, const gar_trace_row *rows, size_t n, progress *pg,
                        gar_error *err)
{
    const gar_replay_config *config = r->config;
    const gar_bands *bands = r->bands;
    replay_auto *autos = r->autos;
    gar_sim_device *dev = &r->dev;
    gar_sim_host *host = &r->host;
    gar_replay_scratch *s = r->scratch;
    const uint32_t *slots = s->slots.at, *points = s->points.at;
    stream_state *streams = s->streams.at;
    gar_stream_sketch *stream_sketch = r->stream0_shadowed ? NULL : r->stream_sketch;
    const gar_estimator_spec *spec = &config->estimator;
    gar_mono_ns last_end = pg->last_end;
    gar_mono_ns latest_end = pg->latest_end;
    uint64_t predictions = pg->predictions;
    /* Kept in locals, not through `pg`, so the loop holds them in registers
     * (the helpers that take their addresses inline). */
    gar_replay_diagnosis d = pg->d;
    bool host_changed = pg->host_changed;
    int rc = 0;
    size_t j = 0;

    for (; j < n; j++) {
        const uint64_t i = pg->waits + j;
        const gar_trace_row *row = &rows[j];
        gar_auto_choice choice;
        wait_plan w;
        if ((rc = choose_plan(bands, autos, row, points[j], &choice, &w, err)) < 0)
            break;
        const uint32_t slot = slots[j];
        stream_state *stream = &streams[slot];
        const wait_times at = place_wait(config->mode, i, rows, j, &pg->prev, last_end, stream);
        const gar_mono_ns start = at.start;
        gar_sim_fault fault = i == config->fault_wait ? config->fault : GAR_SIM_FAULT_NONE;
        gar_sim_work work;
        rc = gar_sim_device_enqueue(dev, slot, at.submit, at.duration, fault, &work, err);
        if (rc < 0)
            break;
        gar_dur_ns truth = gar_since(work.done_at, start);

        wait_sleep sl;
        if (!predict_sleep(spec, s, points[j], &w, work.done_at, truth, &predictions, &d, &sl)) {
            rc = gar__replay_out_of_memory(err);
            break;
        }

        const gar_mono_ns deadline = deadline_of(start, config->wait_deadline_ns);
        if ((rc = change_host_when_due(config, host, start, &host_changed, err)) < 0)
            break;
        gar_sim_wait_result res;
        rc = gar_sim_host_wait(host, dev, &work, w.plan, sl.has_sleep, sl.sleep_ns, start,
                               deadline, &res, err);
        if (rc < 0)
            break;
        /* The sample rebuilt from its fields: passed whole, its kind (a
         * 4-byte store) would be loaded with its padding in one word. */
        const gar_sample sample = { .kind = res.report.sample.kind, .ns = res.report.sample.ns };
        if (sl.point != NULL)
            gar__family_observe(spec, sl.point, w.plan->deadline.window, sample);
        if (w.auto_point != NULL &&
            (rc = gar_auto_learn(&autos->policy, w.auto_point, &choice, &res.report, err)) < 0)
            break;

        gar_mono_ns possible = work.done_at > start ? work.done_at : start;
        const gar_dur_ns overshoot = gar_since(res.end, possible);
        if (!record_wait(&s->overshoot, stream_sketch, slot, &w, &res, overshoot, pg, &d)) {
            rc = gar__replay_out_of_memory(err);
            break;
        }
        if (config->on_wait != NULL)
            show_wait(config, i, start, work.done_at, res.end, overshoot, truth, &sl);
        add_wait(&pg->tot, stream, &res);
        last_end = res.end;
        if (res.end > latest_end)
            latest_end = res.end;
    }
    if (n > 0)
        pg->prev = rows[n - 1];
    pg->waits += j;
    pg->last_end = last_end;
    pg->latest_end = latest_end;
    pg->predictions = predictions;
    pg->d = d;
    pg->host_changed = host_changed;
    return rc;
}

/* Every block of rows the source hands out, numbered and replayed in
 * order.  Returns 0 at the rows' end, or the first failure. */
static int replay_rows(run *r, gar_replay_rows_fn rows, void *context, progress *pg,
                       gar_error *err)
{
    int rc = 0;
    const gar_trace_row *some;
    size_t count;
    while (rc >= 0 && (rc = rows(context, &some, &count, err)) > 0) {
        if (pg->waits == 0)
            pg->first_start = pg->last_end = pg->latest_end = some[0].start_ns;
        if (!number_block(r, some, count, pg->waits) ||
            !streams_over_budget(r, pg->waits + count))
            rc = gar__replay_out_of_memory(err);
        else if ((rc = gar__replay_fit_numbers(r, err)) >= 0)
            rc = replay_block(r, some, count, pg, err);
    }
    return rc;
}

int gar_replay_run(const gar_replay_config *config, gar_replay_metrics *out, gar_error *err)
{
    int rc = gar__replay_check_config(config, err);
    if (rc < 0)
        return rc;
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "out", "is NULL");
    /* A plan is bands of one band. */
    gar_bands one_band = { .count = 1 };
    if (config->plan != NULL)
        one_band.band[0].plan = *config->plan;
    const gar_bands *bands = config->bands != NULL ? config->bands : &one_band;
    if ((rc = gar__replay_check_run(config, bands, err)) < 0)
        return rc;

    /* An in-memory trace is read as a stream of slices. */
    gar_trace_cursor slices = { config->trace, 0 };
    gar_replay_rows_fn rows = config->trace != NULL ? gar_trace_cursor_source : config->rows;
    void *context = config->trace != NULL ? (void *)&slices : config->rows_context;

    run r;
    memset(&r, 0, sizeof r);
    r.config = config;
    r.bands = bands;
    r.index = config->index;
    gar_replay_metrics m;
    memset(&m, 0, sizeof m);
    progress pg;
    memset(&pg, 0, sizeof pg);
    rc = gar__replay_run_start(&r, rows, context, err);
    slices.next = 0; /* a first pass for auto's lead may have read them */
    if (rc >= 0)
        rc = replay_rows(&r, rows, context, &pg, err);
    if (r.autos != NULL)
        m.auto_counts = gar_auto_counts_of(&r.autos->policy);
    m.auto_over_budget_waits = pg.auto_over_budget_waits;
    if (rc >= 0 && pg.waits == 0)
        rc = gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_replay_run", "rows", "are none");
    gar_replay_scratch *s = r.scratch;
    size_t room = 0;
    if (rc >= 0) {
        size_t overshoots = gar__replay_exact_values(&s->overshoot);
        size_t errors = gar__replay_exact_values(&s->est_error);
        room = overshoots > errors ? overshoots : errors;
        if (!gar__replay_reserve(&s->sort_space, room, sizeof(uint64_t)))
            rc = gar__replay_out_of_memory(err);
    }
    if (rc < 0) {
        gar__replay_run_release(&r);
        return rc;
    }
    pg.d.slept = pg.d.predict_waits - pg.d.unpredicted - pg.d.short_predictions;
    pg.d.points = r.points;
    m.diagnosis = pg.d;
    gar__replay_totals_to_metrics(&pg.tot, &m);
    m.waits = pg.waits;
    m.makespan_ns = pg.latest_end - pg.first_start;
    m.predictions = pg.predictions;

    gar_replay_streams streams = { NULL, 0 };
    if (config->streams_out != NULL && !gar__replay_per_stream(&r, &streams)) {
        gar__replay_run_release(&r);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the replay's streams",
                             "exhausted");
    }
    m.wait_ns = gar_after(gar_after(m.busy_ns, m.parked_ns), m.asleep_ns);
    m.busy_frac = m.wait_ns > 0 ? (double)m.busy_ns / (double)m.wait_ns : 0.0;
    m.ci_level = config->ci_level;
    m.quantiles_histogram = s->overshoot.histogram || s->est_error.histogram ||
                            r.streams_histogram;
    m.overshoot_ns = gar__replay_summary_of(&s->overshoot, s->sort_space.at, m.ci_level,
                                            &m.overshoot_ci);
    m.estimator_error_ns = gar__replay_summary_of(&s->est_error, s->sort_space.at, m.ci_level,
                                                  &m.estimator_error_ci);
    /* The one stream's overshoots are the run's; its sketch would have gone
     * over to a histogram exactly when the run's did (both past the same
     * budget), and its quantiles are read at the same ranks. */
    if (streams.count == 1 && r.stream0_shadowed)
        streams.stream[0].overshoot_ns = m.overshoot_ns;
    gar__replay_run_release(&r);
    if ((rc = gar__replay_check_range(&m, err)) < 0) {
        gar_replay_streams_free(&streams);
        return rc;
    }
    *out = m;
    if (config->streams_out != NULL)
        *config->streams_out = streams;
    return 0;
}
