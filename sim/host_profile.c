/* sim/host_profile.c — the gar-host v1 reader and quantile sampling.
 *
 * The reader fills a local profile and copies it out only when the whole text
 * has parsed, so a refusal leaves the caller's profile untouched. */
#define _POSIX_C_SOURCE 200809L
#include "sim/host_profile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_MAGIC "gar-host"
#define HEADER_VERSION "v1"
#define TOKENS_MAX (GAR_HOST_QUANTILES_MAX + 2) /* key, the points, one too many to notice */
#define FILE_BYTES_MAX (1u << 20)               /* a profile is a few hundred bytes */

typedef enum key_kind { KEY_NS, KEY_BOOL, KEY_DIST } key_kind;

typedef struct key_spec {
    const char *name;
    key_kind kind;
    size_t offset; /* of the field in gar_host_profile */
    gar_dur_ns dist_floor; /* KEY_DIST: the least p0 allowed */
    bool optional; /* may be left out (a dist then has count 0) */
} key_spec;

#define AT_LEAD(key, field, k)                                                                \
    { key "@" LEAD_NAME_##k, KEY_DIST, offsetof(gar_host_profile, field) + (k) * sizeof(gar_host_dist), \
      0, true }
#define LEAD_NAME_0 "100us"
#define LEAD_NAME_1 "300us"
#define LEAD_NAME_2 "1ms"
#define LEAD_NAME_3 "3ms"
#define LEAD_NAME_4 "10ms"

/* Every key of the format, in one place: the reader, the checks for
 * missing keys and anything that walks a profile's keys go by this table. */
static const key_spec keys[] = {
    { "query_ns", KEY_NS, offsetof(gar_host_profile, query_ns), 0, false },
    { "clock_ns", KEY_NS, offsetof(gar_host_profile, clock_ns), 0, false },
    { "word_wait", KEY_BOOL, offsetof(gar_host_profile, word_wait), 0, false },
    { "sleep_overshoot_ns", KEY_DIST, offsetof(gar_host_profile, sleep_overshoot), 0, false },
    { "block_wake_ns", KEY_DIST, offsetof(gar_host_profile, block_wake), 0, false },
    { "park_wake_ns", KEY_DIST, offsetof(gar_host_profile, park_wake), 0, false },
    /* A zero-length poll turn would let a poll loop run forever in no time. */
    { "poll_period_ns", KEY_DIST, offsetof(gar_host_profile, poll_period), 1, false },
    { "store_visible_ns", KEY_DIST, offsetof(gar_host_profile, store_visible), 0, true },
    AT_LEAD("store_visible_ns", store_visible_at, 0),
    AT_LEAD("store_visible_ns", store_visible_at, 1),
    AT_LEAD("store_visible_ns", store_visible_at, 2),
    AT_LEAD("store_visible_ns", store_visible_at, 3),
    AT_LEAD("store_visible_ns", store_visible_at, 4),
    AT_LEAD("sleep_overshoot_ns", sleep_overshoot_at, 0),
    AT_LEAD("sleep_overshoot_ns", sleep_overshoot_at, 1),
    AT_LEAD("sleep_overshoot_ns", sleep_overshoot_at, 2),
    AT_LEAD("sleep_overshoot_ns", sleep_overshoot_at, 3),
    AT_LEAD("sleep_overshoot_ns", sleep_overshoot_at, 4),
    AT_LEAD("block_wake_ns", block_wake_at, 0),
    AT_LEAD("block_wake_ns", block_wake_at, 1),
    AT_LEAD("block_wake_ns", block_wake_at, 2),
    AT_LEAD("block_wake_ns", block_wake_at, 3),
    AT_LEAD("block_wake_ns", block_wake_at, 4),
};
#define KEY_COUNT (sizeof keys / sizeof keys[0])

/* The levels every distribution must state, in ppm: p0, p50, p90, p99, p100. */
static const uint32_t required_levels[] = { 0, 500000, 900000, 990000, GAR_HOST_LEVEL_ONE };

typedef struct token {
    const char *text;
    size_t len;
} token;

