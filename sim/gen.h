/* sim/gen.h — synthetic traces from a seed.
 *
 * Every kind models one host loop on one stream: enqueue the step's work
 * (submit), spend `launch_us` on the host, wait (start), and the work is done
 * `residual` after the wait began (done = start + residual; a residual drawn
 * below 0 is 0).  The host wakes, spends `gap_us`, and enqueues the next step.
 * The kinds differ in the residual:
 *   steady   constant `residual_us`                                point 1
 *   jitter   normal, mean `mean_us`, sd `sd_us`                    point 1
 *   bimodal  prefill steps (`prefill_us`, chance `prefill_p`)      point 1
 *            among decode steps (`decode_us`), each ± normal `sd_us` point 2
 *   drift    `base_us` growing by `step_us` a wait for `period`
 *            waits, then back to `base_us` (a sawtooth), ± `sd_us` point 1
 *   decode   continuous-batching decode: the batch's row count
 *            starts at `rows_min`, gains a row with chance `grow_p`
 *            each step and, once at `rows_max`, drains back to
 *            `rows_min`; residual `base_us + per_row_us × rows`
 *            ± `sd_us`; the trace carries the rows column           point 1
 *   shift    jitter's normal (`mean_us`, `sd_us`), multiplied by
 *            `factor` for `shift_waits` waits from wait `shift_at`
 *            (a regime change, and back)                           point 1
 * Two kinds model more than one loop on one stream (sim/gen_queue.c and
 * sim/gen_mix.c say how):
 *   queue    a host launching a step's program of kernels back to back
 *            onto one stream, a wait per kernel (kernel mode); kernel
 *            lengths from a mix of short and long names, log-normal, with
 *            heavy-tailed stragglers and bursts of several steps  point per name
 *   mix      several queues and loops on their own streams and host
 *            threads, interleaved by start time             points per stream
 * Parameters are decimal numbers (integers where the table says so), times in
 * microseconds, converted to whole nanoseconds.  The same spec, wait count and
 * seed give the same trace, row for row. */
#ifndef GAR_SIM_GEN_H
#define GAR_SIM_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>

#include "sim/trace/trace.h"

typedef enum gar_gen_kind {
    GAR_GEN_STEADY,
    GAR_GEN_JITTER,
    GAR_GEN_BIMODAL,
    GAR_GEN_DRIFT,
    GAR_GEN_DECODE,
    GAR_GEN_SHIFT,
    GAR_GEN_QUEUE,
    GAR_GEN_MIX,
    GAR_GEN_KIND_COUNT
} gar_gen_kind;

#define GAR_GEN_PARAMS_MAX 16
#define GAR_GEN_WAITS_MAX UINT64_C(100000000) /* 4 GB of rows */

typedef struct gar_gen_param {
    const char *name;
    double fallback; /* the default */
    double min, max; /* inclusive bounds */
    bool integer;    /* must be a whole number */
    const char *help;
} gar_gen_param;

/* A kind and a value for each of its parameters. */
typedef struct gar_gen_spec {
    gar_gen_kind kind;
    double value[GAR_GEN_PARAMS_MAX];
} gar_gen_spec;

/* The kind's name ("steady"), or NULL for a number out of range. */
const char *gar_gen_kind_name(gar_gen_kind kind);

/* The accepted kind names, comma-separated, for help and errors. */
const char *gar_gen_kind_names(void);

/* Parses a kind name.  Returns 0, or -GAR_E_INVALID_ARGUMENT naming the text
 * and the accepted names. */
int gar_gen_kind_parse(const char *text, gar_gen_kind *out, gar_error *err);

/* The parameter table of `kind` (static, never freed) and its length in *count. */
const gar_gen_param *gar_gen_params(gar_gen_kind kind, size_t *count);

/* A spec of `kind` with every parameter at its default. */
gar_gen_spec gar_gen_spec_default(gar_gen_kind kind);

/* Sets one parameter from "key=value".  Returns 0, or -GAR_E_INVALID_ARGUMENT
 * (unknown key, not a number, not whole, out of bounds). */
int gar_gen_spec_set(gar_gen_spec *spec, const char *assignment, gar_error *err);

/* gar_gen_spec_set, refusing a key set before: `given` (start it at 0)
 * keeps a bit per parameter set through it.  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT as gar_gen_spec_set, or naming the repeated
 * assignment (a second value would silently replace the first). */
int gar_gen_spec_set_once(gar_gen_spec *spec, unsigned *given, const char *assignment,
                          gar_error *err);

/* Writes "key=value key=value ..." for every parameter, like snprintf:
 * at most `size` bytes, NUL included; returns the length needed. */
size_t gar_gen_spec_label(const gar_gen_spec *spec, char *buf, size_t size);

/* Generates `waits` rows (1 .. GAR_GEN_WAITS_MAX) from `seed` into `out` (need
 * not be initialised; filled on success, empty on failure).  Returns 0,
 * -GAR_E_INVALID_ARGUMENT (bad spec or count, or times that would pass
 * GAR_TRACE_TIME_MAX) or -GAR_E_CAPACITY. */
int gar_gen_run(const gar_gen_spec *spec, uint64_t waits, uint64_t seed, gar_trace *out,
                gar_error *err);

/* The columns (GAR_TRACE_HAS_* bits) a trace of `spec` carries. */
unsigned gar_gen_columns(const gar_gen_spec *spec);

/* Refuses, before anything is written, what gar_gen_each would refuse:
 * a bad spec or count, or a trace that would pass GAR_TRACE_TIME_MAX (one
 * that could, given its parameters, is drawn once without output to find
 * out; most cannot, and cost nothing).  Returns 0 or
 * -GAR_E_INVALID_ARGUMENT as gar_gen_run. */
int gar_gen_check(const gar_gen_spec *spec, uint64_t waits, uint64_t seed, gar_error *err);

/* The rows gar_gen_run would make, handed one at a time to `each` as they
 * are drawn (`gar gen` writes them so, in memory that does not grow with
 * `waits`); `each` returns 0 or a negated code that stops the run.  A bad
 * spec or count is refused before the first row; a trace passing the time
 * limit only where it does (gar_gen_check first finds out).  Returns 0,
 * -GAR_E_INVALID_ARGUMENT as gar_gen_run, or each's failure. */
int gar_gen_each(const gar_gen_spec *spec, uint64_t waits, uint64_t seed,
                 int (*each)(void *context, const gar_trace_row *row), void *context,
                 gar_error *err);

#endif
