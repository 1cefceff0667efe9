/* sim/gen_queue.c — the `queue` kind: one host thread feeding one stream.
 *
 * What a training or prefill loop looks like in kernel mode: the host runs a
 * fixed program of kernels each step, launching them back to back (a
 * launch costs launch_us of host time), so the stream's queue fills while
 * the host runs ahead; every kernel is a wait, from its launch's return to
 * its end.  The host then waits for the step's last kernel, spends gap_us,
 * and starts the next step.  A burst launches burst_steps programs before
 * that wait (gradient accumulation, a prefill of several chunks), so the
 * queue grows deeper than one step.
 *
 * The program is drawn once from the seed: `kernels` launches over `names`
 * kernel names, each name short (about short_us) or long (about long_us)
 * with a log-normal spread.  Each run of a kernel spreads around its
 * name's length by a log-normal of shape `sd`, and with chance tail_p is a
 * straggler, longer by a Pareto factor (shape 1.5, from 2x): a heavy tail.
 * Before each launch the host stalls with chance stall_p, for an
 * exponential time of mean stall_us (the interpreter, a data loader, a
 * busy core): the queue drains meanwhile, and the kernels launched after
 * the stall wait for nothing but themselves, far sooner than usual.
 * A point is a kernel name, as the importer's kernel mode keys it, so one
 * point sees its kernel at several depths of the queue: its residuals mix
 * the queue ahead of it with its own length. */
#include "sim/gen_source.h"

#include <math.h>
#include <stdlib.h>

#include "sim/trace/alloc.h"

#define STRAGGLER_MIN 2.0   /* a straggler runs at least twice its length */
#define STRAGGLER_SHAPE 1.5 /* Pareto shape: a finite mean, an unbounded tail */
#define STRAGGLER_MAX 1000.0
#define NAME_SPREAD_SHORT 0.5 /* log-normal spread of the names' lengths */
#define NAME_SPREAD_LONG 0.7
#define DURATION_MAX_US 1e7 /* one kernel run is at most 10 s */

static double lognormal(gar_prng *g, double sd)
{
    return sd > 0.0 ? exp(sd * gar_prng_normal(g)) : 1.0;
}

int gar_gen_queue_init(gar_gen_queue *q, const gar_gen_spec *spec, uint64_t seed,
                       gar_error *err)
{
    const double *v = spec->value;
    *q = (gar_gen_queue){ .spec = *spec, .prng = gar_prng_seeded(seed) };
    q->names = (uint32_t)v[GAR_GEN_QUEUE_NAMES];
    q->kernels = (uint32_t)v[GAR_GEN_QUEUE_KERNELS];
    q->pending_room = q->kernels * (uint32_t)v[GAR_GEN_QUEUE_BURST_STEPS];
    q->base_ns = gar_malloc(q->names * sizeof q->base_ns[0]);
    q->program = gar_malloc(q->kernels * sizeof q->program[0]);
    q->pending = gar_malloc(q->pending_room * sizeof q->pending[0]);
    if (q->base_ns == NULL || q->program == NULL || q->pending == NULL) {
        gar_gen_queue_free(q);
        return gar_error_set(err, GAR_E_CAPACITY, 2, "gen queue",
                             "out of memory for the step's program");
    }
    /* The program comes from its own stream of the seed, so the runs' draws
     * never shift it. */
    gar_prng shape = gar_prng_seeded_stream(seed, 1);
    for (uint32_t n = 0; n < q->names; n++) {
        bool is_short = gar_prng_uniform(&shape) < v[GAR_GEN_QUEUE_SHORT_P];
        double us = is_short ? v[GAR_GEN_QUEUE_SHORT_US] * lognormal(&shape, NAME_SPREAD_SHORT)
                             : v[GAR_GEN_QUEUE_LONG_US] * lognormal(&shape, NAME_SPREAD_LONG);
        q->base_ns[n] = gar_gen_us_to_ns(us < DURATION_MAX_US ? us : DURATION_MAX_US);
    }
    for (uint32_t k = 0; k < q->kernels; k++)
        q->program[k] = (uint32_t)gar_prng_below(&shape, q->names);
    return 0;
}

void gar_gen_queue_free(gar_gen_queue *q)
{
    gar_free(q->base_ns);
    gar_free(q->program);
    gar_free(q->pending);
    q->base_ns = NULL;
    q->program = NULL;
    q->pending = NULL;
    q->pending_count = q->pending_next = 0;
}

/* One run of kernel `name`, in ns. */
static uint64_t run_length(gar_gen_queue *q, uint32_t name)
{
    const double *v = q->spec.value;
    double ns = (double)q->base_ns[name] * lognormal(&q->prng, v[GAR_GEN_QUEUE_SD]);
    if (gar_prng_uniform(&q->prng) < v[GAR_GEN_QUEUE_TAIL_P]) {
        double u = 1.0 - gar_prng_uniform(&q->prng); /* (0, 1] */
        double factor = STRAGGLER_MIN * pow(u, -1.0 / STRAGGLER_SHAPE);
        ns *= factor < STRAGGLER_MAX ? factor : STRAGGLER_MAX;
    }
    double cap = DURATION_MAX_US * 1000.0;
    return (uint64_t)(ns < cap ? ns + 0.5 : cap);
}

/* Lays out the next step's launches and kernels into `pending`. */
static int make_step(gar_gen_queue *q, gar_error *err)
{
    const double *v = q->spec.value;
    uint64_t launch = gar_gen_us_to_ns(v[GAR_GEN_P_LAUNCH]);
    uint64_t gap = gar_gen_us_to_ns(v[GAR_GEN_P_GAP]);
    bool burst = gar_prng_uniform(&q->prng) < v[GAR_GEN_QUEUE_BURST_P];
    uint32_t programs = burst ? (uint32_t)v[GAR_GEN_QUEUE_BURST_STEPS] : 1;
    uint64_t host = q->host, free_at = q->host;
    /* Every addend is at most about 10^13 ns and a step at most 2^24 of
     * them, so checking the running time against the limit once keeps the
     * step's sums far from wrapping (a stall's draw is at most 37 means). */
    if (host > GAR_TRACE_TIME_MAX / 2)
        return gar_gen_refuse_time(err);
    q->pending_count = 0;
    q->pending_next = 0;
    for (uint32_t p = 0; p < programs; p++) {
        for (uint32_t k = 0; k < q->kernels; k++) {
            uint32_t name = q->program[k];
            if (gar_prng_uniform(&q->prng) < v[GAR_GEN_QUEUE_STALL_P]) {
                double u = 1.0 - gar_prng_uniform(&q->prng); /* (0, 1] */
                host += gar_gen_us_to_ns(-log(u) * v[GAR_GEN_QUEUE_STALL_US]);
            }
            uint64_t returned = host + launch;
            uint64_t begin = returned > free_at ? returned : free_at;
            free_at = begin + run_length(q, name);
            q->pending[q->pending_count++] = (gar_trace_row){
                .point = name + 1,
                .submit_ns = host,
                .start_ns = returned,
                .done_ns = free_at,
            };
            host = returned;
        }
    }
    q->host = free_at + gap; /* the host waited for the last kernel */
    if (q->host > GAR_TRACE_TIME_MAX / 2)
        return gar_gen_refuse_time(err);
    return 0;
}

int gar_gen_queue_next(gar_gen_queue *q, gar_trace_row *row, gar_error *err)
{
    if (q->pending_next == q->pending_count) {
        int rc = make_step(q, err);
        if (rc < 0)
            return rc;
    }
    *row = q->pending[q->pending_next++];
    return 0;
}