typedef struct reader {
    const char *name;
    unsigned line;
    gar_error *err;
} reader;

static int refuse(const reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int refuse(const reader *r, const char *fmt, ...)
{
    char fault[GAR_ERROR_ARG_BYTES];
    char line[24];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fault, sizeof fault, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%u", r->line);
    return gar_error_set(r->err, GAR_E_INVALID_HOST_PROFILE, 3, r->name, line, fault);
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

static int parse_dist(const reader *r, const key_spec *key, const token *tok, unsigned ntok,
                      gar_host_dist *out)
{
    unsigned points = ntok - 1;
    if (points > GAR_HOST_QUANTILES_MAX)
        return refuse(r, "%s: more than %u quantiles", key->name, GAR_HOST_QUANTILES_MAX);
    gar_host_dist d = { .count = points };
    for (unsigned i = 0; i < points; i++) {
        token t = tok[1 + i];
        const char *eq = memchr(t.text, '=', t.len);
        if (eq == NULL)
            return refuse(r, "%s: quantile %u '%.*s' is not pLEVEL=NS", key->name, i + 1,
                          (int)t.len, t.text);
        size_t level_len = (size_t)(eq - t.text);
        if (!parse_level(t.text, level_len, &d.level[i]))
            return refuse(r, "%s: bad level '%.*s' (p0..p100, up to 4 decimals)", key->name,
                          (int)level_len, t.text);
        if (!parse_ns(eq + 1, t.len - level_len - 1, GAR_HOST_NS_MAX, &d.value[i]))
            return refuse(r, "%s: bad value '%.*s' (whole ns, 0..%llu)", key->name,
                          (int)(t.len - level_len - 1), eq + 1,
                          (unsigned long long)GAR_HOST_NS_MAX);
        if (i > 0 && d.level[i] <= d.level[i - 1])
            return refuse(r, "%s: levels must increase ('%.*s' after p%g)", key->name,
                          (int)level_len, t.text, d.level[i - 1] / 10000.0);
        if (i > 0 && d.value[i] < d.value[i - 1])
            return refuse(r, "%s: values must not decrease (%.*s below the one before)",
                          key->name, (int)t.len, t.text);
    }
    unsigned found = 0;
    for (unsigned i = 0; i < points; i++)
        for (size_t k = 0; k < sizeof required_levels / sizeof required_levels[0]; k++)
            if (d.level[i] == required_levels[k])
                found |= 1u << k;
    for (size_t k = 0; k < sizeof required_levels / sizeof required_levels[0]; k++)
        if (!(found & (1u << k)))
            return refuse(r, "%s: missing p%g (p0, p50, p90, p99 and p100 are required)",
                          key->name, required_levels[k] / 10000.0);
    if (d.value[0] < key->dist_floor)
        return refuse(r, "%s: p0 must be at least %llu ns", key->name,
                      (unsigned long long)key->dist_floor);
    *out = d;
    return 0;
}

static int parse_value(const reader *r, const key_spec *key, const token *tok, unsigned ntok,
                       gar_host_profile *p)
{
    char *field = (char *)p + key->offset;
    switch (key->kind) {
    case KEY_NS: {
        gar_dur_ns v;
        if (ntok != 2)
            return refuse(r, "%s takes one value (ns)", key->name);
        if (!parse_ns(tok[1].text, tok[1].len, GAR_HOST_NS_MAX, &v))
            return refuse(r, "%s: bad value '%.*s' (whole ns, 0..%llu)", key->name,
                          (int)tok[1].len, tok[1].text, (unsigned long long)GAR_HOST_NS_MAX);
        memcpy(field, &v, sizeof v);
        return 0;
    }
    case KEY_BOOL: {
        bool v;
        if (ntok != 2)
            return refuse(r, "%s takes one value (yes or no)", key->name);
        if (token_is(tok[1], "yes"))
            v = true;
        else if (token_is(tok[1], "no"))
            v = false;
        else
            return refuse(r, "%s: '%.*s' is neither yes nor no", key->name, (int)tok[1].len,
                          tok[1].text);
        memcpy(field, &v, sizeof v);
        return 0;
    }
    case KEY_DIST: {
        gar_host_dist d;
        if (ntok < 3)
            return refuse(r, "%s takes quantiles pLEVEL=NS (p0, p50, p90, p99, p100 at least)",
                          key->name);
        int rc = parse_dist(r, key, tok, ntok, &d);
        if (rc < 0)
            return rc;
        memcpy(field, &d, sizeof d);
        return 0;
    }
    }
    return refuse(r, "internal: unknown key kind");
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
    unsigned seen_on[KEY_COUNT] = { 0 };
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
                return refuse(&r, "unsupported version '%.*s' (this reader knows " HEADER_VERSION
                              ")", (int)tok[1].len, tok[1].text);
            header = true;
            continue;
        }
        if (ntok == 0)
            continue;
        size_t k = 0;
        while (k < KEY_COUNT && !token_is(tok[0], keys[k].name))
            k++;
        if (k == KEY_COUNT)
            return refuse(&r, "unknown key '%.*s'", (int)tok[0].len, tok[0].text);
        if (seen_on[k] != 0)
            return refuse(&r, "%s given twice (first on line %u)", keys[k].name, seen_on[k]);
        seen_on[k] = r.line;
        int rc = parse_value(&r, &keys[k], tok, ntok, &p);
        if (rc < 0)
            return rc;
    }
    r.line--; /* the last line read */
    for (size_t k = 0; k < KEY_COUNT; k++)
        if (seen_on[k] == 0 && !keys[k].optional)
            return refuse(&r, "missing key %s", keys[k].name);
    *out = p;
    return 0;
}

