/* experiments/sweep/auto_goals.c — auto beside the ex-post best fixed arm,
 * cell by cell, and the three goals (auto_goals.h). */
#include "sweep/auto_goals.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gar/time.h>

#include "sweep/html_text.h"
#include "sweep/number_text.h"

#define AUTO_PREFIX "auto:p99_us="

uint64_t gar_auto_goals_budget_of(const char *plan)
{
    size_t n = strlen(AUTO_PREFIX);
    if (plan == NULL || strncmp(plan, AUTO_PREFIX, n) != 0)
        return 0;
    uint64_t us = 0;
    for (const char *c = plan + n; *c != '\0'; c++) {
        if (*c < '0' || *c > '9' || us > UINT64_MAX / 10 / GAR_NS_PER_US)
            return 0;
        us = us * 10 + (uint64_t)(*c - '0');
    }
    return us * GAR_NS_PER_US;
}

static bool same_place(const gar_arm_summary *a, const gar_arm_summary *b)
{
    return strcmp(a->trace, b->trace) == 0 && strcmp(a->host, b->host) == 0 &&
           strcmp(a->mode, b->mode) == 0;
}

static bool same_arm(const gar_arm_summary *a, const gar_arm_summary *b)
{
    return strcmp(a->plan, b->plan) == 0 && strcmp(a->estimator, b->estimator) == 0;
}

const char *gar_auto_goals_rule(void)
{
    return "an arm, auto or fixed, meets B when every seed's run succeeded and the mean "
           "p99 over its seeds is at most B; an arm with a failed seed meets no budget and "
           "is never the best; auto's 95 % interval is shown apart (could_meet: B at or "
           "above its lower end) and never counts as met";
}

/* A failed run has no metrics (its p99 and busy read as 0): an arm with one
 * describes another experiment than its neighbours', so it meets nothing. */
static bool complete(const gar_arm_summary *a)
{
    return a != NULL && a->runs > 0 && a->failed == 0;
}

/* The one rule for every arm, auto and fixed. */
static bool meets(const gar_arm_summary *a, uint64_t budget)
{
    return complete(a) && a->p99_ns <= (double)budget;
}

static bool is_fixed(const gar_arm_summary *a)
{
    return gar_auto_goals_budget_of(a->plan) == 0 && strcmp(a->estimator, "oracle") != 0;
}

/* The arm of [from, to) with the same plan and estimator as `key`. */
static const gar_arm_summary *find_in(const gar_arm_list *arms, size_t from, size_t to,
                                      const gar_arm_summary *key)
{
    for (size_t i = from; i < to; i++)
        if (same_arm(&arms->arm[i], key))
            return &arms->arm[i];
    return NULL;
}

static const gar_arm_summary *plain(const gar_arm_list *arms, size_t from, size_t to,
                                    const char *plan)
{
    for (size_t i = from; i < to; i++)
        if (complete(&arms->arm[i]) && strcmp(arms->arm[i].plan, plan) == 0)
            return &arms->arm[i];
    return NULL;
}

/* One place's cells (arms [from, to)), appended to `g`. */
static void add_cells(const gar_arm_list *arms, size_t from, size_t to, gar_auto_goals *g)
{
    for (size_t i = from; i < to; i++) {
        uint64_t budget = gar_auto_goals_budget_of(arms->arm[i].plan);
        if (budget == 0 || arms->arm[i].runs == 0)
            continue;
        gar_auto_cell *c = &g->cell[g->cells++];
        *c = (gar_auto_cell){ .any = &arms->arm[i], .budget_ns = budget, .autoa = &arms->arm[i] };
        for (size_t j = from; j < to; j++) {
            const gar_arm_summary *a = &arms->arm[j];
            if (is_fixed(a) && meets(a, budget) &&
                (c->best == NULL || a->busy_frac < c->best->busy_frac))
                c->best = a;
        }
        c->poll = plain(arms, from, to, "poll");
        c->block = plain(arms, from, to, "block");
        /* Auto by the fixed arms' rule; its interval only says where it
         * could meet B (the budget and its p99 not told apart), apart. */
        c->auto_meets = meets(c->autoa, budget);
        c->auto_failed = !complete(c->autoa);
        c->auto_could_meet = !c->auto_meets && !c->auto_failed && c->autoa->has_ci &&
                             c->autoa->p99_lo_ns <= (double)budget;
    }
}

static int by_budget(const void *x, const void *y)
{
    const gar_auto_cell *a = x, *b = y;
    int place = strcmp(a->any->trace_short, b->any->trace_short);
    if (place == 0)
        place = strcmp(a->any->host_short, b->any->host_short);
    if (place == 0)
        place = strcmp(a->any->mode, b->any->mode);
    if (place != 0)
        return place;
    return a->budget_ns < b->budget_ns ? -1 : a->budget_ns > b->budget_ns;
}

