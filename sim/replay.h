/* sim/replay.h — one trace replayed under one wait policy on one simulated host.
 *
 * A replay takes a trace (sim/trace/trace.h), a plan or bands (each wait runs the
 * band its row count falls in, gar/bands.h), an estimator family
 * (gar/estimator_family.h), a host profile (host_profile.h), a mode and a
 * seed, runs every wait of the trace in order on a simulated device and host
 * (sim_device.h, sim_host.h), and sums up what happened.  The estimator is
 * outside the wait machine, as in every driver: for each wait the replay asks
 * the point's estimator for the sleep (only when the plan has predict), runs
 * the wait, and feeds the report's sample back.  Same inputs and seed give
 * byte-identical metrics.
 *
 * Modes.  For row i of the trace (points p, submit s, start a, done d,
 * stream k), let prev(i) be the row before it and
 *   duration_i = d_i - max(s_i, d of the previous row on stream k)
 *                (the device time the work took once the stream was free),
 *   end_i      = max(a_i, d_i)   (when an ideal waiter would have returned),
 *   gap_i      = a_i - end_prev(i), or 0 if negative (the host's own work
 *                between returning from the previous wait and this one),
 *   lead_i     = a_i - s_i       (how long before the wait it submitted).
 * Open loop: wait i starts at a_i and its work completes at d_i, whatever the
 * earlier waits did (each wait is judged alone).  Closed loop: the host is the
 * recorded one made to depend on its waits: wait i starts at
 * H_prev + gap_i, where H_prev is when the simulated previous wait returned
 * (the first starts at a_0); its work is submitted lead_i before that and
 * completes duration_i after the later of its submission and its stream's
 * previous completion.  So a late wake delays everything after it, and a
 * host that returned exactly at completion would reproduce the trace.
 *
 * Metrics, over the waits of the trace:
 *   overshoot   end of the wait (when its last answer was seen) less
 *               max(completion, start): how much later than possible the
 *               host learnt of the completion.
 *   busy/parked/asleep  the CPU accounts of sim_host.h, summed; they sum to
 *               the total time spent in waits (wait_ns).
 *   busy_frac   busy_ns / wait_ns: the share of the waiting time the core was
 *               busy (0 when no time was spent waiting).  The denominator is
 *               the waiting time, not the makespan, so the number says what a
 *               policy costs while it waits, whatever the host did between.
 *   makespan    from the first wait's start to the latest end of a wait.
 *   queries     every status query, those of polls included; polls alone too.
 *   kinds       how the waits ended (gar/wait.h).
 *   estimator error  |p - true residual| over the waits whose estimator
 *               gave a prediction p, where the true residual is
 *               max(completion - start, 0).  Waits under a plan without
 *               predict consult no estimator and count none, nor does
 *               auto: its sleeps count as slept in the diagnosis, but a
 *               sleep it chose short of the residual on purpose is no
 *               estimate to measure an error of.  A point
 *               keeps one history across bands; each wait reads it with
 *               its own band's deadline.
 * Quantiles are nearest ranks, so the pN of n values is the ceil(N/100 * n)-th
 * smallest; 0 when there are none.  They are exact up to exact_max values
 * of a metric (default GAR_SKETCH_EXACT_MAX, 500 000); past it, that
 * metric's values (and, once the run's waits pass it, every stream's
 * overshoots) go into a log-linear histogram (quantile_sketch.h), a
 * quantile is its bucket's midpoint, within 0.1 % of the exact value, the
 * max stays exact, and quantiles_histogram says so.
 * Each p50, p90 and p99 of overshoot and estimator error comes with its
 * distribution-free confidence interval (quantile_interval.h) at the
 * config's ci_level: two more order statistics of the same values, an end
 * absent where there are too few values to bound the quantile on that side
 * (a p99's upper end below 368 waits, at 95 %).  From a histogram an
 * interval runs from the least value of its low end's bucket to the largest
 * of its high end's: it holds the exact interval.  The interval speaks of the
 * waits as draws from the policy's distribution on that host; it says
 * nothing of another trace.
 *
 * Diagnosis, counted as the waits run (a few counters, no per-wait
 * memory): of the waits under a plan with predict, how many the estimator
 * gave no prediction (a cold point: its window not yet filled, or a point
 * never repeated), how many predictions were too short to sleep on (below
 * margin + min_sleep), how many slept; the waits whose sleep woke after
 * the completion (kind late) and the worst overshoot among them; the waits
 * a backstop query ended (the word never woke them: no query but the first
 * or the sleep's wake query was other than a backstop one) and the worst
 * overshoot among them.
 * replay_notes.h words them.
 *
 * Range.  Every count and duration of the metrics is at most 2^63 - 1
 * (GAR_REPLAY_METRIC_MAX: a signed 64-bit integer, as SQLite and most JSON
 * readers hold them).  A run where one would exceed it — a trace whose times
 * come near 2^63 ns, where the simulated costs carry an end past it, or a
 * huge deadline in open loop — is refused with GAR_E_CAPACITY naming the
 * metric, rather than saturated or wrapped: `gar replay` prints nothing and
 * `gar sweep` stores the run as failed with that code, so no metric is ever
 * a clamped number.
 *
 * An auto plan (gar/auto_policy.h), alone or in a band, runs the rule: one
 * policy for the run, told the host by its profile (auto_host.h), and a
 * history per point; each wait runs the plan and sleep the rule gives, and
 * its report is fed back.  The estimator family is not consulted for those
 * waits (the rule keeps its own residuals), auto_counts says what was
 * chosen, and auto_over_budget_waits how many of its waits overshot B.
 *
 * A host that changes.  With host_after given, the waits that start at or
 * after host_change_ns run on that profile instead (the simulated host is
 * set up anew on it, its generators seeded from the seed and the change),
 * so a policy that learns the host can be watched adapting.  An auto plan's
 * rule is not told: it sees the change only in the wakes it observes.
 *
 * Faults.  One fault (sim_device.h) may be injected, on one wait chosen by
 * its row.  Every wait has a deadline, wait_deadline_ns after its start
 * (saturated at the clock's last instant, GAR_MONO_NEVER - 1, never
 * wrapped), so a device that never completes ends the replay with
 * GAR_E_WAIT_DEADLINE rather than a hang, in time independent of the
 * deadline's size (sim_host.h, "A hung item").  A wait that fails ends the replay: the run returns its
 * code and `err` says what failed; no metrics are written. */
