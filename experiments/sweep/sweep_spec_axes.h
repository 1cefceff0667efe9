/* experiments/sweep/sweep_spec_axes.h — a spec's lines onto its axes
 * (sweep_spec_axes.c): each "KEYWORD VALUE..." line's values, ranges
 * expanded, checked for repeats and added to the spec.  The state a parse
 * carries between lines is here, shared with sweep_spec.c, which reads the
 * spec as a whole.  For experiments/sweep/sweep_spec*.c only. */
#ifndef GAR_SWEEP_SPEC_AXES_H
#define GAR_SWEEP_SPEC_AXES_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "sweep/index_set.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_spec_sources.h"

enum { AXIS_TRACE, AXIS_PLAN, AXIS_ESTIMATOR, AXIS_HOST, AXIS_MODE, AXIS_SEED, GAR_SPEC_AXES };

/* Each axis's keyword, by the enum above. */
extern const char *const gar_spec_axis_keyword[GAR_SPEC_AXES];

typedef struct parse_state {
    const char *file;
    const char *base_dir;
    unsigned line;
    gar_sweep_spec *spec;
    gar_error *err;
    unsigned first_line[6]; /* per axis, the line that first gave it; 0: none */
    const gar_sweep_params *params; /* the value being added's swept parameters */
    enum {
        PASS_COUNT,     /* the first pass: count each axis's values, add none */
        PASS_ADD,       /* the second: add every value, its ranges expanded */
        PASS_ADD_PLAIN, /* a size only: add the values without ranges, count the rest */
    } pass;
    uint64_t counts[6];     /* per axis, values counted (saturating) */
    uint64_t predict_plans; /* of counts[AXIS_PLAN], those that sleep to a prediction */
    gar_index_set seen[6];  /* per axis, the values added so far, by key */
    stdin_profile *from_stdin; /* the profile of `host -`, once read */
} parse_state;

/* The index set's hash of a text key. */
uint64_t gar_spec_text_hash(const char *text);

/* a + b and a * b, at most GAR_SWEEP_RUNS_MAX + 1. */
uint64_t gar_spec_capped_sum(uint64_t a, uint64_t b);
uint64_t gar_spec_capped_product(uint64_t a, uint64_t b);

/* One "KEYWORD VALUE..." line, already split into `words` NUL-terminated
 * words, counted or added as `s->pass` says.  Returns 0 or the refusal
 * (-GAR_E_INVALID_ARGUMENT naming FILE:LINE, a loader's, or
 * -GAR_E_CAPACITY). */
int gar_spec_parse_line(parse_state *s, char **word, size_t words);

#endif
