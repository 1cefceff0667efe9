/* experiments/sweep/sweep_ranges.c — brace groups in a sweep spec's values:
 * `{a,b}` lists and `{lo..hi..step}` ranges, expanded to every combination. */
#include "sweep/sweep_ranges.h"
#include "sim/trace/alloc.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sweep/sweep_spec.h" /* GAR_SWEEP_RUNS_MAX */

/* One brace group of a value. */
typedef struct brace_group {
    size_t open, close; /* offsets of '{' and '}' */
    bool range;
    uint64_t count;
    long long lo, step; /* a range's, scaled by 10^decimals */
    unsigned decimals;
    char name[GAR_SWEEP_PARAM_NAME_BYTES];
} brace_group;

__attribute__((format(printf, 5, 6))) static int
brace_fault(gar_error *err, const char *place, const char *keyword, const char *value,
            const char *fmt, ...)
{
    char why[GAR_ERROR_ARG_BYTES], fault[GAR_ERROR_ARG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(fault, sizeof fault, "'%.200s': %.280s", value, why);
    return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, place, keyword, fault);
}

/* The largest magnitude of a range's bounds and step, in units of its
 * last decimal place: a swept value times a million still fits a long
 * long.  Its text is what a refusal says. */
#define RANGE_UNITS_MAX (LLONG_MAX / 1000000)
#define RANGE_LIMIT_TEXT "(a range's bounds and step lie within -9223372036854..9223372036854, " \
                         "divided by 10 for each decimal place the range uses)"

/* What parse_range_number found. */
enum { RANGE_NUMBER, RANGE_NOT_NUMBER, RANGE_TOO_LONG };

/* "-D", "D.D": into an integer scaled by 10^decimals (its fraction's
 * digits).  RANGE_NOT_NUMBER when it is no such number, RANGE_TOO_LONG
 * when it is one of over 15 digits (beyond any range's limit). */
static int parse_range_number(const char *s, size_t len, long long *scaled, unsigned *decimals)
{
    size_t i = 0;
    bool negative = len > 0 && s[0] == '-';
    if (negative)
        i++;
    long long v = 0;
    unsigned digits = 0, frac = 0;
    bool dot = false;
    for (; i < len; i++) {
        if (s[i] == '.' && !dot && digits > 0) {
            dot = true;
            continue;
        }
        if (s[i] < '0' || s[i] > '9')
            return RANGE_NOT_NUMBER;
        if (++digits <= 15)
            v = v * 10 + (s[i] - '0');
        frac += dot;
    }
    if (digits == 0 || (dot && frac == 0))
        return RANGE_NOT_NUMBER;
    if (digits > 15)
        return RANGE_TOO_LONG;
    *scaled = negative ? -v : v;
    *decimals = frac;
    return RANGE_NUMBER;
}

static long long power10(unsigned n)
{
    long long p = 1;
    while (n-- > 0)
        p *= 10;
    return p;
}