/* Where the place of cell `c` begins and ends in `arms`. */
static void place_of(const gar_arm_list *arms, const gar_auto_cell *c, size_t *from, size_t *to)
{
    size_t at = (size_t)(c->any - arms->arm);
    size_t lo = at, hi = at + 1;
    while (lo > 0 && same_place(&arms->arm[lo - 1], c->any))
        lo--;
    while (hi < arms->count && same_place(&arms->arm[hi], c->any))
        hi++;
    *from = lo;
    *to = hi;
}

/* Goal 3: the fixed arm that meets B in the most cells, then least busy. */
static void pick_single(const gar_arm_list *arms, gar_auto_goals *g)
{
    double single_own = 0.0; /* the pick's busy over the cells where it meets B */
    for (size_t k = 0; k < arms->count; k++) {
        const gar_arm_summary *key = &arms->arm[k];
        if (!is_fixed(key) || find_in(arms, 0, k, key) != NULL)
            continue; /* not fixed, or a plan and estimator counted already */
        size_t met = 0, both = 0;
        double busy = 0.0, own = 0.0, autos = 0.0;
        for (size_t i = 0; i < g->cells; i++) {
            const gar_auto_cell *c = &g->cell[i];
            size_t from, to;
            place_of(arms, c, &from, &to);
            const gar_arm_summary *a = find_in(arms, from, to, key);
            if (!meets(a, c->budget_ns))
                continue;
            met++;
            own += a->busy_frac;
            if (c->auto_meets) {
                both++;
                busy += a->busy_frac;
                autos += c->autoa->busy_frac;
            }
        }
        if (met > 0 && (g->single == NULL || met > g->single_meets ||
                         (met == g->single_meets && own < single_own))) {
            single_own = own;
            g->single = key;
            g->single_meets = met;
            g->both_meet = both;
            g->single_busy = busy;
            g->auto_busy = autos;
        }
    }
}

