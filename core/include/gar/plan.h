/* gar/plan.h — the wait plan: how one wait parks, and whether it first sleeps
 * to a predicted completion.  Parsed once from text, labelled back exactly,
 * resolved against the host's capabilities.
 *
 *   plan     := park | park "+predict:" deadline
 *   park     := "block" | "poll" | "flag:park_us=" N ",backstop_us=" N
 *   deadline := "margin_us=" N ",min_sleep_us=" N ",max_sleep_us=" N ",window=" N
 *
 * Every key is written, once, in that order.  N is plain decimal: digits only,
 * no sign, no leading zeros, no white space anywhere.  Values are microseconds
 * (window: samples) and are stored as ns.  Bounds (gar decides those the
 * reference leaves open; refused, never clamped):
 *   park_us        1 .. 10 000          (0 would be a spin, not a park)
 *   backstop_us    park_us .. 1 000 000 (a backstop shorter than the park
 *                                        bound would make the bound meaningless)
 *   margin_us      0 .. 10 000 000
 *   min_sleep_us   0 .. max_sleep_us
 *   max_sleep_us   1 .. 10 000 000
 *   window         1 .. GAR_WINDOW_MAX
 *   "block+predict" is refused: there is nothing to sleep in front of.
 * Plans are plain values: copy them freely; they own nothing. */
#ifndef GAR_PLAN_H
#define GAR_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/caps.h>
#include <gar/error.h>
#include <gar/time.h>

#define GAR_WINDOW_MAX 16
#define GAR_PARK_US_MAX 10000u
#define GAR_BACKSTOP_US_MAX 1000000u
#define GAR_SLEEP_US_MAX 10000000u   /* bound of margin_us and max_sleep_us */
#define GAR_PLAN_LABEL_BYTES 160     /* enough for the longest label, NUL and fallback note included */

typedef enum gar_park {
    GAR_PARK_BLOCK, /* the vendor's blocking wait, nothing else */
    GAR_PARK_POLL,  /* status queries until done */
    GAR_PARK_FLAG,  /* bounded parks on the completion word, status backstop */
} gar_park;

/* The "+predict" part: sleep to the point's predicted completion less margin. */
typedef struct gar_deadline {
    gar_dur_ns margin_ns;
    gar_dur_ns min_sleep_ns;
    gar_dur_ns max_sleep_ns;
    uint32_t window; /* samples the prediction looks back over, 1..GAR_WINDOW_MAX */
} gar_deadline;

typedef struct gar_plan {
    gar_park park;
    gar_dur_ns park_ns;     /* flag: the longest single park */
    gar_dur_ns backstop_ns; /* flag: the longest time without a status query */
    bool predict;
    gar_deadline deadline;  /* meaningful when predict */
    /* Set by gar_plan_resolve when a fallback was taken: the park that was
     * asked for (and its flag bounds stay in park_ns/backstop_ns). */
    bool fell_back;
    gar_park requested_park;
} gar_plan;

/* Parses `text` (NUL-terminated) into `out`.  Returns 0, or
 * -GAR_E_INVALID_PLAN with `err` naming subject "plan", the text, and the first
 * fault with its byte offset.  `out` is written only on success. */
int gar_plan_parse(const char *text, gar_plan *out, gar_error *err);

/* As gar_plan_parse over the `len` bytes at `text` (no NUL needed), naming
 * `subject` in a refusal (bands use "band 2 plan" and the like). */
int gar_plan_parse_span(const char *text, size_t len, const char *subject, gar_plan *out,
                        gar_error *err);

/* Writes the plan's text.  For a parsed plan it is the text it was parsed
 * from, byte for byte.  A resolved plan that fell back is written as the plan
 * that runs followed by " (fallback from flag)".  snprintf semantics: returns
 * the length the label needs; GAR_PLAN_LABEL_BYTES always suffices. */
size_t gar_plan_label(const gar_plan *plan, char *buf, size_t size);

/* Resolves `requested` against `caps` through the declared fallback chain
 * (one link: flag needs word-wait; without it the plan runs as poll, keeping
 * its predict).  Writes the plan that runs to `running`.  Returns 0 when it
 * runs as asked, or 1 when it fell back, with warning GAR_W_PARK_FALLBACK in
 * `warning` (requested label, capability, why, running label). */
int gar_plan_resolve(const gar_plan *requested, const gar_caps *caps, gar_plan *running,
                     gar_error *warning);

#endif