int gar_host_profile_read_text(const char *path, char **text, size_t *len, gar_error *err)
{
    if (path == NULL || text == NULL || len == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_host_profile_read_text",
                             path == NULL ? "path" : text == NULL ? "text" : "len", "is NULL");
    /* "-" is standard input, as for traces and sweep specs: a profile made
     * on the fly (`gar calibrate | gar replay ... --host -`) needs no file. */
    bool from_stdin = strcmp(path, "-") == 0;
    if (from_stdin)
        path = "standard input";
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (f == NULL)
        return gar_error_set(err, GAR_E_IO, 3, path, "open", strerror(errno));
    char *buf = malloc(FILE_BYTES_MAX + 1);
    if (buf == NULL) {
        if (!from_stdin)
            fclose(f);
        return gar_error_set(err, GAR_E_IO, 3, path, "read", "out of memory");
    }
    errno = 0;
    size_t n = fread(buf, 1, FILE_BYTES_MAX + 1, f);
    int read_failed = ferror(f) ? (errno != 0 ? errno : EIO) : 0; /* EISDIR: a folder */
    if (!from_stdin)
        fclose(f);
    int rc = 0;
    if (read_failed)
        rc = gar_error_set(err, GAR_E_IO, 3, path, "read", strerror(read_failed));
    else if (n > FILE_BYTES_MAX)
        rc = gar_error_set(err, GAR_E_INVALID_HOST_PROFILE, 3, path, "1",
                           "larger than 1 MiB: not a host profile");
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

int gar_host_profile_load(const char *path, gar_host_profile *out, gar_error *err)
{
    if (path == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_host_profile_load",
                             path == NULL ? "path" : "out", "is NULL");
    char *text;
    size_t len;
    int rc = gar_host_profile_read_text(path, &text, &len, err);
    if (rc < 0)
        return rc;
    rc = gar_host_profile_parse(text, len, strcmp(path, "-") == 0 ? "standard input" : path, out,
                                err);
    free(text);
    return rc;
}

/* One segment of the sampler: values uniform on the integers a .. b - 1. */
static double segment_mean(const gar_host_dist *dist, unsigned i)
{
    double a = (double)dist->value[i], w = (double)(dist->value[i + 1] - dist->value[i]);
    return w > 0 ? a + (w - 1) / 2 : a;
}

static double segment_variance(const gar_host_dist *dist, unsigned i)
{
    double w = (double)(dist->value[i + 1] - dist->value[i]);
    return w > 0 ? (w * w - 1) / 12 : 0;
}

void gar_host_dist_moments_below(const gar_host_dist *dist, unsigned to, double *mean,
                                 double *variance)
{
    /* Two passes (the mean, then the spread about it), weights in whole ppm,
     * so a constant comes out exact: its mean the value, its variance 0. */
    double weight = 0, m = 0, v = 0;
    for (unsigned i = 0; i < to; i++) {
        double w = (double)(dist->level[i + 1] - dist->level[i]);
        weight += w;
        m += w * segment_mean(dist, i);
    }
    m /= weight;
    for (unsigned i = 0; i < to; i++) {
        double d = segment_mean(dist, i) - m;
        v += (double)(dist->level[i + 1] - dist->level[i]) * (segment_variance(dist, i) + d * d);
    }
    *mean = m;
    *variance = v / weight;
}

void gar_host_dist_moments(const gar_host_dist *dist, double *mean, double *variance)
{
    gar_host_dist_moments_below(dist, dist->count - 1, mean, variance);
}

static const gar_dur_ns lead_ns[GAR_HOST_LEADS] = {
    100 * GAR_NS_PER_US, 300 * GAR_NS_PER_US, 1 * GAR_NS_PER_MS, 3 * GAR_NS_PER_MS,
    10 * GAR_NS_PER_MS,
};
static const char *const lead_names[GAR_HOST_LEADS] = {
    LEAD_NAME_0, LEAD_NAME_1, LEAD_NAME_2, LEAD_NAME_3, LEAD_NAME_4,
};

gar_dur_ns gar_host_lead_ns(unsigned k)
{
    return k < GAR_HOST_LEADS ? lead_ns[k] : 0;
}

const char *gar_host_lead_name(unsigned k)
{
    return k < GAR_HOST_LEADS ? lead_names[k] : NULL;
}

const gar_host_dist *gar_host_dist_for_lead(const gar_host_dist *base,
                                            const gar_host_dist at[GAR_HOST_LEADS],
                                            gar_dur_ns lead)
{
    /* Nearest in ratio between stated leads a < b: b when lead/a >= b/lead,
     * i.e. lead^2 >= a*b.  Leads above 1 s are all far past 10 ms: capping
     * them keeps the square in 64 bits. */
    const gar_dur_ns cap = GAR_NS_PER_S;
    uint64_t l = lead < cap ? lead : cap;
    int chosen = -1;
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        if (at[k].count == 0)
            continue;
        if (chosen < 0 || l * l >= lead_ns[chosen] * lead_ns[k])
            chosen = (int)k;
    }
    return chosen < 0 ? base : &at[chosen];
}

