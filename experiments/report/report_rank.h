/* experiments/report/report_rank.h — how the report ranks the arms of a group.
 *
 * The ranking rule, per trace, host and mode (the arms' numbers are means
 * over their seeds), is chosen with `gar report --rule`:
 *
 *   busy-within[:pct=P,us=U]   (the default, pct=10, us=2)
 *     1. best = the lowest p99 overshoot of any arm but the oracle's (the
 *        oracle knows each residual in advance: a bound, not a policy);
 *     2. an arm is *eligible* when its p99 overshoot is at most
 *        best + max(P % of best, U µs);
 *     3. the eligible arms (not the oracle) are ranked by busy CPU fraction.
 *   p99    the arms are ranked by p99 overshoot
 *   busy   the arms are ranked by busy CPU fraction
 *
 * Noise.  A mean over a few seeds of a p99 over a few hundred waits moves
 * from seed to seed, so the rule ranks two arms only where their figures
 * can be told apart.  Each arm has an interval per figure (gar_report_p99_
 * interval, gar_report_busy_interval): p99's runs from its least to its
 * greatest seed, widened to every seed's 95 % order-statistic interval where
 * the database stores them (an upper end that too few waits cannot give is
 * unbounded); busy's from its least to its most seed.  Two arms are *told
 * apart* on a figure when their intervals do not overlap.  The arm best by
 * the ranked figure's mean leads; every eligible arm that cannot be told
 * apart from it is *tied* with it ("within noise").  When it has ties the
 * winner is the tied arm with the lower other figure (lower busy under
 * p99; lower p99 under busy and busy-within), then the earlier plan, and it
 * is named a tied winner with that reason.  Envelopes of per-seed intervals
 * are wider than an interval of the mean: with three seeds the rule would
 * rather call a tie than a winner it cannot stand behind.  With one seed and
 * no stored intervals an interval is a point, and the rule ranks as before.
 *
 * Small samples.  A p99 from fewer than 368 waits has no upper bound at
 * 95 % (sim/quantile_interval.h), so every p99 interval is unbounded and no
 * two arms could be told apart on it.  Where no complete arm's p99 has an
 * upper bound (from the stored intervals; an arm without them counts as
 * bounded), the rule ranks the group by the highest quantile its waits do
 * bound — p90 (from 36 waits), else p50 (from 6) — in place of p99
 * everywhere above (best, slack, ties, tie-break), and the verdict says so.
 *
 * Budgets.  An auto:p99_us=B arm whose mean p99 is above B is over its own
 * budget: as winner its verdict says so, and is never "clear".
 *
 * Under p99 and busy every complete arm but the oracle is eligible.
 * Only *complete* arms take part: an arm with any failed run (a seed whose
 * replay returned an error) is shown as failed, with its count of failed
 * seeds, and is never ranked on the seeds that happened to succeed — its mean
 * would describe another experiment than its neighbours'.
 * The table ranks the eligible arms by the ranked figure, then the rest by
 * p99, then the failed arms.  The winner is set against `poll` (the CPU it
 * saves) and `block` (the latency it saves), when the sweep ran those plans
 * and they are complete. */
#ifndef GAR_REPORT_RANK_H
#define GAR_REPORT_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "sweep/results.h"

typedef enum gar_report_rule_kind {
    GAR_RULE_BUSY_WITHIN, /* lowest busy among the arms near the best p99 */
    GAR_RULE_P99,         /* lowest p99 */
    GAR_RULE_BUSY,        /* lowest busy */
} gar_report_rule_kind;

typedef struct gar_report_rule {
    gar_report_rule_kind kind;
    double pct; /* busy-within: the slack in percent of the best p99 */
    double us;  /* busy-within: the least slack, in µs */
} gar_report_rule;

#define GAR_REPORT_RULE_PCT 10.0 /* the default slack: max(10 %, 2 µs) */
#define GAR_REPORT_RULE_US 2.0
#define GAR_REPORT_RULE_GRAMMAR "busy-within[:pct=P][,us=U], p99 or busy"

/* The default rule: busy-within:pct=10,us=2. */
gar_report_rule gar_report_rule_default(void);

/* Parses a rule: `busy-within`, `busy-within:pct=P,us=U` (either key or
 * both, each once; P a plain decimal 0..1000, U 0..10000000), `p99`,
 * `busy`.  Returns 0, or -GAR_E_INVALID_ARGUMENT ("--rule", the text, what
 * is wrong). */
int gar_report_rule_parse(const char *text, gar_report_rule *out, gar_error *err);

/* The rule as --rule takes it ("busy-within:pct=10,us=2"), and in words. */
void gar_report_rule_text(const gar_report_rule *rule, char *out, size_t size);
void gar_report_rule_words(const gar_report_rule *rule, char *out, size_t size);

