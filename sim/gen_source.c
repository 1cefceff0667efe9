/* sim/gen_source.c — every kind as a source of rows, and the runs that
 * draw them (gen.h, gen_source.h): the one place that knows all the kinds,
 * so the kinds' files depend on gen.c and not on each other. */
#define _POSIX_C_SOURCE 200809L

#include "sim/gen_source.h"

#include <string.h>

int gar_gen_source_init(gar_gen_source *src, const gar_gen_spec *spec, uint64_t seed,
                        gar_error *err)
{
    memset(src, 0, sizeof *src);
    src->kind = spec->kind;
    if (spec->kind == GAR_GEN_QUEUE)
        return gar_gen_queue_init(&src->u.queue, spec, seed, err);
    if (spec->kind == GAR_GEN_MIX)
        return gar_gen_mix_init(&src->u.mix, spec, seed, err);
    gar_gen_loop_init(&src->u.loop, spec, seed);
    return 0;
}

int gar_gen_source_next(gar_gen_source *src, gar_trace_row *row, gar_error *err)
{
    int rc = src->kind == GAR_GEN_QUEUE ? gar_gen_queue_next(&src->u.queue, row, err)
             : src->kind == GAR_GEN_MIX ? gar_gen_mix_next(&src->u.mix, row, err)
                                        : gar_gen_loop_next(&src->u.loop, row, err);
    if (rc == 0 && src->stream != 0) {
        row->stream = src->stream;
        row->point += src->point_base;
    }
    return rc;
}

void gar_gen_source_free(gar_gen_source *src)
{
    if (src->kind == GAR_GEN_QUEUE)
        gar_gen_queue_free(&src->u.queue);
    else if (src->kind == GAR_GEN_MIX)
        gar_gen_mix_free(&src->u.mix);
}

unsigned gar_gen_source_columns(const gar_gen_spec *spec)
{
    switch (spec->kind) {
    case GAR_GEN_DECODE:
        return GAR_TRACE_HAS_STEP_ROWS;
    case GAR_GEN_QUEUE:
        return 0;
    case GAR_GEN_MIX:
        return GAR_TRACE_HAS_STREAM;
    default:
        return 0;
    }
}

/* Generates the rows, handing each to `each` (NULL: a dry run that only
 * checks the times).  Returns 0, the time refusal, -GAR_E_CAPACITY, or
 * each's first failure. */
static int generate(const gar_gen_spec *spec, uint64_t waits, uint64_t seed,
                    int (*each)(void *, const gar_trace_row *), void *context, gar_error *err)
{
    gar_gen_source src;
    int rc = gar_gen_source_init(&src, spec, seed, err);
    for (uint64_t i = 0; rc == 0 && i < waits; i++) {
        gar_trace_row row;
        rc = gar_gen_source_next(&src, &row, err);
        if (rc == 0 && each != NULL)
            rc = each(context, &row);
    }
    gar_gen_source_free(&src);
    return rc;
}

/* Whether `waits` rows of `spec` stay under GAR_TRACE_TIME_MAX whatever
 * the draws: a loop's step takes at most launch + US_MAX + gap; a queue's
 * or a mix's wait is bounded far more loosely (a launch, a stall of 37
 * means, a kernel of 10 s and a gap, each at most 10^12 ns), so long ones
 * take the dry run. */
static bool surely_in_time(const gar_gen_spec *spec, uint64_t waits)
{
    if (spec->kind == GAR_GEN_QUEUE || spec->kind == GAR_GEN_MIX)
        return waits <= GAR_TRACE_TIME_MAX / UINT64_C(50000000000000);
    uint64_t step = gar_gen_us_to_ns(spec->value[GAR_GEN_P_LAUNCH]) + gar_gen_us_to_ns(GAR_GEN_US_MAX) +
                    gar_gen_us_to_ns(spec->value[GAR_GEN_P_GAP]);
    return waits <= GAR_TRACE_TIME_MAX / step;
}

unsigned gar_gen_columns(const gar_gen_spec *spec)
{
    return gar_gen_source_columns(spec);
}

int gar_gen_check(const gar_gen_spec *spec, uint64_t waits, uint64_t seed, gar_error *err)
{
    if (spec == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_gen_check", "spec", "is NULL");
    int rc = gar_gen_check_spec(spec, waits, err);
    if (rc == 0 && !surely_in_time(spec, waits))
        rc = generate(spec, waits, seed, NULL, NULL, err);
    return rc;
}

int gar_gen_each(const gar_gen_spec *spec, uint64_t waits, uint64_t seed,
                 int (*each)(void *context, const gar_trace_row *row), void *context,
                 gar_error *err)
{
    if (spec == NULL || each == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_gen_each",
                             spec == NULL ? "spec" : "each", "is NULL");
    int rc = gar_gen_check_spec(spec, waits, err);
    return rc < 0 ? rc : generate(spec, waits, seed, each, context, err);
}

static int append_row(void *context, const gar_trace_row *row)
{
    gar_trace *trace = context;
    trace->row[trace->count++] = *row; /* room reserved for every wait */
    return 0;
}

int gar_gen_run(const gar_gen_spec *spec, uint64_t waits, uint64_t seed, gar_trace *out,
                gar_error *err)
{
    if (spec == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_gen_run",
                             spec == NULL ? "spec" : "out", "is NULL");
    gar_trace_init(out);
    int rc = gar_gen_check_spec(spec, waits, err);
    if (rc < 0)
        return rc;
    gar_trace trace;
    gar_trace_init(&trace);
    rc = gar_trace_reserve(&trace, (size_t)waits, err);
    if (rc < 0)
        return rc;
    trace.columns = gar_gen_columns(spec);
    rc = generate(spec, waits, seed, append_row, &trace, err);
    if (rc < 0) {
        gar_trace_free(&trace);
        return rc;
    }
    *out = trace;
    return 0;
}
