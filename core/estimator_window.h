/* core/estimator_window.h — the min-of-window rule on checked arguments.
 * Internal (gar__, not installed): the public entry points of
 * gar/estimator.h check the deadline on every call; the estimator families
 * (estimator_family.c) have checked it already, twice a wait, and call
 * these instead. */
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

/* Takes a sample of kind EXACT or LATE under `window` (gar/estimator.h). */
void gar__estimator_take(gar_estimator *est, uint32_t window, gar_sample sample);

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
