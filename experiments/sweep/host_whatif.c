/* experiments/sweep/host_whatif.c — what-if terms on a host profile. */
#include "sweep/host_whatif.h"
#include "sim/trace/alloc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The distributions by key, with their lead variants (NULL: none). */
typedef struct dist_key {
    const char *name;
    size_t base;     /* offsetof the plain distribution */
    ptrdiff_t at;    /* offsetof the variants, or -1 */
    bool optional;   /* may be left unstated */
} dist_key;

static const dist_key dist_keys[] = {
    { "sleep_overshoot_ns", offsetof(gar_host_profile, sleep_overshoot),
      offsetof(gar_host_profile, sleep_overshoot_at), false },
    { "block_wake_ns", offsetof(gar_host_profile, block_wake),
      offsetof(gar_host_profile, block_wake_at), false },
    { "park_wake_ns", offsetof(gar_host_profile, park_wake), -1, false },
    { "poll_period_ns", offsetof(gar_host_profile, poll_period), -1, false },
    { "store_visible_ns", offsetof(gar_host_profile, store_visible),
      offsetof(gar_host_profile, store_visible_at), true },
};
enum { DIST_KEYS = sizeof dist_keys / sizeof dist_keys[0] };

static gar_host_dist *dist_at(gar_host_profile *p, size_t offset)
{
    return (gar_host_dist *)((char *)p + offset);
}

static const gar_host_dist *const_dist_at(const gar_host_profile *p, size_t offset)
{
    return (const gar_host_dist *)((const char *)p + offset);
}

__attribute__((format(printf, 5, 6))) static int fault(gar_error *err, const char *file,
                                                       unsigned line, const char *term,
                                                       const char *fmt, ...)
{
    char why[GAR_ERROR_ARG_BYTES], where[32], all[GAR_ERROR_ARG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "%u", line);
    snprintf(all, sizeof all, "what-if '%.100s': %.380s", term, why);
    return gar_error_set(err, GAR_E_INVALID_HOST_PROFILE, 3, file, where, all);
}

/* A plain decimal "D", "D.D": no sign, exponent or spaces. */
static bool parse_decimal(const char *s, double *out)
{
    bool digit = false, dot = false;
    for (const char *c = s; *c != '\0'; c++) {
        if (*c >= '0' && *c <= '9')
            digit = true;
        else if (*c == '.' && !dot)
            dot = true;
        else
            return false;
    }
    if (!digit)
        return false;
    *out = strtod(s, NULL);
    return true;
}

/* Whole ns, no sign. */
static bool parse_ns(const char *s, gar_dur_ns *out)
{
    if (*s == '\0')
        return false;
    gar_dur_ns v = 0;
    for (const char *c = s; *c != '\0'; c++) {
        if (*c < '0' || *c > '9')
            return false;
        v = v * 10 + (gar_dur_ns)(*c - '0');
        if (v > GAR_HOST_NS_MAX)
            return false;
    }
    *out = v;
    return true;
}

/* value * factor, rounded; false when past the profile's range. */
static bool scaled(gar_dur_ns value, double factor, gar_dur_ns *out)
{
    double v = (double)value * factor + 0.5; /* rounded to the nearest ns */
    if (!(v < (double)GAR_HOST_NS_MAX + 1))
        return false;
    *out = (gar_dur_ns)v;
    return true;
}

static bool scale_dist(gar_host_dist *d, double factor)
{
    gar_host_dist copy = *d;
    for (unsigned i = 0; i < copy.count; i++)
        if (!scaled(d->value[i], factor, &copy.value[i]))
            return false;
    *d = copy;
    return true;
}

static void constant_dist(gar_host_dist *d, gar_dur_ns v)
{
    static const uint32_t levels[] = { 0, 500000, 900000, 990000, GAR_HOST_LEVEL_ONE };
    memset(d, 0, sizeof *d);
    d->count = sizeof levels / sizeof levels[0];
    for (unsigned i = 0; i < d->count; i++) {
        d->level[i] = levels[i];
        d->value[i] = v;
    }
}

/* A term on a distribution, KEY or KEY@LEAD (`key`, split here at its '@'),
 * its factor or value already read.  Returns 0 or the refusal. */
