/* tests/sim/many_streams.h — traces that name many streams on several
 * devices, for the stream tests and the stream benchmark.  Stream ids are
 * as the importers write them: device × 65 536 + the stream's number on its
 * device (data/README.md). */
#ifndef GAR_TESTS_SIM_MANY_STREAMS_H
#define GAR_TESTS_SIM_MANY_STREAMS_H

#include <stdint.h>
#include <stdlib.h>

#include "sim/prng.h"
#include "sim/trace/trace.h"

/* The stream id of stream k of `streams`, spread round-robin over `devices`. */
static inline uint32_t many_streams_id(uint32_t k, uint32_t devices)
{
    return (k % devices) * 65536u + k / devices;
}

/* A serial host loop of `waits` waits (each submitted 30 µs before its wait
 * starts, done 50 µs to 2 ms after, the next starting 100 µs after that),
 * wait i on stream i % streams.  Only the stream column depends on
 * `streams`: with one stream it is the same loop on stream 0, so a replay
 * of the two does the same work wait for wait.  Returns 0, or a negative
 * code with the trace empty. */
static inline int many_streams_serial(gar_trace *t, uint64_t waits, uint32_t streams,
                                      uint32_t devices, uint64_t seed)
{
    gar_trace_init(t);
    t->columns = GAR_TRACE_HAS_STREAM;
    gar_prng g = gar_prng_seeded(seed);
    uint64_t start = 30000;
    for (uint64_t i = 0; i < waits; i++) {
        uint64_t residual = 50000 + gar_prng_below(&g, 1950000);
        gar_trace_row row = {
            .point = 1 + i % 4,
            .submit_ns = start - 30000,
            .start_ns = start,
            .done_ns = start + residual,
            .stream = many_streams_id((uint32_t)(i % streams), devices),
        };
        int rc = gar_trace_append(t, &row, NULL);
        if (rc < 0) {
            gar_trace_free(t);
            return rc;
        }
        start += residual + 100000;
    }
    return 0;
}

/* `waits` waits 10 µs apart: the first `streams` on every stream once, in
 * a scrambled order (when there are that many waits), the rest each on a
 * stream drawn at random, all with work of 1 µs to 200 ms submitted up to 5 ms before: streams queue
 * their work (an item often starts when its stream's previous one is done,
 * not when it was submitted), and completions come in no global order.
 * Returns 0, or a negative code with the trace empty. */
static inline int many_streams_queued(gar_trace *t, uint64_t waits, uint32_t streams,
                                      uint32_t devices, uint64_t seed)
{
    gar_trace_init(t);
    t->columns = GAR_TRACE_HAS_STREAM;
    uint64_t *last_submit = calloc(streams, sizeof *last_submit);
    uint64_t *last_done = calloc(streams, sizeof *last_done);
    int rc = last_submit != NULL && last_done != NULL ? 0 : -GAR_E_CAPACITY;
    gar_prng g = gar_prng_seeded(seed);
    for (uint64_t i = 0; rc == 0 && i < waits; i++) {
        /* 7919 is a prime that divides no stream count used here, so the
         * first `streams` waits visit every stream once. */
        uint32_t k = i < streams ? (uint32_t)(i * 7919 % streams)
                                 : (uint32_t)gar_prng_below(&g, streams);
        uint64_t start = 5000000 + 10000 * i;
        uint64_t submit = start - gar_prng_below(&g, 5000000);
        if (submit < last_submit[k])
            submit = last_submit[k];
        uint64_t begins = submit > last_done[k] ? submit : last_done[k];
        uint64_t done = begins + 1000 + gar_prng_below(&g, 200000000);
        last_submit[k] = submit;
        last_done[k] = done;
        gar_trace_row row = { .point = 1 + k % 3, .submit_ns = submit, .start_ns = start,
                              .done_ns = done, .stream = many_streams_id(k, devices) };
        rc = gar_trace_append(t, &row, NULL);
    }
    free(last_submit);
    free(last_done);
    if (rc < 0)
        gar_trace_free(t);
    return rc;
}

#endif