/* A range's content "lo..hi[..step]" into `g`. */
static int parse_range(brace_group *g, const char *content, size_t len, const char *place,
                       const char *keyword, const char *value, gar_error *err)
{
    const char *part[3];
    size_t part_len[3], parts = 0;
    const char *p = content, *end = content + len;
    while (parts < 3) {
        const char *dots = NULL;
        for (const char *q = p; q + 1 < end; q++)
            if (q[0] == '.' && q[1] == '.') {
                dots = q;
                break;
            }
        part[parts] = p;
        part_len[parts] = dots != NULL ? (size_t)(dots - p) : (size_t)(end - p);
        parts++;
        if (dots == NULL)
            break;
        p = dots + 2;
        if (parts == 3)
            return brace_fault(err, place, keyword, value,
                               "range has more than lo..hi..step%s", "");
    }
    long long v[3] = { 0, 0, 1 };
    unsigned d[3] = { 0, 0, 0 };
    char text[3][64] = { "", "", "1" };
    for (size_t i = 0; i < parts; i++) {
        snprintf(text[i], sizeof text[i], "%.*s", (int)(part_len[i] < 60 ? part_len[i] : 60),
                 part[i]);
        int found = parse_range_number(part[i], part_len[i], &v[i], &d[i]);
        if (found == RANGE_NOT_NUMBER)
            return brace_fault(err, place, keyword, value,
                               "range bound or step '%s' is not a number (a range is "
                               "{lo..hi..step} of decimal numbers)",
                               text[i]);
        if (found == RANGE_TOO_LONG)
            return brace_fault(err, place, keyword, value,
                               "range bound or step '%s' is too large " RANGE_LIMIT_TEXT, text[i]);
    }
    if (parts < 2)
        return brace_fault(err, place, keyword, value, "range needs lo..hi%s", "");
    unsigned decimals = d[0] > d[1] ? d[0] : d[1];
    decimals = decimals > d[2] ? decimals : d[2];
    for (size_t i = 0; i < 3; i++) {
        long long scale = power10(decimals - d[i]);
        if (v[i] > RANGE_UNITS_MAX / scale || v[i] < -(RANGE_UNITS_MAX / scale))
            return brace_fault(err, place, keyword, value,
                               "range bound or step '%s' is too large " RANGE_LIMIT_TEXT, text[i]);
        v[i] *= scale;
    }
    if (v[2] <= 0)
        return brace_fault(err, place, keyword, value,
                           v[2] == 0 ? "range has a step of 0%s (it would never end)"
                                     : "range has a step below 0%s (lo..hi counts upwards)",
                           "");
    if (v[0] > v[1])
        return brace_fault(err, place, keyword, value,
                           "range is empty: lo is above hi%s (write {lo..hi..step} with lo <= hi)",
                           "");
    g->range = true;
    g->lo = v[0];
    g->step = v[2];
    g->decimals = decimals;
    g->count = (uint64_t)((v[1] - v[0]) / v[2]) + 1;
    return 0;
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The group's name: the key before "={" or "*{" (with "*" kept, and a
 * what-if host's "KEY@LEAD"), else the keyword. */
static void name_group(brace_group *g, const char *value, const char *keyword)
{
    size_t j = g->open;
    char op = j > 0 ? value[j - 1] : '\0';
    size_t k = j > 0 ? j - 1 : 0;
    if (op == '=' || op == '*') {
        while (k > 0 && is_name_char(value[k - 1]))
            k--;
        /* KEY@LEAD: the lead starts with a digit, the key before it. */
        if (k > 1 && value[k - 1] == '@' && value[k] >= '0' && value[k] <= '9' &&
            is_name_char(value[k - 2])) {
            size_t m = k - 1;
            while (m > 0 && is_name_char(value[m - 1]))
                m--;
            k = m;
        }
    }
    size_t len = j > 0 ? j - 1 - k : 0;
    if ((op != '=' && op != '*') || len == 0 || len + 2 > sizeof g->name)
        snprintf(g->name, sizeof g->name, "%s", keyword);
    else
        snprintf(g->name, sizeof g->name, "%.*s%s", (int)len, value + k, op == '*' ? "*" : "");
}

/* Finds and checks every brace group of `value`. */
static int scan_groups(const char *value, const char *keyword, const char *place,
                       brace_group *groups, size_t *count, uint64_t *total, gar_error *err)
{
    size_t n = 0;
    bool open = false;
    *total = 1;
    for (size_t i = 0; value[i] != '\0'; i++) {
        if (value[i] == '{') {
            if (open)
                return brace_fault(err, place, keyword, value,
                                   "has a '{' inside braces%s (groups do not nest)", "");
            if (n == GAR_SWEEP_PARAMS_MAX)
                return brace_fault(err, place, keyword, value,
                                   "has more than 8 brace groups%s", "");
            memset(&groups[n], 0, sizeof groups[n]);
            groups[n].open = i;
            open = true;
        } else if (value[i] == '}') {
            if (!open)
                return brace_fault(err, place, keyword, value, "has a '}' without its '{'%s",
                                   "");
            groups[n].close = i;
            open = false;
            n++;
        }
    }
    if (open)
        return brace_fault(err, place, keyword, value, "has a '{' without its '}'%s", "");
    for (size_t i = 0; i < n; i++) {
        brace_group *g = &groups[i];
        const char *content = value + g->open + 1;
        size_t len = g->close - g->open - 1;
        if (len == 0)
            return brace_fault(err, place, keyword, value, "has an empty range '{}'%s", "");
        /* "lo..hi..step" is a range; with a comma it is a list, whose items
         * may hold ".." (relative paths). */
        bool dots = false, comma = memchr(content, ',', len) != NULL;
        for (size_t k = 0; k + 1 < len; k++)
            dots |= content[k] == '.' && content[k + 1] == '.';
        if (dots && !comma) {
            int rc = parse_range(g, content, len, place, keyword, value, err);
            if (rc < 0)
                return rc;
        } else {
            g->count = 1;
            size_t item = 0;
            for (size_t k = 0; k <= len; k++) {
                if (k < len && content[k] != ',') {
                    item++;
                    continue;
                }
                if (item == 0)
                    return brace_fault(err, place, keyword, value,
                                       "has an empty item in a list%s", "");
                if (item >= GAR_SWEEP_PARAM_VALUE_BYTES)
                    return brace_fault(err, place, keyword, value,
                                       "has a list item over 47 characters%s", "");
                if (k < len)
                    g->count++;
                item = 0;
            }
        }
        name_group(g, value, keyword);
        /* A name twice in one value (two bands' park_us) is told apart. */
        unsigned same = 1;
        for (size_t k = 0; k < i; k++)
            same += strncmp(groups[k].name, g->name, strlen(g->name)) == 0 &&
                    (groups[k].name[strlen(g->name)] == '\0' ||
                     groups[k].name[strlen(g->name)] == '_');
        if (same > 1) {
            char base[GAR_SWEEP_PARAM_NAME_BYTES];
            snprintf(base, sizeof base, "%s", g->name);
            snprintf(g->name, sizeof g->name, "%.36s_%u", base, same % 1000u);
        }
        *total = *total > (GAR_SWEEP_RUNS_MAX + 1) / g->count ? GAR_SWEEP_RUNS_MAX + 1
                                                               : *total * g->count;
    }
    *count = n;
    return 0;
}

/* A range's item k as text, in its shortest form. */
static void range_item(const brace_group *g, uint64_t k, char *out, size_t size)
{
    long long v = g->lo + (long long)k * g->step;
    unsigned long long a = v < 0 ? (unsigned long long)-v : (unsigned long long)v;
    unsigned long long p = (unsigned long long)power10(g->decimals);
    if (g->decimals == 0) {
        snprintf(out, size, "%lld", v);
        return;
    }
    snprintf(out, size, "%s%llu.%0*llu", v < 0 ? "-" : "", a / p, (int)g->decimals, a % p);
    size_t n = strlen(out);
    while (out[n - 1] == '0')
        out[--n] = '\0';
    if (out[n - 1] == '.')
        out[--n] = '\0';
}

/* A list's item starting at `p` (up to the next ',' or '}') as text. */
static void list_item(const char *p, char *out, size_t size)
{
    size_t len = strcspn(p, ",}");
    snprintf(out, size, "%.*s", (int)len, p);
}

int gar_sweep_expand(const char *value, const char *keyword, const char *place,
                     gar_sweep_expand_fn each, void *context, uint64_t *count, gar_error *err)
{
    brace_group groups[GAR_SWEEP_PARAMS_MAX];
    size_t n = 0;
    uint64_t total = 1;
    int rc = scan_groups(value, keyword, place, groups, &n, &total, err);
    if (rc < 0)
        return rc;
    if (count != NULL) {
        *count = total;
        return 0;
    }
    gar_sweep_params params;
    memset(&params, 0, sizeof params);
    if (n == 0)
        return each(value, &params, context);
    size_t len = strlen(value);
    char *text = gar_malloc(len + n * 64 + 1);
    if (text == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep spec", "exhausted");
    params.count = (unsigned)n;
    /* An odometer over the groups, the last turning fastest: each step moves
     * one digit on (a list's to its next item, found from the one before),
     * so a list of k items costs k steps, not k^2 / 2. */
    uint64_t digit[GAR_SWEEP_PARAMS_MAX];
    const char *item[GAR_SWEEP_PARAMS_MAX]; /* a list's current item */
    for (size_t i = 0; i < n; i++) {
        snprintf(params.param[i].name, sizeof params.param[i].name, "%s", groups[i].name);
        digit[i] = 0;
        item[i] = value + groups[i].open + 1;
        if (groups[i].range)
            range_item(&groups[i], 0, params.param[i].value, sizeof params.param[i].value);
        else
            list_item(item[i], params.param[i].value, sizeof params.param[i].value);
    }
    rc = 0;
    for (uint64_t index = 0; rc == 0 && index < total; index++) {
        if (index > 0) {
            size_t i = n;
            while (i-- > 0) {
                brace_group *g = &groups[i];
                bool wrapped = ++digit[i] == g->count;
                if (wrapped)
                    digit[i] = 0;
                if (g->range) {
                    range_item(g, digit[i], params.param[i].value, sizeof params.param[i].value);
                } else {
                    item[i] = wrapped ? value + g->open + 1 : strchr(item[i], ',') + 1;
                    list_item(item[i], params.param[i].value, sizeof params.param[i].value);
                }
                if (!wrapped)
                    break;
            }
        }
        size_t at = 0, from = 0;
        for (size_t i = 0; i < n; i++) {
            memcpy(text + at, value + from, groups[i].open - from);
            at += groups[i].open - from;
            size_t item_len = strlen(params.param[i].value);
            memcpy(text + at, params.param[i].value, item_len);
            at += item_len;
            from = groups[i].close + 1;
        }
        memcpy(text + at, value + from, len - from);
        text[at + len - from] = '\0';
        rc = each(text, &params, context);
    }
    gar_free(text);
    return rc;
}

/* ---- counting expansions that hold a text ------------------------------- */

#define NEEDLE_MAX 15
#define COUNT_CAP (GAR_SWEEP_RUNS_MAX + 1)

static uint64_t capped_add(uint64_t a, uint64_t b)
{
    return a >= COUNT_CAP - b || b >= COUNT_CAP ? COUNT_CAP : a + b;
}

static uint64_t capped_mul(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a >= COUNT_CAP || b >= COUNT_CAP || a > COUNT_CAP / b ? COUNT_CAP : a * b;
}

/* The matcher of `needle`: from state s (the needle's first s bytes just
 * seen) and byte c, the next state; state `len` (seen) stays. */
typedef struct needle_matcher {
    size_t len;
    unsigned char next[NEEDLE_MAX + 1][256];
} needle_matcher;

static void matcher_init(needle_matcher *m, const char *needle)
{
    m->len = strlen(needle);
    char seen[NEEDLE_MAX + 2];
    for (size_t s = 0; s <= m->len; s++)
        for (unsigned c = 0; c < 256; c++) {
            if (s == m->len) {
                m->next[s][c] = (unsigned char)s;
                continue;
            }
            memcpy(seen, needle, s);
            seen[s] = (char)c;
            size_t k = s + 1; /* the longest end of `seen` that starts the needle */
            while (k > 0 && memcmp(seen + s + 1 - k, needle, k) != 0)
                k--;
            m->next[s][c] = (unsigned char)k;
        }
}

/* counts[t] over states after `len` fixed bytes at `p`. */
static void match_fixed(const needle_matcher *m, const char *p, size_t len, uint64_t *counts)
{
    for (size_t i = 0; i < len; i++) {
        uint64_t after[NEEDLE_MAX + 1] = { 0 };
        for (size_t s = 0; s <= m->len; s++)
            after[m->next[s][(unsigned char)p[i]]] =
                capped_add(after[m->next[s][(unsigned char)p[i]]], counts[s]);
        memcpy(counts, after, sizeof after);
    }
}

/* counts over states after one brace group: each item moves each state. */
static void match_group(const needle_matcher *m, const brace_group *g, const char *value,
                        uint64_t *counts)
{
    uint64_t after[NEEDLE_MAX + 1] = { 0 };
    if (g->range) {
        /* A range's items are numbers, and the needle holds no digit, '-'
         * or '.': every item ends any partial match. */
        for (size_t s = 0; s < m->len; s++)
            after[0] = capped_add(after[0], capped_mul(counts[s], g->count));
        after[m->len] = capped_mul(counts[m->len], g->count);
    } else {
        const char *item = value + g->open + 1;
        for (uint64_t k = 0; k < g->count; k++) {
            size_t len = strcspn(item, ",}");
            for (size_t s = 0; s <= m->len; s++) {
                size_t state = s;
                for (size_t i = 0; i < len; i++)
                    state = m->next[state][(unsigned char)item[i]];
                after[state] = capped_add(after[state], counts[s]);
            }
            item += len + 1;
        }
    }
    memcpy(counts, after, sizeof after);
}

int gar_sweep_count_holding(const char *value, const char *keyword, const char *place,
                            const char *needle, uint64_t *holding, gar_error *err)
{
    brace_group groups[GAR_SWEEP_PARAMS_MAX];
    size_t n = 0;
    uint64_t total = 1;
    int rc = scan_groups(value, keyword, place, groups, &n, &total, err);
    if (rc < 0)
        return rc;
    size_t needle_len = strlen(needle);
    if (needle_len == 0 || needle_len > NEEDLE_MAX || strpbrk(needle, "0123456789-.") != NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_sweep_count_holding", needle,
                             "is empty, too long, or holds a digit, '-' or '.'");
    needle_matcher *m = gar_malloc(sizeof *m);
    if (m == NULL)
        return gar_error_set(err, GAR_E_CAPACITY, 2, "memory for the sweep spec", "exhausted");
    matcher_init(m, needle);
    uint64_t counts[NEEDLE_MAX + 1] = { 1 };
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        match_fixed(m, value + from, groups[i].open - from, counts);
        match_group(m, &groups[i], value, counts);
        from = groups[i].close + 1;
    }
    match_fixed(m, value + from, strlen(value) - from, counts);
    *holding = counts[m->len];
    gar_free(m);
    return 0;
}

int gar_sweep_groups(const char *value, const char *keyword, const char *place,
                     gar_sweep_group *out, size_t *count, gar_error *err)
{
    brace_group groups[GAR_SWEEP_PARAMS_MAX];
    uint64_t total = 0;
    int rc = scan_groups(value, keyword, place, groups, count, &total, err);
    for (size_t i = 0; rc == 0 && i < *count; i++) {
        snprintf(out[i].name, sizeof out[i].name, "%s", groups[i].name);
        out[i].values = groups[i].count;
    }
    return rc;
}
