/* experiments/verify/verify_runs.c — the real runs' envelope and the three-way verdict. */
#include "verify/verify_runs.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

const char *gar_verify_position_name(gar_verify_position position)
{
    switch (position) {
    case GAR_POSITION_INSIDE: return "inside";
    case GAR_POSITION_ABOVE: return "above all";
    case GAR_POSITION_BELOW: return "below all";
    default: return "not judged";
    }
}

const char *gar_verify_runs_verdict_name(gar_verify_runs_verdict verdict)
{
    switch (verdict) {
    case GAR_RUNS_AGREE: return "agree";
    case GAR_RUNS_BIASED: return "biased";
    default: return "unjudgeable here";
    }
}

static int compare_ns(const void *a, const void *b)
{
    gar_dur_ns x = *(const gar_dur_ns *)a, y = *(const gar_dur_ns *)b;
    return (x > y) - (x < y);
}

void gar_verify_pool(const gar_dur_ns *const *parts, size_t count, size_t n, gar_dur_ns *out)
{
    for (size_t i = 0; i < count; i++)
        memcpy(out + i * n, parts[i], n * sizeof *out);
    qsort(out, count * n, sizeof *out, compare_ns);
}

/* Where `sim` lies against [lo, hi], and how far outside as a fraction of
 * the nearest end (an end of 0 ns: any value above it is wholly outside). */
static void place(gar_verify_envelope *e)
{
    e->beyond = 0;
    if (e->sim > e->real_max) {
        e->position = GAR_POSITION_ABOVE;
        e->beyond = e->real_max > 0 ? (double)(e->sim - e->real_max) / (double)e->real_max
                                    : 1.0;
    } else if (e->sim < e->real_min) {
        e->position = GAR_POSITION_BELOW;
        e->beyond = (double)(e->real_min - e->sim) / (double)e->real_min;
    } else {
        e->position = GAR_POSITION_INSIDE;
    }
}

void gar_verify_judge_runs(const gar_verify_tolerance *tol, bool blocks,
                           const gar_dur_ns *const *real, size_t runs, size_t n,
                           const gar_dur_ns *real_pooled, const gar_dur_ns *sim_pooled,
                           size_t n_sim, gar_verify_runs_judgement *out)
{
    assert(tol != NULL && real != NULL && runs >= 1 && n >= 1 && real_pooled != NULL &&
           sim_pooled != NULL && n_sim >= 1 && out != NULL);
    static const struct {
        const char *key;
        uint32_t level;
    } levels[GAR_VERIFY_RUNS_LEVELS] = { { "p50", 500000 }, { "p90", 900000 }, { "p99", 990000 } };
    gar_verify_runs_judgement j;
    memset(&j, 0, sizeof j);
    static const char *const outside_why[GAR_VERIFY_RUNS_LEVELS] = {
        "the simulated p50 is outside the real runs' envelope",
        "the simulated p90 is outside the real runs' envelope",
        "the simulated p99 is outside the real runs' envelope",
    };
    bool outside = false;
    const char *outside_key = NULL;
    for (unsigned k = 0; k < GAR_VERIFY_RUNS_LEVELS; k++) {
        gar_verify_envelope *e = &j.q[k];
        e->key = levels[k].key;
        e->level_ppm = levels[k].level;
        e->real_min = e->real_max = gar_verify_quantile(real[0], n, e->level_ppm);
        for (size_t r = 1; r < runs; r++) {
            gar_dur_ns v = gar_verify_quantile(real[r], n, e->level_ppm);
            e->real_min = v < e->real_min ? v : e->real_min;
            e->real_max = v > e->real_max ? v : e->real_max;
        }
        e->sim = gar_verify_quantile(sim_pooled, n_sim, e->level_ppm);
        if (!gar_verify_quantile_judged(tol, n, e->level_ppm) ||
            !gar_verify_quantile_judged(tol, n_sim, e->level_ppm)) {
            e->position = GAR_POSITION_NOT_JUDGED;
            continue;
        }
        place(e);
        e->outside = e->beyond > tol->edge_rel;
        if (e->outside && !outside)
            outside_key = outside_why[k];
        outside = outside || e->outside;
    }
    j.ks_bound = blocks ? tol->ks_d_block_max : tol->ks_d_max;
    j.pooled_ks_d = gar_ks_statistic(real_pooled, runs * n, sim_pooled, n_sim, 0);
    j.widest[1] = runs > 1 ? 1 : 0;
    for (size_t a = 0; a < runs; a++)
        for (size_t b = a + 1; b < runs; b++) {
            double d = gar_ks_statistic(real[a], n, real[b], n, 0);
            if (d > j.real_ks_d_max) {
                j.real_ks_d_max = d;
                j.widest[0] = (unsigned)a;
                j.widest[1] = (unsigned)b;
            }
        }
    if (outside) {
        j.verdict = GAR_RUNS_BIASED;
        j.why = outside_key; /* the first quantile outside */
    } else if (j.real_ks_d_max > 2 * j.ks_bound) {
        j.verdict = GAR_RUNS_UNJUDGEABLE;
        j.why = "the real runs disagree beyond twice the KS bound; the simulation is inside them";
    } else if (j.pooled_ks_d > j.ks_bound) {
        j.verdict = GAR_RUNS_BIASED;
        j.why = "pooled KS over the bound while the real runs agree with each other";
    } else {
        j.verdict = GAR_RUNS_AGREE;
        j.why = "inside the envelope, pooled KS within the bound";
    }
    *out = j;
}

unsigned gar_verify_holdout_passes(const gar_verify_tolerance *tol, bool blocks,
                                   const gar_dur_ns *const *real, size_t runs, size_t n,
                                   const gar_dur_ns **others, gar_dur_ns *scratch)
{
    assert(tol != NULL && real != NULL && runs >= 3 && n >= 1 && others != NULL &&
           scratch != NULL);
    unsigned passes = 0;
    for (size_t held = 0; held < runs; held++) {
        size_t k = 0;
        for (size_t r = 0; r < runs; r++)
            if (r != held)
                others[k++] = real[r];
        gar_verify_pool(others, runs - 1, n, scratch);
        gar_verify_runs_judgement j;
        gar_verify_judge_runs(tol, blocks, others, runs - 1, n, scratch, real[held], n, &j);
        bool pass = j.pooled_ks_d <= j.ks_bound;
        for (unsigned q = 0; q < 2; q++) /* p50 and p90 */
            pass = pass && !j.q[q].outside;
        passes += pass;
    }
    return passes;
}
