/* experiments/report/plan_names.c — a plan's family and the parameters that
 * tell it from the plans shown beside it. */
#include "report/plan_names.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <gar/bands.h>

#include "sweep/format.h"
#include "sweep/sweep_spec.h"

void gar_plan_family(const char *plan, char *out, size_t size)
{
    gar_bands bands;
    if (size == 0)
        return;
    if (gar_bands_parse(plan, &bands, NULL) < 0) {
        gar_format(out, size, "%s", plan);
        return;
    }
    size_t n = 0;
    out[0] = '\0';
    if (bands.count > 1)
        n += (size_t)gar_format(out, size, "bands ");
    for (uint32_t b = 0; b < bands.count && n < size; b++) {
        const gar_plan *p = &bands.band[b].plan;
        if (b > 0)
            n += (size_t)gar_format(out + n, size - n, "|%u:", (unsigned)bands.band[b].first_rows);
        if (n < size)
            n += (size_t)gar_format(out + n, size - n, "%s%s", gar_park_name(p->park),
                                    p->predict ? "+predict" : "");
    }
}

/* One KEY=VALUE of a plan: `where` tells the same key of two bands apart. */
typedef struct param {
    char where[24]; /* "" for a one-band plan, else the band's "|EDGE:" */
    char key[32];
    char value[32];
} param;

#define PARAMS_MAX 32

/* The KEY=VALUE pairs of `plan` in text order; returns their count. */
static size_t params_of(const char *plan, param *out)
{
    size_t n = 0;
    bool several = strchr(plan, ';') != NULL;
    const char *band = plan;
    while (band != NULL && n < PARAMS_MAX) {
        const char *end = strchr(band, ';');
        size_t len = end != NULL ? (size_t)(end - band) : strlen(band);
        char where[24] = "";
        const char *at = band, *stop = band + len;
        if (strncmp(at, "rows>=", 6) == 0) {
            const char *colon = memchr(at, ':', len);
            if (colon != NULL) {
                gar_format(where, sizeof where, "|%.*s:", (int)(colon - at - 6), at + 6);
                at = colon + 1;
            }
        }
        /* Pairs are the text between ':' or ',' and the next ',' or '+'. */
        while (at < stop && n < PARAMS_MAX) {
            const char *eq = memchr(at, '=', (size_t)(stop - at));
            if (eq == NULL)
                break;
            const char *key = eq;
            while (key > at && key[-1] != ':' && key[-1] != ',')
                key--;
            const char *value_end = eq + 1;
            while (value_end < stop && *value_end != ',' && *value_end != '+')
                value_end++;
            param *p = &out[n++];
            gar_format(p->where, sizeof p->where, "%s", several ? where : "");
            gar_format(p->key, sizeof p->key, "%.*s", (int)(eq - key), key);
            gar_format(p->value, sizeof p->value, "%.*s", (int)(value_end - eq - 1), eq + 1);
            at = value_end;
        }
        band = end != NULL ? end + 1 : NULL;
    }
    return n;
}

/* Whether `other` holds the pair `p` with another value, or not at all. */
static bool differs(const param *p, const param *other, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(other[i].where, p->where) == 0 && strcmp(other[i].key, p->key) == 0)
            return strcmp(other[i].value, p->value) != 0;
    return true;
}

void gar_plan_name_among(const char *plan, const char *const *shown, size_t count, char *out,
                         size_t size)
{
    char family[256], other_family[256];
    gar_plan_family(plan, family, sizeof family);
    param mine[PARAMS_MAX], theirs[PARAMS_MAX];
    size_t n = params_of(plan, mine);
    bool named[PARAMS_MAX] = { false };
    for (size_t s = 0; s < count; s++) {
        if (strcmp(shown[s], plan) == 0)
            continue;
        gar_plan_family(shown[s], other_family, sizeof other_family);
        if (strcmp(other_family, family) != 0)
            continue;
        size_t m = params_of(shown[s], theirs);
        for (size_t i = 0; i < n; i++)
            named[i] |= differs(&mine[i], theirs, m);
    }
    size_t at = (size_t)gar_format(out, size, "%s", family);
    bool first = true;
    for (size_t i = 0; i < n && at < size; i++) {
        if (!named[i])
            continue;
        at += (size_t)gar_format(out + at, size - at, "%s%s%s=%s", first ? " " : ",",
                                 mine[i].where, mine[i].key, mine[i].value);
        first = false;
    }
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

int gar_plan_text_order(const char *a, const char *b)
{
    while (*a != '\0' && *b != '\0') {
        if (digit(*a) && digit(*b)) {
            /* Two numbers: the shorter (leading zeros aside) is the smaller. */
            while (*a == '0' && digit(a[1]))
                a++;
            while (*b == '0' && digit(b[1]))
                b++;
            size_t na = 0, nb = 0;
            while (digit(a[na]))
                na++;
            while (digit(b[nb]))
                nb++;
            if (na != nb)
                return na < nb ? -1 : 1;
            int c = strncmp(a, b, na);
            if (c != 0)
                return c;
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (*a != '\0') - (*b != '\0');
}

void gar_arm_name_among(const char *plan, const char *estimator, const char *const *shown,
                        size_t count, char *out, size_t size)
{
    gar_plan_name_among(plan, shown, count, out, size);
    size_t at = strlen(out);
    if (strcmp(estimator, GAR_SWEEP_NO_ESTIMATOR_LABEL) != 0 && at < size)
        gar_format(out + at, size - at, " / %s", estimator);
}
