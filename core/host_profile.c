/* core/host_profile.c — the gar-host v1 reader (gar/host_profile.h).
 *
 * The reader fills a local profile and copies it out only when the whole text
 * has parsed, so a refusal leaves the caller's profile untouched.  Like the
 * rest of core it has no stdio: a refusal's text is put together by hand
 * (fault_put). */
#include <gar/host_profile.h>

#include <stdarg.h>
#include <string.h>

#include "text.h"

#define HEADER_MAGIC "gar-host"
#define HEADER_VERSION "v1"
#define TOKENS_MAX (GAR_HOST_QUANTILES_MAX + 2) /* key, the points, one too many to notice */

typedef enum key_kind { KEY_NS, KEY_BOOL, KEY_DIST } key_kind;

typedef struct key_spec {
    const char *name;
    key_kind kind;
    size_t offset;         /* of the field in gar_host_profile */
    gar_dur_ns dist_floor; /* KEY_DIST: the least p0 allowed */
    bool optional;         /* may be left out (a dist then has count 0) */
    size_t at_offset;      /* > 0: the key also takes `@LEAD` variants, the array here */
} key_spec;

#define AT(field) offsetof(gar_host_profile, field)

/* Every key of the format, in one place: the reader and the check for
 * missing keys go by this table; the leads its `@LEAD` variants take are
 * gar_host_lead_name's. */
static const key_spec keys[] = {
    { "query_ns", KEY_NS, AT(query_ns), 0, false, 0 },
    { "clock_ns", KEY_NS, AT(clock_ns), 0, false, 0 },
    { "word_wait", KEY_BOOL, AT(word_wait), 0, false, 0 },
    { "sleep_overshoot_ns", KEY_DIST, AT(sleep_overshoot), 0, false, AT(sleep_overshoot_at) },
    { "block_wake_ns", KEY_DIST, AT(block_wake), 0, false, AT(block_wake_at) },
    { "park_wake_ns", KEY_DIST, AT(park_wake), 0, false, 0 },
    /* A zero-length poll turn would let a poll loop run forever in no time. */
    { "poll_period_ns", KEY_DIST, AT(poll_period), 1, false, 0 },
    { "store_visible_ns", KEY_DIST, AT(store_visible), 0, true, AT(store_visible_at) },
};
#define KEY_COUNT (sizeof keys / sizeof keys[0])

/* The levels every distribution must state, in ppm: p0, p50, p90, p99, p100. */
static const uint32_t required_levels[] = { 0, 500000, 900000, 990000, GAR_HOST_LEVEL_ONE };
#define REQUIRED_LEVELS (sizeof required_levels / sizeof required_levels[0])

typedef struct token {
    const char *text;
    size_t len;
} token;

/* A key as a line names it: a row of `keys`, and the lead of an `@LEAD`
 * variant (-1: the plain key). */
typedef struct key_ref {
    const key_spec *spec;
    int lead;
} key_ref;

typedef struct reader {
    const char *name;
    unsigned line;
    gar_error *err;
} reader;

/* Writes `level` (ppm) as a profile spells it after the p: "99", "99.9",
 * "0.0001" — whole percent, then the fraction without trailing zeros. */
static void put_level(gar__text_out *out, uint32_t level)
{
    gar__text_put_u64(out, level / 10000);
    uint32_t frac = level % 10000;
    if (frac == 0)
        return;
    char digits[5] = { '.' };
    size_t n = 1;
    for (uint32_t scale = 1000; frac != 0; scale /= 10) {
        digits[n++] = (char)('0' + frac / scale);
        frac %= scale;
    }
    gar__text_put(out, digits, n);
}

static void put_key(gar__text_out *out, key_ref key)
{
    gar__text_puts(out, key.spec->name);
    if (key.lead >= 0) {
        gar__text_puts(out, "@");
        gar__text_puts(out, gar_host_lead_name((unsigned)key.lead));
    }
}

