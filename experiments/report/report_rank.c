/* experiments/report/report_rank.c — the ranking rules, and ties where the
 * arms' intervals overlap. */
#include "report/report_rank.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/quantile_interval.h"
#include "sweep/auto_goals.h"

static bool is_oracle(const gar_arm_summary *a)
{
    return strcmp(a->estimator, "oracle") == 0;
}

bool gar_report_complete(const gar_arm_summary *a)
{
    return a->runs > 0 && a->failed == 0;
}

gar_report_rule gar_report_rule_default(void)
{
    return (gar_report_rule){ GAR_RULE_BUSY_WITHIN, GAR_REPORT_RULE_PCT, GAR_REPORT_RULE_US };
}

/* A plain decimal ("10", "2.5") from 0 to `max`. */
static bool rule_number(const char *s, double max, double *out)
{
    if (*s == '\0' || strspn(s, "0123456789.") != strlen(s) || strchr(s, '.') != strrchr(s, '.') ||
        s[0] == '.' || s[strlen(s) - 1] == '.')
        return false;
    double v = strtod(s, NULL);
    if (v > max)
        return false;
    *out = v;
    return true;
}

static int rule_fault(gar_error *err, const char *text, const char *why)
{
    char argument[GAR_ERROR_ARG_BYTES], fault[GAR_ERROR_ARG_BYTES];
    snprintf(argument, sizeof argument, "'%.200s'", text);
    snprintf(fault, sizeof fault, "%.300s (rules: " GAR_REPORT_RULE_GRAMMAR ")", why);
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "--rule", argument, fault);
}

int gar_report_rule_parse(const char *text, gar_report_rule *out, gar_error *err)
{
    gar_report_rule r = gar_report_rule_default();
    if (strcmp(text, "p99") == 0 || strcmp(text, "busy") == 0) {
        r.kind = text[0] == 'p' ? GAR_RULE_P99 : GAR_RULE_BUSY;
        *out = r;
        return 0;
    }
    static const char head[] = "busy-within";
    if (strncmp(text, head, sizeof head - 1) != 0 ||
        (text[sizeof head - 1] != '\0' && text[sizeof head - 1] != ':'))
        return rule_fault(err, text, "is no rule");
    const char *p = text[sizeof head - 1] == ':' ? text + sizeof head : NULL;
    bool have_pct = false, have_us = false;
    if (p != NULL && *p == '\0')
        return rule_fault(err, text, "has nothing after ':'");
    while (p != NULL) {
        const char *comma = strchr(p, ',');
        size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (n == 0 || n >= sizeof item)
            return rule_fault(err, text, "has an empty or overlong KEY=VALUE");
        memcpy(item, p, n);
        item[n] = '\0';
        bool pct = strncmp(item, "pct=", 4) == 0, us = strncmp(item, "us=", 3) == 0;
        if (!pct && !us)
            return rule_fault(err, text, "takes only pct=P and us=U");
        if ((pct && have_pct) || (us && have_us))
            return rule_fault(err, text, pct ? "gives pct twice" : "gives us twice");
        if (pct && !rule_number(item + 4, 1000, &r.pct))
            return rule_fault(err, text, "has a pct that is not a plain decimal 0..1000");
        if (us && !rule_number(item + 3, 1e7, &r.us))
            return rule_fault(err, text, "has a us that is not a plain decimal 0..10000000");
        have_pct |= pct;
        have_us |= us;
        p = comma != NULL ? comma + 1 : NULL;
    }
    *out = r;
    return 0;
}

void gar_report_rule_text(const gar_report_rule *rule, char *out, size_t size)
{
    if (rule->kind == GAR_RULE_P99)
        snprintf(out, size, "p99");
    else if (rule->kind == GAR_RULE_BUSY)
        snprintf(out, size, "busy");
    else
        snprintf(out, size, "busy-within:pct=%g,us=%g", rule->pct, rule->us);
}