#ifndef GAR_SIM_REPLAY_H
#define GAR_SIM_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include <gar/auto_policy.h>
#include <gar/bands.h>
#include <gar/error.h>
#include <gar/estimator_family.h>
#include <gar/plan.h>
#include <gar/time.h>

#include "sim/host_profile.h"
#include "sim/quantile_interval.h"
#include "sim/quantile_sketch.h"
#include "sim/replay_index.h"
#include "sim/sim_device.h"
#include "sim/trace/trace.h"

#define GAR_REPLAY_DEADLINE_DEFAULT_NS (10 * GAR_NS_PER_S)
#define GAR_REPLAY_METRIC_MAX ((uint64_t)INT64_MAX) /* the range rule, above */

typedef enum gar_replay_mode {
    GAR_REPLAY_OPEN,
    GAR_REPLAY_CLOSED,
} gar_replay_mode;

/* One wait as it happened, for an optional observer (plots that need every
 * wait, not only the summary).  Times are the simulation's. */
typedef struct gar_replay_wait {
    uint64_t index;            /* the trace row (0-based) */
    gar_mono_ns start;         /* the wait began */
    gar_mono_ns done;          /* its work completed */
    gar_mono_ns end;           /* the wait returned */
    gar_dur_ns overshoot_ns;   /* end - max(done, start), as in the metrics */
    gar_dur_ns truth_ns;       /* the true residual, max(done - start, 0) */
    bool predicted;            /* the estimator gave a prediction, or the auto rule a sleep */
    gar_dur_ns prediction_ns;  /* that prediction (auto's: the sleep); 0 when none */
    gar_dur_ns sleep_ns;       /* the sleep before the park; 0 when none */
} gar_replay_wait;

/* Called after each wait, in order, on the replaying thread.  It must not
 * touch the replay's inputs.  A replay that fails part-way has called it for
 * the waits before the failure. */
typedef void (*gar_replay_observer)(void *context, const gar_replay_wait *wait);

/* Rows handed to a replay a block at a time, for a trace read as it
 * replays (trace.h, gar_trace_stream): sets *rows and *count (at least 1,
 * the rows valid until the next call) and returns 1, returns 0 at the end,
 * or a negative gar error, which ends the run with that error. */
typedef int (*gar_replay_rows_fn)(void *context, const gar_trace_row **rows, size_t *count,
                                  gar_error *err);

/* The lead an auto plan's rule is told of the waits it will see
 * (auto_host.h): the median residual, done less start (0 when done came
 * first), of every row `rows` hands out, read to their end.  Exact up to
 * GAR_SKETCH_EXACT_MAX rows; past it, within 0.1 % (quantile_sketch.h).  A
 * run over streamed rows with an auto plan needs it given
 * (gar_replay_config.lead_ns): a first pass over the same rows.  Returns 0
 * with *out set, the source's error, or -GAR_E_CAPACITY. */
int gar_replay_lead_of(gar_replay_rows_fn rows, void *context, gar_dur_ns *out, gar_error *err);

