/* experiments/sweep/sweep_ranges.h — brace groups in a sweep spec's values.
 *
 * A value may hold brace groups, `{a,b,c}` (a list) or
 * `{lo..hi..step}` (numbers lo, lo+step, ... up to hi; `{lo..hi}` steps by
 * 1): the value stands for every combination of its groups, the last group
 * varying fastest, as if each had been written out on the line.  Each group
 * is a swept *parameter*, named by the key it gives a value to (`margin_us`
 * in `margin_us={50..300..50}`, `block_wake_ns*` in a what-if host's
 * `block_wake_ns*{0.5,1,2}`) or, standing alone, by the line's keyword.
 * Every run stores the parameters of its trace, plan, estimator (when its
 * plan consults one) and host (the database's `run_params`; sweep_spec.h). */
#ifndef GAR_SWEEP_RANGES_H
#define GAR_SWEEP_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#define GAR_SWEEP_PARAMS_MAX 8       /* brace groups one value may hold */
#define GAR_SWEEP_PARAM_NAME_BYTES 48
#define GAR_SWEEP_PARAM_VALUE_BYTES 48

/* One swept parameter's value in one axis value. */
typedef struct gar_sweep_param {
    char name[GAR_SWEEP_PARAM_NAME_BYTES];
    char value[GAR_SWEEP_PARAM_VALUE_BYTES]; /* as expanded: "150", "0.5", "adl" */
} gar_sweep_param;

typedef struct gar_sweep_params {
    unsigned count;
    gar_sweep_param param[GAR_SWEEP_PARAMS_MAX];
} gar_sweep_params;

/* One brace group of a value: its parameter's name and how many values. */
typedef struct gar_sweep_group {
    char name[GAR_SWEEP_PARAM_NAME_BYTES];
    uint64_t values;
} gar_sweep_group;

/* The brace groups of `value` (at most GAR_SWEEP_PARAMS_MAX) into `out`,
 * `*count` of them; refusals as gar_sweep_expand's. */
int gar_sweep_groups(const char *value, const char *keyword, const char *place,
                     gar_sweep_group *out, size_t *count, gar_error *err);

/* Expands one value's brace groups: calls `each(value, params, context)`
 * for every combination, in order, until it returns non-zero (which is
 * returned).  `keyword` names a group without a key before it.  Returns 0,
 * or GAR_E_INVALID_ARGUMENT (place, keyword, fault) for unbalanced or nested
 * braces, an empty list item or range, a range bound or step that is not a
 * number, a step of 0 or below, lo > hi, or more than GAR_SWEEP_PARAMS_MAX
 * groups; `place` ("FILE:LINE") is quoted in refusals.  With `count` not
 * NULL, only counts the combinations into it (saturating at
 * GAR_SWEEP_RUNS_MAX + 1) and calls nothing. */
typedef int (*gar_sweep_expand_fn)(const char *value, const gar_sweep_params *params,
                                   void *context);
int gar_sweep_expand(const char *value, const char *keyword, const char *place,
                     gar_sweep_expand_fn each, void *context, uint64_t *count, gar_error *err);

/* How many of the expansions of `value` (as gar_sweep_expand makes them)
 * hold the text `needle` (1 to 15 bytes, no digit, '-' or '.', so a
 * range's numbers never take part in it) into `*holding`, saturating at
 * GAR_SWEEP_RUNS_MAX + 1, without expanding: a pass over the value's bytes
 * and list items, whatever the number of expansions.  Returns 0, or the
 * refusals of gar_sweep_expand. */
int gar_sweep_count_holding(const char *value, const char *keyword, const char *place,
                            const char *needle, uint64_t *holding, gar_error *err);

#endif