static int apply_dist_term(gar_host_profile *p, const char *term, char *key, bool scale,
                           double factor, gar_dur_ns value, const char *file, unsigned line,
                           gar_error *err)
{
    char *at = strchr(key, '@');
    if (at != NULL)
        *at++ = '\0';
    const dist_key *dk = NULL;
    for (size_t i = 0; i < DIST_KEYS; i++)
        if (strcmp(dist_keys[i].name, key) == 0)
            dk = &dist_keys[i];
    if (dk == NULL)
        return fault(err, file, line, term,
                     "unknown key '%s' (query_ns, clock_ns, word_wait, sleep_overshoot_ns, "
                     "block_wake_ns, park_wake_ns, poll_period_ns, store_visible_ns, or "
                     "KEY@LEAD)",
                     key);
    if (at != NULL) {
        int lead = -1;
        for (unsigned k = 0; k < GAR_HOST_LEADS; k++)
            if (strcmp(gar_host_lead_name(k), at) == 0)
                lead = (int)k;
        if (dk->at < 0 || lead < 0)
            return fault(err, file, line, term,
                         dk->at < 0 ? "%s has no lead variants (only sleep_overshoot_ns, "
                                      "block_wake_ns and store_visible_ns do)"
                                    : "lead '%s' is not one of 100us, 300us, 1ms, 3ms, 10ms",
                         dk->at < 0 ? key : at);
        gar_host_dist *d = dist_at(p, (size_t)dk->at + (size_t)lead * sizeof(gar_host_dist));
        if (!scale) {
            constant_dist(d, value);
            return 0;
        }
        if (d->count == 0)
            return fault(err, file, line, term, "%s@%s is not stated in this profile: nothing "
                                                "to scale (set it with =V)",
                         key, at);
        if (!scale_dist(d, factor))
            return fault(err, file, line, term, "gives more than 10 s, the most a profile states");
        return 0;
    }
    gar_host_dist *base = dist_at(p, dk->base);
    if (!scale) {
        constant_dist(base, value);
        if (dk->at >= 0)
            memset(dist_at(p, (size_t)dk->at), 0, GAR_HOST_LEADS * sizeof(gar_host_dist));
        return 0;
    }
    if (base->count == 0)
        return fault(err, file, line, term,
                     "%s is not stated in this profile: nothing to scale (set it with =V)", key);
    gar_host_profile copy = *p;
    bool fits = scale_dist(dist_at(&copy, dk->base), factor);
    for (unsigned k = 0; fits && dk->at >= 0 && k < GAR_HOST_LEADS; k++) {
        gar_host_dist *d = dist_at(&copy, (size_t)dk->at + k * sizeof(gar_host_dist));
        if (d->count > 0)
            fits = scale_dist(d, factor);
    }
    if (!fits)
        return fault(err, file, line, term, "gives more than 10 s, the most a profile states");
    *p = copy;
    return 0;
}

/* One term, "KEY*F" or "KEY=V", on `p`. */
static int apply_term(gar_host_profile *p, const char *term, const char *file, unsigned line,
                      gar_error *err)
{
    size_t op_at = strcspn(term, "*=");
    if (term[op_at] == '\0')
        return fault(err, file, line, term, "is neither KEY*FACTOR nor KEY=VALUE");
    char key[64];
    if (op_at == 0 || op_at >= sizeof key)
        return fault(err, file, line, term, "has no key before '%c'", term[op_at]);
    memcpy(key, term, op_at);
    key[op_at] = '\0';
    bool scale = term[op_at] == '*';
    const char *arg = term + op_at + 1;
    double factor = 0;
    gar_dur_ns value = 0;
    if (arg[0] == '-')
        return fault(err, file, line, term,
                     scale ? "factor '%s' is negative: a factor is above 0"
                           : "value '%s' is negative: a cost or latency is at least 0 ns",
                     arg);
    if (scale && (!parse_decimal(arg, &factor) || factor <= 0 || factor > GAR_WHATIF_FACTOR_MAX))
        return fault(err, file, line, term,
                     "factor '%s' is not a plain decimal above 0 and at most 1000", arg);

    /* The constants. */
    if (strcmp(key, "word_wait") == 0) {
        if (scale || (strcmp(arg, "yes") != 0 && strcmp(arg, "no") != 0))
            return fault(err, file, line, term, "word_wait takes =yes or =no");
        p->word_wait = strcmp(arg, "yes") == 0;
        return 0;
    }
    if (!scale && !parse_ns(arg, &value))
        return fault(err, file, line, term,
                     "value '%s' is not whole ns from 0 to 10000000000 (10 s)", arg);
    if (strcmp(key, "query_ns") == 0 || strcmp(key, "clock_ns") == 0) {
        gar_dur_ns *field = key[0] == 'q' ? &p->query_ns : &p->clock_ns;
        if (!scale) {
            *field = value;
        } else if (!scaled(*field, factor, field)) {
            return fault(err, file, line, term, "gives more than 10 s, the most a profile states");
        }
        return 0;
    }

    return apply_dist_term(p, term, key, scale, factor, value, file, line, err);
}

