/* gar/estimator_family.h — the estimator families the testbed compares.
 *
 * Every family predicts a point's residual p (the time from a wait's start to
 * its completion) from the samples its waits fed back, and turns p into a
 * sleep with the plan's deadline rule, the same for all:
 *   no prediction -> none;  p <= margin -> none;  s = p - margin;
 *   s < min_sleep -> none;  otherwise min(s, max_sleep).
 * They differ only in p and in what a Late sample (an upper bound) teaches:
 *
 *   adl                the default, gar/estimator.h's: p = min of the last
 *                      `window` samples; Late(w) pushes min(w, p) / 2.
 *   none               never predicts: every wait goes straight to its park.
 *   oracle             p = the true residual.  Only a simulator knows it, so
 *                      the core's functions never predict for it; the
 *                      simulator supplies p itself.
 *   half-min           p = half the least sample ever seen (io_uring's hybrid
 *                      poll).  Late(w) counts as a sample w, as the kernel
 *                      counts the whole time to the completion it saw.
 *   half-mean          p = half the mean of every sample (blk-mq's hybrid
 *                      poll); Late(w) as a sample w.
 *   ewma:alpha=A       p = exponentially weighted mean, a new sample weighing
 *                      A (0 < A <= 1; default 0.25); Late(w) as a sample w.
 *   quantile:q=Q       p = the Q-quantile (0 <= Q <= 1; default 0.1, nearest
 *                      rank) of the last `window` samples; Late as adl does,
 *                      so q=0 is adl.
 *
 * Text: `NAME`, or `NAME:key=value` for the families with a key; values are
 * decimals with up to six fraction digits ("0.25", "1", "0.05").  Parsed once;
 * a refusal is GAR_E_INVALID_ESTIMATOR naming the text and the first fault.
 * The label is canonical (every key written), and parses back to the same
 * spec.
 *
 * Ownership: specs and points are caller-owned plain values; nothing is
 * allocated.  Not thread-safe: one thread owns a point. */
#ifndef GAR_ESTIMATOR_FAMILY_H
#define GAR_ESTIMATOR_FAMILY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/error.h>
#include <gar/estimator.h>
#include <gar/plan.h>
#include <gar/sample.h>
#include <gar/time.h>

#define GAR_ESTIMATOR_LABEL_BYTES 32 /* the longest label, NUL included */
#define GAR_FRACTION_ONE UINT32_C(1000000) /* fractions are kept in millionths */

typedef enum gar_estimator_family {
    GAR_ESTIMATOR_ADL,
    GAR_ESTIMATOR_NONE,
    GAR_ESTIMATOR_ORACLE,
    GAR_ESTIMATOR_HALF_MIN,
    GAR_ESTIMATOR_HALF_MEAN,
    GAR_ESTIMATOR_EWMA,
    GAR_ESTIMATOR_QUANTILE,
} gar_estimator_family;

typedef struct gar_estimator_spec {
    gar_estimator_family family;
    uint32_t alpha;    /* ewma: a new sample's weight, millionths, 1 .. GAR_FRACTION_ONE */
    uint32_t quantile; /* quantile: the level, millionths, 0 .. GAR_FRACTION_ONE */
} gar_estimator_spec;

/* The default spec: adl. */
GAR_API gar_estimator_spec gar_estimator_spec_default(void);

/* Parses `text` (NUL-terminated).  Returns 0, or -GAR_E_INVALID_ESTIMATOR
 * (text, first fault); `out` is written only on success. */
GAR_API int gar_estimator_spec_parse(const char *text, gar_estimator_spec *out, gar_error *err);

/* Writes the canonical text ("adl", "ewma:alpha=0.25").  snprintf semantics;
 * GAR_ESTIMATOR_LABEL_BYTES always suffices. */
GAR_API size_t gar_estimator_spec_label(const gar_estimator_spec *spec, char *buf, size_t size);

/* One readback point's state under any family.  Private fields. */
typedef struct gar_family_point {
    gar_estimator adl;    /* adl: gar/estimator.h's estimator itself */
    gar_dur_ns recent[GAR_WINDOW_MAX]; /* quantile: the recent samples, a ring */
    uint8_t next;         /* quantile: the ring slot the next sample takes */
    uint8_t count;        /* quantile: samples held */
    uint64_t seen;        /* samples taken (half-min, half-mean, ewma) */
    gar_dur_ns least;     /* half-min: the least sample */
    gar_dur_ns sum;       /* half-mean: the sum of samples, saturating */
    gar_dur_ns ewma;      /* ewma: the current mean */
} gar_family_point;

/* Makes `point` cold. */
GAR_API void gar_family_point_init(gar_family_point *point);

/* The prediction p.  Returns 1 with `*p_ns`, 0 for none (a cold point, the
 * `none` family, or `oracle`), or -GAR_E_INVALID_ARGUMENT for a bad deadline
 * (as gar/estimator.h checks it) or spec. */
GAR_API int gar_family_prediction(const gar_estimator_spec *spec, const gar_family_point *point,
                                  const gar_deadline *deadline, gar_dur_ns *p_ns, gar_error *err);

/* The sleep for the next wait: 1 with `*sleep_ns`, 0 for none, or
 * -GAR_E_INVALID_ARGUMENT. */
GAR_API int gar_family_sleep(const gar_estimator_spec *spec, const gar_family_point *point,
                             const gar_deadline *deadline, gar_dur_ns *sleep_ns, gar_error *err);

/* Feeds one wait's sample back.  NONE teaches nothing.  Returns 0, or
 * -GAR_E_INVALID_ARGUMENT (nothing learnt). */
GAR_API int gar_family_observe(const gar_estimator_spec *spec, gar_family_point *point,
                               const gar_deadline *deadline, gar_sample sample, gar_error *err);

#endif
