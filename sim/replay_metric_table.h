/* sim/replay_metric_table.h — every metric of a replay (gar_replay_metrics,
 * replay.h) listed once, in one table that the code listing them is made from:
 * the sweep database's runs columns, their binds and the merge's comparisons
 * (experiments/sweep/db.c), what a re-run reads back and must reproduce
 * (experiments/sweep/results.c), the figures of an arm's summary that the
 * report and the plots show (gar_results_arms, the same file), and `gar
 * replay`'s `key: value` lines and its --json (experiments/cli/verb_replay.c).
 *
 * GAR_REPLAY_METRICS(X, Q) calls X for a metric and Q for a quantile that
 * carries a confidence interval, once each, in the one order all of those
 * take them: the runs table's columns of schema version 4, so a row moved,
 * renamed or added is a new schema version (its conversion in db.c, its
 * columns in data/sweeps/README.md).  Where a use shows only some metrics,
 * the USES column says which; nothing else lists them.  Header only;
 * nothing here allocates or owns anything.
 *
 * X(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES)
 * Q(NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, USES, CI, CI_GROUP, LEVEL_PPM, OVER)
 *   NAME    the metric, a token; its column and JSON key is NAME UNIT
 *   UNIT    the unit, as the name's suffix: "_ns" a duration in ns, "" a
 *           count or a fraction
 *   FIELD   where it is in gar_replay_metrics (overshoot_ns.p50)
 *   TYPE    COUNT: a uint64_t, an INTEGER column, printed as a decimal;
 *           FRACTION: a double, a REAL column, printed with six decimals
 *   GROUP   "" when it stands alone (its own `NAME: value` line, its own
 *           JSON key); else the group `gar replay` prints it in: one line
 *           `GROUP: MEMBER value MEMBER value ...`, one JSON object
 *   MEMBER  its name in its group ("p50"); "" alone
 *   USES    where it is used besides the database (which has every one),
 *           GAR_METRIC_* below or'ed, 0 for the database alone
 * and a Q row's interval:
 *   CI      where its interval is in gar_replay_metrics (overshoot_ci.p50):
 *           the database's columns NAME_lo UNIT and NAME_hi UNIT, after the
 *           level column ci_level
 *   CI_GROUP the group `gar replay` prints the intervals in
 *           ("overshoot_ci_ns"): every Q row's, shown or not, and each in
 *           words on a line of its own, `NAME: words`
 *   LEVEL_PPM the quantile's level, millionths (500000: the p50)
 *   OVER    the metric (a FIELD) counting the values it is a quantile of:
 *           the `n` (and noun) its interval in words names */
#ifndef GAR_REPLAY_METRIC_TABLE_H
#define GAR_REPLAY_METRIC_TABLE_H

/* `gar replay` prints it among its `key: value` lines. */
#define GAR_METRIC_TEXT 0x1u
/* `gar replay --json` has it. */
#define GAR_METRIC_JSON 0x2u
/* Its group's text line ends with "(over N OVER)": the count its quantiles
 * are of, which no line of its own shows. */
#define GAR_METRIC_TEXT_OVER 0x4u
/* An ok run must have it: the plots and the report read it, and refuse a
 * database whose ok run lacks it (a damaged or edited one). */
#define GAR_METRIC_REQUIRED 0x8u
/* A re-run (gar_results_rerun) must reproduce its stored value. */
#define GAR_METRIC_RERUN 0x10u
/* An arm's summary (gar_results_arms, experiments/sweep/results.h) carries
 * it: its mean over the arm's ok seeds and the least and the most seed's
 * figure, and for a Q row the envelope of the seeds' intervals, each where
 * results.c's arm_places puts it. */
#define GAR_METRIC_ARM 0x20u

#define GAR_METRIC_REPLAY (GAR_METRIC_TEXT | GAR_METRIC_JSON)

/* A row's USES, for a macro that takes both kinds of row as
 * (NAME, UNIT, FIELD, TYPE, GROUP, MEMBER, ...): GAR_METRIC_USES(__VA_ARGS__). */
#define GAR_METRIC_USES(...) (GAR_METRIC_FIRST_(__VA_ARGS__, 0))
#define GAR_METRIC_FIRST_(FIRST, ...) FIRST

