/* sim/gen_source.h — the generators as sources of rows, one row at a time
 * (internal to sim/gen*.c).
 *
 * A source yields the rows of one kind in file order (start_ns never
 * decreasing; per stream, submit and done never decreasing), so a caller
 * can write them as they come, and a mix can merge several sources by
 * start time.  Three shapes:
 *   loop   the single-loop kinds of gen.h (steady ... shift): enqueue one
 *          step, wait for it, gap, the next;
 *   queue  a host thread that launches a step's kernels back to back onto
 *          one stream and waits for each (gen_queue.c);
 *   mix    several loops and queues on their own streams and host
 *          threads, interleaved by when each wait starts (gen_mix.c).
 * A source owns what its init allocated; gar_gen_source_free releases it
 * (safe on a source whose init failed, and twice). */
#ifndef GAR_SIM_GEN_SOURCE_H
#define GAR_SIM_GEN_SOURCE_H

#include <stdint.h>

#include <gar/error.h>

#include "sim/gen.h"
#include "sim/prng.h"
#include "sim/trace/trace.h"

#define GAR_GEN_MIX_SOURCES 16 /* streams a mix interleaves at most */
#define GAR_GEN_US_MAX 1e9     /* a step longer than 1000 s is a typo, not a trace */

/* Parameter indices: every table starts with launch_us and gap_us. */
enum { GAR_GEN_P_LAUNCH, GAR_GEN_P_GAP, GAR_GEN_P_KIND0 };
enum {
    GAR_GEN_QUEUE_KERNELS = GAR_GEN_P_KIND0, /* kernels a step's program launches */
    GAR_GEN_QUEUE_NAMES,                     /* distinct kernel names in it */
    GAR_GEN_QUEUE_SHORT_US,                  /* typical length of a short kernel */
    GAR_GEN_QUEUE_LONG_US,                   /* ... of a long one */
    GAR_GEN_QUEUE_SHORT_P,                   /* chance a name is short */
    GAR_GEN_QUEUE_SD,                        /* log-normal spread of one run's length */
    GAR_GEN_QUEUE_TAIL_P,                    /* chance a run is a heavy-tailed straggler */
    GAR_GEN_QUEUE_BURST_P,                   /* chance a step is a burst */
    GAR_GEN_QUEUE_BURST_STEPS,               /* programs a burst launches before waiting */
    GAR_GEN_QUEUE_STALL_P,                   /* chance the host stalls before a launch */
    GAR_GEN_QUEUE_STALL_US,                  /* mean length of a stall (exponential) */
};
enum {
    GAR_GEN_MIX_QUEUES = GAR_GEN_P_KIND0, /* queue streams */
    GAR_GEN_MIX_LOOPS,                    /* single-loop streams (decode, bimodal, jitter...) */
    GAR_GEN_MIX_SCALE_SD,                 /* log-normal spread of each stream's time scale */
};

/* The state of a loop kind (gen.c). */
typedef struct gar_gen_loop {
    gar_gen_spec spec;
    gar_prng prng;
    uint64_t index;     /* steps made so far */
    uint32_t step_rows; /* decode: the batch's rows */
    uint64_t submit;    /* when the next step is enqueued */
} gar_gen_loop;

/* The state of a queue (gen_queue.c). */
typedef struct gar_gen_queue {
    gar_gen_spec spec;
    gar_prng prng;
    uint32_t names;         /* kernel names of the program */
    uint64_t *base_ns;      /* each name's typical duration */
    uint32_t *program;      /* a step's kernels, by name; `kernels` of them */
    uint32_t kernels;
    gar_trace_row *pending; /* the current step's rows, not yet yielded */
    uint32_t pending_count, pending_next, pending_room;
    uint64_t host;          /* when the host launches next */
} gar_gen_queue;

typedef struct gar_gen_source gar_gen_source;

/* The state of a mix (gen_mix.c): its parts, each with its next row. */
typedef struct gar_gen_mix {
    gar_gen_source *part; /* `parts` of them, owned */
    gar_trace_row *head;  /* each part's next row */
    unsigned parts;
} gar_gen_mix;

struct gar_gen_source {
    gar_gen_kind kind;
    uint32_t stream;  /* stamped on every row (0: none) */
    uint64_t point_base; /* added to every row's point */
    union {
        gar_gen_loop loop;
        gar_gen_queue queue;
        gar_gen_mix mix;
    } u;
};

/* Sets `src` up to generate `spec` (checked by the caller) from `seed`.
 * Returns 0, or -GAR_E_CAPACITY when its tables cannot be allocated. */
int gar_gen_source_init(gar_gen_source *src, const gar_gen_spec *spec, uint64_t seed,
                        gar_error *err);

/* The next row into *row.  Returns 0, or -GAR_E_INVALID_ARGUMENT when its
 * times would pass GAR_TRACE_TIME_MAX (the trace is too long), or
 * -GAR_E_CAPACITY. */
int gar_gen_source_next(gar_gen_source *src, gar_trace_row *row, gar_error *err);

void gar_gen_source_free(gar_gen_source *src);

/* The trace columns every row of `spec`'s kind carries (GAR_TRACE_HAS_*). */
unsigned gar_gen_source_columns(const gar_gen_spec *spec);

/* Per kind, in gen.c, gen_queue.c and gen_mix.c. */
void gar_gen_loop_init(gar_gen_loop *loop, const gar_gen_spec *spec, uint64_t seed);
int gar_gen_loop_next(gar_gen_loop *loop, gar_trace_row *row, gar_error *err);
int gar_gen_queue_init(gar_gen_queue *q, const gar_gen_spec *spec, uint64_t seed,
                       gar_error *err);
int gar_gen_queue_next(gar_gen_queue *q, gar_trace_row *row, gar_error *err);
void gar_gen_queue_free(gar_gen_queue *q);
int gar_gen_mix_init(gar_gen_mix *mix, const gar_gen_spec *spec, uint64_t seed,
                     gar_error *err);
int gar_gen_mix_next(gar_gen_mix *mix, gar_trace_row *row, gar_error *err);
void gar_gen_mix_free(gar_gen_mix *mix);

/* Refuses a spec or count no run would generate (gen.c): 0 or
 * -GAR_E_INVALID_ARGUMENT naming the parameter. */
int gar_gen_check_spec(const gar_gen_spec *spec, uint64_t waits, gar_error *err);

/* Shared by the kinds: microseconds to whole nanoseconds (negative: 0), and
 * the refusal of a trace that outgrows GAR_TRACE_TIME_MAX. */
uint64_t gar_gen_us_to_ns(double us);
int gar_gen_refuse_time(gar_error *err);

#endif