int gar_auto_goals_compute(const gar_arm_list *arms, gar_auto_goals *out, gar_error *err)
{
    memset(out, 0, sizeof *out);
    size_t autos = 0;
    for (size_t i = 0; i < arms->count; i++)
        autos += gar_auto_goals_budget_of(arms->arm[i].plan) > 0;
    if (autos == 0)
        return 0;
    out->cell = calloc(autos, sizeof *out->cell);
    if (out->cell == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the auto goals", "exhausted");
    for (size_t from = 0; from < arms->count;) {
        size_t to = from + 1;
        while (to < arms->count && same_place(&arms->arm[to], &arms->arm[from]))
            to++;
        add_cells(arms, from, to, out);
        from = to;
    }
    qsort(out->cell, out->cells, sizeof *out->cell, by_budget);
    for (size_t i = 0; i < out->cells; i++) {
        const gar_auto_cell *c = &out->cell[i];
        if (c->best == NULL)
            continue;
        out->meetable++;
        out->auto_met += c->auto_meets;
        out->auto_could += c->auto_could_meet;
        double best = c->best->busy_frac, mine = c->autoa->busy_frac;
        out->within += c->auto_meets &&
                       (best > 0.0 ? mine <= GAR_AUTO_GOALS_WITHIN * best : mine == 0.0);
    }
    pick_single(arms, out);
    out->goal_budget = out->auto_met == out->meetable;
    out->goal_within = (double)out->within >= GAR_AUTO_GOALS_SHARE * (double)out->meetable;
    out->goal_single = out->single == NULL || out->both_meet == 0 ||
                       out->auto_busy < out->single_busy;
    return 0;
}

void gar_auto_goals_free(gar_auto_goals *goals)
{
    if (goals == NULL)
        return;
    free(goals->cell);
    memset(goals, 0, sizeof *goals);
}

static const char *verdict(bool ok)
{
    return ok ? "pass" : "fail";
}

/* Auto's p99 95 % interval in µs ("3-9", "3-inf"), or "-" without one. */
static void interval_text(const gar_arm_summary *a, char *out, size_t size)
{
    if (!a->has_ci || !complete(a)) {
        snprintf(out, size, "-");
        return;
    }
    if (isinf(a->p99_hi_ns))
        snprintf(out, size, "%.0f-inf", a->p99_lo_ns / 1000.0);
    else
        snprintf(out, size, "%.0f-%.0f", a->p99_lo_ns / 1000.0, a->p99_hi_ns / 1000.0);
}

static const char *met_word(const gar_auto_cell *c)
{
    return c->auto_failed ? "failed" : c->auto_meets ? "yes" : "no";
}

static const char *could_word(const gar_auto_cell *c)
{
    return c->auto_meets || c->auto_failed ? "-" : c->auto_could_meet ? "yes" : "no";
}

void gar_auto_goals_print(FILE *out, const gar_auto_goals *g)
{
    fprintf(out, "rule: %s\n", gar_auto_goals_rule());
    fprintf(out, "cells: %zu (trace x host x budget), %zu where a fixed arm meets the budget\n",
            g->cells, g->meetable);
    fprintf(out, "  %-10s %-36s %6s %9s %12s %12s %8s %10s %9s %12s %7s  %s\n", "trace", "host",
            "B_us", "auto_p99", "auto_p99_95%", "auto_busy", "auto_met", "could_meet",
            "best_p99", "best_busy", "ratio", "ex-post best fixed arm");
    for (size_t i = 0; i < g->cells; i++) {
        const gar_auto_cell *c = &g->cell[i];
        char p99[32], ci[64];
        if (c->auto_failed)
            snprintf(p99, sizeof p99, "failed");
        else
            snprintf(p99, sizeof p99, "%.0f", c->autoa->p99_ns / 1000.0);
        interval_text(c->autoa, ci, sizeof ci);
        fprintf(out, "  %-10s %-36s %6llu %9s %12s %12.6f %8s %10s", c->any->trace_short,
                c->any->host_short, (unsigned long long)(c->budget_ns / GAR_NS_PER_US), p99, ci,
                c->autoa->busy_frac, met_word(c), could_word(c));
        if (c->best == NULL) {
            fprintf(out, " %9s %12s %7s  %s\n", "-", "-", "-", "(none meets it)");
            continue;
        }
        char ratio[32] = "-";
        if (!c->auto_failed && c->best->busy_frac > 0.0)
            snprintf(ratio, sizeof ratio, "%.2f", c->autoa->busy_frac / c->best->busy_frac);
        fprintf(out, " %9.0f %12.6f %7s  %s / %s\n", c->best->p99_ns / 1000.0,
                c->best->busy_frac, ratio, c->best->plan, c->best->estimator);
    }
    fprintf(out, "goal_budget_met: %s (auto meets the budget in %zu of the %zu cells where a "
            "fixed arm does; in %zu more it could: B within its p99's 95 %% interval, not "
            "counted)\n", verdict(g->goal_budget), g->auto_met, g->meetable, g->auto_could);
    fprintf(out, "goal_cpu_within_1.25x: %s (%zu of %zu cells, %.1f %%; goal 80 %%)\n",
            verdict(g->goal_within), g->within, g->meetable,
            g->meetable > 0 ? 100.0 * (double)g->within / (double)g->meetable : 0.0);
    if (g->single == NULL) {
        fprintf(out, "goal_beats_single_plan: pass (no fixed arm meets any budget)\n");
        return;
    }
    fprintf(out, "goal_beats_single_plan: %s (best single fixed arm %s / %s meets the budget "
            "in %zu cells; over the %zu where auto does too, busy sums %.6f for it and %.6f "
            "for auto)\n", verdict(g->goal_single), g->single->plan, g->single->estimator,
            g->single_meets, g->both_meet, g->single_busy, g->auto_busy);
}

/* ---- the report's section ---------------------------------------------- */

static void html_busy(FILE *f, double busy)
{
    char text[32];
    gar_html_text(f, gar_percent_text(100.0 * busy, text, sizeof text)); /* "<0.001 %" */
}

/* A p99 in µs, in plain decimals ("17.7 µs"). */
static void html_p99(FILE *f, double ns)
{
    char text[32];
    fputs(gar_duration_text(ns, text, sizeof text), f);
}

/* An arm as the section names it: the namer's short name with the full
 * plan and estimator as its tooltip, or those in full. */
typedef struct arm_naming {
    gar_auto_arm_namer namer;
    void *context;
} arm_naming;

static void html_arm(FILE *f, const gar_arm_summary *a, const arm_naming *naming)
{
    if (naming->namer == NULL) {
        gar_html_text(f, a->plan);
        fputs(" / ", f);
        gar_html_text(f, a->estimator);
        return;
    }
    char name[512];
    naming->namer(a, naming->context, name, sizeof name);
    fputs("<span title=\"", f);
    gar_html_text(f, a->plan);
    fputs(" / ", f);
    gar_html_text(f, a->estimator);
    fputs("\">", f);
    gar_html_text(f, name);
    fputs("</span>", f);
}

/* One trace and host: the least budget auto meets, with its CPU beside the
 * best fixed arm's there; the cells [from, to) are that place's budgets. */
static void html_place(FILE *f, const gar_auto_goals *g, size_t from, size_t to,
                       const arm_naming *naming)
{
    const gar_auto_cell *c0 = &g->cell[from];
    fputs("<p><b>", f);
    gar_html_text(f, c0->any->trace_short);
    fputs("</b> on <b>", f);
    gar_html_text(f, c0->any->host_short);
    fputs("</b>: ", f);
    const gar_auto_cell *least = NULL;
    for (size_t i = from; i < to && least == NULL; i++)
        if (g->cell[i].auto_meets)
            least = &g->cell[i];
    if (least == NULL) {
        fputs("auto meets none of the budgets swept", f);
    } else {
        fprintf(f, "auto meets a p99 of %llu µs (its p99 ",
                (unsigned long long)(least->budget_ns / GAR_NS_PER_US));
        html_p99(f, least->autoa->p99_ns);
        fputs(") at ", f);
        html_busy(f, least->autoa->busy_frac);
        fputs(" busy CPU; ", f);
        if (least->best != NULL) {
            fputs("the best fixed arm within it, ", f);
            html_arm(f, least->best, naming);
            fputs(", costs ", f);
            html_busy(f, least->best->busy_frac);
        } else {
            fputs("no fixed arm meets it", f);
        }
    }
    fputs(".</p>\n<table>\n<tr><th>budget</th><th>auto p99</th><th>its 95 % interval</th>"
          "<th>auto busy</th><th>best fixed arm</th><th>its p99</th><th>its busy</th></tr>\n",
          f);
    for (size_t i = from; i < to; i++) {
        const gar_auto_cell *c = &g->cell[i];
        char ci[64];
        interval_text(c->autoa, ci, sizeof ci);
        fprintf(f, "<tr><td>%llu µs</td>", (unsigned long long)(c->budget_ns / GAR_NS_PER_US));
        if (c->auto_failed) {
            fprintf(f, "<td>failed (%llu of %llu seeds)</td><td>-</td><td>",
                    (unsigned long long)c->autoa->failed, (unsigned long long)c->autoa->runs);
        } else {
            fputs("<td>", f);
            html_p99(f, c->autoa->p99_ns);
            fprintf(f, "%s</td><td>%s%s%s</td><td>", c->auto_meets ? "" : " (over its budget)", ci,
                    strcmp(ci, "-") != 0 ? " µs" : "",
                    c->auto_could_meet ? " (could meet: B within it)" : "");
            html_busy(f, c->autoa->busy_frac);
        }
        fputs("</td><td>", f);
        if (c->best == NULL) {
            fputs("none meets it</td><td></td><td></td></tr>\n", f);
            continue;
        }
        html_arm(f, c->best, naming);
        fputs("</td><td>", f);
        html_p99(f, c->best->p99_ns);
        fputs("</td><td>", f);
        html_busy(f, c->best->busy_frac);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

int gar_auto_goals_html(FILE *f, const gar_auto_goals *g, const char *path, gar_error *err)
{
    return gar_auto_goals_html_named(f, g, NULL, NULL, path, err);
}

int gar_auto_goals_html_named(FILE *f, const gar_auto_goals *g, gar_auto_arm_namer namer,
                              void *context, const char *path, gar_error *err)
{
    const arm_naming naming = { namer, context };
    fputs("<section id=\"auto\">\n<h2>What budget can you meet, and at what CPU?</h2>\n"
          "<p>For each trace and host, <code>auto:p99_us=B</code> (gar chooses each wait's "
          "sleep and park for the budget) beside the ex-post best fixed arm: the least busy "
          "CPU among the fixed plans that meet B, which no one can know in advance.  Each "
          "figure is the mean over the seeds.  One rule for every arm: ", f);
    gar_html_text(f, gar_auto_goals_rule());
    fputs(".</p>\n", f);
    for (size_t from = 0; from < g->cells;) {
        size_t to = from + 1;
        while (to < g->cells && same_place(g->cell[to].any, g->cell[from].any))
            to++;
        html_place(f, g, from, to, &naming);
        from = to;
    }
    fprintf(f, "<p>Goals: auto meets the budget in %zu of the %zu cells where a fixed arm does "
               "(%s; in %zu more it could: B within its p99's 95 %% interval, not counted); "
               "within 1.25 × the best's CPU in %zu of them, %.1f %% (goal 80 %%: %s); "
               "against the best single fixed arm, ",
            g->auto_met, g->meetable, verdict(g->goal_budget), g->auto_could, g->within,
            g->meetable > 0 ? 100.0 * (double)g->within / (double)g->meetable : 0.0,
            verdict(g->goal_within));
    if (g->single == NULL) {
        fputs("none meets any budget (pass).</p>\n", f);
    } else {
        gar_html_text(f, g->single->plan);
        fputs(" / ", f);
        gar_html_text(f, g->single->estimator);
        fprintf(f, ", busy sums %.4g for it and %.4g for auto over the %zu cells where both "
                   "meet the budget (%s).</p>\n",
                g->single_busy, g->auto_busy, g->both_meet, verdict(g->goal_single));
    }
    fputs("</section>\n", f);
    if (ferror(f))
        return gar_error_set(err, GAR_E_IO, 3, path, "write", strerror(errno));
    return 0;
}