/* The memory a replay works in (a value or two per wait, an estimator per
 * point, an account per stream), kept from one run to the next: a worker
 * that runs replay after replay allocates, and the kernel zeroes, its pages
 * once rather than every run.  Opaque; used by one run at a time. */
typedef struct gar_replay_scratch gar_replay_scratch;

/* An empty scratch (it grows to the largest run it serves), or NULL when
 * memory runs out. */
gar_replay_scratch *gar_replay_scratch_new(void);

/* Releases it all.  Accepts NULL. */
void gar_replay_scratch_free(gar_replay_scratch *scratch);

/* What to run.  gar_replay_config_init gives the defaults; the pointers are
 * borrowed for the call. */
typedef struct gar_replay_config {
    const gar_trace *trace;         /* the trace in memory, any number of streams; or */
    gar_replay_rows_fn rows;        /* its rows as they are read: exactly one of the two */
    void *rows_context;             /* handed to rows */
    bool has_lead;                  /* default false: an auto plan's lead is read from the
                                     * trace (required for an auto plan over rows) */
    gar_dur_ns lead_ns;             /* with has_lead: gar_replay_lead_of's */
    size_t exact_max;               /* values a quantile keeps exactly; default 0:
                                     * GAR_SKETCH_EXACT_MAX */
    const gar_plan *plan;           /* one plan for every wait, or */
    const gar_bands *bands;         /* a plan by the row's `step_rows`: exactly one of the two.
                                     * Run as given: resolve first to see a fallback. */
    gar_estimator_spec estimator;   /* default adl */
    const gar_host_profile *host;   /* required */
    gar_replay_mode mode;           /* default open */
    uint64_t seed;                  /* default 0 */
    gar_dur_ns wait_deadline_ns;    /* default GAR_REPLAY_DEADLINE_DEFAULT_NS; 0 is refused */
    gar_dur_ns store_delay_ns;      /* completion to the store landing; default 0 */
    gar_sim_fault fault;            /* default none */
    uint64_t fault_wait;            /* the row (0-based) the fault hits */
    gar_dur_ns late_store_ns;       /* how late a late-store fault's store lands */
    bool exact_polls;               /* default false: poll runs fast-forwarded, an
                                     * approximation (sim_host.h); true: every turn alone */
    gar_replay_observer on_wait;    /* default NULL: no observer */
    void *on_wait_context;          /* handed to on_wait */
    struct gar_replay_streams *streams_out; /* default NULL; else filled on success with
                                     * the per-stream metrics (free them) */
    const gar_replay_index *index;  /* default NULL: the run numbers the trace itself;
                                     * else gar_replay_index_build's of this very trace */
    gar_replay_scratch *scratch;    /* default NULL: the run allocates its own memory */
    double ci_level;                /* the intervals' confidence: default
                                     * GAR_CI_LEVEL_DEFAULT (0.95); 0 < level < 1 */
    const gar_host_profile *host_after; /* default NULL; else the host becomes this one for
                                     * the waits that start at or after host_change_ns */
    gar_mono_ns host_change_ns;     /* when the host changes (on the trace's clock) */
} gar_replay_config;

typedef struct gar_replay_quantiles {
    gar_dur_ns p50, p90, p99, max;
} gar_replay_quantiles;

/* The nearest-rank p50, p90, p99 (core/nearest_rank.h) and the max of
 * `sorted[0..n-1]`, ascending; all 0 when n is 0.  How every run of gar, the
 * simulator's and the real host's, reports a distribution. */
gar_replay_quantiles gar_replay_quantiles_sorted(const gar_dur_ns *sorted, size_t n);

/* The confidence intervals around a p50, p90 and p99. */
typedef struct gar_replay_intervals {
    gar_quantile_interval p50, p90, p99;
} gar_replay_intervals;

/* What the run counted of what went wrong (above, "Diagnosis"). */
typedef struct gar_replay_diagnosis {
    uint64_t predict_waits;      /* waits under a plan with predict (auto's: those it gave a
                                  * sleep, each counted as slept) */
    uint64_t unpredicted;        /* of those, the estimator gave no prediction */
    uint64_t short_predictions;  /* a prediction below margin + min_sleep: no sleep */
    uint64_t slept;              /* a predicted sleep was taken */
    uint64_t late_wakes;         /* a sleep woke after the completion (kind late) */
    gar_dur_ns late_worst_ns;    /* the longest overshoot of those */
    uint64_t backstop_waits;     /* waits a backstop query ended (the word never woke them) */
    gar_dur_ns backstop_worst_ns; /* the longest overshoot of those */
    uint64_t points;             /* the trace's distinct points */
} gar_replay_diagnosis;

/* The intervals at `level` around the p50, p90 and p99 of `sorted[0..n-1]`,
 * ascending (each end absent where n is too small): how a run that sorts
 * its values (the real host's) gets what a replay selects. */
