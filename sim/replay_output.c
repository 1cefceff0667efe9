/* sim/replay_output.c — a replay's numbers gathered into its results.
 *
 * Owns the quantiles (of sorted values, of a stream's sketch, of a
 * sketch with their confidence intervals), the range rule's check, the
 * run's totals into gar_replay_metrics, and the per-stream results and
 * their release.  Runs once per run, after the waits (replay_parts.h). */
#include "sim/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/nearest_rank.h"
#include "sim/replay_parts.h"

/* ---- quantiles ---------------------------------------------------------- */

gar_replay_quantiles gar_replay_quantiles_sorted(const gar_dur_ns *sorted, size_t n)
{
    gar_replay_quantiles q = { 0, 0, 0, 0 };
    if (n == 0)
        return q;
    q.p50 = gar_nearest_rank(sorted, n, 500000);
    q.p90 = gar_nearest_rank(sorted, n, 900000);
    q.p99 = gar_nearest_rank(sorted, n, 990000);
    q.max = sorted[n - 1];
    return q;
}

gar_replay_intervals gar_replay_intervals_sorted(const gar_dur_ns *sorted, size_t n,
                                                 double level)
{
    return (gar_replay_intervals){
        .p50 = gar_quantile_interval_sorted(sorted, n, 500000, level),
        .p90 = gar_quantile_interval_sorted(sorted, n, 900000, level),
        .p99 = gar_quantile_interval_sorted(sorted, n, 990000, level),
    };
}

/* The quantiles of one stream's overshoots (exact ones reordered through
 * tmp, count values of room). */
static gar_replay_quantiles quantiles_of(gar_stream_sketch *sk, uint64_t *tmp)
{
    gar_replay_quantiles q = { 0, 0, 0, 0 };
    size_t n = (size_t)sk->count;
    if (n == 0)
        return q;
    const size_t ranks[] = { gar_nearest_rank_index(n, 500000), gar_nearest_rank_index(n, 900000),
                             gar_nearest_rank_index(n, 990000), n - 1 };
    gar_sketch_bucket at[4];
    gar_stream_sketch_select(sk, tmp, ranks, 4, at);
    return (gar_replay_quantiles){ .p50 = gar_sketch_bucket_mid(at[0]),
                                   .p90 = gar_sketch_bucket_mid(at[1]),
                                   .p99 = gar_sketch_bucket_mid(at[2]),
                                   .max = sk->max };
}

/* The quantiles of a sketch's values and their intervals at `level`,
 * selected in one pass (exact values reordered through tmp, count values
 * of room): the three quantiles' ranks, their intervals' ends and the max,
 * in ascending order.  From a histogram, a quantile is its bucket's
 * midpoint and an interval runs from the low end's bucket's least value to
 * the high end's bucket's largest: widened by the buckets, so it holds the
 * interval the exact values would give. */
gar_replay_quantiles gar__replay_summary_of(gar_quantile_sketch *sk, uint64_t *tmp, double level,
                                            gar_replay_intervals *ci)
{
    memset(ci, 0, sizeof *ci);
    gar_replay_quantiles q = { 0, 0, 0, 0 };
    size_t n = (size_t)sk->count;
    if (n == 0)
        return q;
    static const uint32_t levels[3] = { 500000, 900000, 990000 };
    gar_quantile_interval *ends[3] = { &ci->p50, &ci->p90, &ci->p99 };
    /* Each wanted rank with where its value goes: 0..3 the quantiles and
     * max, 4 + 2j and 5 + 2j interval j's low and high end. */
    size_t rank[10];
    unsigned slot[10], k = 0;
    for (unsigned j = 0; j < 3; j++) {
        rank[k] = gar_nearest_rank_index(n, levels[j]);
        slot[k++] = j;
        gar_interval_ranks r = gar_quantile_interval_ranks(n, levels[j], level);
        ends[j]->has_lo = r.has_lo;
        ends[j]->has_hi = r.has_hi;
        if (r.has_lo) {
            rank[k] = r.lo;
            slot[k++] = 4 + 2 * j;
        }
        if (r.has_hi) {
            rank[k] = r.hi;
            slot[k++] = 5 + 2 * j;
        }
    }
    rank[k] = n - 1;
    slot[k++] = 3;
    for (unsigned i = 1; i < k; i++) /* insertion sort: ten at most */
        for (unsigned j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
            size_t r = rank[j];
            rank[j] = rank[j - 1];
            rank[j - 1] = r;
            unsigned s = slot[j];
            slot[j] = slot[j - 1];
            slot[j - 1] = s;
        }
    gar_sketch_bucket at[10];
    gar_quantile_sketch_select(sk, tmp, rank, k, at);
    gar_sketch_bucket value[10];
    memset(value, 0, sizeof value);
    for (unsigned i = 0; i < k; i++)
        value[slot[i]] = at[i];
    for (unsigned j = 0; j < 3; j++) {
        ends[j]->lo = ends[j]->has_lo ? value[4 + 2 * j].lo : 0;
        ends[j]->hi = ends[j]->has_hi ? value[5 + 2 * j].hi : 0;
    }
    return (gar_replay_quantiles){ .p50 = gar_sketch_bucket_mid(value[0]),
                                   .p90 = gar_sketch_bucket_mid(value[1]),
                                   .p99 = gar_sketch_bucket_mid(value[2]),
                                   .max = sk->max };
}