void gar_report_rule_words(const gar_report_rule *rule, char *out, size_t size)
{
    if (rule->kind == GAR_RULE_P99)
        snprintf(out, size, "the arm with the lowest p99 overshoot wins (ties: the lower busy "
                            "CPU)");
    else if (rule->kind == GAR_RULE_BUSY)
        snprintf(out, size, "the arm with the lowest busy CPU fraction wins (ties: the lower "
                            "p99 overshoot)");
    else
        snprintf(out, size,
                 "the arms whose p99 overshoot is within max(%g %%, %g µs) of the lowest are "
                 "eligible, and the eligible arm with the lowest busy CPU fraction wins",
                 rule->pct, rule->us);
}

double gar_report_quantile(const gar_arm_summary *a, unsigned quantile)
{
    return quantile == 50 ? a->p50_ns : quantile == 90 ? a->p90_ns : a->p99_ns;
}

bool gar_report_eligible(const gar_arm_summary *a, unsigned quantile, double best_ns,
                         const gar_report_rule *rule)
{
    if (!gar_report_complete(a))
        return false;
    if (rule->kind != GAR_RULE_BUSY_WITHIN)
        return true;
    double slack = best_ns * rule->pct / 100.0;
    if (slack < rule->us * 1000.0)
        slack = rule->us * 1000.0;
    return gar_report_quantile(a, quantile) <= best_ns + slack;
}

gar_report_interval gar_report_quantile_interval(const gar_arm_summary *a, unsigned quantile)
{
    double mean = gar_report_quantile(a, quantile);
    double least = quantile == 50 ? a->p50_min_ns : quantile == 90 ? a->p90_min_ns : a->p99_min_ns;
    double most = quantile == 50 ? a->p50_max_ns : quantile == 90 ? a->p90_max_ns : a->p99_max_ns;
    gar_report_interval i = { fmin(least, mean), fmax(most, mean) };
    if (a->has_ci) {
        i.lo = fmin(i.lo, quantile == 50 ? a->p50_lo_ns : quantile == 90 ? a->p90_lo_ns
                                                                          : a->p99_lo_ns);
        i.hi = fmax(i.hi, quantile == 50 ? a->p50_hi_ns : quantile == 90 ? a->p90_hi_ns
                                                                          : a->p99_hi_ns);
    }
    return i;
}

gar_report_interval gar_report_p99_interval(const gar_arm_summary *a)
{
    return gar_report_quantile_interval(a, 99);
}

double gar_report_over_budget(const gar_arm_summary *a)
{
    uint64_t budget = gar_auto_goals_budget_of(a->plan);
    return budget > 0 && gar_report_complete(a) && a->p99_ns > (double)budget ? (double)budget
                                                                              : 0.0;
}

/* Whether the seeds' stored intervals bound the arm's quantile from above
 * (an arm without them, from before schema 4, is taken as bounded: ranked
 * as it always was). */
static bool bounds(const gar_arm_summary *a, unsigned quantile)
{
    return !a->has_ci || isfinite(gar_report_quantile_interval(a, quantile).hi);
}

gar_report_interval gar_report_busy_interval(const gar_arm_summary *a)
{
    return (gar_report_interval){ fmin(a->busy_min, a->busy_frac),
                                  fmax(a->busy_max, a->busy_frac) };
}

bool gar_report_apart(gar_report_interval a, gar_report_interval b)
{
    return a.hi < b.lo || b.hi < a.lo;
}

/* The figure the rule ranks by, and the one that breaks its ties. */
static bool ranks_by_p99(const gar_report_rule *rule)
{
    return rule->kind == GAR_RULE_P99;
}

/* The latency figure is the quantile `q` the group is ranked by (p99, or
 * the highest its waits bound: gar_report_rank). */
static double ranked_figure(const gar_arm_summary *a, const gar_report_rule *rule, unsigned q)
{
    return ranks_by_p99(rule) ? gar_report_quantile(a, q) : a->busy_frac;
}

static double other_figure(const gar_arm_summary *a, const gar_report_rule *rule, unsigned q)
{
    return ranks_by_p99(rule) ? a->busy_frac : gar_report_quantile(a, q);
}

static gar_report_interval ranked_interval(const gar_arm_summary *a, const gar_report_rule *rule,
                                           unsigned q)
{
    return ranks_by_p99(rule) ? gar_report_quantile_interval(a, q) : gar_report_busy_interval(a);
}