/* Puts `fmt` with its arguments.  Each % takes one: %s a string, %t a
 * token (by value), %k a key_ref (by value), %u an unsigned, %U a uint64_t,
 * %L a level in ppm (as put_level writes it). */
static void fault_put(gar__text_out *out, const char *fmt, va_list ap)
{
    for (const char *p = fmt; *p != '\0'; p++) {
        if (*p != '%' || p[1] == '\0') {
            gar__text_put(out, p, 1);
            continue;
        }
        switch (*++p) {
        case 's':
            gar__text_puts(out, va_arg(ap, const char *));
            break;
        case 't': {
            token t = va_arg(ap, token);
            gar__text_put(out, t.text, t.len);
            break;
        }
        case 'k':
            put_key(out, va_arg(ap, key_ref));
            break;
        case 'u':
            gar__text_put_u64(out, va_arg(ap, unsigned));
            break;
        case 'U':
            gar__text_put_u64(out, va_arg(ap, uint64_t));
            break;
        case 'L':
            put_level(out, va_arg(ap, uint32_t));
            break;
        default:
            gar__text_put(out, p, 1);
            break;
        }
    }
}

/* The refusal: the profile's name, the line, and the fault (fault_put's
 * `fmt`, cut to what a record keeps). */
static int refuse(const reader *r, const char *fmt, ...)
{
    char fault[GAR_ERROR_ARG_BYTES];
    char line[GAR__U64_TEXT_BYTES];
    gar__text_out out = gar__text_out_make(fault, sizeof fault);
    va_list ap;
    va_start(ap, fmt);
    fault_put(&out, fmt, ap);
    va_end(ap);
    return gar_error_set(r->err, GAR_E_INVALID_HOST_PROFILE, 3, r->name,
                         gar__u64_text(r->line, line), fault);
}

static bool token_is(token t, const char *s)
{
    return t.len == strlen(s) && memcmp(t.text, s, t.len) == 0;
}

/* Whole decimal digits, no sign, no leading zero (but "0"), at most `max`. */
static bool parse_ns(const char *s, size_t len, gar_dur_ns max, gar_dur_ns *out)
{
    if (len == 0 || (len > 1 && s[0] == '0'))
        return false;
    gar_dur_ns v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (gar_dur_ns)(s[i] - '0');
        if (v > max)
            return false;
    }
    *out = v;
    return true;
}

/* A level "pN" or "pN.F" (up to four fraction digits), 0..100, in ppm. */
static bool parse_level(const char *s, size_t len, uint32_t *ppm)
{
    if (len < 2 || s[0] != 'p')
        return false;
    const char *dot = memchr(s, '.', len);
    size_t int_len = dot ? (size_t)(dot - s) - 1 : len - 1;
    gar_dur_ns whole;
    if (!parse_ns(s + 1, int_len, 100, &whole))
        return false;
    uint32_t frac = 0;
    if (dot != NULL) {
        size_t frac_len = len - (size_t)(dot - s) - 1;
        if (frac_len == 0 || frac_len > 4)
            return false;
        uint32_t scale = 1000;
        for (size_t i = 0; i < frac_len; i++, scale /= 10) {
            char c = dot[1 + i];
            if (c < '0' || c > '9')
                return false;
            frac += (uint32_t)(c - '0') * scale;
        }
        if (frac == 0 || dot[frac_len] == '0')
            return false; /* "p50.0" or "p99.90": one spelling per level */
    }
    uint32_t v = (uint32_t)whole * 10000 + frac;
    if (v > GAR_HOST_LEVEL_ONE)
        return false;
    *ppm = v;
    return true;
}