int gar_host_whatif_apply(gar_host_profile *profile, const char *terms, const char *file,
                          unsigned line, gar_error *err)
{
    gar_host_profile work = *profile;
    const char *p = terms;
    if (*p == '\0')
        return fault(err, file, line, terms, "no term after '@' (KEY*FACTOR or KEY=VALUE)");
    while (p != NULL) {
        const char *comma = strchr(p, ',');
        size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);
        char term[128];
        if (n == 0 || n >= sizeof term)
            return fault(err, file, line, terms, "has an empty or overlong term");
        memcpy(term, p, n);
        term[n] = '\0';
        int rc = apply_term(&work, term, file, line, err);
        if (rc < 0)
            return rc;
        p = comma != NULL ? comma + 1 : NULL;
    }
    /* Whatever the terms did, the result must be a profile the parser takes:
     * write it out and read it back. */
    char *text = gar_host_profile_text(&work, NULL);
    if (text == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for a what-if host", "exhausted");
    gar_host_profile check;
    gar_error why;
    int rc = gar_host_profile_parse(text, strlen(text), "what-if", &check, &why);
    gar_free(text);
    if (rc < 0) {
        char message[GAR_ERROR_ARG_BYTES];
        snprintf(message, sizeof message, "%s", why.argc >= 3 ? why.argv[2] : "invalid");
        return fault(err, file, line, terms, "the changed profile is invalid: %s", message);
    }
    *profile = work;
    return 0;
}

/* ---- writing a profile -------------------------------------------------- */

typedef struct text_out {
    char *buf;
    size_t len, cap;
    bool failed;
} text_out;

static void put(text_out *o, const char *fmt, ...)
{
    if (o->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->failed = true;
            return;
        }
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        size_t cap = o->cap * 2 + (size_t)n;
        char *bigger = gar_realloc(o->buf, cap);
        if (bigger == NULL) {
            o->failed = true;
            return;
        }
        o->buf = bigger;
        o->cap = cap;
    }
}

static void put_dist(text_out *o, const char *key, const char *lead, const gar_host_dist *d)
{
    if (d->count == 0)
        return;
    put(o, "%s%s%s", key, lead != NULL ? "@" : "", lead != NULL ? lead : "");
    for (unsigned i = 0; i < d->count; i++) {
        uint32_t whole = d->level[i] / 10000, frac = d->level[i] % 10000;
        char f[8] = "";
        if (frac != 0) {
            snprintf(f, sizeof f, ".%04u", (unsigned)frac);
            size_t n = strlen(f);
            while (n > 1 && f[n - 1] == '0') /* frac != 0: a digit stays */
                f[--n] = '\0';
        }
        put(o, " p%u%s=%llu", (unsigned)whole, f, (unsigned long long)d->value[i]);
    }
    put(o, "\n");
}

char *gar_host_profile_text(const gar_host_profile *p, const char *comment)
{
    text_out o = { gar_malloc(4096), 0, 4096, false };
    if (o.buf == NULL)
        return NULL;
    o.buf[0] = '\0';
    put(&o, "gar-host v1\n");
    if (comment != NULL)
        put(&o, "# %s\n", comment);
    put(&o, "query_ns %llu\nclock_ns %llu\nword_wait %s\n", (unsigned long long)p->query_ns,
        (unsigned long long)p->clock_ns, p->word_wait ? "yes" : "no");
    for (size_t i = 0; i < DIST_KEYS; i++) {
        const dist_key *dk = &dist_keys[i];
        put_dist(&o, dk->name, NULL, const_dist_at(p, dk->base));
        for (unsigned k = 0; dk->at >= 0 && k < GAR_HOST_LEADS; k++)
            put_dist(&o, dk->name, gar_host_lead_name(k),
                     const_dist_at(p, (size_t)dk->at + k * sizeof(gar_host_dist)));
    }
    if (o.failed) {
        gar_free(o.buf);
        return NULL;
    }
    return o.buf;
}
