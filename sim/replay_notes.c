/* sim/replay_notes.c — a replay's counts in words (replay_notes.h). */
#include "sim/replay_notes.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/nearest_rank.h"
#include "sim/quantile_words.h"

static gar_replay_note *add(gar_replay_notes *out, const char *name, uint64_t count)
{
    gar_replay_note *n = &out->note[out->count++];
    *n = (gar_replay_note){ .name = name, .count = count };
    return n;
}

/* Appends to `buf` (of `size`, holding `*len`), snprintf style, never past
 * its end. */
static void append(char *buf, size_t size, size_t *len, const char *format, ...)
{
    if (*len >= size)
        return;
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(buf + *len, size - *len, format, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

/* Why the predict waits did not sleep, into `buf`. */
static void why_not_slept(const gar_replay_diagnosis *d, uint64_t waits, const gar_bands *bands,
                          const gar_estimator_spec *estimator, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    if (estimator->family == GAR_ESTIMATOR_NONE) {
        append(buf, size, &len, "the none estimator never predicts");
        return;
    }
    const char *sep = "";
    if (d->unpredicted > 0) {
        if (d->unpredicted == d->predict_waits && d->points >= waits)
            append(buf, size, &len,
                   "no point repeats (each of the %llu waits is at a point of its own), so no "
                   "estimator ever had a sample",
                   (unsigned long long)waits);
        else
            append(buf, size, &len,
                   "%llu had no prediction yet (the point's window not filled: %llu %s over "
                   "%llu waits)",
                   (unsigned long long)d->unpredicted, (unsigned long long)d->points,
                   d->points == 1 ? "point" : "points", (unsigned long long)waits);
        sep = ", ";
    }
    if (d->short_predictions > 0) {
        if (bands->count == 1) {
            const gar_deadline *dl = &bands->band[0].plan.deadline;
            char at[32];
            gar_words_ns(dl->margin_ns + dl->min_sleep_ns, at, sizeof at);
            append(buf, size, &len, "%s%llu %s below margin + min_sleep (%s)", sep,
                   (unsigned long long)d->short_predictions,
                   d->short_predictions == 1 ? "prediction was" : "predictions were", at);
        } else {
            append(buf, size, &len, "%s%llu %s below their band's margin + min_sleep", sep,
                   (unsigned long long)d->short_predictions,
                   d->short_predictions == 1 ? "prediction was" : "predictions were");
        }
    }
}

void gar_replay_notes_of(const gar_replay_metrics *m, const gar_bands *bands,
                         const gar_estimator_spec *estimator, const char *fallback,
                         gar_replay_notes *out)
{
    out->count = 0;
    const gar_replay_diagnosis *d = &m->diagnosis;
    char worst[32];
    if (fallback != NULL) {
        gar_replay_note *n = add(out, "fallback", m->waits);
        snprintf(n->message, sizeof n->message,
                 "the host ran %.300s: it lacks what the plan asked for", fallback);
    }
    if (d->predict_waits > 0 && d->slept * GAR_REPLAY_RARELY_SLEPT < d->predict_waits) {
        char why[300];
        why_not_slept(d, m->waits, bands, estimator, why, sizeof why);
        gar_replay_note *n = add(out, d->slept == 0 ? "never_slept" : "rarely_slept",
                                 d->predict_waits - d->slept);
        if (d->slept == 0)
            snprintf(n->message, sizeof n->message,
                     "predict never slept on its %llu waits: %s; so it ran as the plan "
                     "without predict",
                     (unsigned long long)d->predict_waits, why);
        else
            snprintf(n->message, sizeof n->message,
                     "predict slept on only %llu of its %llu waits: %s",
                     (unsigned long long)d->slept, (unsigned long long)d->predict_waits, why);
    }
    if (d->late_wakes > 0) {
        gar_replay_note *n = add(out, "late_wakes", d->late_wakes);
        n->has_worst = true;
        n->worst_ns = d->late_worst_ns;
        gar_words_ns(d->late_worst_ns, worst, sizeof worst);
        snprintf(n->message, sizeof n->message,
                 "%llu predicted %s after the work completed (a prediction too long); "
                 "the worst overshot by %s",
                 (unsigned long long)d->late_wakes,
                 d->late_wakes == 1 ? "sleep woke" : "sleeps woke", worst);
    }
    if (d->backstop_waits > 0) {
        gar_replay_note *n = add(out, "backstop_hits", d->backstop_waits);
        n->has_worst = true;
        n->worst_ns = d->backstop_worst_ns;
        gar_words_ns(d->backstop_worst_ns, worst, sizeof worst);
        snprintf(n->message, sizeof n->message,
                 "%llu %s ended by a backstop query (the word never woke the park; "
                 "%llu backstop queries in all); the worst overshot by %s",
                 (unsigned long long)d->backstop_waits,
                 d->backstop_waits == 1 ? "wait was" : "waits were",
                 (unsigned long long)m->backstop_queries, worst);
    }
    size_t need = gar_quantile_interval_min_waits(990000, m->ci_level);
    if (m->waits > 0 && !m->overshoot_ci.p99.has_hi) {
        gar_replay_note *n = add(out, "few_waits", m->waits);
        snprintf(n->message, sizeof n->message,
                 "%llu waits are too few for a p99 (%zu bound it from above at %g %%)%s",
                 (unsigned long long)m->waits, need, m->ci_level * 100.0,
                 gar_nearest_rank_index(m->waits, 990000) == m->waits - 1
                     ? ": the p99 is the largest wait"
                     : "");
    }
    if (m->quantiles_histogram) {
        gar_replay_note *n = add(out, "histogram_quantiles", m->waits);
        snprintf(n->message, sizeof n->message,
                 "the quantiles of these %llu waits were read from a histogram (past %zu "
                 "values of a metric): each within 0.1 %%, its intervals widened to the "
                 "histogram's buckets",
                 (unsigned long long)m->waits, (size_t)GAR_SKETCH_EXACT_MAX);
    }
}

bool gar_replay_auto_missed(const gar_replay_metrics *m, const char *label,
                            gar_dur_ns budget_ns, gar_error *warning)
{
    if (m->waits == 0 || m->overshoot_ns.p99 <= budget_ns)
        return false;
    const gar_quantile_interval *ci = &m->overshoot_ci.p99;
    char p99[32], budget[32], lo[32], hi[32], sure[200];
    gar_words_ns(m->overshoot_ns.p99, p99, sizeof p99);
    gar_words_ns(budget_ns, budget, sizeof budget);
    gar_words_ns(ci->lo, lo, sizeof lo);
    gar_words_ns(ci->hi, hi, sizeof hi);
    if (ci->has_lo && ci->lo > budget_ns)
        snprintf(sure, sizeof sure, "its %g %% interval, %s to %s, lies wholly above it",
                 m->ci_level * 100.0, lo, ci->has_hi ? hi : "unbounded");
    else if (ci->has_hi)
        snprintf(sure, sizeof sure,
                 "the budget is within its %g %% interval, %s to %s: they cannot be told apart",
                 m->ci_level * 100.0, ci->has_lo ? lo : "0", hi);
    else
        snprintf(sure, sizeof sure, "%llu waits are too few to bound a p99 from above (%zu at "
                                    "%g %%)",
                 (unsigned long long)m->waits,
                 gar_quantile_interval_min_waits(990000, m->ci_level), m->ci_level * 100.0);
    gar_error_set(warning, GAR_W_AUTO_MISSED_BUDGET, 4, label, p99, budget, sure);
    return true;
}

void gar_replay_notes_hint_kernels(gar_replay_notes *notes)
{
    for (size_t k = 0; k < notes->count; k++) {
        gar_replay_note *n = &notes->note[k];
        if (strcmp(n->name, "few_waits") != 0)
            continue;
        size_t len = strlen(n->message);
        append(n->message, sizeof n->message, &len,
               "; this trace holds a profile's synchronizing calls: `gar import ... --wait-on "
               "kernel` makes a row of every kernel");
    }
}
