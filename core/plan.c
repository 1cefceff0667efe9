/* core/plan.c — parsing, labelling and resolving wait plans (gar/plan.h).
 *
 * The grammar is read left to right with core/scan.h, which words each
 * fault; the bounds live in the key tables below, the fallback chain in its
 * own table, so both read as the header states them. */
#include <gar/plan.h>

#include <assert.h>
#include <string.h>

#include "scan.h"
#include "text.h"

#define PARK_COUNT ((size_t)GAR_PARK_AUTO + 1)

enum { FLAG_PARK, FLAG_BACKSTOP, FLAG_KEYS };
static const gar__scan_key flag_keys[FLAG_KEYS] = {
    [FLAG_PARK] = { "park_us", 1, GAR_PARK_US_MAX, -1 },
    [FLAG_BACKSTOP] = { "backstop_us", 1, GAR_BACKSTOP_US_MAX, FLAG_PARK },
};

enum { AUTO_P99, AUTO_KEYS };
static const gar__scan_key auto_keys[AUTO_KEYS] = {
    [AUTO_P99] = { "p99_us", 1, GAR_AUTO_P99_US_MAX, -1 },
};

enum { DL_MARGIN, DL_MIN_SLEEP, DL_MAX_SLEEP, DL_WINDOW, DL_KEYS };
static const gar__scan_key deadline_keys[DL_KEYS] = {
    [DL_MARGIN] = { "margin_us", 0, GAR_SLEEP_US_MAX, -1 },
    [DL_MIN_SLEEP] = { "min_sleep_us", 0, GAR_SLEEP_US_MAX, -1 },
    [DL_MAX_SLEEP] = { "max_sleep_us", 1, GAR_SLEEP_US_MAX, DL_MIN_SLEEP },
    [DL_WINDOW] = { "window", 1, GAR_WINDOW_MAX, -1 },
};

/* The declared fallback chain: a park that needs a capability, and the park
 * that runs in its place without it.  The chain ends at a park with no link
 * (poll runs anywhere; block is a declared arm, never anyone's fallback). */
typedef struct park_link {
    gar_park park;
    const char *needs;
    gar_park runs_as;
} park_link;

static const park_link park_chain[] = {
    { GAR_PARK_FLAG, GAR_CAP_WORD_WAIT, GAR_PARK_POLL },
};

static int park_named(const char *word, size_t n)
{
    for (size_t i = 0; i < PARK_COUNT; i++) {
        const char *name = gar_park_name((gar_park)i);
        if (strlen(name) == n && memcmp(name, word, n) == 0)
            return (int)i;
    }
    return -1;
}

static bool read_plan(gar__scan *s, gar_plan *plan)
{
    size_t at = s->pos;
    int park = park_named(s->text + at, gar__scan_word(s));
    if (park < 0)
        return gar__scan_fail_found(s, at, "expected a park ('block', 'poll', 'flag' or 'auto')");
    plan->park = (gar_park)park;

    if (plan->park == GAR_PARK_AUTO) {
        uint64_t us[AUTO_KEYS];
        if (!gar__scan_literal(s, ":") || !gar__scan_keys(s, auto_keys, AUTO_KEYS, us, NULL))
            return false;
        plan->budget_ns = us[AUTO_P99] * GAR_NS_PER_US;
        if (gar__scan_at_end(s))
            return true;
        if (gar__scan_looking_at(s, "+predict"))
            return gar__scan_fail(s, s->pos, "'auto' takes no '+predict' (it decides its own "
                                 "sleep)", (const char *)NULL);
        return gar__scan_fail_found(s, s->pos, "expected the end");
    }

    if (plan->park == GAR_PARK_FLAG) {
        uint64_t us[FLAG_KEYS];
        if (!gar__scan_literal(s, ":") || !gar__scan_keys(s, flag_keys, FLAG_KEYS, us, NULL))
            return false;
        plan->park_ns = us[FLAG_PARK] * GAR_NS_PER_US;
        plan->backstop_ns = us[FLAG_BACKSTOP] * GAR_NS_PER_US;
    }
    if (gar__scan_at_end(s))
        return true;

    if (plan->park == GAR_PARK_BLOCK) {
        if (gar__scan_looking_at(s, "+predict"))
            return gar__scan_fail(s, s->pos, "'block' takes no '+predict' (there is nothing to "
                                 "sleep in front of)", (const char *)NULL);
        return gar__scan_fail_found(s, s->pos, "expected the end");
    }
    if (!gar__scan_looking_at(s, "+"))
        return gar__scan_fail_found(s, s->pos, "expected '+predict:' or the end");

    uint64_t v[DL_KEYS];
    if (!gar__scan_literal(s, "+predict:") || !gar__scan_keys(s, deadline_keys, DL_KEYS, v, NULL))
        return false;
    if (!gar__scan_at_end(s))
        return gar__scan_fail_found(s, s->pos, "expected the end");
    plan->predict = true;
    plan->deadline.margin_ns = v[DL_MARGIN] * GAR_NS_PER_US;
    plan->deadline.min_sleep_ns = v[DL_MIN_SLEEP] * GAR_NS_PER_US;
    plan->deadline.max_sleep_ns = v[DL_MAX_SLEEP] * GAR_NS_PER_US;
    plan->deadline.window = (uint32_t)v[DL_WINDOW];
    return true;
}

