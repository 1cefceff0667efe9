/* core/estimator_family.c — the estimator families, their text, their rule.
 *
 * adl delegates to the per-point estimator of gar/estimator.h, so the
 * testbed's default is the very code real drivers use. */
#include <gar/estimator_family.h>

#include <assert.h>
#include <string.h>

#include "family_rule.h"
#include "nearest_rank.h"
#include "text.h"

#define ALPHA_DEFAULT UINT32_C(250000)    /* ewma: 0.25 */
#define QUANTILE_DEFAULT UINT32_C(100000) /* quantile: 0.1 */

typedef struct family_entry {
    const char *name;
    const char *key; /* the one key it takes, or NULL */
} family_entry;

static const family_entry families[] = {
    [GAR_ESTIMATOR_ADL] = { "adl", NULL },
    [GAR_ESTIMATOR_NONE] = { "none", NULL },
    [GAR_ESTIMATOR_ORACLE] = { "oracle", NULL },
    [GAR_ESTIMATOR_HALF_MIN] = { "half-min", NULL },
    [GAR_ESTIMATOR_HALF_MEAN] = { "half-mean", NULL },
    [GAR_ESTIMATOR_EWMA] = { "ewma", "alpha" },
    [GAR_ESTIMATOR_QUANTILE] = { "quantile", "q" },
};
#define FAMILY_COUNT (sizeof families / sizeof families[0])
#define ACCEPTED "adl, none, oracle, half-min, half-mean, ewma[:alpha=A], quantile[:q=Q]"

gar_estimator_spec gar_estimator_spec_default(void)
{
    return (gar_estimator_spec){ GAR_ESTIMATOR_ADL, ALPHA_DEFAULT, QUANTILE_DEFAULT };
}

static int refuse(const char *text, const char *fault, gar_error *err)
{
    return gar_error_set(err, GAR_E_INVALID_ESTIMATOR, 2, text, fault);
}

/* "0", "1", "0.25", "0.000001": at most 1, six fraction digits, in millionths. */
static bool parse_fraction(const char *s, size_t len, uint32_t *out)
{
    if (len == 0 || s[0] < '0' || s[0] > '1')
        return false;
    uint32_t v = (uint32_t)(s[0] - '0') * GAR_FRACTION_ONE;
    if (len > 1) {
        if (s[1] != '.' || len == 2 || len > 8)
            return false;
        uint32_t scale = GAR_FRACTION_ONE / 10;
        for (size_t i = 2; i < len; i++, scale /= 10) {
            if (s[i] < '0' || s[i] > '9')
                return false;
            v += (uint32_t)(s[i] - '0') * scale;
        }
    }
    if (v > GAR_FRACTION_ONE)
        return false;
    *out = v;
    return true;
}

int gar_estimator_spec_parse(const char *text, gar_estimator_spec *out, gar_error *err)
{
    if (text == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_estimator_spec_parse",
                             text == NULL ? "text" : "out", "is NULL");
    const char *colon = strchr(text, ':');
    size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
    size_t f = 0;
    while (f < FAMILY_COUNT &&
           !(strlen(families[f].name) == name_len && memcmp(families[f].name, text, name_len) == 0))
        f++;
    if (f == FAMILY_COUNT)
        return refuse(text, "unknown family (accepted: " ACCEPTED ")", err);
    gar_estimator_spec spec = gar_estimator_spec_default();
    spec.family = (gar_estimator_family)f;
    if (colon == NULL) {
        *out = spec;
        return 0;
    }
    const char *key = families[f].key;
    if (key == NULL)
        return refuse(text, "this family takes no keys", err);
    const char *kv = colon + 1;
    size_t key_len = strlen(key);
    if (strncmp(kv, key, key_len) != 0 || kv[key_len] != '=')
        return refuse(text, f == GAR_ESTIMATOR_EWMA ? "expected alpha=A" : "expected q=Q", err);
    const char *value = kv + key_len + 1;
    uint32_t v;
    if (!parse_fraction(value, strlen(value), &v))
        return refuse(text, "the value is not a decimal 0..1 with at most 6 fraction digits",
                      err);
    if (f == GAR_ESTIMATOR_EWMA) {
        if (v == 0)
            return refuse(text, "alpha 0 would never learn", err);
        spec.alpha = v;
    } else {
        spec.quantile = v;
    }
    *out = spec;
    return 0;
}

