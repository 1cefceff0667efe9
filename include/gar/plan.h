/* gar/plan.h — the wait plan: how one wait parks, and whether it first sleeps
 * to a predicted completion.  Parsed once from text, labelled back exactly,
 * resolved against the host's capabilities.
 *
 *   plan     := park | park "+predict:" deadline | "auto:p99_us=" N
 *   park     := "block" | "poll" | "flag:park_us=" N ",backstop_us=" N
 *   deadline := "margin_us=" N ",min_sleep_us=" N ",max_sleep_us=" N ",window=" N
 *
 * Every key is written, once, in that order.  N is plain decimal: digits only,
 * no sign, no leading zeros ("0" itself is a number), no white space
 * anywhere.  Values are whole microseconds (window: samples) and are stored
 * as ns, so every label reads back as the plan it names; a fraction is
 * refused as one ("p99_us takes whole microseconds from 1 to 1000000, found
 * 0.5"): the smallest auto budget is 1 µs.
 * Bounds (refused, never clamped):
 *   park_us        1 .. 10 000          (0 would be a spin, not a park)
 *   backstop_us    park_us .. 1 000 000 (a backstop shorter than the park
 *                                        bound would make the bound meaningless)
 *   margin_us      0 .. 10 000 000
 *   min_sleep_us   0 .. max_sleep_us
 *   max_sleep_us   1 .. 10 000 000
 *   window         1 .. GAR_WINDOW_MAX
 *   p99_us         1 .. 1 000 000 (auto: the overshoot budget, at most 1 s)
 *   "block+predict" is refused: there is nothing to sleep in front of.
 *   "auto+predict" is refused: auto decides its own sleep.
 *
 * "auto:p99_us=B" is not a park but a rule that picks one for each wait: the
 * sleep, then block, poll or flag, so that the wait's overshoot stays within
 * B µs at the 99th percentile at the least CPU (gar/auto_policy.h).  The wait
 * machine runs only the concrete plan the rule gives (gar_wait_init refuses
 * park GAR_PARK_AUTO); an auto plan resolves to itself on every host, since
 * the rule asks the host's capabilities itself, wait by wait.
 * A number beyond u64 is just a number outside its bounds; every bound ×1000
 * fits a u64 with room to spare, so the ns values never overflow.
 *
 * A refusal is code 1 (InvalidPlan) with three arguments: the subject
 * ("plan", or "band 2 plan" for a band), the text, and the first fault in
 * reading order, "at byte N: what was expected, what was found", N counted
 * from the start of the plan's own text.  A key out of place is named for
 * what it is: unknown, missing, duplicate or out of order.  For example
 *   at byte 17: expected key 'backstop_us', found 'backstop'
 *   at byte 5: key 'backstop_us' out of order, expected key 'park_us' first
 *   at byte 13: park_us must be 1..10000, found 20000
 *   at byte 12: p99_us takes whole microseconds from 1 to 1000000, found 0.5
 *   at byte 29: backstop_us must be at least 100 (park_us), found 50
 *   at byte 4: expected '+predict:' or the end, found white space
 *
 * Plans are plain values: copy them freely; they own nothing.  A plan is
 * valid when some text parses to it, or when gar_plan_resolve made it from
 * one. */
#ifndef GAR_PLAN_H
#define GAR_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gar/api.h>
#include <gar/caps.h>
#include <gar/error.h>
#include <gar/time.h>

#define GAR_WINDOW_MAX 16
#define GAR_PARK_US_MAX 10000u
#define GAR_BACKSTOP_US_MAX 1000000u
#define GAR_SLEEP_US_MAX 10000000u   /* bound of margin_us and max_sleep_us */
#define GAR_AUTO_P99_US_MAX 1000000u /* bound of auto's p99_us */
#define GAR_PLAN_LABEL_BYTES 160     /* enough for the longest label, NUL and fallback note included */

typedef enum gar_park {
    GAR_PARK_BLOCK, /* the vendor's blocking wait, nothing else */
    GAR_PARK_POLL,  /* status queries until done */
    GAR_PARK_FLAG,  /* bounded parks on the completion word, status backstop */
    GAR_PARK_AUTO,  /* a rule that picks one of the three for each wait (never run as is) */
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
    gar_dur_ns budget_ns;   /* auto: the p99 overshoot budget; 0 for the other parks */
    /* Set by gar_plan_resolve when a fallback was taken: the park that was
     * asked for (and its flag bounds stay in park_ns/backstop_ns). */
    bool fell_back;
    gar_park requested_park;
} gar_plan;

/* Parses `text` (NUL-terminated) into `out`.  Returns 0, or
 * -GAR_E_INVALID_PLAN with `err` naming subject "plan", the text, and the first
 * fault with its byte offset.  `out` is written only on success; fields that
 * the plan does not use are zero.  NULL `text` or `out`: -GAR_E_INVALID_ARGUMENT. */
GAR_API int gar_plan_parse(const char *text, gar_plan *out, gar_error *err);

/* As gar_plan_parse over the `len` bytes at `text` (no NUL needed, none
 * read past `len`), naming `subject` in a refusal (bands use "band 2 plan";
 * NULL means "plan").  A NUL byte inside the span is a byte like any other,
 * and refused. */
GAR_API int gar_plan_parse_span(const char *text, size_t len, const char *subject, gar_plan *out,
                                gar_error *err);

/* The park's word as a plan spells it: "block", "poll", "flag" or "auto" (static
 * text, never NULL); "?" for a value that is no gar_park.  The parser reads
 * these same words. */
static inline const char *gar_park_name(gar_park park)
{
    switch (park) {
    case GAR_PARK_BLOCK:
        return "block";
    case GAR_PARK_POLL:
        return "poll";
    case GAR_PARK_FLAG:
        return "flag";
    case GAR_PARK_AUTO:
        return "auto";
    }
    return "?";
}

/* Writes the plan's text.  For a parsed plan it is the text it was parsed
 * from, byte for byte.  A resolved plan that fell back is written as the plan
 * that runs followed by " (fallback from flag)" — a note for people, which
 * does not parse back.  snprintf semantics: writes at most `size` bytes, NUL
 * included, and returns the length the whole label needs;
 * GAR_PLAN_LABEL_BYTES always suffices for a valid plan.  A NULL plan writes
 * "" and an invalid one writes what it holds (values shown in whole µs). */
GAR_API size_t gar_plan_label(const gar_plan *plan, char *buf, size_t size);

/* Whether two plans are the same plan: the same park, flag bounds where they
 * count, the same deadline where there is one, the same fallback record.
 * Fields a plan does not use are not compared. */
GAR_API bool gar_plan_equal(const gar_plan *a, const gar_plan *b);

/* Resolves `requested` against `caps` through the declared fallback chain
 * (one link: flag needs word-wait; without it the plan runs as poll, keeping
 * its predict and, in park_ns/backstop_ns, its flag bounds).  Writes the plan
 * that runs to `running` (which may be `requested` itself).  Returns 0 when it
 * runs as asked, with `warning` cleared; or 1 when it fell back, with warning
 * GAR_W_PARK_FALLBACK in `warning`: the requested label, the capability
 * ("word-wait"), the caps' reason, and the label of the plan that runs
 * (without the fallback note, which the warning says in words).  An auto
 * plan runs as asked on every host (0).  Resolving a
 * resolved plan again changes nothing.  Returns -GAR_E_INVALID_ARGUMENT for a
 * NULL argument or an invalid plan; never fails on a valid one. */
GAR_API int gar_plan_resolve(const gar_plan *requested, const gar_caps *caps, gar_plan *running,
                             gar_error *warning);

#endif