int gar_plan_parse_span(const char *text, size_t len, const char *subject, gar_plan *out,
                        gar_error *err)
{
    if (text == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_plan_parse",
                             text == NULL ? "text" : "out", "is NULL");
    gar__scan s = gar__scan_make(text, len);
    gar_plan plan;
    memset(&plan, 0, sizeof plan);
    if (!read_plan(&s, &plan)) {
        assert(s.failed);
        char shown[GAR_ERROR_ARG_BYTES + 1];
        gar__scan_copy_text(text, len, shown, sizeof shown);
        return gar_error_set(err, GAR_E_INVALID_PLAN, 3, subject != NULL ? subject : "plan",
                             shown, s.fault);
    }
    *out = plan;
    return 0;
}

int gar_plan_parse(const char *text, gar_plan *out, gar_error *err)
{
    return gar_plan_parse_span(text, text != NULL ? strlen(text) : 0, "plan", out, err);
}

/* Writes a duration in whole µs (exact for every valid plan). */
static void put_us(gar__text_out *out, const char *key, gar_dur_ns ns)
{
    gar__text_puts(out, key);
    gar__text_put_u64(out, ns / GAR_NS_PER_US);
}

size_t gar_plan_label(const gar_plan *plan, char *buf, size_t size)
{
    gar__text_out out = gar__text_out_make(buf, size);
    if (plan == NULL)
        return 0;
    gar__text_puts(&out, gar_park_name(plan->park));
    if (plan->park == GAR_PARK_FLAG) {
        put_us(&out, ":park_us=", plan->park_ns);
        put_us(&out, ",backstop_us=", plan->backstop_ns);
    }
    if (plan->park == GAR_PARK_AUTO)
        put_us(&out, ":p99_us=", plan->budget_ns);
    if (plan->predict) {
        put_us(&out, "+predict:margin_us=", plan->deadline.margin_ns);
        put_us(&out, ",min_sleep_us=", plan->deadline.min_sleep_ns);
        put_us(&out, ",max_sleep_us=", plan->deadline.max_sleep_ns);
        gar__text_puts(&out, ",window=");
        gar__text_put_u64(&out, plan->deadline.window);
    }
    if (plan->fell_back) {
        gar__text_puts(&out, " (fallback from ");
        gar__text_puts(&out, gar_park_name(plan->requested_park));
        gar__text_puts(&out, ")");
    }
    return out.len;
}

/* Whether the flag bounds count: the plan parks on the flag, or asked to. */
static bool has_flag_bounds(const gar_plan *p)
{
    return p->park == GAR_PARK_FLAG || (p->fell_back && p->requested_park == GAR_PARK_FLAG);
}

