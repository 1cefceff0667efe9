/* core/bands.c — plans by step size (gar/bands.h).
 *
 * The bands' own grammar is ';', "rows>=", an edge and ':'; everything
 * between is a band's plan, handed to gar_plan_parse_span whole, so a band's
 * plan is refused in the very words a plan text would be. */
#include <gar/bands.h>

#include <string.h>

#include "scan.h"
#include "text.h"

/* Writes `first`, "band K" and `rest` into `buf`. */
static const char *band_words(char *buf, size_t size, const char *first, uint32_t k,
                              const char *rest)
{
    gar__text_out out = gar__text_out_make(buf, size);
    gar__text_puts(&out, first);
    gar__text_puts(&out, "band ");
    gar__text_put_u64(&out, k);
    gar__text_puts(&out, rest);
    return buf;
}

/* The bytes of the plan that starts at the cursor: up to the next ';'. */
static size_t plan_span(const gar__scan *s)
{
    const char *semicolon = memchr(s->text + s->pos, ';', s->len - s->pos);
    return semicolon != NULL ? (size_t)(semicolon - (s->text + s->pos)) : s->len - s->pos;
}

/* Reads ";rows>=N:" in front of band `k` (k >= 2), N above the previous edge. */
static bool read_edge(gar__scan *s, uint32_t k, uint32_t previous, uint32_t *edge)
{
    char what[32];
    if (!gar__scan_literal(s, ";") || !gar__scan_literal(s, "rows>="))
        return false;
    if (k > 2 && previous == UINT32_MAX)
        return gar__scan_fail(s, s->pos, band_words(what, sizeof what, "", k, ""),
                             " cannot start above 4294967295 rows", (const char *)NULL);
    uint64_t value;
    if (!gar__scan_decimal(s, band_words(what, sizeof what, "", k, " edge"), (uint64_t)previous + 1,
                          UINT32_MAX, "edges strictly increase", &value) ||
        !gar__scan_literal(s, ":"))
        return false;
    *edge = (uint32_t)value;
    return true;
}

int gar_bands_parse(const char *text, gar_bands *out, gar_error *err)
{
    if (text == NULL || out == NULL)
        return gar_error_set(err, GAR_E_INVALID_ARGUMENT, 3, "gar_bands_parse",
                             text == NULL ? "text" : "out", "is NULL");
    size_t len = strlen(text);
    bool one_band = memchr(text, ';', len) == NULL;
    gar__scan s = gar__scan_make(text, len);
    gar_bands bands;
    memset(&bands, 0, sizeof bands);

    if (gar__scan_looking_at(&s, "rows>="))
        gar__scan_fail(&s, 0, "band 1 starts at 0 rows and states no edge, found 'rows>='",
                      (const char *)NULL);
    for (uint32_t k = 1; !s.failed && (k == 1 || !gar__scan_at_end(&s)); k++) {
        if (k > GAR_BANDS_MAX) {
            char max[GAR__U64_TEXT_BYTES];
            gar__scan_fail(&s, s.pos, "more than ", gar__u64_text(GAR_BANDS_MAX, max), " bands",
                          (const char *)NULL);
            break;
        }
        gar_band *band = &bands.band[k - 1];
        if (k > 1 && !read_edge(&s, k, bands.band[k - 2].first_rows, &band->first_rows))
            break;
        size_t n = plan_span(&s);
        char words[32];
        if (n == 0 && !one_band) {
            gar__scan_fail_found(&s, s.pos, band_words(words, sizeof words, "expected ", k, "'s plan"));
            break;
        }
        const char *subject = one_band ? "plan" : band_words(words, sizeof words, "", k, " plan");
        int rc = gar_plan_parse_span(s.text + s.pos, n, subject, &band->plan, err);
        if (rc < 0)
            return rc;
        s.pos += n;
        bands.count = k;
    }
    if (s.failed) {
        char shown[GAR_ERROR_ARG_BYTES + 1];
        gar__scan_copy_text(text, len, shown, sizeof shown);
        return gar_error_set(err, GAR_E_INVALID_PLAN, 3, "bands", shown, s.fault);
    }
    *out = bands;
    return 0;
}

