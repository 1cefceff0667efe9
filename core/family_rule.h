/* core/family_rule.h — the estimator families' rule on checked arguments.
 *
 * Internal (gar__, not installed).  gar/estimator_family.h's entry points
 * check the spec and the deadline on every call, then run the rule below.
 * A driver that runs one spec under a few deadlines for a whole run (the
 * replay, once a wait) checks each pair once with gar__family_check and then
 * calls the rule itself: the checks were a tenth of a simulated wait's
 * instructions.  adl, every run's default, is inline; the other families are
 * out of line (estimator_family.c).  Same rule, same values either way. */
#ifndef GAR_CORE_FAMILY_RULE_H
#define GAR_CORE_FAMILY_RULE_H

#include <gar/estimator_family.h>

#include "estimator_window.h"

/* 0 when `spec` has a family and `deadline` a window of 1..GAR_WINDOW_MAX,
 * max_sleep >= 1 and min <= max; else -GAR_E_INVALID_ARGUMENT naming
 * `function`. */
int gar__family_check(const gar_estimator_spec *spec, const gar_deadline *deadline,
                      const char *function, gar_error *err);

/* The rule of every family but adl, for gar__family_prediction and
 * gar__family_observe below. */
int gar__family_prediction_other(const gar_estimator_spec *spec, const gar_family_point *point,
                                 uint32_t window, gar_dur_ns *p_ns);
void gar__family_take_other(const gar_estimator_spec *spec, gar_family_point *point,
                            uint32_t window, gar_sample sample);

/* The prediction p under a checked spec and `window`: 1 with `*p_ns`, or 0
 * for none (gar_family_prediction without its checks). */
static inline int gar__family_prediction(const gar_estimator_spec *spec,
                                         const gar_family_point *point, uint32_t window,
                                         gar_dur_ns *p_ns)
{
    if (spec->family != GAR_ESTIMATOR_ADL)
        return gar__family_prediction_other(spec, point, window, p_ns);
    if (point->adl.count == 0)
        return 0;
    *p_ns = gar__estimator_window_min(&point->adl, window);
    return 1;
}

/* Takes one sample of kind NONE (nothing learnt), EXACT or LATE under a
 * checked spec and `window` (gar_family_observe without its checks). */
static inline void gar__family_observe(const gar_estimator_spec *spec, gar_family_point *point,
                                       uint32_t window, gar_sample sample)
{
    if (sample.kind == GAR_SAMPLE_NONE)
        return;
    if (spec->family == GAR_ESTIMATOR_ADL)
        gar__estimator_take(&point->adl, window, sample);
    else
        gar__family_take_other(spec, point, window, sample);
}

#endif