/* Whether `a` may win: complete, not the oracle, eligible under the rule. */
static bool candidate(const gar_arm_summary *a, const gar_report_winner *w,
                      const gar_report_rule *rule)
{
    return !is_oracle(a) && gar_report_eligible(a, w->quantile, w->best_ns, rule);
}

/* The quantile a group's latency is ranked by: p99, or where no complete
 * arm's p99 has an upper bound (a p99 needs 368 waits at 95 %), the highest
 * quantile some arm's waits do bound (p90 from 36, p50 from 6); p50 when
 * none is bounded. */
static unsigned ranked_quantile(const gar_arm_summary *arms, size_t count)
{
    static const unsigned quantiles[] = { 99, 90 };
    for (size_t k = 0; k < sizeof quantiles / sizeof quantiles[0]; k++)
        for (size_t i = 0; i < count; i++)
            if (gar_report_complete(&arms[i]) && !is_oracle(&arms[i]) &&
                bounds(&arms[i], quantiles[k]))
                return quantiles[k];
    return 50;
}

/* A table row with what it is ranked by, so qsort needs no context. */
typedef struct ranked {
    gar_report_row row;
    double key; /* the ranked figure when eligible, p99 otherwise */
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->row.standing != y->row.standing)
        return x->row.standing < y->row.standing ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->row.arm->plan_rank != y->row.arm->plan_rank)
        return x->row.arm->plan_rank < y->row.arm->plan_rank ? -1 : 1;
    return (x->row.arm->estimator_rank > y->row.arm->estimator_rank) -
           (x->row.arm->estimator_rank < y->row.arm->estimator_rank);
}

/* Orders rows[0 .. count-1] for the table; without memory, leaves them in
 * plan order (standing and ties still set). */
static void order_rows(const gar_arm_summary *arms, size_t count, const gar_report_winner *w,
                       const bool *tied, const gar_report_rule *rule,
                       gar_report_row *rows)
{
    ranked *order = malloc(count > 0 ? count * sizeof *order : 1);
    for (size_t i = 0; i < count; i++) {
        const gar_arm_summary *a = &arms[i];
        gar_report_row r = { a,
                             !gar_report_complete(a) ? GAR_REPORT_FAILED
                             : is_oracle(a)          ? GAR_REPORT_BOUND
                             : gar_report_eligible(a, w->quantile, w->best_ns, rule)
                                 ? GAR_REPORT_ELIGIBLE
                                 : GAR_REPORT_OUTSIDE,
                             tied != NULL && tied[i] };
        rows[i] = r;
        if (order != NULL) {
            order[i].row = r;
            order[i].key = r.standing == GAR_REPORT_ELIGIBLE
                               ? ranked_figure(a, rule, w->quantile)
                               : gar_report_quantile(a, w->quantile);
        }
    }
    if (order == NULL)
        return;
    qsort(order, count, sizeof *order, by_rank);
    for (size_t i = 0; i < count; i++)
        rows[i] = order[i].row;
    free(order);
}

/* Whether `a` leads `b` on the ranked figure's mean (a strict compare:
 * arms come in plan order, so equal figures keep the earlier plan). */
static bool leads(const gar_arm_summary *a, const gar_arm_summary *b, const gar_report_rule *rule,
                  unsigned q)
{
    if (b == NULL)
        return true;
    double fa = ranked_figure(a, rule, q), fb = ranked_figure(b, rule, q);
    return fa < fb || (fa == fb && other_figure(a, rule, q) < other_figure(b, rule, q));
}