gar_replay_intervals gar_replay_intervals_sorted(const gar_dur_ns *sorted, size_t n,
                                                 double level);

typedef struct gar_replay_metrics {
    uint64_t waits;
    gar_replay_quantiles overshoot_ns;
    gar_dur_ns wait_ns;   /* total time spent waiting: busy + parked + asleep */
    gar_dur_ns busy_ns;
    gar_dur_ns parked_ns;
    gar_dur_ns asleep_ns;
    double busy_frac;     /* busy_ns / wait_ns */
    gar_dur_ns makespan_ns;
    uint64_t sleeps;
    uint64_t parks;
    uint64_t queries;     /* status queries, polls included */
    uint64_t polls;
    uint64_t backstop_queries;
    uint64_t blocked, immediate, late, parked; /* kinds */
    uint64_t predictions; /* waits whose estimator gave a prediction */
    gar_replay_quantiles estimator_error_ns; /* max kept too */
    double ci_level;                         /* the intervals' confidence */
    gar_replay_intervals overshoot_ci;       /* around overshoot_ns's p50, p90, p99 */
    gar_replay_intervals estimator_error_ci; /* around estimator_error_ns's */
    gar_replay_diagnosis diagnosis;
    gar_auto_counts auto_counts; /* what an auto plan chose (all 0 without one) */
    uint64_t auto_over_budget_waits; /* auto waits whose overshoot exceeded their
                                      * plan's budget B (0 without one); unlike
                                      * auto_counts.over_budget, which counts waits
                                      * where no park's tail was expected to meet B */
    bool quantiles_histogram;    /* some quantile was read from a histogram (past
                                  * exact_max values): within GAR_SKETCH_RELATIVE_ERROR */
} gar_replay_metrics;

/* One stream's share of a replay: its waits and their overshoots, and the
 * CPU time its waits held the core (the busy account of sim_host.h).  The
 * quantiles are nearest rank over the stream's own waits, as above. */
typedef struct gar_replay_stream {
    uint32_t stream;                 /* the id the trace names */
    uint64_t waits;
    gar_replay_quantiles overshoot_ns;
    gar_dur_ns busy_ns;
} gar_replay_stream;

/* Every stream of a run, in the order the trace first names them.  Owns
 * `stream`; release with gar_replay_streams_free. */
typedef struct gar_replay_streams {
    gar_replay_stream *stream;
    size_t count;
} gar_replay_streams;

/* Frees the array and leaves `streams` empty.  Accepts NULL. */
void gar_replay_streams_free(gar_replay_streams *streams);

/* Fills `config` with the defaults above and NULL pointers. */
void gar_replay_config_init(gar_replay_config *config);

/* Runs the replay.  Returns 0 with `out` filled; -GAR_E_INVALID_ARGUMENT for
 * a missing host, not exactly one of trace and rows or of plan and bands,
 * empty bands, an empty trace (or rows that are none), a deadline of 0, an unknown
 * mode or fault, a ci_level outside (0, 1), or a plan the wait machine refuses; -GAR_E_CAPACITY when
 * memory runs out or a metric is out of range (above, "Range"); or the code
 * of the first wait that failed (GAR_E_DEVICE_FAULT, GAR_E_WAIT_DEADLINE).
 * `out` (and *config->streams_out) is written only on success; rows that
 * fail part-way (a streamed trace refused at a bad row) end the run with
 * their error and write nothing.  Memory does not grow with the trace's
 * length: the rows are taken a block at a time (a trace in memory is read
 * in slices of a few thousand rows, a streamed one as the source hands
 * them), numbered as they come (or from the index, when given), so a run
 * holds, beside the trace itself, two u32 per row of a block, at most
 * exact_max u64 per metric (overshoot, estimator error, the streams'
 * overshoots together) and as many more to select them, then the
 * histograms (under 0.5 MiB each; for streams_out, one per stream counted
 * in the pages its values touch, stream_sketch.h); an
 * estimator and an auto history per point and an account per stream (in
 * the scratch, when one is given) and the simulated device (sim_device.h,
 * about 60 bytes a stream, grown as streams appear).  An index built for
 * another trace (another row count), or given with rows, is refused with
 * -GAR_E_INVALID_ARGUMENT, as is an auto plan over rows without has_lead.
 * Any number of streams: the trace's distinct stream ids become the
 * device's streams 0, 1, ... in the order they first appear. */
int gar_replay_run(const gar_replay_config *config, gar_replay_metrics *out, gar_error *err);

/* "open" / "closed", or "?"; and the inverse, -1 for an unknown name. */
const char *gar_replay_mode_name(gar_replay_mode mode);
int gar_replay_mode_from_name(const char *name);

#endif