bool gar_plan_equal(const gar_plan *a, const gar_plan *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->park != b->park || a->predict != b->predict || a->fell_back != b->fell_back)
        return false;
    if (a->fell_back && a->requested_park != b->requested_park)
        return false;
    if (has_flag_bounds(a) && (a->park_ns != b->park_ns || a->backstop_ns != b->backstop_ns))
        return false;
    if (a->park == GAR_PARK_AUTO && a->budget_ns != b->budget_ns)
        return false;
    if (a->predict) {
        const gar_deadline *x = &a->deadline, *y = &b->deadline;
        if (x->margin_ns != y->margin_ns || x->min_sleep_ns != y->min_sleep_ns ||
            x->max_sleep_ns != y->max_sleep_ns || x->window != y->window)
            return false;
    }
    return true;
}

/* Whether `ns` is a whole number of µs within lo..hi µs. */
static bool us_within(gar_dur_ns ns, uint64_t lo, uint64_t hi)
{
    return ns % GAR_NS_PER_US == 0 && ns / GAR_NS_PER_US >= lo && ns / GAR_NS_PER_US <= hi;
}

/* Whether the plan is one that some text parses to (or its resolution). */
static bool plan_valid(const gar_plan *p)
{
    if ((unsigned)p->park >= PARK_COUNT)
        return false;
    if (p->park == GAR_PARK_AUTO)
        return !p->predict && !p->fell_back && us_within(p->budget_ns, 1, GAR_AUTO_P99_US_MAX);
    if (p->fell_back && ((unsigned)p->requested_park >= PARK_COUNT || p->requested_park == p->park))
        return false;
    if (has_flag_bounds(p) &&
        (!us_within(p->park_ns, 1, GAR_PARK_US_MAX) ||
         !us_within(p->backstop_ns, p->park_ns / GAR_NS_PER_US, GAR_BACKSTOP_US_MAX)))
        return false;
    if (p->predict) {
        const gar_deadline *d = &p->deadline;
        if (p->park == GAR_PARK_BLOCK || !us_within(d->margin_ns, 0, GAR_SLEEP_US_MAX) ||
            !us_within(d->max_sleep_ns, 1, GAR_SLEEP_US_MAX) ||
            !us_within(d->min_sleep_ns, 0, d->max_sleep_ns / GAR_NS_PER_US) || d->window < 1 ||
            d->window > GAR_WINDOW_MAX)
            return false;
    }
    return true;
}

static const park_link *link_from(gar_park park)
{
    for (size_t i = 0; i < sizeof park_chain / sizeof park_chain[0]; i++)
        if (park_chain[i].park == park)
            return &park_chain[i];
    return NULL;
}

int gar_plan_resolve(const gar_plan *requested, const gar_caps *caps, gar_plan *running,
                     gar_error *warning)
{
    if (requested == NULL || caps == NULL || running == NULL)
        return gar_error_set(warning, GAR_E_INVALID_ARGUMENT, 3, "gar_plan_resolve",
                             requested == NULL ? "requested" : caps == NULL ? "caps" : "running",
                             "is NULL");
    if (!plan_valid(requested))
        return gar_error_set(warning, GAR_E_INVALID_ARGUMENT, 3, "gar_plan_resolve", "requested",
                             "is not a valid plan (see gar/plan.h)");

    gar_plan plan = *requested;
    const char *missing = NULL;
    const char *why = NULL;
    for (const park_link *link = link_from(plan.park); link != NULL; link = link_from(plan.park)) {
        const char *link_why = NULL;
        if (gar_caps_has(caps, link->needs, &link_why))
            break;
        if (missing == NULL) {
            missing = link->needs;
            why = link_why;
        }
        if (!plan.fell_back) {
            plan.fell_back = true;
            plan.requested_park = plan.park;
        }
        plan.park = link->runs_as;
    }

    if (missing == NULL) {
        *running = plan;
        gar_error_clear(warning);
        return 0;
    }
    char asked[GAR_PLAN_LABEL_BYTES];
    char runs[GAR_PLAN_LABEL_BYTES];
    gar_plan runs_plain = plan;
    runs_plain.fell_back = false;
    gar_plan_label(requested, asked, sizeof asked);
    gar_plan_label(&runs_plain, runs, sizeof runs);
    *running = plan;
    gar_error_set(warning, GAR_W_PARK_FALLBACK, 4, asked, missing, why, runs);
    return 1;
}
