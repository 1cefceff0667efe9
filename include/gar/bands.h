/* gar/bands.h — a wait plan per step size, and the step-rows cell that says
 * which band a wait is in.
 *
 *   bands := plan ( ";rows>=" N ":" plan )*
 *
 * A plan text (gar/plan.h) is a bands text of one band: every plan parses as
 * bands and labels back the same, and a bands text without ';' is exactly a
 * plan text.  The first band starts at 0 rows and states no edge; each later
 * band states the row count it starts at (its edge, N a u32 written as plan
 * numbers are: digits, no leading zeros); edges strictly increase; at most
 * GAR_BANDS_MAX bands.  A band runs from its edge (inclusive) up to the next
 * band's edge (exclusive); the last band runs to UINT32_MAX rows.
 *
 * Refusals are code 1 (InvalidPlan).  A fault of the bands' own grammar (an
 * edge, a ';', a band too many) names subject "bands", the whole text and the
 * byte in it.  A fault inside a band's plan names subject "band K plan" (K
 * from 1), that band's plan text alone, and the byte in that text — except
 * for a text of one band, which is a plan text and is refused as "plan".
 *
 * A band's plan may be "auto:p99_us=B" (gar/auto_policy.h): that band's
 * waits run what the rule chooses for them, each band with its own budget
 * (a replay keeps one rule for the run and one history per point).
 *
 * Bands are plain values like plans: copy them freely; they own nothing. */
#ifndef GAR_BANDS_H
#define GAR_BANDS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/caps.h>
#include <gar/error.h>
#include <gar/plan.h>

#define GAR_BANDS_MAX 4
/* Enough for the label of any valid bands, fallback notes and NUL included. */
#define GAR_BANDS_LABEL_BYTES (GAR_BANDS_MAX * (GAR_PLAN_LABEL_BYTES + sizeof ";rows>=4294967295:"))

typedef struct gar_band {
    uint32_t first_rows; /* the edge: 0 for the first band */
    gar_plan plan;
} gar_band;

typedef struct gar_bands {
    uint32_t count; /* 1..GAR_BANDS_MAX */
    gar_band band[GAR_BANDS_MAX];
} gar_bands;

/* Parses a bands text (NUL-terminated) into `out`.  Returns 0, or
 * -GAR_E_INVALID_PLAN as the header describes.  `out` is written only on
 * success.  NULL `text` or `out`: -GAR_E_INVALID_ARGUMENT. */
GAR_API int gar_bands_parse(const char *text, gar_bands *out, gar_error *err);

/* The plan of the band that a step of `step_rows` rows falls in.  Never NULL
 * for valid bands (NULL only for a NULL or empty `bands`).  O(bands), at
 * most 4 compares. */
GAR_API const gar_plan *gar_bands_select(const gar_bands *bands, uint32_t step_rows);

/* Writes the bands' text: the text they were parsed from, byte for byte; a
 * resolved band that fell back carries its plan's fallback note.  snprintf
 * semantics, like gar_plan_label; GAR_BANDS_LABEL_BYTES always suffices. */
GAR_API size_t gar_bands_label(const gar_bands *bands, char *buf, size_t size);

/* Whether two bands have the same edges and equal plans (gar_plan_equal). */
GAR_API bool gar_bands_equal(const gar_bands *a, const gar_bands *b);

/* Resolves every band's plan with gar_plan_resolve.  Writes the bands that
 * run to `running` (which may be `requested`).  Returns 0 when every band
 * runs as asked, with `warning` cleared; or 1 when any band fell back, with
 * warning GAR_W_PARK_FALLBACK: the requested bands' label, the first missing
 * capability, its reason, and the label of the bands that run (without the
 * fallback notes).  Returns -GAR_E_INVALID_ARGUMENT for a NULL argument or
 * invalid bands; never fails on bands that gar_bands_parse accepted. */
GAR_API int gar_bands_resolve(const gar_bands *requested, const gar_caps *caps, gar_bands *running,
                              gar_error *warning);

/* The step-rows cell: the row count of the step in flight (the rows a
 * batched step, such as a model's decode step, works on), one cell shared by the
 * launcher (one writer) and every wait (many readers).  0 until the first
 * step.  The launcher publishes once per step, before the step's work is
 * awaited; a wait reads it once to select its band — O(1), nothing per token.
 * The caller owns the cell (static storage, or initialised with
 * gar_step_rows_init before it is shared). */
typedef struct gar_step_rows {
    _Atomic uint32_t rows;
} gar_step_rows;

#define GAR_STEP_ROWS_INIT { 0 }

static inline void gar_step_rows_init(gar_step_rows *cell)
{
    atomic_init(&cell->rows, 0);
}

/* Publishes this step's row count (release: what the launcher wrote before
 * is visible to a wait that reads this value). */
static inline void gar_step_rows_publish(gar_step_rows *cell, uint32_t step_rows)
{
    atomic_store_explicit(&cell->rows, step_rows, memory_order_release);
}

/* The row count last published, 0 before any (acquire). */
static inline uint32_t gar_step_rows_read(gar_step_rows *cell)
{
    return atomic_load_explicit(&cell->rows, memory_order_acquire);
}

#endif