gar_dur_ns gar_host_lead_sample(const gar_host_dist *base, const gar_host_dist at[GAR_HOST_LEADS],
                                gar_dur_ns lead, uint64_t draw)
{
    int below = -1, above = -1; /* the stated leads around `lead` */
    for (unsigned k = 0; k < GAR_HOST_LEADS; k++) {
        if (at[k].count == 0)
            continue;
        if (lead_ns[k] <= lead)
            below = (int)k;
        else if (above < 0)
            above = (int)k;
    }
    if (below < 0 && above < 0)
        return gar_host_dist_sample(base, draw);
    if (below < 0 || above < 0)
        return gar_host_dist_sample(&at[below < 0 ? above : below], draw);
    gar_dur_ns a = lead_ns[below], b = lead_ns[above];
    /* (lead - a) < (b - a) <= 10 ms < 2^24: shifted, it fits in 64 bits. */
    uint64_t w = ((uint64_t)(lead - a) << 32) / (b - a);
    return gar_host_lead_mix(gar_host_dist_sample(&at[below], draw),
                             gar_host_dist_sample(&at[above], draw), w);
}

gar_dur_ns gar_host_dist_median(const gar_host_dist *dist)
{
    return gar_host_dist_sample(dist, UINT64_C(1) << 63);
}