static int parse_dist(const reader *r, key_ref key, const token *tok, unsigned ntok,
                      gar_host_dist *out)
{
    unsigned points = ntok - 1;
    if (points > GAR_HOST_QUANTILES_MAX)
        return refuse(r, "%k: more than %u quantiles", key, (unsigned)GAR_HOST_QUANTILES_MAX);
    gar_host_dist d = { .count = points };
    for (unsigned i = 0; i < points; i++) {
        token t = tok[1 + i];
        const char *eq = memchr(t.text, '=', t.len);
        if (eq == NULL)
            return refuse(r, "%k: quantile %u '%t' is not pLEVEL=NS", key, i + 1, t);
        token level = { t.text, (size_t)(eq - t.text) };
        token value = { eq + 1, t.len - level.len - 1 };
        if (!parse_level(level.text, level.len, &d.level[i]))
            return refuse(r, "%k: bad level '%t' (p0..p100, up to 4 decimals)", key, level);
        if (!parse_ns(value.text, value.len, GAR_HOST_NS_MAX, &d.value[i]))
            return refuse(r, "%k: bad value '%t' (whole ns, 0..%U)", key, value,
                          (uint64_t)GAR_HOST_NS_MAX);
        if (i > 0 && d.level[i] <= d.level[i - 1])
            return refuse(r, "%k: levels must increase ('%t' after p%L)", key, level,
                          d.level[i - 1]);
        if (i > 0 && d.value[i] < d.value[i - 1])
            return refuse(r, "%k: values must not decrease (%t below the one before)", key, t);
    }
    unsigned found = 0;
    for (unsigned i = 0; i < points; i++)
        for (size_t k = 0; k < REQUIRED_LEVELS; k++)
            if (d.level[i] == required_levels[k])
                found |= 1u << k;
    for (size_t k = 0; k < REQUIRED_LEVELS; k++)
        if (!(found & (1u << k)))
            return refuse(r, "%k: missing p%L (p0, p50, p90, p99 and p100 are required)", key,
                          required_levels[k]);
    if (d.value[0] < key.spec->dist_floor)
        return refuse(r, "%k: p0 must be at least %U ns", key, (uint64_t)key.spec->dist_floor);
    *out = d;
    return 0;
}

static int parse_value(const reader *r, key_ref key, const token *tok, unsigned ntok,
                       gar_host_profile *p)
{
    char *field = (char *)p + key.spec->offset;
    if (key.lead >= 0)
        field = (char *)p + key.spec->at_offset + (size_t)key.lead * sizeof(gar_host_dist);
    switch (key.spec->kind) {
    case KEY_NS: {
        gar_dur_ns v;
        if (ntok != 2)
            return refuse(r, "%k takes one value (ns)", key);
        if (!parse_ns(tok[1].text, tok[1].len, GAR_HOST_NS_MAX, &v))
            return refuse(r, "%k: bad value '%t' (whole ns, 0..%U)", key, tok[1],
                          (uint64_t)GAR_HOST_NS_MAX);
        memcpy(field, &v, sizeof v);
        return 0;
    }
    case KEY_BOOL: {
        bool v;
        if (ntok != 2)
            return refuse(r, "%k takes one value (yes or no)", key);
        if (token_is(tok[1], "yes"))
            v = true;
        else if (token_is(tok[1], "no"))
            v = false;
        else
            return refuse(r, "%k: '%t' is neither yes nor no", key, tok[1]);
        memcpy(field, &v, sizeof v);
        return 0;
    }
    case KEY_DIST: {
        gar_host_dist d;
        if (ntok < 3)
            return refuse(r, "%k takes quantiles pLEVEL=NS (p0, p50, p90, p99, p100 at least)",
                          key);
        int rc = parse_dist(r, key, tok, ntok, &d);
        if (rc < 0)
            return rc;
        memcpy(field, &d, sizeof d);
        return 0;
    }
    }
    return refuse(r, "internal: unknown key kind");
}

/* The key `t` names: a row of `keys`, with the lead of an `@LEAD` variant
 * where the row takes them.  Returns false for no key of the format. */
