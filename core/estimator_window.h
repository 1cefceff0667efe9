/* core/estimator_window.h — the min-of-window rule on checked arguments.
 * Internal (gar__, not installed): the public entry points of
 * gar/estimator.h check the deadline on every call; the estimator families
 * (estimator_family.c, family_rule.h) have checked it already and call
 * these instead, inline but for the scan: the replay takes a sample and
 * asks a prediction every wait. */
#ifndef GAR_CORE_ESTIMATOR_WINDOW_H
#define GAR_CORE_ESTIMATOR_WINDOW_H

#include <gar/estimator.h>

#include <assert.h>

/* The least of the last `window` (1..GAR_WINDOW_MAX) samples, or of all
 * when fewer are held, scanned from the ring.  The point must not be cold. */
gar_dur_ns gar__estimator_scan_min(const gar_estimator *est, uint32_t window);

/* p: the same value, read from the minimum kept as samples arrive when it
 * is for this window (inline: the families ask it once a wait). */
static inline gar_dur_ns gar__estimator_window_min(const gar_estimator *est, uint32_t window)
{
    assert(est->count > 0 && window >= 1 && window <= GAR_WINDOW_MAX);
    return est->min_window == window ? est->least : gar__estimator_scan_min(est, window);
}

/* Adds `value` as the newest sample, and keeps the minimum of the last
 * `window` samples: the new one, unless it is above the kept minimum, which
 * stays unless it is the sample now leaving the window (then a scan). */
static inline void gar__estimator_push(gar_estimator *est, uint32_t window, gar_dur_ns value)
{
    bool kept = est->min_window == window && est->count > 0;
    gar_dur_ns least = est->least;
    bool leaves_least = kept && est->count >= window &&
                        est->ring[(est->next + GAR_WINDOW_MAX - window) % GAR_WINDOW_MAX] == least;
    est->ring[est->next] = value;
    est->next = (uint8_t)((est->next + 1) % GAR_WINDOW_MAX);
    if (est->count < GAR_WINDOW_MAX)
        est->count++;
    if (kept && value <= least)
        est->least = value;
    else if (!kept || leaves_least)
        est->least = gar__estimator_scan_min(est, window);
    est->min_window = (uint8_t)window;
}

/* Takes a sample of kind EXACT or LATE under `window` (gar/estimator.h);
 * inline, as the families take one a wait. */
static inline void gar__estimator_take(gar_estimator *est, uint32_t window, gar_sample sample)
{
    assert(sample.kind == GAR_SAMPLE_EXACT || sample.kind == GAR_SAMPLE_LATE);
    gar_dur_ns value = sample.ns;
    if (sample.kind == GAR_SAMPLE_LATE) {
        /* Done before the wake: the residual was below the slept time
         * and below p; half the bound, as gar/estimator.h says. */
        if (est->count > 0) {
            gar_dur_ns p = gar__estimator_window_min(est, window);
            if (p < value)
                value = p;
        }
        value /= 2;
    }
    gar__estimator_push(est, window, value);
}

/* gar_deadline_sleep_for's rule (gar/estimator.h), inline: the replay
 * applies it once a wait. */
static inline int gar__deadline_sleep_for(const gar_deadline *deadline, gar_dur_ns p_ns,
                                          gar_dur_ns *sleep_ns)
{
    if (p_ns <= deadline->margin_ns)
        return 0;
    gar_dur_ns s = p_ns - deadline->margin_ns;
    if (s < deadline->min_sleep_ns)
        return 0;
    *sleep_ns = s < deadline->max_sleep_ns ? s : deadline->max_sleep_ns;
    return 1;
}

#endif