static void put_fraction(gar__text_out *out, uint32_t v)
{
    gar__text_put_u64(out, v / GAR_FRACTION_ONE);
    uint32_t frac = v % GAR_FRACTION_ONE;
    if (frac == 0)
        return;
    char digits[8] = ".000000";
    for (int i = 6; i >= 1; i--, frac /= 10)
        digits[i] = (char)('0' + frac % 10);
    size_t n = 7;
    while (digits[n - 1] == '0')
        n--;
    gar__text_put(out, digits, n);
}

size_t gar_estimator_spec_label(const gar_estimator_spec *spec, char *buf, size_t size)
{
    gar__text_out out = gar__text_out_make(buf, size);
    if (spec == NULL || (unsigned)spec->family >= FAMILY_COUNT) {
        gar__text_puts(&out, "?");
        return out.len;
    }
    gar__text_puts(&out, families[spec->family].name);
    if (spec->family == GAR_ESTIMATOR_EWMA) {
        gar__text_puts(&out, ":alpha=");
        put_fraction(&out, spec->alpha);
    } else if (spec->family == GAR_ESTIMATOR_QUANTILE) {
        gar__text_puts(&out, ":q=");
        put_fraction(&out, spec->quantile);
    }
    return out.len;
}

void gar_family_point_init(gar_family_point *point)
{
    assert(point != NULL);
    memset(point, 0, sizeof *point);
    gar_estimator_init(&point->adl);
}

/* floor(a * frac / 10^6) without overflow, for frac <= 10^6. */
static gar_dur_ns scale_fraction(gar_dur_ns a, uint32_t frac)
{
    return (a / GAR_FRACTION_ONE) * frac + (a % GAR_FRACTION_ONE) * frac / GAR_FRACTION_ONE;
}

int gar__family_check(const gar_estimator_spec *spec, const gar_deadline *deadline,
                      const char *function, gar_error *err)
{
    if (spec == NULL || (unsigned)spec->family >= FAMILY_COUNT)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, function, "spec",
                             "is NULL or of no family");
    if (deadline == NULL || deadline->window < 1 || deadline->window > GAR_WINDOW_MAX ||
        deadline->max_sleep_ns == 0 || deadline->min_sleep_ns > deadline->max_sleep_ns)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, function, "deadline",
                             "is NULL or breaks window 1..16, max_sleep >= 1, min <= max");
    return 0;
}

/* The nearest-rank `q` quantile of the last `window` samples of the ring. */
static gar_dur_ns ring_quantile(const gar_family_point *pt, uint32_t window, uint32_t q)
{
    unsigned n = pt->count < window ? pt->count : window;
    gar_dur_ns v[GAR_WINDOW_MAX];
    for (unsigned back = 1; back <= n; back++) {
        gar_dur_ns x = pt->recent[(pt->next + GAR_WINDOW_MAX - back) % GAR_WINDOW_MAX];
        unsigned i = back - 1;
        while (i > 0 && v[i - 1] > x) {
            v[i] = v[i - 1];
            i--;
        }
        v[i] = x;
    }
    static_assert(GAR_FRACTION_ONE == 1000000, "quantile levels are millionths, as ranks");
    return gar_nearest_rank(v, n, q);
}

int gar__family_prediction_other(const gar_estimator_spec *spec, const gar_family_point *point,
                                 uint32_t window, gar_dur_ns *p_ns)
{
    switch (spec->family) {
    case GAR_ESTIMATOR_ADL: /* the inline rule takes adl itself */
        return gar__family_prediction(spec, point, window, p_ns);
    case GAR_ESTIMATOR_NONE:
    case GAR_ESTIMATOR_ORACLE:
        return 0;
    case GAR_ESTIMATOR_HALF_MIN:
        if (point->seen == 0)
            return 0;
        *p_ns = point->least / 2;
        return 1;
    case GAR_ESTIMATOR_HALF_MEAN:
        if (point->seen == 0)
            return 0;
        *p_ns = point->sum / point->seen / 2;
        return 1;
    case GAR_ESTIMATOR_EWMA:
        if (point->seen == 0)
            return 0;
        *p_ns = point->ewma;
        return 1;
    case GAR_ESTIMATOR_QUANTILE:
        if (point->count == 0)
            return 0;
        *p_ns = ring_quantile(point, window, spec->quantile);
        return 1;
    }
    return 0;
}