gar_report_winner gar_report_rank(const gar_arm_summary *arms, size_t count,
                                  const gar_report_rule *rule, gar_report_row *rows)
{
    gar_report_winner w = { .quantile = ranked_quantile(arms, count) };
    bool any = false;
    for (size_t i = 0; i < count; i++) {
        const gar_arm_summary *a = &arms[i];
        if (!gar_report_complete(a)) {
            w.poll_failed |= strcmp(a->plan, "poll") == 0;
            w.block_failed |= strcmp(a->plan, "block") == 0;
            continue;
        }
        if (strcmp(a->plan, "poll") == 0)
            w.poll = a;
        if (strcmp(a->plan, "block") == 0)
            w.block = a;
        if (is_oracle(a))
            continue;
        if (!any || gar_report_quantile(a, w.quantile) < w.best_ns)
            w.best_ns = gar_report_quantile(a, w.quantile);
        if (w.waits == 0 || a->waits < w.waits)
            w.waits = a->waits;
        any = true;
    }
    /* The leader by the mean, then who cannot be told apart from it. */
    const gar_arm_summary *leader = NULL;
    for (size_t i = 0; any && i < count; i++)
        if (candidate(&arms[i], &w, rule) && leads(&arms[i], leader, rule, w.quantile))
            leader = &arms[i];
    /* Without memory for the marks, the leader stands alone. */
    bool *tied = calloc(count > 0 ? count : 1, sizeof *tied);
    for (size_t i = 0; i < count; i++) {
        const gar_arm_summary *a = &arms[i];
        bool with_leader = a == leader || (tied != NULL && leader != NULL &&
                                           candidate(a, &w, rule) &&
                                           !gar_report_apart(ranked_interval(a, rule, w.quantile),
                                                             ranked_interval(leader, rule,
                                                                             w.quantile)));
        if (tied != NULL)
            tied[i] = with_leader;
        if (!with_leader)
            continue;
        w.tied++;
        /* Among the tied, the lower other figure, then the earlier plan. */
        if (w.winner == NULL ||
            other_figure(a, rule, w.quantile) < other_figure(w.winner, rule, w.quantile))
            w.winner = a;
    }
    if (w.tied > 1) {
        bool equal = false;
        for (size_t i = 0; i < count; i++)
            equal |= tied[i] && &arms[i] != w.winner &&
                     other_figure(&arms[i], rule, w.quantile) ==
                         other_figure(w.winner, rule, w.quantile);
        w.tie_break = equal                ? "earlier plan"
                      : ranks_by_p99(rule) ? "lower busy"
                      : w.quantile == 50   ? "lower p50"
                      : w.quantile == 90   ? "lower p90"
                                           : "lower p99";
    }
    if (w.winner != NULL)
        w.over_budget_ns = gar_report_over_budget(w.winner);
    if (rows != NULL)
        order_rows(arms, count, &w, tied, rule, rows);
    free(tied);
    return w;
}

gar_report_winner gar_report_pick(const gar_arm_summary *arms, size_t count,
                                  const gar_report_rule *rule)
{
    return gar_report_rank(arms, count, rule, NULL);
}


void gar_report_verdict(const gar_report_winner *w, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    /* A winner over its own budget is never clear, tied or not. */
    if (w->over_budget_ns > 0)
        n += (size_t)snprintf(out, size, "over its own budget (p99 %.3g µs above %.3g µs)%s",
                              w->winner->p99_ns / 1e3, w->over_budget_ns / 1e3,
                              w->tied > 1 ? "; " : "");
    if (n < size && w->tied > 1)
        n += (size_t)snprintf(out + n, size - n, "tied: %zu within noise, %s", w->tied,
                              w->tie_break);
    else if (n < size && w->over_budget_ns <= 0)
        n += (size_t)snprintf(out + n, size - n, "clear");
    if (n >= size || w->quantile == 99)
        return;
    unsigned missing = w->quantile == 90 ? 99 : 90;
    size_t need = gar_quantile_interval_min_waits(missing * 10000u, GAR_CI_LEVEL_DEFAULT);
    if (w->quantile == 90)
        snprintf(out + n, size - n,
                 "; ranked by p90: no p99 is bounded from %llu waits (a p99 needs %zu)",
                 (unsigned long long)w->waits, need);
    else
        snprintf(out + n, size - n,
                 "; ranked by p50: no p99 or p90 is bounded from %llu waits (a p90 needs %zu%s)",
                 (unsigned long long)w->waits, need,
                 w->waits < gar_quantile_interval_min_waits(500000u, GAR_CI_LEVEL_DEFAULT)
                     ? "; too few to bound a p50 either"
                     : "");
}