/* clang-format off */
#define GAR_REPLAY_METRICS(X, Q)                                                                   \
    X(waits, "", waits, COUNT, "", "",                                                             \
      GAR_METRIC_REPLAY | GAR_METRIC_REQUIRED | GAR_METRIC_RERUN | GAR_METRIC_ARM)                 \
    Q(overshoot_p50, "_ns", overshoot_ns.p50, COUNT, "overshoot_ns", "p50",                        \
      GAR_METRIC_REPLAY | GAR_METRIC_REQUIRED | GAR_METRIC_RERUN | GAR_METRIC_ARM,                 \
      overshoot_ci.p50, "overshoot_ci_ns", 500000, waits)                                          \
    Q(overshoot_p90, "_ns", overshoot_ns.p90, COUNT, "overshoot_ns", "p90",                        \
      GAR_METRIC_REPLAY | GAR_METRIC_ARM,                                                          \
      overshoot_ci.p90, "overshoot_ci_ns", 900000, waits)                                          \
    Q(overshoot_p99, "_ns", overshoot_ns.p99, COUNT, "overshoot_ns", "p99",                        \
      GAR_METRIC_REPLAY | GAR_METRIC_REQUIRED | GAR_METRIC_RERUN | GAR_METRIC_ARM,                 \
      overshoot_ci.p99, "overshoot_ci_ns", 990000, waits)                                          \
    X(overshoot_max, "_ns", overshoot_ns.max, COUNT, "overshoot_ns", "max",                        \
      GAR_METRIC_REPLAY | GAR_METRIC_REQUIRED | GAR_METRIC_RERUN | GAR_METRIC_ARM)                 \
    X(wait, "_ns", wait_ns, COUNT, "", "", 0)                                                      \
    X(busy, "_ns", busy_ns, COUNT, "", "",                                                         \
      GAR_METRIC_REPLAY | GAR_METRIC_REQUIRED | GAR_METRIC_RERUN)                                  \
    X(parked, "_ns", parked_ns, COUNT, "", "", GAR_METRIC_REPLAY)                                  \
    X(asleep, "_ns", asleep_ns, COUNT, "", "", GAR_METRIC_REPLAY)                                  \
    X(busy_frac, "", busy_frac, FRACTION, "", "",                                                  \
      GAR_METRIC_REPLAY | GAR_METRIC_REQUIRED | GAR_METRIC_ARM)                                    \
    X(makespan, "_ns", makespan_ns, COUNT, "", "", GAR_METRIC_REPLAY)                              \
    X(sleeps, "", sleeps, COUNT, "", "", GAR_METRIC_REPLAY)                                        \
    X(parks, "", parks, COUNT, "", "", GAR_METRIC_REPLAY)                                          \
    X(queries, "", queries, COUNT, "", "",                                                         \
      GAR_METRIC_REPLAY | GAR_METRIC_REQUIRED | GAR_METRIC_RERUN)                                  \
    X(polls, "", polls, COUNT, "", "", 0)                                                          \
    X(backstop_queries, "", backstop_queries, COUNT, "", "", GAR_METRIC_REPLAY)                    \
    X(kinds_blocked, "", blocked, COUNT, "kinds", "blocked", GAR_METRIC_REPLAY)                    \
    X(kinds_immediate, "", immediate, COUNT, "kinds", "immediate", GAR_METRIC_REPLAY)              \
    X(kinds_late, "", late, COUNT, "kinds", "late", GAR_METRIC_REPLAY)                             \
    X(kinds_parked, "", parked, COUNT, "kinds", "parked", GAR_METRIC_REPLAY)                       \
    X(predictions, "", predictions, COUNT, "", "", 0)                                              \
    Q(estimator_error_p50, "_ns", estimator_error_ns.p50, COUNT, "estimator_error_ns", "p50",      \
      GAR_METRIC_REPLAY | GAR_METRIC_TEXT_OVER,                                                    \
      estimator_error_ci.p50, "estimator_error_ci_ns", 500000, predictions)                        \
    Q(estimator_error_p90, "_ns", estimator_error_ns.p90, COUNT, "estimator_error_ns", "p90",      \
      0,                                                                                           \
      estimator_error_ci.p90, "estimator_error_ci_ns", 900000, predictions)                        \
    Q(estimator_error_p99, "_ns", estimator_error_ns.p99, COUNT, "estimator_error_ns", "p99",      \
      GAR_METRIC_REPLAY | GAR_METRIC_TEXT_OVER,                                                    \
      estimator_error_ci.p99, "estimator_error_ci_ns", 990000, predictions)                        \
    X(estimator_error_max, "_ns", estimator_error_ns.max, COUNT, "estimator_error_ns", "max", 0)
/* clang-format on */

#endif
