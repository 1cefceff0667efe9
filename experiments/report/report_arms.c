/* experiments/report/report_arms.c — an arm in the report's words. */
#include "report/report_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/plan_names.h"
#include "sweep/format.h"
#include "sweep/number_text.h"

int gar_report_plans_of(const gar_arm_summary *group, size_t count, gar_report_plans *out,
                        gar_error *err)
{
    out->count = 0;
    out->plan = malloc((count > 0 ? count : 1) * sizeof *out->plan);
    if (out->plan == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the report", "exhausted");
    for (size_t i = 0; i < count; i++) {
        bool seen = false;
        for (size_t j = 0; j < out->count && !seen; j++)
            seen = strcmp(out->plan[j], group[i].plan) == 0;
        if (!seen)
            out->plan[out->count++] = group[i].plan;
    }
    return 0;
}

void gar_report_plans_free(gar_report_plans *plans)
{
    free(plans->plan);
    plans->plan = NULL;
    plans->count = 0;
}

void gar_report_arm_name(const gar_arm_summary *a, const gar_report_plans *plans, char *out,
                         size_t size)
{
    gar_arm_name_among(a->plan, a->estimator, plans->plan, plans->count, out, size);
}

bool gar_report_same_group(const gar_arm_summary *a, const gar_arm_summary *b)
{
    return strcmp(a->trace, b->trace) == 0 && strcmp(a->host, b->host) == 0 &&
           strcmp(a->mode, b->mode) == 0;
}

/* "1.3 µs", "140 µs", "2.1 ms": durations as people read them. */
static void duration_text(double ns, char *out, size_t size)
{
    gar_duration_text(ns, out, size);
}

/* "0.56–31.8 µs", "820 µs – 1.2 ms": a range of durations, the unit once
 * when both ends share it; an unbounded upper end said in words, and an
 * interval with neither end (too few waits for either) said as that. */
void gar_report_duration_range(double lo, double hi, char *out, size_t size)
{
    char a[32], b[32];
    if (lo <= 0 && isinf(hi)) {
        gar_format(out, size, "no bound (too few waits)");
        return;
    }
    duration_text(lo, a, sizeof a);
    if (isinf(hi)) {
        gar_format(out, size, "%s – no upper bound", a);
        return;
    }
    duration_text(hi, b, sizeof b);
    if ((lo >= 1e6) == (hi >= 1e6))
        gar_format(out, size, "%.*s–%s", (int)strcspn(a, " "), a, b);
    else
        gar_format(out, size, "%s – %s", a, b);
}

/* The seeds an arm's figures are means over. */
uint64_t gar_report_ok_runs(const gar_arm_summary *a)
{
    return a->runs - a->failed;
}

/* The seed spread of a p99, as the summary prints it: " (seeds 0.56–31.8 µs)". */
void gar_report_spread_text(const gar_arm_summary *a, char *out, size_t size)
{
    char range[80];
    if (gar_report_ok_runs(a) < 2) {
        gar_format(out, size, " (one seed)");
        return;
    }
    gar_report_duration_range(a->p99_min_ns, a->p99_max_ns, range, sizeof range);
    gar_format(out, size, " (seeds %s)", range);
}

/* What a saving against poll or block is worth: nothing to say when the
 * winner is that arm, and "within noise" when their intervals overlap, so
 * the page never states a difference its own intervals cannot tell apart. */
static const char *saving_caveat(const gar_arm_summary *win, const gar_arm_summary *ref,
                                 gar_report_interval (*interval)(const gar_arm_summary *))
{
    return gar_report_apart(interval(win), interval(ref)) ? ""
                                                          : " (within noise: their intervals "
                                                            "overlap)";
}

void gar_report_savings_text(const gar_report_winner *w, char *cpu, size_t cpu_size, char *lat,
                         size_t lat_size)
{
    const gar_arm_summary *win = w->winner;
    if (w->poll == win) {
        gar_format(cpu, cpu_size, "busy %.3g %% (it is poll)", 100 * win->busy_frac);
    } else if (w->poll != NULL) {
        double saved = w->poll->busy_frac - win->busy_frac;
        gar_format(cpu, cpu_size, "busy %.3g %% against poll's %.3g %%: %.3g points less%s",
                   100 * win->busy_frac, 100 * w->poll->busy_frac, 100 * saved,
                   saving_caveat(win, w->poll, gar_report_busy_interval));
    } else {
        gar_format(cpu, cpu_size, "busy %.3g %% (%s)", 100 * win->busy_frac,
                   w->poll_failed ? "poll had a failed run" : "the sweep ran no poll");
    }
    /* Latency on the quantile the group was ranked by (p99, or the highest
     * its waits bound), so the saving is one its intervals can tell. */
    unsigned q = w->quantile;
    double mine = gar_report_quantile(win, q);
    if (w->block == win) {
        char a[32];
        duration_text(mine, a, sizeof a);
        gar_format(lat, lat_size, "p%u %s (it is block)", q, a);
    } else if (w->block != NULL) {
        char a[32], b[32], d[32];
        double theirs = gar_report_quantile(w->block, q);
        duration_text(mine, a, sizeof a);
        duration_text(theirs, b, sizeof b);
        double less = theirs - mine;
        duration_text(less < 0 ? -less : less, d, sizeof d);
        bool apart = gar_report_apart(gar_report_quantile_interval(win, q),
                                      gar_report_quantile_interval(w->block, q));
        gar_format(lat, lat_size, "p%u %s against block's %s: %s %s%s", q, a, b, d,
                   less >= 0 ? "less" : "more",
                   apart ? "" : " (within noise: their intervals overlap)");
    } else {
        char a[32];
        duration_text(mine, a, sizeof a);
        gar_format(lat, lat_size, "p%u %s (%s)", q, a,
                   w->block_failed ? "block had a failed run" : "the sweep ran no block");
    }
}

/* "winner: TRACE | HOST | MODE | ARM | p99 .. (seeds ..) | busy .. | poll .. | block ..
 * | waits N | clear": fields split by '|' so a script can lay them out as a table. */
void gar_report_summary_line(FILE *out, const gar_arm_summary *g, const char *name,
                         const gar_report_winner *w)
{
    char p99[32], spread[96], verdict[256];
    duration_text(w->winner->p99_ns, p99, sizeof p99);
    gar_report_spread_text(w->winner, spread, sizeof spread);
    gar_report_verdict(w, verdict, sizeof verdict);
    fprintf(out, "winner: %s | %s | %s | %s | p99 %s%s | busy %.3g %%", g->trace_short,
            g->host_short, g->mode, name, p99, spread, 100 * w->winner->busy_frac);
    const gar_arm_summary *refs[2] = { w->poll, w->block };
    const char *ref_names[2] = { "poll", "block" };
    const bool ref_failed[2] = { w->poll_failed, w->block_failed };
    for (int r = 0; r < 2; r++) {
        if (refs[r] == NULL) {
            fprintf(out, " | %s: %s", ref_names[r], ref_failed[r] ? "failed" : "not run");
            continue;
        }
        duration_text(refs[r]->p99_ns, p99, sizeof p99);
        fprintf(out, " | %s: p99 %s, busy %.3g %%", ref_names[r], p99, 100 * refs[r]->busy_frac);
    }
    fprintf(out, " | waits %llu | %s\n", (unsigned long long)w->winner->waits, verdict);
}
