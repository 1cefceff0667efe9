/* experiments/report/report.h — a sweep database as one HTML page with its plots.
 *
 * The ranking rule, per trace, host and mode (the arms' numbers are means
 * over their seeds), is chosen with `gar report --rule`:
 *
 *   busy-within[:pct=P,us=U]   (the default, pct=10, us=2)
 *     1. best = the lowest p99 overshoot of any arm but the oracle's (the
 *        oracle knows each residual in advance: a bound, not a policy);
 *     2. an arm is *eligible* when its p99 overshoot is at most
 *        best + max(P % of best, U µs);
 *     3. the winner is the eligible arm (not oracle) with the lowest busy
 *        CPU fraction (ties: lower p99, then plan order).
 *   p99    the lowest p99 overshoot wins (ties: lower busy, then plan order)
 *   busy   the lowest busy CPU fraction wins (ties: lower p99, plan order)
 *
 * Under p99 and busy every complete arm but the oracle is eligible.
 * Only *complete* arms take part: an arm with any failed run (a seed whose
 * replay returned an error) is shown as failed, with its count of failed
 * seeds, and is never ranked on the seeds that happened to succeed — its mean
 * would describe another experiment than its neighbours'.
 * The table ranks the eligible arms by busy fraction, then the rest by p99,
 * then the failed arms.  The winner is set against `poll` (the CPU it saves)
 * and `block` (the latency it saves), when the sweep ran those plans and
 * they are complete. */
#ifndef GAR_REPORT_H
#define GAR_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <gar/error.h>

#include "results.h"
#include "store.h"

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

/* The winner of one (trace, host, mode) and its two references. */
typedef struct gar_report_winner {
    const gar_arm_summary *winner; /* NULL when no arm is complete */
    const gar_arm_summary *poll;   /* the plan `poll` when complete, or NULL */
    const gar_arm_summary *block;  /* the plan `block` when complete, or NULL */
    double best_p99_ns;
    bool poll_failed;              /* `poll` ran but has a failed run */
    bool block_failed;             /* `block` ran but has a failed run */
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
} gar_report_row;

/* Whether every run of the arm succeeded (and it has any): the arms the rule
 * ranks. */
bool gar_report_complete(const gar_arm_summary *arm);

/* The ranking under `rule`, in one place: the winner of one group's arms
 * (`arms`, `count` of them, all of one trace, host and mode, in plan
 * order), and, when `rows` is not NULL, the table's order in rows[0 ..
 * count-1]: the eligible arms by what the rule ranks by (busy fraction, or
 * p99 under `p99`), then the oracle, then the complete rest by p99, then the
 * failed arms (ties in plan, then estimator order).  The rows point into
 * `arms`. */
gar_report_winner gar_report_rank(const gar_arm_summary *arms, size_t count,
                                  const gar_report_rule *rule, gar_report_row *rows);

/* The winner alone: gar_report_rank(arms, count, rule, NULL). */
gar_report_winner gar_report_pick(const gar_arm_summary *arms, size_t count,
                                  const gar_report_rule *rule);

/* Whether an arm is complete and eligible under `rule` against
 * `best_p99_ns`. */
bool gar_report_eligible(const gar_arm_summary *arm, double best_p99_ns,
                         const gar_report_rule *rule);

/* Writes DIR/report.html and the plots it shows (every pareto plot, the
 * parameter plots, each trace's CDFs and one prediction plot per trace),
 * ranking by `rule`, then prints "rule: TEXT" and one "winner: ..." line
 * per group on `summary` (NULL for none).  Returns 0, -GAR_E_IO (gnuplot
 * missing, files, the database) or a re-run's refusal. */
int gar_report_write(gar_store *store, const char *dir, const gar_report_rule *rule,
                     FILE *summary, gar_error *err);

#endif