const gar_plan *gar_bands_select(const gar_bands *bands, uint32_t step_rows)
{
    if (bands == NULL || bands->count == 0)
        return NULL;
    uint32_t k = bands->count < GAR_BANDS_MAX ? bands->count : GAR_BANDS_MAX;
    while (k > 1 && step_rows < bands->band[k - 1].first_rows)
        k--;
    return &bands->band[k - 1].plan;
}

/* Appends one plan's label.  Any gar_plan's label fits `label`, even an
 * invalid one's: every number in it has at most 20 digits. */
static void put_plan_label(gar__text_out *out, const gar_plan *plan)
{
    char label[256];
    size_t n = gar_plan_label(plan, label, sizeof label);
    gar__text_put(out, label, n < sizeof label ? n : sizeof label - 1);
}

size_t gar_bands_label(const gar_bands *bands, char *buf, size_t size)
{
    gar__text_out out = gar__text_out_make(buf, size);
    if (bands == NULL)
        return 0;
    uint32_t count = bands->count < GAR_BANDS_MAX ? bands->count : GAR_BANDS_MAX;
    for (uint32_t i = 0; i < count; i++) {
        if (i > 0) {
            gar__text_puts(&out, ";rows>=");
            gar__text_put_u64(&out, bands->band[i].first_rows);
            gar__text_puts(&out, ":");
        }
        put_plan_label(&out, &bands->band[i].plan);
    }
    return out.len;
}

bool gar_bands_equal(const gar_bands *a, const gar_bands *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->count != b->count || a->count > GAR_BANDS_MAX)
        return false;
    for (uint32_t i = 0; i < a->count; i++)
        if (a->band[i].first_rows != b->band[i].first_rows ||
            !gar_plan_equal(&a->band[i].plan, &b->band[i].plan))
            return false;
    return true;
}

static bool edges_valid(const gar_bands *b)
{
    if (b->count < 1 || b->count > GAR_BANDS_MAX || b->band[0].first_rows != 0)
        return false;
    for (uint32_t i = 1; i < b->count; i++)
        if (b->band[i].first_rows <= b->band[i - 1].first_rows)
            return false;
    return true;
}

int gar_bands_resolve(const gar_bands *requested, const gar_caps *caps, gar_bands *running,
                      gar_error *warning)
{
    if (requested == NULL || caps == NULL || running == NULL)
        return gar_error_set(warning, GAR_E_INVALID_ARGUMENT, 3, "gar_bands_resolve",
                             requested == NULL ? "requested" : caps == NULL ? "caps" : "running",
                             "is NULL");
    if (!edges_valid(requested))
        return gar_error_set(warning, GAR_E_INVALID_ARGUMENT, 3, "gar_bands_resolve", "requested",
                             "are not valid bands (see gar/bands.h)");

    gar_bands bands = *requested;
    gar_error first; /* the first band's fallback, whose capability the warning names */
    gar_error_clear(&first);
    for (uint32_t i = 0; i < bands.count; i++) {
        gar_error band_warning;
        int rc = gar_plan_resolve(&requested->band[i].plan, caps, &bands.band[i].plan,
                                  &band_warning);
        if (rc < 0) {
            if (warning != NULL)
                *warning = band_warning;
            return rc;
        }
        if (rc == 1 && first.code == GAR_OK)
            first = band_warning;
    }

    if (first.code == GAR_OK) {
        *running = bands;
        gar_error_clear(warning);
        return 0;
    }
    char asked[GAR_BANDS_LABEL_BYTES];
    char runs[GAR_BANDS_LABEL_BYTES];
    gar_bands runs_plain = bands;
    for (uint32_t i = 0; i < runs_plain.count; i++)
        runs_plain.band[i].plan.fell_back = false;
    gar_bands_label(requested, asked, sizeof asked);
    gar_bands_label(&runs_plain, runs, sizeof runs);
    *running = bands;
    gar_error_set(warning, GAR_W_PARK_FALLBACK, 4, asked, first.argv[1], first.argv[2], runs);
    return 1;
}