/* The range rule (replay.h): every count and duration fits a signed 64-bit
 * integer, or the run is refused naming the first that does not. */
int gar__replay_check_range(const gar_replay_metrics *m, gar_error *err)
{
    const struct {
        const char *name;
        uint64_t value;
    } metric[] = {
        { "overshoot_ns", m->overshoot_ns.max }, { "wait_ns", m->wait_ns },
        { "busy_ns", m->busy_ns },               { "parked_ns", m->parked_ns },
        { "asleep_ns", m->asleep_ns },           { "makespan_ns", m->makespan_ns },
        { "sleeps", m->sleeps },                 { "parks", m->parks },
        { "queries", m->queries },               { "polls", m->polls },
        { "backstop_queries", m->backstop_queries },
        { "estimator_error_ns", m->estimator_error_ns.max },
    };
    for (size_t k = 0; k < sizeof metric / sizeof metric[0]; k++)
        if (metric[k].value > GAR_REPLAY_METRIC_MAX) {
            char what[64];
            snprintf(what, sizeof what, "the replay's %s", metric[k].name);
            return gar_error_set(err, GAR_E_CAPACITY, 2, what, "2^63 - 1");
        }
    return 0;
}

/* The totals into `m`. */
void gar__replay_totals_to_metrics(const totals *tot, gar_replay_metrics *m)
{
    m->busy_ns = wide_total(tot->busy);
    m->parked_ns = wide_total(tot->parked);
    m->asleep_ns = wide_total(tot->asleep);
    m->sleeps = wide_total(tot->sleeps);
    m->parks = wide_total(tot->parks);
    m->queries = wide_total(tot->queries);
    m->polls = wide_total(tot->polls);
    m->backstop_queries = wide_total(tot->backstop_queries);
    m->blocked = tot->kinds[GAR_WAIT_KIND_BLOCKED];
    m->immediate = tot->kinds[GAR_WAIT_KIND_IMMEDIATE];
    m->late = tot->kinds[GAR_WAIT_KIND_LATE];
    m->parked = tot->kinds[GAR_WAIT_KIND_PARKED];
}

/* Every stream's waits, busy time and overshoot quantiles, in the order the
 * trace first names them.  False when memory runs out. */
bool gar__replay_per_stream(run *r, gar_replay_streams *out)
{
    size_t count = r->streams;
    gar_replay_stream *stream = calloc(count > 0 ? count : 1, sizeof *stream);
    if (stream == NULL)
        return false;
    const stream_state *states = r->scratch->streams.at;
    const uint32_t *ids = r->index != NULL ? r->index->stream_id : r->stream_id.at;
    for (size_t s = 0; s < count; s++) {
        stream[s].stream = ids[s];
        stream[s].waits = states[s].waits;
        stream[s].busy_ns = wide_total(states[s].busy);
        /* A shadowed first stream, the only one, takes the run's quantiles
         * (gar_replay_run, replay.c). */
        if (!r->stream0_shadowed)
            stream[s].overshoot_ns = quantiles_of(&r->stream_sketch[s], r->scratch->sort_space.at);
    }
    out->stream = stream;
    out->count = count;
    return true;
}

/* Values a sketch keeps exactly, or 0 for a histogram. */
size_t gar__replay_exact_values(const gar_quantile_sketch *sk)
{
    return sk->histogram ? 0 : (size_t)sk->count;
}

void gar_replay_streams_free(gar_replay_streams *streams)
{
    if (streams == NULL)
        return;
    free(streams->stream);
    streams->stream = NULL;
    streams->count = 0;
}
