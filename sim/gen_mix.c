/* sim/gen_mix.c — the `mix` kind: several workloads, each on its own stream
 * and host thread, interleaved by when their waits start.
 *
 * What a serving host or a training job with side work looks like: a
 * decode loop, a prefill or training queue, and smaller periodic work share
 * the machine, so one trace holds unlike waits side by side.  `queues`
 * streams run the queue kind, `loops` streams run the single-loop kinds in
 * turn (decode, bimodal, jitter, drift, shift), each part at its defaults
 * with every time scaled by its own log-normal factor (shape scale_sd), so
 * no two parts run at the same pace.  A part's points are its own (the
 * part's number in the high 32 bits), and its rows carry its stream
 * (1, 2, ...).  Rows come in start order across parts; ties go to the lower
 * stream. */
#include "sim/gen_source.h"

#include <math.h>
#include <string.h>

#include "sim/trace/alloc.h"

static const gar_gen_kind loop_kinds[] = { GAR_GEN_DECODE, GAR_GEN_BIMODAL, GAR_GEN_JITTER,
                                           GAR_GEN_DRIFT, GAR_GEN_SHIFT };

/* `kind`'s defaults with every time (a parameter in µs) times `scale`. */
static gar_gen_spec scaled_spec(gar_gen_kind kind, double scale)
{
    gar_gen_spec spec = gar_gen_spec_default(kind);
    size_t n;
    const gar_gen_param *p = gar_gen_params(kind, &n);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(p[i].name);
        if (len > 3 && strcmp(p[i].name + len - 3, "_us") == 0)
            spec.value[i] *= scale;
    }
    return spec;
}

/* A part is a loop or a queue, never a mix: stepped here, so this file
 * needs the two kinds and not the dispatch of every kind. */
static int part_init(gar_gen_source *part, const gar_gen_spec *spec, uint64_t seed,
                     gar_error *err)
{
    part->kind = spec->kind;
    if (spec->kind == GAR_GEN_QUEUE)
        return gar_gen_queue_init(&part->u.queue, spec, seed, err);
    gar_gen_loop_init(&part->u.loop, spec, seed);
    return 0;
}

static int part_next(gar_gen_source *part, gar_trace_row *row, gar_error *err)
{
    int rc = part->kind == GAR_GEN_QUEUE ? gar_gen_queue_next(&part->u.queue, row, err)
                                         : gar_gen_loop_next(&part->u.loop, row, err);
    row->stream = part->stream;
    row->point += part->point_base;
    return rc;
}

static void part_free(gar_gen_source *part)
{
    if (part->kind == GAR_GEN_QUEUE)
        gar_gen_queue_free(&part->u.queue);
}

int gar_gen_mix_init(gar_gen_mix *mix, const gar_gen_spec *spec, uint64_t seed,
                     gar_error *err)
{
    const double *v = spec->value;
    unsigned queues = (unsigned)v[GAR_GEN_MIX_QUEUES], loops = (unsigned)v[GAR_GEN_MIX_LOOPS];
    *mix = (gar_gen_mix){ .parts = 0 };
    mix->part = gar_calloc(queues + loops, sizeof mix->part[0]);
    mix->head = gar_calloc(queues + loops, sizeof mix->head[0]);
    if (mix->part == NULL || mix->head == NULL) {
        gar_gen_mix_free(mix);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "gen mix", "out of memory for its parts");
    }
    gar_prng scales = gar_prng_seeded_stream(seed, 1);
    for (unsigned i = 0; i < queues + loops; i++) {
        double scale = exp(v[GAR_GEN_MIX_SCALE_SD] * gar_prng_normal(&scales));
        gar_gen_kind kind = i < queues ? GAR_GEN_QUEUE
                                       : loop_kinds[(i - queues) % (sizeof loop_kinds /
                                                                    sizeof loop_kinds[0])];
        gar_gen_spec part = scaled_spec(kind, scale);
        if (kind != GAR_GEN_QUEUE) {
            part.value[GAR_GEN_P_LAUNCH] = v[GAR_GEN_P_LAUNCH];
            part.value[GAR_GEN_P_GAP] = v[GAR_GEN_P_GAP] * scale;
        }
        /* Each part draws from its own stream of the seed. */
        gar_prng pick = gar_prng_seeded_stream(seed, 2 + i);
        int rc = part_init(&mix->part[i], &part, gar_prng_next(&pick), err);
        if (rc < 0) {
            gar_gen_mix_free(mix);
            return rc;
        }
        mix->parts = i + 1;
        mix->part[i].stream = i + 1;
        mix->part[i].point_base = (uint64_t)(i + 1) << 32;
        rc = part_next(&mix->part[i], &mix->head[i], err);
        if (rc < 0) {
            gar_gen_mix_free(mix);
            return rc;
        }
    }
    return 0;
}

int gar_gen_mix_next(gar_gen_mix *mix, gar_trace_row *row, gar_error *err)
{
    unsigned first = 0;
    for (unsigned i = 1; i < mix->parts; i++)
        if (mix->head[i].start_ns < mix->head[first].start_ns)
            first = i;
    *row = mix->head[first];
    row->step_rows = 0; /* a decode part's rows mean nothing beside the others' */
    return part_next(&mix->part[first], &mix->head[first], err);
}

void gar_gen_mix_free(gar_gen_mix *mix)
{
    for (unsigned i = 0; mix->part != NULL && i < mix->parts; i++)
        part_free(&mix->part[i]);
    gar_free(mix->part);
    gar_free(mix->head);
    *mix = (gar_gen_mix){ .parts = 0 };
}