/* An interval of one figure: lo <= hi, hi may be INFINITY. */
typedef struct gar_report_interval {
    double lo, hi;
} gar_report_interval;

/* An arm's mean overshoot at `quantile` (50, 90 or 99; ns). */
double gar_report_quantile(const gar_arm_summary *arm, unsigned quantile);

/* The interval an arm's overshoot at `quantile` (50, 90 or 99) is compared
 * by (ns): its seeds' least and greatest, widened to their 95 % intervals
 * when it has them, and always holding the mean. */
gar_report_interval gar_report_quantile_interval(const gar_arm_summary *arm, unsigned quantile);

/* gar_report_quantile_interval(arm, 99). */
gar_report_interval gar_report_p99_interval(const gar_arm_summary *arm);

/* An auto:p99_us=B arm's budget B (ns) when it is complete and its mean
 * p99 is above B; 0 for any other arm. */
double gar_report_over_budget(const gar_arm_summary *arm);

/* The interval of its busy fraction: its least and most seed's, holding the mean. */
gar_report_interval gar_report_busy_interval(const gar_arm_summary *arm);

/* Whether two intervals do not overlap: the figures can be told apart. */
bool gar_report_apart(gar_report_interval a, gar_report_interval b);

/* The winner of one (trace, host, mode) and its two references. */
typedef struct gar_report_winner {
    const gar_arm_summary *winner; /* NULL when no arm is complete */
    const gar_arm_summary *poll;   /* the plan `poll` when complete, or NULL */
    const gar_arm_summary *block;  /* the plan `block` when complete, or NULL */
    unsigned quantile;             /* the latency ranked by: 99, or 90 or 50 where no p99 is
                                    * bounded from so few waits */
    double best_ns;                /* the lowest mean at that quantile (oracle left out) */
    uint64_t waits;                /* the least waits of a complete arm (one run's) */
    double over_budget_ns;         /* the winner is auto over its budget: the budget; else 0 */
    bool poll_failed;              /* `poll` ran but has a failed run */
    bool block_failed;             /* `block` ran but has a failed run */
    size_t tied;                   /* the arms tied for first, the winner included; 1: clear */
    const char *tie_break;         /* why this one among the tied: "lower busy", "lower
                                    * p99" or "earlier plan" (static); NULL when clear */
} gar_report_winner;

/* Where an arm stands in its group's table, best first. */
typedef enum gar_report_standing {
    GAR_REPORT_ELIGIBLE, /* may win under the rule (never the oracle) */
    GAR_REPORT_BOUND,    /* the oracle, complete: a bound shown beside the policies */
    GAR_REPORT_OUTSIDE,  /* complete, but its p99 is outside the slack */
    GAR_REPORT_FAILED,   /* at least one run failed: shown, never ranked */
} gar_report_standing;

typedef struct gar_report_row {
    const gar_arm_summary *arm;
    gar_report_standing standing;
    bool tied; /* eligible, and not told apart from the leader on the ranked figure */
} gar_report_row;

/* Whether every run of the arm succeeded (and it has any): the arms the rule
 * ranks. */
bool gar_report_complete(const gar_arm_summary *arm);

/* The ranking under `rule`, in one place: the winner of one group's arms
 * (`arms`, `count` of them, all of one trace, host and mode, in plan
 * order), with its ties, and, when `rows` is not NULL, the table's order in
 * rows[0 .. count-1]: the eligible arms by the mean of what the rule ranks
 * by (busy fraction, or p99 under `p99`), then the oracle, then the complete
 * rest by p99, then the failed arms (equal figures in plan, then estimator
 * order).  The rows point into `arms`. */
gar_report_winner gar_report_rank(const gar_arm_summary *arms, size_t count,
                                  const gar_report_rule *rule, gar_report_row *rows);

/* The winner alone: gar_report_rank(arms, count, rule, NULL). */
gar_report_winner gar_report_pick(const gar_arm_summary *arms, size_t count,
                                  const gar_report_rule *rule);

/* Whether an arm is complete and eligible under `rule` against `best_ns`,
 * the best mean at `quantile` (gar_report_winner's). */
bool gar_report_eligible(const gar_arm_summary *arm, unsigned quantile, double best_ns,
                         const gar_report_rule *rule);

/* How the winner won, in words, into out[size]: "clear", or "tied: 3
 * within noise, lower p99"; "over its own budget (p99 23 µs above 20 µs)"
 * in place of "clear" (before the ties) for an auto winner over its budget;
 * then, where the group was ranked by p90 or p50, "; ranked by p90: no p99
 * is bounded from 100 waits (a p99 needs 368)".  No " | " in it. */
void gar_report_verdict(const gar_report_winner *w, char *out, size_t size);

#endif
