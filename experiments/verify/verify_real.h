/* experiments/verify/verify_real.h — a trace's waits run for real: a device that
 * completes the trace's work on the host clock, and the inline driver waiting
 * for it on this thread with the POSIX host, the wait machine deciding
 * exactly as in the simulator.
 *
 * The device seam.  A device is a table of three operations: open it for a
 * trace whose times count from a host-clock origin, submit one row's work and
 * get back the completion port its wait uses, and close it, learning when
 * each row's work really completed.  The emulated device
 * (gar/emulated.h) is the one built here; a GPU backend plugs in by
 * providing the same table (submit_row enqueues work of the row's duration,
 * e.g. a clock-spinning kernel, then the store; the port is the stream's).
 *
 * Placement.  Where the thread may run on two CPUs or more, the waiting
 * thread is pinned to the first and the device to the last (cpu_pin.h), as
 * gar calibrate places them; the waiting thread's own set is put back after.
 *
 * The driver.  The config's executor kind runs each wait: the inline driver
 * (naive), or the wait as the one task of an executor (gpu-reactor,
 * io-uring: the reactor driver over that kind's host, whose parks are timed
 * like the port's).  The machine decides the same either way.
 *
 * The run, open loop.  Row i's work is submitted when the host clock reaches
 * origin + submit_ns (rows in order; every row up to i is submitted before
 * wait i starts), wait i starts at origin + start_ns (or when wait i-1 ended,
 * if later), with the point's predicted sleep from the estimator, and the
 * estimator learns from the wait's sample, as in the simulator.
 *
 * What the run measures per wait, on the simulator's definitions
 * (sim/replay.h): start and end (the driver's first and last clock reading),
 * overshoot = end - max(completion, start), where completion is the device's
 * own record of it; busy = wait time less time asleep (the predicted sleep,
 * overshoot included, and time inside a blocking wait); and the waiting
 * thread's CPU time, which the simulator has no counterpart for.
 *
 * The trace as run.  A real device completes late by its own timer's
 * overshoot and a real wait starts late by the host's: to compare the host's
 * behaviour alone, the simulator should replay what really happened.  The run
 * returns that trace: each row's start and done replaced by the times the
 * wait really started and the work really completed (from the origin). */
#ifndef GAR_VERIFY_REAL_H
#define GAR_VERIFY_REAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/bands.h>
#include <gar/auto_policy.h>
#include <gar/error.h>
#include <gar/estimator_family.h>
#include <gar/executor_kind.h>
#include <gar/idle.h>
#include <gar/port.h>
#include <gar/time.h>

#include "sim/replay.h"
#include "sim/trace/trace.h"

typedef struct gar_verify_device_ops {
    const char *name;
    /* Prepares the device for `trace`, whose times count from *origin on
     * gar_posix_now's clock, a head start after the call; a device whose
     * set-up eats into that head start (a GPU's context and kernel load
     * take 100s of ms) may move *origin later, to give the run the same
     * head start from when it is ready, and never earlier.  `park` is the
     * host's Idle port, for the ports' park; `cpu` the CPU a device that
     * uses one should run on (-1: any).  Sets *ctx.  Returns 0 or a
     * negated code. */
    int (*open)(void **ctx, const gar_trace *trace, gar_mono_ns *origin, gar_idle park,
                int cpu, gar_error *err);
    /* Submits row `row`'s work (rows come in order, each once) and writes the
     * port of its wait to *port, valid until close.  Returns 0 or a negated
     * code. */
    int (*submit_row)(void *ctx, size_t row, gar_port *port, gar_error *err);
    /* Waits for the device to finish its work — or, with `stop` (after a
     * failure), stops it first — writes each row's completion time
     * (GAR_MONO_NEVER if none) into completed_at (NULL allowed), and
     * releases everything.  Returns 0 or a negated code. */
    int (*close)(void *ctx, bool stop, gar_mono_ns *completed_at, gar_error *err);
} gar_verify_device_ops;

/* The emulated device (gar/emulated.h): a store thread plays each stream,
 * completing a row's work after its device duration.  Always built in;
 * verify_devices.h finds it, and the others, by name. */
extern const gar_verify_device_ops gar_verify_emulated_device;

/* ---- what every device derives from a trace -------------------------------- */

/* The earliest submit time of `trace` (at least one row): the run's origin
 * stands for it, and every row's times count from it. */
uint64_t gar_verify_trace_base(const gar_trace *trace);

/* Gives each of the trace's streams a slot 0 .. max-1, in order of first
 * appearance, writing row i's into slot_of_row[i] (trace->count of them)
 * and the number of streams into *streams.  Returns 0, or -GAR_E_CAPACITY
 * when the trace has more than `max` streams. */
int gar_verify_stream_slots(const gar_trace *trace, unsigned max, uint8_t *slot_of_row,
                            unsigned *streams, gar_error *err);

/* The device time of each row's work, for a device that must be given it
 * up front: a stream starts row i's work when it is submitted or when the
 * stream's previous row is done, whichever is later, and it must end at the
 * row's done time, so duration[i] = done_i - max(submit_i, previous done),
 * 0 where that is negative (work done before it could start: the device
 * runs it as soon as it can).  `slot_of_row` as gar_verify_stream_slots
 * wrote it; `max` bounds its slots. */
void gar_verify_work_durations(const gar_trace *trace, const uint8_t *slot_of_row, unsigned max,
                               gar_dur_ns *duration);

typedef struct gar_real_config {
    const gar_trace *trace;                /* required: any number of streams on the emulated
                                            * device, at most 8 on the CUDA one */
    const gar_bands *bands;                /* required: a plan is bands of one */
    gar_estimator_spec estimator;          /* not oracle: only a simulator knows the future */
    const gar_verify_device_ops *device;   /* required */
    gar_executor_kind executor;            /* the resolved kind that runs the waits: naive
                                            * (the inline driver; zero), or a reactor kind
                                            * (each wait a task of gar's executor over that
                                            * kind's host, kind_host.h) */
    gar_dur_ns wait_deadline_ns;           /* > 0: no wait runs longer */
    const gar_auto_host *auto_host;        /* what an auto plan's rule is told of this host
                                            * (NULL: gar_auto_host_default); one policy
                                            * for the run, a history per point */
} gar_real_config;

typedef struct gar_real_result {
    gar_replay_metrics metrics;  /* on the simulator's definitions (no makespan) */
    gar_dur_ns *overshoot;       /* one per wait, in row order (owned) */
    gar_trace as_run;            /* the trace as the device and host ran it (owned) */
    gar_dur_ns cpu_ns;           /* the waiting thread's CPU time inside its waits */
    gar_replay_quantiles device_late_ns; /* completion less the trace's done time */
    gar_replay_quantiles start_late_ns;  /* real start less the trace's start time */
} gar_real_result;

/* Runs the trace for real.  Returns 0 with `out` filled (release it with
 * gar_real_result_free), or a negated code: -GAR_E_INVALID_ARGUMENT (bad
 * config), -GAR_E_CAPACITY (too many streams, memory), the device's code, or
 * the code of the first wait that failed.  On failure `out` holds nothing. */
int gar_real_run(const gar_real_config *config, gar_real_result *out, gar_error *err);

/* Releases what a successful run holds.  Accepts NULL. */
void gar_real_result_free(gar_real_result *result);

#endif
