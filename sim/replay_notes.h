/* sim/replay_notes.h — what went wrong in a replay, in words.
 *
 * The replay counts (replay.h, "Diagnosis"); this turns the counts into
 * notes, each a short stable name, a count, a worst case where one means
 * something, and the line `gar replay` prints after "note: ".  The sweep
 * stores the same notes (the run_notes table), so a report reads the very
 * words a replay printed.  Deterministic: the same metrics give the same
 * notes, in this order:
 *
 *   fallback       the host ran another plan than asked (a flag plan on a
 *                  host without a word wait runs as poll); count: the waits.
 *   never_slept    a plan with predict slept on none of its waits, or
 *   rarely_slept   on fewer than one in ten: so it ran as the plan without
 *                  predict.  The message says why: no prediction yet (the
 *                  point's window not filled), no point that repeats (each
 *                  wait at a point of its own), an estimator that never
 *                  predicts (none), predictions below margin + min_sleep.
 *                  count: the predict waits that did not sleep.
 *   late_wakes     sleeps that woke after the work completed (a prediction
 *                  too long); count, and worst: the longest overshoot.
 *   backstop_hits  waits a backstop query ended (the word never woke the
 *                  park: a lost or late store); count, worst: the longest
 *                  overshoot.
 *   few_waits      too few waits for the p99 to have an upper bound at the
 *                  run's confidence; count: the waits.
 *   histogram_quantiles  a run past GAR_SKETCH_EXACT_MAX values of a metric:
 *                  its quantiles came from a histogram, within 0.1 %
 *                  (quantile_sketch.h); count: the waits.  Never beside
 *                  few_waits, so six notes at most.
 *
 * A run with nothing to say has no notes. */
#ifndef GAR_SIM_REPLAY_NOTES_H
#define GAR_SIM_REPLAY_NOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/bands.h>
#include <gar/error.h>
#include <gar/estimator_family.h>

#include "sim/replay.h"

#define GAR_REPLAY_NOTES_MAX 6
#define GAR_REPLAY_NOTE_BYTES 400 /* a message, NUL included */

/* Fewer than one in this many predict waits slept: rarely_slept. */
#define GAR_REPLAY_RARELY_SLEPT 10

typedef struct gar_replay_note {
    const char *name;   /* static: one of the names above */
    uint64_t count;
    bool has_worst;
    gar_dur_ns worst_ns;
    char message[GAR_REPLAY_NOTE_BYTES];
} gar_replay_note;

typedef struct gar_replay_notes {
    gar_replay_note note[GAR_REPLAY_NOTES_MAX];
    size_t count;
} gar_replay_notes;

/* The notes of a run with metrics `m`, run under `bands` (a plan is bands
 * of one band) with `estimator`; `fallback` is the plan as the host ran it
 * when that differs from what was asked, else NULL. */
void gar_replay_notes_of(const gar_replay_metrics *m, const gar_bands *bands,
                         const gar_estimator_spec *estimator, const char *fallback,
                         gar_replay_notes *out);

/* Whether a run of the auto plan `label` with budget `budget_ns` missed it:
 * its p99 overshoot is above the budget.  Returns true with `warning` set to
 * GAR_W_AUTO_MISSED_BUDGET (the label, the p99 and the budget in words, and
 * how sure: the p99's interval wholly above the budget, the budget within
 * it, or no upper bound from too few waits); false, `warning` untouched,
 * when the p99 is within the budget. */
bool gar_replay_auto_missed(const gar_replay_metrics *m, const char *label,
                            gar_dur_ns budget_ns, gar_error *warning);

/* Appends to the few_waits note of `notes`, when it has one, the hint for a
 * trace imported from a profile's synchronizing calls (`gar import ...`
 * without `--wait-on kernel`): the same profile read with --wait-on kernel
 * gives a row per kernel, far more waits.  Does nothing without the note. */
void gar_replay_notes_hint_kernels(gar_replay_notes *notes);

#endif
