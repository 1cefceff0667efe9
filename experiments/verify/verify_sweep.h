/* experiments/verify/verify_sweep.h — gar verify --sweep (verify_sweep.c):
 * every arm of a sweep spec (each trace cut to its first waits) run for
 * real on this machine and in the simulator with one host profile, N times
 * when asked, judged (verify_arm.h), and stored as a verification row
 * (verifications.h).  An arm whose estimator is the oracle is skipped: it
 * knows the future, which only the simulator can.
 *
 * The caller loads the spec, the profile and the database, and says how
 * each arm is told (the command prints a line each); nothing here prints. */
#ifndef GAR_VERIFY_SWEEP_H
#define GAR_VERIFY_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include <gar/error.h>
#include <gar/executor_kind.h>
#include <gar/caps.h>

#include "sim/host_profile.h"
#include "sim/trace/trace.h"
#include "sweep/db.h"
#include "sweep/sweep_spec.h"
#include "verify/verifications.h"
#include "verify/verify_real.h"
#include "verify/verify_stats.h"

/* Cuts each trace of `spec` to its first `limit` waits into `*cut`
 * (spec->trace_count of them; gar_verify_sweep_cut_free them), each checked
 * to span at most GAR_VERIFY_SPAN_MAX_S: a spec that cannot be verified is
 * refused whole, before anything runs.  Returns 0, or the refusal with
 * `*cut` NULL. */
int gar_verify_sweep_cut(const gar_sweep_spec *spec, uint64_t limit, gar_trace **cut,
                         gar_error *err);

/* Frees what gar_verify_sweep_cut made (NULL: nothing). */
void gar_verify_sweep_cut_free(gar_trace *cut, size_t count);

typedef struct gar_verify_sweep {
    const gar_sweep_spec *spec;
    const gar_trace *cut;     /* its traces, cut (gar_verify_sweep_cut) */
    const gar_caps *caps;     /* this host's, that each plan resolves against */
    const gar_verify_device_ops *device;
    gar_executor_kind executor;
    const gar_host_profile *profile;
    const char *profile_hash; /* its content hash, stored in each row */
    unsigned runs;            /* real runs of each arm, one after another */
    uint64_t seed;            /* the simulator's */
    const gar_verify_tolerance *tol;
    const char *tolerance_text; /* gar_verify_tolerance_text of tol, stored in each row */
    gar_db *db;               /* where each verification goes */
    /* Told of each arm as it ends, in spec order (NULL: not told). */
    void (*on_skipped)(void *context, const char *trace_name, const char *plan,
                       const char *estimator);
    void (*on_verified)(void *context, const gar_verification *v);
    void *context;
} gar_verify_sweep;

typedef struct gar_verify_sweep_counts {
    unsigned verified; /* arms run, judged and stored */
    unsigned agreed;   /* of them, those whose verdict is agree */
    unsigned skipped;  /* arms of the oracle */
} gar_verify_sweep_counts;

/* Verifies every arm of every trace, trace by trace, into the database;
 * `counts` says how many.  Returns 0, or the first refusal (a plan this
 * host cannot run, a run's, the database's, -GAR_E_CAPACITY): the arms
 * stored before it stay. */
int gar_verify_sweep_arms(const gar_verify_sweep *sweep, gar_verify_sweep_counts *counts,
                          gar_error *err);

#endif
