/* experiments/sweep/sweep_run.h — running a sweep's runs into its database.
 *
 * The main thread lists the runs of its shard that the database lacks, in
 * the canonical order, and starts `jobs` workers.  Each worker takes the next
 * run, replays it (gar_replay_run; the loaded spec is shared read-only) and
 * hands the result back through a bounded queue; only the main thread
 * writes, one run per transaction, as results arrive.  A run whose replay
 * returns an error is stored too, with status 'failed' and the error, so a
 * resumed sweep does not retry what would fail again.
 *
 * Twins.  Runs that differ only in a plan the host runs as the same plan (on
 * a profile without word wait, `flag` resolves to `poll`) replay once: the
 * replay depends on the running plan alone, so each twin stores a copy of
 * the one result under its own key (with its own plan_ran, and run_ns 0).
 *
 * Shards.  Run r belongs to shard (gar_sweep_run_key_hash(r) mod N): a
 * function of the run's key alone, so every shard of a sweep agrees on it
 * whatever order or machine it runs on, and the shards of N partition the
 * runs.
 *
 * Crash test hook.  With GAR_SWEEP_CRASH_AFTER=N in the environment, the
 * process kills itself with SIGKILL right after storing its Nth run, so a
 * test of kill -9 and resume stops a sweep at a known point rather than
 * racing it with a timer. */
#ifndef GAR_SWEEP_RUN_H
#define GAR_SWEEP_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gar/error.h>

#include "sweep/db.h"
#include "sweep/sweep_spec.h"

typedef struct gar_sweep_options {
    unsigned jobs;       /* worker threads, 1 .. GAR_SWEEP_JOBS_MAX */
    uint64_t shard;      /* this shard, 0 .. shards-1 */
    uint64_t shards;     /* how many; 1 for the whole sweep */
    FILE *progress;      /* where progress goes; NULL for none */
    bool progress_terminal; /* draw a bar (else a line per tenth) */
} gar_sweep_options;

#define GAR_SWEEP_JOBS_MAX 1024u

typedef struct gar_sweep_stats {
    uint64_t runs;       /* runs in the whole sweep */
    uint64_t in_shard;   /* runs in this shard */
    uint64_t present;    /* of those, already in the database */
    uint64_t ran;        /* replayed now */
    uint64_t ok, failed; /* of those, how they ended */
    uint64_t copied;     /* of `ran`, rows copied from a twin rather than replayed */
    uint64_t raced;      /* stored meanwhile by another writer (not stored again) */
    double wall_s;       /* from the first look-up to the last write */
    double replay_s;     /* replay time summed over the workers */
    double store_s;      /* time in storage calls (look-ups and writes) */
} gar_sweep_stats;

/* Runs the shard's missing runs into `db`.  Returns 0 with `stats` (when
 * every missing run was stored, failed runs included), -GAR_E_INVALID_ARGUMENT
 * for bad options, -GAR_E_IO when storage fails (what was stored stays), or
 * -GAR_E_CAPACITY when memory or threads run out. */
int gar_sweep_execute(const gar_sweep_spec *spec, gar_db *db,
                      const gar_sweep_options *options, gar_sweep_stats *stats, gar_error *err);

#endif