int gar_family_prediction(const gar_estimator_spec *spec, const gar_family_point *point,
                          const gar_deadline *deadline, gar_dur_ns *p_ns, gar_error *err)
{
    assert(point != NULL && p_ns != NULL);
    int rc = gar__family_check(spec, deadline, "gar_family_prediction", err);
    if (rc < 0)
        return rc;
    return gar__family_prediction(spec, point, deadline->window, p_ns);
}

int gar_family_sleep(const gar_estimator_spec *spec, const gar_family_point *point,
                     const gar_deadline *deadline, gar_dur_ns *sleep_ns, gar_error *err)
{
    assert(point != NULL && sleep_ns != NULL);
    int rc = gar__family_check(spec, deadline, "gar_family_sleep", err);
    if (rc < 0)
        return rc;
    if (spec->family == GAR_ESTIMATOR_ADL)
        return gar_estimator_sleep(&point->adl, deadline, sleep_ns, err);
    gar_dur_ns p;
    if (gar__family_prediction(spec, point, deadline->window, &p) == 0)
        return 0;
    return gar__deadline_sleep_for(deadline, p, sleep_ns);
}

static void take(const gar_estimator_spec *spec, gar_family_point *pt, gar_dur_ns x)
{
    if (pt->seen == 0 || x < pt->least)
        pt->least = x;
    pt->sum = x > UINT64_MAX - pt->sum ? UINT64_MAX : pt->sum + x;
    if (pt->seen == 0)
        pt->ewma = x;
    else if (x >= pt->ewma)
        pt->ewma += scale_fraction(x - pt->ewma, spec->alpha);
    else
        pt->ewma -= scale_fraction(pt->ewma - x, spec->alpha);
    pt->seen++;
}

static void push_recent(gar_family_point *pt, gar_dur_ns x)
{
    pt->recent[pt->next] = x;
    pt->next = (uint8_t)((pt->next + 1) % GAR_WINDOW_MAX);
    if (pt->count < GAR_WINDOW_MAX)
        pt->count++;
}

void gar__family_take_other(const gar_estimator_spec *spec, gar_family_point *point,
                            uint32_t window, gar_sample sample)
{
    switch (spec->family) {
    case GAR_ESTIMATOR_ADL: /* the inline rule takes adl itself */
        gar__family_observe(spec, point, window, sample);
        return;
    case GAR_ESTIMATOR_NONE:
    case GAR_ESTIMATOR_ORACLE:
        return;
    case GAR_ESTIMATOR_HALF_MIN:
    case GAR_ESTIMATOR_HALF_MEAN:
    case GAR_ESTIMATOR_EWMA:
        take(spec, point, sample.ns);
        return;
    case GAR_ESTIMATOR_QUANTILE:
        if (sample.kind == GAR_SAMPLE_EXACT) {
            push_recent(point, sample.ns);
        } else {
            gar_dur_ns bound = sample.ns;
            if (point->count > 0) {
                gar_dur_ns p = ring_quantile(point, window, spec->quantile);
                if (p < bound)
                    bound = p;
            }
            push_recent(point, bound / 2);
        }
        return;
    }
}

int gar_family_observe(const gar_estimator_spec *spec, gar_family_point *point,
                       const gar_deadline *deadline, gar_sample sample, gar_error *err)
{
    assert(point != NULL);
    int rc = gar__family_check(spec, deadline, "gar_family_observe", err);
    if (rc < 0)
        return rc;
    if (sample.kind != GAR_SAMPLE_NONE && sample.kind != GAR_SAMPLE_EXACT &&
        sample.kind != GAR_SAMPLE_LATE)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_family_observe", "sample",
                             "has a kind that is none of NONE, EXACT, LATE");
    gar__family_observe(spec, point, deadline->window, sample);
    return 0;
}
