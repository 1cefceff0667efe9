/* gar/estimator.h — the deadline estimator of one readback point, and the
 * table that finds a point's estimator by its key.
 *
 * A readback point is a host call site that waits for GPU work (gar keys it
 * by a u64 of the caller's choosing).  Its estimator keeps the point's most
 * recent GAR_WINDOW_MAX samples in a ring; the prediction p is the minimum
 * of the last `window` of them, and the sleep before a wait's park is
 *
 *   cold point (no samples)  -> none
 *   p <= margin              -> none
 *   s = p - margin
 *   s < min_sleep            -> none
 *   otherwise                -> min(s, max_sleep)
 *
 * What a wait teaches it (gar/sample.h):
 *   Exact(residual)  pushes the residual: the completion was seen by a query
 *                    or park already running, so a sleep's overshoot never
 *                    feeds back;
 *   Late(woke)       pushes min(woke, p) / 2, and woke / 2 at a cold point
 *                    (gar's choice: halve what little is known, as a warm
 *                    point would).  A late wake only bounds the work from
 *                    above, so it only ever lowers p, geometrically.
 * Early costs CPU, late costs latency: the rule leans towards waking early.
 *
 * The deadline parameters (gar/plan.h) are passed to each call rather than
 * kept: a point's history belongs to the call site, while the plan that
 * reads it may differ from wait to wait (bands choose a plan by step size).
 * Every call checks them: window 1..GAR_WINDOW_MAX, max_sleep_ns >= 1 and
 * min_sleep_ns <= max_sleep_ns, else -GAR_E_INVALID_ARGUMENT.
 *
 * Ownership: estimators and tables are caller-owned plain storage; gar never
 * allocates.  The point table works in storage the caller hands it at set-up
 * and keeps a pointer to it.  Nothing here is thread-safe: one thread owns a
 * table and its points. */
#ifndef GAR_ESTIMATOR_H
#define GAR_ESTIMATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/plan.h>
#include <gar/sample.h>
#include <gar/time.h>

/* One point's estimator.  The fields are private: use the functions below.
 * All zero bytes is a valid cold estimator, as is gar_estimator_init's. */
typedef struct gar_estimator {
    gar_dur_ns ring[GAR_WINDOW_MAX]; /* the samples, oldest overwritten first */
    uint8_t next;                    /* the ring slot the next sample takes */
    uint8_t count;                   /* samples held, 0..GAR_WINDOW_MAX */
    uint8_t min_window;              /* the window `least` is for; 0: none */
    gar_dur_ns least;                /* the least of the last min_window samples */
} gar_estimator;

/* Makes `est` a cold point: no samples. */
GAR_API void gar_estimator_init(gar_estimator *est);

/* The samples the point holds, 0 (cold) .. GAR_WINDOW_MAX. */
GAR_API size_t gar_estimator_count(const gar_estimator *est);

/* The prediction p: the minimum of the last deadline->window samples (of all
 * of them while fewer are held).  Returns 1 with p in `*p_ns`, 0 at a cold
 * point (`*p_ns` untouched), or -GAR_E_INVALID_ARGUMENT for a bad deadline. */
GAR_API int gar_estimator_prediction(const gar_estimator *est, const gar_deadline *deadline,
                                     gar_dur_ns *p_ns, gar_error *err);

/* Learns from one wait's sample: Exact and Late push as described above; a
 * NONE sample (a blocking wait) teaches nothing and is accepted, so a caller
 * may feed every report's sample back.  Returns 0, or -GAR_E_INVALID_ARGUMENT
 * (nothing pushed) for a bad deadline or a sample kind none of the three. */
GAR_API int gar_estimator_observe(gar_estimator *est, const gar_deadline *deadline, gar_sample sample,
                                  gar_error *err);

/* The sleep the next wait at this point should take before it parks.
 * Returns 1 with the sleep in `*sleep_ns` (min_sleep_ns .. max_sleep_ns,
 * and never more than max_sleep_ns), 0 for no sleep (`*sleep_ns`
 * untouched), or -GAR_E_INVALID_ARGUMENT for a bad deadline. */
GAR_API int gar_estimator_sleep(const gar_estimator *est, const gar_deadline *deadline,
                                gar_dur_ns *sleep_ns, gar_error *err);

/* The deadline rule above applied to a prediction `p_ns`, whichever
 * estimator made it: 1 with `*sleep_ns`, or 0 for none (`*sleep_ns`
 * untouched).  The deadline must be valid (unchecked: gar_estimator_sleep,
 * every estimator family and the simulator's oracle share it, each having
 * checked the deadline once). */
GAR_API int gar_deadline_sleep_for(const gar_deadline *deadline, gar_dur_ns p_ns, gar_dur_ns *sleep_ns);

/* ---- the point table --------------------------------------------------- */

/* One slot of a point table's storage.  Private: reach points through the
 * table functions. */
typedef struct gar_point_slot {
    uint64_t key;
    bool used;
    gar_estimator estimator;
} gar_point_slot;

/* Readback points by key, in a fixed array of caller-provided slots (open
 * addressing, linear probing, no removal).  A key's first slot is
 * gar_point_key_hash(key) % capacity; a taken slot sends it to the next one,
 * wrapping.  Every u64 is a valid key, 0 and UINT64_MAX included.  A table
 * holds as many points as it has slots; lookups stay short while it is at
 * most about three-quarters full, so give it headroom, and a fuller table
 * still answers correctly in up to `capacity` probes.  Private fields. */
typedef struct gar_point_table {
    gar_point_slot *slots;
    size_t capacity;
    size_t count;
} gar_point_table;

/* The table's 64-bit mix: a bijection on u64 that spreads nearby keys
 * (call-site addresses, small counters) over the whole range. */
GAR_API uint64_t gar_point_key_hash(uint64_t key);

/* Sets `table` up over `slots[0 .. capacity-1]` (every slot is cleared; the
 * caller keeps the storage alive and untouched while the table is in use).
 * Returns 0, or -GAR_E_INVALID_ARGUMENT for a NULL table or slots or a
 * capacity of 0. */
GAR_API int gar_point_table_init(gar_point_table *table, gar_point_slot *slots, size_t capacity,
                                 gar_error *err);

/* Finds the point `key`, creating it cold when absent.  Returns 1 when it
 * was created, 0 when it was there, each with its estimator in `*est` (valid
 * while the table is); or -GAR_E_CAPACITY (`*est` untouched) when `key` is
 * absent and the table is full. */
GAR_API int gar_point_table_get(gar_point_table *table, uint64_t key, gar_estimator **est,
                                gar_error *err);

/* The point `key`'s estimator, or NULL when the table does not hold it. */
GAR_API gar_estimator *gar_point_table_find(gar_point_table *table, uint64_t key);

/* The points held, 0 .. gar_point_table_capacity. */
GAR_API size_t gar_point_table_count(const gar_point_table *table);

/* The points the table can hold: its slot count. */
GAR_API size_t gar_point_table_capacity(const gar_point_table *table);

#endif