static bool find_key(token t, key_ref *out)
{
    const char *at = memchr(t.text, '@', t.len);
    token base = { t.text, at != NULL ? (size_t)(at - t.text) : t.len };
    for (size_t k = 0; k < KEY_COUNT; k++) {
        if (!token_is(base, keys[k].name))
            continue;
        if (at == NULL) {
            *out = (key_ref){ &keys[k], -1 };
            return true;
        }
        if (keys[k].at_offset == 0)
            return false;
        token lead = { at + 1, t.len - base.len - 1 };
        for (unsigned l = 0; l < GAR_HOST_LEADS; l++)
            if (token_is(lead, gar_host_lead_name(l))) {
                *out = (key_ref){ &keys[k], (int)l };
                return true;
            }
        return false;
    }
    return false;
}

/* Splits one line (comment already cut) into blank-separated tokens.
 * Returns the count, at most TOKENS_MAX (more are not looked at). */
static unsigned split(const char *s, size_t len, token tok[TOKENS_MAX])
{
    unsigned n = 0;
    size_t i = 0;
    while (i < len && n < TOKENS_MAX) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == len)
            break;
        size_t start = i;
        while (i < len && s[i] != ' ' && s[i] != '\t')
            i++;
        tok[n++] = (token){ s + start, i - start };
    }
    return n;
}

int gar_host_profile_parse(const char *text, size_t len, const char *name, gar_host_profile *out,
                           gar_error *err)
{
    reader r = { name != NULL ? name : "host profile", 1, err };
    if (text == NULL && len > 0)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_host_profile_parse", "text",
                             "is NULL");
    if (out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_host_profile_parse", "out",
                             "is NULL");
    if (text == NULL)
        text = ""; /* no bytes: refused below as a missing header */

    gar_host_profile p;
    memset(&p, 0, sizeof p);
    /* The line each key (and each of its leads, slot 1 + lead) was given on. */
    unsigned seen_on[KEY_COUNT][1 + GAR_HOST_LEADS];
    memset(seen_on, 0, sizeof seen_on);
    bool header = false;
    size_t pos = 0;
    for (; pos < len || !header; r.line++) {
        const char *line = text + pos;
        const char *nl = pos < len ? memchr(line, '\n', len - pos) : NULL;
        size_t line_len = nl ? (size_t)(nl - line) : len - pos;
        pos += line_len + (nl ? 1 : 0);
        if (memchr(line, '\0', line_len) != NULL)
            return refuse(&r, "NUL byte in the text");
        if (line_len > 0 && line[line_len - 1] == '\r')
            line_len--;
        const char *hash = memchr(line, '#', line_len);
        token tok[TOKENS_MAX];
        unsigned ntok = split(line, hash ? (size_t)(hash - line) : line_len, tok);

        if (!header) {
            if (ntok < 2 || !token_is(tok[0], HEADER_MAGIC))
                return refuse(&r, "the first line must be '" HEADER_MAGIC " " HEADER_VERSION "'");
            if (!token_is(tok[1], HEADER_VERSION) || ntok != 2)
                return refuse(&r, "unsupported version '%t' (this reader knows " HEADER_VERSION
                              ")", tok[1]);
            header = true;
            continue;
        }
        if (ntok == 0)
            continue;
        key_ref key;
        if (!find_key(tok[0], &key))
            return refuse(&r, "unknown key '%t'", tok[0]);
        unsigned *seen = &seen_on[key.spec - keys][1 + key.lead];
        if (*seen != 0)
            return refuse(&r, "%k given twice (first on line %u)", key, *seen);
        *seen = r.line;
        int rc = parse_value(&r, key, tok, ntok, &p);
        if (rc < 0)
            return rc;
    }
    r.line--; /* the last line read */
    for (size_t k = 0; k < KEY_COUNT; k++)
        if (seen_on[k][0] == 0 && !keys[k].optional)
            return refuse(&r, "missing key %s", keys[k].name);
    *out = p;
    return 0;
}
